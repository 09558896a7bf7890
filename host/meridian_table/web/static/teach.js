// Meridian Table: warnings the mover can still act on (state.warnings: [{sites, text}]),
// e.g. stones with no path, removed at the start of the opponent's turn unless
// the mover gives them one. The sites get an amber dashed ring with "!" and the words
// stand under the message. No warnings in the state: nothing shown.
"use strict";
(() => {
  const NS = "http://www.w3.org/2000/svg";

  function box() {
    let el = document.getElementById("warnings");
    if (el) return el;
    el = document.createElement("ul");
    el.id = "warnings";
    el.className = "warnings";
    el.setAttribute("aria-label", window.MeridianI18n ? window.MeridianI18n.t("Warnings") : "Warnings");
    el.hidden = true;
    const anchor = document.getElementById("message");
    if (anchor) anchor.after(el); else document.body.prepend(el);
    return el;
  }

  // Tapping a piece explains it (its group and paths, its island and garrisons:
  // site.about from the table). On the virtual board a click moves a piece, so there a
  // long press (or a right click) explains, and "?" on the focused point does too.
  let about = {};
  function aboutBox() {
    let el = document.getElementById("about-site");
    if (el) return el;
    el = document.createElement("p");
    el.id = "about-site";
    el.className = "about-site";
    el.setAttribute("role", "status");
    el.hidden = true;
    const legend = document.querySelector(".legend");
    if (legend) legend.after(el); else document.body.append(el);
    return el;
  }
  function explain(site) {
    const text = about[site];
    const box = aboutBox();
    box.textContent = text || "";
    box.hidden = !text;
    return Boolean(text);
  }
  function siteOf(target) {
    const g = target && target.closest ? target.closest("#board g.site") : null;
    return g ? g.dataset.site : null;
  }
  document.addEventListener("contextmenu", (e) => {
    const site = siteOf(e.target);
    if (site && explain(site)) e.preventDefault();
  });
  document.addEventListener("click", (e) => {
    const s = window.meridian && window.meridian.state;
    const site = siteOf(e.target);
    if (site && s && !(s.link && s.link.virtual)) explain(site);
  });
  document.addEventListener("keydown", (e) => {
    if (e.key !== "?") return;
    const site = siteOf(document.activeElement);
    if (site && explain(site)) e.preventDefault();
  });

  document.addEventListener("meridian:state", (e) => {
    const s = e.detail || {};
    about = {};
    for (const site of ((s.board || {}).sites || [])) if (site.about) about[site.id] = site.about;
    for (const g of document.querySelectorAll("#board g.site")) {
      const text = about[g.dataset.site];
      if (text) g.setAttribute("aria-description", text); else g.removeAttribute("aria-description");
    }
    const warnings = Array.isArray(s.warnings) ? s.warnings : [];
    const list = box();
    const text = warnings.map((w) => w.text).join("\n");
    if (list.dataset.text !== text) {
      list.dataset.text = text;
      list.replaceChildren(...warnings.map((w) => {
        const li = document.createElement("li");
        li.textContent = w.text;
        return li;
      }));
    }
    list.hidden = warnings.length === 0 || Boolean(window.meridian && window.meridian.replay);
    const warned = new Set(window.meridian && window.meridian.replay ? [] : warnings.flatMap((w) => w.sites || []));
    for (const g of document.querySelectorAll("#board g.site")) {
      const on = warned.has(g.dataset.site);
      let mark = g.querySelector(".warn-mark");
      if (on && !mark) {
        mark = document.createElementNS(NS, "g");
        mark.setAttribute("class", "warn-mark");
        const ring = document.createElementNS(NS, "circle");
        ring.setAttribute("r", "0.46");
        const bang = document.createElementNS(NS, "text");
        bang.setAttribute("x", "0.36");
        bang.setAttribute("y", "-0.2");
        bang.textContent = "!";
        mark.append(ring, bang);
        g.append(mark);
      } else if (!on && mark) {
        mark.remove();
      }
      if (on) g.dataset.warn = "no-path"; else delete g.dataset.warn;
    }
  });
})();
