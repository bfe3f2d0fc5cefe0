// Table size: V, d, dtype, tying and positions -> parameters and memory from embedlab.sizing; below,
// a heat map of a block of a served table, each cell one parameter.
import { el, field, get, guard, plot, table } from "./api.js";

export async function render(root) {
  const [presets, { tables }] = await Promise.all([get("/api/size/presets"), get("/api/tables")]);
  const preset = el("select", { id: "size-preset" }, el("option", { value: "" }, "(custom)"),
    ...Object.keys(presets).map((name) => el("option", { value: name }, name)));
  const vocab = el("input", { id: "size-vocab", type: "number", min: 1, value: 30522 });
  const dim = el("input", { id: "size-dim", type: "number", min: 1, value: 768 });
  const dtype = el("select", { id: "size-dtype" }, ...["fp32", "fp16", "bf16", "int8"].map((d) => el("option", {}, d)));
  const positions = el("select", { id: "size-positions" },
    ...["learned", "sinusoidal", "rotary", "relative", "none"].map((p) => el("option", {}, p)));
  const maxLen = el("input", { id: "size-maxlen", type: "number", min: 0, value: 512 });
  const tied = el("input", { id: "size-tied", type: "checkbox" });
  tied.checked = true;
  const out = el("div", { id: "size-result" });
  root.append(
    el("h2", {}, "Table size"),
    el("p", {}, "An embedding table holds V rows of d numbers. Change the vocabulary, the width, the number " +
      "type, whether the output layer reuses the table, and how positions are encoded: the counts below " +
      "come from embedlab.sizing."),
    el("div", { class: "controls" }, field("preset", preset), field("V (vocabulary)", vocab), field("d (width)", dim),
      field("dtype", dtype), field("positions", positions), field("max length", maxLen), field("tied output", tied)),
    out);

  const update = () => guard(out, async () => {
    const r = await get("/api/size", { vocab_size: vocab.value, dim: dim.value, dtype: dtype.value,
      positions: positions.value, max_len: maxLen.value, tied: tied.checked });
    const rows = Object.entries(r.shares).filter(([, s]) => s > 0)
      .map(([name, s]) => [name, r[`${name}_params`].toLocaleString(), `${(100 * s).toFixed(1)}%`]);
    out.replaceChildren(table(["table", "parameters", "share"], rows),
      el("p", { id: "size-total" }, `${r.total_params.toLocaleString()} parameters = ` +
        `${r.bytes.toLocaleString()} bytes = ${r.mib.toFixed(2)} MiB in ${r.dtype}`));
  });
  preset.addEventListener("change", () => {
    const p = presets[preset.value];
    if (!p || !p.vocab_size) return update();
    vocab.value = p.vocab_size; dim.value = p.dim; positions.value = p.positions;
    maxLen.value = p.max_len; tied.checked = p.tied;
    update();
  });
  for (const input of [vocab, dim, dtype, positions, maxLen, tied]) input.addEventListener("input", update);
  await Promise.all([update(), heatmap(root, tables)]);
}

// The heat map: rows start..start+rows (or a token and its nearest rows) × the first dims columns.
async function heatmap(root, tables) {
  const source = el("select", { id: "size-table" }, ...tables.map((t) => el("option", {}, t)));
  const start = el("input", { id: "size-start", type: "number", min: 0, value: 0 });
  const rows = el("input", { id: "size-rows", type: "number", min: 1, max: 256, value: 32 });
  const dims = el("input", { id: "size-dims", type: "number", min: 1, max: 512, value: 64 });
  const token = el("input", { id: "size-token", placeholder: "(rows from start)", maxlength: 100 });
  const status = el("div", { id: "size-slice-status" });
  const caption = el("p", { id: "size-slice-caption", class: "stat" });
  const map = el("div", { id: "size-heatmap", class: "plot" });
  root.append(
    el("h3", {}, "A block of a real table"),
    el("p", {}, "Each cell is one parameter of a served table: a row is one key's vector, a column one " +
      "dimension. Give a token to see its row above its nearest rows by cosine; related keys tend to share " +
      "their strong columns."),
    el("div", { class: "controls" }, field("table", source), field("first row", start), field("rows (≤ 256)", rows),
      field("columns (≤ 512)", dims), field("neighbours of", token)),
    status, caption, map);

  let ticket = 0; // only the latest answer draws
  const update = () => {
    const mine = ++ticket;
    const params = { table: source.value, start: start.value, rows: rows.value, dims: dims.value };
    if (token.value) params.token = token.value;
    return guard(status, async () => {
      const r = await get("/api/size/slice", params);
      if (mine !== ticket) return;
      status.replaceChildren();
      const n = r.values.length, m = r.values[0].length;
      const where = token.value ? `'${r.keys[0]}' and its ${n - 1} nearest rows` : `rows ${r.rows[0]}–${r.rows[n - 1]}`;
      caption.textContent = `${where} of ${r.vocab_size.toLocaleString()} × columns 0–${m - 1} of ${r.dim} in ` +
        `${r.table}: ${(n * m).toLocaleString()} of its ${(r.vocab_size * r.dim).toLocaleString()} parameters`;
      const limit = r.values.flat().reduce((a, v) => Math.max(a, Math.abs(v)), 0) || 1; // zero sits mid-scale
      plot(map, [{ type: "heatmap", z: r.values, y: r.keys, colorscale: "RdBu", reversescale: true, zmin: -limit,
        zmax: limit, hovertemplate: "%{y}, column %{x}: %{z:.4f}<extra></extra>" }],
      { height: Math.max(320, 14 * n + 80), margin: { l: 110, r: 20, t: 10, b: 40 },
        xaxis: { title: { text: "column" } }, yaxis: { autorange: "reversed", type: "category" } });
    });
  };
  for (const input of [source, start, rows, dims]) input.addEventListener("input", update);
  token.addEventListener("change", update);
  await update();
}
