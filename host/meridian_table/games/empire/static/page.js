// Meridian: Empire in Space on the table page: the energy ledger, loaded through the
// game's spec (PageSpec.script) from games/empire/static/page.js. The shared page
// (web/static/app.js) knows no game; this file draws board.ledger (games/empire/ledger.py):
// each player's cells, charges, colonies, waypoints and cards; the round, the turn and the
// final round's order; every action open now with its cost (and a warning when it gives
// up a planet or a waypoint); calling time; trading charges; the Scelrotia's turn and the
// round's log in words; the end. Every tap is a `choose` command. The words come from the
// table in its language; this file's own words go through the page's catalog (t()).
"use strict";
(() => {
  const here = document.currentScript ? document.currentScript.src : "";
  const t = (text, params) => (window.MeridianI18n ? window.MeridianI18n.t(text, params)
    : text.replace(/\{(\w+)\}/g, (m, k) => (params && k in params ? String(params[k]) : m)));
  const ME_KEY = "meridian.empire.me";
  let drawnKey = "";
  let asking = null;  // an action waiting for "do it anyway" (a warning, calling time)
  const openGroups = new Set(["move", "settle", "charge", "attack", "end", "defend", "strike", "damage",
    "counter", "lend", "steal", "token"]);

  function el(tag, attrs, parent, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    if (text !== undefined) node.textContent = text;
    if (parent) parent.append(node);
    return node;
  }

  function panelRoot() {
    let root = document.getElementById("empire-ledger");
    if (!root) {
      // data-game-panel: the page removes it when another game starts (its buttons would
      // send Empire's commands to that game).
      root = el("section", { id: "empire-ledger", class: "panel empire-ledger", "data-game-panel": "empire",
        "aria-label": t("Energy ledger") });
      // First in the side column: on a phone, right under the board's controls.
      const side = document.querySelector(".side");
      if (side) side.prepend(root);
      else document.body.append(root);
    }
    return root;
  }

  function token(ledger, seat) {
    const index = ledger.seats.findIndex((s) => s.seat === seat);
    return `P${index + 1}`;
  }

  function pips(parent, unused, used) {
    const row = el("span", { class: "pips", "aria-hidden": "true" }, parent);
    for (let i = 0; i < unused; i++) el("span", { class: "pip unused" }, row);
    for (let i = 0; i < used; i++) el("span", { class: "pip used" }, row);
  }

  function drawStatus(root, ledger, api) {
    const head = el("div", { class: "ledger-status" }, root);
    const who = ledger.turn ? api.seatLabel(ledger.turn) : "";
    el("h2", {}, head, ledger.final ? t("Round {round} (final round)", { round: ledger.round })
      : t("Round {round}", { round: ledger.round }));
    el("p", { class: "ledger-turn" }, head,
      ledger.turn ? (ledger.stage_words ? `${who} ${ledger.stage_words}` : t("{seat} plays", { seat: who }))
        : t("The game is over"));
    if (ledger.trigger) el("p", { class: "ledger-trigger" }, head, t("The end is triggered: {trigger}.", { trigger: ledger.trigger }));
    const order = el("ol", { class: "ledger-order", "aria-label": ledger.final ? t("Final round order") : t("Turn order") }, head);
    for (const seat of ledger.order) {
      const li = el("li", { "data-seat": seat, class: seat === ledger.active ? "active" : "" }, order, api.seatLabel(seat));
      li.style.setProperty("--seat", api.seatColour(seat));
    }
    if (ledger.tokens !== null && ledger.tokens !== undefined) {
      el("p", { class: "ledger-tokens" }, head, t("Victory tokens left: {n}", { n: ledger.tokens }));
    }
    if (ledger.combat) {
      const c = ledger.combat;
      el("p", { class: "ledger-combat" }, head, t("Combat: {what}.", { what: c.words }));
      // The damage is chosen one unit at a time: the running total.
      if (c.split_words) el("p", { class: "ledger-split", "aria-live": "polite" }, head, t("Damage: {split}.", { split: c.split_words }));
    }
    if (ledger.outcome) drawOutcome(head, ledger, api);
  }

  function drawOutcome(head, ledger, api) {
    const o = ledger.outcome;
    const winners = o.winners.map((w) => api.seatLabel(w)).join(t(" and "));
    el("p", { class: "ledger-outcome" }, head, o.winners.length > 1
      ? t("{winners} win: {reason}.", { winners, reason: o.reason })
      : t("{winners} wins: {reason}.", { winners, reason: o.reason }));
    if (o.infection) {
      // Infection mode: the score is the victory tokens kept, not the standard tie-breakers.
      el("p", { class: "ledger-tokens-kept" }, head, t("Victory tokens kept: {n} of 4", { n: o.tokens }));
      return;
    }
    const table = el("table", { class: "ledger-standing" }, head);
    const hr = el("tr", {}, el("thead", {}, table));
    for (const h of [t("Player"), t("Waypoints"), t("Energy"), t("Cells"), t("Charges"), t("Sectors")]) el("th", { scope: "col" }, hr, h);
    const body = el("tbody", {}, table);
    for (const [seat, figures] of Object.entries(o.standing || {})) {
      const tr = el("tr", {}, body);
      el("th", { scope: "row" }, tr, api.seatLabel(seat));
      for (const f of figures) el("td", {}, tr, String(f));
    }
  }

  // The Scelrotia's last turn, said once, in words, in a panel of its own near the top.
  function drawScelrotia(root, ledger) {
    if (!ledger.scelrotia_did || !ledger.scelrotia_did.length) return;
    const box = el("div", { class: "ledger-scelrotia", "aria-live": "polite" }, root);
    el("h3", {}, box, t("The Scelrotia's last turn"));
    const list = el("ul", {}, box);
    for (const step of ledger.scelrotia_did) el("li", {}, list, step);
  }

  // The countdown of a decision taken during another player's turn (lend, defend,
  // counter, a stolen waypoint): when it runs out, this page sends the default. One timer
  // per decision (its key), whatever the redraws; a second phone's late default is refused.
  let countdown = { key: "", left: 0, timer: null };

  function drawDefault(root, ledger, api) {
    const d = ledger.default;
    if (!d) {
      if (countdown.timer) clearInterval(countdown.timer);
      countdown = { key: "", left: 0, timer: null };
      return;
    }
    const box = el("p", { class: "ledger-default", "aria-live": "polite" }, root);
    if (countdown.key !== d.key) {
      if (countdown.timer) clearInterval(countdown.timer);
      countdown = { key: d.key, left: d.seconds, timer: null };
      countdown.timer = setInterval(() => {
        countdown.left -= 1;
        const shown = document.querySelector(".ledger-default .seconds");
        if (shown) shown.textContent = String(Math.max(0, countdown.left));
        if (countdown.left <= 0) {
          clearInterval(countdown.timer);
          countdown.timer = null;
          api.send({ cmd: "choose", field: "action", value: d.action });
        }
      }, 1000);
    }
    box.append(t("{seat} decides; seconds left before the default:", { seat: api.seatLabel(ledger.turn) }), " ");
    el("strong", { class: "seconds" }, box, String(Math.max(0, countdown.left)));
    box.append(". ", t("Default: {action}.", { action: d.words }));
  }

  function drawSeats(root, ledger, api) {
    const list = el("div", { class: "ledger-seats" }, root);
    for (const s of ledger.seats) {
      const card = el("article", { class: "ledger-seat", "data-seat": s.seat, "aria-label": api.seatLabel(s.seat) }, list);
      card.style.setProperty("--seat", api.seatColour(s.seat));
      el("h3", {}, card, api.seatLabel(s.seat));
      const dl = el("dl", {}, card);
      const row = (term, value, cls) => {
        el("dt", {}, dl, term);
        return el("dd", { class: cls }, dl, value);
      };
      if (s.cells !== undefined) {
        const cells = row(t("Cells"), t("{unused} unused, {used} used", { unused: s.unused, used: s.used }), "cells");
        pips(cells, s.unused, s.used);
        row(t("Charges"), String(s.charges), "charges");
        row(t("Energy"), `${s.energy}E`, "energy");
        row(t("Waypoints"), String(s.waypoints), "waypoints");
      }
      row(t("Colonies"), String(s.colonies), "colonies");
      const where = [...s.bodies.map((b) => b.words), ...s.ships.map((x) => x.words)];
      if (where.length) row(t("Where"), where.join("; "), "where");
      if (s.equity && s.equity.length) row(t("Equity"), s.equity.join("; "), "equity");
      if (s.hand && s.hand.length) row(t("Events in hand"), (s.hand_words || s.hand).join(", "), "hand");
      if (s.events && s.events.length) row(t("Events in play"), (s.events_words || s.events).join(", "), "events");
      if (s.guild) row(t("Guild"), s.guild_words || s.guild, "guild");
    }
  }

  function ask(box, text, yes, send) {
    const line = el("div", { class: "ledger-ask", role: "alertdialog", "aria-label": text }, box);
    el("p", {}, line, text);
    const go = el("button", { type: "button", class: "choice", "data-answer": "yes" }, line, yes);
    go.addEventListener("click", () => { asking = null; drawnKey = ""; send(go); });
    const no = el("button", { type: "button", class: "choice", "data-answer": "no" }, line, t("Cancel"));
    no.addEventListener("click", () => { asking = null; drawnKey = ""; line.remove(); });
    go.focus();
  }

  function drawActions(root, ledger, api) {
    const box = el("div", { class: "ledger-actions" }, root);
    el("h3", {}, box, ledger.turn ? t("{seat}: what to do", { seat: api.seatLabel(ledger.turn) }) : t("Actions"));
    const byGroup = new Map();
    for (const a of ledger.actions) {
      if (!byGroup.has(a.group)) byGroup.set(a.group, []);
      byGroup.get(a.group).push(a);
    }
    for (const g of ledger.groups) {
      const actions = byGroup.get(g.id);
      if (!actions || !actions.length || g.id === "give") continue;
      const details = el("details", { class: "ledger-group", "data-group": g.id, open: openGroups.has(g.id) }, box);
      details.addEventListener("toggle", () => {
        if (details.open) openGroups.add(g.id); else openGroups.delete(g.id);
      });
      el("summary", {}, details, `${g.title} (${actions.length})`);
      for (const a of actions) {
        const b = el("button", { type: "button", class: "choice ledger-action", "data-action": a.notation }, details);
        el("span", { class: "words" }, b, api.cap(a.words));
        el("span", { class: "cost" }, b, a.cost ? `${a.cost}E` : t("free"));
        if (a.warning) el("span", { class: "warning" }, b, t("Warning: {what}", { what: a.warning }));
        const send = (src) => api.send({ cmd: "choose", field: "action", value: a.notation }, src);
        b.addEventListener("click", () => {
          if (!a.warning) { send(b); return; }
          asking = a.notation;
          ask(details, t("Warning: {what}. Do it anyway?", { what: a.warning }), t("Do it anyway"), send);
        });
      }
    }
    const focus = el("div", { class: "ledger-focus" }, box);
    for (const [value, label] of [["attack", t("Light the targets")], ["presence", t("Light presence")], ["none", t("Plain board")]]) {
      const b = el("button", { type: "button", class: "choice", "data-focus": value }, focus, label);
      b.addEventListener("click", () => api.send({ cmd: "choose", field: "focus", value }, b));
    }
    if (ledger.time) {
      // The book's fourth end trigger, from the page, with what it means here.
      const b = el("button", { type: "button", class: "choice", "data-role": "time" }, focus, ledger.time.words);
      b.addEventListener("click", () => ask(box, ledger.time.confirm, ledger.time.words,
        (src) => api.send({ cmd: "choose", field: "action", value: ledger.time.action }, src)));
    }
  }

  function drawTrade(root, ledger, api) {
    const humans = ledger.seats.filter((s) => s.cells !== undefined);
    if (humans.length < 2) return;
    const box = el("div", { class: "ledger-trade" }, root);
    el("h3", {}, box, t("Trade charges"));
    const meLabel = el("label", {}, box, t("I am") + " ");
    const me = el("select", { "data-role": "me" }, meLabel);
    const stored = localStorage.getItem(ME_KEY);
    for (const s of humans) el("option", { value: s.seat, selected: s.seat === stored }, me, api.seatLabel(s.seat));
    me.addEventListener("change", () => { localStorage.setItem(ME_KEY, me.value); drawnKey = ""; });
    const mine = humans.find((s) => s.seat === me.value) || humans[0];
    const form = el("div", { class: "trade-form" }, box);
    const toLabel = el("label", {}, form, t("give") + " ");
    const count = el("select", { "data-role": "count" }, toLabel);
    for (let n = 1; n <= Math.max(1, mine.charges); n++) el("option", { value: n }, count, String(n));
    const whom = el("select", { "data-role": "to" }, el("label", {}, form, " " + t("charge(s) to") + " "));
    for (const s of humans) if (s.seat !== mine.seat) el("option", { value: s.seat }, whom, api.seatLabel(s.seat));
    const offer = el("button", { type: "button", class: "choice", "data-role": "offer", disabled: mine.charges < 1 }, form, t("Offer"));
    offer.addEventListener("click", () => api.send({
      cmd: "choose", field: "offer",
      value: `${token(ledger, mine.seat)} ${token(ledger, whom.value)} ${count.value}`,
    }, offer));
    for (const o of ledger.offers || []) {
      const [, giver, taker, n] = o.split(" ");
      const seatOf = (x) => ledger.seats[Number(x.slice(1)) - 1].seat;
      const line = el("div", { class: "offer", "data-offer": o.slice(5) }, box);
      el("span", {}, line, t("{giver} offers {n} charge(s) to {taker}", { giver: api.seatLabel(seatOf(giver)), n, taker: api.seatLabel(seatOf(taker)) }));
      for (const [field, label] of [["accept", t("{seat} accepts", { seat: api.seatLabel(seatOf(taker)) })], ["decline", t("Decline")]]) {
        const b = el("button", { type: "button", class: "choice", "data-answer": field }, line, label);
        b.addEventListener("click", () => api.send({ cmd: "choose", field, value: o.slice(5) }, b));
      }
    }
  }

  function drawLog(root, ledger) {
    if (!ledger.log.length) return;
    const box = el("div", { class: "ledger-log" }, root);
    el("h3", {}, box, t("This game in words"));
    const list = el("ol", {}, box);
    for (const line of ledger.log.slice().reverse().slice(0, 12)) el("li", {}, list, line);
  }

  function drawLegend(root) {
    const box = el("details", { class: "ledger-legend" }, root);
    el("summary", {}, box, t("What the map shows"));
    const list = el("ul", {}, box);
    for (const line of [
      t("A ring is a planet (yellow, white or orange ring) or a moon (grey ring); its name shows once it is face up."),
      t("A number on a planet or moon: its colonies. Letters on a quadrant: whose ships stand there (R red, B blue, G green, Y yellow, S Scelrotia), then how many when more than one."),
      t("Quadrants are labelled sector.quadrant (3.2: sector 3, quadrant 2); the sector numbers stand around the edge."),
    ]) el("li", {}, list, line);
  }

  // Names on the map, visible on a phone: planet and moon names once face up (never a
  // face-down one: no free peeks), updated as bodies are discovered.
  function drawNames(state) {
    for (const site of (state.board && state.board.sites) || []) {
      const g = document.querySelector(`[data-site="${CSS.escape(String(site.id))}"]`);
      const label = g && g.querySelector("text.body-name");
      if (label) label.textContent = site.card || "";
    }
  }

  function sectorLabels(ctx) {
    const byId = new Map(ctx.pts.map((p) => [p.id, p]));
    const out = [];
    for (let s = 1; s <= 8; s++) {
      const a = byId.get(`S${s}Q3`);
      const b = byId.get(`S${s}Q4`);
      if (!a || !b) continue;
      const x = (a.x + b.x) / 2;
      const y = (a.y + b.y) / 2;
      const r = Math.hypot(x, y) || 1;
      out.push([x * (1 + 0.8 / r), y * (1 + 0.8 / r), s]);
    }
    return out;
  }

  const RINGS = { yellow: "#e8c400", white: "#e8e8e8", orange: "#ff8a1c", moon: "#9a9a9a" };

  window.MeridianGames.register("empire", {
    // Each body gets a ring of its colour (planets yellow, white, orange; moons grey) and
    // its name under it once face up; each quadrant its label (sector.quadrant).
    decorateSite(g, site, ctx) {
      const id = String(site.id);
      const quad = /^S(\d)Q(\d)$/.exec(id);
      if (quad) {
        ctx.svg("text", { class: "quadrant-name", y: -0.3, "aria-hidden": "true" }, g).textContent = `${quad[1]}.${quad[2]}`;
        return;
      }
      const ring = id.startsWith("moon.") ? "moon" : id.startsWith("planet.") ? id.split(".")[1] : null;
      if (!ring) return;
      g.classList.add("body");
      ctx.svg("circle", { class: "body-ring", r: 0.32, stroke: RINGS[ring] || "#999" }, g);
      ctx.svg("text", { class: "body-name", y: 0.62, "aria-hidden": "true" }, g).textContent = site.card || "";
    },
    // The sector numbers around the edge of the board (room for them: extent).
    drawUnder(layer, ctx) {
      for (const [x, y, s] of sectorLabels(ctx)) {
        ctx.svg("text", { class: "sector-name", x, y }, layer).textContent = t("S{n}", { n: s });
      }
    },
    extent(ctx) { return { points: sectorLabels(ctx).map(([x, y]) => [x, y]) }; },
    panel(state, api) {
      const ledger = state.board && state.board.ledger;
      const key = JSON.stringify([ledger || null, localStorage.getItem(ME_KEY), state.seats || null]);
      drawNames(state);
      if (key === drawnKey && document.getElementById("empire-ledger")) return;
      if (asking && document.querySelector(".ledger-ask")) return;  // the question stays while asked
      drawnKey = key;
      const root = panelRoot();
      root.replaceChildren();
      root.hidden = !ledger;
      if (!ledger) return;
      // Players by name, their colour beside it ("Ann (Red)"), the colour in the table's words.
      const names = state.seats || {};
      const plain = api.seatLabel;
      const colourName = (seat) => (ledger.names && ledger.names[seat]) || plain(seat);
      const label = (seat) => (names[seat] && names[seat] !== colourName(seat) && names[seat] !== plain(seat)
        ? `${names[seat]} (${colourName(seat)})` : colourName(seat));
      api = { ...api, seatLabel: label };
      drawStatus(root, ledger, api);
      drawScelrotia(root, ledger);
      drawDefault(root, ledger, api);
      drawActions(root, ledger, api);
      drawTrade(root, ledger, api);
      drawSeats(root, ledger, api);
      drawLog(root, ledger);
      drawLegend(root);
    },
  }, { stylesheet: here ? new URL("page.css", here).href : null });
})();
