// Scoring assistant: the page keeps who holds which city; the server does the scoring.
"use strict";

const state = { players: [], colours: {}, owners: {}, pieces: {}, islands: [] };
const palette = ["#f77f00", "#111111", "#8d5524", "#9e9e9e", "#2a9d8f", "#6a4c93"];
const svgNS = "http://www.w3.org/2000/svg";

function el(tag, attrs, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function swatch(player) {
  const s = el("span", { class: "swatch" });
  s.style.background = state.colours[player] || "transparent";
  return s;
}

function drawOwners() {
  for (const circle of document.querySelectorAll("#board circle.city")) {
    const city = circle.dataset.city;
    const owner = state.owners[city];
    if (!circle.dataset.fill) circle.dataset.fill = circle.getAttribute("fill");
    circle.setAttribute("fill", owner ? state.colours[owner] : circle.dataset.fill);
    circle.setAttribute("data-owner", owner || "");
    let label = circle.nextElementSibling;
    if (!label || !label.classList || !label.classList.contains("owner")) {
      label = document.createElementNS(svgNS, "text");
      label.setAttribute("class", "owner");
      label.setAttribute("x", circle.getAttribute("cx"));
      label.setAttribute("y", Number(circle.getAttribute("cy")) + 5);
      label.setAttribute("text-anchor", "middle");
      label.setAttribute("font-size", "13");
      label.setAttribute("fill", "#ffffff");
      label.setAttribute("pointer-events", "none");
      circle.after(label);
    }
    label.textContent = owner ? owner.slice(0, 2) : "";
    const star = document.querySelector(`#board text.capital-mark[data-city="${city}"]`);
    if (star) star.style.visibility = owner ? "hidden" : "visible";
  }
}

function drawPieces() {
  const box = document.getElementById("pieces");
  box.replaceChildren(el("span", {}, "Pieces left in hand (for a tie): "));
  for (const p of state.players) {
    const input = el("input", { type: "number", min: "0", "data-player": p, "aria-label": `pieces left ${p}` });
    input.value = state.pieces[p] ?? "";
    input.addEventListener("input", () => { state.pieces[p] = input.value; rescore(); });
    const label = el("label", {}, `${p} `);
    label.append(input);
    box.append(label);
  }
  document.getElementById("cycle").textContent = state.players.join(" → ");
}

function showResult(result) {
  document.getElementById("error").textContent = "";
  const totals = document.querySelector("#totals tbody");
  totals.replaceChildren();
  for (const [player, points] of Object.entries(result.totals)) {
    const row = el("tr", { "data-player": player, class: result.winners.includes(player) ? "winner" : "" });
    const name = el("td");
    name.append(swatch(player), player);
    row.append(name, el("td", { class: "points" }, String(points)));
    totals.append(row);
  }
  document.getElementById("tiebreak").textContent = result.tie_break;
  const islands = document.querySelector("#islands tbody");
  islands.replaceChildren();
  for (const island of result.islands) {
    const row = el("tr", { "data-island": island.island, class: island.tied ? "tied" : "" });
    const strengths = Object.entries(island.strengths).map(([p, s]) => `${p} ${s}`).join(", ") || "—";
    const owner = island.owner ?? (island.tied ? "tied" : "—");
    row.append(
      el("td", {}, `${island.island} ${island.name}`),
      el("td", {}, String(island.value)),
      el("td", {}, strengths),
      el("td", { class: "owner" }, owner),
      el("td", {}, String(island.points)),
    );
    islands.append(row);
  }
}

let pending = 0;
async function rescore() {
  const ticket = ++pending;
  document.body.dataset.asked = String(ticket);
  const body = { garrisons: state.owners, players: state.players, pieces_left: state.pieces };
  const response = await fetch("/api/score", {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
  });
  const data = await response.json();
  if (ticket !== pending) return;  // a newer click already asked again
  if (!response.ok) { document.getElementById("error").textContent = data.error; return; }
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

function setPlayers(names) {
  state.players = names;
  state.colours = Object.fromEntries(names.map((p, i) => [p, palette[i % palette.length]]));
  for (const [city, owner] of Object.entries(state.owners)) {
    if (!names.includes(owner)) delete state.owners[city];
  }
  document.getElementById("players").value = names.join(", ");
  drawPieces();
  drawOwners();
  rescore();
}

async function start() {
  const setup = await (await fetch("/api/setup")).json();
  document.getElementById("mapname").textContent =
    `map ${setup.map.name}: ${setup.map.islands.length} islands, ${setup.map.side} cities per meridian`;
  const svg = await (await fetch("/api/map.svg")).text();
  document.getElementById("board").innerHTML = svg;
  for (const circle of document.querySelectorAll("#board circle.city")) {
    circle.addEventListener("click", () => cycle(circle.dataset.city));
  }
  document.getElementById("players-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const names = document.getElementById("players").value.split(",").map((s) => s.trim()).filter(Boolean);
    setPlayers([...new Set(names)]);
  });
  document.getElementById("clear").addEventListener("click", () => {
    state.owners = {};
    drawOwners();
    rescore();
  });
  setPlayers(setup.players);
}

start();
