// Meridian Table: light and dark themes. Loaded in <head>, before the page is drawn, so
// it never flashes the wrong theme. Without a choice the page follows the system's
// prefers-color-scheme; the toggle's choice is remembered in localStorage. The page and
// the scoring assistant share it.
"use strict";
(() => {
  const KEY = "meridian.theme";
  const query = window.matchMedia ? window.matchMedia("(prefers-color-scheme: light)") : null;
  const listeners = new Set();

  function chosen() {
    try {
      const v = localStorage.getItem(KEY);
      return v === "light" || v === "dark" ? v : null;
    } catch (err) {
      return null;
    }
  }

  function current() { return chosen() || (query && query.matches ? "light" : "dark"); }

  function apply() {
    const theme = current();
    document.documentElement.dataset.theme = theme;
    document.documentElement.style.colorScheme = theme;
    for (const fn of listeners) fn(theme);
  }

  window.MeridianTheme = {
    get theme() { return current(); },
    get chosen() { return chosen(); },
    set(theme) {
      try {
        if (theme === "light" || theme === "dark") localStorage.setItem(KEY, theme);
        else localStorage.removeItem(KEY);
      } catch (err) { /* not remembered; still applied for this page */ }
      apply();
    },
    toggle() { this.set(current() === "dark" ? "light" : "dark"); },
    onChange(fn) { listeners.add(fn); fn(current()); },
  };
  if (query && query.addEventListener) query.addEventListener("change", apply);
  apply();
})();
