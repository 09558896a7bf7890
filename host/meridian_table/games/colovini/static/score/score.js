// Scoring assistant: the page keeps who holds which city; the server does the scoring.
// The map is drawn like the table page's board: islands as bands, empty cities as quiet
// dots, capitals with a gold star, held cities as towers in the holder's colour. Each city
// is a tap target one grid step wide; on a narrow screen the map turns a quarter (the
// meridians become rows) so that a step stays at least 44 px at 390 px wide.
"use strict";

const state = { players: [], colours: {}, owners: {}, pieces: {}, map: null };
const SVG = "http://www.w3.org/2000/svg";
const NARROW = window.matchMedia("(max-width: 600px)");
// The page's catalogue (static/table/i18n.js), English when it is not there.
const t = (text, params) => (window.MeridianI18n ? window.MeridianI18n.t(text, params) : text);
const $ = (id) => document.getElementById(id);

function el(tag, attrs, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function svg(tag, attrs, parent) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.append(node);
  return node;
}

function inkOn(colour) {
  // Black or white, whichever reads better on ``colour`` (#rrggbb).
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour || "");
  if (!m) return "#000000";
  const [r, g, b] = m.slice(1).map((h) => parseInt(h, 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.18 ? "#000000" : "#ffffff";
}

function swatch(player) {
  const s = el("span", { class: "swatch", "aria-hidden": "true" });
  s.style.background = state.colours[player] || "transparent";
  return s;
}

function splitCity(city) {
  const [m, i] = String(city).split(".").map(Number);
  return [m, i];
}

function cityXY(city, narrow) {
  // Meridians left to right and index 1 (north) at the top; on a narrow screen the map
  // turns: meridians top to bottom and north at the left.
  const [m, i] = splitCity(city);
  return narrow ? [i - 1, m - 1] : [m - 1, i - 1];
}

function cityWords(city) {
  const owner = state.owners[city];
  const island = state.map.islands.find((isl) => isl.cities.includes(city));
  const capital = state.map.capitals.includes(city);
  const where = `City ${city}${island ? `, island ${island.key}` : ""}${capital ? ", capital" : ""}`;
  return `${where}: ${owner ? `held by ${owner}` : "empty"}`;
}

function drawMap() {
  const root = $("board");
  root.replaceChildren();
  const narrow = NARROW.matches;
  const map = state.map;
  const meridians = Math.max(...map.islands.flatMap((isl) => isl.cities.map((c) => splitCity(c)[0])));
  const cols = narrow ? map.side : meridians;
  const rows = narrow ? meridians : map.side;
  const pad = 0.6;
  // Room for the meridian numbers (below, or at the left when turned) and the north label.
  const minX = -pad - (narrow ? 0.7 : 0);
  const top = -pad - 0.45;
  const w = cols - 1 + 2 * pad + (narrow ? 0.7 : 0);
  const h = rows - 1 + 2 * pad + 0.45 + (narrow ? 0 : 0.7);
  root.setAttribute("viewBox", `${minX} ${top} ${w} ${h}`);
  root.style.aspectRatio = `${w} / ${h}`;
  root.dataset.orientation = narrow ? "turned" : "upright";
  const north = narrow ? t("← N (taller towers) at the left") : t("N (taller towers)");
  svg("text", { class: "map-north", x: (cols - 1) / 2, y: top + 0.24 }, root).textContent = north;
  for (let m = 1; m <= meridians; m++) {
    const [x, y] = narrow ? [-0.75, m - 1] : [m - 1, rows - 1 + 0.75];
    svg("text", { class: "map-label", x, y, "aria-hidden": "true" }, root).textContent = String(m);
  }
  const bands = svg("g", { class: "islands" }, root);
  for (const island of map.islands) {
    const g = svg("g", { class: "island", "data-island": island.key }, bands);
    g.style.setProperty("--island", island.colour);
    const pts = island.cities.map((c) => cityXY(c, narrow));
    for (const [x, y] of pts) svg("circle", { class: "band", cx: x, cy: y, r: 0.33 }, g);
    for (let i = 0; i < pts.length; i++) {
      for (let j = i + 1; j < pts.length; j++) {
        if (Math.hypot(pts[i][0] - pts[j][0], pts[i][1] - pts[j][1]) < 1.5) {
          svg("line", { class: "band", x1: pts[i][0], y1: pts[i][1], x2: pts[j][0], y2: pts[j][1] }, g);
        }
      }
    }
    const first = pts.reduce((a, b) => (b[1] < a[1] - 1e-6 || (Math.abs(b[1] - a[1]) < 1e-6 && b[0] < a[0]) ? b : a));
    svg("text", { class: "island-label", x: first[0] - 0.42, y: first[1] - 0.32, "aria-hidden": "true" }, g)
      .textContent = island.key;
  }
  const cities = map.islands.flatMap((isl) => isl.cities).sort((a, b) => {
    const [ma, ia] = splitCity(a);
    const [mb, ib] = splitCity(b);
    return ma - mb || ia - ib;
  });
  for (const city of cities) {
    const [x, y] = cityXY(city, narrow);
    const capital = map.capitals.includes(city);
    const g = svg("g", {
      class: `city-site${capital ? " capital" : ""}`, "data-site": city, transform: `translate(${x} ${y})`,
      role: "button", tabindex: "0",
    }, root);
    svg("circle", { class: "city", r: 0.5, "data-city": city }, g);
    svg("circle", { class: "empty-dot", r: 0.08 }, g);
    if (capital) svg("path", { class: "capital-mark", d: starPath(0.24) }, g);
    svg("circle", { class: "tower", r: 0.4 }, g);
    svg("text", { class: "owner-label", y: 0.01 }, g);
    svg("circle", { class: "focus-ring", r: 0.5 }, g);
    g.addEventListener("click", () => cycle(city));
    g.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); cycle(city); }
    });
  }
  drawOwners();
}

function starPath(r) {
  const out = [];
  for (let i = 0; i < 10; i++) {
    const a = (Math.PI / 5) * i - Math.PI / 2;
    const k = i % 2 ? r * 0.45 : r;
    out.push(`${(k * Math.cos(a)).toFixed(3)} ${(k * Math.sin(a)).toFixed(3)}`);
  }
  return `M${out.join("L")}Z`;
}

function drawOwners() {
  for (const g of document.querySelectorAll("#board g.city-site")) {
    const city = g.dataset.site;
    const owner = state.owners[city];
    const colour = owner ? state.colours[owner] : "";
    g.classList.toggle("owned", Boolean(owner));
    g.querySelector("circle.city").setAttribute("data-owner", owner || "");
    g.querySelector(".tower").style.fill = colour;
    const label = g.querySelector(".owner-label");
    label.textContent = owner ? owner.slice(0, 2) : "";
    label.style.fill = inkOn(colour);
    g.setAttribute("aria-label", cityWords(city));
  }
}

function drawPieces() {
  const box = $("pieces");
  box.replaceChildren(el("span", { class: "pieces-title" }, "Towers left in hand (only for a tie)"));
  for (const p of state.players) {
    const id = `pieces-${state.players.indexOf(p)}`;
    const label = el("label", { for: id });
    label.append(swatch(p), p);
    const input = el("input", { id, type: "number", min: "0", inputmode: "numeric", "data-player": p });
    input.value = state.pieces[p] ?? "";
    input.addEventListener("input", () => { state.pieces[p] = input.value; rescore(); });
    box.append(label, input);
  }
  $("cycle").textContent = state.players.join(" → ");
}

function showResult(result) {
  $("error").textContent = "";
  const totals = document.querySelector("#totals tbody");
  totals.replaceChildren();
  for (const [player, points] of Object.entries(result.totals)) {
    const row = el("tr", { "data-player": player, class: result.winners.includes(player) ? "winner" : "" });
    const name = el("td");
    name.append(swatch(player), player);
    row.append(name, el("td", { class: "points" }, String(points)));
    totals.append(row);
  }
  $("tiebreak").textContent = result.tie_break;
  const islands = document.querySelector("#islands tbody");
  islands.replaceChildren();
  for (const island of result.islands) {
    const row = el("tr", { "data-island": island.island, class: island.tied ? "tied" : "" });
    const strengths = Object.entries(island.strengths).map(([p, s]) => `${p} ${s}`).join(", ") || "—";
    const owner = island.owner ?? (island.tied ? "tied" : "—");
    row.append(
      el("td", {}, `${island.island} ${island.name}`),
      el("td", { class: "value" }, String(island.value)),
      el("td", {}, strengths),
      el("td", { class: "owner" }, owner),
      el("td", { class: "points" }, String(island.points)),
    );
    islands.append(row);
  }
}

let pending = 0;
async function rescore() {
  const ticket = ++pending;
  document.body.dataset.asked = String(ticket);
  const lang = window.MeridianI18n ? window.MeridianI18n.lang : "en";  // the sentences' language
  const body = { garrisons: state.owners, players: state.players, pieces_left: state.pieces, lang };
  let data;
  let ok = false;
  try {
    const response = await fetch("api/score", {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
    });
    ok = response.ok;
    data = await response.json();
  } catch (err) {
    data = { error: `the scoring page did not answer (${err.message}): is meridian-table still running?` };
  }
  if (ticket !== pending) return;  // a newer click already asked again
  if (!ok) { $("error").textContent = data.error; return; }
  showResult(data);
  document.body.dataset.scored = String(ticket);
}

function cycle(city) {
  const order = [...state.players, undefined];
  const next = order[(order.indexOf(state.owners[city]) + 1) % order.length];
  if (next === undefined) delete state.owners[city]; else state.owners[city] = next;
  drawOwners();
  rescore();
}

function setPlayers(names, colours) {
  state.players = names;
  const fallback = Object.values(colours || {});
  state.colours = Object.fromEntries(names.map((p, i) => [p, (colours || {})[p] || fallback[i % fallback.length] || "#888888"]));
  for (const [city, owner] of Object.entries(state.owners)) {
    if (!names.includes(owner)) delete state.owners[city];
  }
  $("players").value = names.join(", ");
  drawPieces();
  drawOwners();
  rescore();
}

async function start() {
  const setup = await (await fetch("api/setup")).json();
  state.map = setup.map;
  $("mapname").textContent =
    `Map ${setup.map.name}: ${setup.map.islands.length} islands, ${setup.map.side} cities per meridian`;
  drawMap();
  NARROW.addEventListener("change", drawMap);
  const palette = setup.colours;
  $("players-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const names = $("players").value.split(",").map((s) => s.trim()).filter(Boolean);
    setPlayers([...new Set(names)], palette);
  });
  $("clear").addEventListener("click", () => {
    state.owners = {};
    drawOwners();
    rescore();
  });
  const theme = window.MeridianTheme;
  if (theme) {
    theme.onChange((now) => $("theme-toggle").setAttribute("aria-pressed", String(now === "dark")));
    $("theme-toggle").addEventListener("click", () => theme.toggle());
  }
  // The sentences come from the server in the page's language: asked again once it is known.
  if (window.MeridianI18n) window.MeridianI18n.onChange(() => { drawMap(); rescore(); });
  setPlayers(setup.players, palette);
}

start();
