// A tile's rows split by where they lie, so that a frame draws only the part of a tile near the view.
// When a tile arrives its box is cut into CELLS × CELLS equal cells and its rows reordered by (cell,
// rank) with a stable counting sort: each cell's rows are contiguous and still in rank order, so the
// rows of rank < P in one cell are a prefix of that cell (a binary search finds it). The GL buffer, the
// rows and points picked and the ranks all follow that order. A frame draws, from every tile drawn and
// every cell of it whose box meets the view, the prefix of rank < P: one drawArrays per (tile, cell). A
// tile far above the view's level (a box many times the view's) thus draws only the few cells around
// the view, not its rows all over the map, and the budget counts only those (projector_map.js).
//
// Why 8: a cell is an eighth of its tile's side. The tiles the view wants reach down to depth z + 1 (a
// box of at most the view's width); a cell of a tile at depth d is 2^(z - d - 3) views wide, so tiles
// down to three levels above the view (boxes up to 8 views wide) draw cells no wider than the view: the
// points drawn off the screen stay at most a few times those on it. More cells cut that further but cost
// a draw call each (SwiftShader: several µs a call); a tile inside the view draws its 64 cells.
//
// Notation: n rows in a tile; C = CELLS; a box is [x0, y0, x1, y1] in map units.

export const CELLS = 8;

// Reorder a tile as /tile sent it ({ bytes, n, floats }: x, y float32 (8n bytes), rows uint32 (4n),
// values (n uint8 or 4n float32), ranks uint32 (4n), ascending) by (cell of `box`, rank).
// -> { bytes: x, y, rows, values in the new order (no ranks: the GPU does not need them), n, floats,
// ranks (n,) uint32 in the new order, starts (C*C + 1,) uint32 (cell c's rows are [starts[c],
// starts[c + 1])), boxes (C*C boxes, cell c = row-major: c = j * C + i for column i and row j of the box),
// top (the tile's last rank) }.
// E.g. C = 2, box [0, 0, 2, 2], points (1.5, 0.5) (0.5, 0.5) (1.5, 1.5) of ranks 3, 5, 8 -> cells 1, 0, 3
// -> order (0.5, 0.5) (1.5, 0.5) (1.5, 1.5), starts [0, 1, 2, 2, 3].
export function split({ bytes, n, floats }, box) {
  const C = CELLS;
  const width = floats ? 4 : 1; // bytes a colour value
  const xy = new Float32Array(bytes, 0, 2 * n);
  const rows = new Uint32Array(bytes, 8 * n, n);
  const values = floats ? new Float32Array(bytes, 12 * n, n) : new Uint8Array(bytes, 12 * n, n);
  // subtle: after uint8 values the ranks need not start at a multiple of 4, so they are copied out
  const at = 12 * n + width * n;
  const ranks = new Uint32Array(bytes.slice(at, at + 4 * n));
  const side = (box[2] - box[0]) / C; // a cell's side, map units (the box is square)
  const cellOf = (v, lo) => Math.min(C - 1, Math.max(0, Math.floor((v - lo) / side))); // the far edge: the last
  const cell = new Uint8Array(n); // C * C <= 256
  const starts = new Uint32Array(C * C + 1);
  for (let k = 0; k < n; k++) {
    cell[k] = cellOf(xy[2 * k + 1], box[1]) * C + cellOf(xy[2 * k], box[0]);
    starts[cell[k] + 1]++;
  }
  for (let c = 0; c < C * C; c++) starts[c + 1] += starts[c];
  const next = starts.slice(0, C * C); // where each cell's next row goes: stable, so rank order holds
  const out = new ArrayBuffer(12 * n + width * n);
  const [oxy, orows, oranks] = [new Float32Array(out, 0, 2 * n), new Uint32Array(out, 8 * n, n), new Uint32Array(n)];
  const ovalues = floats ? new Float32Array(out, 12 * n, n) : new Uint8Array(out, 12 * n, n);
  for (let k = 0; k < n; k++) {
    const j = next[cell[k]]++;
    oxy[2 * j] = xy[2 * k];
    oxy[2 * j + 1] = xy[2 * k + 1];
    orows[j] = rows[k];
    ovalues[j] = values[k];
    oranks[j] = ranks[k];
  }
  const boxes = [];
  for (let j = 0; j < C; j++) {
    for (let i = 0; i < C; i++) {
      boxes.push([box[0] + i * side, box[1] + j * side, box[0] + (i + 1) * side, box[1] + (j + 1) * side]);
    }
  }
  return { bytes: out, n, floats, ranks: oranks, starts, boxes, top: n ? ranks[n - 1] : -1 };
}

// The frame's threshold P: the largest P <= `frontier` whose prefixes of rank < P, over the cells of the
// tiles in `drawn` that meet `box`, put at most `most.seen` points on the screen (a cell's prefix times
// the share of its box in view) and `most.all` in all (both grow with P: a binary search). Gives each
// tile its spans ([[first, count], ...]: the draw calls) and count (their sum).
// -> { threshold: P, points: those drawn, calls: the spans }.
export function sample(drawn, box, most, frontier) {
  const parts = []; // [tile, first row of the cell, end of the cell, share of the cell's box in view]
  for (const t of drawn) {
    for (let c = 0; c < t.boxes.length; c++) {
      const share = overlap(t.boxes[c], box);
      if (share > 0 && t.starts[c + 1] > t.starts[c]) parts.push([t, t.starts[c], t.starts[c + 1], share]);
    }
  }
  const counts = (P) => parts.map(([t, first, end]) => below(t.ranks, P, first, end) - first);
  const fits = (P) => {
    const c = counts(P);
    return c.reduce((sum, k, i) => sum + k * parts[i][3], 0) <= most.seen && c.reduce((sum, k) => sum + k, 0) <= most.all;
  };
  let low = 0, high = frontier; // fits(low) always (nothing drawn); the answer is in [low, high]
  while (low < high) {
    const mid = low + Math.ceil((high - low) / 2);
    if (fits(mid)) low = mid;
    else high = mid - 1;
  }
  for (const t of drawn) Object.assign(t, { spans: [], count: 0 });
  let points = 0, calls = 0;
  counts(low).forEach((k, i) => {
    if (!k) return;
    const [t, first] = parts[i];
    t.spans.push([first, k]);
    t.count += k;
    points += k;
    calls++;
  });
  return { threshold: low, points, calls };
}

// The share of box `b` ([x0, y0, x1, y1]) inside `box`: 0 where they do not meet.
export function overlap(b, box) {
  const w = Math.min(b[2], box[2]) - Math.max(b[0], box[0]), h = Math.min(b[3], box[3]) - Math.max(b[1], box[1]);
  return w > 0 && h > 0 ? (w * h) / ((b[2] - b[0]) * (b[3] - b[1])) : 0;
}

// How many of ranks[first..end), ascending, are below P, plus `first`: the end of the prefix of rank < P.
function below(ranks, P, first, end) {
  let low = first, high = end;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (ranks[mid] < P) low = mid + 1;
    else high = mid;
  }
  return low;
}
