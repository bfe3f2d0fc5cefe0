// The tiled projector's 2-D map: a view over the layout's quadtree of tiles (sims/projector_tiles.py
// builds it; /api/projector/tiles lists it). The root tile (a random sample of about 1,000 rows) is
// fetched and drawn first and alone; then every tile of the tree whose box meets the view, down to depth
// z + 1, where z = floor(log2(map width / view width)): as the view narrows, deeper tiles add the rows
// their ancestors left out, so the points on the screen stay about as dense at any zoom. Tiles the view
// left are no longer drawn; the buffers of the KEEP most recently drawn stay (a pan back is free), the
// others are deleted. Points are WebGL (projector_points.js); contours, region labels, search hits and
// a clicked point's neighbour links are a 2-D canvas above it (projector_overlay.js); the view and the
// pointer's moves are projector_view.js.
//
// What is drawn is one uniform sample: every row has a priority rank (0 first, a seeded random order),
// the rows of rank < P are a uniform sample of the table, and in each tile they are a prefix (its rows
// are in rank order). A frame picks one threshold P and draws from every tile the rows of rank < P, so
// a dense tile next to a sparse one shows the same share of its rows: no edge at tile borders; only the
// cells of a tile near the view are drawn (projector_cells.js: a tile's rows sorted by cell). P is at
// most the frontier: a tile drawn whose child (in the tree, meeting the view) is not drawn holds every
// row of that child's box up to its own last rank, and none past it. Within that, P is the largest whose
// points stay in the budget.
//
// For the bench and the tests, the map's node (#proj-map) carries in its dataset: points drawn, rows
// and tiles under the view, threshold (P: the rows of rank < P are drawn), calls (draw calls: a
// (tile, cell) each), drawn (their ids), held
// (tiles with a buffer), depth (z), pending (requests queued or out), firstPaintMs (the root on the
// screen, from the page's navigation), settledMs (every tile and overlay of the first view on the
// screen), lastTileMs (the last tile's request to its frame), tileTimes (JSON [[id, fetch ms, draw ms],
// ...] of the last TIMINGS tiles). node.map is this object.
import { overlap, sample, split } from "./projector_cells.js";
import { Overlay } from "./projector_overlay.js";
import { Points, spread } from "./projector_points.js";
import { View, steer } from "./projector_view.js";

const FETCHES = 4; // requests out at once (a browser opens 6 connections to one host; leave it some)
const KEEP = 12; // tiles no longer under the view whose buffers are kept, the most recently drawn first
const PICK_PX = 6; // a click picks the nearest drawn point at most this far away
const STEP = 2; // a +/- button's zoom factor
const TIMINGS = 256;
// Points drawn in a frame, at most, counted as those on the screen (a cell's prefix drawn times the share
// of its box in view): a software renderer (SwiftShader) takes about 1 µs a point on the screen, and
// 80,000 points already cover a third of a 1,000 × 640 map. Past it the threshold P is lowered, which
// thins every tile alike (the rows of rank < P are a uniform sample): the picture keeps its densities.
// While the view moves the budget is smaller, and a full frame follows when it stops. Points off the
// screen cost too (about 0.4 µs each): all those drawn are capped as well.
const BUDGET = { seen: 80_000, all: 150_000 };
const MOVING = { seen: 25_000, all: 50_000 };
const STILL_MS = 150; // no move for this long: the view has stopped
const DATASET = ["points", "rows", "threshold", "calls", "tiles", "drawn", "held", "depth", "pending", "firstPaintMs",
  "settledMs", "lastTileMs", "tileTimes"];

export class TileMap {
  // Fill `node` (emptied) with the map; `onPick({ row, point })` follows a click on a point, `onError(err)`
  // a tile or overlay the server refused.
  constructor(node, { onPick, onError }) {
    this.node = node;
    this.onPick = onPick;
    this.onError = onError;
    const canvas = (id) => Object.assign(document.createElement("canvas"), { id, className: "proj-layer" });
    this.glCanvas = canvas("proj-gl");
    this.topCanvas = canvas("proj-overlay");
    const button = (id, text, title, act) => {
      const b = Object.assign(document.createElement("button"), { id, textContent: text, title, type: "button" });
      b.addEventListener("click", act);
      return b;
    };
    const buttons = document.createElement("div");
    buttons.className = "proj-zoom";
    const zoom = (factor) => () => { this.view.zoomAt(null, factor); this.moved(); };
    buttons.append(button("proj-zoom-in", "+", "zoom in", zoom(STEP)), button("proj-zoom-out", "−", "zoom out",
      zoom(1 / STEP)), button("proj-reset", "reset", "show the whole map", () => { this.view.fit(); this.moved(); }));
    this.readout = Object.assign(document.createElement("div"), { id: "proj-drawn", className: "proj-readout" });
    node.replaceChildren(this.glCanvas, this.topCanvas, buttons, this.readout);
    node.classList.add("tiled");
    node.map = this;
    this.points = new Points(this.glCanvas);
    this.overlay = new Overlay(this.topCanvas);
    this.tiles = new Map(); // id -> { id, z, n, state: loading|ready|failed, buffer, xy, rows, values, ranks
    //   (all four in cell order: projector_cells.js), starts, boxes (its cells), top (the last rank),
    //   spans ([[first, count], ...] drawn), count (their sum), times }
    this.overlays = new Map(); // id -> its /overlay answer, or null while asked
    this.queue = []; // [kind, id] still to ask for, the first first
    this.out = 0; // requests out
    this.generation = 0; // a new open() or close() makes every answer still out stale
    this.times = [];
    this.keep = KEEP; // buffers kept of tiles the view left (a test sets 0 to see them go at once)
    this.budget = BUDGET; // a still frame's (a test lifts it to see the frontier alone set the threshold)
    this.hits = null;
    this.focus = null;
    this.view = new View();
    this.resize(false);
    this.resizing = new ResizeObserver(() => this.resize());
    this.resizing.observe(node);
    steer(this.topCanvas, this.view, { moved: () => this.moved(), clicked: (px, py) => {
      const hit = this.pick(px, py);
      if (hit) this.onPick(hit);
    } });
  }

  // Show `source`: { manifest (/tiles when ready), tile(id) -> Promise<{ bytes, n, floats }>, overlay(id)
  // -> Promise<JSON>, colouring: Points.colour's argument, its range null to take it from the root }.
  // The view stays where it is when `keep` (a new colouring of the same layout). -> a promise of the
  // colouring used, once the root is on the screen; null if a later open() came first.
  async open(source, keep = false) {
    const generation = this.drop();
    if (!keep) {
      this.hits = null;
      this.focus = null;
    }
    this.source = source;
    const { bounds, tiles, depth } = source.manifest;
    const side = bounds[2] - bounds[0]; // the map's square: bounds are as wide as high
    this.index = Object.entries(tiles).map(([id, n]) => {
      const [z, x, y] = id.split("/").map(Number);
      const s = side / 2 ** z;
      return { id, z, n, box: [bounds[0] + x * s, bounds[1] + y * s, bounds[0] + (x + 1) * s, bounds[1] + (y + 1) * s] };
    }).sort((a, b) => a.z - b.z);
    this.boxes = new Map(this.index.map((t) => [t.id, t.box]));
    this.children = new Map(); // id -> its children's entries in the tree (a tile without any: absent)
    for (const t of this.index.filter((t) => t.z)) {
      this.children.set(parent(t.id), [...(this.children.get(parent(t.id)) ?? []), t]);
    }
    this.view.frame(bounds, depth);
    if (!keep) this.view.fit();
    const root = await this.load("0/0/0", generation);
    if (generation !== this.generation || !root) return null;
    const colouring = { ...source.colouring };
    if (!colouring.codes && !colouring.range) colouring.range = spread(root.values);
    this.colouring = colouring;
    this.points.colour(colouring);
    this.render();
    this.rooted = true;
    this.firstPaintMs = Math.round(performance.now());
    this.node.dataset.firstPaintMs = this.firstPaintMs;
    delete this.node.dataset.settledMs;
    this.settled = false;
    this.update(); // only now the tiles under the view: the root is drawn before any other is asked for
    return colouring;
  }

  // Search hits to ring ({ points: [[x, y], ...] } or null) and a clicked point's neighbours to link
  // ({ point, neighbours: [{ point, cosine }] } or null).
  setHits(hits) {
    this.hits = hits;
    this.schedule();
  }

  setFocus(focus) {
    this.focus = focus;
    this.schedule();
  }

  // Centre the view on `point`, `share` of the map's width across the view's smaller side.
  flyTo(point, share) {
    this.view.centre(point, share);
    this.moved();
  }

  // Stop: no more requests or frames, every buffer and the WebGL context given back.
  close() {
    this.drop();
    if (this.frame) cancelAnimationFrame(this.frame);
    this.resizing.disconnect();
    this.points.lose();
    delete this.node.map;
    for (const name of DATASET) delete this.node.dataset[name];
    this.node.classList.remove("tiled");
    this.node.replaceChildren();
  }

  // Forget every tile and overlay (a new layout or colouring). -> the new generation.
  drop() {
    for (const t of this.tiles.values()) if (t.buffer) this.points.release(t.buffer);
    this.tiles.clear();
    this.overlays.clear();
    this.queue = [];
    this.wanted = [];
    this.rooted = false; // until the root is drawn, nothing else is asked for
    return ++this.generation;
  }

  // The nearest drawn point within PICK_PX of CSS pixel (px, py) -> { row, point } or null.
  pick(px, py) {
    const [mx, my] = this.view.toMap(px, py);
    const reach = PICK_PX / this.view.scale;
    let best = null, bestD = reach * reach;
    for (const t of this.drawn()) {
      const { xy, rows } = t;
      for (const [first, count] of t.spans ?? [[0, t.n]]) for (let i = first; i < first + count; i++) {
        const dx = xy[2 * i] - mx, dy = xy[2 * i + 1] - my, d = dx * dx + dy * dy;
        if (d <= bestD) { bestD = d; best = { row: rows[i], point: [xy[2 * i], xy[2 * i + 1]] }; }
      }
    }
    return best;
  }

  // The view changed: a frame (a quick one: the full one when it stops), and the tiles it now wants.
  moved() {
    this.moving = performance.now();
    clearTimeout(this.still);
    this.still = setTimeout(() => { this.moving = null; this.schedule(); }, STILL_MS);
    this.schedule();
    if (this.rooted) this.update();
  }

  resize(redraw = true) {
    const { view } = this;
    Object.assign(view, { width: this.node.clientWidth, height: this.node.clientHeight, ratio: devicePixelRatio || 1 });
    for (const c of [this.glCanvas, this.topCanvas]) {
      c.width = Math.max(1, Math.round(view.width * view.ratio));
      c.height = Math.max(1, Math.round(view.height * view.ratio));
    }
    if (redraw && this.source) this.moved();
  }

  // The tiles and overlays the view wants, asked for in order: shallow tiles first, the nearest to the
  // view's centre first within a depth; a depth's overlays after its tiles. Unwanted buffers past KEEP go.
  update() {
    const { box, z } = this.view.extent();
    const meets = (b) => overlap(b, box) > 0;
    const [cx, cy] = [this.view.cx, this.view.cy];
    const far = (t) => Math.hypot((t.box[0] + t.box[2]) / 2 - cx, (t.box[1] + t.box[3]) / 2 - cy); // map units
    this.wanted = this.index.filter((t) => t.z <= z + 1 && meets(t.box)).sort((a, b) => a.z - b.z || far(a) - far(b));
    // the overlays of depth z; where the tree stops above z, its deepest tiles there
    this.labelled = this.index.filter((t) => (t.z === z || (t.z < z && !this.children.has(t.id))) && meets(t.box));
    const asks = [...this.wanted.filter((t) => !this.tiles.has(t.id)).map((t) => [t.z, "tile", t.id]),
      ...this.labelled.filter((t) => !this.overlays.has(t.id)).map((t) => [t.z + 0.5, "overlay", t.id])];
    this.queue = asks.sort((a, b) => a[0] - b[0]).map(([, kind, id]) => [kind, id]);
    this.pump();
    const now = performance.now();
    const wanted = new Set(this.wanted.map((t) => t.id));
    for (const t of this.tiles.values()) if (wanted.has(t.id)) t.used = now;
    const spare = [...this.tiles.values()].filter((t) => t.state === "ready" && !wanted.has(t.id))
      .sort((a, b) => b.used - a.used);
    for (const t of spare.slice(this.keep)) {
      this.points.release(t.buffer);
      this.tiles.delete(t.id);
    }
    this.schedule();
  }

  pump() {
    const generation = this.generation;
    while (this.out < FETCHES && this.queue.length) {
      const [kind, id] = this.queue.shift();
      if (kind === "tile") this.load(id, generation);
      else this.ask(id, generation);
    }
    this.node.dataset.pending = this.queue.length + this.out;
  }

  // Fetch tile `id` and give it a buffer. -> a promise of the tile, or null (refused, or stale).
  async load(id, generation) {
    const t = { id, z: Number(id.split("/")[0]), state: "loading", times: { asked: performance.now() } };
    this.tiles.set(id, t);
    this.out++;
    try {
      const got = await this.source.tile(id);
      if (generation !== this.generation) return null;
      const cut = split(got, this.boxes.get(id)), n = cut.n; // the rows in (cell, rank) order
      Object.assign(t, { n, floats: got.floats, xy: new Float32Array(cut.bytes, 0, 2 * n),
        rows: new Uint32Array(cut.bytes, 8 * n, n), buffer: this.points.upload(cut), state: "ready", used: 0 });
      t.values = got.floats ? new Float32Array(cut.bytes, 12 * n, n) : new Uint8Array(cut.bytes, 12 * n, n);
      Object.assign(t, { ranks: cut.ranks, starts: cut.starts, boxes: cut.boxes, top: cut.top });
      t.times.arrived = performance.now();
      this.schedule();
      return t;
    } catch (err) {
      if (generation !== this.generation) return null;
      t.state = "failed"; // not asked again until the next open(): a refusal would only repeat
      this.onError(err);
      return null;
    } finally {
      this.out--;
      this.pump();
    }
  }

  async ask(id, generation) {
    this.overlays.set(id, null);
    this.out++;
    try {
      const answer = await this.source.overlay(id);
      if (generation === this.generation) this.overlays.set(id, answer);
      this.schedule();
    } catch (err) {
      if (generation === this.generation) this.onError(err);
    } finally {
      this.out--;
      this.pump();
    }
  }

  // The tiles on the screen: wanted and arrived, the shallowest first (deeper rows drawn on top); the
  // root alone until it is first drawn.
  drawn() {
    const ids = this.rooted ? this.wanted.map((t) => t.id) : ["0/0/0"];
    return ids.map((id) => this.tiles.get(id)).filter((t) => t?.state === "ready");
  }

  schedule() {
    this.frame ??= requestAnimationFrame(() => {
      this.frame = null;
      if (this.tiles.size) this.render();
    });
  }

  // Draw a frame now; tiles drawn for the first time get their draw time (the GPU waited for).
  render() {
    const drawn = this.drawn();
    const { box, z } = this.view.extent();
    const rows = drawn.reduce((sum, t) => sum + t.n, 0);
    const most = this.moving ? MOVING : this.budget;
    const { threshold, points, calls } = sample(drawn, box, most, this.frontier(drawn, box));
    this.threshold = threshold;
    // a point's diameter in CSS px: larger the fewer are drawn (2 px at 200,000, 4 at 20,000), and larger
    // again once the view looks deeper than the tree (no more rows to add, only room between them)
    const size = Math.min(Math.min(Math.max(2 + 2 * Math.log10(200_000 / Math.max(points, 1)), 2), 5) *
      (1 + 0.25 * Math.max(0, this.view.past())), 8);
    this.points.draw(drawn, { ...this.view, width: this.glCanvas.width, height: this.glCanvas.height, size });
    const fresh = drawn.filter((t) => t.times.shown === undefined);
    if (fresh.length) {
      this.points.finish();
      const now = performance.now();
      for (const t of fresh) {
        t.times.shown = now;
        this.times.push([t.id, Math.round(t.times.arrived - t.times.asked), Math.round(now - t.times.arrived)]);
      }
      this.times = this.times.slice(-TIMINGS);
      Object.assign(this.node.dataset, { lastTileMs: Math.round(now - fresh.at(-1).times.asked),
        tileTimes: JSON.stringify(this.times) });
    }
    const overlays = (this.labelled ?? []).map((t) => this.overlays.get(t.id)).filter(Boolean);
    this.overlay.draw(this.view, { overlays, levels: this.source.manifest.levels, hits: this.hits, focus: this.focus });
    if (!this.settled && this.out === 0 && !this.queue.length && drawn.length === this.wanted.length) {
      this.settled = true;
      this.node.dataset.settledMs = Math.round(performance.now());
    }
    const held = [...this.tiles.values()].filter((t) => t.buffer).length;
    const ids = drawn.map((t) => t.id).join(" ");
    if (this.node.dataset.drawn !== ids || this.node.dataset.held !== String(held) || !this.moving) {
      Object.assign(this.node.dataset, { points, rows, threshold, calls, tiles: drawn.length, drawn: ids, held, depth: z });
      const all = this.source.manifest.rows;
      this.readout.textContent = `${num(points)} points drawn, ` + (points < rows ? `a sample of the ${num(rows)} ` +
        `rows of ${drawn.length} tiles` : `the rows of ${drawn.length} tiles`) + ` under the view (of ${num(all)} ` +
        `rows in ${this.index.length} tiles; zoom level ${z})`;
    }
  }

  // The highest threshold P the tiles in `drawn` allow for the view `box`: the least last rank + 1 of a
  // tile drawn with a child (in the tree, meeting the view) not drawn; the table's rows when none.
  frontier(drawn, box) {
    const ids = new Set(drawn.map((t) => t.id));
    let frontier = this.source.manifest.rows;
    for (const t of drawn) {
      // subtle: a child's rows all rank after its parent's last (the parent kept its box's lowest ranks)
      if ((this.children.get(t.id) ?? []).some((c) => !ids.has(c.id) && overlap(c.box, box) > 0)) {
        frontier = Math.min(frontier, t.top + 1);
      }
    }
    return frontier;
  }
}

const num = (n) => n.toLocaleString("en-US");

// "3/5/2" -> "2/2/1"; the root's parent is "".
function parent(id) {
  const [z, x, y] = id.split("/").map(Number);
  return z ? `${z - 1}/${x >> 1}/${y >> 1}` : "";
}
