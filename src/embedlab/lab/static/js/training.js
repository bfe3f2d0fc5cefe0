// Training: a real word2vec run started from the page; the watched rows' 2-D map moves as snapshots arrive.
import { THEME_COLOURS, bars, el, field, get, guard, plot, post } from "./api.js";

const POLL_MS = 300; // state requests while a run goes
const STEP_MS = 90; // one frame drawn per step, so a quick run still plays at a pace the eye can follow
const count = (n) => n.toLocaleString("en-US");
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

export async function render(root) {
  const options = await get("/api/training/options");
  const defaults = options.defaults;
  const choice = (id, values, value) => {
    const select = el("select", { id }, ...values.map((v) => el("option", {}, String(v))));
    select.value = String(value);
    return select;
  };
  const corpus = choice("train-corpus", options.corpora, defaults.corpus);
  const method = choice("train-method", options.methods, defaults.method);
  const dim = choice("train-dim", options.dims, defaults.dim);
  const [maxEpochs, [minWords, maxWords]] = [options.limits.epochs[1], options.limits.max_words];
  const epochs = el("input", { id: "train-epochs", type: "number", min: 1, max: maxEpochs, value: defaults.epochs });
  const limit = el("input", { id: "train-limit", type: "number", min: minWords, max: maxWords, step: 1000,
    value: defaults.max_words });
  const start = el("button", { id: "train-start", class: "primary" }, "Start");
  const stop = el("button", { id: "train-stop" }, "Stop");
  const replay = el("button", { id: "train-replay" }, "Replay");
  const progress = el("p", { id: "train-progress", class: "stat" });
  const error = el("div", { id: "train-error" });
  const map = el("div", { id: "train-map", class: "plot", style: "height: 540px; max-width: 820px" });
  const slider = el("input", { id: "train-frame", type: "range", min: 0, max: 0, value: 0,
    style: "width: min(480px, 80vw)" });
  const frameLabel = el("span", { id: "train-frame-label", class: "stat" });
  const axesNote = el("p", { id: "train-axes", class: "note" });
  const rowNote = el("div", { id: "train-row-note", class: "note" }, "Click a word on the map to see its row.");
  const rowPlot = el("div", { id: "train-row", class: "plot", style: "min-height: 260px" });
  root.append(
    el("h2", {}, "Embedding space during training"),
    el("p", {}, "Start trains word2vec on a real corpus on the server, and the map follows a few dozen " +
      "watched words while their rows change. Every row begins as small random numbers, so the first " +
      "frame has no order; words used in similar places (numbers, months, family words) then drift " +
      "together. Low widths have less room to keep the groups apart: compare dim 2 with dim 32."),
    el("div", { class: "controls" }, field("corpus", corpus), field("method", method), field("dim", dim),
      field(`epochs (1–${maxEpochs})`, epochs), field(`stop after words (≤ ${count(maxWords)})`, limit),
      start, stop),
    progress, error, map,
    el("div", { class: "controls" }, field("frame", slider), frameLabel, replay),
    axesNote, rowNote, rowPlot);

  let run = 0, status = "idle", frames = [], tokens = [], themes = [];
  let shown = -1, drawn = -1, follow = true, selected = null, polling = false, rowBusy = false;

  function apply(s) {
    if (s.run !== run) { // a new run (maybe from another tab): start the picture over
      run = s.run;
      frames = [];
      shown = drawn = -1;
      selected = null;
      frameLabel.textContent = "waiting for the first snapshot…";
      rowNote.textContent = "Click a word on the map to see its row.";
      Plotly.purge(rowPlot);
    }
    status = s.status;
    tokens = s.tokens;
    themes = s.themes;
    for (const f of s.frames) if (f.index === frames.length) frames.push(f);
    slider.max = Math.max(0, frames.length - 1);
    start.disabled = status === "running";
    stop.disabled = status !== "running";
    replay.disabled = status === "running" || frames.length < 2;
    progress.replaceChildren(describe(s));
    progress.classList.toggle("error", status === "failed");
  }

  function describe(s) {
    const p = s.progress;
    if (status === "idle") return "No run yet: choose the settings and press Start.";
    if (!p) return status === "running" ? `Run ${s.run}: reading ${s.config.corpus} and counting its words…`
      : `Run ${s.run} ${status}${s.message ? `: ${s.message}` : ""}.`;
    const goal = Math.min(p.total, s.max_words ?? p.total);
    const parts = [`epoch ${p.epoch + 1}/${p.epochs}`, `${(100 * Math.min(1, p.done / goal)).toFixed(1)}% of ` +
      `${count(goal)} words`, `loss ${p.loss === null ? "–" : p.loss.toFixed(4)}`,
      `${count(Math.round(p.rate))} words/s`];
    const end = status === "running" ? "" : ` · ${status}${s.message ? `: ${s.message}` : ""}`;
    return `Run ${s.run} (${s.config.method}, dim ${s.config.dim}, ${s.config.corpus}): ${parts.join(" · ")}${end}`;
  }

  async function poll() {
    let s = await get("/api/training/state", { since: frames.length });
    if (s.run !== run && frames.length) s = await get("/api/training/state", { since: 0 });
    apply(s);
  }

  async function watch() {
    if (polling) return;
    polling = true;
    try {
      do {
        await guard(error, poll);
        await sleep(POLL_MS);
      } while (map.isConnected && status === "running");
      await guard(error, poll); // the frames that came with the last step
    } finally { polling = false; }
  }

  function draw() {
    if (shown < 0 || shown >= frames.length || shown === drawn) return;
    drawn = shown;
    const f = frames[shown];
    slider.value = shown;
    const reach = 1.25 * Math.max(...f.coordinates.flat().map(Math.abs), 1e-12);
    const groups = [...new Set(themes)];
    const traces = groups.map((theme) => {
      const rows = themes.flatMap((t, i) => (t === theme ? [i] : []));
      return {
        type: "scatter", mode: "markers+text", name: theme, text: rows.map((i) => tokens[i]),
        x: rows.map((i) => f.coordinates[i][0]), y: rows.map((i) => f.coordinates[i][1]),
        textposition: "top center", textfont: { size: 11 }, cliponaxis: false,
        hovertemplate: "%{text}<extra></extra>",
        marker: { color: THEME_COLOURS[theme] ?? THEME_COLOURS.other, size: rows.map((i) => (tokens[i] === selected ? 15 : 9)),
          line: { width: rows.map((i) => (tokens[i] === selected ? 2 : 0)), color: "#1d2433" } },
      };
    });
    const share = (v) => `${(100 * v).toFixed(0)}% of the variance`;
    plot(map, traces, {
      xaxis: { title: { text: `axis 1 (${share(f.variance[0])})` }, range: [-reach, reach], zeroline: false },
      yaxis: { title: { text: `axis 2 (${share(f.variance[1])})` }, range: [-reach, reach], zeroline: false,
        scaleanchor: "x" },
      legend: { orientation: "h", y: -0.15 }, hovermode: "closest",
    });
    frameLabel.textContent = `frame ${shown + 1} of ${frames.length} · ${count(f.done)} words trained`;
    axesNote.textContent = `Axes: the frame's own two principal axes (${tokens.length} rows, centred, not ` +
      "normalised), turned by rotation or reflection only to line up with the frame before. The scale " +
      "follows each frame: rows start near zero and grow as they train.";
    if (selected) showRow();
  }

  async function showRow() {
    if (rowBusy) return;
    rowBusy = true;
    const [token, frame] = [selected, shown];
    await guard(rowNote, async () => {
      const r = await get("/api/training/row", { token, frame });
      rowNote.textContent = `“${token}” in frame ${frame + 1}: its ${r.row.length} numbers, ` +
        `‖row‖ = ${r.norm.toFixed(4)}, after ${count(r.done)} words.`;
      await bars(rowPlot, r.row, { title: `row of “${token}”`,
        layout: { xaxis: { title: { text: "dimension" } } } });
    });
    rowBusy = false;
    if (selected && (selected !== token || shown !== frame)) showRow(); // the frame moved on while this one loaded
  }

  const tick = setInterval(() => {
    if (!map.isConnected) { clearInterval(tick); return; }
    if (follow && shown < frames.length - 1) shown += 1;
    draw();
  }, STEP_MS);

  start.addEventListener("click", () => guard(error, async () => {
    error.replaceChildren();
    const s = await post("/api/training/start", { corpus: corpus.value, method: method.value,
      dim: Number(dim.value), epochs: Number(epochs.value), max_words: Number(limit.value) });
    follow = true;
    apply(s);
    watch();
  }));
  stop.addEventListener("click", () => guard(error, async () => apply(await post("/api/training/stop"))));
  replay.addEventListener("click", () => { shown = 0; drawn = -1; follow = true; });
  slider.addEventListener("input", () => { follow = false; shown = Number(slider.value); draw(); });
  // subtle: Plotly gives the div its .on() only once it has drawn, so bind clicks after a first plot.
  await plot(map, [], { xaxis: { visible: false }, yaxis: { visible: false },
    annotations: [{ text: "Press Start to train; the map fills in as snapshots arrive.", showarrow: false }] });
  map.on("plotly_click", (event) => {
    const point = event.points?.[0];
    if (!point) return;
    selected = point.text;
    drawn = -1;
    draw();
  });
  await guard(error, poll); // a run already going (or done) on this server shows at once
  if (status === "running") watch();
  else if (frames.length) { shown = frames.length - 1; follow = false; draw(); }
}
