// Tied vs untied: logits h·Eᵀ over a small vocabulary of real rows, and what each layout costs.
import { el, field, note, num, select, table } from "./dom.js";
import { config, get, latest } from "./http.js";
import { bars, colour } from "./plot.js";

const HEADS = { tied: "tied (output = E)", untied: "untied (own output table)" };

export async function render(root) {
  const [{ tables }, { limits }] = await Promise.all([get("/api/tables"), config()]);
  const page = build(root, tables, limits.tying);
  const update = latest(() => load(page), (r) => { page.answer = r; draw(page); }, page.error);
  page.words.addEventListener("change", () => { fillWords(page); update(); });
  for (const input of [page.source, page.a, page.b]) input.addEventListener("change", update);
  page.mix.addEventListener("input", () => { page.mixLabel.textContent = num(Number(page.mix.value), 2); update(); });
  // The toggle only changes which of the two answers is drawn: both come in one response.
  page.mode.addEventListener("change", () => page.answer && draw(page));
  fillWords(page);
  page.b.value = "queen";
  await update();
}

function build(root, tables, limits) {
  const [low, high] = limits.words;
  const page = {
    answer: null, // the latest answer: both heads' logits
    source: select("tying-table", tables),
    words: el("input", { id: "tying-words", value: limits.default_words, size: 48, maxlength: limits.text }),
    a: el("select", { id: "tying-a" }),
    b: el("select", { id: "tying-b" }),
    mix: el("input", { id: "tying-t", type: "range", min: 0, max: 1, step: 0.05, value: 0 }),
    mixLabel: el("span", { class: "stat" }, "0.00"),
    mode: select("tying-mode", Object.keys(HEADS), "tied", (kind) => HEADS[kind]),
    error: el("div", { id: "tying-error" }),
    top: el("p", { id: "tying-top", class: "stat" }),
    chart: el("div", { id: "tying-logits", class: "plot" }),
    params: el("div", { id: "tying-params" }),
  };
  root.append(
    el("h2", {}, "Tied vs untied"),
    el("p", {}, "The output layer scores every vocabulary token with a dot product h·W[i], and W has the token " +
      "table's shape (V, D). Tying makes W the token table itself: a hidden state close to a token's row scores " +
      "that token high, and the V·D numbers are stored once. An untied head owns a second table; before training " +
      "it is random, so its scores know nothing yet about which row h resembles."),
    el("div", { class: "controls" }, field("table", page.source), field(`vocabulary (${low}–${high} keys)`, page.words)),
    el("div", { class: "controls" }, field("h from row a", page.a), field("towards row b", page.b),
      field("mix t: h = (1 − t)·E[a] + t·E[b]", el("span", {}, page.mix, " ", page.mixLabel)),
      field("output layer", page.mode)),
    page.error, page.top, page.chart, page.params);
  return page;
}

// a and b offer the typed words, keeping their choice where it is still among them.
function fillWords(page) {
  const list = [...new Set(page.words.value.split(/[,\s]+/).filter(Boolean))];
  for (const [choice, fallback] of [[page.a, list[0]], [page.b, list[1] ?? list[0]]]) {
    const previous = choice.value;
    choice.replaceChildren(...list.map((w) => el("option", {}, w)));
    choice.value = list.includes(previous) ? previous : fallback;
  }
}

const load = (page) => get("/api/tying", { table: page.source.value, words: page.words.value, a: page.a.value,
  b: page.b.value, t: page.mix.value });

function draw(page) {
  const [r, kind] = [page.answer, page.mode.value];
  const scores = r[kind].logits;
  page.top.textContent = `${kind} head: highest logit "${r[kind].top}" (${num(Math.max(...scores), 4)}); ` +
    `‖h‖ = ${num(Math.hypot(...r.h), 4)}`;
  bars(page.chart, scores, { labels: r.words, title: `${kind} logits h·W[i] over ${r.words.length} tokens of ${r.table}`,
    color: colour(kind === "tied" ? "accent" : "warm") });
  const p = r.params;
  page.params.replaceChildren(table(["token table + output layer", "tied", "untied"], [
    [`${r.table}: V = ${num(p.vocab_size)}, D = ${num(p.dim)}`, num(p.tied), num(p.untied)],
    [`this vocabulary: V = ${num(p.small_vocab_size)}`, num(p.small_tied), num(p.small_untied)],
  ]), note("Counted on the modules themselves (a TokenEmbedding and an LMHead): a shared table is one " +
    "Parameter and counts once."));
}
