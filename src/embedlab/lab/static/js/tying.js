// Tied vs untied: logits h·Eᵀ over a small vocabulary of real rows, and what each layout costs.
import { el, field, get, guard, bars, table } from "./api.js";

const DEFAULT_WORDS = "cat, dog, horse, king, queen, prince, paris, london, red, blue, run, walk";

export async function render(root) {
  const { tables } = await get("/api/tables");
  const source = el("select", { id: "tying-table" }, ...tables.map((t) => el("option", {}, t)));
  const words = el("input", { id: "tying-words", value: DEFAULT_WORDS, size: 48 });
  const a = el("select", { id: "tying-a" });
  const b = el("select", { id: "tying-b" });
  const mix = el("input", { id: "tying-t", type: "range", min: 0, max: 1, step: 0.05, value: 0 });
  const mixLabel = el("span", { class: "stat" }, "0.00");
  const mode = el("select", { id: "tying-mode" }, el("option", { value: "tied" }, "tied (output = E)"),
    el("option", { value: "untied" }, "untied (own output table)"));
  const top = el("p", { id: "tying-top", class: "stat" });
  const chart = el("div", { id: "tying-logits", class: "plot" });
  const params = el("div", { id: "tying-params" });
  const out = el("div", {}, top, chart, params);
  root.append(
    el("h2", {}, "Tied vs untied"),
    el("p", {}, "The output layer scores every vocabulary token with a dot product h·W[i], and W has the token " +
      "table's shape (V, D). Tying makes W the token table itself: a hidden state close to a token's row scores " +
      "that token high, and the V·D numbers are stored once. An untied head owns a second table; before training " +
      "it is random, so its scores know nothing yet about which row h resembles."),
    el("div", { class: "controls" }, field("table", source), field("vocabulary (2–16 keys)", words)),
    el("div", { class: "controls" }, field("h from row a", a), field("towards row b", b),
      field("mix t: h = (1 − t)·E[a] + t·E[b]", el("span", {}, mix, " ", mixLabel)), field("output layer", mode)),
    out);

  let answer = null;
  const fillWords = () => {
    const list = [...new Set(words.value.split(/[,\s]+/).filter(Boolean))];
    for (const [select, fallback] of [[a, list[0]], [b, list[1] ?? list[0]]]) {
      const previous = select.value;
      select.replaceChildren(...list.map((w) => el("option", {}, w)));
      select.value = list.includes(previous) ? previous : fallback;
    }
  };

  // The toggle only changes which of the two answers is drawn: both come in one response.
  const show = () => {
    const kind = mode.value;
    const r = answer;
    const scores = r[kind].logits;
    top.textContent = `${kind} head: highest logit "${r[kind].top}" (${Math.max(...scores).toFixed(4)}); ` +
      `‖h‖ = ${Math.hypot(...r.h).toFixed(4)}`;
    bars(chart, scores, { labels: r.words, title: `${kind} logits h·W[i] over ${r.words.length} tokens of ${r.table}`,
      color: kind === "tied" ? "#2f6fde" : "#d6794f" });
    const p = r.params;
    const fmt = (n) => n.toLocaleString();
    params.replaceChildren(table(["token table + output layer", "tied", "untied"], [
      [`${r.table}: V = ${fmt(p.vocab_size)}, D = ${p.dim}`, fmt(p.tied), fmt(p.untied)],
      [`this vocabulary: V = ${p.small_vocab_size}`, fmt(p.small_tied), fmt(p.small_untied)],
    ]), el("p", { class: "note" }, "Counted on the modules themselves (a TokenEmbedding and an LMHead): a shared " +
      "table is one Parameter and counts once."));
  };

  let latest = 0; // the slider fires fast: only the newest request's answer is drawn
  const update = () => guard(out, async () => {
    const ticket = ++latest;
    mixLabel.textContent = Number(mix.value).toFixed(2);
    const r = await get("/api/tying", { table: source.value, words: words.value, a: a.value, b: b.value,
      t: mix.value });
    if (ticket !== latest) return;
    answer = r;
    out.replaceChildren(top, chart, params); // back in place if an earlier request failed
    show();
  });
  words.addEventListener("change", () => { fillWords(); update(); });
  for (const input of [source, a, b]) input.addEventListener("change", update);
  mix.addEventListener("input", update);
  mode.addEventListener("change", () => answer && show());
  fillWords();
  b.value = "queen";
  await update();
}
