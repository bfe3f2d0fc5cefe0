// Graph nodes: Zachary's karate club embedded by random walks and skip-gram, one seeded run seen before its
// first pass and after 1, 2, 4, 8 and 16 passes. Each snapshot is a PCA map of the 34 node rows coloured by
// the club each member really joined, with k-means' accuracy and ARI against those clubs; the spectral
// baseline's beside. A slider (or the step buttons) moves through the snapshots.
import { el, field, num, number, select, table } from "./dom.js";
import { config, get, latest } from "./http.js";
import { colour, plot } from "./plot.js";

export async function render(root) {
  const { limits } = await config();
  const page = build(root, limits.nodes);
  const view = latest(() => load(page), (r) => { page.answer = r; draw(page); }, page.status);
  for (const input of [page.p, page.q, page.walks, page.seed]) input.addEventListener("change", view);
  page.slider.addEventListener("input", () => draw(page));
  page.back.addEventListener("click", () => step(page, -1));
  page.next.addEventListener("click", () => step(page, 1));
  await view();
}

function build(root, limits) {
  const page = {
    colours: limits.colours, // club index -> its colour, from the API
    answer: null,
    p: select("nodes-p", limits.p, 1, (v) => `p = ${v}`),
    q: select("nodes-q", limits.q, 1, (v) => `q = ${v}`),
    walks: number("nodes-walks", limits.walks, 1),
    seed: number("nodes-seed", limits.seed, 1),
    status: el("div", { id: "nodes-status" }),
    slider: el("input", { id: "nodes-snapshot", class: "wide", type: "range", min: 0, max: 0, value: 0 }),
    back: el("button", { id: "nodes-back" }, "◀"),
    next: el("button", { id: "nodes-next" }, "▶"),
    label: el("span", { id: "nodes-passes", class: "stat" }),
    score: el("p", { id: "nodes-score", class: "stat" }),
    map: el("div", { id: "nodes-map", class: "plot map" }),
    axes: el("p", { id: "nodes-axes", class: "note" }),
    scores: el("div", { id: "nodes-scores" }),
  };
  root.append(
    el("h2", {}, "Graph nodes"),
    el("p", {}, "Embeddings are not only for words. In Zachary's karate club (34 members, 78 friendships) " +
      "the club split in two, one side following the instructor Mr. Hi, the other the Officer. Random walks " +
      "over the friendships are read as sentences of member ids, and embedlab's skip-gram trains one row per " +
      "member, exactly as it trains word rows. The walks never see the clubs; the colours are the real split. " +
      "Step through one run: the rows start as small random numbers and the two factions pull apart as the " +
      "passes go. p and q bias the walks (node2vec): a low p returns often, a low q wanders outward; p = q = 1 " +
      "is DeepWalk."),
    el("div", { class: "controls" }, field("return p", page.p), field("in-out q", page.q),
      field(`walks per member (${limits.walks[0]}–${limits.walks[1]})`, page.walks),
      field(`seed (${limits.seed[0]}–${limits.seed[1]})`, page.seed)),
    page.status,
    el("div", { class: "controls" }, field("snapshot", page.slider), page.back, page.next, page.label),
    page.score, page.map, page.axes, page.scores);
  return page;
}

const load = (page) => get("/api/nodes", { p: page.p.value, q: page.q.value, walks: page.walks.value,
  seed: page.seed.value });

function step(page, by) {
  const at = Number(page.slider.value) + by;
  if (!page.answer || at < 0 || at >= page.answer.snapshots.length) return;
  page.slider.value = at;
  draw(page);
}

const accuracy = (r) => `k-means accuracy ${num(r.accuracy, 3)}, ARI ${num(r.ari, 2)}`;

// The snapshot the slider points at: its map (the ties faint behind, one trace per club) and its scores.
function draw(page) {
  const r = page.answer;
  if (!r) return;
  const last = r.snapshots.length - 1;
  if (Number(page.slider.max) !== last) { page.slider.max = last; page.slider.value = last; } // a new answer opens on the end
  const s = r.snapshots[Number(page.slider.value)];
  const [x, y] = [s.points.map((pt) => pt[0]), s.points.map((pt) => pt[1])];
  const ties = { type: "scatter", mode: "lines", name: "ties", hoverinfo: "skip", showlegend: false,
    x: r.edges.flatMap(([a, b]) => [x[a], x[b], null]), y: r.edges.flatMap(([a, b]) => [y[a], y[b], null]),
    line: { color: colour("line"), width: 1 } };
  const clubs = r.club_names.map((name, club) => {
    const members = r.keys.flatMap((_, i) => (r.clubs[i] === club ? [i] : []));
    return { type: "scatter", mode: "markers+text", name, text: members.map((i) => r.keys[i]),
      x: members.map((i) => x[i]), y: members.map((i) => y[i]), textposition: "top center",
      textfont: { size: 10 }, cliponaxis: false, hovertemplate: `member %{text} (${name})<extra></extra>`,
      marker: { color: page.colours[club], size: 11 } };
  });
  const share = (v) => `${num(100 * v)}% of the variance`;
  plot(page.map, [ties, ...clubs], {
    xaxis: { title: { text: `axis 1 (${share(s.variance[0])})` }, zeroline: false },
    yaxis: { title: { text: `axis 2 (${share(s.variance[1])})` }, zeroline: false, scaleanchor: "x" },
    legend: { orientation: "h", y: -0.15 }, hovermode: "closest",
  });
  page.label.textContent = s.passes ? `after ${s.passes} of ${r.passes} passes` : "before training (the seeded init)";
  const spectral = r.spectral.map((b) => `${b.dim} dims ${num(b.accuracy, 3)}`).join(", ");
  page.score.textContent = `${accuracy(s)} (${Math.round(s.accuracy * r.keys.length)} of ${r.keys.length} ` +
    `members); spectral baseline: ${spectral}`;
  page.axes.textContent = `Axes: the snapshot's own two principal axes (${r.keys.length} rows of ${r.dim} ` +
    "numbers, centred), turned only to line up with the snapshot after it; the scale follows each snapshot. " +
    "k-means (k = 2) runs on the full rows, not on the map.";
  const rows = r.snapshots.map((t) => [`walks + skip-gram, ${t.passes} passes`, num(t.accuracy, 3), num(t.ari, 2)]);
  const base = r.spectral.map((b) => [`spectral, ${b.dim} dims`, num(b.accuracy, 3), num(b.ari, 2)]);
  page.scores.replaceChildren(table(["embedding", "k-means accuracy", "ARI"], [...rows, ...base]));
  page.scores.querySelectorAll("tr")[Number(page.slider.value) + 1].classList.add("current"); // +1: the header
}
