// Sparse gradients: the rows of dE one batch reaches, two steps of SGD / Adam / SparseAdam, and the
// update counts of a real training run.
import { el, field, get, guard, plot, table } from "./api.js";

const OPTIMIZERS = { sgd: ["SGD", "#2f6fde"], adam: ["Adam", "#d9822b"], sparse_adam: ["SparseAdam", "#3c9d5d"] };
const fmt = (x) => x.toFixed(3);
const DIVERGING = [[0, "#b2182b"], [0.5, "#ffffff"], [1, "#2166ac"]];  // exactly zero is white

// A (rows × D) heat map centred on zero, row labels top to bottom.
function heat(div, z, labels, title) {
  const limit = Math.max(1e-9, ...z.flat().map(Math.abs));
  return plot(div, [{ type: "heatmap", z, y: labels, colorscale: DIVERGING, zmin: -limit,
    zmax: limit, hovertemplate: "%{y}, column %{x}: %{z:.3f}<extra></extra>" }],
  { title: { text: title }, yaxis: { autorange: "reversed", type: "category" }, xaxis: { title: { text: "column" } },
    margin: { l: 80, r: 20, t: 40, b: 40 } });
}

export async function render(root) {
  const { tables } = await get("/api/tables");
  const ids = el("input", { id: "grad-ids", value: "2 2 5", size: 20 });
  const vocab = el("input", { id: "grad-vocab", type: "number", min: 2, max: 50, value: 12 });
  const dim = el("input", { id: "grad-dim", type: "number", min: 1, max: 16, value: 8 });
  const seed = el("input", { id: "grad-seed", type: "number", min: 0, value: 0 });
  const rows = el("div", { id: "grad-rows" });
  const gradOut = el("div", { id: "grad-g", class: "plot" });
  const gradTable = el("div", { id: "grad-de", class: "plot" });
  const second = el("input", { id: "grad-second", value: "5 7", size: 20 });
  const lr = el("input", { id: "grad-lr", type: "number", min: 0.001, max: 1, step: 0.01, value: 0.1 });
  const moved = el("div", { id: "grad-moved" });
  const step1 = el("div", { id: "grad-step1", class: "plot" });
  const step2 = el("div", { id: "grad-step2", class: "plot" });
  const runs = tables.filter((t) => t !== "minilm");
  const run = el("select", { id: "grad-run" }, ...[...runs, ...tables.filter((t) => !runs.includes(t))]
    .map((t) => el("option", {}, t)));
  const bands = el("div", { id: "grad-bands" });
  const scatter = el("div", { id: "grad-updates", class: "plot" });
  const updates = el("div", {}, bands, scatter);

  root.append(
    el("h2", {}, "Sparse gradients"),
    el("p", {}, "A lookup reads only the rows its ids name, so backpropagation writes only into those rows: " +
      "dE = Hᵀ G. An id that occurs twice collects the sum of both positions' rows of G, and every other row of " +
      "dE is exactly zero. Here G comes from pulling each looked-up row towards a fixed random target, " +
      "L = ½ Σₜ ‖E[idₜ] − yₜ‖², on a V × D table drawn from N(0, 1)."),
    el("div", { class: "controls" }, field("batch of ids", ids), field("V (rows)", vocab), field("D (width)", dim),
      field("seed", seed)),
    rows, el("div", { class: "grid2" }, gradOut, gradTable),
    el("h3", {}, "One optimizer step, then another"),
    el("p", {}, "Step 1 uses the batch above, step 2 a second batch, each with torch's own optimizer. SGD moves " +
      "a row only while it has gradient. Adam, on dense gradients, keeps a running mean of past gradients, so " +
      "a row from step 1 moves again in step 2 although its gradient is now zero. SparseAdam updates only the " +
      "rows present in the batch and leaves the rest alone."),
    el("div", { class: "controls" }, field("second batch", second), field("learning rate", lr)),
    moved, el("div", { class: "grid2" }, step1, step2),
    el("h3", {}, "Update counts in a real training run"),
    el("p", {}, "During training a row changes only when its token is in the batch, so rare tokens get few " +
      "updates. The counts below were recorded by the run itself (update_counts.npy); word2vec's subsampling " +
      "of frequent words pulls the most frequent tokens below a straight line."),
    el("div", { class: "controls" }, field("training run", run)), updates);

  const showBatch = () => guard(rows, async () => {
    const r = await get("/api/gradients/batch", { ids: ids.value, vocab_size: vocab.value, dim: dim.value,
      seed: seed.value });
    const positions = (row) => r.ids.map((id, t) => (id === row ? `g${t}` : null)).filter(Boolean);
    rows.replaceChildren(
      el("p", { id: "grad-summary", class: "stat" }, `${r.rows.length} of ${r.vocab_size} rows of dE are non-zero ` +
        `(rows ${r.rows.join(", ")}); loss ${fmt(r.loss)}`),
      table(["row", "occurrences", "dE row is", "‖dE row‖"],
        r.rows.map((row, i) => [row, r.counts[i], positions(row).join(" + "), fmt(r.norms[i])])));
    await heat(gradOut, r.grad_out, r.ids.map((id, t) => `g${t} (id ${id})`), "G = dL/dX, one row per position");
    await heat(gradTable, r.grad_table, r.grad_table.map((_, v) => `row ${v}`), "dE = Hᵀ G, every row");
  });

  const showSteps = () => guard(moved, async () => {
    const r = await get("/api/gradients/steps", { first: ids.value, second: second.value, vocab_size: vocab.value,
      dim: dim.value, lr: lr.value, seed: seed.value });
    const movedRows = (values) => values.map((m, v) => (m > 0 ? v : null)).filter((v) => v !== null);
    const inSecond = new Set(r.second);
    moved.replaceChildren(table(["optimizer", "rows moved in step 1", "rows moved in step 2", "moved without gradient"],
      Object.entries(r.moves).map(([name, m]) => {
        const two = movedRows(m.second);
        return [OPTIMIZERS[name][0], movedRows(m.first).join(", "), two.join(", "),
          two.filter((v) => !inSecond.has(v)).join(", ") || "none"];
      })));
    const traces = (step) => Object.entries(r.moves).map(([name, m]) => ({ type: "bar", name: OPTIMIZERS[name][0],
      x: m[step].map((_, v) => v), y: m[step], marker: { color: OPTIMIZERS[name][1] } }));
    const layout = (title) => ({ title: { text: title }, barmode: "group", legend: { orientation: "h", y: -0.3 },
      xaxis: { title: { text: "row" }, dtick: 1 }, yaxis: { title: { text: "‖ΔE row‖" } } });
    await plot(step1, traces("first"), layout(`Step 1 on [${r.first.join(", ")}]`));
    await plot(step2, traces("second"), layout(`Step 2 on [${r.second.join(", ")}]`));
  });

  const showUpdates = () => guard(updates, async () => {
    updates.replaceChildren(bands, scatter);
    const r = await get("/api/gradients/updates", { table: run.value, points: 3000 });
    const shown = r.bands.filter((b) => b.rows > 0);
    bands.replaceChildren(
      el("p", { class: "stat" }, `${r.rows.toLocaleString()} rows; Spearman correlation of corpus count and ` +
        `update count ${fmt(r.spearman)}; ${r.never_updated} rows never updated`),
      table(["corpus count band", "rows", "mean count", "mean updates", "updates per occurrence"],
        shown.map((b) => [`${b.name} (≥ ${b.floor.toLocaleString()})`, b.rows.toLocaleString(), b.mean_count.toFixed(1),
          b.mean_updates.toFixed(1), b.updates_per_occurrence.toFixed(2)])));
    const p = r.points;
    const seen = p.updates.map((u, i) => (u > 0 ? i : null)).filter((i) => i !== null);  // log axes drop zeros
    await plot(scatter, [{ type: "scatter", mode: "markers", x: seen.map((i) => p.counts[i]),
      y: seen.map((i) => p.updates[i]), text: seen.map((i) => p.keys[i]), marker: { size: 5, opacity: 0.6 },
      hovertemplate: "%{text}: %{x} occurrences, %{y} updates<extra></extra>" }],
    { title: { text: `${seen.length.toLocaleString()} rows sampled across frequency ranks` },
      xaxis: { type: "log", title: { text: "corpus count" } }, yaxis: { type: "log", title: { text: "updates" } } });
  });

  for (const input of [ids, vocab, dim, seed]) input.addEventListener("change", () => Promise.all([showBatch(), showSteps()]));
  for (const input of [second, lr]) input.addEventListener("change", showSteps);
  run.addEventListener("change", showUpdates);
  await Promise.all([showBatch(), showSteps(), showUpdates()]);
}
