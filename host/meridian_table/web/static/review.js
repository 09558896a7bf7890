// Meridian Table: the post-game review on the page. "Review this game" (on the end
// screen, and for every finished game of the players' history) asks the table's review
// command (docs/BOTS.md, "The review"): the game's bot analyses every position, which
// takes a while, so the panel says it is analysing, how far it is (the table's
// review_progress command, asked every second) and the time spent, and the page stays
// usable. The marked moves are listed in words, worst first; choosing one shows
// the position before it on the board, with the move played (a dashed ring) and the
// better move (a diamond) marked, and the board's legend saying which is which. It names
// no game: which games have a bot comes from the spec's "levels".
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const t = (text, params) => (window.MeridianI18n ? window.MeridianI18n.t(text, params)
    : text.replace(/\{(\w+)\}/g, (m, k) => (params && k in params ? String(params[k]) : m)));
  // How long the page waits for a review: a long game at a deep level takes minutes.
  const WAIT_MS = 15 * 60 * 1000;
  // Extra fields of the review command ({level, budget_s, top}): the table's quick
  // review when empty. Tests and the curious set them from the console.
  const settings = {};
  let running = null;   // {gameId, since, timer}
  let shown = null;     // {gameId, marks}
  let endKey = "";

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

  function hasBot(spec) {
    return Boolean(spec && spec.levels && Object.keys(spec.levels).length);
  }

  function panel() {
    let box = $("review-panel");
    if (box) return box;
    box = el("section", { id: "review-panel", class: "panel review-panel", "aria-labelledby": "review-title", hidden: true });
    box.append(el("h2", { id: "review-title" }, t("Review")));
    const status = el("p", { id: "review-status", class: "review-status", role: "status" });
    const busy = el("div", { id: "review-busy", class: "review-busy", hidden: true });
    busy.append(el("progress", { id: "review-progress", "aria-label": t("Analysing the game") }),
      el("span", { id: "review-time", class: "review-time" }));
    const error = el("p", { id: "review-error", class: "review-error", role: "alert", hidden: true });
    const list = el("ol", { id: "review-marks", class: "review-marks", "aria-label": t("Marked moves, worst first") });
    const note = el("p", { id: "review-note", class: "review-note", hidden: true },
      t("The board shows the position before the move: a dashed ring marks the move played, a diamond the better move."));
    const close = el("button", { type: "button", class: "control", id: "review-close" }, t("Close the review"));
    close.addEventListener("click", closePanel);
    box.append(status, busy, error, list, note, close);
    const summary = $("summary");
    const side = document.querySelector("aside.side");
    if (summary && summary.parentNode) summary.after(box);
    else if (side) side.prepend(box);
    else document.body.append(box);
    return box;
  }

  function closePanel() {
    const box = panel();
    box.hidden = true;
    shown = null;
    if (window.meridian && window.meridian.stopReplay) window.meridian.stopReplay();
    const back = $("review-this-game");
    if (back) back.focus();
  }

  function seatWords(mark) {
    const api = window.meridian;
    const seat = mark.colour && api && api.seatLabel ? api.seatLabel(mark.colour) : "";
    return seat && mark.player ? `${seat} (${mark.player})` : seat || mark.player || "";
  }

  function markWords(mark) {
    return t("Move {n}, {who} played {played}; {best} was better (lost about {loss} %)", {
      n: mark.number, who: seatWords(mark), played: mark.played_words || mark.played,
      best: mark.best_words || mark.best, loss: Math.round(100 * Number(mark.loss || 0)),
    });
  }

  async function run(gameId) {
    const api = window.meridian;
    if (!api || running) return;
    const box = panel();
    box.hidden = false;
    shown = null;
    $("review-title").textContent = t("Review of game #{id}", { id: gameId });
    $("review-marks").replaceChildren();
    $("review-note").hidden = true;
    $("review-error").hidden = true;
    $("review-status").textContent = t("Analysing game #{id}: the bot looks at every move…", { id: gameId });
    $("review-busy").hidden = false;
    box.setAttribute("aria-busy", "true");
    const since = performance.now();
    const bar = $("review-progress");
    bar.removeAttribute("value");  // indeterminate until the table says how far it is
    let far = null;   // {done, total} from the table's review_progress
    let asking = false;
    const say = () => {
      const secs = Math.round((performance.now() - since) / 1000);
      $("review-time").textContent = far && far.total
        ? t("move {done} of {total}, {secs} s", { done: far.done, total: far.total, secs })
        : t("{secs} s so far", { secs });
    };
    const tick = () => {
      say();
      if (asking || !running) return;
      asking = true;
      api.request({ cmd: "review_progress", game_id: gameId }).then((answer) => {
        asking = false;
        const p = answer && answer.ok ? answer.progress : null;
        if (!p || !running || !(Number(p.total) > 0)) return;
        far = { done: Number(p.done) || 0, total: Number(p.total) };
        bar.max = far.total;
        bar.value = Math.min(far.done, far.total);
        say();
      });
    };
    running = { gameId, timer: setInterval(tick, 1000) };
    tick();
    for (const b of document.querySelectorAll("[data-review-game]")) b.disabled = true;
    let answer;
    try {
      answer = await api.request({ cmd: "review", game_id: gameId, ...settings }, null, WAIT_MS);
    } finally {
      clearInterval(running.timer);
      running = null;
      for (const b of document.querySelectorAll("[data-review-game]")) b.disabled = false;
      $("review-busy").hidden = true;
      box.removeAttribute("aria-busy");
    }
    if (!answer || !answer.ok || !answer.review) {
      $("review-status").textContent = t("The review did not finish");
      $("review-error").textContent = (answer && answer.error) || t("The table gave no review");
      $("review-error").hidden = false;
      return;
    }
    show(gameId, answer.review);
  }

  function show(gameId, review) {
    const marks = Array.isArray(review.marks) ? review.marks : [];
    shown = { gameId, marks };
    const list = $("review-marks");
    list.replaceChildren();
    if (marks.length > 1) {
      $("review-status").textContent = t("{n} moves of {moves} marked, the worst first. Choose one to see it on the board.", { n: marks.length, moves: review.moves });
    } else if (marks.length === 1) {
      $("review-status").textContent = t("One move of {moves} marked. Choose it to see it on the board.", { moves: review.moves });
    } else {
      $("review-status").textContent = t("No move of the {moves} lost much against the bot: well played.", { moves: review.moves });
    }
    marks.forEach((mark, i) => {
      const li = el("li");
      const b = el("button", { type: "button", class: "review-mark", "aria-pressed": "false", "data-number": mark.number }, markWords(mark));
      b.addEventListener("click", () => choose(i));
      li.append(b);
      list.append(li);
    });
    $("review-note").hidden = !marks.length;
    // Its strength, so that it is never read as weaker than a hint the page gave.
    if (review.strength) {
      $("review-status").textContent += ` ${t("Reviewed by {strength}.", { strength: review.strength })}`;
    }
  }

  async function choose(index) {
    if (!shown) return;
    const mark = shown.marks[index];
    const api = window.meridian;
    if (!mark || !api || !api.showReview) return;
    document.querySelectorAll("#review-marks .review-mark").forEach((b, i) => {
      b.setAttribute("aria-pressed", String(i === index));
    });
    await api.showReview(shown.gameId, mark.number - 1, mark.played_sites || [], mark.best_sites || []);
  }

  // "Review this game" under the result, once a game with a bot has ended.
  function renderEnd(s) {
    const summary = $("summary");
    if (!summary) return;
    const key = `${s.game_id}:${Boolean(s.result)}:${hasBot(s.spec)}`;
    if (key === endKey) return;
    endKey = key;
    let box = $("review-actions");
    if (!box) {
      box = el("div", { id: "review-actions", class: "review-actions" });
      summary.append(box);
    }
    box.replaceChildren();
    if (!s.result || !hasBot(s.spec) || !s.game_id) return;
    const b = el("button", { id: "review-this-game", class: "control", type: "button", "data-review-game": s.game_id }, t("Review this game"));
    b.disabled = Boolean(running);
    b.addEventListener("click", () => run(s.game_id));
    box.append(b);
  }

  document.addEventListener("meridian:state", (e) => renderEnd(e.detail));
  window.MeridianReview = { open: run, settings, get shown() { return shown; }, get running() { return Boolean(running); } };
})();
