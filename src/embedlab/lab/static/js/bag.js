// Bag of embeddings: fastText's supervised classifier, trained on the server on the gcide domains (15
// subject labels of the 1913 Webster). A line is the mean of its words' rows and its word n-grams' hashed
// rows, times one output row per label. The page shows P@1 over epochs on held-out lines, the confusions,
// which rows a typed text's labels lean on, and the model before and after `fasttext quantize`.
import { checkbox, el, field, memory, note, num, number, select, table } from "./dom.js";
import { config, get, latest, post, shown } from "./http.js";
import { colour, plot } from "./plot.js";

const POLL_MS = 400; // state requests while a run trains
const SETTINGS = ["lines", "dim", "epochs", "word_ngrams", "bucket", "lr"]; // the run's body, as BagSettings
const pct = (x) => (x === null ? "–" : `${num(100 * x, 1)} %`);
const prob = (p) => (p < 0.001 ? p.toExponential(1) : num(p, 3)); // fastText's p + 1e-5: never 0
// plotly reads a tick label as its own small HTML: "</s>" must be escaped to show (and to stay apart from
// "family" when "family </s>" is drawn too)
const escaped = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export async function render(root) {
  const { limits } = await config();
  const page = build(root, limits.bag);
  page.explain = latest(() => loadExplain(page), (r) => drawExplain(page, r), page.textError);
  page.quantize = latest(() => loadQuantize(page), (r) => drawQuantize(page, r), page.quantError);
  page.train.addEventListener("click", () => shown(page.error, async () => follow(page, await post("/api/bag/start",
    Object.fromEntries(SETTINGS.map((name) => [name, Number(page[name].value)]))))));
  for (const input of [page.text, page.k]) input.addEventListener("change", page.explain);
  page.label.addEventListener("change", () => page.explained && drawRows(page, page.explained));
  for (const input of [page.cutoff, page.dsub, page.qnorm, page.retrain]) input.addEventListener("change", page.quantize);
  const state = await shown(page.error, () => get("/api/bag"));
  if (!state) return;
  for (const name of SETTINGS) page[name].value = state.settings[name]; // the defaults, or the run's
  // a server that has trained nothing yet trains the default classifier at once: seconds
  await shown(page.error, async () => follow(page, state.run === 0 ? await post("/api/bag/start", state.settings) : state));
}

function build(root, limits) {
  const range = (name) => `${name} (${num(limits[name][0])}–${num(limits[name][1])})`;
  const page = {
    lines: number("bag-lines", limits.lines, "", { step: 500 }),
    dim: number("bag-dim", limits.dim, ""),
    epochs: number("bag-epochs", limits.epochs, ""),
    word_ngrams: number("bag-ngrams", limits.word_ngrams, ""),
    bucket: number("bag-bucket", limits.bucket, "", { step: 1000 }),
    lr: number("bag-lr", limits.lr, "", { step: 0.05 }),
    train: el("button", { id: "bag-train", class: "primary" }, "Train"),
    error: el("div", { id: "bag-error" }),
    status: el("p", { id: "bag-status", class: "stat" }),
    curve: el("div", { id: "bag-curve", class: "plot" }),
    confusion: el("div", { id: "bag-confusion", class: "plot" }),
    labels: el("div", { id: "bag-labels", class: "scroll" }),
    text: el("input", { id: "bag-text", size: 60, maxlength: limits.text }),
    k: number("bag-k", limits.k, ""),
    label: el("select", { id: "bag-label" }),
    textError: el("div", { id: "bag-text-error" }),
    top: el("div", { id: "bag-top" }),
    rows: el("div", { id: "bag-rows", class: "plot" }),
    cutoff: number("bag-cutoff", limits.cutoff, "", { step: 1000 }),
    dsub: select("bag-dsub", limits.dsubs),
    qnorm: checkbox("bag-qnorm"),
    retrain: checkbox("bag-retrain"),
    quantError: el("div", { id: "bag-quantize-error" }),
    sizes: el("div", { id: "bag-sizes" }),
    sizePlot: el("div", { id: "bag-size-plot", class: "plot short" }),
    run: 0, // the run whose figures are drawn
  };
  root.append(
    el("h2", {}, "Bag of embeddings"),
    el("p", {}, "fastText's classifier is an embedding layer and one linear layer. A line becomes the mean " +
      "of its rows: one per word, one for the end of the line (</s>), and with word n-grams one per pair " +
      "(or triple) of neighbouring words, hashed into a fixed number of bucket rows. Each label has an " +
      "output row; the label's score is its row's dot product with that mean, and a softmax turns the scores " +
      "into probabilities. Train trains it here on definitions from the 1913 Webster, each labelled by its " +
      "subject (zoology, botany, chemistry, music...), and scores it on held-out definitions."),
    el("div", { class: "controls" }, field(range("lines"), page.lines), field(range("dim"), page.dim),
      field(range("epochs"), page.epochs), field(range("word_ngrams"), page.word_ngrams),
      field(range("bucket"), page.bucket), field(`lr (${limits.lr[0]}–${limits.lr[1]})`, page.lr), page.train),
    page.error, page.status,
    note("Each point is its own classifier trained for that many epochs: fastText's rate falls to zero over " +
      "the epochs asked for, so a longer run cut short is not the same model. The last point is the one kept."),
    el("div", { class: "grid2" }, page.curve, page.confusion), page.labels,
    el("h3", {}, "What a prediction leans on"),
    note(`Type one line (up to ${limits.text} characters). A row's bar is its part of the label's score, ` +
      "u_label · row / n; the bars add up to the score."),
    el("div", { class: "controls" }, field("text", page.text), field(`labels (1–${limits.k[1]})`, page.k),
      field("bars for", page.label)),
    page.textError, page.top, page.rows,
    el("h3", {}, "Quantized: the .ftz"),
    note(`fastText's quantize: keep the cutoff rows of largest norm (0: all; else at least ` +
      `${num(limits.min_cutoff)}), optionally train them again, then store each row as one byte per ` +
      "sub-vector of dsub columns (256 centroids each), its norm apart with qnorm. The k-means takes " +
      "seconds; each setting is measured once."),
    el("div", { class: "controls" }, field(range("cutoff"), page.cutoff), field("dsub", page.dsub),
      field("qnorm", page.qnorm), field("retrain", page.retrain)),
    page.quantError, page.sizes, page.sizePlot);
  return page;
}

// Show a state; while a run trains, ask again until it ends or the page is left.
async function follow(page, state) {
  page.train.disabled = state.status === "running";
  page.status.textContent = describe(state);
  page.status.classList.toggle("error", state.status === "failed");
  await drawCurve(page, state);
  if (state.status === "running") {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    if (!page.curve.isConnected) return; // another page is shown: stop asking
    await shown(page.error, async () => follow(page, await get("/api/bag")));
  } else if (state.status === "finished" && state.run !== page.run) {
    page.run = state.run;
    for (const name of SETTINGS) page[name].value = state.settings[name];
    page.dsub.querySelectorAll("option").forEach((o) => { o.disabled = state.settings.dim % Number(o.value) !== 0; });
    await drawConfusion(page, state);
    page.labels.replaceChildren(labelTable(state));
    await Promise.all([page.explain(), page.quantize()]);
  }
}

function describe(s) {
  const e = s.settings.epochs;
  if (s.status === "running") {
    if (s.reading) return "Reading the gcide domains (the first run of this server: about ten seconds)…";
    return `Run ${s.run}: classifier ${Math.min(s.curve.length + 1, e)} of ${e} — ${num(s.done, 1)} of ${s.total} ` +
      `epochs trained over the curve's classifiers (${num(s.settings.lines)} lines, dim ${s.settings.dim}).`;
  }
  if (s.status === "failed" || s.status === "stopped") return `Run ${s.run} ${s.status}: ${s.message}`;
  if (s.status !== "finished") return "";
  const last = s.curve[s.curve.length - 1];
  return `Run ${s.run}: ${num(s.train_lines)} training lines, ${num(s.test_lines)} held-out lines, ` +
    `${s.labels.length} labels, ${num(s.rows)} input rows (${num(s.words)} words, ${num(s.rows - s.words)} ` +
    `n-gram buckets). P@1 ${pct(last.test_p1)} held out (${pct(last.train_p1)} on its training lines) ` +
    `after ${e} epochs in ${num(last.seconds, 2)} s; always answering "${s.labels[0]}" scores ${pct(s.majority)}.`;
}

function drawCurve(page, s) {
  const x = s.curve.map((p) => p.epochs);
  const traces = [
    { name: "held-out lines", x, y: s.curve.map((p) => p.test_p1), mode: "lines+markers", line: { color: colour("accent") } },
    { name: "training lines", x, y: s.curve.map((p) => p.train_p1), mode: "lines+markers", line: { color: colour("warm") } },
  ];
  if (s.majority !== null) {
    traces.push({ name: `always "${s.labels[0]}"`, x: [1, s.settings.epochs], y: [s.majority, s.majority],
      mode: "lines", line: { color: colour("muted"), dash: "dash" } });
  }
  return plot(page.curve, traces, { title: { text: "P@1 of a classifier trained for e epochs" }, height: 360,
    xaxis: { title: { text: "epochs (e)" }, range: [0.5, s.settings.epochs + 0.5], dtick: 1 },
    yaxis: { title: { text: "P@1" }, range: [0, 1], tickformat: ".0%" }, legend: { orientation: "h", y: -0.25 } });
}

function drawConfusion(page, s) {
  const shares = s.confusion.map((row) => { const n = row.reduce((a, b) => a + b, 0); return row.map((c) => (n ? c / n : 0)); });
  return plot(page.confusion, [{ type: "heatmap", z: shares, x: s.labels, y: s.labels, zmin: 0, zmax: 1,
    text: s.confusion, texttemplate: "%{text}", colorscale: [[0, "white"], [1, colour("accent")]],
    hovertemplate: "true %{y}, predicted %{x}: %{text} lines (%{z:.0%} of %{y})<extra></extra>" }],
  { title: { text: "Held-out lines: true label (row) against predicted (column)" }, height: 420,
    xaxis: { title: { text: "predicted" }, tickangle: -45, type: "category" },
    yaxis: { title: { text: "true" }, autorange: "reversed", type: "category" } });
}

function labelTable(s) {
  const t = table(["label", "held-out lines", "predicted", "precision", "recall", "F1"], s.per_label.map((l) =>
    [l.label, num(l.gold), num(l.predicted), pct(l.precision), pct(l.recall), pct(l.f1)]));
  t.id = "bag-label-table";
  return t;
}

function loadExplain(page) {
  const params = Object.entries({ text: page.text.value.trim(), k: page.k.value }).filter(([, v]) => v !== "");
  return get("/api/bag/predict", params); // none yet: the server's example text and k, which the answer shows
}

async function drawExplain(page, r) {
  page.explained = r;
  if (!page.text.value.trim()) page.text.value = r.text;
  if (page.k.value === "") page.k.value = r.labels.length;
  const before = page.label.value;
  page.label.replaceChildren(...r.labels.map((l, i) => el("option", { value: i }, l)));
  page.label.value = before !== "" && Number(before) < r.labels.length ? before : "0";
  const top = table(["label", "probability", "score u·h"], r.labels.map((l, i) => [l, prob(r.probs[i]), num(r.scores[i], 3)]));
  top.id = "bag-top-table";
  const unknown = r.unknown.length ? ` No row of their own (unknown to the classifier): ${r.unknown.join(", ")}.` : "";
  page.top.replaceChildren(top, note(`Classifier of run ${r.run}. The line is read as ${r.tokens.length} tokens ` +
    `(${r.tokens.join(" ")}) and averages n = ${r.n} rows.${unknown}`, { id: "bag-tokens" }));
  await drawRows(page, r);
}

const MAX_BARS = 30; // rows drawn one by one; the rest share one bar

function drawRows(page, r) {
  const i = Number(page.label.value);
  const part = r.contributions[i];
  const byWeight = r.rows.map((_, j) => j).sort((a, b) => Math.abs(part[b]) - Math.abs(part[a]));
  const drawn = byWeight.slice(0, MAX_BARS).sort((a, b) => part[b] - part[a]);
  const rest = byWeight.slice(MAX_BARS);
  const names = drawn.map((j) => escaped(r.counts[j] > 1 ? `${r.rows[j]} ×${r.counts[j]}` : r.rows[j]));
  const x = drawn.map((j) => part[j]);
  const colours = drawn.map((j) => colour(r.kinds[j] === "word" ? "accent" : "warm"));
  if (rest.length) {
    names.push(`(${rest.length} other rows)`);
    x.push(rest.reduce((sum, j) => sum + part[j], 0));
    colours.push(colour("muted"));
  }
  return plot(page.rows, [{ type: "bar", orientation: "h", x, y: names, marker: { color: colours },
    hovertemplate: "%{y}: %{x:.4f}<extra></extra>" }],
  { title: { text: `Each row's part of "${r.labels[i]}"'s score, ${num(r.scores[i], 3)} (blue: words, orange: n-grams)` },
    height: Math.max(320, 22 * names.length + 90), yaxis: { autorange: "reversed", type: "category" },
    xaxis: { title: { text: "u_label · row / n" }, zeroline: true } });
}

function loadQuantize(page) {
  const params = page.cutoff.value === "" ? {} : { cutoff: page.cutoff.value, dsub: page.dsub.value,
    qnorm: page.qnorm.checked, retrain: page.retrain.checked }; // first: the server's defaults, which the answer shows
  page.sizes.replaceChildren(el("p", { class: "busy" }, "Quantizing: k-means on every sub-vector…"));
  return get("/api/bag/quantize", params);
}

function drawQuantize(page, r) {
  const q = r.settings;
  if (page.cutoff.value === "") {
    page.cutoff.value = q.cutoff; page.dsub.value = q.dsub; page.qnorm.checked = q.qnorm; page.retrain.checked = q.retrain;
  }
  const rows = [r.before, r.after].map((m) => [m.format, pct(m.p1), memory(m.bytes), num(m.rows), num(m.words),
    num(m.rows - m.words), memory(m.input_bytes)]);
  const t = table(["file", "P@1 held out", "file size", "input rows", "words", "n-gram rows", "input matrix"], rows);
  t.id = "bag-size-table";
  const what = `${r.pruned ? `pruned to ${num(q.cutoff)} rows${r.retrained ? ", retrained" : ""}, ` : ""}dsub ${q.dsub}` +
    `${q.qnorm ? ", qnorm" : ""}`;
  page.sizes.replaceChildren(t, note(`Run ${r.run}, ${what}: ${num(r.before.bytes / r.after.bytes, 1)}× smaller, ` +
    `P@1 ${r.after.p1 >= r.before.p1 ? "+" : "−"}${num(100 * Math.abs(r.after.p1 - r.before.p1), 1)} points; ` +
    `quantized in ${num(r.seconds, 2)} s.`, { id: "bag-size-note" }));
  const both = [r.before, r.after];
  return plot(page.sizePlot, [{ type: "bar", x: both.map((m) => m.format), y: both.map((m) => m.bytes),
    text: both.map((m) => `${memory(m.bytes)}, P@1 ${pct(m.p1)}`), textposition: "outside", cliponaxis: false,
    marker: { color: [colour("accent"), colour("warm")] }, hovertemplate: "%{x}: %{y:,} bytes<extra></extra>" }],
  { title: { text: "The file, before and after" }, height: 280, yaxis: { title: { text: "bytes" } },
    xaxis: { type: "category" }, margin: { t: 50 } });
}
