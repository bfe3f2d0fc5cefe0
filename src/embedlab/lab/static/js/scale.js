// Scale balance: fresh token rows × a factor against sinusoid position rows, and what their sum looks like.
import { el, field, get, guard, plot, table } from "./api.js";

const INITS = { inv_sqrt_d: "σ = 1/√d (original Transformer)", gpt2: "σ = 0.02 (GPT-2, BERT)",
  torch: "σ = 1 (nn.Embedding default)" };
const COLORS = { token: "#e8871e", position: "#1a9e8f", combined: "#2f6fde" };

export async function render(root) {
  const mode = el("select", { id: "scale-mode" }, el("option", { value: "none" }, "none (× 1)"),
    el("option", { value: "sqrt_d" }, "× √d_model"), el("option", { value: "number" }, "× a number"));
  const factor = el("input", { id: "scale-factor", type: "number", min: 0, max: 10000, step: 0.1, value: 1 });
  const dim = el("input", { id: "scale-dim", type: "range", min: 16, max: 2048, step: 16, value: 512 });
  const dimLabel = el("span", { id: "scale-dim-value", class: "stat" }, "512");
  const init = el("select", { id: "scale-init" },
    ...Object.entries(INITS).map(([value, label]) => el("option", { value }, label)));
  const ratio = el("p", { id: "scale-ratio", class: "stat" });
  const errors = el("div", { id: "scale-error" });
  const balance = el("div", { id: "scale-balance", class: "plot" });
  const stats = el("div", { id: "scale-stats" });
  const example = el("div", { id: "scale-example", class: "plot" });
  const heat = el("div", { id: "scale-heat", class: "plot" });
  root.append(
    el("h2", {}, "Scale balance"),
    el("p", {}, "A freshly initialised token row drawn from N(0, σ²) is about σ√d long, while a sinusoidal " +
      "position row is exactly √(d/2) long, whatever the position. With the original Transformer's σ = 1/√d the " +
      "token rows are near length 1, so the sum of the two is mostly position; multiplying token rows by √d " +
      "lifts them to about √d and the two become comparable. The rows below are real draws and real sinusoids."),
    el("div", { class: "controls" }, field("scale factor", mode), field("factor", factor),
      field("d_model", el("span", {}, dim, " ", dimLabel)), field("token init", init)),
    ratio, errors,
    el("div", { class: "grid2" }, balance, el("div", {}, stats, el("p", { class: "note", id: "scale-what" })),
      example, heat));

  const show = (r) => {
    const ratioText = r.ratio > 0 ? `token : position = 1 : ${(1 / r.ratio).toFixed(2)}` : "token rows are zero";
    ratio.textContent = `mean ‖token × ${r.factor.toFixed(3)}‖ = ${r.token_norm.toFixed(3)}, mean ‖position‖ = ` +
      `${r.position_norm.toFixed(3)}; ratio ${r.ratio.toFixed(3)} (${ratioText})`;
    plot(balance, [
      { type: "bar", x: ["token × factor", "position"], y: [r.token_norm, r.position_norm], name: "measured mean",
        marker: { color: [COLORS.token, COLORS.position] } },
      { type: "scatter", mode: "markers", x: ["token × factor", "position"], name: "factor·σ·√d and √(d/2)",
        y: [r.expected_token_norm, r.expected_position_norm], marker: { symbol: "line-ew-open", size: 40, color: "#1d2433" } },
    ], { title: { text: "mean row length" }, showlegend: true, legend: { orientation: "h" } });
    stats.replaceChildren(table(["how alike (mean cosine of the sums)", "value"], [
      ["two different tokens at one position", r.same_position_cosine.toFixed(3)],
      ["one token at two positions", r.same_token_cosine.toFixed(3)],
    ]));
    document.getElementById("scale-what").textContent = `Token rows: ${r.n_tokens} draws with σ = ${r.std.toPrecision(3)}` +
      `, times ${r.factor.toFixed(3)}. Positions: sinusoid rows 0–${r.n_positions - 1}. Near 1 in the first row ` +
      "means position drowns the token; near 1 in the second means the token drowns position.";
    const K = r.token[0].length;
    const x = Array.from({ length: K }, (_, i) => i);
    const p = r.sample_positions[1];
    plot(example, [
      { type: "bar", name: "token × factor", x, y: r.token[0], marker: { color: COLORS.token } },
      { type: "bar", name: `position ${p}`, x, y: r.position[1], marker: { color: COLORS.position } },
      { type: "bar", name: "sum", x, y: r.combined[0][1], marker: { color: COLORS.combined } },
    ], { title: { text: `token 0 at position ${p}: first ${K} dimensions` }, barmode: "group",
      legend: { orientation: "h" } });
    const labels = r.combined.flatMap((_, i) => r.sample_positions.map((pos) => `token ${i} @ ${pos}`));
    plot(heat, [{ type: "heatmap", z: r.combined.flat(), y: labels, x, colorscale: "RdBu", zmid: 0, reversescale: true }],
      { title: { text: "sums: rows alike by position or by token?" }, margin: { l: 100, r: 20, t: 30, b: 40 },
        yaxis: { autorange: "reversed" } });
  };

  // The slider fires many events a second: one request at a time, the latest settings win.
  let busy = false;
  let again = false;
  async function update() {
    if (busy) { again = true; return; }
    busy = true;
    factor.disabled = mode.value !== "number";
    dimLabel.textContent = dim.value;
    await guard(errors, async () => {
      const params = { d_model: dim.value, scale: mode.value, init: init.value };
      if (mode.value === "number") params.factor = factor.value;
      show(await get("/api/scale", params));
      errors.replaceChildren();
    });
    busy = false;
    if (again) { again = false; await update(); }
  }
  for (const input of [mode, factor, dim, init]) input.addEventListener("input", update);
  await update();
}
