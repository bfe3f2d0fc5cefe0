// Building the pages' elements: el() for any element, and the few shapes every page uses.

// el("td", {class: "x"}, "text", child, ...): attributes set as given, children appended.
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

// A labelled control for a .controls row.
export const field = (label, input) => el("label", {}, label, input);

// A <select> of `values` (shown through `label`), `value` chosen.
export function select(id, values, value = values[0], label = String) {
  const node = el("select", { id }, ...values.map((v) => el("option", { value: v }, label(v))));
  node.value = String(value);
  return node;
}

// Fill `node` (a <select>) with choices "name 0" … "name n-1" once an answer says how many there
// are; the choice made before stays when it still exists.
export function numbered(node, n, name) {
  if (node.options.length === n) return;
  const before = node.value;
  node.replaceChildren(...Array.from({ length: n }, (_, i) => el("option", { value: i }, `${name} ${i}`)));
  node.value = before !== "" && Number(before) < n ? before : "0";
}

// A number input bounded by a [low, high] pair from the API.
export const number = (id, [min, max], value, attrs = {}) =>
  el("input", { id, type: "number", min, max, value, ...attrs });

// A checkbox, ticked or not.
export function checkbox(id, checked = false) {
  const box = el("input", { id, type: "checkbox" });
  box.checked = checked;
  return box;
}

// One checkbox per theme group (`themes` is config().themes), beside the group's colour, all ticked.
// The last one ticked cannot be unticked: a map of no group would have nothing to show.
// -> { node, picked }: picked() lists the ticked groups in the API's order; `onChange` follows a tick.
export function themePicker(id, themes, onChange) {
  const boxes = themes.names.map((name) => {
    const box = checkbox(`${id}-${name.replaceAll(" ", "-")}`, true);
    box.dataset.theme = name;
    return box;
  });
  const picked = () => boxes.filter((box) => box.checked).map((box) => box.dataset.theme);
  const lock = () => {
    const on = boxes.filter((box) => box.checked);
    for (const box of boxes) box.disabled = on.length === 1 && box.checked;
  };
  for (const box of boxes) box.addEventListener("change", () => { lock(); onChange(); });
  const node = el("div", { id, class: "themes" }, el("span", { class: "note" }, "themes shown:"),
    ...boxes.map((box) => el("label", {}, box,
      el("span", { class: "swatch", style: `--swatch: ${themes.colours[box.dataset.theme]}` }), box.dataset.theme)));
  return { node, picked };
}

// A table.result: one header row, then one row per array of cells.
export function table(headers, rows) {
  return el("table", { class: "result" },
    el("tr", {}, ...headers.map((h) => el("th", {}, h))),
    ...rows.map((row) => el("tr", {}, ...row.map((c) => el("td", {}, String(c))))));
}

export const errorLine = (message) => el("p", { class: "error" }, message);
export const note = (text, attrs = {}) => el("p", { class: "note", ...attrs }, text);

// Numbers as every page prints them: `digits` decimals (0: an integer), thousands separated by commas
// whatever the browser's language; null or NaN (a value JSON could not hold) as a dash.
// num(23835648) -> "23,835,648"; num(4008, 2) -> "4,008.00"; num(-0.12345, 3) -> "-0.123"; num(null) -> "–"
export function num(x, digits = 0) {
  if (x === null || x === undefined || Number.isNaN(x)) return "–";
  return x.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

// A size in bytes as MiB below a GiB, else GiB, through num(): memory(95342592) -> "90.93 MiB",
// memory(4202692608) -> "3.91 GiB".
export function memory(bytes) {
  const MiB = 1024 ** 2;
  return bytes < 1024 * MiB ? `${num(bytes / MiB, 2)} MiB` : `${num(bytes / (1024 * MiB), 2)} GiB`;
}

// num() under the two names the other pages import until they call it by its own (same output).
export const fixed = (x, digits = 3) => num(x, digits);
export const count = (n) => num(n);
