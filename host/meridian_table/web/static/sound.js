// Meridian Table: the page's sounds and voice. Every sound is made here with Web Audio
// (oscillators and envelopes: nothing is fetched), and announcements go through the
// browser's speech synthesis in the page's language. Both are switched from the page's
// header and remembered in localStorage. app.js decides when an event happens
// (cue(event, words)); this file only knows how each event sounds.
"use strict";
(() => {
  const KEY_MUTED = "meridian.muted";
  const KEY_VOICE = "meridian.voice";

  // Each event: notes of [frequency Hz, start s, length s, wave, peak gain].
  const SOUNDS = {
    move: [[660, 0, 0.07, "triangle", 0.35]],
    remove: [[740, 0, 0.12, "square", 0.12], [494, 0.14, 0.18, "square", 0.12]],
    mistake: [[150, 0, 0.28, "sawtooth", 0.18], [140, 0.3, 0.2, "sawtooth", 0.14]],
    turn: [[523, 0, 0.12, "sine", 0.3], [784, 0.12, 0.2, "sine", 0.3]],
    "low-time": [[1046, 0, 0.06, "square", 0.1], [1046, 0.12, 0.06, "square", 0.1],
      [1046, 0.24, 0.06, "square", 0.1]],
    end: [[523, 0, 0.15, "triangle", 0.3], [659, 0.15, 0.15, "triangle", 0.3],
      [784, 0.3, 0.15, "triangle", 0.3], [1046, 0.45, 0.4, "triangle", 0.3]],
  };

  function stored(key, fallback) {
    try {
      const v = localStorage.getItem(key);
      return v === null ? fallback : v === "true";
    } catch (err) {
      return fallback;  // storage refused (private mode): not remembered, still works
    }
  }

  function store(key, value) {
    try { localStorage.setItem(key, String(value)); } catch (err) { /* not remembered */ }
  }

  let muted = stored(KEY_MUTED, false);
  let voice = stored(KEY_VOICE, false);
  let ctx = null;
  const log = [];  // every cue, for tests: {event, words, sound, spoken, at}

  function audio() {
    // Browsers start audio only after a gesture: the context is made (or resumed) on
    // the first click or key, and cues before that are logged but silent.
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return null;
    if (!ctx) {
      try { ctx = new Ctx(); } catch (err) { return null; }
    }
    if (ctx.state === "suspended") ctx.resume().catch(() => {});
    return ctx;
  }

  function unlock() { audio(); }
  window.addEventListener("pointerdown", unlock, { once: true, capture: true });
  window.addEventListener("keydown", unlock, { once: true, capture: true });

  function play(event) {
    const notes = SOUNDS[event];
    const ac = ctx;  // never create one here: that needs a gesture
    if (!notes || !ac || ac.state !== "running") return false;
    const t0 = ac.currentTime + 0.01;
    for (const [freq, start, length, wave, peak] of notes) {
      const osc = ac.createOscillator();
      const gain = ac.createGain();
      osc.type = wave;
      osc.frequency.setValueAtTime(freq, t0 + start);
      gain.gain.setValueAtTime(0.0001, t0 + start);
      gain.gain.exponentialRampToValueAtTime(peak, t0 + start + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, t0 + start + length);
      osc.connect(gain).connect(ac.destination);
      osc.start(t0 + start);
      osc.stop(t0 + start + length + 0.02);
    }
    return true;
  }

  function say(words) {
    const synth = window.speechSynthesis;
    if (!synth || typeof window.SpeechSynthesisUtterance !== "function" || !words) return false;
    // In the page's language: the page's catalog (i18n.js) has the announcements too.
    const i18n = window.MeridianI18n;
    const u = new window.SpeechSynthesisUtterance(i18n ? i18n.translate(words) : words);
    u.lang = document.documentElement.lang || "en";
    synth.cancel();  // the newest news only: a queue of stale announcements helps nobody
    synth.speak(u);
    return true;
  }

  // One event: its sound, and its words spoken when the voice is on. Muted: nothing.
  function cue(event, words) {
    if (!SOUNDS[event]) throw new Error(`no sound for event ${event}`);
    const entry = { event, words: words || "", sound: false, spoken: false, muted, at: Date.now() };
    log.push(entry);
    if (log.length > 200) log.shift();
    if (muted) return entry;
    entry.sound = true;
    entry.played = play(event);
    if (voice && words) entry.spoken = say(words);
    return entry;
  }

  const listeners = new Set();
  function changed() { for (const fn of listeners) fn(); }

  window.MeridianSound = {
    EVENTS: Object.keys(SOUNDS),
    cue,
    get log() { return log.slice(); },
    get muted() { return muted; },
    setMuted(v) {
      muted = Boolean(v);
      store(KEY_MUTED, muted);
      if (muted && window.speechSynthesis) window.speechSynthesis.cancel();
      if (!muted) audio();
      changed();
    },
    get voice() { return voice; },
    get voiceAvailable() { return Boolean(window.speechSynthesis); },
    setVoice(v) { voice = Boolean(v); store(KEY_VOICE, voice); changed(); },
    onChange(fn) { listeners.add(fn); },
  };
})();
