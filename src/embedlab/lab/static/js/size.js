// Table size: V, d, dtype, tying and positions -> parameters and memory from embedlab.sizing; below,
// a heat map of a block of a served table, each cell one parameter.
import { checkbox, count, el, field, number, select, table } from "./dom.js";
import { config, get, latest } from "./http.js";
import { heat } from "./plot.js";

export async function render(root) {
  const [presets, { tables }, { limits }] = await Promise.all([get("/api/size/presets"), get("/api/tables"), config()]);
  const page = build(root, presets, tables, limits.size);
  const sizeView = latest(() => loadSize(page), (r) => drawSize(page, r), page.out);
  const blockView = latest(() => loadBlock(page), (r) => drawBlock(page, r), page.status);
  page.preset.addEventListener("change", () => { usePreset(page, presets[page.preset.value]); sizeView(); });
  for (const input of [page.vocab, page.dim, page.dtype, page.positions, page.maxLen, page.tied]) {
    input.addEventListener("input", sizeView);
  }
  for (const input of [page.source, page.start, page.rows, page.dims]) input.addEventListener("input", blockView);
  page.token.addEventListener("change", blockView);
  await Promise.all([sizeView(), blockView()]);
}

function build(root, presets, tables, limits) {
  const page = {
    preset: select("size-preset", ["", ...Object.keys(presets)], "", (name) => name || "(custom)"),
    vocab: number("size-vocab", limits.vocab_size, 30522),
    dim: number("size-dim", limits.dim, 768),
    dtype: select("size-dtype", limits.dtypes),
    positions: select("size-positions", limits.positions),
    maxLen: number("size-maxlen", limits.max_len, 512),
    tied: checkbox("size-tied", true),
    out: el("div", { id: "size-result" }),
    source: select("size-table", tables),
    start: el("input", { id: "size-start", type: "number", min: 0, value: 0 }),
    rows: number("size-rows", limits.rows, 32),
    dims: number("size-dims", limits.dims, 64),
    token: el("input", { id: "size-token", placeholder: "(rows from start)", maxlength: limits.token }),
    status: el("div", { id: "size-slice-status" }),
    caption: el("p", { id: "size-slice-caption", class: "stat" }),
    map: el("div", { id: "size-heatmap", class: "plot" }),
  };
  root.append(
    el("h2", {}, "Table size"),
    el("p", {}, "An embedding table holds V rows of d numbers. Change the vocabulary, the width, the number " +
      "type, whether the output layer reuses the table, and how positions are encoded: the counts below " +
      "come from embedlab.sizing."),
    el("div", { class: "controls" }, field("preset", page.preset), field("V (vocabulary)", page.vocab),
      field("d (width)", page.dim), field("dtype", page.dtype), field("positions", page.positions),
      field("max length", page.maxLen), field("tied output", page.tied)),
    page.out,
    el("h3", {}, "A block of a real table"),
    el("p", {}, "Each cell is one parameter of a served table: a row is one key's vector, a column one " +
      "dimension. Give a token to see its row above its nearest rows by cosine; related keys tend to share " +
      "their strong columns."),
    el("div", { class: "controls" }, field("table", page.source), field("first row", page.start),
      field(`rows (≤ ${limits.rows[1]})`, page.rows), field(`columns (≤ ${limits.dims[1]})`, page.dims),
      field("neighbours of", page.token)),
    page.status, page.caption, page.map);
  return page;
}

function usePreset(page, p) {
  if (!p || !p.vocab_size) return; // "(custom)" or an image layout: the controls stay as they are
  page.vocab.value = p.vocab_size; page.dim.value = p.dim; page.positions.value = p.positions;
  page.maxLen.value = p.max_len; page.tied.checked = p.tied;
}

const loadSize = (page) => get("/api/size", { vocab_size: page.vocab.value, dim: page.dim.value,
  dtype: page.dtype.value, positions: page.positions.value, max_len: page.maxLen.value, tied: page.tied.checked });

function drawSize(page, r) {
  const rows = Object.entries(r.shares).filter(([, s]) => s > 0)
    .map(([name, s]) => [name, count(r[`${name}_params`]), `${(100 * s).toFixed(1)}%`]);
  page.out.replaceChildren(table(["table", "parameters", "share"], rows),
    el("p", { id: "size-total" }, `${count(r.total_params)} parameters = ${count(r.bytes)} bytes = ` +
      `${r.mib.toFixed(2)} MiB in ${r.dtype}`));
}

// Rows start..start+rows (or a token and its nearest rows) × the first dims columns.
function loadBlock(page) {
  const params = { table: page.source.value, start: page.start.value, rows: page.rows.value, dims: page.dims.value };
  if (page.token.value) params.token = page.token.value;
  return get("/api/size/slice", params);
}

function drawBlock(page, r) {
  const n = r.values.length, m = r.values[0].length;
  const where = page.token.value ? `'${r.keys[0]}' and its ${n - 1} nearest rows` : `rows ${r.rows[0]}–${r.rows[n - 1]}`;
  page.caption.textContent = `${where} of ${count(r.vocab_size)} × columns 0–${m - 1} of ${r.dim} in ` +
    `${r.table}: ${count(n * m)} of its ${count(r.vocab_size * r.dim)} parameters`;
  heat(page.map, r.values, { y: r.keys, layout: { height: Math.max(320, 14 * n + 80),
    margin: { l: 110, r: 20, t: 10, b: 40 } } });
}
