// The page's words, in English and Korean: one message table per
// language (i18n/en.js, i18n/ko.js), the same keys in both. The language
// is the one chosen on the page's switch, remembered in localStorage;
// on a first visit, the browser's first of navigator.languages that the
// page speaks; English otherwise.
import en from "./i18n/en.js";
import ko from "./i18n/ko.js";

const tables = { en, ko };
const storeKey = "tenpin-lang";

// pick is the language of a first visit, or the one chosen before.
function pick() {
  let saved = "";
  try { saved = localStorage.getItem(storeKey) || ""; } catch { /* storage off */ }
  if (tables[saved]) return saved;
  for (const l of navigator.languages || [navigator.language || ""]) {
    const base = String(l).toLowerCase().split("-")[0];
    if (tables[base]) return base;
  }
  return "en";
}

let lang = pick();

export function getLang() { return lang; }

// setLang switches the page's language and remembers the choice.
export function setLang(l) {
  if (!tables[l]) return;
  lang = l;
  try { localStorage.setItem(storeKey, l); } catch { /* storage off */ }
  document.documentElement.lang = l;
}

// locale is the language as Intl takes it.
function locale() { return lang === "ko" ? "ko-KR" : "en-GB"; }

// t is the text of key, in the page's language: a string, or a
// function of args.
export function t(key, ...args) {
  const v = key in tables[lang] ? tables[lang][key] : en[key];
  if (v === undefined) return key;
  return typeof v === "function" ? v(...args) : v;
}

// errorText is the page's own words for an error code of the server's
// (protocol's Code*), never the server's English message.
export function errorText(code, ctx = {}) {
  const errors = tables[lang].errors;
  const v = errors[code] || errors.unknown;
  return typeof v === "function" ? v(ctx) : v;
}

// num says a number; digits, if given, is how many after the point.
export function num(n, digits = 0) {
  return new Intl.NumberFormat(locale(), { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(n);
}

// pct says a fraction as a percentage (0.5 → 50%), or "—" with no chances.
export function pct(made, chances) {
  if (!chances) return "—";
  return new Intl.NumberFormat(locale(), { style: "percent", maximumFractionDigits: 0 }).format(made / chances);
}

// clock says a time of day, hours and minutes: "23:41".
export function clock(ms) {
  return new Intl.DateTimeFormat(locale(), { hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(ms);
}

// list joins words as a sentence does: "CAT, DOG and EEL".
export function list(words) {
  if (lang === "en") {
    return words.length <= 1 ? words.join("") : words.slice(0, -1).join(", ") + " and " + words[words.length - 1];
  }
  return new Intl.ListFormat(locale(), { type: "conjunction" }).format(words);
}

// applyStatic puts the page's words in the HTML's own elements: those
// with data-i18n take the key's text; data-i18n-attr="attr:key;…" sets
// attributes.
export function applyStatic(root = document) {
  document.documentElement.lang = lang;
  for (const e of root.querySelectorAll("[data-i18n]")) e.textContent = t(e.dataset.i18n);
  for (const e of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of e.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split(":");
      e.setAttribute(attr, t(key));
    }
  }
}


// langSwitch wires the page's language buttons ([data-lang]): the choice
// is remembered (setLang), each button says whether it is the one
// chosen, and redraw says everything again in the language chosen.
export function langSwitch(redraw) {
  const mark = () => {
    for (const btn of document.querySelectorAll("[data-lang]")) btn.setAttribute("aria-pressed", String(btn.dataset.lang === getLang()));
  };
  for (const btn of document.querySelectorAll("[data-lang]")) {
    btn.addEventListener("click", () => {
      setLang(btn.dataset.lang);
      applyStatic();
      mark();
      redraw();
    });
  }
  mark();
}
