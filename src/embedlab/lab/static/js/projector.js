// Projector: every row of a served table as one WebGL scatter (plotly's scattergl, or scatter3d in
// 3-D). Coordinates and colour values arrive as binary arrays; a key searched or clicked is shown
// with its nearest rows in the full space and the ranks the map gives them. Another served table
// can be compared with the one shown: the largest movers listed, and every row coloured by how far
// it moved.
import { count, el, field, fixed, note, number, select, table } from "./dom.js";
import { config, get, getArray, latest } from "./http.js";
import { colour, plot, plotly } from "./plot.js";

const VIEW = 0.06; // a searched key's 2-D view spans this share of the map's width and height
const SCHEME_LABELS = { band: "frequency band", theme: "theme", norm: "row norm", moved: "moved (vs compared)" };
const MOVED = "moved"; // a colouring of the page's own: each row's displacement against the compared table
const MOVERS = 15; // movers listed

export async function render(root) {
  const [{ tables }, { limits }] = await Promise.all([get("/api/tables"), config()]);
  const page = build(root, tables, limits.projector);
  let map = null; // what is drawn: { info, keys, coordinates, dims, rows per trace }
  const redraw = latest(async () => load(page), async (loaded) => {
    map = loaded;
    await draw(page, map);
    if (page.key.value) await search();
  }, page.status);
  const search = latest(() => get("/api/projector/focus", focusParams(page)), (focus) => highlight(page, map, focus),
    page.focus);
  const compared = latest(() => compare(page), (answer) => showComparison(page, answer), page.comparison);
  page.onPoint = (key) => { page.key.value = key; search(); };
  page.source.addEventListener("change", () => { offerOthers(page, tables); compared(); });
  page.other.addEventListener("change", () => {
    page.scheme.querySelector(`option[value="${MOVED}"]`).disabled = !page.other.value;
    compared();
    if (page.scheme.value === MOVED) redraw();
  });
  for (const input of [page.source, page.method, page.dims, page.scheme]) input.addEventListener("change", redraw);
  for (const input of [page.key, page.k]) input.addEventListener("change", search);
  offerOthers(page, tables);
  await redraw();
}

function build(root, tables, limits) {
  const page = {
    source: select("proj-table", tables),
    method: select("proj-method", limits.methods, "pca", (m) => m.toUpperCase()),
    dims: select("proj-dims", limits.dims, 2, (d) => `${d}-D`),
    scheme: select("proj-scheme", [...limits.schemes, MOVED], "theme", (s) => SCHEME_LABELS[s] ?? s),
    other: select("proj-other", [""], "", (t) => t || "(none)"),
    key: el("input", { id: "proj-key", value: "", size: 16, maxlength: limits.token, placeholder: "a key" }),
    k: number("proj-k", limits.k, 10),
    status: el("div", { id: "proj-status" }),
    caption: note("", { id: "proj-caption" }),
    map: el("div", { id: "proj-map", class: "plot projector" }),
    focus: el("div", { id: "proj-focus" }),
    comparison: el("div", { id: "proj-comparison" }),
  };
  root.append(
    el("h2", {}, "Projector"),
    el("p", {}, "Every row of a table on one map. A 2-D or 3-D view cannot keep every neighbourhood of a " +
      "table hundreds of columns wide: search a key to see its nearest rows, found in the full space, and " +
      "where the map puts them."),
    el("div", { class: "controls" }, field("table", page.source), field("map", page.method), field("view", page.dims),
      field("colour by", page.scheme), field("search", page.key), field("neighbours k", page.k)),
    page.status, page.caption, page.map, page.focus,
    el("h3", {}, "Compare with another table"),
    el("p", { id: "proj-compare-note" }, "The keys both tables hold, their rows turned onto each other (orthogonal " +
      "Procrustes): how far each moved, and how many of its k nearest keys it kept (Jaccard@k). Both neighbour " +
      "lists are searched among the shared keys only, each in its own table's space, so a key one of them " +
      "holds alone never shows in them."),
    el("div", { class: "controls" }, field("compare with", page.other)), page.comparison);
  return page;
}

const focusParams = (page) => ({ table: page.source.value, key: page.key.value, k: page.k.value,
  method: page.method.value, dims: page.dims.value });

// Ask for the table's info, keys, map and colouring; the schemes offered follow the table. A map not
// made yet (UMAP's first use: a fit of a minute or two) is announced, and the old one taken away.
async function load(page) {
  const table = page.source.value;
  const started = performance.now();
  const info = await get("/api/projector/info", { table });
  offer(page.scheme, page.other.value ? [...info.schemes, MOVED] : info.schemes);
  const method = page.method.value, dims = Number(page.dims.value);
  if (!info.made.includes(`${method}-${dims}`)) {
    page.status.replaceChildren(note(firstUse(info, method, dims), { id: "proj-fitting", class: "note busy" }));
    page.caption.textContent = "";
    (await plotly()).purge(page.map);
  }
  const scheme = page.scheme.value;
  const [keys, layout, colours] = await Promise.all([
    keysOf(table),
    getArray("/api/projector/layout", { table, method: page.method.value, dims: page.dims.value }),
    scheme === MOVED ? getArray("/api/projector/displacement", { table, other: page.other.value, k: page.k.value })
      : getArray("/api/projector/colours", { table, by: scheme }),
  ]);
  return { table, info, keys, layout, colours, scheme, fetched: performance.now() - started };
}

// The tables the shown one can be compared with: every other served table.
function offerOthers(page, tables) {
  const before = page.other.value;
  const others = ["", ...tables.filter((t) => t !== page.source.value)];
  page.other.replaceChildren(...others.map((t) => el("option", { value: t }, t || "(none)")));
  page.other.value = others.includes(before) ? before : "";
}

function firstUse(info, method, dims) {
  if (method === "pca") return `Computing the PCA of ${info.table}'s ${count(info.rows)} rows (first use)…`;
  return `Fitting UMAP on ${count(info.umap_sample)} of ${info.table}'s ${count(info.rows)} rows, then placing ` +
    `the others (${dims}-D, first use: a minute or two on a large table; the rest of the lab keeps working)…`;
}

const compare = (page) => (page.other.value ? get("/api/projector/compare", { table: page.source.value,
  other: page.other.value, k: page.k.value, top: MOVERS }) : null);

function showComparison(page, c) {
  if (!c) return;
  const rows = c.movers.map((m, i) => [i + 1, m.key, fixed(m.displacement), fixed(m.jaccard, 2),
    m.neighbours_a.slice(0, 4).join(", "), m.neighbours_b.slice(0, 4).join(", ")]);
  const movers = table(["#", "key", "moved", `Jaccard@${c.k}`, `near in ${c.name_a} (shared keys)`,
    `near in ${c.name_b} (shared keys)`], rows);
  movers.id = "proj-movers";
  for (const [i, tr] of [...movers.querySelectorAll("tr")].slice(1).entries()) {
    tr.classList.add("clickable");
    tr.addEventListener("click", () => page.onPoint(c.movers[i].key));
  }
  page.comparison.replaceChildren(
    note(`${count(c.shared)} shared keys (${count(c.only_a)} only in ${c.name_a}, ${count(c.only_b)} only in ` +
      `${c.name_b}; widths ${count(c.dim_a)} and ${count(c.dim_b)}). After alignment: residual ${fixed(c.residual)}, mean ` +
      `displacement ${fixed(c.mean_displacement)} (0 = unmoved, 2 = opposite), mean Jaccard@${c.k} ` +
      `${fixed(c.mean_jaccard)}. The largest movers (click one to find it on the map):`, { id: "proj-compare-summary" }),
    movers);
}

const keyCache = new Map(); // table -> its keys (a million keys are worth fetching once)
async function keysOf(table) {
  if (!keyCache.has(table)) keyCache.set(table, get("/api/projector/keys", { table }));
  return keyCache.get(table);
}

// Keep a <select> to the choices a table offers (band needs corpus counts).
function offer(node, schemes) {
  for (const option of node.options) option.disabled = !schemes.includes(option.value);
  if (!schemes.includes(node.value)) node.value = schemes.includes("theme") ? "theme" : schemes[0];
}

// One trace per colour code (a legend for free), or one trace coloured by norm.
async function draw(page, map) {
  const started = performance.now();
  const { layout, colours, info, keys } = map;
  const [n, dims] = layout.shape;
  map.dims = dims;
  const traces = map.scheme in info.names && info.names[map.scheme]
    ? categorical(map, info.names[map.scheme], info.colours) : continuous(map);
  map.rows = traces.map((t) => t.rows); // each trace's table rows, for clicks
  for (const t of traces) delete t.rows;
  await plot(page.map, traces, mapLayout(dims));
  page.map.removeAllListeners?.("plotly_click");
  page.map.on("plotly_click", (event) => {
    const point = event.points[0];
    const rows = map.rows[point.curveNumber];
    if (rows) page.onPoint(keys[rows[point.pointNumber]]);
  });
  const drawn = performance.now() - started;
  const caption = layout.headers.get("X-Caption");
  page.caption.textContent = `${count(n)} points of ${map.table} (${count(info.rows)} × ${count(info.dim)}). ` +
    `${caption}. Fetched in ${Math.round(map.fetched)} ms, drawn in ${Math.round(drawn)} ms.`;
  Object.assign(page.map.dataset, { points: n, fetchMs: Math.round(map.fetched), drawMs: Math.round(drawn) });
}

// One trace per code present, coloured as /info says; rows in no theme are the faint background.
function categorical(map, names, palette) {
  const { layout, colours, keys } = map;
  return names.map((name, code) => rowsWhere(colours.values, (c) => c === code)).flatMap((rows, code) => {
    if (rows.length === 0) return [];
    const faint = code === 0 && map.scheme === "theme";
    const marker = { color: palette[names[code]], size: faint ? 3 : 5, opacity: faint ? 0.5 : 0.9 };
    return [{ ...points(layout.values, layout.shape[1], rows, keys, { name: `${names[code]} (${count(rows.length)})`,
      marker }), rows }];
  });
}

// Rows with a value coloured on a scale (norm, displacement); rows without one (NaN: a key the
// compared table lacks) grey.
function continuous(map) {
  const { layout, colours, keys } = map;
  const dims = layout.shape[1];
  const valued = rowsWhere(colours.values, (v) => !Number.isNaN(v));
  const missing = rowsWhere(colours.values, (v) => Number.isNaN(v));
  const title = map.scheme === MOVED ? "moved" : "‖row‖";
  const values = Float32Array.from(valued, (r) => colours.values[r]);
  const traces = [{ ...points(layout.values, dims, valued, keys, { name: `${title} (${count(valued.length)})`,
    marker: { color: values, colorscale: "Viridis", size: 3, showscale: true, colorbar: { title: { text: title } },
      ...(map.scheme === MOVED ? { cmin: 0, cmax: 2 } : {}) } }), rows: valued }];
  if (missing.length) {
    traces.push({ ...points(layout.values, dims, missing, keys, { name: `not in the compared table (${count(missing.length)})`,
      marker: { color: colour("line"), size: 3, opacity: 0.5 } }), rows: missing });
  }
  return traces;
}

function rowsWhere(values, test) {
  let n = 0;
  for (const v of values) if (test(v)) n++;
  const rows = new Int32Array(n);
  for (let i = 0, j = 0; i < values.length; i++) if (test(values[i])) rows[j++] = i;
  return rows;
}

// A scattergl (2-D) or scatter3d trace of `rows`, each point's hover text its key.
function points(coordinates, dims, rows, keys, { name, marker }) {
  const axis = (a) => Float32Array.from(rows, (r) => coordinates[r * dims + a]);
  const trace = { name, type: dims === 3 ? "scatter3d" : "scattergl", mode: "markers", x: axis(0), y: axis(1),
    text: Array.from(rows, (r) => keys[r]), hovertemplate: "%{text}<extra></extra>", marker };
  if (dims === 3) trace.z = axis(2);
  return trace;
}

// The top margin leaves the toolbar (plotly's modebar, 25 px high when shown) a strip of its own, above
// the colour bar's title; in 3-D the camera stands back (plotly's default eye is 1.25 on each axis) so
// that the turning cube, its tick labels included, stays inside the plot at any angle.
const TOOLBAR_PX = 32;
const EYE = 1.7;
function mapLayout(dims) {
  const base = { legend: { orientation: "h", y: -0.08 }, uirevision: "map",
    margin: { l: 30, r: 10, t: TOOLBAR_PX, b: 30 } };
  if (dims === 3) return { ...base, scene: { aspectmode: "cube", xaxis: { title: "" }, yaxis: { title: "" },
    zaxis: { title: "" }, camera: { eye: { x: EYE, y: EYE, z: EYE } } } };
  return { ...base, hovermode: "closest", dragmode: "pan", xaxis: { zeroline: false }, yaxis: { zeroline: false } };
}

// Mark the key and its true neighbours, fly to it, and list what the map did to them.
async function highlight(page, map, focus) {
  if (!map || map.table !== focus.table) return; // the map it belongs to is not drawn (yet); redraw searches again
  const { layout, dims, keys } = map;
  const base = map.rows.length;
  const extra = page.map.data.length - base;
  const Plotly = await plotly();
  if (extra > 0) await Plotly.deleteTraces(page.map, [...Array(extra).keys()].map((i) => base + i));
  const rows = Int32Array.from(focus.neighbours, (nb) => nb.row);
  await Plotly.addTraces(page.map, [
    points(layout.values, dims, rows, keys, { name: `its ${focus.k} nearest rows`,
      marker: { color: "rgba(0,0,0,0)", size: 12, line: { color: colour("highlight"), width: 3 } } }),
    { ...points(layout.values, dims, Int32Array.of(focus.row), keys, { name: focus.key,
      marker: { color: colour("ink"), size: 14, symbol: dims === 3 ? "diamond" : "star" } }),
    mode: "markers+text", textposition: "top center" },
  ]);
  await fly(page, map, focus.point);
  page.focus.replaceChildren(
    note(`'${focus.key}' is row ${count(focus.row)}` + (focus.count === null ? "" : `, seen ${count(focus.count)} times`) +
      `. Of its ${focus.k} nearest rows in the full space (cosine), ${focus.kept} are among its ${focus.k} ` +
      "nearest points on this map; the map rank of each says how many points the map puts closer.",
    { id: "proj-kept" }),
    table(["#", "key", "cosine", "map rank"], focus.neighbours.map((nb, i) =>
      [i + 1, nb.key, fixed(nb.cosine, 4), count(nb.map_rank)])),
    note(`Nearest on the map: ${focus.map_neighbours.join(", ")}`, { id: "proj-map-neighbours" }));
  page.focus.querySelector("table").id = "proj-neighbours";
}

// Centre the view on `point`: a window of VIEW of the map in 2-D, the camera's centre in 3-D.
async function fly(page, map, point) {
  const Plotly = await plotly();
  const { values } = map.layout;
  const extent = [0, 1, 2].slice(0, map.dims).map((a) => {
    let lo = Infinity, hi = -Infinity;
    for (let i = a; i < values.length; i += map.dims) { lo = Math.min(lo, values[i]); hi = Math.max(hi, values[i]); }
    return [lo, hi];
  });
  if (map.dims === 2) {
    const range = (a) => [point[a] - VIEW * (extent[a][1] - extent[a][0]), point[a] + VIEW * (extent[a][1] - extent[a][0])];
    return Plotly.relayout(page.map, { "xaxis.range": range(0), "yaxis.range": range(1) });
  }
  // subtle: scene coordinates run over [-0.5, 0.5] per axis with aspectmode "cube"
  const [x, y, z] = extent.map(([lo, hi], a) => (point[a] - (lo + hi) / 2) / (hi - lo || 1));
  return Plotly.relayout(page.map, { "scene.camera": { center: { x, y, z }, eye: { x: x + 0.8, y: y + 0.8, z: z + 0.8 } } });
}
