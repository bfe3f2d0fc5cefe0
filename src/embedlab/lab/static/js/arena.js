// Strategy arena: lesson 001's six ways to embed, raced for real. Two races side by side, each named by
// its budget: the full race (one run with `embedlab arena` in the cache, else the one recorded with
// embedlab) and the quick race this page can run; the quick one never takes the full one's place.
import { count, el, field, fixed, note, select, table } from "./dom.js";
import { config, get, post, shown } from "./http.js";
import { colour, plot } from "./plot.js";

const POLL_MS = 1000;
const HEADLINE = { lm: "bits_per_byte", rare: "rare_bits_per_byte", image: "accuracy", cost: "tokens_per_input" };
const RACE_COLOURS = ["accent", "warm"]; // the full race's bars, the quick race's (lab.css)
// One colour per sweep strategy (lab.css), the same in every width's panel, so the legend names each line.
const SWEEP_COLOURS = ["accent", "warm", "green", "violet", "deep", "red", "position", "segment"];

export async function render(root) {
  const { limits } = await config();
  const page = build(root, limits.arena);
  page.task.addEventListener("change", () => page.state && drawRaces(page, page.state));
  page.start.addEventListener("click", () => shown(page.error, async () => follow(page, await post("/api/arena/start"))));
  await shown(page.error, async () => follow(page, await get("/api/arena")));
}

function build(root, limits) {
  const page = {
    task: select("arena-task", limits.tasks, "lm"),
    start: el("button", { id: "arena-start", class: "primary" }, "Run the quick race"),
    error: el("div", { id: "arena-error" }),
    status: el("p", { id: "arena-status", class: "stat" }),
    progress: el("div", { id: "arena-progress" }),
    bars: el("div", { id: "arena-bars", class: "plot" }),
    details: el("div", { id: "arena-details" }),
    figures: el("div", { id: "arena-figures" }),
    verdicts: el("div", { id: "arena-verdicts" }),
    curve: el("div", { id: "arena-curve", class: "plot short" }),
    sweepStatus: el("p", { id: "arena-sweep-status", class: "stat" }),
    sweep: el("div", { id: "arena-sweep", class: "plot" }),
    anchor: el("div", { id: "arena-anchor" }),
    state: null,
    picked: null, // [strategy, which race] of the details shown: "race" (the full one) or "quick"
  };
  root.append(
    el("h2", {}, "Strategy arena"),
    el("p", {}, "Six ways to embed — small and large vocabularies, tied and untied heads, subword BPE, raw " +
      "bytes, and image patches of two sizes — and lesson 002's huge-vocabulary tables (adaptive input, hashed " +
      "and quotient-remainder rows), each trained on the same compute (FLOPs counted from the model's " +
      "shapes) and measured on " +
      "language modelling (held-out bits per byte), rare words, Fashion-MNIST and cost. The arena keeps the " +
      "lesson's proportions at a size two cores can train. A strategy that cannot do a task is marked n/a."),
    el("div", { class: "controls" }, field("task", page.task), page.start),
    page.error, page.status, page.progress, page.bars, page.verdicts,
    // the per-metric table is wider than half the page: it gets the whole width, under its curve
    el("div", { class: "grid2" }, page.details, page.curve), page.figures,
    el("h3", {}, "The budget axis: when does a larger vocabulary pay?"),
    el("p", {}, "The four text strategies raced again at several compute budgets and two body widths " +
      "(`embedlab arena --sweep`): a line per strategy, a panel per width, lower is better."),
    page.sweepStatus, page.sweep, page.anchor);
  return page;
}

// Show a state; while a race runs, ask again until it ends or the page is left.
async function follow(page, state) {
  page.state = state;
  page.start.disabled = state.status === "running";
  page.status.textContent = status(state);
  page.progress.replaceChildren(...(state.progress.length ? [progressTable(state)] : []));
  await drawRaces(page, state);
  await drawSweep(page, state);
  if (state.status === "running") {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    if (!page.bars.isConnected) return; // another page is shown: stop asking
    await shown(page.error, async () => follow(page, await get("/api/arena")));
  }
}

// The races shown, the full one first: [{key, race, name}], `name` saying its budget (the legend's).
function races(state) {
  const shown = [{ key: "race", race: state.race, name: raceName(state.race, state.source) }];
  if (state.quick) shown.push({ key: "quick", race: state.quick, name: raceName(state.quick, "quick") });
  return shown;
}

function raceName(race, source) {
  const seeds = race.budget.seeds.length;
  const name = `${race.budget.name} race, ${seeds} seed${seeds === 1 ? "" : "s"}`;
  return source === "recorded" ? `${name}, recorded ${race.recorded.date}` : name;
}

function status(state) {
  const full = state.source === "recorded" ? recordedRace(state.race.recorded) : `the ` +
    `${state.race.budget.name} race in the lab's cache (seeds ${state.race.budget.seeds.join(", ")}, ` +
    `${state.race.budget.corpus} and Fashion-MNIST)`;
  const quick = state.quick && `the ${state.quick.budget.name} race run here (seeds ` +
    `${state.quick.budget.seeds.join(", ")}, ${state.quick.budget.corpus}). ${QUICK_DIFFERS}`;
  if (state.status === "running") {
    return `A quick race is running (about 3 minutes): its progress is below. Meanwhile the bars show ${full}` +
      (quick ? `, and beside it ${quick}.` : "; the quick race's bars join them when it finishes.");
  }
  const shown = `Showing ${full}` + (quick ? `, and beside it ${quick}.` : "; run the quick race " +
    "(about 3 minutes) to see its bars beside them.");
  if (state.status === "failed") return `The quick race failed: ${state.message}. ${shown}`;
  return shown;
}

// Why the quick race's order need not be the full race's (docs/arena.md says the same).
const QUICK_DIFFERS = "The quick race trains on a sixteenth of the full race's compute, on 600 KB of text, " +
  "with one seed: large vocabularies have taken a few dozen steps and can still score worse than their own " +
  "unigram baseline, so its order is how far each got, and nothing in it is beyond noise";

function recordedRace(recorded) {
  return `the full race recorded on ${recorded.date} (${recorded.machine}; ${recorded.command}; ` +
    "3 seeds, gcide and Fashion-MNIST)";
}

function progressTable(state) {
  const progress = table(["strategy", "seed", "stage", "budget spent", "last curve point"], state.progress.map((p) => [
    state.labels[p.strategy] ?? p.strategy, p.seed, p.stage,
    p.stage === "training" ? `${fixed(100 * p.done, 0)} %` : "", p.value === null ? "" : fixed(p.value)]));
  progress.id = "arena-progress-table";
  return progress;
}

// A measured figure as its unit reads: counts with separators, rates rounded, scores to 4 decimals.
const COUNTED = new Set(["parameters", "tokens", "scores", "bytes/s", "images/s"]);
function figure(value, unit) {
  if (COUNTED.has(unit)) return count(Number.isInteger(value) ? value : Number(value.toFixed(1)));
  return fixed(value, unit === "ms" ? 2 : 4);
}

// A race's headline rows for `task`, one per strategy of `names` (undefined where the race lacks it);
// a bar only for a measured figure: not applicable (or not measured) is a word on the axis.
function headline(race, task, names) {
  const metric = HEADLINE[task];
  return names.map((name) => {
    const r = race.results.find((x) => x.strategy === name && x.task === task && (x.metric === metric || !x.applicable));
    return r && { ...r, applicable: r.applicable && r.value !== null };
  });
}

async function drawRaces(page, state) {
  const task = page.task.value;
  const metric = HEADLINE[task];
  const shown = races(state);
  const labels = Object.fromEntries(shown.flatMap(({ race }) => race.strategies.map((s) => [s.name, s.label])));
  const names = [...new Set(shown.flatMap(({ race }) => race.strategies.map((s) => s.name)))];
  const rows = shown.map(({ race }) => headline(race, task, names));
  const x = names.map((name) => labels[name]);
  const measured = rows.flat().filter((r) => r?.applicable);
  const unit = measured[0]?.unit ?? "";
  const better = measured[0]?.better ?? "";
  await plot(page.bars, shown.map(({ key, name }, i) => ({
    type: "bar", name, x, y: rows[i].map((r) => (r?.applicable ? r.value : null)),
    customdata: names.map((n) => [n, key]), marker: { color: colour(RACE_COLOURS[i]) },
    text: rows[i].map((r) => (r?.applicable ? figure(r.value, r.unit) : "")), textposition: "outside",
    error_y: { type: "data", symmetric: false, array: rows[i].map((r) => (r?.applicable ? r.spread[1] - r.value : 0)),
      arrayminus: rows[i].map((r) => (r?.applicable ? r.value - r.spread[0] : 0)) },
    hovertemplate: `${name}, %{x}: %{text}<extra>click for details</extra>`,
  })), {
    title: { text: `${task}: ${metric.replaceAll("_", " ")} (${unit}), ${better} is better` },
    barmode: "group", showlegend: true, // the legend names each race by its budget
    // n/a where no race measured the strategy on this task (a kind of strategy, the same in every race)
    annotations: names.map((n, i) => (rows.some((r) => r[i]?.applicable) ? null : { x: x[i], y: 0, text: "n/a",
      showarrow: false, yanchor: "bottom", font: { color: colour("muted") } })).filter(Boolean),
    yaxis: { type: task === "cost" ? "log" : "linear" }, height: 400,
  });
  page.verdicts.replaceChildren(...shown.flatMap(({ key, race, name }, i) =>
    verdicts(race, rows[i].filter((r) => r?.applicable), labels, key, name)));
  page.bars.removeAllListeners?.("plotly_click");
  page.bars.on("plotly_click", (event) => details(page, state, ...event.points[0].customdata));
  const [name, key] = page.picked ?? [state.race.strategies[0].name, "race"];
  await details(page, state, name, state[key] ? key : "race");
}

// A race's headline figure ranked, each strategy set against the next one down: "holds" where the
// paired seeds' difference is beyond noise with every ordering of the race as one family (Holm's
// correction; the API serves each race's orderings judged so, arena.claims.holm_orderings), "within
// noise" where it is not (always, with one seed).
function verdicts(race, rows, labels, key, name) {
  if (rows.length < 2) return [];
  const sign = rows[0].better === "lower" ? 1 : -1;
  const ranked = [...rows].sort((a, b) => sign * (a.value - b.value));
  const judged = (a, b) => race.orderings?.find((o) => o.task === a.task && o.metric === a.metric &&
    o.winner === a.strategy && o.loser === b.strategy)?.verdict ?? "not judged";
  const ranking = table(["rank", "strategy", "mean over seeds", "95% interval", "beats the next one down"],
    ranked.map((r, i) => [i + 1, labels[r.strategy], figure(r.value, r.unit),
      r.interval ? r.interval.map((v) => figure(v, r.unit)).join(" – ") : "one seed",
      i + 1 < ranked.length ? judged(r, ranked[i + 1]) : ""]));
  ranking.id = key === "race" ? "arena-verdict-table" : "arena-verdict-table-quick";
  ranking.dataset.budget = race.budget.name;
  return [el("h4", {}, `The ${name}: the ranking, judged against its seeds' noise (all its orderings as one ` +
    "family, Holm's correction)"), ranking];
}

// A strategy's measured details in one race (`key`: "race", the full one, or "quick"): both scales,
// every figure, its learning curve.
async function details(page, state, name, key) {
  page.picked = [name, key];
  const race = state[key];
  const s = race.strategies.find((t) => t.name === name);
  if (!s) return; // a strategy the other race has and this one does not: nothing to detail
  const mine = race.results.filter((r) => r.strategy === name && r.applicable && r.value !== null);
  page.details.replaceChildren(el("h3", { id: "arena-picked" }, s.label),
    note(`in the ${races(state).find((r) => r.key === key).name}`, { id: "arena-picked-race" }),
    table(["", "the lesson", "the arena"], [
      [s.kind === "text" ? "vocabulary" : "patch", s.kind === "text" ? count(s.lesson.vocab_size) :
        `${s.lesson.patch_size} px of ${s.lesson.image_size}`, s.kind === "text" ? count(s.arena.vocab_size) :
        `${s.arena.patch_size} px of ${s.arena.image_size}`],
      ["width d", count(s.lesson.dim), count(s.arena.dim)],
      ["embedding parameters", count(s.lesson.params), count(s.arena.params)],
      ["tokens per input", s.lesson.tokens_per_input, fixed(mine.find((r) => r.metric === "tokens_per_input")?.value ?? NaN, 1)],
    ]));
  page.figures.replaceChildren(
    table(["task", "metric", "mean over seeds", "each seed", "unit", "95% interval"], mine.map((r) => [r.task,
      r.metric.replaceAll("_", " "), figure(r.value, r.unit), r.values.map((v) => figure(v, r.unit)).join(", "),
      r.unit, r.interval ? r.interval.map((v) => figure(v, r.unit)).join(" – ") : "one seed"])),
    note(`Every figure: ${race.budget.name} race, seeds ${race.budget.seeds.join(", ")}, ` +
      `${spend(race.budget, s.kind)} of training on ` +
      (s.kind === "text" ? race.budget.corpus : `${count(race.budget.image_train)} Fashion-MNIST images`) + "."));
  const runs = race.runs.filter((r) => r.strategy === name && r.curve?.length);
  await plot(page.curve, runs.map((r) => ({ type: "scatter", mode: "lines+markers", name: `seed ${r.seed}`,
    x: r.curve.map((p) => p[0]), y: r.curve.map((p) => p[1]) })),
  { title: { text: `${s.label}: ${s.kind === "text" ? "held-out bits per byte" : "test accuracy"} while training` },
    xaxis: { title: { text: "training FLOPs" } }, legend: { orientation: "h", y: -0.3 }, height: 340 });
}

// What a run's budget is: the same FLOPs for every strategy of a kind, or the same seconds (clock "wall").
function spend(budget, kind) {
  if (budget.clock === "wall") return `${kind === "text" ? budget.text_seconds : budget.image_seconds} s`;
  return `${(kind === "text" ? budget.text_flops : budget.image_flops).toExponential(2)} FLOPs`;
}

// The budget sweep: held-out bits per byte against training FLOPs (log axis), one panel per width.
// There is always one: a sweep in the lab's cache, else the one recorded with embedlab.
async function drawSweep(page, state) {
  const sweep = state.sweep;
  const widths = sweep.plan.widths;
  const about = `${sweep.corpus}, seeds ${sweep.plan.seeds.join(", ")}, widths ${widths.join(" and ")}`;
  page.sweepStatus.textContent = state.sweep_source === "recorded" ?
    `Showing the ${sweep.plan.name} sweep recorded on ${sweep.recorded.date} (${sweep.recorded.machine}; ` +
      `${sweep.recorded.command}; ${about}). One seed per point: a winner's margin is set against the full ` +
      "race's seed intervals, not judged here. Your own: `embedlab arena --sweep --out " +
      "EMBEDLAB_CACHE/lab/arena/sweep` (or --sweep --quick into …/sweep-quick), then reload." :
    `Showing the ${sweep.plan.name} sweep (${about}).`;
  const traces = widths.flatMap((width, i) => sweep.strategies.map((s, k) => {
    const rows = sweep.points.filter((p) => p.width === width)
      .map((p) => p.strategies.find((r) => r.strategy === s.name)).filter((r) => r && r.bits_per_byte !== null);
    // one legend entry per strategy (the first panel's): every panel draws that strategy in its colour
    const paint = colour(SWEEP_COLOURS[k % SWEEP_COLOURS.length]);
    return { type: "scatter", mode: "lines+markers", name: s.label, legendgroup: s.name, showlegend: i === 0,
      line: { color: paint }, marker: { color: paint },
      xaxis: `x${i ? i + 1 : ""}`, yaxis: `y${i ? i + 1 : ""}`, x: rows.map((r) => r.train_flops),
      y: rows.map((r) => r.bits_per_byte), hovertemplate: `${s.label}, d = ${width}: %{y:.4f} bits/byte at %{x:.3g} FLOPs<extra></extra>` };
  }));
  const axes = Object.fromEntries(widths.flatMap((width, i) => [
    [`xaxis${i ? i + 1 : ""}`, { type: "log", title: { text: `training FLOPs (d = ${width})` } }],
    [`yaxis${i ? i + 1 : ""}`, { title: { text: i ? "" : "held-out bits per byte" } }]]));
  await plot(page.sweep, traces, { grid: { rows: 1, columns: widths.length, pattern: "independent" }, ...axes,
    title: { text: `The ${sweep.plan.name} sweep: bits per byte against training compute` }, height: 400 });
  const a = sweep.anchor;
  page.anchor.replaceChildren(
    table(["width d", "non-vocabulary parameters", "winner at each budget, smallest first",
      "with compute (point estimates)", "Tao et al.'s law there"], a.arena.map((w) => [w.width, count(w.non_vocab_params),
      w.winners.map((x) => count(x.vocab_size)).join(" → "), w.with_compute, count(Math.round(w.tao_vocab_at_params))])),
    note(`Tao et al. 2024: the compute-optimal vocabulary grows as N^${fixed(a.tao_exponent, 2)} with the ` +
      `non-vocabulary parameters N (${a.tao.map((t) => `${count(t.vocab_size)} at ${fixed(t.non_vocab_params / 1e6, 0)}M`).join(", ")}); ` +
      `32K becomes the optimum between N = ${fixed(a.overtakes_32k_at / 1e6, 0)}M (where it overtakes 24K in their ` +
      `measurements) and ${fixed(a.params_at_32k / 1e6, 0)}M (by that law). ${direction(sweep)} ` +
      "Their optimum minimises a loss per token less the unigram's, not bits per byte, so the two need " +
      "not pick the same winner (docs/arena.md compares like with like).", { id: "arena-direction" }));
}

// What the sweep says of its winner's direction, as docs/arena.md words it: the winners read off the point
// estimates, and whether their margins over the runners-up are beyond noise (sweep.winners' verdicts).
function direction(sweep) {
  const a = sweep.anchor;
  const winners = sweep.winners.filter((w) => w.metric === a.metric && w.verdict !== null);
  const held = winners.filter((w) => w.verdict === "holds").length;
  const moves = a.same_direction === null ? "stays the same at every budget" :
    `moves ${a.same_direction ? "the same way as" : "otherwise than"} theirs`;
  if (winners.length && held === winners.length) {
    return `On bits per byte the arena's winner ${moves}, each winner beyond noise of its runner-up.`;
  }
  const seeds = sweep.plan.seeds.length;
  return `On bits per byte the arena's winner ${moves} by the point estimates, but ${held ? `only ${held}` : "none"} ` +
    `of its ${winners.length} winners beats the runner-up beyond noise (${seeds} seed${seeds === 1 ? "" : "s"} a ` +
    "point): the arena resolves no change of winner, with compute or with width, and cannot say whether it " +
    "moves as theirs does.";
}
