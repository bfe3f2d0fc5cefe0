// Input recipe: one piece of a sentence as token + position (+ segment) rows, their sum and LayerNorm;
// any addend can be left out of the sum, and the sentence's X rows are compared piece with piece.
import { checkbox, el, field, num, select, table } from "./dom.js";
import { config, get, latest } from "./http.js";
import { colour, heat, plot } from "./plot.js";

const WINDOW = 32; // dimensions drawn at once: 384 bars per addend would be unreadable
const LABELS = { total: "sum", output: "LayerNorm output" }; // the addends go by their own names
const label = (name) => LABELS[name] ?? name;

export async function render(root) {
  const { limits } = await config();
  const page = build(root, limits.recipe);
  const update = latest(() => load(page), (r) => show(page, r), page.errors);
  const move = (index, position) => { page.index = index; page.position = position; update(); };
  const lead = (recipe) => page.specials[recipe].start.length; // pieces a recipe adds before the text
  page.pick = (i) => move(i, null);
  // the same piece of the text under the new recipe: its index shifts by the specials added before it
  page.recipe.addEventListener("change", () => {
    const shifted = page.index - (page.last ? lead(page.last.recipe) : 0) + lead(page.recipe.value);
    move(Math.max(0, shifted), null);
    adds(page);
  });
  page.text.addEventListener("change", () => move(lead(page.recipe.value), null)); // the text's first piece
  page.segment.addEventListener("change", update);
  page.slider.addEventListener("input", () => move(page.index, Number(page.slider.value)));
  page.dims.addEventListener("change", () => page.last && show(page, page.last));
  for (const box of Object.values(page.summed)) box.addEventListener("change", () => { lockLast(page); update(); });
  adds(page);
  await update();
}

function build(root, limits) {
  const kind = (name) => `${name} (${name === limits.pretrained ? "MiniLM's trained weights" : "fresh"})`;
  const page = {
    index: limits.specials[limits.pretrained].start.length + 1, // "cat": the text's second piece
    position: null, // null: where the piece stands in the sentence
    last: null, // the latest answer
    segmented: limits.segmented, // the recipes with a segment table
    addendNames: limits.addends, // every addend a recipe may sum, in order
    specials: limits.specials, // recipe -> the special tokens it adds at the start and the end
    available: limits.addends, // the addends of the recipe last answered for
    recipe: select("recipe-name", limits.recipes, limits.pretrained, kind),
    text: el("input", { id: "recipe-text", value: "the cat sat on the mat", size: 40, maxlength: limits.text }),
    segment: select("recipe-segment", [0, 1], 0, (s) => `${"AB"[s]} (${s})`),
    dims: el("select", { id: "recipe-dims" }),
    slider: el("input", { id: "recipe-position", type: "range", min: 0, max: limits.position[1], value: 2 }),
    sliderLabel: el("span", { id: "recipe-position-value", class: "stat" }, "2"),
    summed: Object.fromEntries(limits.addends.map((name) => [name, checkbox(`recipe-add-${name}`, true)])),
    chips: el("div", { id: "recipe-tokens" }),
    adds: el("p", { id: "recipe-specials", class: "note" }),
    summary: el("p", { id: "recipe-summary", class: "note" }),
    errors: el("div", { id: "recipe-error" }),
    addends: el("div", { id: "recipe-addends", class: "plot" }),
    sum: el("div", { id: "recipe-sum", class: "plot" }),
    output: el("div", { id: "recipe-output", class: "plot" }),
    norms: el("div", { id: "recipe-norms" }),
    identical: el("p", { id: "recipe-identical", class: "stat" }),
    x: el("div", { id: "recipe-x", class: "plot" }),
  };
  root.append(
    el("h2", {}, "Input recipe"),
    el("p", {}, "Before attention, every token becomes one vector: the row of its id in the token table, plus the " +
      "row for the place it stands in, plus (in BERT) the row for the sentence it belongs to. Pick a piece of " +
      "the sentence and slide it along the sequence: its token row never changes, while the position row and " +
      "the sum do. \"bert\" runs MiniLM's trained tables and LayerNorm; \"gpt2\" and \"transformer\" are " +
      "untrained tables of the same size (seed 0), the last multiplying token rows by √384 and adding fixed " +
      "sinusoids. Untick an addend to leave it out of the sum, of LayerNorm and so of X, the rows that enter " +
      "attention: without position, the same word gets the same row of X wherever it stands."),
    el("div", { class: "controls" }, field("recipe", page.recipe), field("sentence", page.text),
      field("segment", page.segment), field("dimensions", page.dims)),
    page.adds, page.chips,
    el("div", { class: "controls" }, field("position", el("span", {}, page.slider, " ", page.sliderLabel)),
      ...Object.entries(page.summed).map(([name, box]) => field(`add ${name}`, box))),
    page.summary, page.errors,
    el("div", { class: "grid2" }, page.addends, page.sum, page.output, page.norms),
    el("h3", {}, "X, every piece where it stands: what enters attention"), page.identical, page.x);
  return page;
}

// What the chosen recipe's tokenizer adds around the text: BERT's [CLS] … [SEP], GPT-2's nothing.
function adds(page) {
  const recipe = page.recipe.value;
  const { start, end } = page.specials[recipe];
  const list = (tokens) => tokens.join(" ");
  const where = [start.length && `${list(start)} before the text`, end.length && `${list(end)} after it`]
    .filter(Boolean);
  page.adds.textContent = where.length
    ? `${recipe} adds special tokens: ${where.join(" and ")} (shown dashed; they have rows of their own).`
    : `${recipe} adds no special token to a plain text: every piece is the text's own.`;
}

// The ticked addends the recipe has go as repeated `addends`.
function load(page) {
  const recipe = page.recipe.value;
  const params = [["recipe", recipe], ["text", page.text.value], ["index", page.index]];
  if (page.position !== null) params.push(["position", page.position]);
  const segmented = page.segmented.includes(recipe);
  if (segmented) params.push(["segment", page.segment.value]);
  const has = (name) => segmented || name !== "segment";
  let summed = page.addendNames.filter((name) => page.summed[name].checked && has(name));
  if (!summed.length) { // only segment was ticked and this recipe has none: the token, which every recipe has
    summed = page.addendNames.slice(0, 1);
    page.summed[summed[0]].checked = true;
  }
  params.push(...summed.map((name) => ["addends", name]));
  return get("/api/recipe", params);
}

// The sum needs one addend at least (the server refuses an empty one): the last one ticked stays
// ticked, and the addends the recipe lacks cannot be ticked.
function lockLast(page) {
  const ticked = page.available.filter((name) => page.summed[name].checked);
  for (const [name, box] of Object.entries(page.summed)) {
    box.disabled = !page.available.includes(name) || (ticked.length === 1 && ticked[0] === name);
  }
}

function show(page, r) {
  page.last = r;
  describe(page, r);
  draw(page, r);
}

// The controls and the caption follow the answer: pieces as chips, the slider's range, the windows.
function describe(page, r) {
  page.chips.replaceChildren(el("span", { class: "note" }, "pieces (click one): "), ...r.pieces.map((piece, i) => {
    const kind = ["chip", r.special[i] && "special", i === r.index && "selected"].filter(Boolean).join(" ");
    const chip = el("span", { class: kind, "data-index": i, role: "button" }, piece);
    chip.addEventListener("click", () => page.pick(i));
    return chip;
  }));
  page.slider.max = r.config.max_len - 1;
  page.slider.value = r.position;
  page.sliderLabel.textContent = `${r.position} (0–${r.config.max_len - 1})`;
  page.available = r.available;
  lockLast(page);
  page.segment.disabled = r.segment === null;
  if (r.segment !== null) page.segment.value = String(r.segment);
  const windows = Math.ceil(r.config.dim / WINDOW);
  if (page.dims.options.length !== windows) {
    page.dims.replaceChildren(...Array.from({ length: windows }, (_, w) =>
      el("option", { value: w * WINDOW }, `${w * WINDOW}–${Math.min((w + 1) * WINDOW, r.config.dim) - 1}`)));
  }
  const where = r.segment === null ? "" : `, segment ${"AB"[r.segment]}`;
  page.summary.textContent = `"${r.piece}" (id ${r.id}) at position ${r.position}${where}; ` +
    `sum = ${r.addends.join(" + ")}; ` +
    `dimensions ${page.dims.value}–${Math.min(Number(page.dims.value) + WINDOW, r.config.dim) - 1} of ` +
    `${r.config.dim} drawn` + (r.pretrained ? "; MiniLM's trained weights." : `; fresh ${r.recipe} layers.`);
}

function draw(page, r) {
  const start = Number(page.dims.value || 0);
  const x = Array.from({ length: Math.min(WINDOW, r.config.dim - start) }, (_, i) => start + i);
  const trace = (name) => ({ type: "bar", name: label(name), x, y: r.rows[name].slice(start, start + WINDOW),
    marker: { color: colour(name) } });
  const dimension = { title: { text: "dimension" } };
  const sum = r.addends.join(" + ");
  plot(page.addends, r.addends.map(trace), { title: { text: `addends summed: ${sum}` }, barmode: "group",
    xaxis: dimension });
  plot(page.sum, [trace("total")], { title: { text: `sum: ${sum}` }, xaxis: dimension });
  page.output.hidden = !("output" in r.rows);
  if ("output" in r.rows) {
    plot(page.output, [trace("output")], { title: { text: `LayerNorm(${sum}): what enters attention` },
      xaxis: dimension });
  }
  page.norms.replaceChildren(table(["addend", "‖row‖"],
    Object.entries(r.norms).map(([name, n]) => [label(name), num(n, 4)])));
  drawX(page, r);
}

// Cosine between the X rows of every two pieces, and the pieces whose rows are equal bit for bit.
function drawX(page, r) {
  const names = r.pieces.map((piece, i) => `${i} ${piece}`); // numbered: a repeated word is two rows
  const x = r.config.layer_norm ? `LayerNorm(${r.addends.join(" + ")})` : r.addends.join(" + ");
  heat(page.x, r.x_cosine, { y: names, x: names, title: `cosine between rows of X = ${x}`,
    hover: "%{y} · %{x}: %{z:.4f}",
    layout: { xaxis: { type: "category", tickangle: -45 }, height: Math.max(360, 18 * names.length + 160) } });
  const groups = r.identical.map((g) => g.map((i) => `“${r.pieces[i]}” at ${i}`).join(" = "));
  page.identical.textContent = groups.length ? `X rows equal bit for bit: ${groups.join("; ")}.`
    : "Every piece has its own row of X: no two are equal.";
}
