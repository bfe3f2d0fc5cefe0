// Patches: a photograph cut into P×P squares; click one for its flattened pixels and its embedding.
import { el, field, get, guard, plot, bars } from "./api.js";

const SCALE = 2; // canvas pixels per image pixel
const CHANNELS = [["red", "#d64545"], ["green", "#3a9b4f"], ["blue", "#2f6fde"]];

export async function render(root) {
  const opts = await get("/api/patches/options");
  const size = opts.size;
  const choose = (id, values, value) => {
    const select = el("select", { id }, ...values.map((v) => el("option", { value: v }, String(v))));
    select.value = String(value);
    return select;
  };
  const image = choose("patch-image", opts.images, opts.images[0]);
  const patchSize = choose("patch-size", opts.patch_sizes, 16);
  const dim = choose("patch-dim", opts.dims, opts.dims[0]);
  const canvas = el("canvas", { id: "patch-canvas", class: "image", width: size * SCALE, height: size * SCALE });
  const counts = el("div", { id: "patch-count", class: "stat" });
  const info = el("p", { id: "patch-info", class: "stat" });
  const zoom = el("canvas", { id: "patch-zoom", class: "image", width: 128, height: 128 });
  const pixelsPlot = el("div", { id: "patch-pixels", class: "plot" });
  const embeddingPlot = el("div", { id: "patch-embedding", class: "plot" });
  const plots = el("div", { class: "grid2" }, pixelsPlot, embeddingPlot);
  const out = el("div", {}, info, plots);
  root.append(
    el("h2", {}, "Patches"),
    el("p", {}, "A vision transformer reads an image as a sequence: it cuts the picture into P×P squares, lists " +
      "each square's pixels as one vector of P·P·3 numbers, and sends every vector through the same linear map " +
      "to D numbers. Smaller patches keep more detail but lengthen the sequence, and attention compares every " +
      "patch with every other, so its cost grows with the square of the count. Click a patch to see both vectors."),
    el("div", { class: "controls" }, field("photograph", image), field("patch size P", patchSize),
      field("embedding width D", dim)),
    el("div", { class: "grid2" }, el("div", {}, canvas),
      el("div", {}, counts, el("p", { class: "note" }, "Selected patch, redrawn from the returned pixels:"), zoom)),
    out);

  const ctx = canvas.getContext("2d");
  let photo = null;
  let selected = { x: size / 2, y: size / 2 }; // an image point; the patch under it is shown
  let grid = null;

  const draw = (patch) => {
    const P = grid.patch_size;
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
    if (patch) {
      ctx.strokeStyle = "#ffd400";
      ctx.lineWidth = 3;
      ctx.strokeRect(patch.left * SCALE + 1.5, patch.top * SCALE + 1.5, P * SCALE - 3, P * SCALE - 3);
    }
  };

  // The zoom is painted from the API's flattened pixels, read back in their (C, P, P) order.
  const paintZoom = (pixels, P) => {
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
  };

  let latest = 0; // quick clicks: only the newest request's answer is drawn
  const showPatch = () => guard(out, async () => {
    const ticket = ++latest;
    const P = grid.patch_size;
    const row = Math.min(Math.floor(selected.y / P), grid.grid[0] - 1);
    const col = Math.min(Math.floor(selected.x / P), grid.grid[1] - 1);
    const r = await get("/api/patches/patch", { image: image.value, size, patch_size: P, dim: dim.value, row, col });
    if (ticket !== latest) return;
    out.replaceChildren(info, plots); // back in place if an earlier request failed
    draw(r);
    paintZoom(r.pixels, P);
    info.textContent = `Patch ${r.index} (row ${r.row}, column ${r.col}): pixels y ${r.top}–${r.top + P - 1}, ` +
      `x ${r.left}–${r.left + P - 1}; ${r.pixels.length} numbers in ${r.order} order, each in [0, 1].`;
    const n = P * P;
    plot(pixelsPlot, CHANNELS.map(([name, color], c) => ({
      type: "bar", name, marker: { color }, x: r.pixels.slice(c * n, (c + 1) * n).map((_, i) => c * n + i),
      y: r.pixels.slice(c * n, (c + 1) * n),
    })), { title: { text: `flattened pixels (${r.pixels.length})` }, bargap: 0, yaxis: { range: [0, 1] },
      legend: { orientation: "h" } });
    bars(embeddingPlot, r.embedding, { title: `embedding from PatchEmbedding (D = ${r.dim}, fresh, seed ${r.seed})`,
      color: "#7a4fd6" });
  });

  const update = () => guard(counts, async () => {
    grid = await get("/api/patches/tiling", { size, patch_size: patchSize.value, dim: dim.value });
    const P = grid.patch_size;
    counts.replaceChildren(
      el("p", { id: "patch-n" }, `${size}×${size} pixels ÷ ${P}: ${grid.grid[0]} × ${grid.grid[1]} = ` +
        `${grid.num_patches.toLocaleString()} patches`),
      el("p", {}, `attention scores per head and layer: N² = ${grid.attention_scores.toLocaleString()}`),
      el("p", {}, `each patch: ${P}·${P}·3 = ${grid.patch_dim.toLocaleString()} numbers → D = ${grid.dim}`),
      el("p", {}, `projection: ${grid.projection_params.toLocaleString()} parameters (weights and biases)`));
    await showPatch();
  });

  const loadPhoto = async () => {
    photo = new Image();
    photo.src = `/api/patches/image.png?${new URLSearchParams({ image: image.value, size })}`;
    await photo.decode();
  };

  canvas.addEventListener("click", (event) => {
    const box = canvas.getBoundingClientRect();
    selected = { x: ((event.clientX - box.left) / box.width) * size, y: ((event.clientY - box.top) / box.height) * size };
    showPatch();
  });
  image.addEventListener("change", async () => { await loadPhoto(); await showPatch(); });
  patchSize.addEventListener("change", update);
  dim.addEventListener("change", showPatch);
  await loadPhoto();
  await update();
}
