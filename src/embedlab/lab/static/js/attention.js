// Attention bridge: MiniLM's input embeddings through its first layer's query and key projections,
// softmax rows with and without the division by √d_k, head by head.
import { el, field, get, guard, plot } from "./api.js";

const SCALED = "#2f6fde";
const RAW = "#d9822b";
const fmt = (x) => x.toFixed(3);

// Softmax rows as a heat map: queries down, keys across; hover shows the weight and its score.
function weights(div, z, scores, labels, title) {
  const text = scores.map((row) => row.map((s) => s.toFixed(2)));
  return plot(div, [{ type: "heatmap", z, x: labels, y: labels, text, zmin: 0, zmax: 1,
    colorscale: [[0, "#ffffff"], [1, "#0b3d91"]], hovertemplate: "query %{y} → key %{x}<br>weight %{z:.3f}, score %{text}<extra></extra>" }],
  { title: { text: title }, yaxis: { autorange: "reversed", type: "category" }, xaxis: { type: "category", tickangle: -45 },
    height: 440, margin: { l: 90, r: 20, t: 40, b: 90 } });
}

export async function render(root) {
  const text = el("input", { id: "att-text", value: "the cat sat on the mat because it was tired", size: 48,
    maxlength: 300 });
  const head = el("select", { id: "att-head" });
  const summary = el("p", { id: "att-summary", class: "stat" });
  const scaled = el("div", { id: "att-scaled", class: "plot" });
  const raw = el("div", { id: "att-raw", class: "plot" });
  const rows = el("div", { id: "att-rows", class: "plot" });
  const heads = el("div", { id: "att-heads", class: "plot" });
  const out = el("div", {}, summary, el("div", { class: "grid2" }, scaled, raw), el("div", { class: "grid2" }, rows, heads));
  root.append(
    el("h2", {}, "Attention bridge"),
    el("p", {}, "Attention compares tokens through their embeddings. The sentence below goes through MiniLM's " +
      "input embedding (token, position and segment rows, then LayerNorm); the first layer's query and key " +
      "weights project each row, and every query is scored against every key by a dot product in each of the " +
      "12 heads. Dividing the scores by √d_k keeps their spread independent of the head width; without it the " +
      "softmax rows pile onto one key."),
    el("div", { class: "controls" }, field("sentence", text), field("head", head)), out);

  const update = () => guard(out, async () => {
    out.replaceChildren(summary, el("div", { class: "grid2" }, scaled, raw), el("div", { class: "grid2" }, rows, heads));
    const r = await get("/api/attention", { text: text.value, head: head.value || 0 });
    if (head.options.length !== r.n_heads) {
      head.replaceChildren(...Array.from({ length: r.n_heads }, (_, h) => el("option", { value: h }, `head ${h}`)));
      head.value = r.head;
    }
    const labels = r.pieces.map((p, i) => `${i} ${p}`);  // unique: a repeated piece is still its own row
    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const spread = (m) => Math.max(...m.flat()) - Math.min(...m.flat());
    summary.textContent = `Head ${r.head}: d_k = ${r.head_dim}, √d_k = ${fmt(r.scale)}. Scores span ` +
      `${fmt(spread(r.scores))} scaled and ${fmt(spread(r.raw_scores))} unscaled. Mean row entropy ` +
      `${fmt(mean(r.entropy))} nats scaled vs ${fmt(mean(r.raw_entropy))} unscaled (uniform over ${r.pieces.length} ` +
      `keys: ${fmt(r.uniform_entropy)}); mean largest weight ${fmt(mean(r.max_weight))} vs ${fmt(mean(r.raw_max_weight))}.`;
    await weights(scaled, r.weights, r.scores, labels, "softmax(q·k / √d_k)");
    await weights(raw, r.raw_weights, r.raw_scores, labels, "softmax(q·k), unscaled");
    const group = (y1, y2, x) => [
      { type: "bar", name: "scaled", x, y: y1, marker: { color: SCALED } },
      { type: "bar", name: "unscaled", x, y: y2, marker: { color: RAW } }];
    const layout = (title, xTitle) => ({ title: { text: title }, barmode: "group", legend: { orientation: "h", y: -0.35 },
      xaxis: { title: { text: xTitle }, type: "category" }, yaxis: { title: { text: "entropy (nats)" },
        range: [0, r.uniform_entropy * 1.05] } });
    await plot(rows, group(r.entropy, r.raw_entropy, labels), layout(`Row entropy, head ${r.head}`, "query"));
    const h = r.heads.mean_entropy.map((_, i) => `head ${i}`);
    await plot(heads, group(r.heads.mean_entropy, r.heads.raw_mean_entropy, h), layout("Mean row entropy per head", ""));
  });
  text.addEventListener("change", update);
  head.addEventListener("change", update);
  await update();
}
