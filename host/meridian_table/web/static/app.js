// Meridian Table: the live page. Plain JavaScript, no build step, no network beyond the table.
// Protocol (docs/WEB.md): the server pushes {"type":"state","state":{...}} on connect and
// after every change; the page sends {"type":"command","id":N,"cmd":{...}} and gets
// {"type":"result","id":N,"result":{...}} back.
"use strict";
(() => {
  const SVG = "http://www.w3.org/2000/svg";
  const params = new URLSearchParams(location.search);
  const token = params.get("token");
  const BUTTON_LABELS = {
    confirm: "Confirm", undo: "Undo", pass: "Pass", swap: "Swap", menu: "Menu",
    plus: "+", minus: "−", keep: "Keep",
  };
  const $ = (id) => document.getElementById(id);
  // The page's words in the table's language (i18n.js; English is the source).
  const t = (text, params) => (window.MeridianI18n ? window.MeridianI18n.t(text, params)
    : String(text).replace(/\{(\w+)\}/g, (m, k) => (params && k in params ? String(params[k]) : m)));

  // ---- games: the page knows none; each game's spec (state.spec) says how it looks --
  // A game that needs code of its own on the page ships it in its package's static/
  // folder (PageSpec.script); the page loads it from games/<id>/static/... and the script
  // registers its hooks here (docs/WEB.md, "A game's own page code").
  const gameHooks = new Map();     // game id -> hooks
  const scriptsAsked = new Set();  // game ids whose script was requested
  let hooksVersion = 0;            // bumped when a game registers: redraw with its hooks
  function useHooks(id, hooks) {
    gameHooks.set(id, hooks || {});
    hooksVersion += 1;
    boardKey = "";
    controlsKey = "";
    if (state) render(state);
  }
  window.MeridianGames = {
    // options.stylesheet: the game's own CSS (a URL). The page adds it and takes the
    // hooks once it is in (or has failed, or after 10 s): the page redraws with a game's
    // hooks at once, and on a busy machine it drew a game before its styles arrived
    // (controls its CSS hides showed on the page for a moment: docs/WEB.md).
    register(id, hooks, options) {
      const game = String(id);
      const href = options && options.stylesheet;
      if (!href || document.querySelector(`link[data-game="${CSS.escape(game)}"]`)) {
        useHooks(game, hooks);
        return;
      }
      const css = document.createElement("link");
      css.rel = "stylesheet";
      css.href = href;
      css.dataset.game = game;
      let done = false;
      const once = () => { if (!done) { done = true; useHooks(game, hooks); } };
      css.addEventListener("load", once);
      css.addEventListener("error", once);
      setTimeout(once, 10000);
      document.head.append(css);
    },
    get registered() { return Array.from(gameHooks.keys()); },
  };

  // In replay the replayed game's spec: its board, seats and page code, not the live one's.
  function spec() { return (replay && replay.spec) || (state && state.spec) || null; }
  function pageSpec() { const sp = spec(); return (sp && sp.page) || {}; }
  function hooks() { const sp = spec(); return (sp && gameHooks.get(sp.id)) || {}; }

  function hook(name, ...args) {
    // A game's hook, guarded: a broken game script must not break the table page.
    const fn = hooks()[name];
    if (typeof fn !== "function") return undefined;
    try {
      return fn(...args);
    } catch (err) {
      console.error(`game hook ${name} failed`, err);
      return undefined;
    }
  }

  function loadGameScript(s) {
    const sp = s.spec;
    if (!sp || !sp.id || !sp.page || !sp.page.script || scriptsAsked.has(sp.id)) return;
    scriptsAsked.add(sp.id);
    const el = document.createElement("script");
    el.src = `games/${encodeURIComponent(sp.id)}/${String(sp.page.script).split("/").map(encodeURIComponent).join("/")}`;
    el.async = true;
    el.dataset.game = sp.id;
    el.onerror = () => toast(t("The page code of {game} did not load: the board is drawn plainly", { game: sp.title || sp.id }));
    document.head.append(el);
  }

  function seatLook(seat) {
    const seats = pageSpec().seats || {};
    return seat && Object.prototype.hasOwnProperty.call(seats, seat) ? seats[seat] : null;
  }

  function seatLabel(seat) {
    const look = seatLook(seat);
    return t((look && look.label) || cap(seat || ""));
  }

  // A result's reason in the page's language: a resignation is said from its fields (the
  // logged sentence is in the language the game ended in; a replay may be read in another).
  function resultReason(result) {
    if (!result) return "";
    if (result.resigned) return t("{seat} resigned", { seat: seatLabel(result.resigned) });
    // A game whose engine says why in English (for the log) gives its words too
    // (Empire's reason_words).
    return result.reason_words || result.reason || "";
  }

  let state = null;
  let ws = null;
  let nextId = 1;
  const pending = new Map();       // command id -> {el, resolve, timer}
  const pendingSites = new Set();  // sites toggled and not yet confirmed by a new state
  let backoffMs = 250;
  let reconnectTimer = null;
  let countdownTimer = null;
  let denied = false;
  let boardKey = "";
  const siteEls = new Map();
  let replay = null;               // {gameId, moves, positions, board, ply}
  let renders = 0;
  let toastTimer = null;
  let gamesKey = "";
  const siteXY = new Map();        // site -> [x, y] in units of the point spacing
  let siteOrder = [];              // sites in board order, for Home/End
  let focusSite = null;            // the site that takes the board's one tab stop

  // ---- connection -------------------------------------------------------------------

  function wsUrl() {
    const url = new URL("ws", location.href);
    url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
    url.search = "";
    if (token) url.searchParams.set("token", token);
    return url.href;
  }

  // The page is live, but is the board? Green "Live" only when both are.
  function renderConn(s) {
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    const board = (s.link || {}).state || "";
    const down = board !== "" && board !== "connected" && board !== "none";
    setConn(down ? "noboard" : "live", down ? "Live — no board" : "Live");
  }

  function setConn(status, text) {
    const el = $("conn");
    el.dataset.status = status;
    el.textContent = text;
    document.body.classList.toggle("stale", status !== "live" && status !== "noboard");
  }

  function connect() {
    clearTimeout(reconnectTimer);
    clearInterval(countdownTimer);
    if (denied) return;
    setConn(state ? "reconnecting" : "connecting", state ? "Reconnecting…" : "Connecting…");
    let socket;
    try {
      socket = new WebSocket(wsUrl());
    } catch (err) {
      scheduleReconnect();
      return;
    }
    ws = socket;
    socket.onopen = () => {
      backoffMs = 250;
      setConn("live", "Live");
      gamesKey = "";  // the first state after (re)connecting refreshes the game picker
    };
    socket.onmessage = (event) => {
      let msg;
      try { msg = JSON.parse(event.data); } catch (err) { return; }
      if (msg.type === "state") render(msg.state);
      else if (msg.type === "result") settle(msg.id, msg.result);
      else if (msg.type === "error") toast(msg.error);
    };
    socket.onclose = (event) => {
      if (ws !== socket) return;
      ws = null;
      failPending("connection lost: the command may not have reached the table");
      if (event.code === 4401 || event.code === 4403) {
        denied = true;
        setConn("denied", event.code === 4401
          ? "Access denied: open the URL with ?token= that the table printed"
          : "Access denied: this page's origin is not allowed");
        return;
      }
      scheduleReconnect();
    };
  }

  function scheduleReconnect() {
    // Exponential backoff with jitter, capped at 5 s; a click on the status retries now.
    const delay = Math.round(Math.min(backoffMs, 5000) * (0.8 + 0.4 * Math.random()));
    backoffMs = Math.min(backoffMs * 2, 5000);
    const due = Date.now() + delay;
    const tick = () => {
      const left = Math.max(0, Math.ceil((due - Date.now()) / 1000));
      setConn("reconnecting", `Reconnecting in ${left} s`);
    };
    tick();
    countdownTimer = setInterval(tick, 250);
    reconnectTimer = setTimeout(connect, delay);
  }

  $("conn").addEventListener("click", () => {
    if (!ws && !denied) { backoffMs = 250; connect(); }
  });

  // timeoutMs: how long to wait for the answer (10 s; the review of a game takes longer).
  function request(cmd, el, timeoutMs) {
    const wait = Number(timeoutMs) > 0 ? Number(timeoutMs) : 10000;
    return new Promise((resolve) => {
      if (!ws || ws.readyState !== WebSocket.OPEN) {
        toast("Not connected to the table: try again when the status says Live");
        resolve({ ok: false, error: "not connected" });
        return;
      }
      const id = nextId++;
      if (el) el.classList.add("pending");
      const timer = setTimeout(() => settle(id, { ok: false, error: `the table did not answer in ${Math.round(wait / 1000)} s` }), wait);
      pending.set(id, { el, resolve, timer });
      ws.send(JSON.stringify({ type: "command", id, cmd }));
    });
  }

  function settle(id, result) {
    const entry = pending.get(id);
    if (!entry) return;
    pending.delete(id);
    clearTimeout(entry.timer);
    if (entry.el) entry.el.classList.remove("pending");
    if (result && result.ok === false && result.error) toast(result.error);
    entry.resolve(result || { ok: false });
  }

  function failPending(reason) {
    for (const id of Array.from(pending.keys())) settle(id, { ok: false, error: reason });
    pendingSites.clear();
  }

  function toast(text) {
    const el = $("toast");
    el.dataset.kind = "error";
    el.textContent = text;
    el.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { el.hidden = true; }, 4000);
  }

  // ---- board ------------------------------------------------------------------------

  function svg(tag, attrs, parent) {
    const el = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
    if (parent) parent.appendChild(el);
    return el;
  }

  function spacing(sites) {
    let best = Infinity;
    for (let i = 0; i < sites.length; i++) {
      for (let j = i + 1; j < sites.length; j++) {
        const d = Math.hypot(sites[i].x - sites[j].x, sites[i].y - sites[j].y);
        if (d > 1e-9 && d < best) best = d;
      }
    }
    return Number.isFinite(best) ? best : 1;
  }

  function buildBoard(board) {
    const root = $("board");
    root.replaceChildren();
    siteEls.clear();
    const sites = board.sites || [];
    const d = spacing(sites);
    // Work in units of the point spacing so sizes below are fractions of it.
    const pts = sites.map((s) => ({ id: s.id, x: s.x / d, y: s.y / d }));
    const drawing = pageSpec().drawing || "hex";
    const ctx = { board, sites, pts, unit: d, drawing, svg, seatColour, seatLabel, cap };
    // A game's own drawing may need room beyond the sites (labels along the edges).
    const extra = hook("extent", ctx) || {};
    const more = Array.isArray(extra.points) ? extra.points : [];
    const xs = pts.map((p) => p.x).concat(more.map((p) => p[0]));
    const ys = pts.map((p) => p.y).concat(more.map((p) => p[1]));
    // Just room for a halo (r 0.47 + stroke) at the edge: on a phone every pixel of
    // width goes to the spacing between points.
    const pad = 0.58;
    const top = Math.min(...ys) - pad - (Number(extra.top) || 0);
    const minX = Math.min(...xs) - pad;
    const maxX = Math.max(...xs) + pad;
    const maxY = Math.max(...ys) + pad;
    const w = maxX - minX;
    const h = maxY - top;
    root.setAttribute("viewBox", `${minX} ${top} ${w} ${h}`);
    root.style.aspectRatio = `${w} / ${h}`;
    root.dataset.drawing = drawing;
    Object.assign(ctx, { minX, maxX, top, maxY, siteMinX: Math.min(...pts.map((p) => p.x)),
      siteMaxX: Math.max(...pts.map((p) => p.x)) });
    if (drawing === "hex") {
      // Points on a triangular grid: lines join the points one unit apart.
      const lines = svg("g", { class: "grid" }, root);
      for (let i = 0; i < pts.length; i++) {
        for (let j = i + 1; j < pts.length; j++) {
          const dist = Math.hypot(pts[i].x - pts[j].x, pts[i].y - pts[j].y);
          if (dist < 1.05) {
            svg("line", { class: "grid-line", x1: pts[i].x, y1: pts[i].y, x2: pts[j].x, y2: pts[j].y }, lines);
          }
        }
      }
    }
    // The game's own layer behind the sites (its regions, its labels), if it has one.
    const under = svg("g", { class: "game-under" }, root);
    hook("drawUnder", under, ctx);
    siteXY.clear();
    siteOrder = pts.map((p) => p.id);
    if (!siteOrder.includes(focusSite)) focusSite = siteOrder[0] || null;
    pts.forEach((p, index) => {
      siteXY.set(p.id, [p.x, p.y]);
      const g = svg("g", {
        class: "site", "data-site": p.id, transform: `translate(${p.x} ${p.y})`,
        tabindex: p.id === focusSite ? "0" : "-1", role: "button", "aria-label": p.id,
      }, root);
      svg("title", {}, g).textContent = p.id;
      svg("circle", { class: "hit", r: 0.5 }, g);
      if (drawing === "grid") svg("rect", { class: "dot", x: -0.09, y: -0.09, width: 0.18, height: 0.18, rx: 0.03 }, g);
      else svg("circle", { class: "dot", r: 0.08 }, g);
      hook("decorateSite", g, sites[index], ctx);
      svg("circle", { class: "halo", r: 0.47 }, g);
      svg("circle", { class: "legal", r: 0.09 }, g);
      svg("circle", { class: "ghost", r: 0.38 }, g);
      svg("circle", { class: "stone", r: 0.4 }, g);
      svg("text", { class: "label", y: 0.02 }, g);
      svg("circle", { class: "last", r: 0.12 }, g);
      svg("path", { class: "mark-remove", d: "M-.27-.27L.27.27M.27-.27L-.27.27" }, g);
      svg("circle", { class: "mark-putback ring", r: 0.36 }, g);
      svg("path", { class: "mark-putback", d: "M0-.2V.2M-.2 0H.2" }, g);
      // The review's marks: a dashed ring for the move played, a diamond for the better one.
      svg("circle", { class: "mark-played", r: 0.46 }, g);
      svg("rect", { class: "mark-best", x: -0.33, y: -0.33, width: 0.66, height: 0.66, transform: "rotate(45)" }, g);
      svg("circle", { class: "pending-ring", r: 0.44 }, g);
      svg("circle", { class: "focus-ring", r: 0.52 }, g);
      g.addEventListener("click", () => onSiteClick(p.id, g));
      g.addEventListener("keydown", (e) => onSiteKey(e, p.id, g));
      g.addEventListener("focus", () => setFocusSite(p.id, false));
      siteEls.set(p.id, g);
    });
  }

  // ---- keyboard on the board: one tab stop, arrows move, Enter/Space toggle ----------

  const ARROWS = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

  function setFocusSite(id, move) {
    if (focusSite && focusSite !== id && siteEls.get(focusSite)) siteEls.get(focusSite).setAttribute("tabindex", "-1");
    focusSite = id;
    const g = siteEls.get(id);
    if (!g) return;
    g.setAttribute("tabindex", "0");
    if (move) g.focus();
  }

  function neighbourToward(id, [dx, dy]) {
    // The nearest point within 60 degrees of the arrow's direction (on a hex drawing's
    // triangular grid Up/Down go to the nearer of the two diagonal neighbours).
    const [x0, y0] = siteXY.get(id) || [0, 0];
    let best = null;
    let bestScore = Infinity;
    for (const [other, [x, y]] of siteXY) {
      if (other === id) continue;
      const vx = x - x0;
      const vy = y - y0;
      const dist = Math.hypot(vx, vy);
      const cos = (vx * dx + vy * dy) / dist;
      if (cos < 0.49) continue;
      const score = dist * (1 + 2 * (1 - cos)) + 1e-6 * (x + 2 * y);  // ties: up-left first
      if (score < bestScore) { bestScore = score; best = other; }
    }
    return best;
  }

  function onSiteKey(e, id, g) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    let target = null;
    if (ARROWS[e.key]) target = neighbourToward(id, ARROWS[e.key]);
    else if (e.key === "Home") target = siteOrder[0];
    else if (e.key === "End") target = siteOrder[siteOrder.length - 1];
    else if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      onSiteClick(id, g);
      return;
    } else return;
    e.preventDefault();
    e.stopPropagation();
    if (target) setFocusSite(target, true);
  }

  const REPLAY_HINT_EN = "Replay of a past position: press Back to live (or Esc) to play";

  function onSiteClick(site, g) {
    if (replay) { toast(t("Replay of a past position: press Back to live (or Esc) to play")); return; }  // say why nothing happens
    if (!state || !state.link || !state.link.virtual) return;
    setFocusSite(site, false);
    // Optimistic: the point shows a spinner at once, cleared by the next state or the answer.
    pendingSites.add(site);
    g.classList.add("pending");
    request({ cmd: "toggle", site }).then((result) => {
      if (!result.ok) { pendingSites.delete(site); g.classList.remove("pending"); }
    });
  }

  function hashColour(text) {
    let h = 0;
    for (const ch of String(text)) h = (h * 31 + ch.charCodeAt(0)) % 360;
    return `hsl(${h} 65% 60%)`;
  }

  function ledPeak(colour) {
    const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour || "");
    return m ? Math.max(...m.slice(1).map((h) => parseInt(h, 16))) : 255;
  }

  function isHint(led) {
    // The assist's "legal point" light: solid and dimmed (1/8 brightness on the board).
    return Boolean(led) && led.effect === "S" && ledPeak(led.colour) <= 0x40;
  }

  function ledLook(colour) {
    // An LED dimmed to 1/8 is a dark colour on screen: draw its hue at full strength and
    // show the dimming as transparency, so a dim hint still reads as the mover's colour.
    const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour || "");
    if (!m) return [colour, 1];
    const rgb = m.slice(1).map((h) => parseInt(h, 16));
    const peak = Math.max(...rgb);
    if (peak === 0) return ["#000000", 0];
    const full = rgb.map((c) => Math.round((c * 255) / peak));
    return [`rgb(${full.join(" ")})`, Math.min(1, 0.35 + (0.65 * peak) / 255)];
  }

  function pieceSeat(piece, site) {
    // Whose piece it is: the site's own ``seat`` when the state gives it, else the seat
    // whose piece letter it is ("L"), else the seat whose letter starts it ("O3": an
    // Orange tower of height 3), longest letter first.
    const seats = pageSpec().seats || {};
    if (site && site.seat && seats[site.seat]) return site.seat;
    const text = String(piece);
    let best = null;
    for (const [seat, look] of Object.entries(seats)) {
      const letter = look && look.piece ? String(look.piece) : "";
      if (!letter) continue;
      if (text === letter) return seat;
      if (text.startsWith(letter) && (!best || letter.length > String(seats[best].piece).length)) best = seat;
    }
    return best;
  }

  function pieceLook(piece, site) {
    // [seat, fill, text colour, label]: the label only when the piece says more than its
    // seat's letter (a tower's height), or the state gives one.
    const seat = pieceSeat(piece, site);
    const look = seatLook(seat);
    const fill = site.colour || (look && look.colour) || hashColour(String(piece).replace(/[0-9]+/g, ""));
    const ink = (look && look.text) || "#ffffff";
    const plain = look && String(piece) === String(look.piece);
    const label = site.label !== undefined && site.label !== null ? String(site.label) : plain ? "" : String(piece);
    return [seat, fill, ink, label];
  }

  function drawBoard(view) {
    const board = view.board;
    const sp = spec();
    const key = JSON.stringify([sp && sp.id, pageSpec().drawing, hooksVersion,
      (board.sites || []).map((s) => [s.id, s.x, s.y, s.group, s.major]),
      board.groups || null, board.axis_labels || null, board.north_label || null]);
    if (key !== boardKey) { buildBoard(view.board); boardKey = key; }
    const legal = new Set(view.legal || []);
    const diff = view.diff || {};
    const remove = new Set(diff.remove || []);
    const putBack = new Set(diff.put_back || []);
    const leds = view.leds || {};
    const played = new Set((view.review && view.review.played) || []);
    const better = new Set((view.review && view.review.best) || []);
    const root = $("board");
    root.classList.toggle("clickable", Boolean(view.clickable));
    // Legal points are a small dot in the mover's colour (the hint LED's hue when the
    // state has one), so the strong halos stay for what needs doing.
    let mover = view.mover ? seatColour(view.mover) : "";
    const hintSite = (view.legal || []).find((id) => isHint(leds[id]));
    if (hintSite) mover = ledLook(leds[hintSite].colour)[0];
    // The legend's legal dot takes the mover's colour too.
    root.parentElement.style.setProperty("--mover", mover || "var(--accent)");
    root.setAttribute("aria-label", view.clickable
      ? t("Board: arrow keys move between points, Enter or Space toggles the point's switch")
      : t("Board: arrow keys move between points"));
    for (const site of view.board.sites || []) {
      const g = siteEls.get(site.id);
      if (!g) continue;
      const piece = view.pieces ? (view.pieces[site.id] ?? null) : site.piece;
      const cls = g.classList;
      cls.toggle("has-piece", Boolean(piece));
      g.dataset.piece = piece || "";
      const [owner, fill, ink, label] = piece ? pieceLook(piece, site) : [null, "", "", ""];
      g.dataset.seat = owner || "";
      cls.toggle("has-label", Boolean(label));
      const stone = g.querySelector(".stone");
      if (stone.style.fill !== fill) stone.style.fill = fill;
      const text = g.querySelector(".label");
      if (text.textContent !== label) text.textContent = label;
      text.style.fill = ink;
      const sensed = view.pieces ? null : site.sensed;
      cls.toggle("sensed-only", sensed === true && !piece);
      cls.toggle("unsensed", sensed === false && Boolean(piece));
      g.dataset.sensed = sensed === null || sensed === undefined ? "" : String(sensed);
      cls.toggle("is-legal", legal.has(site.id));
      cls.toggle("is-last", view.last === site.id);
      cls.toggle("diff-remove", remove.has(site.id));
      cls.toggle("diff-putback", putBack.has(site.id));
      cls.toggle("diff-next", diff.next === site.id);
      g.dataset.diff = remove.has(site.id) ? "remove" : putBack.has(site.id) ? "put_back" : "";
      cls.toggle("review-played", played.has(site.id));
      cls.toggle("review-best", better.has(site.id));
      const halo = g.querySelector(".halo");
      // Once the game is over the final position is shown plainly: the board's
      // celebration (every LED pulsing, islands lit) is not drawn as a ring over every
      // point; what still asks for a hand (fast blink: lift this) is.
      const led = view.ended && !(leds[site.id] && leds[site.id].effect === "F") ? null : leds[site.id];
      const effect = led && led.effect && led.effect !== "O" ? led.effect : "";
      const hint = isHint(led);
      // A hint on a legal point is the legal dot; elsewhere a thin ring. Only real
      // effects (remove, put back, last move, mistakes, the winner) get the full halo.
      const wanted = !effect || (hint && legal.has(site.id)) ? "halo"
        : hint ? "halo lit hint" : `halo lit fx-${effect}`;
      if (halo.getAttribute("class") !== wanted || halo.dataset.colour !== (effect ? led.colour : "")) {
        halo.setAttribute("class", wanted);
        halo.dataset.colour = effect ? led.colour : "";
        const [stroke, level] = effect ? ledLook(led.colour) : ["", 1];
        halo.style.stroke = stroke;
        halo.style.strokeOpacity = String(level);
      }
      g.dataset.led = effect;
      cls.toggle("pending", pendingSites.has(site.id));
      g.setAttribute("aria-label", siteLabel(site.id, piece, site, owner, label, {
        legal: legal.has(site.id), last: view.last === site.id, remove: remove.has(site.id),
        putBack: putBack.has(site.id), next: diff.next === site.id, sensed,
        executing: Boolean(view.executing),
        played: played.has(site.id), best: better.has(site.id),
      }));
      // A point is a button only where Enter/click toggles it (the virtual board, live).
      g.setAttribute("role", view.clickable ? "button" : "img");
    }
  }

  function pieceWords(piece, owner, label) {
    // "light stone", "orange tower 3": the seat's name and the game's word for a piece.
    const word = t(pageSpec().piece_word || "piece");
    if (!owner) return `${word} ${label || piece}`;
    const words = t("{seat} {piece}", { seat: seatLabel(owner).toLowerCase(), piece: word });
    return `${words}${label ? ` ${label}` : ""}`;
  }

  function siteLabel(id, piece, site, owner, label, f) {
    // A game may name its sites in words (Empire: "moon Aster", "sector 1, quadrant 3").
    const words = [(site && site.name) || id, piece ? pieceWords(piece, owner, label) : t("empty")];
    if (f.legal) words.push(t("legal"));
    if (f.last) words.push(t("last move"));
    if (f.played) words.push(t("the move played"));
    if (f.best) words.push(t("the better move"));
    if (f.remove) words.push(f.next ? t("remove this piece now") : t("remove this piece"));
    // An automaton's move being carried out puts a new piece here, not one back.
    if (f.putBack && f.executing) words.push(f.next ? t("the computer's move: place a piece here now") : t("the computer's move: place a piece here"));
    else if (f.putBack) words.push(f.next ? t("put a piece back here now") : t("put a piece back here"));
    if (f.sensed === true && !piece && !f.remove) words.push(t("a piece is sensed here"));
    if (f.sensed === false && piece && !f.putBack) words.push(t("the switch does not sense it"));
    return words.join(", ");
  }

  // ---- the rest of the page ---------------------------------------------------------

  function cap(text) { return text ? text[0].toUpperCase() + text.slice(1) : ""; }

  function seatColour(seat) {
    // The seat's colour from the game's spec; a session without a spec may name its
    // seats by CSS colours ("orange").
    const look = seatLook(seat);
    if (look && look.colour) return look.colour;
    return seat && CSS.supports("color", seat) ? seat : "";
  }

  function seatKind(s, seat) {
    // "person", or an automaton's description ("random", "bot:3"); sessions that do not
    // say are all people.
    const kinds = s && s.seats_kind && typeof s.seats_kind === "object" ? s.seats_kind : {};
    return typeof kinds[seat] === "string" && kinds[seat] ? kinds[seat] : "person";
  }

  // The automata a seat menu offers, from a game's spec (state.spec, or a catalog entry):
  // [{value, label, help}]. An automaton with levels (spec.levels: a game's bot) offers
  // one entry per level, "Computer — level 4 (strong)", with what the level does.
  function automatonChoices(sp) {
    const out = [];
    const levels = sp && sp.levels && typeof sp.levels === "object" ? sp.levels : {};
    for (const kind of sp && Array.isArray(sp.automata) ? sp.automata : []) {
      const offered = Array.isArray(levels[kind]) ? levels[kind] : [];
      if (!offered.length) { out.push({ value: kind, kind, label: t("the {name} automaton", { name: kind }), help: "" }); continue; }
      for (const l of offered) {
        out.push({ value: l.automaton, kind, level: l.level, default: Boolean(l.default),
          label: t("Computer — level {n} ({name})", { n: l.level, name: t(l.name) }), help: l.help ? t(l.help) : "" });
      }
    }
    return out;
  }

  // The menu entry for a seat's automaton: "bot" alone is its default level.
  function chosenAutomaton(choices, kind) {
    if (choices.some((c) => c.value === kind)) return kind;
    const plain = choices.find((c) => c.kind === kind && c.default);
    return plain ? plain.value : kind;
  }

  // An automaton's description in words: "bot:5" -> "Computer — level 5 (strongest)".
  function automatonName(s, kind) {
    if (!kind || kind === "person") return "";
    const choices = automatonChoices(s && s.spec);
    const c = choices.find((x) => x.value === chosenAutomaton(choices, kind));
    if (c) return c.label;
    const [name, level] = String(kind).split(":");
    const same = choices.find((x) => x.kind === name && String(x.level) === level);
    return same ? same.label : kind;
  }

  function automatonOf(s) {
    const a = s && s.automaton;
    return a && typeof a === "object" && a.seat ? a : null;
  }

  function renderTurn(s) {
    const turn = $("turn");
    let text;
    let who = "";
    let colour = s.to_move || "";
    const auto = automatonOf(s);
    if (replay) {
      // Replay looks like replay: the header names it, not the live game's turn.
      text = t("Replay of game #{id}", { id: replay.gameId });
      who = t("after move {n} of {total}", { n: replay.ply, total: replay.moves.length });
      colour = "";
    } else if (s.phase === "ended" || s.result) {
      const winner = s.result && s.result.winner;
      text = winner ? t("{seat} wins", { seat: seatLabel(winner) }) : t("Game over");
      colour = winner || "";
      who = winner && s.seats ? s.seats[winner] || "" : resultReason(s.result);
    } else if (s.phase === "paused") {
      text = "Paused";
    } else if (s.phase === "resync") {
      text = "Fix the board";
      who = s.to_move ? `then ${seatLabel(s.to_move)} to move` : "";
    } else if (s.phase === "adjudicate" && s.count) {
      // The count's panel says the outcome and how to agree.
      text = t("Count offered");
      colour = "";
    } else if (auto && auto.status === "executing") {
      // The move itself is said once, in the automaton's box (issue 26: it was said three
      // times): the header names who chose it.
      text = `Play ${seatLabel(auto.seat)}'s move`;
      colour = auto.seat;
      who = `${auto.player || (s.seats || {})[auto.seat] || ""} (${automatonName(s, auto.automaton || seatKind(s, auto.seat))})`.trim();
    } else if (auto) {
      text = `${seatLabel(auto.seat)} is thinking…`;
      colour = auto.seat;
      who = `${auto.player || (s.seats || {})[auto.seat] || ""} (${automatonName(s, auto.automaton || seatKind(s, auto.seat))})`.trim();
    } else {
      text = s.to_move ? `${seatLabel(s.to_move)} to move` : cap(s.phase || "");
      who = s.seats && s.to_move ? s.seats[s.to_move] || "" : "";
      if (s.to_move && seatKind(s, s.to_move) !== "person") who = `${who} (${automatonName(s, seatKind(s, s.to_move))})`.trim();
    }
    $("turn-text").textContent = text;
    $("turn-player").textContent = who;
    turn.dataset.colour = colour || "";
    turn.dataset.seatColour = seatColour(colour) ? "yes" : "";
    turn.querySelector("circle").style.fill = seatColour(colour);
    turn.dataset.phase = replay ? "replay" : s.phase || "";
    // The window's title is no page node: said through the catalogue here.
    const said = window.MeridianI18n ? window.MeridianI18n.translate(text) : text;
    document.title = `${said} · ${t("Meridian Table")}`;
  }

  // An automaton seat at work (state.automaton): "thinking…" with the time it has taken,
  // then, while the people carry its move out, the move in words. The elapsed time
  // counts on between states from when the state arrived.
  let autoTimer = null;
  let autoSince = 0;
  let autoKey = "";
  function renderAutomaton(s) {
    const box = $("automaton");
    const auto = automatonOf(s);
    if (!auto || s.phase === "ended" || s.result) {
      box.hidden = true;
      box.dataset.status = "";
      clearInterval(autoTimer);
      autoTimer = null;
      autoKey = "";
      return;
    }
    const key = JSON.stringify([auto.seat, auto.status, auto.action]);
    if (key !== autoKey) { autoKey = key; autoSince = performance.now() - 1000 * (Number(auto.elapsed_s) || 0); }
    else autoSince = Math.min(autoSince, performance.now() - 1000 * (Number(auto.elapsed_s) || 0));
    box.hidden = false;
    box.dataset.status = auto.status || "";
    box.dataset.seat = auto.seat;
    box.style.setProperty("--seat", seatColour(auto.seat) || "var(--accent)");
    const name = auto.player || (s.seats || {})[auto.seat];
    const who = `${seatLabel(auto.seat)}${name ? ` (${name})` : ""}, ${automatonName(s, auto.automaton || seatKind(s, auto.seat))}`;
    const tick = () => {
      const secs = Math.max(0, (performance.now() - autoSince) / 1000);
      // With the time it may take (state.automaton.budget_s), the progress in words.
      const budget = Number(auto.budget_s) || 0;
      const spent = secs.toFixed(secs < 10 ? 1 : 0);
      $("automaton-time").textContent = budget
        ? t("{spent} s of {budget} s", { spent, budget: budget.toFixed(budget < 10 ? 1 : 0) })
        : `${spent} s`;
    };
    if (auto.status === "executing") {
      $("automaton-title").textContent = t("{who} has chosen. Carry it out on the board:", { who });
      $("automaton-words").textContent = auto.words || auto.action || "";
      $("automaton-words").hidden = false;
      $("automaton-time").hidden = true;
      // The step to do now (the table's message says the move again: it is not shown).
      const diff = s.diff || {};
      const next = diff.next;
      const why = next && diff.reasons ? diff.reasons[next] : "";
      $("automaton-step").textContent = next
        ? t("Now {site}: {what}", { site: next, what: why || t("see the lit square") })
        : t("Then press Confirm");
      $("automaton-step").hidden = false;
      clearInterval(autoTimer);
      autoTimer = null;
    } else {
      $("automaton-title").textContent = t("{who} is thinking…", { who });
      $("automaton-words").hidden = true;
      $("automaton-step").hidden = true;
      $("automaton-time").hidden = false;
      tick();
      if (!autoTimer) autoTimer = setInterval(tick, 250);
    }
  }

  // What the banner says for the link's state (docs/TABLE.md, state.link): each case
  // says what is true and what to do. null: no banner.
  function bannerFor(s) {
    const link = s.link || {};
    const state = link.state || "";
    const detail = link.detail || "";
    if (state === "closed") {
      return {
        kind: "closed",
        parts: ["Table closed — the game is saved: it can be continued when the table starts again"],
      };
    }
    if (state === "version-mismatch") {
      return {
        kind: "mismatch",
        parts: [`Version mismatch — ${detail || "the board and the host speak different protocol versions: update the older one"}`],
      };
    }
    // "none" is a table without a board (nothing to wait for).
    const down = state !== "" && state !== "connected" && state !== "none";
    if (!down && s.phase !== "paused") return null;
    // A session that does not say whether it ever connected is taken as unplugged.
    if (down && link.ever_connected === false) {
      // What the link found (a port that never answers names itself and the advice).
      const parts = ["Looking for the board…"];
      if (detail) parts.push(" — ", ...withCode(detail));
      return { kind: "searching", parts, title: detail };
    }
    return {
      kind: "unplugged",
      parts: ["Board disconnected — plug it back in; the game is paused"],
      title: detail,
    };
  }

  // Text with `backticked` commands as <code> elements.
  function withCode(text) {
    return String(text).split("`").map((piece, i) => (i % 2 ? code(piece) : piece));
  }

  function code(text) {
    const el = document.createElement("code");
    el.textContent = text;
    return el;
  }

  function renderBanner(s) {
    const banner = $("banner");
    const shown = bannerFor(s);
    if (shown === null) {
      banner.hidden = true;
      delete banner.dataset.kind;
      return;
    }
    banner.replaceChildren(...shown.parts);
    banner.dataset.kind = shown.kind;
    banner.title = shown.title || "";
    banner.hidden = false;
  }

  let scoresKey = "";
  function renderScores(s) {
    const box = $("scores");
    const automata = (spec() && Array.isArray(spec().automata)) ? spec().automata : [];
    const key = JSON.stringify([s.scores, s.seats, s.seats_kind, s.to_move, s.phase, s.result,
      automata, spec() && spec().levels, pageSpec().seats, hooksVersion]);
    if (key === scoresKey) return;  // keep an open seat menu open across link updates
    scoresKey = key;
    const focused = document.activeElement && box.contains(document.activeElement)
      ? document.activeElement.dataset.seat : null;
    box.replaceChildren();
    const scores = s.scores || {};
    const seats = s.seats || {};
    const colours = Object.keys(scores).length ? Object.keys(scores) : Object.keys(seats);
    for (const colour of colours) {
      const score = scores[colour] || {};
      const div = document.createElement("div");
      div.className = "score";
      div.dataset.colour = colour;
      div.style.borderLeftColor = seatColour(colour);
      div.classList.toggle("to-move", s.to_move === colour && s.phase !== "ended");
      const head = document.createElement("div");
      head.className = "score-head";
      const name = document.createElement("div");
      name.innerHTML = "<div class='score-name'></div><div class='score-seat'></div>";
      name.firstChild.textContent = seats[colour] || seatLabel(colour);
      const kind = seatKind(s, colour);
      name.lastChild.textContent = kind === "person" ? seatLabel(colour) : `${seatLabel(colour)} · ${automatonName(s, kind)}`;
      div.dataset.kind = kind;
      const total = document.createElement("div");
      total.className = "score-total";
      total.textContent = score.total ?? "–";
      head.append(name, total);
      div.append(head);
      // Who plays the seat: a person or one of the game's automata (the seat command).
      if (automata.length && s.seats_kind && !s.result) {
        const label = document.createElement("label");
        label.className = "seat-kind";
        label.append(`${seatLabel(colour)} is played by `);
        const select = document.createElement("select");
        select.dataset.seat = colour;
        const choices = automatonChoices(spec());
        for (const c of [{ value: "person", label: "a person" }, ...choices]) {
          const opt = document.createElement("option");
          opt.value = c.value;
          opt.textContent = c.label;
          select.append(opt);
        }
        const current = chosenAutomaton(choices, seatKind(s, colour));
        if (![...select.options].some((o) => o.value === current)) {
          const opt = document.createElement("option");
          opt.value = current;
          opt.textContent = current;
          select.append(opt);
        }
        select.value = current;
        // What the chosen level does, in words, beside the menu.
        const help = document.createElement("span");
        help.className = "seat-help";
        help.id = `seat-help-${colour}`;
        const describe = () => {
          const c = choices.find((x) => x.value === select.value);
          help.textContent = c && c.help ? c.help : "";
          help.hidden = !help.textContent;
        };
        describe();
        select.setAttribute("aria-describedby", help.id);
        select.addEventListener("change", () => {
          describe();
          const value = select.value;
          request({ cmd: "seat", seat: colour, automaton: value === "person" ? null : value }, select)
            .then((answer) => { if (!answer.ok) { scoresKey = ""; if (state) renderScores(state); } });
        });
        label.append(select);
        div.append(label, help);
        if (focused === colour) setTimeout(() => select.focus(), 0);
      }
      const list = document.createElement("ul");
      list.className = "breakdown";
      for (const item of score.breakdown || []) {
        const li = document.createElement("li");
        const label = document.createElement("span");
        label.textContent = item.label;
        const value = document.createElement("span");
        value.textContent = item.value;
        li.append(label, value);
        list.append(li);
      }
      div.append(list);
      box.append(div);
    }
    const result = $("result");
    if (s.result) {
      const winner = s.result.winner;
      const seat = winner ? `${seatLabel(winner)} (${(s.seats || {})[winner] || ""})` : "";
      const reason = resultReason(s.result);
      result.textContent = winner
        ? (reason ? t("{seat} wins: {reason}", { seat, reason }) : t("{seat} wins", { seat }))
        : (reason ? t("Game over: {reason}", { reason }) : t("Game over"));
      result.hidden = false;
    } else {
      result.hidden = true;
    }
  }

  function moveLabel(m) {
    return m.words || m.notation || m.action || "?";
  }

  // The move list changes by its end (a move made, a move taken back): only the moves
  // that changed are drawn again, and the list is scrolled once the frame is laid out.
  // Rebuilding a long game's list and measuring it on every state was most of the
  // page's work in an Empire game, where each ledger step is a move.
  let movesDrawn = [];  // one key a drawn move: what its button shows
  let movesScroll = false;

  function moveButton(m, i) {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.ply = String(i + 1);
    b.innerHTML = "<span class='mv-n'></span><span class='mv-text'></span>";
    b.firstChild.textContent = `${m.n ?? i + 1}.`;
    b.lastChild.textContent = moveLabel(m);
    if (m.removed && m.removed.length) {
      const r = document.createElement("span");
      r.className = "mv-removed";
      r.textContent = `×${m.removed.join(" ")}`;
      b.append(r);
    }
    b.title = t("{move}: show the board after this move", { move: `${seatLabel(m.player || "")} ${moveLabel(m)}` });
    b.addEventListener("click", () => startReplay(replay ? replay.gameId : state.game_id, i + 1));
    li.append(b);
    return li;
  }

  function renderMoves(moves, current) {
    const list = $("moves");
    const keys = moves.map((m, i) => JSON.stringify([m.n ?? i + 1, moveLabel(m), m.removed || [],
      seatLabel(m.player || ""), m.player || ""]));
    if (list.childElementCount !== movesDrawn.length) movesDrawn = [];  // drawn by someone else
    let same = 0;
    while (same < keys.length && same < movesDrawn.length && keys[same] === movesDrawn[same]) same += 1;
    while (list.childElementCount > same) list.lastElementChild.remove();
    const added = document.createDocumentFragment();
    for (let i = same; i < moves.length; i += 1) added.append(moveButton(moves[i], i));
    list.append(added);
    movesDrawn = keys;
    const was = list.querySelector("[aria-current='true']");
    const now = current ? list.children[current - 1]?.firstElementChild : null;
    if (was !== now) {
      if (was) was.removeAttribute("aria-current");
      if (now) now.setAttribute("aria-current", "true");
    }
    if (!movesScroll) {
      movesScroll = true;
      requestAnimationFrame(scrollMoves);
    }
  }

  // Scroll the list itself, never the page: scrollIntoView would pull a phone's window
  // down to the move list on every move, away from the board.
  function scrollMoves() {
    movesScroll = false;
    const list = $("moves");
    const current = list.querySelector("[aria-current='true']");
    const target = current ? current.parentElement : list.lastElementChild;
    if (target) {
      const top = target.offsetTop;  // the list is positioned: offsets are within it
      if (top < list.scrollTop) list.scrollTop = top;
      else if (top + target.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTop = top + target.offsetHeight - list.clientHeight;
      }
    }
  }

  // The link's counters, grouped. Keys not listed here land in "traffic" so nothing
  // the link reports is hidden; the firmware's own STATS are parsed into rows.
  const LINK_TRAFFIC = ["frames_in", "frames_out", "bytes_in", "bytes_out", "last_rtt_ms",
    "last_plan_rtt_ms", "plans_sent", "plans_shown", "events_delivered", "snapshots",
    "events_folded", "held_back", "last_seq", "board_pending"];
  const LINK_ERRORS = ["crc_errors", "garbage", "resends", "duplicates", "gaps", "faults",
    "naks", "callback_errors"];
  const LINK_CONNECTION = ["reconnects"];
  const LINK_SKIP = new Set(["state", "port", "board"]);  // shown once, in Connection
  const BOARD_ERRORS = new Set(["bad_crc", "garbage", "too_long", "bad_format", "unknown",
    "bad_args", "exc", "overflow", "ghost", "resent"]);
  const STAT_LABELS = {
    crc_errors: "CRC errors", naks: "NAKs", last_rtt_ms: "last round trip",
    last_plan_rtt_ms: "last plan round trip", bad_crc: "bad CRC", exc: "exceptions",
    rx: "lines received", resent: "resent", ghost: "ghost keys",
  };
  let linkKey = "";

  function statLabel(key) { return t(STAT_LABELS[key] || key.replaceAll("_", " ")); }

  function statValue(key, v) {
    if (typeof v === "number" && /_ms$/.test(key)) return `${v.toFixed(v < 10 ? 2 : 0)} ms`;
    if (v === true) return t("yes");
    if (v === false) return t("no");
    return v === null || v === undefined ? "–" : String(v);
  }

  function linkTable(title, rows, cls) {
    const table = document.createElement("table");
    table.className = `link-table ${cls}`;
    const caption = document.createElement("caption");
    caption.textContent = title;
    table.append(caption);
    const body = document.createElement("tbody");
    for (const [key, label, value, bad] of rows) {
      const tr = document.createElement("tr");
      tr.dataset.key = key;
      if (bad) tr.classList.add("bad");
      const th = document.createElement("th");
      th.scope = "row";
      th.textContent = label;
      const td = document.createElement("td");
      td.textContent = value;
      tr.append(th, td);
      body.append(tr);
    }
    table.append(body);
    return table;
  }

  function isNonZero(v) { return Number(v) > 0; }

  function renderLink(s) {
    const link = s.link || {};
    const stats = link.stats || {};
    const fw = link.firmware || null;
    const faults = Array.isArray(link.faults) ? link.faults : [];
    const key = JSON.stringify([link.state, link.port, link.virtual, fw, stats, faults]);
    if (key === linkKey) return;
    linkKey = key;
    const connection = [
      ["state", t("state"), link.state ? t(link.state) : "–", link.state && link.state !== "connected"],
      ["port", t("port"), link.port || "–", false],
      ["virtual", t("board"), link.virtual ? t("virtual (simulated switches)") : t("real"), false],
      ["firmware", t("firmware"), fw && fw.version ? fw.version : "–", false],
      ["board_id", t("board id"), fw && fw.board ? fw.board : "–", false],
    ];
    for (const k of LINK_CONNECTION) {
      if (k in stats) connection.push([k, statLabel(k), statValue(k, stats[k]), false]);
    }
    const traffic = [];
    const errors = [];
    for (const k of LINK_ERRORS) {
      if (k in stats) errors.push([k, statLabel(k), statValue(k, stats[k]), isNonZero(stats[k])]);
    }
    for (const k of LINK_TRAFFIC) {
      if (k in stats) traffic.push([k, statLabel(k), statValue(k, stats[k]), false]);
    }
    for (const [k, v] of Object.entries(stats)) {
      if (LINK_SKIP.has(k) || LINK_ERRORS.includes(k) || LINK_TRAFFIC.includes(k) || LINK_CONNECTION.includes(k)) continue;
      traffic.push([k, statLabel(k), typeof v === "object" && v !== null ? JSON.stringify(v) : statValue(k, v), false]);
    }
    const boardStats = stats.board && typeof stats.board === "object" ? stats.board : {};
    const firmware = Object.entries(boardStats).map(([k, v]) => {
      const bad = BOARD_ERRORS.has(k) && isNonZero(v);
      return [`board.${k}`, statLabel(k), statValue(k, v), bad];
    });
    const body = $("link-body");
    body.replaceChildren(
      linkTable("Connection", connection, "link-connection"),
      linkTable("Traffic", traffic, "link-traffic"),
      linkTable("Errors", errors, "link-errors"),
    );
    if (firmware.length) body.append(linkTable("The board's own counters", firmware, "link-firmware"));
    // The one line that is always visible.
    const errorCount = errors.filter((r) => r[3]).length + firmware.filter((r) => r[3]).length;
    const parts = [
      link.state === "connected" ? t("Connected") : t(cap(link.state || "no board")),
      link.virtual ? t("virtual board") : t("real board"),
    ];
    if (fw && fw.version) parts.push(t("firmware {version}", { version: fw.version }));
    if (typeof stats.last_rtt_ms === "number") parts.push(t("{ms} round trip", { ms: statValue("last_rtt_ms", stats.last_rtt_ms) }));
    const summary = $("link-summary");
    summary.dataset.state = link.state === "connected" ? "ok" : "down";
    $("link-summary-text").textContent = parts.join(" · ");
    const errs = $("link-summary-errors");
    errs.hidden = errorCount === 0;
    errs.textContent = errorCount === 1 ? t("1 error counter") : t("{n} error counters", { n: errorCount });
    summary.title = link.port ? t("port {port}", { port: link.port }) : "";
    renderFaults(faults);
  }

  // The board's faults (state.link.faults): always in view, not folded away, because
  // each asks someone to do something (check a diode, rewrite the config).
  function renderFaults(faults) {
    const list = $("link-faults");
    list.hidden = faults.length === 0;
    list.replaceChildren(...faults.map((f) => {
      const li = document.createElement("li");
      li.className = "link-fault";
      li.dataset.code = f.code;
      const code = document.createElement("strong");
      code.textContent = f.code;
      const text = document.createElement("span");
      text.textContent = ` ${f.text}`;
      li.append(code, text);
      if (f.count > 1) {
        const times = document.createElement("span");
        times.className = "link-fault-count";
        times.textContent = ` (×${f.count})`;
        li.append(times);
      }
      return li;
    }));
  }

  let controlsKey = "";
  function controlLabel(name) {
    // The game names its own buttons (hook controlLabel); the shared ones are here.
    const own = hook("controlLabel", name);
    return typeof own === "string" && own ? own : BUTTON_LABELS[name] || cap(name);
  }

  function renderControls(s) {
    // Only the controls this game reads (control_state.used); the ones that would do
    // nothing in this phase are greyed with the reason. aria-disabled, not disabled:
    // the button stays focusable and hoverable, so its reason can be read.
    let live = s.control_state || {};
    // The count (issue 26): Menu is "Count the score" when a count can be offered; while
    // one is offered, the count's own panel holds the one way each player agrees (the
    // page's Confirm would agree for whoever has not yet) and "Play on".
    const counting = !replay && s.phase === "adjudicate" && Boolean(s.count);
    if (counting) {
      live = { ...live, confirm: { ...(live.confirm || {}), enabled: false,
        why: t("Each player agrees with their own button under the count") } };
    }
    const shown = (s.controls || []).filter((name) => (!live[name] || live[name].used !== false)
      && !(counting && name === "menu"));
    const countable = !replay && !counting && Boolean(s.count) && Boolean(live.menu && live.menu.enabled);
    const labelOf = (name) => (name === "menu" && countable ? t("Count the score") : controlLabel(name));
    // In replay every game button waits: it would act on the live game, not on this past
    // position. Greyed with the reason, like any button that cannot act now.
    const states = replay
      ? Object.fromEntries(shown.map((name) => [name, { enabled: false, why: t(REPLAY_HINT_EN) }]))
      : live;
    const key = JSON.stringify([Boolean(replay), countable, shown.map((name) => [name, states[name] || null])]);
    if (key === controlsKey) return;
    controlsKey = key;
    const box = $("buttons");
    const focused = document.activeElement && box.contains(document.activeElement)
      ? document.activeElement.dataset.name : null;
    box.replaceChildren();
    for (const name of shown) {
      const info = states[name] || { enabled: true, why: "" };
      const b = document.createElement("button");
      b.type = "button";
      b.className = "control";
      b.dataset.name = name;
      const label = document.createElement("span");
      label.className = "control-label";
      label.textContent = labelOf(name);
      b.append(label);
      if (info.why) {
        b.title = info.why;
        const why = document.createElement("span");
        why.className = "why";
        why.id = `why-${name}`;
        why.setAttribute("role", "tooltip");
        why.textContent = info.why;
        b.append(why);
        b.setAttribute("aria-describedby", why.id);
      }
      b.setAttribute("aria-disabled", String(!info.enabled));
      b.dataset.enabled = String(Boolean(info.enabled));
      b.addEventListener("click", () => {
        if (b.dataset.enabled !== "true") {
          // A hint, not a lock: the physical button still works; the page says why not.
          toast(`${labelOf(name)}: ${b.title || "not available now"}`);
          return;
        }
        request({ cmd: "button", name }, b);
      });
      box.append(b);
      if (name === focused) b.focus();
    }
  }

  // The offered count's rings in the legend, each colour in words (state.count.marks).
  let countLegendKey = "";
  function renderCountLegend(s) {
    const marks = !replay && s.phase === "adjudicate" && s.count ? s.count.marks || [] : [];
    const key = JSON.stringify(marks.map((m) => [m.colour, m.label]));
    if (key === countLegendKey) return;
    countLegendKey = key;
    const legend = document.querySelector(".legend");
    if (!legend) return;
    for (const old of legend.querySelectorAll(".lg-count")) old.remove();
    for (const m of marks) {
      const li = document.createElement("li");
      li.className = "lg-count";
      li.dataset.seat = m.seat || "";
      const icon = svg("svg", { viewBox: "-1 -1 2 2", "aria-hidden": "true" }, li);
      svg("circle", { class: "lg-count-ring", r: 0.68, stroke: m.colour }, icon);
      li.append(m.label);
      legend.append(li);
    }
  }

  let inputsKey = "";
  function renderInputs(s) {
    // The adapter's question (an input the board cannot sense) and the offered count.
    const adjudicating = s.phase === "adjudicate" && s.count;
    const key = JSON.stringify([Boolean(replay), s.question || null,
      adjudicating ? [s.count, s.agreed] : null]);
    if (key === inputsKey) return;
    inputsKey = key;
    const box = $("inputs");
    box.replaceChildren();
    if (replay) return;  // questions belong to the live game
    const q = s.question;
    if (q) {
      const group = document.createElement("div");
      group.className = "input-group";
      group.dataset.field = q.field;
      const label = document.createElement("span");
      label.className = "input-label";
      label.textContent = q.prompt || cap(q.field);
      group.append(label);
      const words = q.labels && typeof q.labels === "object" ? q.labels : {};
      for (const raw of q.choices || []) {
        const choice = raw !== null && typeof raw === "object" ? raw
          : { value: raw, label: words[raw] || cap(String(raw)) };
        const b = document.createElement("button");
        b.type = "button";
        b.className = "choice";
        b.dataset.value = String(choice.value);
        b.textContent = choice.label ?? String(choice.value);
        b.setAttribute("aria-pressed", String(q.value !== undefined && q.value === choice.value));
        b.addEventListener("click", () => request({ cmd: "choose", field: q.field, value: choice.value }, b));
        group.append(b);
      }
      // The board's buttons that answer it, in words ("On the board, press Swap, or
      // Confirm for Keep"); one the prompt already names is not said twice.
      const hints = Object.entries(q.buttons || {}).flatMap(([button, value]) => {
        const label = t(controlLabel(button));
        if ((q.prompt || "").includes(label)) return [];
        const answer = words[value] || t(cap(String(value)));
        return [label.toLowerCase().includes(String(value).toLowerCase()) ? label
          : t("{button} for {answer}", { button: label, answer })];
      });
      if (hints.length) {
        const hint = document.createElement("span");
        hint.className = "input-hint";
        hint.textContent = hints.length === 1 ? t("On the board, press {list}.", { list: hints[0] })
          : t("On the board, press {list}.", { list: t("{some} or {last}", { some: hints.slice(0, -1).join(", "), last: hints[hints.length - 1] }) });
        group.append(hint);
      }
      box.append(group);
    }
    if (adjudicating) {
      const group = document.createElement("div");
      group.className = "input-group count";
      const c = s.count;
      const label = document.createElement("span");
      label.className = "input-label";
      const outcome = c.winner ? t("{seat} wins", { seat: seatLabel(c.winner) }) : t("a draw");
      label.textContent = c.reason
        ? t("Count: {outcome} ({reason}). End the game by it?", { outcome, reason: c.reason })
        : t("Count: {outcome}. End the game by it?", { outcome });
      group.append(label);
      const how = document.createElement("span");
      how.className = "input-hint count-how";
      how.textContent = (c.marks || []).length
        ? t("The rings on the board show what the count credits (the legend says whose). Each player agrees with their own button; or play on.")
        : t("Each player agrees with their own button; or play on.");
      group.append(how);
      const agreed = new Set(s.agreed || []);
      for (const colour of Object.keys(s.seats || {})) {
        const who = (s.seats || {})[colour] || seatLabel(colour);
        if (seatKind(s, colour) !== "person") {
          // An automaton answers the offer by itself (its own analysis, table/countoffer.py).
          const note = document.createElement("span");
          note.className = "input-hint";
          note.dataset.agreeAuto = colour;
          note.textContent = agreed.has(colour) ? t("{seat} agrees", { seat: who }) : t("{seat} is weighing the count…", { seat: who });
          group.append(note);
          continue;
        }
        const b = document.createElement("button");
        b.type = "button";
        b.className = "choice";
        b.dataset.agree = colour;
        const yes = agreed.has(colour);
        b.textContent = yes ? t("{seat} has agreed", { seat: who }) : t("{seat} agrees", { seat: who });
        b.setAttribute("aria-pressed", String(yes));
        b.addEventListener("click", () => {
          if (b.getAttribute("aria-pressed") === "true") { toast(t("{seat} has agreed already: waiting for the others", { seat: who })); return; }
          request({ cmd: "agree", player: colour }, b);
        });
        group.append(b);
      }
      const on = document.createElement("button");
      on.type = "button";
      on.className = "choice count-play-on";
      on.textContent = t("Play on");
      on.title = t("Withdraw the count and play on");
      on.addEventListener("click", () => request({ cmd: "button", name: "menu" }, on));
      group.append(on);
      box.append(group);
    }
  }

  // ---- sounds and voice: what happened between two states (sound.js makes them) ----

  function listWords(sites) {
    const list = sites.map(String);
    return list.length <= 1 ? list.join("") : t("{some} and {last}", { some: list.slice(0, -1).join(", "), last: list[list.length - 1] });
  }

  function lowClock(s) {
    // Clocks are optional (state.clocks: seat -> {remaining_s}, low_s): the mover's
    // clock under its low mark, else null.
    const clocks = s.clocks && typeof s.clocks === "object" ? s.clocks : null;
    const c = clocks && s.to_move ? (clocks.seats || clocks)[s.to_move] : null;
    const low = Number((clocks && clocks.low_s) ?? 10);
    return c && typeof c.remaining_s === "number" && c.remaining_s <= low ? c.remaining_s : null;
  }

  const MAX_SAID_MOVES = 3;

  function soundEvents(prev, s) {
    const sound = window.MeridianSound;
    if (!sound || !prev || prev.game_id !== s.game_id) return;  // a page just opened is quiet
    const was = prev.moves || [];
    const now = s.moves || [];
    if (!prev.result && s.result) {
      const w = s.result.winner;
      const why = resultReason(s.result);
      sound.cue("end", w ? (why ? t("{seat} wins: {reason}", { seat: seatLabel(w), reason: why }) : t("{seat} wins", { seat: seatLabel(w) }))
        : t("Game over"));
      return;
    }
    if (now.length > was.length) {
      // The server coalesces a burst of changes into one state, so one state may bring
      // several moves (a busy machine, a quick hand): each is said, in order. A page
      // catching up on many (a long disconnection) says only the last.
      const fresh = now.length - was.length <= MAX_SAID_MOVES ? now.slice(was.length) : now.slice(-1);
      for (const m of fresh) sound.cue("move", `${seatLabel(m.player)}: ${moveLabel(m)}`);
      const removed = (s.diff && s.diff.remove) || [];
      if (removed.length) sound.cue("remove", `${seatLabel(s.to_move)}: remove ${listWords(removed)}`);
    } else if (s.error && s.error !== prev.error) {
      sound.cue("mistake", s.error);
    } else if (s.phase === "resync" && prev.phase !== "resync" && now.length === was.length) {
      // A piece put where the game does not want it, or lifted from where it does.
      sound.cue("mistake", s.message || "Fix the board");
    }
    const auto = automatonOf(s);
    const before = automatonOf(prev);
    if (auto && auto.status === "executing" && !(before && before.status === "executing")) {
      sound.cue("turn", `${seatLabel(auto.seat)}: ${auto.words || auto.action || ""}`);
    } else if (!auto && before && s.to_move && seatKind(s, s.to_move) === "person" && !s.result) {
      sound.cue("turn", `${seatLabel(s.to_move)} to move`);
    }
    // The low-time cue is clock.js's: it sounds while the clock runs down.
  }

  function render(s) {
    if (!replay) soundEvents(state, s);
    state = s;
    renders += 1;
    pendingSites.clear();  // a new state is the table's answer to every toggle so far
    loadGameScript(s);
    renderTurn(s);
    renderAutomaton(s);
    renderBanner(s);
    renderConn(s);
    // While the people carry out an automaton's move its box says the move and the step;
    // the table's message would say the move a second time.
    const executing = !replay && automatonOf(s) && automatonOf(s).status === "executing";
    $("message").textContent = executing ? "" : s.message || "";
    $("message").hidden = Boolean(executing);
    renderScores(s);
    recordScores(s);
    renderSummary(s);
    renderLink(s);
    renderControls(s);
    renderInputs(s);
    renderCountLegend(s);
    // A game's own panel (docs/WEB.md): drawn from the state, answering by commands. A
    // panel another game left (marked data-game-panel) goes when the game changes, so
    // its buttons never send that game's commands to this one.
    const current = (s.spec && s.spec.id) || s.game || "";
    for (const old of document.querySelectorAll("[data-game-panel]")) {
      if (old.dataset.gamePanel !== current) old.remove();
    }
    hook("panel", s, { send: (cmd, el) => request(cmd, el), seatLabel, seatColour, cap });
    const key = `${s.game_id}:${Boolean(s.result)}`;
    if (key !== gamesKey) { gamesKey = key; loadGames(); }
    const err = $("error");
    err.textContent = s.error || "";
    err.hidden = !s.error;
    if (replay) {
      if (replay.gameId === s.game_id && (s.moves || []).length !== replay.moves.length) refreshReplay();
      drawReplay();
    } else {
      drawBoard({
        board: s.board || { sites: [] },
        legal: s.legal, diff: s.diff, leds: s.leds, last: s.last_move, seats: s.seats, mover: s.to_move,
        clickable: Boolean(s.link && s.link.virtual),
        ended: s.phase === "ended",
        executing: s.phase === "execute",
      });
      renderMoves(s.moves || [], null);
    }
    // The page's own modules (newgame.js, clock.js, ...) draw their parts from this.
    document.dispatchEvent(new CustomEvent("meridian:state", { detail: s }));
    fitSoon();
  }

  // Once a frame however many states, resizes and changes above the board came in it:
  // each fit measures the laid-out page.
  let fitting = false;
  function fitSoon() {
    if (fitting) return;
    fitting = true;
    requestAnimationFrame(() => { fitting = false; fitBoard(); });
  }

  // On a desktop the whole board stays in view (issue 26): its height is what the
  // window leaves below the parts above it (turn, message, clocks, the automaton),
  // which change from state to state. app.css reads --board-top.
  function fitBoard() {
    const board = $("board");
    if (!board) return;
    // Where the board stands unscrolled: the layout's top plus the board's place in its
    // frame (the frame sticks to the window's top on a desktop, so its own top moves).
    const wrap = board.closest(".board-wrap");
    const layout = board.closest(".layout");
    const top = wrap && layout
      ? Math.round(layout.getBoundingClientRect().top + window.scrollY
        + board.getBoundingClientRect().top - wrap.getBoundingClientRect().top)
      : Math.round(board.getBoundingClientRect().top + window.scrollY);
    const root = document.documentElement.style;
    if (root.getPropertyValue("--board-top") !== `${top}px`) root.setProperty("--board-top", `${top}px`);
    zoomBoard(board);
  }

  // On a phone a point is a finger's target: at least 44 px across (issue 26). A board
  // whose points would be closer is drawn wider than the screen and scrolls sideways
  // in its frame, centred the first time.
  const TARGET_PX = 45;
  let zoomedFor = "";
  function zoomBoard(board) {
    const wrap = board.parentElement;
    const box = board.viewBox && board.viewBox.baseVal;
    const phone = window.matchMedia("(max-width: 760px)").matches;
    if (!wrap || !box || !box.width || !phone) {
      board.style.width = "";
      board.style.maxWidth = "";
      wrap && wrap.classList.remove("zoomed");
      return;
    }
    const need = Math.ceil(TARGET_PX * box.width);
    const avail = wrap.clientWidth;
    const zoomed = need > avail;
    board.style.width = zoomed ? `${need}px` : "";
    board.style.maxWidth = zoomed ? "none" : "";
    wrap.classList.toggle("zoomed", zoomed);
    const key = `${box.x} ${box.width} ${avail}`;
    if (zoomed && key !== zoomedFor) {
      zoomedFor = key;
      wrap.scrollLeft = (need - avail) / 2;
    }
  }
  window.addEventListener("resize", fitSoon);
  // What stands above the board grows and shrinks between states too (the replay bar,
  // the clocks, a message on two lines): the board follows.
  if (window.ResizeObserver) {
    const above = new ResizeObserver(fitSoon);
    for (const sel of [".top", "#message", "#automaton", "#error", "#replay-bar", "#banner"]) {
      const el = document.querySelector(sel);
      if (el) above.observe(el);
    }
  }

  // ---- replay -----------------------------------------------------------------------

  async function fetchReplay(gameId) {
    const answer = await request({ cmd: "replay", game_id: gameId });
    if (!answer.ok) return null;
    const result = answer.replay || answer;
    const moves = result.moves || [];
    const positions = result.positions || [];
    return { gameId: result.game_id ?? gameId, moves, positions, board: result.board || null,
      spec: result.spec || null, seats: result.seats || null, scores: result.scores || null,
      players: result.players || [], result: result.result || null };
  }

  async function startReplay(gameId, ply) {
    const data = await fetchReplay(gameId);
    if (!data) return;
    if (data.spec) loadGameScript({ spec: data.spec });
    replay = { ...data, ply: Math.max(0, Math.min(ply, data.moves.length)) };
    drawReplay();
  }

  async function refreshReplay() {
    if (!replay) return;
    const data = await fetchReplay(replay.gameId);
    if (!data || !replay) return;
    const atEnd = replay.ply === replay.moves.length;
    replay = { ...data, ply: atEnd ? data.moves.length : Math.min(replay.ply, data.moves.length) };
    drawReplay();
  }

  function positionAt(ply) {
    const pos = replay.positions[ply];
    if (!pos) return {};
    if (Array.isArray(pos)) return Object.fromEntries(pos.map((e) => [e.id ?? e[0], e.piece ?? e[1]]));
    if (typeof pos === "string") {
      // One character per site in board order, '.' for empty (the engines' position()).
      const sites = (replay.board || state.board).sites;
      const out = {};
      sites.forEach((site, i) => { if (pos[i] && pos[i] !== ".") out[site.id] = pos[i]; });
      return out;
    }
    return pos;
  }

  function drawReplay() {
    if (!replay) return;
    const ply = replay.ply;
    const lastMove = ply > 0 ? replay.moves[ply - 1] : null;
    // A review mark shown (showReview) stays drawn while its position is.
    const marks = replay.review && replay.review.ply === ply ? replay.review : null;
    document.body.classList.toggle("reviewing", Boolean(marks));
    drawBoard({
      board: replay.board || state.board,
      pieces: positionAt(ply),
      last: lastMove ? lastMove.notation : null,
      seats: replay.seats || state.seats,
      clickable: false,
      review: marks,
    });
    $("replay-bar").hidden = false;
    $("replay-game").textContent = `#${replay.gameId}`;
    $("replay-pos").textContent = t("move {n} of {total}", { n: ply, total: replay.moves.length });
    document.body.classList.add("replaying");
    renderMoves(replay.moves, ply);
    if (state) {
      renderTurn(state); renderControls(state); renderInputs(state);
      // The replayed game's players and final scores, not the live game's.
      if (replay.seats) {
        renderScores({ ...state, seats: replay.seats, scores: replay.scores || {}, seats_kind: {},
          to_move: null, phase: "replay", result: replay.result || { replay: true } });
      }
    }
  }

  // The review's choice (review.js): the position before move `ply + 1` of `gameId`, with
  // the sites of the move played and of the better move marked.
  async function showReview(gameId, ply, played, best) {
    if (!replay || replay.gameId !== gameId) {
      const data = await fetchReplay(gameId);
      if (!data) return false;
      replay = data;
    }
    replay.ply = Math.max(0, Math.min(ply, replay.moves.length));
    replay.review = { ply: replay.ply, played: played || [], best: best || [] };
    $("games").value = String(gameId);
    drawReplay();
    return true;
  }

  function stopReplay() {
    replay = null;
    document.body.classList.remove("reviewing");
    $("replay-bar").hidden = true;
    document.body.classList.remove("replaying");
    $("games").value = state ? String(state.game_id) : "";
    if (state) render(state);
  }

  function step(where) {
    if (!replay) return;
    const n = replay.moves.length;
    const to = { first: 0, prev: replay.ply - 1, next: replay.ply + 1, last: n }[where];
    replay.ply = Math.max(0, Math.min(n, to));
    drawReplay();
  }

  for (const b of document.querySelectorAll("[data-step]")) {
    b.addEventListener("click", () => step(b.dataset.step));
  }
  $("replay-exit").addEventListener("click", stopReplay);
  document.addEventListener("keydown", (e) => {
    if (!replay || e.target instanceof HTMLSelectElement) return;
    if (e.target instanceof Element && e.target.closest("#board")) return;  // board navigation
    if (e.key === "ArrowLeft") step("prev");
    else if (e.key === "ArrowRight") step("next");
    else if (e.key === "Home") step("first");
    else if (e.key === "End") step("last");
    else if (e.key === "Escape") stopReplay();
  });

  // ---- the end screen: result, moves, time and the score over the game -------------

  // Totals per ply seen by this page (kept for the tab's life), for the chart when the
  // replay answer carries no scores of its own.
  function scoreKey(s) { return `meridian.scores.${s.game_id}`; }

  function loadScoreLog(s) {
    try { return JSON.parse(sessionStorage.getItem(scoreKey(s)) || "{}") || {}; } catch (err) { return {}; }
  }

  function recordScores(s) {
    if (s.phase === "resync" || s.phase === "paused" || !s.scores) return;
    const log = loadScoreLog(s);
    const ply = (s.moves || []).length;
    const totals = {};
    for (const [seat, sc] of Object.entries(s.scores)) {
      if (sc && typeof sc.total === "number") totals[seat] = sc.total;
    }
    log[ply] = totals;
    for (const k of Object.keys(log)) if (Number(k) > ply) delete log[k];  // undone moves
    try { sessionStorage.setItem(scoreKey(s), JSON.stringify(log)); } catch (err) { /* full */ }
  }

  let gamesList = [];
  let endSeenAt = null;           // when this page first saw the game end
  let summaryKey = "";
  let replayScores = null;        // [{seat: total}] per ply from the replay, when it has them
  let replayScoresFor = null;

  function duration(ms) {
    const min = Math.round(ms / 60000);
    if (min < 1) return t("under a minute");
    if (min < 60) return `${min} min`;
    return `${Math.floor(min / 60)} h ${String(min % 60).padStart(2, "0")} min`;
  }

  function seriesFor(s) {
    // [{ply, totals}] in ply order: the replay's own scores, else what this page saw.
    const rows = [];
    if (replayScores && replayScoresFor === s.game_id) {
      replayScores.forEach((entry, ply) => {
        const totals = {};
        for (const [seat, sc] of Object.entries(entry || {})) {
          const v = sc && typeof sc === "object" ? sc.total : sc;
          if (typeof v === "number") totals[seat] = v;
        }
        rows.push({ ply, totals });
      });
      return rows;
    }
    const log = loadScoreLog(s);
    for (const k of Object.keys(log).map(Number).sort((a, b) => a - b)) rows.push({ ply: k, totals: log[k] });
    return rows;
  }

  function drawChart(s, rows) {
    const box = $("summary-chart");
    box.replaceChildren();
    const seats = Object.keys(s.scores || s.seats || {});
    const points = rows.filter((r) => seats.some((seat) => typeof r.totals[seat] === "number"));
    if (points.length < 2) { box.hidden = true; return; }
    box.hidden = false;
    const W = 300;
    const H = 120;
    const maxPly = Math.max(...points.map((r) => r.ply), 1);
    const values = points.flatMap((r) => seats.map((seat) => r.totals[seat]).filter((v) => typeof v === "number"));
    const top = Math.max(...values, 1);
    const x = (ply) => 28 + ((W - 36) * ply) / maxPly;
    const y = (v) => H - 18 - ((H - 28) * v) / top;
    const last = points[points.length - 1];
    const words = seats.map((seat) => `${seatLabel(seat)} ${last.totals[seat] ?? "–"}`).join(", ");
    const chart = svg("svg", {
      viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img",
      "aria-label": t("Score over the game, move by move; at move {n}: {scores}", { n: last.ply, scores: words }),
    }, box);
    svg("line", { class: "chart-axis", x1: 28, y1: H - 18, x2: W - 8, y2: H - 18 }, chart);
    svg("line", { class: "chart-axis", x1: 28, y1: 8, x2: 28, y2: H - 18 }, chart);
    svg("text", { class: "chart-text", x: 24, y: 12, "text-anchor": "end" }, chart).textContent = String(top);
    svg("text", { class: "chart-text", x: 24, y: H - 18, "text-anchor": "end" }, chart).textContent = "0";
    svg("text", { class: "chart-text", x: W - 8, y: H - 4, "text-anchor": "end" }, chart).textContent = `move ${maxPly}`;
    for (const seat of seats) {
      const pts = points.filter((r) => typeof r.totals[seat] === "number").map((r) => `${x(r.ply).toFixed(1)},${y(r.totals[seat]).toFixed(1)}`);
      if (!pts.length) continue;
      svg("polyline", { class: "chart-halo", points: pts.join(" ") }, chart);
      const line = svg("polyline", { class: "chart-line", points: pts.join(" "), "data-seat": seat }, chart);
      line.style.stroke = seatColour(seat) || "var(--accent)";
    }
    const legend = document.createElement("ul");
    legend.className = "chart-legend";
    for (const seat of seats) {
      const li = document.createElement("li");
      const dot = document.createElement("span");
      dot.className = "chart-key";
      dot.style.background = seatColour(seat) || "var(--accent)";
      li.append(dot, `${seatLabel(seat)}: ${last.totals[seat] ?? "–"}`);
      legend.append(li);
    }
    box.append(legend);
  }

  async function fetchReplayScores(s) {
    const answer = await request({ cmd: "replay", game_id: s.game_id });
    const result = answer && answer.ok ? answer.replay || answer : null;
    // The totals after each move, from the log (score_series): the chart survives a
    // reload and shows on a page that did not watch the game.
    const series = result && (Array.isArray(result.score_series) ? result.score_series
      : Array.isArray(result.scores) ? result.scores : null);
    if (series) {
      replayScores = series;
      replayScoresFor = s.game_id;
      summaryKey = "";
      if (state) renderSummary(state);
    }
  }

  function renderSummary(s) {
    const box = $("summary");
    const over = Boolean(s.result) || s.phase === "ended";
    document.body.classList.toggle("game-over", over);
    if (!over) {
      box.hidden = true;
      endSeenAt = null;
      summaryKey = "";
      return;
    }
    if (endSeenAt === null) {
      endSeenAt = Date.now();
      fetchReplayScores(s);
    }
    const game = gamesList.find((g) => g.game_id === s.game_id) || {};
    const key = JSON.stringify([s.game_id, s.result, (s.moves || []).length, game.started || null,
      game.updated || null,
      replayScoresFor, s.scores]);
    if (key === summaryKey) return;
    summaryKey = key;
    box.hidden = false;
    const w = s.result && s.result.winner;
    const name = w && s.seats ? s.seats[w] : "";
    const reason = resultReason(s.result);
    const seat = w ? `${seatLabel(w)}${name ? ` (${name})` : ""}` : "";
    $("summary-result").textContent = w
      ? (reason ? t("{seat} wins: {reason}", { seat, reason }) : t("{seat} wins", { seat }))
      : (reason ? t("Game over: {reason}", { reason }) : t("Game over"));
    const facts = [[t("Moves"), String((s.moves || []).length)]];
    const started = game.started ? new Date(game.started) : null;
    if (started && !Number.isNaN(started.getTime())) {
      facts.push([t("Started"), started.toLocaleString(document.documentElement.lang || [], { dateStyle: "medium", timeStyle: "short" })]);
      // The logged end (the result's time), not when this page saw it: a reload must
      // not add the time since (issue 26).
      const loggedEnd = game.status === "finished" && game.updated ? new Date(game.updated).getTime() : NaN;
      const ended = Number.isNaN(loggedEnd) ? endSeenAt : loggedEnd;
      facts.push([t("Time"), duration(Math.max(0, ended - started.getTime()))]);
    }
    const list = $("summary-facts");
    list.replaceChildren();
    for (const [label, value] of facts) {
      const dt = document.createElement("dt");
      dt.textContent = label;
      const dd = document.createElement("dd");
      dd.textContent = value;
      dd.dataset.fact = label.toLowerCase();
      list.append(dt, dd);
    }
    drawChart(s, seriesFor(s));
  }

  async function loadGames() {
    const result = await request({ cmd: "games" });
    if (result.ok && Array.isArray(result.games)) {
      gamesList = result.games;
      summaryKey = "";
      if (state) renderSummary(state);
    }
    const label = $("games-label");
    if (!result.ok || !Array.isArray(result.games)) { label.hidden = true; return; }
    const select = $("games");
    select.replaceChildren();
    for (const g of result.games) {
      const opt = document.createElement("option");
      opt.value = String(g.game_id);
      const who = (g.players || []).join(" – ");
      const text = `#${g.game_id} ${g.game || ""} ${who}`.trim();
      opt.textContent = state && g.game_id === state.game_id ? t("{game} (this game)", { game: text }) : text;
      select.append(opt);
    }
    if (state) select.value = String(state.game_id);
    label.hidden = false;
  }
  $("games").addEventListener("change", (e) => {
    const id = Number(e.target.value);
    if (state && id === state.game_id && !replay) return;
    startReplay(id, Number.MAX_SAFE_INTEGER);
  });

  // Hooks for tests and for curious players in the console.
  window.meridian = {
    get state() { return state; },
    get renders() { return renders; },
    get connected() { return Boolean(ws && ws.readyState === WebSocket.OPEN); },
    get replay() { return replay ? { gameId: replay.gameId, ply: replay.ply, moves: replay.moves.length } : null; },
    get pending() { return pending.size; },
    request,
    automatonChoices,
    chosenAutomaton,
    seatLabel,
    showReview,
    stopReplay: () => { if (replay) stopReplay(); },
  };

  // ---- sound, voice and theme switches --------------------------------------------

  function setupPrefs() {
    const sound = window.MeridianSound;
    const soundBtn = $("sound-toggle");
    const voiceBtn = $("voice-toggle");
    const themeBtn = $("theme-toggle");
    if (sound) {
      const show = () => {
        soundBtn.setAttribute("aria-pressed", String(!sound.muted));
        voiceBtn.setAttribute("aria-pressed", String(sound.voice));
        voiceBtn.hidden = !sound.voiceAvailable;
      };
      sound.onChange(show);
      show();
      soundBtn.addEventListener("click", () => sound.setMuted(!sound.muted));
      voiceBtn.addEventListener("click", () => sound.setVoice(!sound.voice));
    } else {
      soundBtn.hidden = true;
      voiceBtn.hidden = true;
    }
    const theme = window.MeridianTheme;
    if (theme) {
      theme.onChange((now) => {
        themeBtn.setAttribute("aria-pressed", String(now === "dark"));
      });
      themeBtn.addEventListener("click", () => theme.toggle());
    } else {
      themeBtn.hidden = true;
    }
  }

  setupPrefs();
  // A new language: draw everything again, so that the words the page composes (a
  // point's label, the link's summary) are composed in it.
  if (window.MeridianI18n) {
    window.MeridianI18n.onChange(() => {
      boardKey = ""; controlsKey = ""; scoresKey = ""; linkKey = ""; inputsKey = "";
      summaryKey = ""; gamesKey = ""; movesDrawn = [];
      if (state) render(state);
    });
  }
  connect();
})();
