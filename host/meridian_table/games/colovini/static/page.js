// Colovini's Meridian on the table page: the game's own drawing, loaded through its spec
// (PageSpec.script) from games/colovini/static/page.js. The shared page (web/static/app.js)
// knows no game; this file draws what only this game has, from the optional board fields
// of docs/TABLE.md that the Colovini adapter sends:
//   - the islands (board.groups, each city's `group`): rounded bands behind the cities,
//     in the owner's colour at the end, hatched when tied;
//   - the capitals (a city's `major`): a gold star, and a gold rim on a tower there;
//   - the meridian numbers under the board (board.axis_labels) and the north label;
//   - the names of its ten meridian buttons.
"use strict";
(() => {
  // The page's catalogue (web/static/i18n.js): the same French as the rest of the page.
  const tr = (text, params) => (window.MeridianI18n ? window.MeridianI18n.t(text, params)
    : text.replace(/\{(\w+)\}/g, (m, k) => (params && k in params ? String(params[k]) : m)));
  const here = document.currentScript ? document.currentScript.src : "";

  // Muted, distinct fills for the islands; an owner's colour replaces them at the end.
  const GROUP_FILLS = ["#7fb0cf", "#d99a6c", "#d8b45a", "#8fb27a", "#b3a3c9", "#df9fb6",
    "#7ec4b6", "#a9c98a", "#9db7dc", "#cfa07f", "#c98f8f", "#b6b36e", "#8fa6b9"];

  function starPath(r) {
    const out = [];
    for (let i = 0; i < 10; i++) {
      const a = (Math.PI / 5) * i - Math.PI / 2;
      const k = i % 2 ? r * 0.45 : r;
      out.push(`${(k * Math.cos(a)).toFixed(3)} ${(k * Math.sin(a)).toFixed(3)}`);
    }
    return `M${out.join("L")}Z`;
  }

  function axis(ctx) {
    return (ctx.board.axis_labels || []).map((a) => ({ text: String(a.text), x: a.x / ctx.unit, y: a.y / ctx.unit }));
  }

  // The city numbers (the part after the dot in "3.2", counted from the north) down
  // the west edge, beside the westernmost meridian's cities.
  function rows(ctx) {
    const west = ctx.pts.filter((p) => /^\d+\.\d+$/.test(p.id));
    if (!west.length) return [];
    const minX = Math.min(...west.map((p) => p.x));
    return west.filter((p) => Math.abs(p.x - minX) < 1e-6)
      .map((p) => ({ text: `.${p.id.split(".")[1]}`, x: p.x - 0.5, y: p.y }));
  }

  function drawGroups(layer, ctx) {
    // Each island is a rounded band: thick round-capped strokes joining its cities that
    // are neighbours (diagonals too), so it reads as one shape behind the cities.
    const { svg, sites, pts } = ctx;
    const groups = Array.isArray(ctx.board.groups) ? ctx.board.groups : [];
    if (!groups.length) return;
    const defs = svg("defs", {}, layer);
    const hatch = svg("pattern", {
      id: "group-tied", width: 0.22, height: 0.22, patternUnits: "userSpaceOnUse",
      patternTransform: "rotate(45)",
    }, defs);
    svg("rect", { width: 0.22, height: 0.22, fill: "#ffa000" }, hatch);
    svg("rect", { width: 0.09, height: 0.22, fill: "#5a3a00" }, hatch);
    const bands = svg("g", { class: "groups" }, layer);
    const labels = [];
    groups.forEach((group, index) => {
      const members = pts.filter((p, i) => sites[i].group === group.id);
      if (!members.length) return;
      const cls = ["group", group.owner ? "owned" : "", group.tied ? "tied" : ""].filter(Boolean);
      const g = svg("g", {
        class: cls.join(" "), "data-group": group.id, "data-owner": group.owner || "",
        "data-tied": group.tied ? "true" : "false",
      }, bands);
      const owner = group.owner ? group.colour || ctx.seatColour(group.owner) : "";
      const fill = group.tied ? "url(#group-tied)" : owner || GROUP_FILLS[index % GROUP_FILLS.length];
      g.style.setProperty("--group-fill", fill);
      const tip = [tr("island {key}", { key: `${group.id}${group.name ? ` ${group.name}` : ""}` })];
      if (group.value !== undefined && group.value !== null) tip.push(tr("{n} points", { n: group.value }));
      if (group.owner) tip.push(tr("taken by {seat}", { seat: ctx.seatLabel(group.owner) }));
      if (group.tied) tip.push(tr("tied: nobody takes it"));
      svg("title", {}, g).textContent = tip.join(", ");
      for (const m of members) svg("circle", { class: "band", cx: m.x, cy: m.y, r: 0.33 }, g);
      for (let i = 0; i < members.length; i++) {
        for (let j = i + 1; j < members.length; j++) {
          const a = members[i];
          const b = members[j];
          if (Math.hypot(a.x - b.x, a.y - b.y) < 1.5) {
            svg("line", { class: "band", x1: a.x, y1: a.y, x2: b.x, y2: b.y }, g);
          }
        }
      }
      if (group.tied) {
        for (const m of members) svg("circle", { class: "band-outline", cx: m.x, cy: m.y, r: 0.37 }, g);
      }
      // The label at the island's north-west city, as on the printed map.
      const first = members.reduce((a, b) => (b.y < a.y - 1e-6 || (Math.abs(b.y - a.y) < 1e-6 && b.x < a.x) ? b : a));
      labels.push([group.id, first.x - 0.42, first.y - 0.3]);
    });
    // The labels go over every band, so no island's band hides another island's name.
    const names = svg("g", { class: "group-labels" }, layer);
    for (const [id, x, y] of labels) {
      svg("text", { class: "group-label", "data-group": id, x, y }, names).textContent = id;
    }
  }

  function drawLabels(layer, ctx) {
    const labels = axis(ctx);
    if (!labels.length && !ctx.board.north_label) return;
    const g = ctx.svg("g", { class: "axis" }, layer);
    for (const a of labels) ctx.svg("text", { class: "axis-label", x: a.x, y: a.y }, g).textContent = a.text;
    for (const r of rows(ctx)) ctx.svg("text", { class: "row-label", x: r.x, y: r.y }, g).textContent = r.text;
    if (ctx.board.north_label) {
      ctx.svg("text", { class: "north-label", x: (ctx.siteMinX + ctx.siteMaxX) / 2, y: ctx.top + 0.26 },
        g).textContent = ctx.board.north_label;
    }
  }

  // The mover's hand (board.hand), shown as cards as BoardGameArena does: each face-up
  // card with the meridians it opens; the card chosen for this turn is marked.
  function cardWords(card) {
    const parts = String(card).split("-");
    return parts.length === 1 ? tr("meridian {n}", { n: parts[0] })
      : tr("meridians {first} to {last}", { first: parts[0], last: parts[parts.length - 1] });
  }

  let handKey = "";
  function drawHand(state, api) {
    const hand = state.board && state.board.hand;
    let root = document.getElementById("colovini-hand");
    const lang = window.MeridianI18n ? window.MeridianI18n.lang : "en";
    const key = JSON.stringify([hand || null, state.seats || null, lang]);
    if (root && key === handKey) return;
    handKey = key;
    if (!hand) { if (root) root.remove(); return; }
    if (!root) {
      // data-game-panel: the page removes it when another game starts.
      root = document.createElement("section");
      root.id = "colovini-hand";
      root.className = "panel colovini-hand";
      root.dataset.gamePanel = "colovini";
      root.setAttribute("aria-labelledby", "colovini-hand-title");
      const side = document.querySelector(".side");
      if (side) side.prepend(root); else document.body.append(root);
    }
    root.replaceChildren();
    root.style.setProperty("--seat", api.seatColour(hand.seat) || "var(--accent)");
    const name = (state.seats || {})[hand.seat];
    const who = name ? `${name} (${api.seatLabel(hand.seat)})` : api.seatLabel(hand.seat);
    const title = document.createElement("h2");
    title.id = "colovini-hand-title";
    title.textContent = tr("Hand of {seat}", { seat: who });
    root.append(title);
    const cards = hand.cards || [];
    if (!cards.length) {
      const p = document.createElement("p");
      p.textContent = tr("The cards are in the players' hands: {n} left", { n: hand.left });
      root.append(p);
      return;
    }
    const list = document.createElement("ul");
    list.className = "hand-cards";
    for (const card of cards) {
      const li = document.createElement("li");
      li.className = "hand-card";
      li.dataset.card = card;
      if (hand.chosen === card) li.setAttribute("aria-current", "true");
      const big = document.createElement("span");
      big.className = "hand-card-value";
      big.textContent = card;
      const small = document.createElement("span");
      small.className = "hand-card-words";
      small.textContent = cardWords(card);
      li.append(big, small);
      li.setAttribute("aria-label", tr("card {card}: {what}", { card, what: cardWords(card) }));
      list.append(li);
    }
    root.append(list);
    const left = document.createElement("p");
    left.className = "hand-left";
    left.textContent = tr("{n} cards left, these two face up", { n: hand.left });
    root.append(left);
  }

  window.MeridianGames.register("colovini", {
    panel(state, api) { drawHand(state, api); },
    // Room for the meridian numbers under the board and the north label above it.
    extent(ctx) {
      return {
        points: axis(ctx).map((a) => [a.x, a.y - 0.2]).concat(rows(ctx).map((r) => [r.x + 0.3, r.y])),
        top: ctx.board.north_label ? 0.42 : 0,
      };
    },
    drawUnder(layer, ctx) {
      drawGroups(layer, ctx);
      drawLabels(layer, ctx);
    },
    decorateSite(g, site, ctx) {
      if (!site.major) return;
      g.classList.add("major");
      ctx.svg("path", { class: "major-mark", d: starPath(0.24) }, g);
    },
    controlLabel(name) {
      const m = /^meridian(\d+)$/.exec(name);
      return m ? tr("Meridian {n}", { n: m[1] }) : null;
    },
  }, { stylesheet: here ? new URL("page.css", here).href : null });
})();
