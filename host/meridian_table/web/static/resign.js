// Meridian Table: Resign (lichess "Resign", BoardGameArena "Concede"). The table says
// which seats may resign now (state.resign: the people's seats while the game runs);
// the button asks to confirm in a dialog, then sends {"cmd": "resign", "player": seat}.
// With one person at the table (a game against the computer) the button resigns for
// them; with several it resigns for the seat to move, or asks which seat when no person
// is to move.
"use strict";
(() => {
  const t = (text, params) => (window.MeridianI18n ? window.MeridianI18n.t(text, params)
    : text.replace(/\{(\w+)\}/g, (m, k) => (params && k in params ? String(params[k]) : m)));
  let state = null;

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function name(s, seat) {
    const api = window.meridian;
    const label = api && api.seatLabel ? api.seatLabel(seat) : seat;
    const player = (s.seats || {})[seat];
    return player && player !== label ? `${player} (${label})` : label;
  }

  // The seats the button may resign for, in the order offered.
  function candidates(s) {
    const seats = Array.isArray(s.resign) ? s.resign : [];
    if (seats.length <= 1) return seats;
    return seats.includes(s.to_move) ? [s.to_move] : seats;
  }

  function dialog() {
    let d = document.getElementById("resign-dialog");
    if (d) return d;
    d = el("dialog", { id: "resign-dialog", class: "newgame-dialog resign-dialog", "aria-labelledby": "resign-title" });
    document.body.append(d);
    return d;
  }

  function ask() {
    const s = state;
    if (!s) return;
    const seats = candidates(s);
    if (!seats.length) return;
    const d = dialog();
    d.replaceChildren();
    d.append(el("h2", { id: "resign-title" }, t("Resign the game?")));
    d.append(el("p", {}, t("The game ends now and the other side wins. It cannot be undone.")));
    const buttons = el("div", { class: "ng-buttons" });
    for (const seat of seats) {
      const b = el("button", { type: "button", class: "control resign-confirm", "data-resign": seat },
        t("Resign as {name}", { name: name(s, seat) }));
      b.addEventListener("click", async () => {
        const api = window.meridian;
        const answer = api ? await api.request({ cmd: "resign", player: seat }, b) : { ok: false };
        if (answer && answer.ok) d.close();
      });
      buttons.append(b);
    }
    const keep = el("button", { type: "button", class: "control", id: "resign-keep" }, t("Keep playing"));
    keep.addEventListener("click", () => d.close());
    buttons.append(keep);
    d.append(buttons);
    if (!d.open) d.showModal();
    keep.focus();
  }

  function render(s) {
    state = s;
    const box = document.getElementById("controls");
    if (!box) return;
    let b = document.getElementById("resign-open");
    const api = window.meridian;
    const show = candidates(s).length > 0 && !(api && api.replay);
    if (!show) {
      if (b) b.remove();
      const d = document.getElementById("resign-dialog");
      if (d && d.open) d.close();
      return;
    }
    if (!b) {
      b = el("button", { type: "button", id: "resign-open", class: "control resign" }, t("Resign…"));
      b.addEventListener("click", ask);
      box.append(b);
    }
  }

  document.addEventListener("meridian:state", (e) => render(e.detail || {}));
  window.MeridianResign = { open: ask };
})();
