// Static from contextual: MiniLM distilled into a static table (Model2Vec's recipe), step by step.
// The left matrix is the teacher's cosines between the sentences (six layers, mean-pooled), the right
// one a static stage's (the mean of each sentence's pieces' rows: a lookup and a sum). Below, every
// stage measured on two instruments, with 95% bootstrap intervals.
import { el, field, fixed, note, select } from "./dom.js";
import { config, get, latest } from "./http.js";
import { colour, plot } from "./plot.js";

const EXAMPLE = ["a dog chased the ball across the park", "the puppy ran after a thrown stick",
  "interest rates rose again this quarter", "the central bank lifted its lending rate",
  "she plays the violin in an orchestra"];

export async function render(root) {
  const { limits } = await config();
  const page = build(root, limits.distill);
  const update = latest(() => load(page), (r) => draw(page, r), page.error);
  page.texts.addEventListener("change", update);
  page.step.addEventListener("change", update);
  await update();
  drawSteps(page, await get("/api/distill/steps", []));
}

function build(root, limits) {
  const titles = Object.fromEntries(limits.steps.map((s, i) => [s, limits.titles[i]]));
  const page = {
    texts: el("textarea", { id: "distill-texts", rows: limits.texts[1], cols: 72 }),
    step: select("distill-step", limits.steps, "weights", (s) => titles[s]),
    error: el("div", { id: "distill-error" }),
    summary: el("p", { id: "distill-summary", class: "stat" }),
    teacher: el("div", { id: "distill-teacher", class: "plot" }),
    student: el("div", { id: "distill-static", class: "plot" }),
    steps: el("div", { id: "distill-steps", class: "plot" }),
  };
  page.texts.value = EXAMPLE.join("\n");
  root.append(
    el("h2", {}, "Static from contextual"),
    el("p", {}, "The Static vs contextual page follows a word from its static row into context. Distillation " +
      "goes the other way: every token of MiniLM's vocabulary passes through the encoder alone, and its output " +
      "row becomes a static row. PCA shrinks the rows to 256 dimensions, SIF weights shrink frequent pieces " +
      "(a Zipf guess at frequency, from the token's rank), and a last step fits the rows to the teacher's own " +
      "sentence vectors. A sentence is then the mean of its pieces' rows: no attention, hundreds of times faster."),
    note(`${limits.texts[0]} to ${limits.texts[1]} sentences, one a line, of up to ${limits.text} characters.`,
      { id: "distill-limits" }),
    el("div", { class: "controls" }, field("sentences", page.texts), field("static stage", page.step)),
    page.error, page.summary, el("div", { class: "grid2" }, page.teacher, page.student), page.steps);
  return page;
}

function load(page) {
  const texts = page.texts.value.split("\n").map((t) => t.trim()).filter(Boolean);
  return get("/api/distill", [...texts.map((t) => ["text", t]), ["step", page.step.value]]);
}

async function draw(page, r) {
  const labels = r.texts.map((t, i) => `${i + 1}. ${t.length > 28 ? `${t.slice(0, 27)}…` : t}`);
  const agree = r.spearman === null ? "(three sentences or more give a correlation)" :
    `Spearman ${fixed(r.spearman)}, Pearson ${fixed(r.pearson)} between the two matrices' pairs.`;
  page.summary.textContent = `${page.step.selectedOptions[0].textContent} against the teacher: ${agree}`;
  await matrix(page.teacher, r.teacher, labels, "Teacher: MiniLM, every layer");
  await matrix(page.student, r.static, labels, `Static: ${page.step.selectedOptions[0].textContent}`);
}

function matrix(div, z, labels, title) {
  return plot(div, [{ type: "heatmap", z, x: labels, y: labels, zmin: -1, zmax: 1, text: z.map((row) =>
    row.map((c) => fixed(c))), texttemplate: "%{text}", hovertemplate: "%{y}<br>%{x}: %{z:.3f}<extra></extra>",
  colorscale: [[0, colour("negative")], [0.5, "white"], [1, colour("positive")]] }],
  { title: { text: title }, height: 420, xaxis: { automargin: true, tickangle: -35 },
    yaxis: { automargin: true, autorange: "reversed" }, margin: { l: 40, b: 40 } });
}

function drawSteps(page, figures) {
  const x = figures.steps.map((s) => `${s.title} (${s.dim})`);
  const series = [["wordsim7", "WordSim-7 (Spearman × 100)", "accent"],
    ["recall10", "reverse dictionary recall@10 (%)", "warm"]];
  return plot(page.steps, series.map(([key, name, tone]) => ({ type: "bar", name, x,
    y: figures.steps.map((s) => s[key]), marker: { color: colour(tone) },
    error_y: { type: "data", symmetric: false, array: figures.steps.map((s) => s[`${key}_interval`][1] - s[key]),
      arrayminus: figures.steps.map((s) => s[key] - s[`${key}_interval`][0]) } })),
  { barmode: "group", title: { text: "Each stage on two offline instruments (95% bootstrap intervals)" },
    legend: { orientation: "h", y: -0.25 }, height: 380, yaxis: { title: { text: "score" }, automargin: true },
    xaxis: { automargin: true } });
}
