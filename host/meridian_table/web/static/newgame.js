// Meridian Table: games from the page. A "Game" panel with the players' names (editable
// before the first move) and a New game button; a new-game form built from the table's
// catalog (each installed game's options schema, seats, automata and board profiles);
// Rematch and New game on the end screen. It speaks the table's commands (catalog,
// new_game, rematch, rename: docs/WEB.md) through window.meridian.request and learns
// each new state from app.js's "meridian:state" event. It names no game.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const t = (text, params) => (window.MeridianI18n ? window.MeridianI18n.t(text, params)
    : text.replace(/\{(\w+)\}/g, (m, k) => (params && k in params ? String(params[k]) : m)));
  let state = null;
  let catalog = null;
  let namesKey = "";
  let endKey = "";

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === false || v === null || v === undefined) continue;
      if (k === "class") node.className = v;
      else if (k === "dataset") Object.assign(node.dataset, v);
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function request(cmd) {
    const api = window.meridian;
    if (!api || typeof api.request !== "function") return Promise.resolve({ ok: false, error: "the page is not connected" });
    return api.request(cmd);
  }

  // The seat menu's automata ([{value, label, help}]): app.js builds them from the spec's
  // automata and levels, the same for the players panel and this form.
  function automatonChoices(game) {
    const api = window.meridian;
    if (api && typeof api.automatonChoices === "function") {
      return api.automatonChoices(game).map((c) => ({ ...c,
        label: c.level ? t("Computer — level {n} ({name})", { n: c.level, name: t(levelName(game, c)) }) : t("the {name} automaton", { name: c.value }),
        help: c.help ? t(c.help) : "" }));
    }
    return (game.automata || []).map((a) => ({ value: a, label: t("the {name} automaton", { name: a }), help: "" }));
  }

  function levelName(game, choice) {
    const levels = ((game.levels || {})[choice.kind]) || [];
    const found = levels.find((l) => l.level === choice.level);
    return found ? found.name : String(choice.level);
  }

  function chosen(choices, kind) {
    const api = window.meridian;
    if (!kind) return null;
    return api && typeof api.chosenAutomaton === "function" ? api.chosenAutomaton(choices, kind) : kind;
  }

  function seatLabel(s, colour) {
    const seats = (s && s.spec && s.spec.page && s.spec.page.seats) || {};
    return (seats[colour] && seats[colour].label) || colour;
  }

  // ---- the Game panel: names before the first move, New game --------------------------

  function panel() {
    let box = $("game-panel");
    if (box) return box;
    box = el("section", { id: "game-panel", class: "panel game-panel", "aria-labelledby": "game-panel-title" });
    box.append(el("h2", { id: "game-panel-title" }, t("Game")));
    const names = el("form", { id: "names-form", class: "names-form", hidden: true });
    box.append(names);
    const actions = el("div", { class: "game-actions" });
    const fresh = el("button", { id: "new-game", class: "control", type: "button" }, t("New game…"));
    fresh.addEventListener("click", () => openForm());
    actions.append(fresh);
    box.append(actions);
    const side = document.querySelector("aside.side");
    const summary = $("summary");
    if (summary && summary.parentNode === side) summary.after(box);
    else if (side) side.prepend(box);
    else document.body.append(box);
    return box;
  }

  function renderNames(s) {
    const form = $("names-form");
    const open = !s.result && (s.moves || []).length === 0;
    const key = `${s.game_id}:${open}:${(s.players || []).join("\u0001")}`;
    if (key === namesKey) return;
    namesKey = key;
    form.replaceChildren();
    form.hidden = !open;
    if (!open) return;
    const colours = Object.keys(s.seats || {});
    form.append(el("p", { class: "names-hint" }, t("Names can change until the first move.")));
    (s.players || []).forEach((name, i) => {
      const colour = colours.find((c) => s.seats[c] === name) || colours[i] || "";
      const id = `name-${i + 1}`;
      const row = el("div", { class: "names-row" });
      row.append(el("label", { for: id }, `Player ${i + 1}${colour ? ` (${seatLabel(s, colour)})` : ""}`));
      row.append(el("input", { id, name: "player", type: "text", value: name, maxlength: 40, autocomplete: "off", required: true }));
      form.append(row);
    });
    const save = el("button", { type: "submit", class: "control", id: "names-save" }, t("Save names"));
    form.append(save);
    form.onsubmit = async (e) => {
      e.preventDefault();
      const players = [...form.querySelectorAll("input[name=player]")].map((i) => i.value);
      save.disabled = true;
      const answer = await request({ cmd: "rename", players });
      save.disabled = false;
      toast(answer.ok ? t("Names saved") : answer.error, answer.ok ? "ok" : "error");
    };
  }

  // kind "ok": good news, not styled as an error.
  function toast(text, kind) {
    const t = $("toast");
    if (!t || !text) return;
    t.dataset.kind = kind || "error";
    t.textContent = text;
    t.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { t.hidden = true; }, 3500);
  }

  // ---- the end screen: Rematch and New game ---------------------------------------------

  function renderEnd(s) {
    const summary = $("summary");
    if (!summary) return;
    let box = $("end-actions");
    const key = `${s.game_id}:${Boolean(s.result)}`;
    if (key === endKey && box) return;
    endKey = key;
    if (!box) {
      box = el("div", { id: "end-actions", class: "end-actions" });
      summary.append(box);
    }
    box.replaceChildren();
    if (!s.result) return;
    const players = s.players || [];
    const turned = players.slice(1).concat(players.slice(0, 1));
    const again = el("button", { id: "rematch", class: "control confirm-like", type: "button" }, t("Rematch, seats swapped"));
    again.title = turned.length ? `Same game again: ${turned.join(", ")} in that order` : "Same game again";
    again.addEventListener("click", async () => {
      again.disabled = true;
      const answer = await request({ cmd: "rematch" });
      again.disabled = false;
      if (!answer.ok) toast(answer.error);
    });
    const fresh = el("button", { class: "control", type: "button", id: "end-new-game" }, t("New game…"));
    fresh.addEventListener("click", () => openForm());
    box.append(again, fresh);
  }

  // ---- the new-game form ----------------------------------------------------------------

  function dialog() {
    let d = $("newgame-dialog");
    if (d) return d;
    d = el("dialog", { id: "newgame-dialog", class: "newgame-dialog", "aria-labelledby": "newgame-title" });
    document.body.append(d);
    return d;
  }

  async function openForm() {
    const answer = await request({ cmd: "catalog" });
    if (!answer.ok) { toast(answer.error || t("New games are not offered by this table")); return; }
    catalog = answer.catalog;
    const d = dialog();
    buildForm(d, catalog.current.game);
    if (!d.open) d.showModal();
    const first = d.querySelector("select, input");
    if (first) first.focus();
  }

  function gameOf(id) {
    const games = catalog.games || [];
    return games.find((g) => g.id === id) || games.find((g) => g.at_table !== false) || games[0];
  }

  function buildForm(d, gameId, keep) {
    const game = gameOf(gameId);
    const current = catalog.current || {};
    const same = current.game === game.id;
    d.replaceChildren();
    const form = el("form", { id: "newgame-form", method: "dialog", class: "newgame-form" });
    form.append(el("h2", { id: "newgame-title" }, t("New game")));
    if (state && !state.result && (state.moves || []).length) {
      form.append(el("p", { class: "newgame-note" }, t("This game is not over: it is saved in the log and can be continued when the table starts again.")));
    }
    // The game.
    const gameRow = el("div", { class: "ng-row" });
    gameRow.append(el("label", { for: "ng-game" }, t("Game")));
    const select = el("select", { id: "ng-game", name: "game" });
    for (const g of catalog.games) {
      if (g.at_table === false && g.id !== game.id) continue;  // not playable on a sensing board
      select.append(el("option", { value: g.id, selected: g.id === game.id }, g.title));
    }
    select.addEventListener("change", () => buildForm(d, select.value));
    gameRow.append(select);
    form.append(gameRow);
    if (game.summary) form.append(el("p", { class: "ng-summary" }, game.summary));
    // How many play.
    const counts = game.player_counts || [2];
    const wanted = keep && keep.count ? keep.count : (same ? (current.players || []).length : counts[counts.length - 1]);
    const count = counts.includes(wanted) ? wanted : counts[counts.length - 1];
    if (counts.length > 1) {
      const row = el("div", { class: "ng-row" });
      row.append(el("label", { for: "ng-count" }, t("Players")));
      const pick = el("select", { id: "ng-count", name: "count" });
      for (const c of counts) pick.append(el("option", { value: c, selected: c === count }, String(c)));
      pick.addEventListener("change", () => buildForm(d, game.id, { count: Number(pick.value), names: names(form) }));
      row.append(pick);
      form.append(row);
    }
    // The seats: a name each, and who plays it.
    const fs = el("fieldset", { class: "ng-seats" });
    fs.append(el("legend", {}, t("Seats, in turn order")));
    const labels = counts.length === 1 ? (game.seat_labels || []) : [];
    const oldNames = (keep && keep.names) || (same ? current.players || [] : []);
    for (let i = 0; i < count; i += 1) {
      const row = el("div", { class: "ng-seat" });
      const id = `ng-name-${i + 1}`;
      row.append(el("label", { for: id }, `Player ${i + 1}${labels[i] ? ` (${labels[i]})` : ""}`));
      row.append(el("input", { id, type: "text", name: "name", value: oldNames[i] || `Player ${i + 1}`, maxlength: 40, required: true, autocomplete: "off" }));
      if ((game.automata || []).length) {
        // A person, or one of the game's automata: its bot at each level, in words, with
        // what the chosen level does below the seat.
        const kid = `ng-kind-${i + 1}`;
        const kind = el("select", { id: kid, name: "kind", "aria-label": `Player ${i + 1} is played by`, "aria-describedby": `${kid}-help` });
        const choices = automatonChoices(game);
        const was = same ? chosen(choices, (current.seats || {})[String(i + 1)]) : null;
        kind.append(el("option", { value: "person" }, t("a person")));
        for (const c of choices) kind.append(el("option", { value: c.value, selected: was === c.value }, c.label));
        if (was && !choices.some((c) => c.value === was)) kind.append(el("option", { value: was, selected: true }, was));
        const help = el("span", { id: `${kid}-help`, class: "ng-help ng-kind-help" });
        const describe = () => {
          const c = choices.find((x) => x.value === kind.value);
          help.textContent = c && c.help ? c.help : "";
          help.hidden = !help.textContent;
        };
        kind.addEventListener("change", describe);
        describe();
        row.append(kind, help);
      }
      fs.append(row);
    }
    form.append(fs);
    // The game's options, from its schema.
    const opts = el("fieldset", { class: "ng-options" });
    opts.append(el("legend", {}, t("Options")));
    const given = same ? { ...(current.options || {}), ...(current.settings || {}) } : {};
    for (const o of game.options || []) opts.append(optionRow(o, given[o.name]));
    // The board profile.
    const prow = el("div", { class: "ng-row" });
    prow.append(el("label", { for: "ng-profile" }, t("Board")));
    const prof = el("select", { id: "ng-profile", name: "profile" });
    prof.append(el("option", { value: "" }, t("the game's board for these players")));
    for (const p of game.profiles || []) prof.append(el("option", { value: p, selected: same && current.profile === p }, p));
    prow.append(prof);
    opts.append(prow);
    form.append(opts);
    form.append(clockFields(same ? current.clock : null));
    const err = el("p", { id: "ng-error", class: "ng-error", role: "alert", hidden: true });
    form.append(err);
    const buttons = el("div", { class: "ng-buttons" });
    const start = el("button", { type: "submit", class: "control confirm-like", id: "ng-start" }, t("Start the game"));
    const cancel = el("button", { type: "button", class: "control", id: "ng-cancel" }, t("Cancel"));
    cancel.addEventListener("click", () => d.close());
    buttons.append(start, cancel);
    form.append(buttons);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      start.disabled = true;
      err.hidden = true;
      const answer = await request(collect(form, game));
      start.disabled = false;
      if (answer.ok) { d.close(); toast(t("New game started"), "ok"); return; }
      err.textContent = answer.error || t("The game could not start");
      err.hidden = false;
    });
    d.append(form);
  }

  // The players' clocks: the same for every game (the table runs them, not the game).
  const CLOCKS = [["", "no clocks"], ["sudden", "sudden death"], ["fischer", "Fischer increment"],
    ["bronstein", "Bronstein delay"], ["turn", "a timer per turn"]];
  const FLAGS = [["lose", "that player loses"], ["score", "the count decides"], ["warn", "play on"]];

  function clockFields(was) {
    const fs = el("fieldset", { class: "ng-clocks" });
    fs.append(el("legend", {}, t("Clocks")));
    const kindRow = el("div", { class: "ng-row" });
    kindRow.append(el("label", { for: "ng-clock-kind" }, t("Clock")));
    const kind = el("select", { id: "ng-clock-kind", name: "clock-kind" });
    for (const [v, t] of CLOCKS) kind.append(el("option", { value: v, selected: (was ? was.kind : "") === v }, t));
    kindRow.append(kind);
    const timeRow = el("div", { class: "ng-row" });
    timeRow.append(el("label", { for: "ng-clock-time" }, t("Minutes")));
    timeRow.append(el("input", { id: "ng-clock-time", name: "clock-time", type: "number", min: "0.1", step: "any", inputmode: "decimal", value: was ? +(was.base_s / 60).toFixed(2) : 10 }));
    const extraRow = el("div", { class: "ng-row" });
    extraRow.append(el("label", { for: "ng-clock-extra" }, t("Seconds added (Fischer) or delay (Bronstein)")));
    extraRow.append(el("input", { id: "ng-clock-extra", name: "clock-extra", type: "number", min: "0", step: "any", inputmode: "decimal", value: was ? was.extra_s : 5 }));
    const flagRow = el("div", { class: "ng-row" });
    flagRow.append(el("label", { for: "ng-clock-flag" }, t("When a clock runs out")));
    const flag = el("select", { id: "ng-clock-flag", name: "clock-flag" });
    for (const [v, t] of FLAGS) flag.append(el("option", { value: v, selected: (was ? was.flag : "lose") === v }, t));
    flagRow.append(flag);
    const ledRow = el("div", { class: "ng-row ng-check" });
    ledRow.append(el("input", { id: "ng-clock-leds", name: "clock-leds", type: "checkbox", checked: Boolean(was && was.leds) }),
      el("label", { for: "ng-clock-leds" }, t("Low time on the board too (the lit points breathe)")));
    const show = () => {
      const on = kind.value !== "";
      timeRow.hidden = !on;
      flagRow.hidden = !on;
      ledRow.hidden = !on;
      extraRow.hidden = !(kind.value === "fischer" || kind.value === "bronstein");
    };
    kind.addEventListener("change", show);
    show();
    fs.append(kindRow, timeRow, extraRow, flagRow, ledRow);
    return fs;
  }

  function clockOf(form) {
    const kind = form.querySelector("[name=clock-kind]").value;
    if (!kind) return {};
    const time = form.querySelector("[name=clock-time]").value || "0";
    const extra = form.querySelector("[name=clock-extra]").value;
    const plus = (kind === "fischer" || kind === "bronstein") && extra !== "" ? `+${extra}` : "";
    return { clock: `${kind}:${time}${plus}`, flag: form.querySelector("[name=clock-flag]").value,
      clock_leds: form.querySelector("[name=clock-leds]").checked };
  }

  function names(form) {
    return [...form.querySelectorAll("input[name=name]")].map((i) => i.value);
  }

  function optionRow(o, value) {
    const row = el("div", { class: "ng-row ng-option" });
    const id = `ng-opt-${o.name}`;
    const current = value === undefined || value === null ? o.default : value;
    let input;
    if (o.type === "bool") {
      row.classList.add("ng-check");
      input = el("input", { id, type: "checkbox", name: `opt:${o.name}`, checked: Boolean(current) });
      row.append(input, el("label", { for: id }, o.label));
    } else {
      row.append(el("label", { for: id }, o.label));
      if ((o.choices || []).length) {
        input = el("select", { id, name: `opt:${o.name}` });
        if (current === null || current === undefined) input.append(el("option", { value: "" }, t("default")));
        for (const c of o.choices) input.append(el("option", { value: c, selected: String(current) === c }, c));
      } else if (o.type === "int") {
        input = el("input", { id, type: "number", name: `opt:${o.name}`, inputmode: "numeric", min: o.minimum, max: o.maximum, value: current ?? "", placeholder: "default" });
      } else {
        input = el("input", { id, type: "text", name: `opt:${o.name}`, value: current ?? "", placeholder: "default" });
      }
      row.append(input);
    }
    input.setAttribute("aria-describedby", `${id}-help`);
    row.append(el("span", { id: `${id}-help`, class: "ng-help" }, o.help));
    return row;
  }

  function collect(form, game) {
    const players = names(form);
    const seats = {};
    form.querySelectorAll("select[name=kind]").forEach((s, i) => { if (s.value !== "person") seats[String(i + 1)] = s.value; });
    const options = {};
    for (const o of game.options || []) {
      const input = form.querySelector(`[name="opt:${o.name}"]`);
      if (!input) continue;
      if (o.type === "bool") options[o.name] = input.checked;
      else if (input.value !== "") options[o.name] = input.value;
    }
    const profile = form.querySelector("select[name=profile]").value || null;
    return { cmd: "new_game", game: game.id, players, seats, options, profile, ...clockOf(form) };
  }

  document.addEventListener("meridian:state", (e) => {
    state = e.detail;
    panel();
    renderNames(state);
    renderEnd(state);
    // Once the game is over the end screen offers New game… (beside Rematch): one button.
    const fresh = $("new-game");
    if (fresh) fresh.hidden = Boolean(state && state.result);
  });

  window.MeridianNewGame = { open: openForm };
})();
