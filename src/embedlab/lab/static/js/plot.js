// Plotly with the lab's look. Colours are lab.css's custom properties (--accent, --token, ...);
// the theme groups' colours come from the API (config().themes).
//
// plotly.min.js (4.8 MB, served gzipped) is loaded in the background when main.js opens a page that
// plots (every page but one that exports `usesPlotly = false`: the 2-D projector draws with its own
// WebGL), not in the page's <head>: the page's first API calls go out at once instead of after it
// has been fetched and parsed, and a plot waits for it only if it has not arrived yet.

let loading = null;
// The Plotly global, once plotly.min.js has run (the first call adds its <script>).
export function plotly() {
  loading ??= new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = "/static/vendor/plotly.min.js";
    script.async = true;
    script.onload = () => resolve(window.Plotly);
    script.onerror = () => reject(new Error("plotly.min.js could not be loaded"));
    document.head.append(script);
  });
  return loading;
}

const css = getComputedStyle(document.documentElement);
// The colour lab.css names `--${name}`.
export const colour = (name) => css.getPropertyValue(`--${name}`).trim();

// An axis grows its margin to fit its tick labels and title, so a long or tilted label is never cut off at
// the chart's edge; a page's own axis settings add to this. A map (one axis scale-anchored to the other)
// keeps fixed margins: between frames its points move only because their rows did, not because a tick
// label changed width.
const isMap = (layout) => Boolean(layout.xaxis?.scaleanchor || layout.yaxis?.scaleanchor);
const axis = (own = {}, fixed = false) => (fixed ? own : { automargin: true, ...own });
// A title hangs from the top edge, its glyphs wholly inside the chart (centred in the margin, a tall
// letter would poke out of it).
const title = (own) => ({ yref: "container", y: 1, yanchor: "top", pad: { t: 6 }, ...(typeof own === "string" ? { text: own } : own) });

// Draw (or redraw) a plotly chart in `div`; `layout` adds to the defaults (to its margin and axes too).
// -> a promise of the div, drawn (await it before binding the div's plotly events: plotly gives it .on()
// once it has drawn).
export async function plot(div, traces, layout = {}) {
  return (await plotly()).react(div, traces, {
    font: { family: "system-ui, sans-serif", size: 12 }, paper_bgcolor: "rgba(0,0,0,0)",
    plot_bgcolor: "rgba(0,0,0,0)", ...layout, margin: { l: 50, r: 20, t: 30, b: 40, ...layout.margin },
    xaxis: axis(layout.xaxis, isMap(layout)), yaxis: axis(layout.yaxis, isMap(layout)),
    ...(layout.title && { title: title(layout.title) }),
  }, { responsive: true, displaylogo: false });
}

// A bar chart of `values` (one bar each, labelled by `labels` or by index).
export function bars(div, values, { labels, title = "", color = colour("accent"), layout = {} } = {}) {
  const x = labels ?? values.map((_, i) => i);
  return plot(div, [{ type: "bar", x, y: values, marker: { color } }], { title: { text: title }, ...layout });
}

// Bars side by side: `series` is [{name, y, color}], all over the same `x`.
export function grouped(div, x, series, layout = {}) {
  return plot(div, series.map(({ name, y, color }) => ({ type: "bar", name, x, y, marker: { color } })),
    { barmode: "group", legend: { orientation: "h", y: -0.3 }, ...layout });
}

// A heat map of signed values (rows × columns) centred on zero: exactly zero is white.
export function heat(div, z, { y, x, title = "", hover = "%{y}, column %{x}: %{z:.4f}", layout = {} } = {}) {
  const limit = Math.max(1e-9, ...z.flat().map(Math.abs));
  const scale = [[0, colour("negative")], [0.5, "white"], [1, colour("positive")]];
  return plot(div, [{ type: "heatmap", z, y, x, colorscale: scale, zmin: -limit, zmax: limit,
    hovertemplate: `${hover}<extra></extra>` }],
  { title: { text: title }, yaxis: { autorange: "reversed", type: "category" },
    xaxis: { title: { text: "column" } }, ...layout });
}

// The colour of theme group `name` (config().themes); the looked-up word's own group is ink.
export function themeColour(themes, name) {
  if (name === themes.chosen) return colour("ink");
  return themes.colours[name] ?? themes.colours[themes.other];
}

// Labels that do not pile up: `points` [{x, y, text, radius}] in the axes' units (radius: the marker's, in
// pixels, if not `radius`), the most important first. Each label goes to the first of the places around
// its point (above, below, right, left, then the diagonals; then the same a little farther out, with a
// line to its point) where its box meets no label placed before it, no point, no line and no edge of the
// plot area; a label with no such place is left out (its point still names itself on hover). Drawn as
// annotations once `div`'s plot has fixed its axes (await plot() first): -> a promise of the labels.
const LABEL_SIDES = [[0, -1], [0, 1], [1, 0], [-1, 0], [1, -1], [-1, -1], [1, 1], [-1, 1]]; // (x, y), y down
const LEADER = 16; // px between a point and a label placed farther out, bridged by a line
const measure = document.createElement("canvas").getContext("2d");
// plotly reads an annotation's text as its own small HTML: a key such as "<un" must be escaped
const escaped = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
export async function labelPoints(div, points, { size = 11, radius = 5, gap = 2 } = {}) {
  const { _size: area, xaxis, yaxis } = div._fullLayout; // plot area in pixels; the axes' ranges as drawn
  const scale = (range, span) => (v) => ((v - range[0]) / (range[1] - range[0])) * span;
  const px = scale(xaxis.range, area.w), py = (v) => area.h - scale(yaxis.range, area.h)(v); // y grows down
  measure.font = `${size}px system-ui, sans-serif`;
  const h = Math.ceil(size * 1.25) + gap;
  const square = (x, y, r) => ({ x: x - r, y: y - r, w: 2 * r, h: 2 * r });
  const dots = points.map((p) => square(px(p.x), py(p.y), p.radius ?? radius));
  const meets = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
  const inside = (b) => b.x >= 0 && b.y >= 0 && b.x + b.w <= area.w && b.y + b.h <= area.h;
  const taken = []; // the boxes of the labels placed, and small squares along their lines
  const annotations = [];
  points.forEach((p, i) => {
    const w = Math.ceil(measure.measureText(p.text).width) + gap, cx = px(p.x), cy = py(p.y);
    const r = p.radius ?? radius;
    for (const far of [0, LEADER]) {
      for (const [sx, sy] of LABEL_SIDES) {
        const dx = sx * (r + far + w / 2), dy = sy * (r + far + h / 2); // the box's centre, from the point
        const box = { x: cx + dx - w / 2, y: cy + dy - h / 2, w, h };
        // a line: squares along it, from the marker's edge to the box's, that nothing else may cross
        const line = far ? [0.3, 0.55, 0.8].map((t) => square(cx + t * (dx - sx * w / 2), cy + t * (dy - sy * h / 2), 1.5)) : [];
        const clear = (b) => !taken.some((t) => meets(b, t)) && !dots.some((d, j) => j !== i && meets(b, d));
        if (!inside(box) || !clear(box) || !line.every(clear)) continue;
        taken.push(box, ...line);
        const at = far ? { showarrow: true, ax: dx, ay: dy, arrowhead: 0, arrowwidth: 1, arrowcolor: colour("muted"),
          standoff: r } : { showarrow: false, xshift: dx, yshift: -dy };
        annotations.push({ x: p.x, y: p.y, xref: "x", yref: "y", text: escaped(p.text), xanchor: "center",
          yanchor: "middle", font: { size }, captureevents: false, ...at });
        return;
      }
    }
  });
  await (await plotly()).relayout(div, { annotations });
  return annotations;
}
