// Where the tiled map looks, and how a pointer moves it: a centre in map units and a scale (CSS pixels
// per map unit; the same on both axes, y up on the map and down on the screen). A drag pans, the wheel
// zooms around the pointer, a press that hardly moved is a click. projector_map.js draws what it shows.

const CLICK_PX = 4; // a press that moves less than this is a click, not a drag
const WHEEL = 0.002; // zoom factor per unit of wheel delta: e^(0.002 * 100) = 1.22 a notch
const FIT = 0.96; // the whole map: its square fills this share of the view's smaller side
const OUT = 4; // zoomed out at most this far past the whole map
const IN = 10; // zoomed in at most 2^IN past the scale at which the tree's deepest tiles fill the view

export class View {
  constructor() {
    this.cx = 0; // the view's centre, in map units
    this.cy = 0;
    this.scale = 1; // CSS px per map unit
    this.width = 1; // the canvas, CSS px
    this.height = 1;
    this.ratio = 1; // device px per CSS px
  }

  // The map's square `bounds` [x0, y0, x1, y1] and its tree's depth, for fit() and the zoom's limits.
  frame(bounds, depth) {
    this.bounds = bounds;
    this.side = bounds[2] - bounds[0];
    this.depth = depth;
  }

  // Show the whole map.
  fit() {
    const [x0, y0, x1, y1] = this.bounds;
    Object.assign(this, { cx: (x0 + x1) / 2, cy: (y0 + y1) / 2, scale: this.fitted() * FIT });
  }

  fitted() {
    return Math.min(this.width, this.height) / this.side;
  }

  // Centre on `point` with `share` of the map's width across the smaller side.
  centre(point, share) {
    Object.assign(this, { cx: point[0], cy: point[1], scale: this.fitted() / share });
  }

  // Zoom by `factor` around CSS pixel `at` ([x, y] in the canvas; the centre when null): the map point
  // under it stays under it.
  zoomAt(at, factor) {
    const fitted = this.fitted();
    const scale = Math.min(Math.max(this.scale * factor, fitted / OUT), fitted * 2 ** (this.depth + IN));
    const [px, py] = at ?? [this.width / 2, this.height / 2];
    const [mx, my] = this.toMap(px, py);
    Object.assign(this, { scale, cx: mx - (px - this.width / 2) / scale, cy: my + (py - this.height / 2) / scale });
  }

  toMap(px, py) {
    return [this.cx + (px - this.width / 2) / this.scale, this.cy - (py - this.height / 2) / this.scale];
  }

  // A map point -> CSS pixels in the canvas.
  screen(x, y) {
    return [this.width / 2 + (x - this.cx) * this.scale, this.height / 2 - (y - this.cy) * this.scale];
  }

  // The view's box in map units [x0, y0, x1, y1], and its zoom level z = floor(log2(map width / view
  // width)) (the view's larger side), from 0 (the whole map) to the tree's depth.
  extent() {
    const [x0, y1] = this.toMap(0, 0), [x1, y0] = this.toMap(this.width, this.height);
    const z = Math.floor(Math.log2(this.side / Math.max(x1 - x0, y1 - y0)));
    return { box: [x0, y0, x1, y1], z: Math.min(Math.max(z, 0), this.depth) };
  }

  // How many times deeper than its deepest tiles the view looks (0 or less: the tree still adds rows).
  past() {
    return Math.log2(this.side * this.scale / Math.max(this.width, this.height)) - this.depth - 1;
  }
}

// Follow the pointer on `canvas`: a drag pans `view`, the wheel zooms it; `moved()` after each change,
// `clicked(px, py)` after a click (CSS pixels in the canvas).
export function steer(canvas, view, { moved, clicked }) {
  let press = null;
  canvas.addEventListener("pointerdown", (e) => {
    press = { x: e.clientX, y: e.clientY, cx: view.cx, cy: view.cy, far: 0 };
    canvas.setPointerCapture(e.pointerId);
  });
  canvas.addEventListener("pointermove", (e) => {
    if (!press) return;
    const dx = e.clientX - press.x, dy = e.clientY - press.y;
    press.far = Math.max(press.far, Math.hypot(dx, dy));
    if (press.far < CLICK_PX) return;
    Object.assign(view, { cx: press.cx - dx / view.scale, cy: press.cy + dy / view.scale });
    moved();
  });
  canvas.addEventListener("pointerup", (e) => {
    const click = press && press.far < CLICK_PX;
    press = null;
    if (click) clicked(e.offsetX, e.offsetY);
  });
  canvas.addEventListener("pointercancel", () => { press = null; });
  canvas.addEventListener("wheel", (e) => {
    e.preventDefault(); // the page would scroll too
    view.zoomAt([e.offsetX, e.offsetY], Math.exp(-e.deltaY * WHEEL));
    moved();
  }, { passive: false });
}
