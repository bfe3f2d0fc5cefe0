// Subword explorer: a word's pieces under byte-level BPE vocabularies of 1K, 8K and 32K pieces,
// each coloured by how often it occurs in the corpus the vocabularies were trained on; below, the
// vocabulary-size table measured on the corpus's held-out lines.
import { checkbox, count, el, field, fixed, note, table } from "./dom.js";
import { config, get, latest } from "./http.js";

const TYPING_MS = 250; // a pause in typing this long sends the word

// 1000 -> "1K"; other counts with separators.
const short = (n) => (n >= 1000 && n % 1000 === 0 ? `${n / 1000}K` : count(n));

export async function render(root) {
  const [info, { limits }] = await Promise.all([get("/api/subwords/vocabularies"), config()]);
  const page = build(root, info, limits.subwords);
  const update = latest(() => load(page), (r) => draw(page, r), page.out);
  const updateTable = latest(() => loadTable(page), (t) => drawTable(page, t), page.table);
  let timer;
  page.text.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(update, TYPING_MS); });
  page.space.addEventListener("change", update);
  // The table after the split: on a corpus's first use the split's request trains the vocabularies.
  page.corpus.addEventListener("change", async () => { await update(); await updateTable(); });
  await update();
  await updateTable();
}

function build(root, info, limits) {
  const corpora = info.corpora.filter((c) => c.available);
  const trained = (c) => c.vocabularies.every((v) => v.trained);
  const page = {
    corpora,
    // The colour ramp spans counts 1 .. `frequent` (the tokenizer's "very frequent" floor) on a log
    // scale; higher counts take the top colour.
    decades: Math.log10(limits.frequent),
    text: el("input", { id: "sub-text", value: "unhappiness", maxlength: limits.text, size: 28 }),
    corpus: el("select", { id: "sub-corpus" }, ...corpora.map((c) => el("option", { value: c.name },
      trained(c) ? c.name : `${c.name} (trains on first use)`))),
    space: checkbox("sub-space", true),
    out: el("div", { id: "sub-result" }),
    note: el("p", { class: "note", id: "sub-info" }),
    table: el("div", { id: "sub-table" }),
  };
  page.corpus.value = info.default;
  root.append(
    el("h2", {}, "Subword explorer"),
    el("p", {}, "A byte-level BPE vocabulary starts from the 256 byte values and keeps adding the merge of the " +
      "most frequent neighbouring pair until it holds V pieces. The bigger V, the more frequent words become one " +
      "piece; a rare word still breaks into pieces the corpus uses often, and since every byte is a piece, no " +
      "text is ever out of vocabulary. A piece's colour is how often it occurs when the training corpus is " +
      "encoded with that vocabulary: how many updates its embedding row would get per pass."),
    el("div", { class: "controls" }, field("word or short phrase", page.text), field("corpus", page.corpus),
      field("after a space, as in running text", page.space)),
    legend(page),
    note("␣ is a space: the vocabulary stores it as “Ġ”, GPT-2's printable stand-in for the byte 0x20. \\xNN is " +
      "one byte of a character that the vocabulary keeps in several pieces."),
    page.out, page.note,
    el("h3", {}, "What each vocabulary size costs and buys, measured"),
    el("p", {}, "The vocabularies above never saw one line in ten of their corpus. On those held-out lines: how " +
      "many pieces a word becomes, a rare word in particular, and a fixed paragraph; how big the token table is; " +
      "and, beside each, a whole-word vocabulary with as many rows, which has no row at all for some words."),
    page.table);
  return page;
}

function legend(page) {
  const ticks = Array.from({ length: page.decades + 1 }, (_, i) => short(10 ** i) + (i === page.decades ? "+" : ""));
  return el("div", { id: "sub-legend" },
    note("occurrences of the piece in the corpus (log scale)"),
    el("div", { class: "ramp" }),
    el("div", { class: "note ticks" }, ...ticks.map((t) => el("span", {}, t))),
    el("div", { class: "note" }, chipShell(page, 0, "0"),
      " never used whole when the corpus is encoded: a byte the corpus lacks, or a step towards longer merges"));
}

// A chip coloured by `n`, its place on the ramp (lab.css turns --level into the colour).
function chipShell(page, n, ...children) {
  const chip = el("span", { class: n > 0 ? "chip sub-piece" : "chip sub-piece unused", "data-count": n }, ...children);
  if (n > 0) chip.style.setProperty("--level", Math.min(Math.log10(n) / page.decades, 1));
  return chip;
}

function chip(page, p) {
  const shell = chipShell(page, p.count, el("span", { class: "sub-text" }, p.text),
    el("small", {}, `#${p.id} · ${count(p.count)}`));
  shell.title = `${JSON.stringify(p.piece)} in the vocabulary · id ${p.id} · ${count(p.count)} in the corpus (${p.band})`;
  return shell;
}

function vocabulary(page, v) {
  const reached = v.vocab_size === v.size ? "" : ` (the corpus supports only ${count(v.vocab_size)})`;
  return el("section", { class: "sub-vocab", id: `sub-vocab-${v.size}`, "data-pieces": v.pieces.length },
    el("h3", {}, `${short(v.size)} vocabulary${reached}: `, el("span", { class: "stat" }, `${v.pieces.length} pieces`)),
    el("div", {}, ...v.pieces.map((p) => chip(page, p))));
}

async function load(page) {
  if (!page.text.value) return null;
  const chosen = page.corpora.find((c) => c.name === page.corpus.value);
  const untrained = !chosen.vocabularies.every((v) => v.trained);
  if (untrained) page.out.replaceChildren(note(`Training on ${chosen.name} (first use)…`));
  const r = await get("/api/subwords/split", { text: page.text.value, corpus: chosen.name,
    leading_space: page.space.checked });
  if (untrained) { // now trained: how long each size took, and the corpus's name without the warning
    const now = await get("/api/subwords/vocabularies");
    chosen.vocabularies = now.corpora.find((c) => c.name === chosen.name).vocabularies;
    [...page.corpus.options].find((o) => o.value === chosen.name).textContent = chosen.name;
  }
  return { r, chosen };
}

function draw(page, answer) {
  if (!answer) return page.out.replaceChildren(note("Type a word."));
  page.out.replaceChildren(...answer.r.vocabularies.map((v) => vocabulary(page, v)));
  page.note.textContent = trainingNote(answer.chosen);
}

const loadTable = (page) => get("/api/subwords/table", { corpus: page.corpus.value });

const percent = (x) => `${(100 * x).toFixed(1)} %`;

function drawTable(page, t) {
  const rows = [
    ["BPE tokens per held-out word", (r) => fixed(r.pieces_per_word, 2)],
    [`BPE pieces per rare word (fewer than ${count(t.rare_below)} in the training part)`,
      (r) => fixed(r.pieces_per_rare_word, 2)],
    [`… per other word (${count(t.rare_below)} or more)`, (r) => fixed(r.pieces_per_other_word, 2)],
    [`the paragraph below (${t.paragraph_words} words), in BPE tokens`, (r) => count(r.paragraph_tokens)],
    [`BPE pieces themselves used fewer than ${count(t.rare_below)} times`, (r) => percent(r.rare_piece_share)],
    [`token table at d = ${t.dim}: parameters`, (r) => count(r.params)],
    ["… in MiB, fp32 / fp16", (r) => `${fixed(r.mib_fp32, 1)} / ${fixed(r.mib_fp16, 1)}`],
    ["BPE: held-out words it cannot spell (0: every line decodes back)", (r) => (r.spelled_back ? "0" : "some")],
    ["whole words: held-out running words without a row", (r) => percent(r.word_oov_running)],
    ["whole words: distinct held-out words without a row", (r) => percent(r.word_oov_distinct)],
    ["whole words: the paragraph's words without a row", (r) => count(r.word_paragraph_unknown)],
  ];
  const grid = table(["", ...t.rungs.map((r) => `${short(r.size)} rows`)],
    rows.map(([label, cell]) => [label, ...t.rungs.map(cell)]));
  grid.id = "sub-measured";
  page.table.replaceChildren(grid,
    note(`${t.corpus}: trained on ${count(t.train_lines)} lines; measured on the ${count(t.held_out_lines)} lines ` +
      `held out (every ${t.held_out_every}th: ${count(t.held_out_words)} words). Rare: ${count(t.rare_words)} of the ` +
      `held-out words (${percent(t.rare_share)}) occur fewer than ${count(t.rare_below)} times in the training ` +
      `part (the "${t.rare_band}" frequency band), unseen words included. The whole-word vocabulary keeps the ` +
      `most frequent lower-cased words of the training part (${count(t.distinct_words)} distinct ones).`),
    ...t.left_out.map((l) => note(`${short(l.size)} rows not measured: ${l.reason}.`, { class: "note sub-left-out" })),
    el("blockquote", { id: "sub-paragraph" }, t.paragraph));
}

function trainingNote(corpus) {
  const trained = corpus.vocabularies.filter((v) => v.trained);
  const parts = trained.map((v) => `${short(v.size)} in ${v.info.train_seconds.toFixed(1)} s`);
  if (!parts.length) return "";
  const { lines, held_out } = trained[0].info;
  return `Trained on ${corpus.name} (${count(lines)} lines; ${count(held_out)} more held out), each size once, ` +
    `then read from the lab's cache folder: ${parts.join(", ")}.`;
}
