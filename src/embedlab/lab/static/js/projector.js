// Projector: every row of a served table on one map, whatever its size. In 2-D the map is tiled
// (projector_map.js): the server builds the layout's quadtree of tiles once (the page shows its
// progress meanwhile), the root tile's thousand rows are drawn at once, and the tiles under the view
// follow as one pans and zooms, with density contours and region labels. Keys are searched among
// every row (a substring, or a regular expression), the hits ringed and counted; a click on a point
// links it to its nearest rows in the table's own space, with their cosines. 3-D keeps one plotly
// scatter of every row (projector_3d.js, tables up to limits.rows). Another served table can be
// compared with the one shown: the largest movers listed, and every row coloured by how far it moved.
import { checkbox, count, el, errorLine, field, fixed, note, number, select, table } from "./dom.js";
import { config, get, getBytes, latest } from "./http.js";
import { TileMap } from "./projector_map.js";
import { RAMP_CSS, rgba } from "./projector_points.js";

const SCHEME_LABELS = { band: "frequency band", theme: "theme", norm: "row norm", moved: "moved (vs compared)" };
const MOVED = "moved"; // a colouring of the page's own: each row's displacement against the compared table
const MOVED_RANGE = [0, 2]; // a displacement between unit rows: 0 unmoved, 2 opposite
const MOVERS = 15; // movers listed
const POLL_MS = 300; // how often a map being built is asked about
const VIEW = 0.2; // a found key's view spans this share of the map's width (its smaller side does)
const FAINT = 0.35; // the opacity of the theme's code 0 (rows in no group): the background (under 0.5: also smaller)
const SOLID = 0.85;
const view3d = () => import("./projector_3d.js"); // plotly's path, loaded the first time 3-D is asked for

// The 2-D map draws without plotly (3-D imports it when first asked for): main.js need not load it first.
export const usesPlotly = false;

export async function render(root) {
  const [{ tables }, { limits }] = await Promise.all([get("/api/tables"), config()]);
  const page = build(root, tables, limits.projector);
  const redraw = latest(() => load(page), (loaded) => draw(page, loaded), page.status, () => takeDown(page));
  const search = latest(() => find(page), (found) => showHits(page, found), page.hits, () => page.tiled?.setHits(null));
  page.reach = latest(() => get("/api/projector/neighbours", { table: page.source.value, method: page.method.value,
    row: page.row, k: page.k.value }), (reach) => showReach(page, reach), page.focus, () => page.tiled?.setFocus(null));
  const focus3d = latest(() => get("/api/projector/focus", { table: page.source.value, key: page.key.value,
    k: page.k.value, method: page.method.value, dims: 3 }), (focus) => showFocus3d(page, focus), page.focus);
  page.search = () => (is3d(page) ? focus3d() : search());
  const compared = latest(() => compare(page), (answer) => showComparison(page, answer), page.comparison);
  page.onPoint = (key) => {
    page.key.value = key;
    page.regex.checked = false;
    page.search();
  };
  page.source.addEventListener("change", () => { offerOthers(page, tables); compared(); });
  page.other.addEventListener("change", () => {
    page.scheme.querySelector(`option[value="${MOVED}"]`).disabled = !page.other.value;
    compared();
    if (page.scheme.value === MOVED) redraw();
  });
  for (const input of [page.source, page.method, page.dims, page.scheme]) input.addEventListener("change", redraw);
  for (const input of [page.key, page.regex]) input.addEventListener("change", () => page.search());
  page.k.addEventListener("change", () => (is3d(page) ? focus3d() : page.row !== null && page.reach()));
  root.addEventListener("leave", () => { page.left = true; page.tiled?.close(); }, { once: true });
  offerOthers(page, tables);
  await redraw();
  if (root.dataset.sim === "projector") root.dataset.ready = "true"; // drawn: the page need not wait for plotly
}

function build(root, tables, limits) {
  const page = {
    limits,
    source: select("proj-table", tables),
    method: select("proj-method", limits.methods, "pca", (m) => m.toUpperCase()),
    dims: select("proj-dims", limits.dims, 2, (d) => `${d}-D`),
    scheme: select("proj-scheme", [...limits.schemes, MOVED], "theme", (s) => SCHEME_LABELS[s] ?? s),
    other: select("proj-other", [""], "", (t) => t || "(none)"),
    key: el("input", { id: "proj-key", value: "", size: 16, maxlength: limits.token,
      placeholder: "a key, or part of one" }),
    regex: checkbox("proj-regex"),
    k: number("proj-k", limits.k, 10),
    status: el("div", { id: "proj-status" }),
    caption: note("", { id: "proj-caption" }),
    legend: el("div", { id: "proj-legend", class: "proj-legend" }),
    map: el("div", { id: "proj-map", class: "plot projector" }),
    hits: el("div", { id: "proj-hits" }),
    focus: el("div", { id: "proj-focus" }),
    comparison: el("div", { id: "proj-comparison" }),
    row: null, // the clicked (or found) row whose neighbours are linked, in the 2-D map's table
    tiled: null, // the 2-D map (TileMap) while one is shown
    plotted: null, // the 3-D map's data while one is shown
  };
  page.regexField = field("regular expression", page.regex);
  root.append(
    el("h2", {}, "Projector"),
    el("p", {}, "Every row of a table on one map, however many rows it has: the map arrives in tiles, a sample of " +
      "the whole first and more rows as you zoom in (drag to pan, scroll or +/− to zoom). A 2-D view cannot keep " +
      "every neighbourhood of a table hundreds of columns wide: click a point to see its nearest rows, found in " +
      "the full space, and where the map puts them. Search finds keys among every row, drawn or not."),
    el("div", { class: "controls" }, field("table", page.source), field("map", page.method), field("view", page.dims),
      field("colour by", page.scheme), field("search", page.key), page.regexField, field("neighbours k", page.k)),
    page.status, page.caption, page.legend, page.map, page.hits, page.focus,
    el("h3", {}, "Compare with another table"),
    el("p", { id: "proj-compare-note" }, "The keys both tables hold, their rows turned onto each other (orthogonal " +
      "Procrustes): how far each moved, and how many of its k nearest keys it kept (Jaccard@k). Both neighbour " +
      "lists are searched among the shared keys only, each in its own table's space, so a key one of them " +
      "holds alone never shows in them."),
    el("div", { class: "controls" }, field("compare with", page.other)), page.comparison);
  return page;
}

const is3d = (page) => page.dims.value === "3";
const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

// 2-D: the map's manifest, asked again every POLL_MS while its tiles are built (the build's stage
// shown, the map of another table taken down). 3-D: the whole table (projector_3d.js). -> null when
// the page left or the table, layout or view changed meanwhile (latest() then asks again).
async function load(page) {
  const table = page.source.value, method = page.method.value;
  if (page.left) return null;
  if (is3d(page)) {
    const view = await view3d();
    return { view, map: await view.load(page, (schemes) => offer(page, schemes), () => page.scheme.value === MOVED) };
  }
  const asked = performance.now();
  const asking = get("/api/projector/tiles", { table, method });
  if (page.plotted) {
    await (await view3d()).clear(page.map);
    page.plotted = null;
  }
  page.tiled ??= newMap(page); // its WebGL context and program made while the manifest is on its way
  let manifest = await asking;
  while (manifest.state !== "ready") {
    if (page.shown?.table !== table || page.shown?.method !== method) takeDown(page);
    const { stage, done, total } = manifest.progress ?? manifest;
    page.status.replaceChildren(note(`Building the ${method.toUpperCase()} map of ${table} (first use; kept ` +
      `beside the table for the next time): ${stage}` + (total ? ` ${count(done)} of ${count(total)}` : "") + "…",
    { id: "proj-building", class: "note busy" }));
    await sleep(POLL_MS);
    if (page.left || page.source.value !== table || page.method.value !== method || is3d(page)) return null;
    manifest = await get("/api/projector/tiles", { table, method });
  }
  return { manifest, asked };
}

async function draw(page, loaded) {
  if (!loaded || page.left) return;
  if (loaded.view) {
    page.tiled?.close();
    page.tiled = null;
    page.shown = null;
    page.legend.replaceChildren();
    page.hits.replaceChildren();
    page.regexField.hidden = true;
    page.plotted = loaded.map;
    await loaded.view.draw(page, loaded.map, page.onPoint);
    if (page.key.value) await page.search();
    return;
  }
  const { manifest, asked } = loaded;
  offer(page, manifest.schemes);
  page.dims.querySelector('option[value="3"]').disabled = manifest.rows > page.limits.rows;
  page.regexField.hidden = false;
  page.tiled ??= newMap(page);
  const scheme = page.scheme.value;
  const { table, method, build: made } = manifest;
  const same = page.shown?.table === table && page.shown?.method === method && page.shown?.build === made;
  if (!same) {
    page.row = null;
    page.focus.replaceChildren();
  }
  const used = await page.tiled.open(tiles(page, manifest, scheme), same);
  if (!used) return; // a newer map was asked for meanwhile
  page.shown = { table, method, build: made };
  legend(page, manifest, scheme, used);
  const ms = Math.round(performance.now() - asked);
  const { rows, dim, root_rows: first, capacity } = manifest;
  page.caption.textContent = `${count(rows)} rows of ${table} (${count(rows)} × ${count(dim)}). ${manifest.caption}. ` +
    `Cut into ${count(Object.keys(manifest.tiles).length)} tiles: ${count(first)} rows sampled from all in the ` +
    `first, drawn ${ms} ms after it was asked for; at most ${count(capacity)} in each other, fetched as the view ` +
    "reaches them.";
  if (!same && page.key.value) await page.search();
}

const newMap = (page) => new TileMap(page.map, { onPick: ({ row }) => { page.row = row; page.reach(); },
  onError: (err) => page.status.replaceChildren(errorLine(err.message)) });

// The tiles of `manifest` coloured by `scheme`, as the map asks for them.
function tiles(page, manifest, scheme) {
  const { table, method, build } = manifest;
  const by = scheme === MOVED ? { by: scheme, other: page.other.value, k: page.k.value } : { by: scheme };
  const names = manifest.names[scheme];
  return {
    manifest,
    colouring: names ? { codes: true, palette: names.map((name, code) =>
      rgba(manifest.colours[name], code === 0 && scheme === "theme" ? FAINT : SOLID)) }
      : { codes: false, range: scheme === MOVED ? MOVED_RANGE : null, missing: rgba(cssColour("line"), 0.5) },
    tile: async (tile) => {
      const { buffer, headers } = await getBytes("/api/projector/tile", { table, method, build, tile, ...by });
      return { bytes: buffer, n: Number(headers.get("X-Rows")), floats: headers.get("X-Value-Dtype") === "float32" };
    },
    overlay: (tile) => get("/api/projector/overlay", { table, method, build, tile }),
  };
}

const cssColour = (name) => getComputedStyle(document.documentElement).getPropertyValue(`--${name}`).trim();

// What the colours mean: a swatch per code, or the ramp with its two ends.
function legend(page, manifest, scheme, colouring) {
  const names = manifest.names[scheme];
  const item = (...children) => el("span", { class: "proj-legend-item" }, ...children);
  const swatch = (css, text) => item(el("span", { class: "swatch", style: `--swatch: ${css}` }), text);
  if (names) {
    page.legend.replaceChildren(...names.map((name) => swatch(manifest.colours[name], name)));
    return;
  }
  const [lo, hi] = colouring.range;
  page.legend.replaceChildren(item(scheme === MOVED ? "moved" : "‖row‖", " ", fixed(lo, 2),
    el("span", { class: "proj-ramp", style: `background: linear-gradient(to right, ${RAMP_CSS.join(", ")})` }),
    fixed(hi, 2)), ...(scheme === MOVED ? [swatch(cssColour("line"), "not in the compared table")] : []));
}

// Take the map down (its table failed, or another is being built).
function takeDown(page) {
  page.tiled?.close();
  page.tiled = null;
  page.shown = null;
  page.caption.textContent = "";
  page.legend.replaceChildren();
}

// Search the keys of every row: a substring, or a regular expression. A substring that is a whole key
// also finds that row (asked for on its own when it is not among the hits sent): the map flies to
// it and links its neighbours, as a click on it would. -> the hits, or null for an empty search.
async function find(page) {
  const pattern = page.key.value;
  if (!pattern) return null;
  const ask = { table: page.source.value, method: page.method.value };
  const found = await get("/api/projector/search", { ...ask, pattern, regex: page.regex.checked });
  if (!found.regex) {
    const at = found.keys.indexOf(pattern);
    let whole = at >= 0 ? { row: found.rows[at], point: found.points[at] } : null;
    if (!whole && found.count > found.shown) {
      const exact = await get("/api/projector/search", { ...ask, pattern: `^${escaped(pattern)}$`, regex: true, limit: 1 });
      if (exact.shown) whole = { row: exact.rows[0], point: exact.points[0] };
    }
    found.whole = whole;
  }
  return found;
}

const escaped = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function showHits(page, found) {
  page.tiled?.setHits(found);
  if (!found) return;
  const rows = page.shown ? ` of ${count(page.tiled.source.manifest.rows)}` : "";
  const what = found.regex ? "match the regular expression" : "hold";
  page.hits.replaceChildren(note(`${count(found.count)}${rows} rows ${what} '${found.pattern}'; ` +
    `${count(found.shown)} shown (ringed on the map). Searched in ${Math.round(1000 * found.seconds)} ms.`,
  { id: "proj-count" }));
  if (found.whole && page.tiled) {
    page.tiled.flyTo(found.whole.point, VIEW);
    page.row = found.whole.row;
    page.reach();
  }
}

function showReach(page, reach) {
  page.tiled?.setFocus(reach);
  listFocus(page, `'${reach.key}' is row ${count(reach.row)}. Of its ${reach.k} nearest rows in the table's own ` +
    `space (cosine, ${reach.search} search: ${Math.round(1000 * reach.seconds)} ms), ${reach.kept} are among its ` +
    `${reach.k} nearest points on this map; the map rank of each says how many points the map puts closer.`,
  reach.neighbours.map((nb) => [nb.key, fixed(nb.cosine, 4), count(nb.map_rank)]));
}

async function showFocus3d(page, focus) {
  const view = await view3d();
  if (!(await view.highlight(page, page.plotted, focus))) return;
  const { said, rows, after } = view.focusList(focus);
  listFocus(page, said, rows, after);
}

// A row's neighbours under the map: what the map did to them, then the table.
function listFocus(page, said, rows, after = null) {
  const neighbours = table(["#", "key", "cosine", "map rank"], rows.map((r, i) => [i + 1, ...r]));
  neighbours.id = "proj-neighbours";
  page.focus.replaceChildren(note(said, { id: "proj-kept" }), neighbours,
    ...(after ? [note(after, { id: "proj-map-neighbours" })] : []));
}

// The tables the shown one can be compared with: every other served table.
function offerOthers(page, tables) {
  const before = page.other.value;
  const others = ["", ...tables.filter((t) => t !== page.source.value)];
  page.other.replaceChildren(...others.map((t) => el("option", { value: t }, t || "(none)")));
  page.other.value = others.includes(before) ? before : "";
}

// Keep the colour choices to those the table offers (band needs corpus counts; moved a compared table).
function offer(page, schemes) {
  const offered = page.other.value ? [...schemes, MOVED] : schemes;
  for (const option of page.scheme.options) option.disabled = !offered.includes(option.value);
  if (!offered.includes(page.scheme.value)) page.scheme.value = offered.includes("theme") ? "theme" : offered[0];
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
