// Geometry: neighbours and analogies on a served table; a pair's dot product taken apart.
import { el, field, fixed, select, table } from "./dom.js";
import { config, get, latest } from "./http.js";

const NEIGHBOURS = 8; // answers shown per word
const ANSWERS = 5; // answers shown per analogy

export async function render(root) {
  const [{ tables }, { limits }] = await Promise.all([get("/api/tables"), config()]);
  const page = build(root, tables, limits.geometry);
  const params = (more) => ({ table: page.source.value, ...more });
  const views = [
    latest(() => get("/api/geometry/neighbors", params({ word: page.word.value, k: NEIGHBOURS })),
      (r) => page.neighbours.replaceChildren(ranked(r)), page.neighbours),
    latest(() => get("/api/geometry/analogy", params({ expression: page.expression.value, k: ANSWERS })),
      (r) => page.answers.replaceChildren(ranked(r)), page.answers),
    latest(() => get("/api/geometry/pair", params({ a: page.a.value, b: page.b.value })),
      (r) => page.pair.replaceChildren(parts(r)), page.pair),
  ];
  const update = () => Promise.all(views.map((view) => view()));
  for (const input of [page.source, page.word, page.expression, page.a, page.b]) input.addEventListener("change", update);
  await update();
}

function build(root, tables, limits) {
  const text = (id, value, size = 20) => el("input", { id, value, size, maxlength: limits.text });
  const page = {
    source: select("geo-table", tables),
    word: text("geo-word", "king"),
    expression: text("geo-expr", "king - man + woman", 24),
    a: text("geo-a", "cat"),
    b: text("geo-b", "dog"),
    neighbours: el("div", { id: "geo-neighbors" }),
    answers: el("div", { id: "geo-analogy" }),
    pair: el("div", { id: "geo-pair" }),
  };
  root.append(
    el("h2", {}, "Geometry"),
    el("p", {}, "Nearness in an embedding table is a number: the cosine of the angle between two rows, their " +
      "dot product, or their distance. The dot product is ‖a‖ ‖b‖ cos θ, so long rows score high even " +
      "at a wide angle; cosine divides the lengths out."),
    el("div", { class: "controls" }, field("table", page.source), field("word", page.word)), page.neighbours,
    el("div", { class: "controls" }, field("analogy", page.expression)), page.answers,
    el("div", { class: "controls" }, field("a", page.a), field("b", page.b)), page.pair);
  return page;
}

const ranked = (r) => table(["#", "key", r.metric], r.neighbors.map((n, i) => [i + 1, n.key, fixed(n.score, 4)]));

const parts = (r) => table(["a·b", "‖a‖", "‖b‖", "cos θ", "θ (degrees)", "‖a − b‖"],
  [[r.dot, r.norm_a, r.norm_b, r.cosine, r.angle_degrees, r.distance].map((x) => fixed(x, 4))]);
