// Small helpers for building the page. Every text that comes from users
// goes in with textContent, never innerHTML.

export const $ = (sel) => document.querySelector(sel);

// el makes an element: props set its text ("text"), class, data- and
// aria- attributes, or any property; children are appended.
export function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "text") e.textContent = v;
    else if (k === "class") e.className = v;
    else if (k.startsWith("data-") || k.startsWith("aria-")) e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const c of children) e.append(c);
  return e;
}

// setFieldError shows a form field's problem beside it, or clears it.
export function setFieldError(input, out, problem) {
  $(out).textContent = problem;
  if (problem) $(input).setAttribute("aria-invalid", "true");
  else $(input).removeAttribute("aria-invalid");
}

// say says text in the live region, and only there.
export function say(text) {
  $("#announce").textContent = text;
}
