// Training: a real word2vec run started from the page; the watched rows' 2-D map moves as snapshots arrive.
import { count, el, field, number, select, themePicker } from "./dom.js";
import { config, get, latest, post, shown } from "./http.js";
import { bars, colour, labelPoints, plot, plotly, themeColour } from "./plot.js";

const POLL_MS = 300; // state requests while a run goes
const STEP_MS = 90; // one frame drawn per step, so a quick run still plays at a pace the eye can follow
const ROW_HINT = "Click a word on the map to see its row.";
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

export async function render(root) {
  const [options, { limits, themes }] = await Promise.all([get("/api/training/options"), config()]);
  const page = build(root, options, limits.training, themes);
  page.showRow = latest(() => loadRow(page), (r) => drawRow(page, r), page.rowNote);
  wire(page);
  await blankMap(page);
  await shown(page.error, () => poll(page)); // a run already going (or done) on this server shows at once
  if (page.status === "running") watch(page);
  else if (page.frames.length) { page.at = page.frames.length - 1; page.follow = false; draw(page); }
}

function build(root, options, limits, themes) {
  const { defaults } = options;
  const [maxEpochs, maxWords] = [limits.epochs[1], limits.max_words[1]];
  const page = {
    themes,
    run: 0, status: "idle", frames: [], tokens: [], tokenThemes: [], // what the server said last
    at: -1, drawn: -1, follow: true, selected: null, polling: false, // which frame shows, and the word picked
    corpus: select("train-corpus", options.corpora, defaults.corpus),
    method: select("train-method", options.methods, defaults.method),
    dim: select("train-dim", options.dims, defaults.dim),
    epochs: number("train-epochs", limits.epochs, defaults.epochs),
    limit: number("train-limit", limits.max_words, defaults.max_words, { step: 1000 }),
    start: el("button", { id: "train-start", class: "primary" }, "Start"),
    stop: el("button", { id: "train-stop" }, "Stop"),
    replay: el("button", { id: "train-replay" }, "Replay"),
    progress: el("p", { id: "train-progress", class: "stat" }),
    error: el("div", { id: "train-error" }),
    map: el("div", { id: "train-map", class: "plot map" }),
    slider: el("input", { id: "train-frame", class: "wide", type: "range", min: 0, max: 0, value: 0 }),
    frameLabel: el("span", { id: "train-frame-label", class: "stat" }),
    axesNote: el("p", { id: "train-axes", class: "note" }),
    rowNote: el("div", { id: "train-row-note", class: "note" }, ROW_HINT),
    rowPlot: el("div", { id: "train-row", class: "plot short" }),
    picker: themePicker("train-themes", themes, () => repick(page)), // the groups on the map
  };
  root.append(
    el("h2", {}, "Embedding space during training"),
    el("p", {}, "Start trains word2vec on a real corpus on the server, and the map follows a few dozen " +
      "watched words while their rows change. Every row begins as small random numbers, so the first " +
      "frame has no order; words used in similar places (numbers, months, family words) then drift " +
      "together. Low widths have less room to keep the groups apart: compare dim 2 with dim 32. The run " +
      "watches every group; tick the ones the map shows (two groups are the easy case, all of them the hard " +
      "one), before, during or after a run: the map is fitted to the words shown."),
    el("div", { class: "controls" }, field("corpus", page.corpus), field("method", page.method),
      field("dim", page.dim), field(`epochs (1–${maxEpochs})`, page.epochs),
      field(`stop after words (≤ ${count(maxWords)})`, page.limit), page.start, page.stop),
    page.progress, page.error, page.picker.node, page.map,
    el("div", { class: "controls" }, field("frame", page.slider), page.frameLabel, page.replay),
    page.axesNote, page.rowNote, page.rowPlot);
  return page;
}

function wire(page) {
  const tick = setInterval(() => { // the map steps through the frames that have arrived
    if (!page.map.isConnected) { clearInterval(tick); return; }
    if (page.follow && page.at < page.frames.length - 1) page.at += 1;
    draw(page);
  }, STEP_MS);
  page.start.addEventListener("click", () => shown(page.error, async () => {
    apply(page, await post("/api/training/start", { corpus: page.corpus.value, method: page.method.value,
      dim: Number(page.dim.value), epochs: Number(page.epochs.value), max_words: Number(page.limit.value) }));
    page.follow = true;
    watch(page);
  }));
  page.stop.addEventListener("click", () => shown(page.error, async () => apply(page, await post("/api/training/stop"))));
  page.replay.addEventListener("click", () => { page.at = 0; page.drawn = -1; page.follow = true; });
  page.slider.addEventListener("input", () => { page.follow = false; page.at = Number(page.slider.value); draw(page); });
}

// subtle: Plotly gives the div its .on() only once it has drawn, so clicks are bound after a first plot.
async function blankMap(page) {
  await plot(page.map, [], { xaxis: { visible: false }, yaxis: { visible: false },
    annotations: [{ text: "Press Start to train; the map fills in as snapshots arrive.", showarrow: false }] });
  page.map.on("plotly_click", (event) => {
    const point = event.points?.[0];
    if (!point) return;
    page.selected = point.text;
    page.drawn = -1;
    draw(page);
  });
}

// Take in a state from the server: new frames appended, a new run starts the picture over.
function apply(page, s) {
  if (s.run !== page.run) { // a new run (maybe from another tab)
    Object.assign(page, { run: s.run, frames: [], at: -1, drawn: -1, selected: null });
    page.frameLabel.textContent = "waiting for the first snapshot…";
    page.rowNote.textContent = ROW_HINT;
    plotly().then((Plotly) => Plotly.purge(page.rowPlot));
  }
  Object.assign(page, { status: s.status, tokens: s.tokens, tokenThemes: s.themes });
  for (const f of s.frames) if (f.index === page.frames.length) page.frames.push(f);
  page.slider.max = Math.max(0, page.frames.length - 1);
  page.start.disabled = page.status === "running";
  page.stop.disabled = page.status !== "running";
  page.replay.disabled = page.status === "running" || page.frames.length < 2;
  page.progress.replaceChildren(describe(s));
  page.progress.classList.toggle("error", page.status === "failed");
}

function describe(s) {
  const p = s.progress;
  const ended = s.message.startsWith(s.status) ? s.message : `${s.status}${s.message ? `: ${s.message}` : ""}`;
  if (s.status === "idle") return "No run yet: choose the settings and press Start.";
  if (!p) return s.status === "running" ? `Run ${s.run}: reading ${s.config.corpus} and counting its words…`
    : `Run ${s.run} ${ended}.`;
  const goal = Math.min(p.total, s.max_words ?? p.total);
  const parts = [`epoch ${p.epoch + 1}/${p.epochs}`, `${(100 * Math.min(1, p.done / goal)).toFixed(1)}% of ` +
    `${count(goal)} words`, `loss ${p.loss === null ? "–" : p.loss.toFixed(4)}`, `${count(Math.round(p.rate))} words/s`];
  const end = s.status === "running" ? "" : ` · ${ended}`;
  return `Run ${s.run} (${s.config.method}, dim ${s.config.dim}, ${s.config.corpus}): ${parts.join(" · ")}${end}`;
}

// The state with the frames from `since` on, of the groups ticked; dropped if the ticks changed meanwhile.
async function poll(page) {
  const themes = page.picker.picked();
  const ask = (since) => get("/api/training/state", [["since", since], ...themes.map((t) => ["themes", t])]);
  let s = await ask(page.frames.length);
  if (s.run !== page.run && page.frames.length) s = await ask(0);
  if (String(themes) === String(page.picker.picked())) apply(page, s);
}

// Other groups ticked: their frames are other projections, so the map starts over from the first frame
// (or, after a run, shows the last one).
async function repick(page) {
  Object.assign(page, { frames: [], at: -1, drawn: -1, selected: null });
  await shown(page.error, () => poll(page));
  if (page.status !== "running" && page.frames.length) {
    Object.assign(page, { at: page.frames.length - 1, follow: false });
    draw(page);
  }
}

// Poll while the run goes (one loop at a time), then once more for the frames of its last step.
async function watch(page) {
  if (page.polling) return;
  page.polling = true;
  try {
    do {
      await shown(page.error, () => poll(page));
      await sleep(POLL_MS);
    } while (page.map.isConnected && page.status === "running");
    await shown(page.error, () => poll(page));
  } finally {
    page.polling = false;
  }
}

// Frame `page.at` on the map, one trace per theme group, the picked word ringed.
function draw(page) {
  const { frames, tokens, tokenThemes, selected } = page;
  if (page.at < 0 || page.at >= frames.length || page.at === page.drawn) return;
  const at = page.at, f = frames[at];
  page.drawn = at;
  page.slider.value = page.at;
  const reach = 1.25 * Math.max(...f.coordinates.flat().map(Math.abs), 1e-12);
  const traces = [...new Set(tokenThemes)].map((theme) => {
    const rows = tokenThemes.flatMap((t, i) => (t === theme ? [i] : []));
    const picked = (i) => tokens[i] === selected;
    return {
      type: "scatter", mode: "markers", name: theme, text: rows.map((i) => tokens[i]),
      x: rows.map((i) => f.coordinates[i][0]), y: rows.map((i) => f.coordinates[i][1]),
      hovertemplate: "%{text}<extra></extra>",
      marker: { color: themeColour(page.themes, theme), size: rows.map((i) => (picked(i) ? 15 : 9)),
        line: { width: rows.map((i) => (picked(i) ? 2 : 0)), color: colour("ink") } },
    };
  });
  const share = (v) => `${(100 * v).toFixed(0)}% of the variance`;
  const order = [...tokens.keys()].sort((a, b) => (tokens[b] === selected) - (tokens[a] === selected)); // picked first
  const labels = order.map((i) => ({ x: f.coordinates[i][0], y: f.coordinates[i][1], text: tokens[i],
    radius: tokens[i] === selected ? 9 : 5 })); // the markers' sizes: 15 picked, 9
  plot(page.map, traces, {
    xaxis: { title: { text: `axis 1 (${share(f.variance[0])})` }, range: [-reach, reach], zeroline: false },
    yaxis: { title: { text: `axis 2 (${share(f.variance[1])})` }, range: [-reach, reach], zeroline: false,
      scaleanchor: "x" },
    legend: { orientation: "h", y: -0.15 }, hovermode: "closest",
  }).then(() => page.drawn === at && labelPoints(page.map, labels)); // a newer frame labels itself
  page.frameLabel.textContent = `frame ${page.at + 1} of ${frames.length} · ${count(f.done)} words trained`;
  page.axesNote.textContent = `Axes: the frame's own two principal axes (${tokens.length} rows, centred, not ` +
    "normalised), turned by rotation or reflection only to line up with the frame before. The scale " +
    "follows each frame: rows start near zero and grow as they train.";
  if (selected) page.showRow();
}

const loadRow = (page) => get("/api/training/row", { token: page.selected, frame: page.at });

function drawRow(page, r) {
  page.rowNote.textContent = `“${r.token}” in frame ${r.frame + 1}: its ${r.row.length} numbers, ` +
    `‖row‖ = ${r.norm.toFixed(4)}, after ${count(r.done)} words.`;
  return bars(page.rowPlot, r.row, { title: `row of “${r.token}”`, layout: { xaxis: { title: { text: "dimension" } } } });
}
