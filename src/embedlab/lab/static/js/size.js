// Table size: a text or image layout and a dtype -> parameters and memory from embedlab.sizing; a preset
// fills the controls with its whole layout as the API gives it. Beside the tables' bytes, the activations:
// the output X (B, T, D) of one forward pass (an image's T is N + 1, fixed), and a text layout's token table stored
// as fp32, fp16, int8 or product-quantized codes (fastText's .ftz). Below, a heat map of a block of a served table,
// each cell one parameter.
import { checkbox, el, field, memory, num, number, select, table } from "./dom.js";
import { config, get, latest } from "./http.js";
import { heat } from "./plot.js";

// The layout's fields each kind of layout sets; the others are sent as the kind needs them (0: absent).
const KINDS = { text: ["vocab_size", "max_len", "n_segments", "tied"], image: ["image_size", "patch_size", "in_channels"] };
const ABSENT = { text: { image_size: 0, patch_size: 0 }, image: { vocab_size: 0, max_len: 0, n_segments: 0 } };

export async function render(root) {
  const [presets, { tables }, { limits }] = await Promise.all([get("/api/size/presets"), get("/api/tables"), config()]);
  const page = build(root, presets, tables, limits.size);
  const sizeView = latest(() => loadSize(page), (r) => drawSize(page, r), page.out);
  const actsView = latest(() => loadActs(page), (r) => drawActs(page, r), page.acts);
  const storedView = latest(() => loadStored(page), (r) => drawStored(page, r), page.stored);
  const blockView = latest(() => loadBlock(page), (r) => drawBlock(page, r), page.status);
  const both = () => Promise.all([sizeView(), actsView(), storedView()]);
  page.preset.addEventListener("change", () => { usePreset(page, presets[page.preset.value]); both(); });
  page.kind.addEventListener("change", () => { page.preset.value = ""; showKind(page); both(); });
  for (const input of Object.values(page.layout)) {
    input.addEventListener("input", () => { page.preset.value = ""; both(); }); // no longer the preset's
  }
  page.dtype.addEventListener("input", both);
  for (const input of [page.batch, page.seq]) input.addEventListener("input", actsView);
  for (const input of [page.dsub, page.qnorm]) input.addEventListener("input", storedView);
  // another table opens on its own first words (the server picks the row), not on the row number typed
  page.source.addEventListener("input", () => { page.start.value = ""; });
  for (const input of [page.source, page.start, page.rows, page.dims]) input.addEventListener("input", blockView);
  page.token.addEventListener("change", blockView);
  page.preset.value = Object.keys(presets)[0]; // the page opens on a real model's layout
  usePreset(page, presets[page.preset.value]);
  await Promise.all([both(), blockView()]);
}

function build(root, presets, tables, limits) {
  const page = {
    preset: select("size-preset", ["", ...Object.keys(presets)], "", (name) => name || "(custom)"),
    kind: select("size-kind", Object.keys(KINDS), "text", (kind) => `${kind} layout`),
    dtype: select("size-dtype", limits.dtypes),
    layout: { // one control per field of sizing's EmbeddingLayout, named as the API names them
      vocab_size: number("size-vocab", limits.vocab_size, 30522),
      dim: number("size-dim", limits.dim, 768),
      positions: select("size-positions", limits.positions),
      max_len: number("size-maxlen", limits.max_len, 512),
      n_segments: number("size-segments", limits.n_segments, 0),
      tied: checkbox("size-tied", true),
      image_size: number("size-image", limits.image_size, 224),
      patch_size: number("size-patch", limits.patch_size, 16),
      in_channels: number("size-channels", limits.in_channels, 3),
    },
    out: el("div", { id: "size-result" }),
    batch: number("size-batch", limits.batch, 32),
    seq: number("size-seq", limits.seq, 512),
    acts: el("div", { id: "size-activations" }),
    dsub: number("size-dsub", limits.dsub, 2),
    qnorm: checkbox("size-qnorm", false),
    stored: el("div", { id: "size-stored" }),
    source: select("size-table", tables),
    // empty: the server starts at the table's first word, past [PAD] and [unused…] (filled in when drawn)
    start: el("input", { id: "size-start", type: "number", min: 0, value: "", placeholder: "(first word)" }),
    rows: number("size-rows", limits.rows, 32),
    dims: number("size-dims", limits.dims, 64),
    token: el("input", { id: "size-token", placeholder: "(rows from start)", maxlength: limits.token }),
    status: el("div", { id: "size-slice-status" }),
    caption: el("p", { id: "size-slice-caption", class: "stat" }),
    map: el("div", { id: "size-heatmap", class: "plot" }),
  };
  const f = page.layout;
  page.groups = {
    text: el("div", { class: "controls", id: "size-text" }, field("V (vocabulary)", f.vocab_size),
      field("max length", f.max_len), field("segments", f.n_segments), field("tied output", f.tied)),
    image: el("div", { class: "controls", id: "size-image-controls" }, field("image side (px)", f.image_size),
      field("patch side P (px)", f.patch_size), field("channels", f.in_channels)),
  };
  page.groups.stored = el("section", { id: "size-stored-section" },
    el("h3", {}, "Stored smaller: the token table's bytes"),
    el("p", {}, "The same V × d table stored as 32-bit or 16-bit floats, as 8-bit integers, or product-quantized " +
      "as fastText's .ftz: each row cut into pieces of dsub numbers, each piece stored as one byte naming the " +
      "nearest of 256 centroids learned for its place; the centroids are stored once. qnorm keeps each row's " +
      "length apart, one byte more a row. What each costs in benchmark points is measured in docs/quantize.md."),
    el("div", { class: "controls" }, field("dsub (numbers a byte)", page.dsub), field("qnorm", page.qnorm)),
    page.stored);
  root.append(
    el("h2", {}, "Table size"),
    el("p", {}, "An embedding table holds V rows of d numbers. Change the vocabulary, the width, the number " +
      "type, whether the output layer reuses the table, and how positions are encoded; an image layout (ViT) " +
      "has patches instead of a vocabulary. The counts below come from embedlab.sizing, and a preset is a " +
      "real model's layout as sizing holds it."),
    el("div", { class: "controls" }, field("preset", page.preset), field("layout", page.kind),
      field("d (width)", f.dim), field("positions", f.positions), field("dtype", page.dtype)),
    page.groups.text, page.groups.image,
    page.out,
    el("h3", {}, "Activations: what the tables hand on"),
    el("p", {}, "One forward pass turns B sequences of T tokens into X, B × T × d numbers in the same type: " +
      "values, not parameters. They grow with the batch and the length; the tables do not. An image's T is " +
      "its N patches plus the CLS token, fixed by the layout."),
    el("div", { class: "controls" }, field("B (batch)", page.batch), field("T (tokens)", page.seq)),
    page.acts,
    page.groups.stored,
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

// A preset's layout (every field, as /api/size/presets gives it) into the controls of its kind.
function usePreset(page, layout) {
  if (!layout) return; // "(custom)": the controls stay as they are
  page.kind.value = layout.patch_size > 0 ? "image" : "text";
  for (const [name, value] of Object.entries(layout)) {
    if (name === "tied") page.layout.tied.checked = value;
    // hidden controls keep theirs; a field with no control here (a huge vocabulary's table, which
    // `embedlab size` counts) is left at its default
    else if (!(name in ABSENT[page.kind.value]) && name in page.layout) page.layout[name].value = value;
  }
  showKind(page);
  // learned positions have no rows past max_len: a T beyond them would be refused
  const learnedText = !layout.patch_size && layout.positions === "learned";
  if (learnedText && Number(page.seq.value) > layout.max_len) page.seq.value = layout.max_len;
}

function showKind(page) {
  for (const kind of Object.keys(KINDS)) page.groups[kind].hidden = kind !== page.kind.value;
  page.groups.stored.hidden = page.kind.value !== "text"; // an image layout has no token table
  // an image's T is N + 1: drawActs shows it in the disabled box, and the text's T comes back after
  const image = page.kind.value === "image";
  if (image && !("text" in page.seq.dataset)) page.seq.dataset.text = page.seq.value;
  if (!image && "text" in page.seq.dataset) { page.seq.value = page.seq.dataset.text; delete page.seq.dataset.text; }
  page.seq.disabled = image;
}

// Every layout field goes: the controls' values, with the fields the kind lacks as 0.
function layoutParams(page) {
  const values = Object.fromEntries(Object.entries(page.layout).map(([name, input]) =>
    [name, input.type === "checkbox" ? input.checked : input.value]));
  return { ...values, ...ABSENT[page.kind.value], dtype: page.dtype.value };
}

const loadSize = (page) => get("/api/size", layoutParams(page));

// The layout, B, and T for text (an image's T is the layout's own).
function loadActs(page) {
  const seq = page.kind.value === "text" ? { seq: page.seq.value } : {};
  return get("/api/size/activations", { ...layoutParams(page), batch: page.batch.value, ...seq });
}

function drawActs(page, r) {
  if (page.kind.value === "image") page.seq.value = r.seq; // N + 1, shown in its (disabled) box
  const ratio = r.param_bytes ? ` = ${num(r.bytes / r.param_bytes, 2)}× the tables' ${memory(r.param_bytes)}` : "";
  page.acts.replaceChildren(el("p", { id: "size-acts-total" }, `X: ${num(r.batch)} × ${num(r.seq)} × ` +
    `${num(r.dim)} = ${num(r.values)} values = ${num(r.bytes)} bytes = ${memory(r.bytes)} in ${r.dtype}${ratio}`));
}

function drawSize(page, r) {
  const rows = Object.entries(r.shares).filter(([, s]) => s > 0)
    .map(([name, s]) => [name, num(r[`${name}_params`]), `${num(100 * s, 1)}%`]);
  const patches = r.patch_size ? [el("p", { class: "note" }, `${r.image_size}×${r.image_size} px in ` +
    `${r.patch_size}×${r.patch_size} patches: N = ${num(r.n_patches)}, plus one CLS token.`)] : [];
  page.out.replaceChildren(table(["table", "parameters", "share"], rows), ...patches,
    el("p", { id: "size-total" }, `${num(r.total_params)} parameters = ${num(r.bytes)} bytes = ` +
      `${memory(r.bytes)} in ${r.dtype}`));
}

// A text layout's token table four ways; an image layout asks nothing (its section is hidden).
function loadStored(page) {
  if (page.kind.value !== "text") return Promise.resolve(null);
  return get("/api/size/stored", { ...layoutParams(page), dsub: page.dsub.value, qnorm: page.qnorm.checked });
}

function drawStored(page, r) {
  if (!r) { page.stored.replaceChildren(); return; }
  const q = r.quantized;
  const kinds = [["fp32", r.fp32], ["fp16", r.fp16], ["int8 (weights only)", r.int8]];
  if (q) kinds.push([`product-quantized, dsub ${q.dsub}${q.qnorm ? ", qnorm" : ""}`, q.bytes]);
  const rows = kinds.map(([name, bytes]) => [name, num(bytes), memory(bytes), `${num(r.fp32 / bytes, 2)}×`]);
  const note = q ? `${num(q.rows)} rows × ${num(q.nsubq)} code bytes + 256 × ${num(q.dim)} × 4 codebook bytes` +
    (q.qnorm ? ` + ${num(q.norms)} norm bytes` : "") + " = " + `${num(q.bytes)} bytes` :
    `${num(r.rows)} rows are too few to quantize: each piece's 256 centroids are learned from the rows.`;
  page.stored.replaceChildren(table(["stored as", "bytes", "memory", "smaller than fp32"], rows),
    el("p", { id: "size-stored-note", class: "note" }, note));
}

// Rows start..start+rows (or a token and its nearest rows) × the first dims columns.
function loadBlock(page) {
  const params = { table: page.source.value, rows: page.rows.value, dims: page.dims.value };
  if (page.start.value !== "") params.start = page.start.value;
  if (page.token.value) params.token = page.token.value;
  return get("/api/size/slice", params);
}

function drawBlock(page, r) {
  const n = r.values.length, m = r.values[0].length;
  if (!page.token.value && page.start.value === "") page.start.value = r.rows[0]; // where the table opened
  const where = page.token.value ? `'${r.keys[0]}' and its ${n - 1} nearest rows` :
    `rows ${num(r.rows[0])}–${num(r.rows[n - 1])}`;
  page.caption.textContent = `${where} of ${num(r.vocab_size)} × columns 0–${m - 1} of ${r.dim} in ` +
    `${r.table}: ${num(n * m)} of its ${num(r.vocab_size * r.dim)} parameters`;
  heat(page.map, r.values, { y: r.keys, layout: { height: Math.max(320, 14 * n + 80),
    margin: { t: 10 } } }); // no title
}
