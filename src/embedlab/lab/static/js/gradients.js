// Sparse gradients: the rows of dE one batch reaches, two steps of SGD / Adam / SparseAdam, and the
// update counts of a real training run (only the served tables that recorded them are offered).
import { el, field, note, num, number, select, table } from "./dom.js";
import { config, get, latest } from "./http.js";
import { colour, grouped, heat, plot } from "./plot.js";

const OPTIMIZERS = { sgd: ["SGD", "accent"], adam: ["Adam", "warm"], sparse_adam: ["SparseAdam", "green"] };
const POINTS = 3000; // rows in the update-count scatter

export async function render(root) {
  const [{ tables }, { limits }] = await Promise.all([get("/api/gradients/tables"), config()]);
  const page = build(root, tables, limits.gradients);
  const batchView = latest(() => loadBatch(page), (r) => drawBatch(page, r), page.rows);
  const stepsView = latest(() => loadSteps(page), (r) => drawSteps(page, r), page.moved);
  const updatesView = latest(() => loadUpdates(page), (r) => drawUpdates(page, r), page.bands);
  for (const input of [page.ids, page.vocab, page.dim, page.seed]) {
    input.addEventListener("change", () => Promise.all([batchView(), stepsView()]));
  }
  for (const input of [page.second, page.lr]) input.addEventListener("change", stepsView);
  page.run?.addEventListener("change", updatesView);
  await Promise.all([batchView(), stepsView(), page.run && updatesView()]);
}

function build(root, runs, limits) {
  const page = {
    ids: el("input", { id: "grad-ids", value: "2 2 5", size: 20 }),
    vocab: number("grad-vocab", limits.vocab_size, 12),
    dim: number("grad-dim", limits.dim, 8),
    seed: number("grad-seed", limits.seed, 0),
    rows: el("div", { id: "grad-rows" }),
    gradOut: el("div", { id: "grad-g", class: "plot" }),
    gradTable: el("div", { id: "grad-de", class: "plot" }),
    second: el("input", { id: "grad-second", value: "5 7", size: 20 }),
    lr: el("input", { id: "grad-lr", type: "number", min: 0.001, max: limits.lr[1], step: 0.01, value: 0.1 }),
    moved: el("div", { id: "grad-moved" }),
    step1: el("div", { id: "grad-step1", class: "plot" }),
    step2: el("div", { id: "grad-step2", class: "plot" }),
    run: runs.length ? select("grad-run", runs) : null, // null: no served table has update counts
    bands: el("div", { id: "grad-bands" }),
    scatter: el("div", { id: "grad-updates", class: "plot" }),
  };
  const runPart = page.run
    ? [el("div", { class: "controls" }, field("training run", page.run)), page.bands, page.scatter]
    : [note("No table served here has update counts: only run folders written by `embedlab train` record " +
      "them. Start the lab with one, e.g. embedlab lab --vectors minilm --vectors runs/wiki.", { id: "grad-no-runs" })];
  root.append(
    el("h2", {}, "Sparse gradients"),
    el("p", {}, "A lookup reads only the rows its ids name, so backpropagation writes only into those rows: " +
      "dE = Hᵀ G. An id that occurs twice collects the sum of both positions' rows of G, and every other row of " +
      "dE is exactly zero. Here G comes from pulling each looked-up row towards a fixed random target, " +
      "L = ½ Σₜ ‖E[idₜ] − yₜ‖², on a V × D table drawn from N(0, 1)."),
    el("div", { class: "controls" }, field(`batch of ids (≤ ${limits.ids})`, page.ids), field("V (rows)", page.vocab),
      field("D (width)", page.dim), field("seed", page.seed)),
    page.rows, el("div", { class: "grid2" }, page.gradOut, page.gradTable),
    el("h3", {}, "One optimizer step, then another"),
    el("p", {}, "Step 1 uses the batch above, step 2 a second batch, each with torch's own optimizer. SGD moves " +
      "a row only while it has gradient. Adam, on dense gradients, keeps a running mean of past gradients, so " +
      "a row from step 1 moves again in step 2 although its gradient is now zero. SparseAdam updates only the " +
      "rows present in the batch and leaves the rest alone."),
    el("div", { class: "controls" }, field("second batch", page.second), field("learning rate", page.lr)),
    page.moved, el("div", { class: "grid2" }, page.step1, page.step2),
    el("h3", {}, "Update counts in a real training run"),
    el("p", {}, "During training a row changes only when its token is in the batch, so rare tokens get few " +
      "updates. The counts below were recorded by the run itself (update_counts.npy); word2vec's subsampling " +
      "of frequent words pulls the most frequent tokens below a straight line."),
    ...runPart);
  return page;
}

const toyTable = (page) => ({ vocab_size: page.vocab.value, dim: page.dim.value, seed: page.seed.value });
const loadBatch = (page) => get("/api/gradients/batch", { ids: page.ids.value, ...toyTable(page) });
const loadSteps = (page) => get("/api/gradients/steps",
  { first: page.ids.value, second: page.second.value, lr: page.lr.value, ...toyTable(page) });
const loadUpdates = (page) => get("/api/gradients/updates", { table: page.run.value, points: POINTS });

function drawBatch(page, r) {
  const positions = (row) => r.ids.map((id, t) => (id === row ? `g${t}` : null)).filter(Boolean);
  page.rows.replaceChildren(
    el("p", { id: "grad-summary", class: "stat" }, `${num(r.rows.length)} of ${num(r.vocab_size)} rows of dE are non-zero ` +
      `(rows ${r.rows.join(", ")}); loss ${num(r.loss, 3)}`),
    table(["row", "occurrences", "dE row is", "‖dE row‖"],
      r.rows.map((row, i) => [row, r.counts[i], positions(row).join(" + "), num(r.norms[i], 3)])));
  heat(page.gradOut, r.grad_out, { y: r.ids.map((id, t) => `g${t} (id ${id})`), title: "G = dL/dX, one row per position",
    hover: "%{y}, column %{x}: %{z:.3f}" });
  heat(page.gradTable, r.grad_table, { y: r.grad_table.map((_, v) => `row ${v}`), title: "dE = Hᵀ G, every row",
    hover: "%{y}, column %{x}: %{z:.3f}" });
}

function drawSteps(page, r) {
  const movedRows = (values) => values.map((m, v) => (m > 0 ? v : null)).filter((v) => v !== null);
  const inSecond = new Set(r.second);
  page.moved.replaceChildren(table(["optimizer", "rows moved in step 1", "rows moved in step 2",
    "moved without gradient"], Object.entries(r.moves).map(([name, m]) => {
    const two = movedRows(m.second);
    return [OPTIMIZERS[name][0], movedRows(m.first).join(", "), two.join(", "),
      two.filter((v) => !inSecond.has(v)).join(", ") || "none"];
  })));
  const series = (step) => Object.entries(r.moves).map(([name, m]) =>
    ({ name: OPTIMIZERS[name][0], y: m[step], color: colour(OPTIMIZERS[name][1]) }));
  const rows = Object.values(r.moves)[0].first.map((_, v) => v); // every row of the table
  const layout = (title) => ({ title: { text: title }, xaxis: { title: { text: "row" }, dtick: 1 },
    yaxis: { title: { text: "‖ΔE row‖" } } });
  grouped(page.step1, rows, series("first"), layout(`Step 1 on [${r.first.join(", ")}]`));
  grouped(page.step2, rows, series("second"), layout(`Step 2 on [${r.second.join(", ")}]`));
}

function drawUpdates(page, r) {
  const shown = r.bands.filter((b) => b.rows > 0);
  page.bands.replaceChildren(
    el("p", { class: "stat" }, `${num(r.rows)} rows; Spearman correlation of corpus count and update count ` +
      `${num(r.spearman, 3)}; ${num(r.never_updated)} rows never updated`),
    table(["corpus count band", "rows", "mean count", "mean updates", "updates per occurrence"],
      shown.map((b) => [`${b.name} (≥ ${num(b.floor)})`, num(b.rows), num(b.mean_count, 1),
        num(b.mean_updates, 1), num(b.updates_per_occurrence, 2)])));
  const p = r.points;
  const seen = p.updates.map((u, i) => (u > 0 ? i : null)).filter((i) => i !== null); // log axes drop zeros
  plot(page.scatter, [{ type: "scatter", mode: "markers", x: seen.map((i) => p.counts[i]),
    y: seen.map((i) => p.updates[i]), text: seen.map((i) => p.keys[i]), marker: { size: 5, opacity: 0.6 },
    hovertemplate: "%{text}: %{x} occurrences, %{y} updates<extra></extra>" }],
  { title: { text: `${num(seen.length)} rows sampled across frequency ranks` },
    xaxis: { type: "log", title: { text: "corpus count" } }, yaxis: { type: "log", title: { text: "updates" } } });
}
