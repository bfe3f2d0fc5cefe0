// Table size: V, d, dtype, tying and positions -> parameters and memory from embedlab.sizing.
import { el, field, get, guard, table } from "./api.js";

export async function render(root) {
  const presets = await get("/api/size/presets");
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
  await update();
}
