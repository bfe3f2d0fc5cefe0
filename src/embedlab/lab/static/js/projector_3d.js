// The projector's 3-D view: every row of a table (up to /api/config's limits.projector.rows) as one
// plotly scatter3d, coordinates and colour values fetched whole as binary arrays. A key searched is
// marked with its nearest rows in the full space, and the camera turns to it. (2-D views are tiled:
// projector_map.js.) The page (projector.js) owns the controls; this module loads and draws.
import { count, fixed, note } from "./dom.js";
import { get, getArray } from "./http.js";
import { colour, plot, plotly } from "./plot.js";

// Ask for the table's info, keys, map and colouring. A map not made yet (UMAP's first use: a fit of a
// minute or two) is announced, and the old one taken away. `offer(schemes)` keeps the colour choices
// to what the table offers; `moved()` says whether the colour chosen then is the page's "moved".
export async function load(page, offer, moved) {
  const table = page.source.value;
  const started = performance.now();
  const info = await get("/api/projector/info", { table });
  offer(info.schemes);
  const method = page.method.value;
  if (!info.made.includes(`${method}-3`)) {
    page.status.replaceChildren(note(firstUse(info, method), { id: "proj-fitting", class: "note busy" }));
    page.caption.textContent = "";
    (await plotly()).purge(page.map);
  }
  const scheme = page.scheme.value, byMoved = moved();
  const [keys, layout, colours] = await Promise.all([
    keysOf(table),
    getArray("/api/projector/layout", { table, method, dims: 3 }),
    byMoved ? getArray("/api/projector/displacement", { table, other: page.other.value, k: page.k.value })
      : getArray("/api/projector/colours", { table, by: scheme }),
  ]);
  return { table, info, keys, layout, colours, scheme, moved: byMoved, fetched: performance.now() - started };
}

function firstUse(info, method) {
  if (method === "pca") return `Computing the PCA of ${info.table}'s ${count(info.rows)} rows (first use)…`;
  return `Fitting UMAP on ${count(info.umap_sample)} of ${info.table}'s ${count(info.rows)} rows, then placing ` +
    "the others (3-D, first use: a minute or two on a large table; the rest of the lab keeps working)…";
}

const keyCache = new Map(); // table -> its keys (a million keys are worth fetching once)
function keysOf(table) {
  if (!keyCache.has(table)) keyCache.set(table, get("/api/projector/keys", { table }));
  return keyCache.get(table);
}

// One trace per colour code (a legend for free), or one trace coloured by norm. A click on a point
// calls `onPoint(key)`.
export async function draw(page, map, onPoint) {
  const started = performance.now();
  const { layout, info, keys } = map;
  const [n] = layout.shape;
  const traces = map.scheme in info.names && info.names[map.scheme]
    ? categorical(map, info.names[map.scheme], info.colours) : continuous(map);
  map.rows = traces.map((t) => t.rows); // each trace's table rows, for clicks
  for (const t of traces) delete t.rows;
  await plot(page.map, traces, LAYOUT);
  page.map.removeAllListeners?.("plotly_click");
  page.map.on("plotly_click", (event) => {
    const point = event.points[0];
    const rows = map.rows[point.curveNumber];
    if (rows) onPoint(keys[rows[point.pointNumber]]);
  });
  const drawn = performance.now() - started;
  const caption = layout.headers.get("X-Caption");
  page.caption.textContent = `${count(n)} points of ${map.table} (${count(info.rows)} × ${count(info.dim)}). ` +
    `${caption}. Fetched in ${Math.round(map.fetched)} ms, drawn in ${Math.round(drawn)} ms.`;
  Object.assign(page.map.dataset, { points: n, fetchMs: Math.round(map.fetched), drawMs: Math.round(drawn) });
}

// Take the plot down (the 2-D map is about to use its node).
export async function clear(node) {
  if (node.data) (await plotly()).purge(node);
}

// One trace per code present, coloured as /info says; rows in no theme are the faint background.
function categorical(map, names, palette) {
  const { layout, colours, keys } = map;
  return names.map((name, code) => rowsWhere(colours.values, (c) => c === code)).flatMap((rows, code) => {
    if (rows.length === 0) return [];
    const faint = code === 0 && map.scheme === "theme";
    const marker = { color: palette[names[code]], size: faint ? 3 : 5, opacity: faint ? 0.5 : 0.9 };
    return [{ ...points(layout.values, rows, keys, { name: `${names[code]} (${count(rows.length)})`, marker }), rows }];
  });
}

// Rows with a value coloured on a scale (norm, displacement); rows without one (NaN: a key the
// compared table lacks) grey.
function continuous(map) {
  const { layout, colours, keys } = map;
  const valued = rowsWhere(colours.values, (v) => !Number.isNaN(v));
  const missing = rowsWhere(colours.values, (v) => Number.isNaN(v));
  const title = map.moved ? "moved" : "‖row‖";
  const values = Float32Array.from(valued, (r) => colours.values[r]);
  const traces = [{ ...points(layout.values, valued, keys, { name: `${title} (${count(valued.length)})`,
    marker: { color: values, colorscale: "Viridis", size: 3, showscale: true, colorbar: { title: { text: title } },
      ...(map.moved ? { cmin: 0, cmax: 2 } : {}) } }), rows: valued }];
  if (missing.length) {
    traces.push({ ...points(layout.values, missing, keys, { name: `not in the compared table (${count(missing.length)})`,
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

// A scatter3d trace of `rows`, each point's hover text its key.
function points(coordinates, rows, keys, { name, marker }) {
  const axis = (a) => Float32Array.from(rows, (r) => coordinates[r * 3 + a]);
  return { name, type: "scatter3d", mode: "markers", x: axis(0), y: axis(1), z: axis(2),
    text: Array.from(rows, (r) => keys[r]), hovertemplate: "%{text}<extra></extra>", marker };
}

// The top margin leaves the toolbar (plotly's modebar, 25 px high when shown) a strip of its own, above
// the colour bar's title; the camera stands back (plotly's default eye is 1.25 on each axis) so that
// the turning cube, its tick labels included, stays inside the plot at any angle.
const TOOLBAR_PX = 32;
const EYE = 1.7;
const LAYOUT = { legend: { orientation: "h", y: -0.08 }, uirevision: "map", margin: { l: 30, r: 10, t: TOOLBAR_PX, b: 30 },
  scene: { aspectmode: "cube", xaxis: { title: "" }, yaxis: { title: "" }, zaxis: { title: "" },
    camera: { eye: { x: EYE, y: EYE, z: EYE } } } };

// Mark the key and its true neighbours and turn the camera to it. -> false when `map` is not the
// focus's table's (not drawn yet: the redraw searches again).
export async function highlight(page, map, focus) {
  if (!map || map.table !== focus.table) return false;
  const { layout, keys } = map;
  const base = map.rows.length;
  const extra = page.map.data.length - base;
  const Plotly = await plotly();
  if (extra > 0) await Plotly.deleteTraces(page.map, [...Array(extra).keys()].map((i) => base + i));
  const rows = Int32Array.from(focus.neighbours, (nb) => nb.row);
  await Plotly.addTraces(page.map, [
    points(layout.values, rows, keys, { name: `its ${focus.k} nearest rows`,
      marker: { color: "rgba(0,0,0,0)", size: 12, line: { color: colour("highlight"), width: 3 } } }),
    { ...points(layout.values, Int32Array.of(focus.row), keys, { name: focus.key,
      marker: { color: colour("ink"), size: 14, symbol: "diamond" } }), mode: "markers+text", textposition: "top center" },
  ]);
  await fly(page, map, focus.point);
  return true;
}

// Turn the camera's centre to `point`.
async function fly(page, map, point) {
  const { values } = map.layout;
  const extent = [0, 1, 2].map((a) => {
    let lo = Infinity, hi = -Infinity;
    for (let i = a; i < values.length; i += 3) { lo = Math.min(lo, values[i]); hi = Math.max(hi, values[i]); }
    return [lo, hi];
  });
  // subtle: scene coordinates run over [-0.5, 0.5] per axis with aspectmode "cube"
  const [x, y, z] = extent.map(([lo, hi], a) => (point[a] - (lo + hi) / 2) / (hi - lo || 1));
  return (await plotly()).relayout(page.map, { "scene.camera": { center: { x, y, z }, eye: { x: x + 0.8, y: y + 0.8, z: z + 0.8 } } });
}

// What the page lists under the map for a key searched in 3-D: { said, rows: [key, cosine, map rank],
// after } (projector.js lays it out as it does a clicked point's neighbours in 2-D).
export const focusList = (focus) => ({
  said: `'${focus.key}' is row ${count(focus.row)}` + (focus.count === null ? "" : `, seen ${count(focus.count)} times`) +
    `. Of its ${focus.k} nearest rows in the full space (cosine), ${focus.kept} are among its ${focus.k} ` +
    "nearest points on this map; the map rank of each says how many points the map puts closer.",
  rows: focus.neighbours.map((nb) => [nb.key, fixed(nb.cosine, 4), count(nb.map_rank)]),
  after: `Nearest on the map: ${focus.map_neighbours.join(", ")}`,
});
