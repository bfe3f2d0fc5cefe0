// What the tiled map draws over its points, on a 2-D canvas redrawn with every frame: the density
// contours and region labels of the overlays in view (/api/projector/overlay: each tile's contours are
// lines in map units, computed over every row in its box), rings on the search hits, and a clicked
// point linked to its nearest rows in the table's own space, each link labelled with its cosine.
// Labels never overlap: the most populous regions are placed first, and a label whose box meets one
// placed before it (or leaves the canvas) is left out; the map's own zoom shows it when there is room.
// `placed` keeps what the last frame drew ([{ text, box: [left, top, right, bottom] }] in CSS pixels of
// the canvas, and the kind: region, cosine or key) for the tests.

const css = getComputedStyle(document.documentElement);
const colour = (name) => css.getPropertyValue(`--${name}`).trim();
const FONT = "12px system-ui, sans-serif";
const SMALL = "11px system-ui, sans-serif";
const RING_PX = 5; // a search hit's ring
const FOCUS_PX = 5; // the clicked point's dot
const LINE_PX = 15; // a label's line height
const PAD = 2; // px around a label's box kept free of other labels
// Where a small label may sit around its point (x, y: -1 left or up, 1 right or down), in order.
const SIDES = [[1, 0], [0, -1], [-1, 0], [0, 1], [1, -1], [-1, -1], [1, 1], [-1, 1]];

export class Overlay {
  constructor(canvas) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.placed = [];
  }

  // One frame. `map` (the View) gives screen(x, y), width, height and ratio; `overlays` are /overlay answers,
  // `levels` the contours' density thresholds (ascending), `hits` { points } or null, `focus` the
  // /neighbours answer of the clicked row or null.
  draw(map, { overlays, levels, hits, focus }) {
    const { ctx } = this;
    ctx.setTransform(map.ratio, 0, 0, map.ratio, 0, 0);
    ctx.clearRect(0, 0, map.width, map.height);
    this.placed = [];
    this.map = map;
    this.contours(overlays, levels ?? []);
    if (hits) this.rings(hits.points, colour("warm"), RING_PX, 1.5);
    if (focus) this.links(focus);
    this.labels(overlays);
  }

  // Each level's lines a little darker than the one below it.
  contours(overlays, levels) {
    const { ctx, map } = this;
    ctx.lineWidth = 1;
    ctx.strokeStyle = colour("muted");
    for (const overlay of overlays) {
      for (const { level, lines } of overlay.contours) {
        const rank = Math.max(0, levels.indexOf(level));
        ctx.globalAlpha = 0.2 + (0.45 * (rank + 1)) / Math.max(1, levels.length);
        ctx.beginPath();
        for (const line of lines) {
          for (let i = 0; i + 1 < line.length; i += 2) {
            const [x, y] = map.screen(line[i], line[i + 1]);
            if (i === 0) ctx.moveTo(x, y);
            else ctx.lineTo(x, y);
          }
        }
        ctx.stroke();
      }
    }
    ctx.globalAlpha = 1;
  }

  rings(points, stroke, radius, width) {
    const { ctx, map } = this;
    ctx.strokeStyle = stroke;
    ctx.lineWidth = width;
    ctx.beginPath();
    for (const [x, y] of points) {
      const [px, py] = map.screen(x, y);
      if (px < -radius || py < -radius || px > map.width + radius || py > map.height + radius) continue;
      ctx.moveTo(px + radius, py);
      ctx.arc(px, py, radius, 0, 2 * Math.PI);
    }
    ctx.stroke();
  }

  // The clicked row's links to its neighbours, their rings, and the cosines beside them.
  links(focus) {
    const { ctx, map } = this;
    const [fx, fy] = map.screen(...focus.point);
    ctx.strokeStyle = colour("accent");
    ctx.globalAlpha = 0.75;
    ctx.lineWidth = 1.25;
    ctx.beginPath();
    for (const nb of focus.neighbours) {
      ctx.moveTo(fx, fy);
      ctx.lineTo(...map.screen(...nb.point));
    }
    ctx.stroke();
    ctx.globalAlpha = 1;
    this.rings(focus.neighbours.map((nb) => nb.point), colour("ink"), RING_PX + 1.5, 3);
    this.rings(focus.neighbours.map((nb) => nb.point), colour("highlight"), RING_PX + 1.5, 1.5);
    ctx.fillStyle = colour("ink");
    ctx.beginPath();
    ctx.arc(fx, fy, FOCUS_PX, 0, 2 * Math.PI);
    ctx.fill();
    this.text(focus.key, fx, fy, FOCUS_PX, FONT, "key");
    for (const nb of focus.neighbours) this.text(nb.cosine.toFixed(3), ...map.screen(...nb.point), RING_PX + 2, SMALL,
      "cosine");
  }

  // The regions' labels, the most rows first, centred on their points; none twice.
  labels(overlays) {
    const seen = new Set();
    const all = overlays.flatMap((o) => o.labels).sort((a, b) => b.rows - a.rows);
    for (const label of all) {
      const key = `${label.text}@${label.x},${label.y}`;
      if (seen.has(key)) continue;
      seen.add(key);
      this.text(label.text, ...this.map.screen(label.x, label.y), 0, FONT, "region", true);
    }
  }

  // Write `text` near (x, y): centred on it when `centred`, else on the first side, `gap` px off, where
  // its box is free. -> whether it was written.
  text(text, x, y, gap, font, kind, centred = false) {
    const { ctx, map } = this;
    ctx.font = font;
    const w = ctx.measureText(text).width + 2 * PAD, h = LINE_PX;
    const spots = centred ? [[0, 0]] : SIDES;
    for (const [sx, sy] of spots) {
      const left = x + (sx === 0 ? -w / 2 : sx > 0 ? gap : -gap - w);
      const top = y + (sy === 0 ? -h / 2 : sy > 0 ? gap : -gap - h);
      const box = [left, top, left + w, top + h];
      const inside = box[0] >= 0 && box[1] >= 0 && box[2] <= map.width && box[3] <= map.height;
      if (!inside || this.placed.some((p) => meets(p.box, box))) continue;
      this.placed.push({ text, box, kind });
      ctx.textBaseline = "middle";
      ctx.textAlign = "left";
      ctx.lineJoin = "round";
      ctx.lineWidth = 3;
      ctx.strokeStyle = "rgba(255, 255, 255, 0.9)"; // a halo: the label stays readable over dense points
      ctx.strokeText(text, left + PAD, top + h / 2);
      ctx.fillStyle = colour("ink");
      ctx.fillText(text, left + PAD, top + h / 2);
      return true;
    }
    return false;
  }
}

const meets = (a, b) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
