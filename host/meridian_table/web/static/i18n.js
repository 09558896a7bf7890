// Meridian Table: the page in English or French. One catalog per language
// (static/i18n/fr.json: "messages" for whole texts, "templates" for texts with parts
// such as "{seat} to move"); English is the source and needs none. The page's modules
// call MeridianI18n.t(text, params); what other scripts write (app.js) is translated as
// it appears, by watching the page, so a text, a title or an aria-label in the catalog
// never shows in English on a French page. The language is the table's: the page asks
// for its browser's (or the one chosen in "Sound and look") unless `play --lang` fixed
// it, and then follows the table. tests/test_i18n.py fails when a text has no entry.
"use strict";
(() => {
  const KEY = "meridian.lang";
  // The catalogs sit beside this script: static/i18n/ on the table page, and the same
  // folder when another page (the scoring assistant) serves this file elsewhere.
  const BASE = document.currentScript ? new URL(".", document.currentScript.src).href : "static/";
  const LANGS = { en: "English", fr: "Français" };
  let lang = "en";
  let messages = {};
  let templates = [];
  let synced = false;
  const ATTRS = ["title", "aria-label", "placeholder"];

  function short(value) {
    const s = String(value || "").toLowerCase().split(/[-_.]/)[0];
    return LANGS[s] ? s : null;
  }

  function wanted() {
    try { const v = short(localStorage.getItem(KEY)); if (v) return v; } catch (err) { /* private mode */ }
    for (const l of navigator.languages || [navigator.language]) { const v = short(l); if (v) return v; }
    return "en";
  }

  function fill(text, params) {
    return text.replace(/\{(\w+)\}/g, (m, k) => (params && k in params ? String(params[k]) : m));
  }

  function compile(source) {
    const names = [];
    const pattern = source.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{(\w+)\\?\}/g, (m, k) => { names.push(k); return "(.+?)"; });
    return { re: new RegExp(`^${pattern}$`), names };
  }

  const produced = new Set();  // our own output is never translated again

  function translate(text) {
    if (lang === "en" || !text || produced.has(text)) return text;
    const done = lookup(text);
    if (done !== text) produced.add(done);
    return done;
  }

  function lookup(text) {
    if (Object.prototype.hasOwnProperty.call(messages, text)) return messages[text];
    for (const tpl of templates) {
      const m = tpl.re.exec(text);
      if (!m) continue;
      const params = {};
      tpl.names.forEach((k, i) => { params[k] = translate(m[i + 1]); });
      return fill(tpl.target, params);
    }
    return text;
  }

  // The page's own modules: t("Save names"), t("Player {n}", {n: 2}).
  function t(text, params) {
    const english = fill(text, params);
    if (lang === "en") return english;
    if (Object.prototype.hasOwnProperty.call(messages, text)) {
      const done = fill(messages[text], params);
      produced.add(done);
      return done;
    }
    return translate(english);
  }

  function translateNode(node) {
    if (lang === "en") return;
    if (node.nodeType === Node.TEXT_NODE) {
      const raw = node.nodeValue;
      const text = raw.trim();
      if (!text) return;
      const done = translate(text);
      if (done !== text) node.nodeValue = raw.replace(text, done);
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    if (node.tagName === "SCRIPT" || node.tagName === "STYLE") return;
    for (const a of ATTRS) {
      const v = node.getAttribute(a);
      if (v) { const done = translate(v.trim()); if (done !== v.trim()) node.setAttribute(a, done); }
    }
    for (const child of node.childNodes) translateNode(child);
  }

  const observer = new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === "characterData") translateNode(r.target);
      else if (r.type === "attributes") translateNode(r.target);
      else r.addedNodes.forEach(translateNode);
    }
  });

  async function load(next) {
    if (next === "en") { messages = {}; templates = []; lang = "en"; return; }
    const answer = await fetch(`${BASE}i18n/${next}.json`);
    if (!answer.ok) throw new Error(`catalog ${next}: ${answer.status}`);
    const data = await answer.json();
    messages = data.messages || {};
    // The most specific first: "Player {n} ({seat})" before "Player {n}".
    templates = Object.entries(data.templates || {})
      .sort((a, b) => b[0].replace(/\{\w+\}/g, "").length - a[0].replace(/\{\w+\}/g, "").length)
      .map(([source, target]) => ({ ...compile(source), target }));
    lang = next;
  }

  async function use(next, remember) {
    const was = lang;
    if (remember) { try { localStorage.setItem(KEY, next); } catch (err) { /* not remembered */ } }
    if (next === was) return;
    if (was !== "en") { location.reload(); return; }  // the English texts are gone: start afresh
    try { await load(next); } catch (err) { console.warn("no catalog", err); return; }
    document.documentElement.lang = lang;
    document.title = translate(document.title);
    translateNode(document.body);
    for (const cb of listeners) cb(lang);
  }

  const listeners = [];

  function selector() {
    const prefs = document.querySelector(".prefs-buttons");
    if (!prefs || document.getElementById("lang-select")) return;
    const label = document.createElement("label");
    label.className = "lang-label";
    label.htmlFor = "lang-select";
    label.textContent = t("Language");
    const select = document.createElement("select");
    select.id = "lang-select";
    for (const [code, name] of Object.entries(LANGS)) {
      const o = document.createElement("option");
      o.value = code;
      o.textContent = name;
      o.lang = code;
      select.append(o);
    }
    select.value = lang;
    listeners.push((l) => { select.value = l; });
    select.addEventListener("change", async () => {
      const next = select.value;
      const api = window.meridian;
      if (api) await api.request({ cmd: "language", lang: next });
      use(next, true);
    });
    prefs.after(label, select);
  }

  document.addEventListener("meridian:state", (e) => {
    const s = e.detail || {};
    if (synced || !s.lang || !window.meridian) return;
    synced = true;
    const mine = wanted();
    if (s.lang === mine) { use(mine, false); return; }
    // The table speaks another language: ask it for the browser's, unless --lang fixed
    // it; the page then speaks the table's language (nothing is translated before).
    window.meridian.request({ cmd: "language", lang: mine, browser: true }).then((a) => {
      use(a && a.ok && !a.fixed ? mine : (a && a.lang) || s.lang, false);
    });
  });

  function start() {
    observer.observe(document.documentElement, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ATTRS });
    selector();
    // A page with no table behind it (the scoring assistant) takes the browser's language.
    if (document.documentElement.dataset.lang === "browser") use(wanted(), false);
  }

  window.MeridianI18n = { t, translate, get lang() { return lang; }, use, onChange: (cb) => listeners.push(cb) };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
