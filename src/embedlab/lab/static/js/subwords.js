// Subword explorer: a word's pieces under byte-level BPE vocabularies of 1K, 8K and 32K pieces,
// each coloured by how often it occurs in the corpus the vocabularies were trained on; below, the
// vocabulary-size table measured on the corpus's held-out lines; last, any word in a served subword
// table (fastText's character n-grams and hash buckets) beside a whole-word table's answer.
import { checkbox, count, el, errorLine, field, fixed, note, number, select, table } from "./dom.js";
import { config, get, latest } from "./http.js";

const TYPING_MS = 250; // a pause in typing this long sends the word

// 1000 -> "1K"; other counts with separators.
const short = (n) => (n >= 1000 && n % 1000 === 0 ? `${n / 1000}K` : count(n));

export async function render(root) {
  const [info, { tables }, { limits }] = await Promise.all([get("/api/subwords/vocabularies"),
    get("/api/subwords/tables"), config()]);
  const page = build(root, info, tables, limits.subwords);
  const update = latest(() => load(page), (r) => draw(page, r), page.out);
  const updateTable = latest(() => loadTable(page), (t) => drawTable(page, t), page.table);
  const updateUnseen = latest(() => loadUnseen(page), (r) => drawUnseen(page, r), page.unseen);
  const typed = (input, then) => {
    let timer;
    input.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(then, TYPING_MS); });
  };
  typed(page.text, update);
  page.space.addEventListener("change", update);
  // The table after the split: on a corpus's first use the split's request trains the vocabularies.
  page.corpus.addEventListener("change", async () => { await update(); await updateTable(); });
  if (page.served) {
    typed(page.word, updateUnseen);
    page.served.addEventListener("change", updateUnseen);
    page.k.addEventListener("change", updateUnseen);
  }
  await Promise.all([(async () => { await update(); await updateTable(); })(), page.served && updateUnseen()]);
}

function build(root, info, served, limits) {
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
    // the unseen-word panel: null controls when no subword table is served
    served: served.length ? select("sub-unseen-table", served) : null,
    word: el("input", { id: "sub-unseen-word", value: "unhappinesses", maxlength: limits.word, size: 24 }),
    k: number("sub-unseen-k", limits.k, 10),
    unseen: el("div", { id: "sub-unseen" }),
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
    page.table,
    el("h3", {}, "An unseen word in a subword table"),
    el("p", {}, "A word-vector table of fastText's kind keeps, beside one row per vocabulary word, a fixed " +
      "number of bucket rows (fastText's default: 2,000,000) shared by character n-grams: the word is wrapped " +
      "in < and >, cut into every piece of min_n to max_n characters, and each piece is hashed into a bucket. A word's vector is the mean of its " +
      "own row and its n-grams' bucket rows; a word without a row still gets the mean of its n-gram rows, so " +
      "a misspelling or a new inflection lands near its relatives. A table of whole words has nothing for it."),
    ...unseenPart(page));
  return page;
}

function unseenPart(page) {
  if (!page.served) {
    return [note("No subword table is served here. Start the lab with one beside the other tables: a run " +
      "folder trained with --subwords (embedlab train enwiki-sample --out runs/sub --subwords --buckets 100000; " +
      "it knows how often each bucket was updated), or a fastText .bin that has n-grams (the fastText tool's, " +
      "gensim's or embedlab export's), e.g. embedlab lab --vectors minilm --vectors runs/sub.",
    { id: "sub-no-subword-tables" })];
  }
  return [el("div", { class: "controls" }, field("subword table", page.served), field("any word", page.word),
    field("nearest whole words", page.k)), page.unseen];
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

const loadUnseen = (page) => (page.word.value ?
  get("/api/subwords/unseen", { table: page.served.value, word: page.word.value, k: page.k.value }) : null);

function drawUnseen(page, r) {
  if (!r) return page.unseen.replaceChildren(note("Type a word."));
  const grams = r.ngrams.length;
  const made = {
    word: `“${r.word}” has its own row (row ${count(r.row)} of ${count(r.words)}): its vector is the mean of ` +
      `that row and its ${count(grams)} n-gram rows.`,
    ngrams: `“${r.word}” has no row among the ${count(r.words)} words of ${r.table}: its vector is the mean of ` +
      `its ${count(grams)} n-gram rows.`,
  };
  const updates = r.updates_known ? "the bucket's training updates (log scale, as the ramp above)"
    : "no training updates per bucket: a fastText .bin has no place for them, whoever wrote it (the fastText " +
      "tool, gensim or embedlab export); serve the run folder trained with --subwords to see them";
  page.unseen.replaceChildren(
    r.source ? el("p", { id: "sub-unseen-source", class: "stat" }, made[r.source])
      : errorLine(r.unknown),
    note(`${count(grams)} n-grams of “<${r.word}>”, ${r.min_n} to ${r.max_n} characters, each hashed into one of ` +
      `${count(r.buckets)} buckets (#id); under it, ${updates}.`),
    el("div", { id: "sub-ngrams" }, ...r.ngrams.map((g) => ngramChip(page, g, r.ngrams))),
    ...collisions(r.ngrams),
    el("div", { class: "grid2" },
      el("section", { id: "sub-unseen-found" }, el("h4", {}, `${r.table}, a subword table`),
        r.found ? neighbours(r.found) : errorLine(r.unknown)),
      el("section", { id: "sub-unseen-whole" }, el("h4", {}, `a whole-word table of the same ${count(r.words)} words`),
        r.whole_word ? errorLine(r.whole_word)
          : note("The same neighbours: the word has a row of its own, the same in both tables."))));
}

// An n-gram: its text, bucket and the bucket's updates (coloured by them when known); a bucket it
// shares with another n-gram of the word is named in its tooltip.
function ngramChip(page, g, all) {
  const shared = all.filter((o) => o !== g && o.bucket === g.bucket).map((o) => o.text);
  const small = el("small", {}, g.updates === null ? `#${g.bucket}` : `#${g.bucket} · ${count(g.updates)}`);
  const text = el("span", { class: "sub-text" }, g.text);
  const chip = g.updates === null ? el("span", { class: "chip sub-piece unknown" }, text, small)
    : chipShell(page, g.updates, text, small);
  chip.classList.add("sub-ngram");
  chip.dataset.bucket = g.bucket;
  chip.title = `${JSON.stringify(g.text)} → bucket ${g.bucket}` +
    (g.updates === null ? "" : ` · ${count(g.updates)} updates in training`) +
    (shared.length ? ` · shared with ${shared.join(", ")}` : "");
  return chip;
}

// A note per bucket that two different n-grams of the word hash into: they share one row.
function collisions(ngrams) {
  const texts = new Map();
  for (const g of ngrams) texts.set(g.bucket, new Set([...(texts.get(g.bucket) ?? []), g.text]));
  return [...texts].filter(([, t]) => t.size > 1).map(([bucket, t]) =>
    note(`${[...t].join(" and ")} hash into the same bucket #${bucket}: they share one row.`,
      { class: "note sub-collision" }));
}

const neighbours = (found) => {
  const grid = table(["#", "whole word", "cosine"], found.keys.map((key, i) => [i + 1, key, fixed(found.scores[i], 4)]));
  grid.classList.add("sub-neighbours");
  return grid;
};
