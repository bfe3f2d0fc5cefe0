// Helpers every simulation shares: JSON calls, element building, tables, plots.

// GET a JSON endpoint; a 4xx/5xx body {"error": ...} becomes a thrown Error with that message.
export async function get(path, params = {}) {
  return answer(await fetch(`${path}?${new URLSearchParams(params)}`));
}

// POST a JSON body to an endpoint; errors as for get().
export async function post(path, body = {}) {
  return answer(await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body) }));
}

async function answer(response) {
  const body = await response.json();
  if (!response.ok) throw new Error(body.error ?? response.statusText);
  return body;
}

// Build an element: el("td", {class: "x"}, "text", child, ...)
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

// A labelled control for a .controls row.
export const field = (label, input) => el("label", {}, label, input);

export function table(headers, rows) {
  return el("table", { class: "result" },
    el("tr", {}, ...headers.map((h) => el("th", {}, h))),
    ...rows.map((row) => el("tr", {}, ...row.map((c) => el("td", {}, String(c))))));
}

// Run an async update; a failure replaces `out`'s content with the error message.
export async function guard(out, work) {
  try { await work(); } catch (err) { out.replaceChildren(el("p", { class: "error" }, err.message)); }
}

// Draw (or redraw) a plotly chart in `div` with the lab's look; `layout` adds to the defaults.
export function plot(div, traces, layout = {}) {
  return Plotly.react(div, traces, {
    margin: { l: 50, r: 20, t: 30, b: 40 }, font: { family: "system-ui, sans-serif", size: 12 },
    paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)", ...layout,
  }, { responsive: true, displaylogo: false });
}

// A bar chart of `values` (one bar each, labelled by `labels` or by index).
export function bars(div, values, { labels, title = "", color = "#2f6fde", layout = {} } = {}) {
  const x = labels ?? values.map((_, i) => i);
  return plot(div, [{ type: "bar", x, y: values, marker: { color } }], { title: { text: title }, ...layout });
}

// One colour per group of embedlab.data.themes (and for a looked-up word in none), the same on every page.
export const THEME_COLOURS = {
  people: "#2f6fde", numbers: "#d9822b", days: "#2e9d5b", months: "#3a9fb0", places: "#b3261e",
  colours: "#7b4fc9", war: "#8c6d46", elements: "#d45d9e", chosen: "#1d2433", other: "#9aa3b2",
};
