// Geometry: neighbours and analogies on a served table; a pair's dot product taken apart.
import { el, field, get, guard, table } from "./api.js";

export async function render(root) {
  const { tables } = await get("/api/tables");
  const source = el("select", { id: "geo-table" }, ...tables.map((t) => el("option", {}, t)));
  const word = el("input", { id: "geo-word", value: "king" });
  const expression = el("input", { id: "geo-expr", value: "king - man + woman", size: 24 });
  const a = el("input", { id: "geo-a", value: "cat" });
  const b = el("input", { id: "geo-b", value: "dog" });
  const neighbours = el("div", { id: "geo-neighbors" });
  const answers = el("div", { id: "geo-analogy" });
  const pair = el("div", { id: "geo-pair" });
  root.append(
    el("h2", {}, "Geometry"),
    el("p", {}, "Nearness in an embedding table is a number: the cosine of the angle between two rows, their " +
      "dot product, or their distance. The dot product is ‖a‖ ‖b‖ cos θ, so long rows score high even " +
      "at a wide angle; cosine divides the lengths out."),
    el("div", { class: "controls" }, field("table", source), field("word", word)), neighbours,
    el("div", { class: "controls" }, field("analogy", expression)), answers,
    el("div", { class: "controls" }, field("a", a), field("b", b)), pair);

  const ranked = (r) => table(["#", "key", r.metric], r.neighbors.map((n, i) => [i + 1, n.key, n.score.toFixed(4)]));
  const update = () => Promise.all([
    guard(neighbours, async () => neighbours.replaceChildren(
      ranked(await get("/api/geometry/neighbors", { table: source.value, word: word.value, k: 8 })))),
    guard(answers, async () => answers.replaceChildren(
      ranked(await get("/api/geometry/analogy", { table: source.value, expression: expression.value, k: 5 })))),
    guard(pair, async () => {
      const r = await get("/api/geometry/pair", { table: source.value, a: a.value, b: b.value });
      pair.replaceChildren(table(["a·b", "‖a‖", "‖b‖", "cos θ", "θ (degrees)", "‖a − b‖"],
        [[r.dot, r.norm_a, r.norm_b, r.cosine, r.angle_degrees, r.distance].map((x) => x.toFixed(4))]));
    }),
  ]);
  for (const input of [source, word, expression, a, b]) input.addEventListener("change", update);
  await update();
}
