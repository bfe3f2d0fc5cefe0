// GET a JSON endpoint; a 4xx/5xx body {"error": ...} becomes a thrown Error with that message.
export async function get(path, params = {}) {
  const response = await fetch(`${path}?${new URLSearchParams(params)}`);
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

export function table(headers, rows) {
  return el("table", { class: "result" },
    el("tr", {}, ...headers.map((h) => el("th", {}, h))),
    ...rows.map((row) => el("tr", {}, ...row.map((c) => el("td", {}, String(c))))));
}
