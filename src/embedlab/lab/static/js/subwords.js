// Subword explorer: a word's pieces under byte-level BPE vocabularies of 1K, 8K and 32K pieces,
// each coloured by how often it occurs in the corpus the vocabularies were trained on.
import { el, field, get, guard } from "./api.js";

// The colour ramp spans counts 1 .. 10^5 on a log scale (10^5 is the "very frequent" floor of
// embedlab.tokenizer.vocab.BANDS); higher counts take the top colour.
const DECADES = 5;
const TICKS = ["1", "10", "100", "1K", "10K", "100K+"];
const hue = (count) => 130 * Math.min(Math.log10(count) / DECADES, 1); // red (rare) -> green (frequent)
const shade = (count) => (count > 0 ? `hsl(${hue(count)}, 75%, 82%)` : "#f1f1f1");
const edge = (count) => (count > 0 ? `1px solid hsl(${hue(count)}, 50%, 45%)` : "1px dashed #999");
const short = (n) => (n >= 1000 && n % 1000 === 0 ? `${n / 1000}K` : n.toLocaleString());

function legend() {
  const stops = Array.from({ length: 11 }, (_, i) => `hsl(${(130 * i) / 10}, 75%, 82%)`).join(", ");
  return el("div", { id: "sub-legend", style: "max-width: 640px; margin: 0.5rem 0;" },
    el("div", { class: "note" }, "occurrences of the piece in the corpus (log scale)"),
    el("div", { style: `height: 14px; border-radius: 3px; background: linear-gradient(to right, ${stops});` }),
    el("div", { class: "note", style: "display: flex; justify-content: space-between;" },
      ...TICKS.map((t) => el("span", {}, t))),
    el("div", { class: "note" },
      el("span", { class: "chip", style: `background: ${shade(0)}; border: ${edge(0)};` }, "0"),
      " never used whole when the corpus is encoded: a byte the corpus lacks, or a step towards longer merges"));
}

function chip(p) {
  return el("span", {
    class: "chip sub-piece", "data-count": p.count,
    title: `${JSON.stringify(p.piece)} in the vocabulary · id ${p.id} · ${p.count.toLocaleString()} in the corpus (${p.band})`,
    style: `background: ${shade(p.count)}; border: ${edge(p.count)}; display: inline-flex; flex-direction: column;` +
      " align-items: center; padding: 0.25rem 0.5rem;",
  }, el("span", { class: "sub-text", style: "font-size: 1.1rem;" }, p.text),
  el("small", { style: "color: #444;" }, `#${p.id} · ${p.count.toLocaleString()}`));
}

function vocabulary(v) {
  const reached = v.vocab_size === v.size ? "" : ` (the corpus supports only ${v.vocab_size.toLocaleString()})`;
  return el("section", { class: "sub-vocab", id: `sub-vocab-${v.size}`, "data-pieces": v.pieces.length },
    el("h3", { style: "margin: 0.8rem 0 0.3rem; font-size: 1rem;" },
      `${short(v.size)} vocabulary${reached}: `, el("span", { class: "stat" }, `${v.pieces.length} pieces`)),
    el("div", {}, ...v.pieces.map(chip)));
}

function trainingNote(corpus) {
  const parts = corpus.vocabularies.filter((v) => v.trained)
    .map((v) => `${short(v.size)} in ${v.train_seconds.toFixed(1)} s`);
  if (!parts.length) return "";
  const lines = corpus.vocabularies[0].lines;
  return `Trained on ${corpus.name} (${lines.toLocaleString()} lines), each size once, then read from the ` +
    `lab's cache folder: ${parts.join(", ")}.`;
}

export async function render(root) {
  const info = await get("/api/subwords/vocabularies");
  const corpora = info.corpora.filter((c) => c.available);
  const text = el("input", { id: "sub-text", value: "unhappiness", maxlength: info.max_text, size: 28 });
  const corpus = el("select", { id: "sub-corpus" }, ...corpora.map((c) => el("option", { value: c.name },
    c.vocabularies.every((v) => v.trained) ? c.name : `${c.name} (trains on first use)`)));
  corpus.value = info.default;
  const space = el("input", { id: "sub-space", type: "checkbox" });
  space.checked = true;
  const out = el("div", { id: "sub-result" });
  const note = el("p", { class: "note", id: "sub-info" });
  root.append(
    el("h2", {}, "Subword explorer"),
    el("p", {}, "A byte-level BPE vocabulary starts from the 256 byte values and keeps adding the merge of the " +
      "most frequent neighbouring pair until it holds V pieces. The bigger V, the more frequent words become one " +
      "piece; a rare word still breaks into pieces the corpus uses often, and since every byte is a piece, no " +
      "text is ever out of vocabulary. A piece's colour is how often it occurs when the training corpus is " +
      "encoded with that vocabulary: how many updates its embedding row would get per pass."),
    el("div", { class: "controls" }, field("word or short phrase", text), field("corpus", corpus),
      field("after a space, as in running text", space)),
    legend(),
    el("p", { class: "note" }, "␣ is a space: the vocabulary stores it as “Ġ”, GPT-2's printable stand-in for " +
      "the byte 0x20. \\xNN is one byte of a character that the vocabulary keeps in several pieces."),
    out, note);

  let latest = 0; // answers can arrive out of order while typing: show only the newest
  const update = () => guard(out, async () => {
    const mine = ++latest;
    if (!text.value) return out.replaceChildren(el("p", { class: "note" }, "Type a word."));
    const chosen = corpora.find((c) => c.name === corpus.value);
    const untrained = !chosen.vocabularies.every((v) => v.trained);
    if (untrained) out.replaceChildren(el("p", { class: "note" }, `Training on ${chosen.name} (first use)…`));
    const r = await get("/api/subwords/split", { text: text.value, corpus: chosen.name, leading_space: space.checked });
    if (mine !== latest) return;
    out.replaceChildren(...r.vocabularies.map(vocabulary));
    if (untrained) {
      const now = await get("/api/subwords/vocabularies");
      chosen.vocabularies = now.corpora.find((c) => c.name === chosen.name).vocabularies;
      [...corpus.options].find((o) => o.value === chosen.name).textContent = chosen.name;
    }
    note.textContent = trainingNote(chosen);
  });
  let timer;
  text.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(update, 250); });
  for (const input of [corpus, space]) input.addEventListener("change", update);
  await update();
}
