// Meridian Table: a page that teaches. Each game may ship its rules in short, a
// glossary and what its score means (static/rules.<lang>.json in its own package,
// served from games/<id>/static/): a Rules button opens them, and the score's meaning
// stands under the players' heading. The spec lists the languages it ships
// (spec.page.rules): only those are asked for, so a game without rules gets neither
// and the console shows no failed request.
"use strict";
(() => {
  const t = (text, params) => (window.MeridianI18n ? window.MeridianI18n.t(text, params)
    : text.replace(/\{(\w+)\}/g, (m, k) => (params && k in params ? String(params[k]) : m)));
  let key = "";
  let rules = null;

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  async function fetchRules(game, lang, shipped) {
    for (const l of lang === "en" ? ["en"] : [lang, "en"]) {
      if (!shipped.includes(l)) continue;
      try {
        const answer = await fetch(`games/${encodeURIComponent(game)}/static/rules.${l}.json`);
        if (answer.ok) return await answer.json();
      } catch (err) { /* offline or refused: no rules shown */ }
    }
    return null;
  }

  function dialog() {
    let d = document.getElementById("rules-dialog");
    if (!d) {
      d = el("dialog", { id: "rules-dialog", class: "newgame-dialog rules-dialog", "aria-labelledby": "rules-title" });
      document.body.append(d);
    }
    return d;
  }

  function open() {
    if (!rules) return;
    const d = dialog();
    d.replaceChildren();
    d.append(el("h2", { id: "rules-title" }, rules.title || t("Rules")));
    const list = el("ul", { class: "rules-summary" });
    for (const line of rules.summary || []) list.append(el("li", {}, line));
    d.append(list);
    if ((rules.glossary || []).length) {
      d.append(el("h3", {}, t("Glossary")));
      const dl = el("dl", { class: "rules-glossary" });
      for (const [term, meaning] of rules.glossary) dl.append(el("dt", {}, term), el("dd", {}, meaning));
      d.append(dl);
    }
    if (rules.score) d.append(el("p", { class: "rules-score" }, rules.score));
    const close = el("button", { type: "button", class: "control", id: "rules-close" }, t("Close"));
    close.addEventListener("click", () => d.close());
    const row = el("div", { class: "ng-buttons" });
    row.append(close);
    d.append(row);
    if (!d.open) d.showModal();
    close.focus();
  }

  function show() {
    const actions = document.querySelector("#game-panel .game-actions");
    let b = document.getElementById("rules-open");
    if (actions && !b) {
      b = el("button", { id: "rules-open", class: "control", type: "button" }, t("Rules"));
      b.addEventListener("click", open);
      actions.append(b);
    }
    if (b) b.hidden = !rules;
    const scores = document.getElementById("scores");
    let note = document.getElementById("score-note");
    if (scores && !note) {
      note = el("p", { id: "score-note", class: "score-note" });
      scores.before(note);
    }
    if (note) {
      note.textContent = rules && rules.score ? rules.score : "";
      note.hidden = !(rules && rules.score);
    }
  }

  async function load(game, shipped) {
    const lang = window.MeridianI18n ? window.MeridianI18n.lang : "en";
    const k = `${game}:${lang}:${shipped.join(",")}`;
    if (k === key) { show(); return; }
    key = k;
    // Another game or language: the rules shown so far are not its own; nothing stands
    // until its own arrive (a French page showed the English note while the French one
    // loaded on a busy machine).
    rules = null;
    show();
    const found = await fetchRules(game, lang, shipped);
    if (key !== k) return;  // another game or language came meanwhile
    rules = found;
    show();
  }

  let game = null;
  let shipped = [];
  document.addEventListener("meridian:state", (e) => {
    const detail = e.detail || {};
    game = detail.game;
    const page = (detail.spec || {}).page || {};
    shipped = Array.isArray(page.rules) ? page.rules : [];
    if (game) load(game, shipped);
  });
  if (window.MeridianI18n) window.MeridianI18n.onChange(() => { if (game) load(game, shipped); });

  window.MeridianRules = { open, get rules() { return rules; } };
})();
