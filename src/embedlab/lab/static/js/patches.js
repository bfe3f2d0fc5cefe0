// Patches: a photograph cut into P×P squares; click one for its flattened pixels and its embedding.
// A heat map over the same grid shows each patch's pixel variance: flat sky low, edges high.
import { el, field, num, select } from "./dom.js";
import { get, latest } from "./http.js";
import { bars, colour, plot } from "./plot.js";

const SCALE = 2; // canvas pixels per image pixel
const CHANNELS = ["red", "green", "blue"]; // patchify's (C, P, P) order; each drawn in lab.css's --red, ...

export async function render(root) {
  const options = await get("/api/patches/options");
  const page = build(root, options);
  const patchView = latest(() => loadPatch(page), (r) => drawPatch(page, r), page.error);
  const varianceView = latest(() => loadVariance(page), (v) => drawVariance(page, v), page.varianceNote);
  const both = () => Promise.all([varianceView(), patchView()]);
  const tilingView = latest(() => loadTiling(page), (g) => { drawCounts(page, g); return both(); }, page.counts);
  page.canvas.addEventListener("click", (event) => {
    const box = page.canvas.getBoundingClientRect();
    page.selected = { x: ((event.clientX - box.left) / box.width) * page.size,
      y: ((event.clientY - box.top) / box.height) * page.size };
    patchView();
  });
  page.image.addEventListener("change", async () => { await loadPhoto(page); await both(); });
  page.patchSize.addEventListener("change", tilingView);
  page.dim.addEventListener("change", patchView);
  await loadPhoto(page);
  await tilingView();
}

function build(root, options) {
  const size = options.size;
  const page = {
    size,
    photo: null,
    grid: null, // the tiling of the patch size shown
    selected: { x: size / 2, y: size / 2 }, // an image point; the patch under it is shown
    image: select("patch-image", options.images),
    patchSize: select("patch-size", options.patch_sizes, 16),
    dim: select("patch-dim", options.dims),
    canvas: el("canvas", { id: "patch-canvas", class: "image", width: size * SCALE, height: size * SCALE }),
    counts: el("div", { id: "patch-count", class: "stat" }),
    info: el("p", { id: "patch-info", class: "stat" }),
    error: el("div", { id: "patch-error" }),
    zoom: el("canvas", { id: "patch-zoom", class: "image", width: 128, height: 128 }),
    pixels: el("div", { id: "patch-pixels", class: "plot" }),
    embedding: el("div", { id: "patch-embedding", class: "plot" }),
    variance: el("div", { id: "patch-variance", class: "plot" }),
    varianceNote: el("p", { id: "patch-variance-note", class: "stat" }),
  };
  root.append(
    el("h2", {}, "Patches"),
    el("p", {}, "A vision transformer reads an image as a sequence: it cuts the picture into P×P squares, lists " +
      "each square's pixels as one vector of P·P·3 numbers, and sends every vector through the same linear map " +
      "to D numbers. Smaller patches keep more detail but lengthen the sequence, and attention compares every " +
      "patch with every other, so its cost grows with the square of the count. Click a patch to see both vectors."),
    el("div", { class: "controls" }, field("photograph", page.image), field("patch size P", page.patchSize),
      field("embedding width D", page.dim)),
    el("div", { class: "grid2" }, el("div", {}, page.canvas),
      el("div", {}, page.counts, el("p", { class: "note" }, "Selected patch, redrawn from the returned pixels:"),
        page.zoom)),
    page.error, page.info, el("div", { class: "grid2" }, page.pixels, page.embedding),
    el("h3", {}, "Pixel variance per patch"),
    el("p", {}, "The variance of each patch's P·P pixels, channel by channel, averaged over red, green and blue. " +
      "A patch of clear sky holds nearly one colour, so its " +
      "vector is close to a constant and says little; a patch crossed by an edge or a texture spreads its numbers " +
      "out, and its vector carries more for the projection to pick up."),
    el("div", { class: "grid2" }, page.variance, page.varianceNote));
  return page;
}

async function loadPhoto(page) {
  page.photo = new Image();
  page.photo.src = `/api/patches/image.png?${new URLSearchParams({ image: page.image.value, size: page.size })}`;
  await page.photo.decode();
}

const loadTiling = (page) =>
  get("/api/patches/tiling", { size: page.size, patch_size: page.patchSize.value, dim: page.dim.value });

function drawCounts(page, g) {
  page.grid = g;
  const [P, size] = [g.patch_size, page.size];
  page.counts.replaceChildren(
    el("p", { id: "patch-n" }, `${size}×${size} pixels ÷ ${P}: ${g.grid[0]} × ${g.grid[1]} = ` +
      `${num(g.num_patches)} patches`),
    el("p", {}, `attention scores per head and layer: N² = ${num(g.attention_scores)}`),
    el("p", {}, `each patch: ${P}·${P}·3 = ${num(g.patch_dim)} numbers → D = ${g.dim}`),
    el("p", {}, `projection: ${num(g.projection_params)} parameters (weights and biases)`));
}

const loadVariance = (page) =>
  get("/api/patches/variance", { image: page.image.value, size: page.size, patch_size: page.patchSize.value });

// The API's (H/P, W/P) variances over the patch grid, row 0 at the top as in the photograph.
function drawVariance(page, v) {
  const { lowest: lo, highest: hi } = v;
  const times = lo.variance > 0 ? `, ${num(hi.variance / lo.variance)} times the lowest` : "";
  page.varianceNote.textContent = `Lowest variance: the patch at row ${lo.row}, column ${lo.col} ` +
    `(${lo.variance.toPrecision(2)}); highest: row ${hi.row}, column ${hi.col} (${hi.variance.toPrecision(2)}${times}).`;
  return plot(page.variance, [{ type: "heatmap", z: v.variance, colorscale: [[0, "white"], [1, colour("positive")]],
    zmin: 0, hovertemplate: "row %{y}, column %{x}: %{z:.5f}<extra></extra>" }],
  { title: { text: `pixel variance, P = ${v.patch_size}` }, yaxis: { autorange: "reversed", scaleanchor: "x" },
    xaxis: { title: { text: "column" }, constrain: "domain" } });
}

function loadPatch(page) {
  const { grid, selected } = page;
  const P = grid.patch_size;
  const row = Math.min(Math.floor(selected.y / P), grid.grid[0] - 1);
  const col = Math.min(Math.floor(selected.x / P), grid.grid[1] - 1);
  return get("/api/patches/patch", { image: page.image.value, size: page.size, patch_size: P, dim: page.dim.value,
    row, col });
}

function drawPatch(page, r) {
  const [P, patch] = [r.patch_size, r.patch];
  drawGrid(page, P, patch);
  paintZoom(page.zoom, patch.pixels, P);
  page.info.textContent = `Patch ${num(patch.index)} (row ${patch.row}, column ${patch.col}): pixels ` +
    `y ${patch.top}–${patch.top + P - 1}, x ${patch.left}–${patch.left + P - 1}; ${num(patch.pixels.length)} numbers ` +
    `in ${r.order} order, each in [0, 1].`;
  const n = P * P;
  plot(page.pixels, CHANNELS.map((name, c) => ({
    type: "bar", name, marker: { color: colour(name) }, x: patch.pixels.slice(c * n, (c + 1) * n).map((_, i) => c * n + i),
    y: patch.pixels.slice(c * n, (c + 1) * n),
  })), { title: { text: `flattened pixels (${num(patch.pixels.length)})` }, bargap: 0, yaxis: { range: [0, 1] },
    xaxis: { title: { text: "place in the patch's vector" } }, legend: { orientation: "h", y: -0.35 } });
  bars(page.embedding, patch.embedding, { title: `embedding from PatchEmbedding (D = ${r.dim}, fresh, seed ${r.seed})`,
    color: colour("violet"), layout: { xaxis: { title: { text: "dimension" } } } });
}

// The photograph with the P × P grid over it and `patch` outlined.
function drawGrid(page, P, patch) {
  const { canvas, photo, size } = page;
  const ctx = canvas.getContext("2d");
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(photo, 0, 0, canvas.width, canvas.height);
  ctx.strokeStyle = "rgba(255, 255, 255, 0.75)";
  ctx.lineWidth = 1;
  ctx.beginPath();
  for (let k = 1; k < size / P; k++) {
    ctx.moveTo(k * P * SCALE + 0.5, 0); ctx.lineTo(k * P * SCALE + 0.5, canvas.height);
    ctx.moveTo(0, k * P * SCALE + 0.5); ctx.lineTo(canvas.width, k * P * SCALE + 0.5);
  }
  ctx.stroke();
  ctx.strokeStyle = colour("highlight");
  ctx.lineWidth = 3;
  ctx.strokeRect(patch.left * SCALE + 1.5, patch.top * SCALE + 1.5, P * SCALE - 3, P * SCALE - 3);
}

// The zoom is painted from the API's flattened pixels, read back in their (C, P, P) order.
function paintZoom(zoom, pixels, P) {
  const small = new ImageData(P, P);
  for (let y = 0; y < P; y++) {
    for (let x = 0; x < P; x++) {
      for (let c = 0; c < 3; c++) small.data[4 * (y * P + x) + c] = Math.round(255 * pixels[c * P * P + y * P + x]);
      small.data[4 * (y * P + x) + 3] = 255;
    }
  }
  const buffer = el("canvas", { width: P, height: P });
  buffer.getContext("2d").putImageData(small, 0, 0);
  const z = zoom.getContext("2d");
  z.imageSmoothingEnabled = false;
  z.drawImage(buffer, 0, 0, zoom.width, zoom.height);
}
