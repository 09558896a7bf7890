// Meridian: Empire in Space on the table page: the energy ledger, loaded through the
// game's spec (PageSpec.script) from games/empire/static/page.js. The shared page
// (web/static/app.js) knows no game; this file draws board.ledger (games/empire/ledger.py):
// each player's cells, charges, colonies, waypoints and cards; the round, the turn and the
// final round's order; every action open now with its cost; trading charges; the round's
// log in words; the winner with the tie-breaker's figures. Every tap is a `choose` command.
"use strict";
(() => {
  const here = document.currentScript ? document.currentScript.src : "";
  if (here && !document.querySelector("link[data-game='empire']")) {
    const css = document.createElement("link");
    css.rel = "stylesheet";
    css.href = new URL("page.css", here).href;
    css.dataset.game = "empire";
    document.head.append(css);
  }
  const ME_KEY = "meridian.empire.me";
  let drawnKey = "";
  const openGroups = new Set(["move", "settle", "charge", "attack", "end", "defend", "strike", "damage",
    "counter", "lend", "steal"]);

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
      root = el("section", { id: "empire-ledger", class: "panel empire-ledger", "aria-label": "Energy ledger" });
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
    const who = ledger.turn ? api.seatLabel(ledger.turn) : "nobody";
    el("h2", {}, head, `Round ${ledger.round}${ledger.final ? " (final round)" : ""}`);
    el("p", { class: "ledger-turn" }, head,
      ledger.turn ? `${who} ${ledger.stage_words || "plays"}` : "The game is over");
    if (ledger.trigger) el("p", { class: "ledger-trigger" }, head, `The end is triggered: ${ledger.trigger}.`);
    const order = el("ol", { class: "ledger-order", "aria-label": ledger.final ? "Final round order" : "Turn order" }, head);
    for (const seat of ledger.order) {
      const li = el("li", { "data-seat": seat, class: seat === ledger.active ? "active" : "" }, order, api.seatLabel(seat));
      li.style.setProperty("--seat", api.seatColour(seat));
    }
    if (ledger.tokens !== null && ledger.tokens !== undefined) {
      el("p", { class: "ledger-tokens" }, head, `Victory tokens left: ${ledger.tokens}`);
    }
    if (ledger.combat) {
      const c = ledger.combat;
      el("p", { class: "ledger-combat" }, head,
        `Combat: ${api.seatLabel(c.attacker)} attacks ${c.target} of ${api.seatLabel(c.defender)}` +
        ` with ${c.attackers.join(", ")}${c.defenders.length ? `; defending: ${c.defenders.join(", ")}` : ""}` +
        `${c.strikes ? `; ${c.strikes} strikes` : ""}${c.counters ? `; ${c.counters} counters` : ""}.`);
    }
    if (ledger.outcome) {
      const o = ledger.outcome;
      el("p", { class: "ledger-outcome" }, head,
        `${o.winners.map((w) => api.seatLabel(w)).join(" and ")} ${o.winners.length > 1 ? "win" : "wins"}: ${o.reason}.`);
      const table = el("table", { class: "ledger-standing" }, head);
      const hr = el("tr", {}, el("thead", {}, table));
      for (const h of ["Player", "Waypoints", "Energy", "Cells", "Charges", "Sectors"]) el("th", { scope: "col" }, hr, h);
      const body = el("tbody", {}, table);
      for (const [seat, figures] of Object.entries(o.standing || {})) {
        const tr = el("tr", {}, body);
        el("th", { scope: "row" }, tr, api.seatLabel(seat));
        for (const f of figures) el("td", {}, tr, String(f));
      }
    }
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
    box.append(`${api.seatLabel(ledger.turn)} decides; in `);
    el("strong", { class: "seconds" }, box, String(Math.max(0, countdown.left)));
    box.append(` s the default is taken: ${d.words}.`);
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
        const cells = row("Cells", `${s.unused} unused, ${s.used} used`, "cells");
        pips(cells, s.unused, s.used);
        row("Charges", String(s.charges), "charges");
        row("Energy", `${s.energy}E`, "energy");
        row("Waypoints", String(s.waypoints), "waypoints");
      }
      row("Colonies", String(s.colonies), "colonies");
      const where = [
        ...s.bodies.map((b) => `${b.card}: ${b.colonies}`),
        ...s.ships.map((x) => `${x.kind} ${x.id.slice(1)} at ${x.quadrant}: ${x.colonies}`),
      ];
      if (where.length) row("Where", where.join("; "), "where");
      if (s.equity && s.equity.length) row("Equity", s.equity.join("; "), "equity");
      if (s.hand && s.hand.length) row("Events in hand", s.hand.join(", "), "hand");
      if (s.events && s.events.length) row("Events in play", s.events.join(", "), "events");
      if (s.guild) row("Guild", s.guild, "guild");
    }
  }

  function drawActions(root, ledger, api) {
    const box = el("div", { class: "ledger-actions" }, root);
    el("h3", {}, box, ledger.turn ? `${api.seatLabel(ledger.turn)}: what to do` : "Actions");
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
        el("span", { class: "cost" }, b, a.cost ? `${a.cost}E` : "free");
        b.addEventListener("click", () => api.send({ cmd: "choose", field: "action", value: a.notation }, b));
      }
    }
    const focus = el("div", { class: "ledger-focus" }, box);
    for (const [value, label] of [["attack", "Light the targets"], ["presence", "Light presence"], ["none", "Plain board"]]) {
      const b = el("button", { type: "button", class: "choice", "data-focus": value }, focus, label);
      b.addEventListener("click", () => api.send({ cmd: "choose", field: "focus", value }, b));
    }
  }

  function drawTrade(root, ledger, api) {
    const humans = ledger.seats.filter((s) => s.cells !== undefined);
    if (humans.length < 2) return;
    const box = el("div", { class: "ledger-trade" }, root);
    el("h3", {}, box, "Trade charges");
    const meLabel = el("label", {}, box, "I am ");
    const me = el("select", { "data-role": "me" }, meLabel);
    const stored = localStorage.getItem(ME_KEY);
    for (const s of humans) el("option", { value: s.seat, selected: s.seat === stored }, me, api.seatLabel(s.seat));
    me.addEventListener("change", () => { localStorage.setItem(ME_KEY, me.value); drawnKey = ""; });
    const mine = humans.find((s) => s.seat === me.value) || humans[0];
    const form = el("div", { class: "trade-form" }, box);
    const toLabel = el("label", {}, form, "give ");
    const count = el("select", { "data-role": "count" }, toLabel);
    for (let n = 1; n <= Math.max(1, mine.charges); n++) el("option", { value: n }, count, String(n));
    const whom = el("select", { "data-role": "to" }, el("label", {}, form, " charge(s) to "));
    for (const s of humans) if (s.seat !== mine.seat) el("option", { value: s.seat }, whom, api.seatLabel(s.seat));
    const offer = el("button", { type: "button", class: "choice", "data-role": "offer", disabled: mine.charges < 1 }, form, "Offer");
    offer.addEventListener("click", () => api.send({
      cmd: "choose", field: "offer",
      value: `${token(ledger, mine.seat)} ${token(ledger, whom.value)} ${count.value}`,
    }, offer));
    for (const o of ledger.offers || []) {
      const [, giver, taker, n] = o.split(" ");
      const seatOf = (t) => ledger.seats[Number(t.slice(1)) - 1].seat;
      const line = el("div", { class: "offer", "data-offer": o.slice(5) }, box);
      el("span", {}, line, `${api.seatLabel(seatOf(giver))} offers ${n} charge(s) to ${api.seatLabel(seatOf(taker))}`);
      for (const [field, label] of [["accept", `${api.seatLabel(seatOf(taker))} accepts`], ["decline", "Decline"]]) {
        const b = el("button", { type: "button", class: "choice", "data-answer": field }, line, label);
        b.addEventListener("click", () => api.send({ cmd: "choose", field, value: o.slice(5) }, b));
      }
    }
  }

  function drawLog(root, ledger) {
    if (!ledger.log.length && !ledger.scelrotia_did.length) return;
    const box = el("div", { class: "ledger-log" }, root);
    el("h3", {}, box, "This game in words");
    if (ledger.scelrotia_did.length) {
      el("p", { class: "scelrotia-did" }, box, `The Scelrotia's last turn: ${ledger.scelrotia_did.join("; ")}.`);
    }
    const list = el("ol", {}, box);
    for (const line of ledger.log.slice().reverse().slice(0, 12)) el("li", {}, list, line);
  }

  const RINGS = { yellow: "#e8c400", white: "#e8e8e8", orange: "#ff8a1c", moon: "#9a9a9a" };

  window.MeridianGames.register("empire", {
    // Each body gets a ring of its colour (planets yellow, white, orange; moons grey) and,
    // once discovered, its card's name; quadrants stay plain points.
    decorateSite(g, site, ctx) {
      const id = String(site.id);
      const ring = id.startsWith("moon.") ? "moon" : id.startsWith("planet.") ? id.split(".")[1] : null;
      if (!ring) return;
      g.classList.add("body");
      ctx.svg("circle", { class: "body-ring", r: 0.32, stroke: RINGS[ring] || "#999" }, g);
      if (site.card) ctx.svg("title", {}, g).textContent = `${site.card} (${id})`;
    },
    panel(state, api) {
      const ledger = state.board && state.board.ledger;
      const key = JSON.stringify([ledger || null, localStorage.getItem(ME_KEY)]);
      if (key === drawnKey) return;
      drawnKey = key;
      const root = panelRoot();
      root.replaceChildren();
      root.hidden = !ledger;
      if (!ledger) return;
      // Players by name, their colour beside it ("Ann (Red)").
      const names = state.seats || {};
      const colourName = api.seatLabel;
      const label = (seat) => (names[seat] && names[seat] !== colourName(seat)
        ? `${names[seat]} (${colourName(seat)})` : colourName(seat));
      api = { ...api, seatLabel: label };
      drawStatus(root, ledger, api);
      drawDefault(root, ledger, api);
      drawActions(root, ledger, api);
      drawTrade(root, ledger, api);
      drawSeats(root, ledger, api);
      drawLog(root, ledger);
    },
  });
})();
