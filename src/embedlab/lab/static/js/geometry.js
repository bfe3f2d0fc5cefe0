// Geometry: neighbours and analogies on a served table under the metric picked (the API's list), and a
// pair's dot product taken apart.
import { el, field, num, select, table } from "./dom.js";
import { config, get, latest } from "./http.js";

const NEIGHBOURS = 8; // answers shown per word
const ANSWERS = 5; // answers shown per analogy
// How a score reads under each metric; a metric the API adds later shows under its own name.
const SCORES = { cosine: "cos θ", dot: "a·b", euclidean: "‖a − b‖ (lower is nearer)" };

export async function render(root) {
  const [{ tables }, { limits }] = await Promise.all([get("/api/tables"), config()]);
  const page = build(root, tables, limits.geometry);
  const params = (more) => ({ table: page.source.value, metric: page.metric.value, ...more });
  const views = {
    neighbours: latest(() => get("/api/geometry/neighbors", params({ word: page.word.value, k: NEIGHBOURS })),
      (r) => page.neighbours.replaceChildren(ranked(r)), page.neighbours),
    answers: latest(() => get("/api/geometry/analogy", params({ expression: page.expression.value, k: ANSWERS })),
      (r) => page.answers.replaceChildren(ranked(r)), page.answers),
    pair: latest(() => get("/api/geometry/pair", { table: page.source.value, a: page.a.value, b: page.b.value }),
      (r) => page.pair.replaceChildren(parts(r, page.metric.value)), page.pair),
  };
  const update = () => Promise.all(Object.values(views).map((view) => view()));
  // Another table keeps the queries it can answer and replaces the others by ones it can (a small run
  // may lack "king"): asked before the queries, so none is sent to a table that lacks its words.
  const reopen = latest(() => get("/api/geometry/defaults", current(page)), (r) => { fill(page, r); return update(); },
    page.neighbours);
  page.source.addEventListener("change", reopen);
  page.metric.addEventListener("change", update);
  page.word.addEventListener("change", views.neighbours);
  page.expression.addEventListener("change", views.answers);
  for (const input of [page.a, page.b]) input.addEventListener("change", views.pair);
  await reopen();
}

const QUERIES = ["word", "expression", "a", "b"]; // the inputs, by the names /api/geometry/defaults uses

// The table and the queries typed so far (an empty one is left out: the table's default fills it).
function current(page) {
  const filled = QUERIES.filter((name) => page[name].value.trim()).map((name) => [name, page[name].value]);
  return [["table", page.source.value], ...filled];
}

function fill(page, r) {
  for (const name of QUERIES) page[name].value = r[name];
}

function build(root, tables, limits) {
  const text = (id, value, size = 20) => el("input", { id, value, size, maxlength: limits.text });
  const page = {
    source: select("geo-table", tables),
    metric: select("geo-metric", limits.metrics),
    word: text("geo-word", ""), // the four queries: filled from the table's defaults (reopen)
    expression: text("geo-expr", "", 24),
    a: text("geo-a", ""),
    b: text("geo-b", ""),
    neighbours: el("div", { id: "geo-neighbors" }),
    answers: el("div", { id: "geo-analogy" }),
    pair: el("div", { id: "geo-pair" }),
  };
  root.append(
    el("h2", {}, "Geometry"),
    el("p", {}, "Nearness in an embedding table is a number: the cosine of the angle between two rows, their " +
      "dot product, or their distance. The dot product is ‖a‖ ‖b‖ cos θ, so long rows score high even " +
      "at a wide angle; cosine divides the lengths out. Switch the metric and watch which neighbours change."),
    el("div", { class: "controls" }, field("table", page.source), field("metric", page.metric),
      field("word", page.word)), page.neighbours,
    el("div", { class: "controls" }, field("analogy", page.expression)), page.answers,
    el("div", { class: "controls" }, field("a", page.a), field("b", page.b)), page.pair);
  return page;
}

const ranked = (r) => table(["#", "key", SCORES[r.found.metric] ?? r.found.metric],
  r.found.keys.map((key, i) => [i + 1, key, num(r.found.scores[i], 4)]));

// The pair's numbers; the one the metric picked ranks by is marked.
function parts(r, metric) {
  const p = r.parts;
  const columns = [["a·b", p.dot, "dot"], ["‖a‖", p.norm_a], ["‖b‖", p.norm_b], ["cos θ", p.cosine, "cosine"],
    ["θ (degrees)", p.angle_degrees], ["‖a − b‖", r.distance, "euclidean"]];
  const node = table(columns.map(([name, , by]) => (by === metric ? `${name} ◂` : name)),
    [columns.map(([, value]) => num(value, 4))]);
  node.id = "geo-pair-table";
  return node;
}
