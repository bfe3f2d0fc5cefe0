// Attention bridge: MiniLM's rows through one layer's query and key projections (layer 0: the input
// embeddings themselves), softmax rows with and without the division by √d_k, head by head.
import { el, field, num, numbered } from "./dom.js";
import { config, get, latest } from "./http.js";
import { colour, grouped, plot } from "./plot.js";

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const spread = (m) => Math.max(...m.flat()) - Math.min(...m.flat());

export async function render(root) {
  const { limits } = await config();
  const page = build(root, limits.attention);
  const update = latest(() => load(page), (r) => draw(page, r), page.error);
  for (const input of [page.text, page.layer, page.head]) input.addEventListener("change", update);
  await update();
}

function build(root, limits) {
  const page = {
    text: el("input", { id: "att-text", value: "the cat sat on the mat because it was tired", size: 48,
      maxlength: limits.text }),
    layer: el("select", { id: "att-layer" }),
    head: el("select", { id: "att-head" }),
    error: el("div", { id: "att-error" }),
    summary: el("p", { id: "att-summary", class: "stat" }),
    scaled: el("div", { id: "att-scaled", class: "plot" }),
    raw: el("div", { id: "att-raw", class: "plot" }),
    rows: el("div", { id: "att-rows", class: "plot" }),
    heads: el("div", { id: "att-heads", class: "plot" }),
  };
  root.append(
    el("h2", {}, "Attention bridge"),
    el("p", {}, "Attention compares tokens through their embeddings. The sentence below goes through MiniLM's " +
      "input embedding (token, position and segment rows, then LayerNorm); the first layer's query and key " +
      "weights project each row, and every query is scored against every key by a dot product in each of the " +
      "12 heads. Dividing the scores by √d_k keeps their spread independent of the head width; without it the " +
      "softmax rows pile onto one key. Layers after the first compare the rows the layer before made, which " +
      "already carry some of the sentence (see Static vs contextual)."),
    el("div", { class: "controls" }, field("sentence", page.text), field("layer", page.layer),
      field("head", page.head)),
    page.error, page.summary, el("div", { class: "grid2" }, page.scaled, page.raw),
    el("div", { class: "grid2" }, page.rows, page.heads));
  return page;
}

const load = (page) => get("/api/attention", { text: page.text.value, layer: page.layer.value || 0,
  head: page.head.value || 0 });

async function draw(page, r) {
  numbered(page.layer, r.n_layers, "layer");
  numbered(page.head, r.n_heads, "head");
  const labels = r.pieces.map((p, i) => `${i} ${p}`); // unique: a repeated piece is still its own row
  page.summary.textContent = `Layer ${r.layer}, head ${r.head}: d_k = ${r.head_dim}, √d_k = ${num(r.scale, 3)}. Scores span ` +
    `${num(spread(r.scores), 3)} scaled and ${num(spread(r.raw_scores), 3)} unscaled. Mean row entropy ` +
    `${num(mean(r.entropy), 3)} nats scaled vs ${num(mean(r.raw_entropy), 3)} unscaled (uniform over ` +
    `${r.pieces.length} keys: ${num(r.uniform_entropy, 3)}); mean largest weight ${num(mean(r.max_weight), 3)} vs ` +
    `${num(mean(r.raw_max_weight), 3)}.`;
  await weights(page.scaled, r.weights, r.scores, labels, "softmax(q·k / √d_k)");
  await weights(page.raw, r.raw_weights, r.raw_scores, labels, "softmax(q·k), unscaled");
  const pair = (scaled, raw) => [{ name: "scaled", y: scaled, color: colour("accent") },
    { name: "unscaled", y: raw, color: colour("warm") }];
  const layout = (title, xTitle) => ({ title: { text: title }, legend: { orientation: "h", y: -0.35 },
    xaxis: { title: { text: xTitle }, type: "category" },
    yaxis: { title: { text: "entropy (nats)" }, range: [0, r.uniform_entropy * 1.05] } });
  await grouped(page.rows, labels, pair(r.entropy, r.raw_entropy), layout(`Row entropy, head ${r.head}`, "query"));
  const heads = r.heads.mean_entropy.map((_, i) => `head ${i}`);
  await grouped(page.heads, heads, pair(r.heads.mean_entropy, r.heads.raw_mean_entropy),
    layout("Mean row entropy per head", ""));
}

// Softmax rows as a heat map: queries down, keys across; hover shows the weight and its score.
function weights(div, z, scores, labels, title) {
  const text = scores.map((row) => row.map((s) => num(s, 2)));
  return plot(div, [{ type: "heatmap", z, x: labels, y: labels, text, zmin: 0, zmax: 1,
    colorscale: [[0, "white"], [1, colour("deep")]],
    hovertemplate: "query %{y} → key %{x}<br>weight %{z:.3f}, score %{text}<extra></extra>" }],
  { title: { text: title }, yaxis: { autorange: "reversed", type: "category", title: { text: "query" } },
    xaxis: { type: "category", tickangle: -45, title: { text: "key" } }, height: 440 });
}
