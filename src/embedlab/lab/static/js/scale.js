// Scale balance: fresh token rows × a factor against sinusoid position rows, and what their sum looks like;
// then the σ sweep: TinyLM trained with its token table at σ over six decades (sims/init_sweep.py).
import { el, field, num, number, select, table } from "./dom.js";
import { config, get, latest } from "./http.js";
import { colour, heat, plot } from "./plot.js";

// How the API's scale and init names read on the page.
const SCALES = { none: "none (× 1)", sqrt_d: "× √d_model", number: "× a number" };
const INITS = { inv_sqrt_d: "σ = 1/√d (original Transformer)", gpt2: "σ = 0.02 (GPT-2, BERT)",
  torch: "σ = 1 (nn.Embedding default)" };
const STEP = 16; // d_model moves in steps of 16 on the slider

export async function render(root) {
  const { limits } = await config();
  const page = build(root, limits.scale);
  const update = latest(() => load(page), (r) => draw(page, r), page.errors);
  for (const input of [page.mode, page.factor, page.dim, page.init]) {
    input.addEventListener("input", () => { follow(page); update(); });
  }
  follow(page);
  const sweep = buildSweep(root, limits.scale);
  const run = latest(() => loadSweep(sweep), (r) => drawSweep(sweep, r), sweep.errors);
  sweep.start.addEventListener("click", run);
  await update();
}

function build(root, limits) {
  const page = {
    mode: select("scale-mode", limits.scales, "none", (s) => SCALES[s] ?? s),
    factor: number("scale-factor", limits.factor, 1, { step: 0.1 }),
    dim: el("input", { id: "scale-dim", type: "range", min: STEP, max: limits.d_model[1], step: STEP, value: 512 }),
    dimLabel: el("span", { id: "scale-dim-value", class: "stat" }, "512"),
    init: select("scale-init", limits.inits, limits.inits[0], (name) => INITS[name] ?? name),
    ratio: el("p", { id: "scale-ratio", class: "stat" }),
    errors: el("div", { id: "scale-error" }),
    balance: el("div", { id: "scale-balance", class: "plot" }),
    stats: el("div", { id: "scale-stats" }),
    what: el("p", { class: "note", id: "scale-what" }),
    example: el("div", { id: "scale-example", class: "plot" }),
    heat: el("div", { id: "scale-heat", class: "plot" }),
  };
  root.append(
    el("h2", {}, "Scale balance"),
    el("p", {}, "A freshly initialised token row drawn from N(0, σ²) is about σ√d long, while a sinusoidal " +
      "position row is exactly √(d/2) long, whatever the position. With the original Transformer's σ = 1/√d the " +
      "token rows are near length 1, so the sum of the two is mostly position; multiplying token rows by √d " +
      "lifts them to about √d and the two become comparable. The rows below are real draws and real sinusoids."),
    el("div", { class: "controls" }, field("scale factor", page.mode), field("factor", page.factor),
      field("d_model", el("span", {}, page.dim, " ", page.dimLabel)), field("token init", page.init)),
    page.ratio, page.errors,
    el("div", { class: "grid2" }, page.balance, el("div", {}, page.stats, page.what), page.example, page.heat));
  return page;
}

// The controls that follow others: the factor only counts for "× a number"; the slider's value.
function follow(page) {
  page.factor.disabled = page.mode.value !== "number";
  page.dimLabel.textContent = page.dim.value;
}

function load(page) {
  const params = { d_model: page.dim.value, scale: page.mode.value, init: page.init.value };
  if (page.mode.value === "number") params.factor = page.factor.value;
  return get("/api/scale", params);
}

function draw(page, r) {
  const ratioText = r.ratio > 0 ? `token : position = 1 : ${num(1 / r.ratio, 2)}` : "token rows are zero";
  page.ratio.textContent = `mean ‖token × ${num(r.factor, 3)}‖ = ${num(r.token_norm, 3)}, mean ‖position‖ = ` +
    `${num(r.position_norm, 3)}; ratio ${num(r.ratio, 3)} (${ratioText})`;
  const names = ["token × factor", "position"];
  plot(page.balance, [
    { type: "bar", x: names, y: [r.token_norm, r.position_norm], name: "measured mean",
      marker: { color: [colour("token"), colour("position")] } },
    { type: "scatter", mode: "markers", x: names, name: "factor·σ·√d and √(d/2)",
      y: [r.expected_token_norm, r.expected_position_norm],
      marker: { symbol: "line-ew-open", size: 40, color: colour("ink") } },
  ], { title: { text: "mean row length" }, showlegend: true, legend: { orientation: "h" } });
  page.stats.replaceChildren(table(["how alike (mean cosine of the sums)", "value"], [
    ["two different tokens at one position", num(r.same_position_cosine, 3)],
    ["one token at two positions", num(r.same_token_cosine, 3)],
  ]));
  page.what.textContent = `Token rows: ${num(r.n_tokens)} draws with σ = ${r.std.toPrecision(3)}, times ` +
    `${num(r.factor, 3)}. Positions: sinusoid rows 0–${num(r.n_positions - 1)}. Near 1 in the first row means ` +
    "position drowns the token; near 1 in the second means the token drowns position.";
  drawSamples(page, r);
}

// Token 0, one position row and their sum, bar by bar; and every sampled sum as a heat map.
function drawSamples(page, r) {
  const K = r.token[0].length;
  const x = Array.from({ length: K }, (_, i) => i);
  const p = r.sample_positions[1];
  plot(page.example, [
    { type: "bar", name: "token × factor", x, y: r.token[0], marker: { color: colour("token") } },
    { type: "bar", name: `position ${p}`, x, y: r.position[1], marker: { color: colour("position") } },
    { type: "bar", name: "sum", x, y: r.combined[0][1], marker: { color: colour("total") } },
  ], { title: { text: `token 0 at position ${p}: first ${K} dimensions` }, barmode: "group",
    legend: { orientation: "h" } });
  const labels = r.combined.flatMap((_, i) => r.sample_positions.map((pos) => `token ${i} @ ${pos}`));
  heat(page.heat, r.combined.flat(), { y: labels, x, title: "sums: rows alike by position or by token?" });
}

// The σ sweep: computed when asked for (seconds per setting; the server keeps each answer).
const OPTIMIZERS = { adamw: "AdamW, clipped (as TinyLM trains)", sgd: "plain SGD, no clipping" };
const HEADS = { untied: "untied head", tied: "tied head (logits read the table)" };
const SECONDS_PER_SIGMA_STEP = 0.025; // ~1.5 s per σ at 60 steps on one core: what the wait note says

function buildSweep(root, limits) {
  const sweep = {
    optimizer: select("sweep-optimizer", limits.sweep_optimizers, "adamw", (o) => OPTIMIZERS[o] ?? o),
    head: select("sweep-head", limits.sweep_heads, "untied", (h) => HEADS[h] ?? h),
    steps: number("sweep-steps", limits.sweep_steps, 60, { step: 10 }),
    start: el("button", { id: "sweep-start", class: "primary" }, "Run the σ sweep"),
    status: el("p", { id: "sweep-status", class: "stat" }),
    errors: el("div", { id: "sweep-error" }),
    verdicts: el("div", { id: "sweep-verdicts" }),
    rules: el("p", { id: "sweep-rules", class: "note" }),
    activations: el("div", { id: "sweep-activations", class: "plot" }),
    gradients: el("div", { id: "sweep-gradients", class: "plot" }),
    losses: el("div", { id: "sweep-losses", class: "plot" }),
    sigmas: limits.sweep_sigmas,
  };
  root.append(
    el("h2", {}, "Initialisation scale, trained"),
    el("p", {}, "A small language model (TinyLM: 2 pre-norm blocks, d = 64, bytes of enwiki-sample) is built " +
      `once per σ with its token table drawn from N(0, σ²), σ = ${sweep.sigmas.join(", ")}, the rest at its ` +
      "usual init, and trained on the same batches. Below: the mean length of each layer's output and the " +
      "gradient of each layer's weights at init, the loss of every step, and what each σ came to."),
    el("div", { class: "controls" }, field("optimizer", sweep.optimizer), field("output head", sweep.head),
      field("steps", sweep.steps), sweep.start),
    sweep.status, sweep.errors,
    el("div", { class: "grid2" }, sweep.activations, sweep.gradients, sweep.losses,
      el("div", {}, sweep.verdicts, sweep.rules)));
  return sweep;
}

function loadSweep(sweep) {
  const seconds = Math.ceil(sweep.sigmas.length * Number(sweep.steps.value) * SECONDS_PER_SIGMA_STEP);
  sweep.status.textContent = `training ${sweep.sigmas.length} models (about ${seconds} s the first time)…`;
  return get("/api/scale/sweep", { optimizer: sweep.optimizer.value, head: sweep.head.value,
    steps: sweep.steps.value });
}

// One line per layer across σ, both axes logarithmic.
function perLayer(div, r, layers, values, title) {
  const sigmas = r.runs.map((run) => run.sigma);
  return plot(div, layers.map((name, i) => ({ type: "scatter", mode: "lines+markers", name, x: sigmas,
    y: r.runs.map((run) => run[values][i]) })),
  { title: { text: title }, xaxis: { type: "log", exponentformat: "power", title: { text: "σ of the token table" } },
    yaxis: { type: "log", exponentformat: "power" }, legend: { orientation: "h", y: -0.3 } });
}

function drawSweep(sweep, r) {
  sweep.status.textContent = `${r.optimizer} at lr ${r.lr}, ${r.tied ? "tied" : "untied"} head, ${r.steps} ` +
    `steps of ${r.batch_size} × ${r.context} bytes (${num(r.corpus_bytes)} bytes of ${r.corpus}), seed ${r.seed}`;
  perLayer(sweep.activations, r, r.activation_layers, "activation_norms", "mean row length at init");
  perLayer(sweep.gradients, r, r.gradient_layers, "gradient_norms", "‖gradient‖ of each layer's weights at init");
  plot(sweep.losses, r.runs.map((run) => ({ type: "scatter", mode: "lines", name: `σ = ${run.sigma} (${run.verdict})`,
    y: run.losses })),
  { title: { text: "training loss (nats) per step" }, xaxis: { title: { text: "step" } },
    yaxis: { type: "log" }, legend: { orientation: "h", y: -0.3 } });
  sweep.verdicts.replaceChildren(table(["σ", "loss at init", "final loss", "verdict"],
    r.runs.map((run) => [run.sigma, num(run.losses[0], 3), num(run.final_loss, 3), run.verdict])));
  sweep.rules.textContent = `final loss: the mean of the last ${r.final_window} steps (– when not finite). ` +
    `explodes: a loss not finite, or the final loss above ln V + ${r.margin} = ${num(r.uniform_loss + r.margin, 3)} ` +
    `(worse than a uniform guess); stalls: at or above H₁ − ${r.margin} = ${num(r.unigram_loss - r.margin, 3)}, ` +
    `where H₁ = ${num(r.unigram_loss, 3)} is the entropy of the bytes' frequencies (no use of context); ` +
    "learns: below that.";
}
