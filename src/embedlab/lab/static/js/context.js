// Static vs contextual: one word in two to four sentences, followed through every layer of MiniLM.
// The word enters every sentence as the same token row; attention mixes in the rest of the sentence.
// Layers are numbered one way on the whole page: layer 0 is the input embedding, layer L the vectors
// encoder layer L makes (the API's attention `layer` is 0-based, so its layer L is asked as L - 1).
import { el, field, fixed, note, numbered, select, table } from "./dom.js";
import { config, get, latest } from "./http.js";
import { colour, labelPoints, plot } from "./plot.js";

const EXAMPLE = ["he sat on the river bank and watched the water", "she paid the cheque into the bank",
  "the boat drifted toward the muddy bank of the stream", ""];
const SENTENCE_COLOURS = ["accent", "warm", "green", "violet"];

export async function render(root) {
  const { limits } = await config();
  const page = build(root, limits.context);
  const update = latest(() => load(page), (r) => draw(page, r), page.error);
  for (const input of [...page.texts, page.word, page.pooling, page.layer, page.head]) {
    input.addEventListener("change", update);
  }
  page.slider.addEventListener("input", () => page.answer && drawLayer(page, page.answer));
  await update();
}

function build(root, limits) {
  const [, most] = limits.texts;
  const page = {
    texts: Array.from({ length: most }, (_, i) => el("input", { id: `ctx-text-${i}`, value: EXAMPLE[i] ?? "",
      size: 56, maxlength: limits.text, placeholder: i < limits.texts[0] ? "" : "(optional)" })),
    word: el("input", { id: "ctx-word", value: "bank", size: 12, maxlength: limits.word }),
    pooling: select("ctx-pooling", limits.pooling, "mean"),
    layer: el("select", { id: "ctx-layer" }),
    head: el("select", { id: "ctx-head" }),
    slider: el("input", { id: "ctx-map-layer", type: "range", min: 0, max: 6, value: 0 }),
    sliderLabel: el("span", { id: "ctx-map-layer-value", class: "stat" }, "layer 0"),
    error: el("div", { id: "ctx-error" }),
    summary: el("p", { id: "ctx-summary", class: "stat" }),
    curve: el("div", { id: "ctx-curve", class: "plot" }),
    map: el("div", { id: "ctx-map", class: "plot" }),
    nearest: el("div", { id: "ctx-nearest" }),
    attention: el("div", { id: "ctx-attention", class: "plot" }),
    answer: null,
  };
  root.append(
    el("h2", {}, "Static vs contextual"),
    el("p", {}, "An embedding row is static: the word below enters every sentence as the same row of MiniLM's " +
      "token table (plus a position and a segment row). Each of the six encoder layers then lets every token " +
      "attend to the whole sentence, so the word leaves the model as a different vector in each sentence. The " +
      "curve follows the cosine between the occurrences layer by layer (layer 0 is the input embedding, layer " +
      "L what encoder layer L makes); the map shows every token of the sentences at the layer the slider picks."),
    note(`Up to ${limits.occurrences} occurrences of the word in all sentences together (every two of them are ` +
      `a curve), and sentences of up to ${limits.tokens} tokens.`, { id: "ctx-limits" }),
    el("div", { class: "controls" }, ...page.texts.map((t, i) => field(`sentence ${i + 1}`, t))),
    el("div", { class: "controls" }, field("word", page.word), field("pieces", page.pooling),
      field("attention layer", page.layer), field("head", page.head)),
    page.error, page.summary, el("div", { class: "grid2" }, page.curve, page.attention),
    el("div", { class: "controls" }, field("map at", el("span", {}, page.slider, " ", page.sliderLabel))),
    el("div", { class: "grid2" }, page.map, page.nearest));
  return page;
}

function load(page) {
  const params = page.texts.map((t) => t.value.trim()).filter(Boolean).map((t) => ["text", t]);
  params.push(["word", page.word.value], ["pooling", page.pooling.value],
    ["layer", page.layer.value || 0], ["head", page.head.value || 0]);
  return get("/api/context", params);
}

// occurrence i's label: its sentence's number, with a letter when the word occurs there more than once
// ("1a", "1b", ...; the API caps the occurrences well within the alphabet)
function labels(r) {
  return r.occurrences.map((o) => {
    const same = r.occurrences.filter((p) => p.text === o.text);
    const nth = same.findIndex((p) => p.start === o.start);
    return same.length === 1 ? `${o.text + 1}` : `${o.text + 1}${String.fromCharCode(97 + nth)}`;
  });
}

// The attention select: "layer 1" … "layer n", each asking the API for encoder layer L - 1.
function layerChoices(node, n) {
  if (node.options.length === n) return;
  const before = node.value;
  node.replaceChildren(...Array.from({ length: n }, (_, i) => el("option", { value: i }, `layer ${i + 1}`)));
  node.value = before !== "" && Number(before) < n ? before : "0";
}

// A horizontal legend of n entries under a plot, inside its box: rows of `perRow`, and the height
// and bottom margin that make room for them (so it never spills onto what follows the plot).
function legendBelow(n, perRow, height) {
  const rows = Math.ceil(n / perRow);
  return { height: height + 22 * rows, margin: { l: 55, r: 30, t: 40, b: 60 + 22 * rows },
    legend: { orientation: "h", yref: "container", y: 0, yanchor: "bottom", x: 0 } };
}

async function draw(page, r) {
  page.answer = r;
  layerChoices(page.layer, r.n_layers);
  numbered(page.head, r.n_heads, "head");
  page.slider.max = r.n_layers;
  const names = labels(r);
  const pairs = [];
  for (let a = 0; a < names.length; a++) for (let b = a + 1; b < names.length; b++) pairs.push([a, b]);
  const first = r.layers[0], last = r.layers[r.layers.length - 1];
  const span = (view) => pairs.map(([a, b]) => view.cosines[a][b]);
  page.summary.textContent = `"${r.word}" is ${r.word_pieces.length === 1 ? "one piece" :
    `${r.word_pieces.join(" ")} (${r.pooling === "mean" ? "the mean of its pieces" : "its first piece"})`}, ` +
    `${names.length} occurrences. Cosine between occurrences: ${fixed(Math.min(...span(first)))}–` +
    `${fixed(Math.max(...span(first)))} at the input embedding, ${fixed(Math.min(...span(last)))}–` +
    `${fixed(Math.max(...span(last)))} after layer ${r.n_layers} (two different tokens of these sentences: ` +
    `${fixed(first.baseline)} and ${fixed(last.baseline)} on average).`;
  const x = r.layers.map((v) => v.layer);
  await plot(page.curve, [
    ...pairs.map(([a, b]) => ({ type: "scatter", mode: "lines+markers", name: `${names[a]} · ${names[b]}`, x,
      y: r.layers.map((v) => v.cosines[a][b]) })),
    { type: "scatter", mode: "lines", name: "any two tokens", x, y: r.layers.map((v) => v.baseline),
      line: { dash: "dot", color: colour("output") } },
  ], { title: { text: `cos between occurrences of "${r.word}", layer by layer` },
    xaxis: { title: { text: "layer (0 = input embedding, L = after encoder layer L)" }, dtick: 1, automargin: true },
    yaxis: { title: { text: "cosine" }, automargin: true }, ...legendBelow(pairs.length + 1, 3, 340) });
  const a = r.attention;
  const axes = {}; // every subplot's axes keep their tick labels inside the plot's box
  r.occurrences.forEach((_, i) => {
    axes[`xaxis${i ? i + 1 : ""}`] = { automargin: true, tickangle: -40 };
    axes[`yaxis${i ? i + 1 : ""}`] = { automargin: true };
  });
  await plot(page.attention, r.occurrences.map((o, i) => ({ type: "bar", name: `"${r.word}" in ${names[i]}`,
    x: r.pieces[o.text].map((p, j) => `${j} ${p}`), y: a.rows[i], xaxis: `x${i + 1}`, yaxis: `y${i + 1}`,
    marker: { color: colour(SENTENCE_COLOURS[o.text]) } })),
  { title: { text: `What "${r.word}" attends to in layer ${a.layer + 1}, head ${a.head} (reading layer ${a.layer})` },
    showlegend: true, grid: { rows: r.occurrences.length, columns: 1, pattern: "independent", ygap: 0.5 }, ...axes,
    ...legendBelow(r.occurrences.length, 4, 120 + 150 * r.occurrences.length) });
  await drawLayer(page, r);
}

// The map and the nearest static rows at the slider's layer; no request: the answer holds every layer.
async function drawLayer(page, r) {
  const layer = Number(page.slider.value);
  page.sliderLabel.textContent = layer === 0 ? "layer 0 (input embedding)" : `layer ${layer}`;
  const names = labels(r);
  const frame = r.map.frames[layer];
  const traces = r.texts.map((_, s) => {
    const points = r.map.tokens.map((t, i) => ({ t, i })).filter(({ t }) => t.text === s);
    return { type: "scatter", mode: "markers", name: `sentence ${s + 1}`, hovertemplate: "%{text}<extra></extra>",
      x: points.map(({ i }) => frame[i][0]), y: points.map(({ i }) => frame[i][1]),
      text: points.map(({ t }) => t.piece), marker: { color: colour(SENTENCE_COLOURS[s]), size: 7, opacity: 0.6 } };
  });
  const at = r.occurrences.map((o) => r.map.tokens.findIndex((t) => t.text === o.text && t.index === o.start));
  traces.push({ type: "scatter", mode: "markers", name: `"${r.word}"`, x: at.map((i) => frame[i][0]),
    y: at.map((i) => frame[i][1]), text: names, hovertemplate: `"${r.word}" in %{text}<extra></extra>`,
    marker: { size: 16, color: "rgba(0,0,0,0)", line: { width: 2.5, color: colour("ink") } } });
  const [v1, v2] = r.map.variance[layer];
  await plot(page.map, traces, { title: { text: `Every token at layer ${layer} (PCA, ${fixed(100 * (v1 + v2), 0)}% ` +
    "of the variance)" }, ...legendBelow(traces.length, 5, 440), xaxis: { zeroline: false, automargin: true },
    yaxis: { zeroline: false, scaleanchor: "x", automargin: true } });
  const order = [...new Set([...at, ...r.map.tokens.keys()])]; // the word's occurrences first
  await labelPoints(page.map, order.map((i) => ({ x: frame[i][0], y: frame[i][1], text: r.map.tokens[i].piece,
    radius: at.includes(i) ? 10 : 4 }))); // the markers' sizes: 16 ringed, 7
  const view = r.layers[layer];
  page.nearest.replaceChildren(el("h3", {}, `Closest static token rows at layer ${layer}`),
    table(["occurrence", "‖v‖", "nearest rows of the token table (cosine)"],
      view.nearest.map((close, i) => [names[i], fixed(view.norms[i], 2),
        close.map((c) => `${c.piece} ${fixed(c.cosine, 2)}`).join(", ")])));
}
