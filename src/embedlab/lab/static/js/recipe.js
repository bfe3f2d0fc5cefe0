// Input recipe: one piece of a sentence as token + position (+ segment) rows, their sum and LayerNorm.
import { el, field, get, guard, plot, table } from "./api.js";

const WINDOW = 32; // dimensions drawn at once: 384 bars per addend would be unreadable
const COLORS = { token: "#e8871e", position: "#1a9e8f", segment: "#8a5cc2", total: "#2f6fde", output: "#5b6475" };
const LABELS = { token: "token", position: "position", segment: "segment", total: "sum", output: "LayerNorm output" };

export async function render(root) {
  const recipe = el("select", { id: "recipe-name" },
    el("option", { value: "bert" }, "bert (MiniLM's trained weights)"),
    el("option", { value: "gpt2" }, "gpt2 (fresh)"),
    el("option", { value: "transformer" }, "transformer (fresh)"));
  const text = el("input", { id: "recipe-text", value: "the cat sat on the mat", size: 40, maxlength: 200 });
  const segment = el("select", { id: "recipe-segment" },
    el("option", { value: "0" }, "A (0)"), el("option", { value: "1" }, "B (1)"));
  const dims = el("select", { id: "recipe-dims" });
  const slider = el("input", { id: "recipe-position", type: "range", min: 0, max: 511, value: 2 });
  const sliderLabel = el("span", { id: "recipe-position-value", class: "stat" }, "2");
  const shown = Object.fromEntries(["token", "position", "segment"].map((name) => {
    const box = el("input", { id: `recipe-show-${name}`, type: "checkbox" });
    box.checked = true;
    return [name, box];
  }));
  const chips = el("div", { id: "recipe-tokens" });
  const summary = el("p", { id: "recipe-summary", class: "note" });
  const errors = el("div", { id: "recipe-error" });
  const addendsPlot = el("div", { id: "recipe-addends", class: "plot" });
  const sumPlot = el("div", { id: "recipe-sum", class: "plot" });
  const outputPlot = el("div", { id: "recipe-output", class: "plot" });
  const norms = el("div", { id: "recipe-norms" });
  root.append(
    el("h2", {}, "Input recipe"),
    el("p", {}, "Before attention, every token becomes one vector: the row of its id in the token table, plus the " +
      "row for the place it stands in, plus (in BERT) the row for the sentence it belongs to. Pick a piece of " +
      "the sentence and slide it along the sequence: its token row never changes, while the position row and " +
      "the sum do. \"bert\" runs MiniLM's trained tables and LayerNorm; \"gpt2\" and \"transformer\" are " +
      "untrained tables of the same size (seed 0), the last multiplying token rows by √384 and adding fixed sinusoids."),
    el("div", { class: "controls" }, field("recipe", recipe), field("sentence", text), field("segment", segment),
      field("dimensions", dims)),
    chips,
    el("div", { class: "controls" }, field("position", el("span", {}, slider, " ", sliderLabel)),
      ...Object.entries(shown).map(([name, box]) => field(`show ${name}`, box))),
    summary, errors,
    el("div", { class: "grid2" }, addendsPlot, sumPlot, outputPlot, norms));

  const state = { index: 2, position: null }; // position null: where the piece stands in the sentence
  let last = null;

  function draw() {
    const r = last;
    const start = Number(dims.value || 0);
    const x = Array.from({ length: Math.min(WINDOW, r.config.dim - start) }, (_, i) => start + i);
    const trace = (name) => ({ type: "bar", name: LABELS[name], x, y: r.rows[name].slice(start, start + WINDOW),
      marker: { color: COLORS[name] } });
    const addends = ["token", "position", "segment"].filter((name) => name in r.rows);
    plot(addendsPlot, addends.map((name) => ({ ...trace(name), visible: shown[name].checked })), {
      title: { text: "addends" }, barmode: "group", xaxis: { title: { text: "dimension" } } });
    plot(sumPlot, [trace("total")], { title: { text: "sum of the addends" }, xaxis: { title: { text: "dimension" } } });
    outputPlot.hidden = !("output" in r.rows);
    if ("output" in r.rows) {
      plot(outputPlot, [trace("output")], { title: { text: "LayerNorm(sum): what enters attention" },
        xaxis: { title: { text: "dimension" } } });
    }
    norms.replaceChildren(table(["addend", "‖row‖"],
      Object.entries(r.norms).map(([name, n]) => [LABELS[name], n.toFixed(4)])));
  }

  function showAnswer(r) {
    last = r;
    chips.replaceChildren(el("span", { class: "note" }, "pieces (click one): "), ...r.pieces.map((piece, i) => {
      const chip = el("span", { class: i === r.index ? "chip selected" : "chip", "data-index": i, role: "button" }, piece);
      chip.style.cursor = "pointer";
      chip.addEventListener("click", () => { state.index = i; state.position = null; update(); });
      return chip;
    }));
    slider.max = r.config.max_len - 1;
    slider.value = r.position;
    sliderLabel.textContent = `${r.position} (0–${r.config.max_len - 1})`;
    segment.disabled = r.segment === null;
    shown.segment.disabled = r.segment === null;
    if (r.segment !== null) segment.value = String(r.segment);
    if (dims.options.length !== Math.ceil(r.config.dim / WINDOW)) {
      dims.replaceChildren(...Array.from({ length: Math.ceil(r.config.dim / WINDOW) }, (_, w) =>
        el("option", { value: w * WINDOW }, `${w * WINDOW}–${Math.min((w + 1) * WINDOW, r.config.dim) - 1}`)));
    }
    const where = r.segment === null ? "" : `, segment ${"AB"[r.segment]}`;
    summary.textContent = `"${r.piece}" (id ${r.id}) at position ${r.position}${where}; ` +
      `dimensions ${dims.value}–${Math.min(Number(dims.value) + WINDOW, r.config.dim) - 1} of ${r.config.dim} drawn` +
      (r.pretrained ? "; MiniLM's trained weights." : `; fresh ${r.recipe} layers.`);
    draw();
  }

  // The slider fires many events a second: one request at a time, the latest settings win.
  let busy = false;
  let again = false;
  async function update() {
    if (busy) { again = true; return; }
    busy = true;
    await guard(errors, async () => {
      const params = { recipe: recipe.value, text: text.value, index: state.index };
      if (state.position !== null) params.position = state.position;
      if (recipe.value === "bert") params.segment = segment.value;
      showAnswer(await get("/api/recipe", params));
      errors.replaceChildren();
    });
    busy = false;
    if (again) { again = false; await update(); }
  }

  recipe.addEventListener("change", () => { state.position = null; update(); });
  text.addEventListener("change", () => { state.index = 1; state.position = null; update(); });
  segment.addEventListener("change", update);
  slider.addEventListener("input", () => { state.position = Number(slider.value); update(); });
  dims.addEventListener("change", () => last && showAnswer(last));
  for (const box of Object.values(shown)) box.addEventListener("change", () => last && draw());
  await update();
}
