// Meridian Table: the players and their history, from the local log (the table's
// "games" command): each player's games, wins, draws and losses, per game, and every
// game with its result, a Replay button (the page's replay of that logged game) and,
// once it is finished, a Review button (review.js: the moves that lost the most).
"use strict";
(() => {
  const t = (text, params) => (window.MeridianI18n ? window.MeridianI18n.t(text, params)
    : text.replace(/\{(\w+)\}/g, (m, k) => (params && k in params ? String(params[k]) : m)));

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === false || v === null || v === undefined) continue;
      if (k === "class") node.className = v;
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // Per player: {name, games, wins, draws, losses, unfinished, byGame: {game: {...}}, list}.
  function tally(games) {
    const people = new Map();
    for (const g of games) {
      const result = g.result || null;
      const winners = (result && result.winners) || [];
      const status = g.status || (result ? (result.abandoned ? "abandoned" : "finished") : "running");
      for (const name of g.players || []) {
        if (!people.has(name)) people.set(name, { name, games: 0, wins: 0, draws: 0, losses: 0, unfinished: 0, byGame: {}, list: [] });
        const p = people.get(name);
        const per = p.byGame[g.game] || (p.byGame[g.game] = { games: 0, wins: 0 });
        p.games += 1;
        per.games += 1;
        let outcome = "unfinished";
        if (status === "finished" && winners.includes(name)) { p.wins += 1; per.wins += 1; outcome = "won"; }
        else if (status === "finished" && winners.length === 0) { p.draws += 1; outcome = "draw"; }
        else if (status === "finished") { p.losses += 1; outcome = "lost"; }
        else { p.unfinished += 1; outcome = status === "abandoned" ? "abandoned" : "unfinished"; }
        p.list.push({ id: g.game_id, game: g.game, reviewable: g.reviewable === true, others: (g.players || []).filter((n) => n !== name), outcome, moves: g.moves, started: g.started });
      }
    }
    return [...people.values()].sort((a, b) => b.wins - a.wins || b.games - a.games || a.name.localeCompare(b.name));
  }

  const OUTCOME = { won: "won", lost: "lost", draw: "draw", unfinished: "not over", abandoned: "abandoned" };

  function replay(id) {
    const select = document.getElementById("games");
    if (!select) return;
    select.value = String(id);
    select.dispatchEvent(new Event("change"));
  }

  function dialog() {
    let d = document.getElementById("players-dialog");
    if (d) return d;
    d = el("dialog", { id: "players-dialog", class: "newgame-dialog players-dialog", "aria-labelledby": "players-title" });
    document.body.append(d);
    return d;
  }

  async function open() {
    const api = window.meridian;
    const answer = api ? await api.request({ cmd: "games" }) : { ok: false };
    const d = dialog();
    d.replaceChildren();
    d.append(el("h2", { id: "players-title" }, t("Players and history")));
    if (!answer.ok || !Array.isArray(answer.games)) {
      d.append(el("p", {}, answer.error || t("The history needs the game log")));
    } else if (!answer.games.length) {
      d.append(el("p", {}, t("No games in the log yet")));
    } else {
      for (const p of tally(answer.games)) d.append(player(p));
    }
    const close = el("button", { type: "button", class: "control", id: "players-close" }, t("Close"));
    close.addEventListener("click", () => d.close());
    d.append(el("div", { class: "ng-buttons" }));
    d.lastChild.append(close);
    if (!d.open) d.showModal();
    // The dialog opens at its top, the first player's card, not scrolled to Close.
    close.focus({ preventScroll: true });
    d.scrollTop = 0;
  }

  function player(p) {
    const box = el("section", { class: "player-card", "data-player": p.name });
    box.append(el("h3", {}, p.name));
    const facts = el("p", { class: "player-facts" });
    facts.textContent = p.games === 1
      ? t("1 game: {wins} won, {draws} drawn, {losses} lost, {open} not over",
        { wins: p.wins, draws: p.draws, losses: p.losses, open: p.unfinished })
      : t("{games} games: {wins} won, {draws} drawn, {losses} lost, {open} not over",
        { games: p.games, wins: p.wins, draws: p.draws, losses: p.losses, open: p.unfinished });
    box.append(facts);
    const per = el("ul", { class: "player-per-game" });
    for (const [game, g] of Object.entries(p.byGame)) per.append(el("li", {}, t("{game}: {wins} of {games} won", { game, wins: g.wins, games: g.games })));
    box.append(per);
    const table = el("table", { class: "player-games" });
    const head = el("tr");
    for (const h of ["Game", "Against", "Result", "Moves", ""]) head.append(el("th", { scope: "col" }, h ? t(h) : ""));
    table.append(el("thead"));
    table.firstChild.append(head);
    const body = el("tbody");
    for (const g of p.list.slice().reverse()) {
      const row = el("tr", { "data-game-id": g.id });
      // A game by its date, not only its id (issue 26).
      const when = g.started ? new Date(g.started) : null;
      const date = when && !Number.isNaN(when.getTime())
        ? when.toLocaleString(document.documentElement.lang || [], { dateStyle: "medium", timeStyle: "short" }) : "";
      row.append(el("td", {}, `${g.game}${date ? ` · ${date}` : ""} (#${g.id})`), el("td", {}, g.others.join(", ")),
        el("td", { "data-outcome": g.outcome }, t(OUTCOME[g.outcome])), el("td", {}, String(g.moves ?? "")));
      const cell = el("td");
      const b = el("button", { type: "button", class: "control", "aria-label": t("Replay game {id}", { id: g.id }) }, t("Replay"));
      b.addEventListener("click", () => { dialog().close(); replay(g.id); });
      cell.append(b);
      // A finished game whose game has a bot can be reviewed (review.js).
      if (window.MeridianReview && g.reviewable && ["won", "lost", "draw"].includes(g.outcome)) {
        const r = el("button", { type: "button", class: "control", "data-review-game": g.id, "aria-label": t("Review game {id}", { id: g.id }) }, t("Review"));
        r.addEventListener("click", () => { dialog().close(); window.MeridianReview.open(g.id); });
        cell.append(" ", r);
      }
      row.append(cell);
      body.append(row);
    }
    table.append(body);
    box.append(table);
    return box;
  }

  function button() {
    if (document.getElementById("players-open")) return;
    const actions = document.querySelector("#game-panel .game-actions");
    if (!actions) return;
    const b = el("button", { id: "players-open", class: "control", type: "button" }, t("Players and history…"));
    b.addEventListener("click", open);
    actions.append(b);
  }

  document.addEventListener("meridian:state", button);
  window.MeridianPlayers = { tally, open };
})();
