// Meridian Table: the players' clocks, large, under whose turn it is. The table sends
// state.clocks ({rule, words, low_s, running, seats: {seat: {remaining_s, time_up}}}) on
// every change; between changes this file counts the running clock down itself, from
// the time the state arrived. A clock under low_s is marked "low" (and app.js sounds the
// low-time cue); a flag that fell reads "Time up". No clocks in the state: nothing shown.
"use strict";
(() => {
  let state = null;
  let receivedAt = 0;
  let key = "";
  let timer = null;
  const t = (text, params) => (window.MeridianI18n ? window.MeridianI18n.t(text, params)
    : text.replace(/\{(\w+)\}/g, (m, k) => (params && k in params ? String(params[k]) : m)));

  function box() {
    let el = document.getElementById("clocks");
    if (el) return el;
    el = document.createElement("section");
    el.id = "clocks";
    el.className = "clocks";
    el.setAttribute("aria-label", t("Clocks"));
    el.hidden = true;
    const anchor = document.getElementById("message");
    if (anchor) anchor.before(el); else document.body.prepend(el);
    return el;
  }

  function format(seconds) {
    const s = Math.max(0, seconds);
    if (s < 10) return s.toFixed(1);
    const whole = Math.ceil(s);
    const h = Math.floor(whole / 3600);
    const m = Math.floor((whole % 3600) / 60);
    const sec = String(whole % 60).padStart(2, "0");
    return h ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
  }

  function spoken(seconds) {
    const s = Math.max(0, Math.ceil(seconds));
    const m = Math.floor(s / 60);
    return m ? t("{n} minutes {s} seconds", { n: m, s: s % 60 }) : t("{n} seconds", { n: s });
  }

  function seatInfo(s, seat) {
    const seats = (s.spec && s.spec.page && s.spec.page.seats) || {};
    const look = seats[seat] || {};
    return { label: look.label || seat, colour: look.colour || "#888", name: (s.seats || {})[seat] || "" };
  }

  function build(s) {
    const el = box();
    const clocks = s.clocks;
    el.replaceChildren();
    const words = document.createElement("span");
    words.className = "clock-rule";
    words.textContent = clocks.words || "";
    for (const seat of Object.keys(clocks.seats || {})) {
      const info = seatInfo(s, seat);
      const c = document.createElement("div");
      c.className = "clock";
      c.dataset.seat = seat;
      const swatch = document.createElement("span");
      swatch.className = "clock-swatch";
      swatch.style.background = info.colour;
      swatch.setAttribute("aria-hidden", "true");
      const who = document.createElement("span");
      who.className = "clock-who";
      who.textContent = info.name ? t("{seat} · {name}", { seat: t(info.label), name: info.name }) : t(info.label);
      const time = document.createElement("span");
      time.className = "clock-time";
      time.setAttribute("role", "timer");
      c.append(swatch, who, time);
      el.append(c);
    }
    el.append(words);
  }

  // The low-time cue sounds once a turn, when the running clock passes under low_s while
  // it runs down on the page (no new state needed), or when a turn starts under it.
  let cued = "";
  function cueLow(seat, left, low) {
    const sound = window.MeridianSound;
    const turn = `${state.game_id}:${seat}:${(state.moves || []).length}`;
    if (!sound || left > low || left <= 0 || cued === turn) return;
    cued = turn;
    sound.cue("low-time", t("{seat}: {time}", { seat: t(seatInfo(state, seat).label), time: spoken(left) }));
  }

  function update() {
    const el = box();
    if (!state || !state.clocks) { el.hidden = true; return; }
    el.hidden = false;
    const clocks = state.clocks;
    const passed = (performance.now() - receivedAt) / 1000;
    const low = Number(clocks.low_s ?? 10);
    for (const c of el.querySelectorAll(".clock")) {
      const seat = c.dataset.seat;
      const data = (clocks.seats || {})[seat] || {};
      const running = clocks.running === seat;
      const left = Number(data.remaining_s) - (running ? passed : 0);
      const up = Boolean(data.time_up) || left <= 0;
      const time = c.querySelector(".clock-time");
      const text = up ? t("Time up") : format(left);
      if (time.textContent !== text) time.textContent = text;
      const seatName = seatInfo(state, seat).label;
      const label = up ? t("{seat}: time is up", { seat: seatName })
        : t(running ? "{seat}: {time}, running" : "{seat}: {time}", { seat: seatName, time: spoken(left) });
      if (time.getAttribute("aria-label") !== label) time.setAttribute("aria-label", label);
      c.dataset.running = String(running);
      c.dataset.low = String(!up && left <= low && clocks.running !== null);
      if (running && !up) cueLow(seat, left, low);
      c.dataset.up = String(up);
    }
  }

  document.addEventListener("meridian:state", (e) => {
    state = e.detail;
    receivedAt = performance.now();
    const clocks = state && state.clocks;
    const k = clocks ? `${state.game_id}:${Object.keys(clocks.seats || {}).join(",")}:${JSON.stringify(state.seats)}` : "";
    if (k !== key) {
      key = k;
      if (clocks) build(state);
    }
    update();
    if (clocks && clocks.running && !timer) timer = setInterval(update, 100);
    if ((!clocks || !clocks.running) && timer) { clearInterval(timer); timer = null; }
  });

  window.MeridianClock = { format };
})();
