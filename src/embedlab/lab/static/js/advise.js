// Advise: lesson 001's decision chart walked to a recipe, its sizes, and beside each branch what this
// project measured about it (supports / contradicts / not measured here). Choices come from the API.
import { el, field, memory, note, num, number, select, table } from "./dom.js";
import { config, get, latest } from "./http.js";

export async function render(root) {
  const { limits } = await config();
  const page = build(root, limits.advise);
  const clear = () => { for (const part of [page.recipe, page.path, page.disagreements]) part.replaceChildren(); };
  const update = latest(() => load(page), (r) => draw(page, r), page.error, clear);
  page.modality.addEventListener("change", () => { showGroups(page); update(); });
  for (const input of page.inputs) input.addEventListener("change", update);
  showGroups(page);
  await update();
}

function build(root, limits) {
  const text = (id, value, placeholder) => el("input", { id, value, placeholder, size: 10, maxlength: limits.text });
  const page = {
    modality: select("advise-modality", limits.modalities),
    languages: number("advise-languages", limits.languages, 1),
    params: text("advise-params", "125M", "125M, 7B"),
    seqLen: number("advise-seq", limits.seq_len, 1024),
    positions: select("advise-positions", limits.positions),
    imageSize: number("advise-image-size", limits.image_size, 224),
    detail: select("advise-detail", limits.details),
    memory: text("advise-memory", "", "none, 300MiB"),
    batch: number("advise-batch", limits.batch, 1),
    dtype: select("advise-dtype", limits.dtypes),
    dim: number("advise-dim", limits.dim, 0),
    error: el("div", { id: "advise-error" }),
    recipe: el("div", { id: "advise-recipe" }),
    path: el("ol", { id: "advise-path", class: "advise-path" }),
    disagreements: el("div", { id: "advise-disagreements" }),
  };
  page.groups = {
    text: el("div", { class: "controls", id: "advise-text" }, field("languages", page.languages),
      field("tokens per sequence T", page.seqLen), field("positions", page.positions)),
    image: el("div", { class: "controls", id: "advise-image" }, field("image side (px)", page.imageSize),
      field("resolution needed", page.detail)),
  };
  page.inputs = [page.languages, page.params, page.seqLen, page.positions, page.imageSize, page.detail, page.memory,
    page.batch, page.dtype, page.dim];
  root.append(
    el("h2", {}, "Advise"),
    el("p", {}, "Lesson 001 ends with a decision chart: input, languages, model size, positions and image " +
      "resolution lead to a vocabulary, a tied or untied head, a position scheme and a patch size. Here it is " +
      "walked for your answers, with three questions added (width, sequence length, memory budget), and beside " +
      "every branch stands what this project measured about it: the arena's recorded race, the training docs, the " +
      "lessons audit. Where a measurement contradicts the chart, the page says so."),
    el("div", { class: "controls" }, field("input", page.modality), field("model size (parameters)", page.params),
      field("width D (0: nearest real model)", page.dim)),
    page.groups.text, page.groups.image,
    el("div", { class: "controls" }, field("memory budget (tables + X)", page.memory), field("batch B", page.batch),
      field("dtype", page.dtype)),
    page.error, page.recipe, el("h3", {}, "The path through the chart"), page.path, page.disagreements);
  return page;
}

function showGroups(page) {
  for (const [kind, group] of Object.entries(page.groups)) group.hidden = kind !== page.modality.value;
}

const load = (page) => get("/api/advise", {
  modality: page.modality.value, languages: page.languages.value, params: page.params.value,
  seq_len: page.seqLen.value, positions: page.positions.value, image_size: page.imageSize.value,
  detail: page.detail.value, memory: page.memory.value, batch: page.batch.value, dtype: page.dtype.value,
  dim: page.dim.value || 0,
});

function draw(page, r) {
  const [recipe, size] = [r.recipe, r.size];
  const rows = recipe.modality === "text" ? [
    ["tokenizer", `${recipe.tokenizer}, V = ${num(recipe.vocab_size)} (${recipe.vocab_table} table)`],
    ["output head", recipe.tied ? "tied to the token table" : "untied: a table of its own"],
    ["positions", `${recipe.positions}, ${recipe.scale !== 1 ? `rows × √D = ${num(recipe.scale, 2)}` : "no scaling"}`],
  ] : [
    ["tokenizer", `${recipe.tokenizer}, P = ${recipe.patch_size} on ${recipe.image_size} px`],
    ["positions", "learned, one row per patch and CLS; no scaling"],
  ];
  rows.push(["width", `D = ${num(recipe.dim)}`], ["tokens", `T = ${num(recipe.tokens)}`],
    ["parameters", `${num(size.total_params)} = ${memory(size.bytes)} in ${recipe.dtype}`],
    ["output X", `${r.batch} × ${num(recipe.tokens)} × ${num(recipe.dim)} = ${memory(r.activation_bytes)}`]);
  if (r.budget) rows.push(["budget", `${memory(r.budget)}: ${r.fits ? "fits" : "does not fit"}`]);
  page.recipe.replaceChildren(table(["recipe", ""], rows),
    note("Parameters and bytes are what embedlab size counts for this layout.", { id: "advise-size" }));
  page.path.replaceChildren(...r.path.map((b) => el("li", { class: b.verdict.replaceAll(" ", "-") },
    el("strong", {}, b.question), b.from_lesson ? "" : el("span", { class: "note" }, " (added here)"), " ",
    b.answer, " → ", b.rule, " ", el("span", { class: `verdict ${b.verdict.replaceAll(" ", "-")}` }, b.verdict),
    el("ul", {}, ...b.evidence.map((e) => el("li", {}, el("span", { class: `verdict ${e.verdict.replaceAll(" ", "-")}` },
      e.verdict), " ", e.finding, " ", el("span", { class: "note" }, `(${e.source})`)))))));
  page.disagreements.replaceChildren(...r.disagreements.map((line) => el("p", { class: "advise-disagree" },
    "The chart and this project disagree: ", line)));
}
