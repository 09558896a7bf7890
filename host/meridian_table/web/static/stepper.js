// Meridian Table: a long list of numbers to choose from (a tower's height: up to 39
// answers) becomes a stepper over the legal values: −, the value, +, and one button to
// choose it. The question's own buttons stay in the page, hidden, and do the choosing,
// so the command sent is the one app.js would send. Short lists are left as they are.
"use strict";
(() => {
  const t = (text, params) => (window.MeridianI18n ? window.MeridianI18n.t(text, params)
    : text.replace(/\{(\w+)\}/g, (m, k) => (params && k in params ? String(params[k]) : m)));
  const MOST_BUTTONS = 7;

  function button(text, attrs) {
    const b = document.createElement("button");
    b.type = "button";
    for (const [k, v] of Object.entries(attrs)) b.setAttribute(k, v);
    b.textContent = text;
    return b;
  }

  function step(group) {
    const choices = [...group.querySelectorAll(":scope > .choice")];
    if (choices.length <= MOST_BUTTONS || !choices.every((b) => /^-?\d+$/.test(b.dataset.value || ""))) return;
    group.dataset.stepper = "true";
    const values = choices.map((b) => b.dataset.value);
    let index = Math.max(0, choices.findIndex((b) => b.getAttribute("aria-pressed") === "true"));
    for (const b of choices) b.hidden = true;
    const label = group.querySelector(".input-label");
    const box = document.createElement("div");
    box.className = "stepper";
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", label ? label.textContent : t("Choose a number"));
    const down = button("−", { class: "choice stepper-down", "aria-label": t("Lower") });
    const value = document.createElement("output");
    value.className = "stepper-value";
    value.setAttribute("aria-live", "polite");
    const up = button("+", { class: "choice stepper-up", "aria-label": t("Higher") });
    const choose = button("", { class: "choice stepper-choose" });
    const show = () => {
      // The question's own words for the value ("2 high"), when it gave them.
      const words = choices[index].textContent || values[index];
      value.textContent = words;
      choose.textContent = t("Choose {value}", { value: words });
      down.disabled = index === 0;
      up.disabled = index === values.length - 1;
    };
    down.addEventListener("click", () => { index = Math.max(0, index - 1); show(); });
    up.addEventListener("click", () => { index = Math.min(values.length - 1, index + 1); show(); });
    choose.addEventListener("click", () => choices[index].click());
    const range = document.createElement("span");
    range.className = "input-hint stepper-range";
    range.textContent = t("{count} heights: {first} to {last}", { count: values.length, first: values[0], last: values[values.length - 1] });
    box.append(down, value, up, choose);
    (label || group.firstChild).after(box, range);
    show();
  }

  document.addEventListener("meridian:state", () => {
    for (const group of document.querySelectorAll("#inputs .input-group[data-field]:not([data-stepper])")) step(group);
  });
})();
