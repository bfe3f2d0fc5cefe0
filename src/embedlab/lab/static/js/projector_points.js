// The tiled map's points in WebGL (projector_map.js decides which tiles to draw and where the view is).
// A tile's bytes go into one GL buffer, in the order projector_cells.js gives them (by cell, then rank):
// x, y float32 pairs (8n bytes), rows uint32 (4n, unused here but not worth a copy to cut out), then
// one colour value per point (uint8 codes or float32 values). A tile is one drawArrays(POINTS) call per
// span of its points (a cell's prefix: projector_cells.js says which), its attributes read at their byte
// offsets; a point is a round sprite whose size and colour the vertex shader picks. GLSL ES 1.00, so the
// same program runs on WebGL2 and WebGL1, and on chromium's software renderer (SwiftShader).

export const CODES = 32; // the most colour codes a categorical scheme may have (the theme groups: about 10)
const RAMP = ["#440154", "#3b528b", "#21918c", "#5ec962", "#fde725"]; // viridis at 0, 1/4, 1/2, 3/4, 1
const MISSING = -1e30; // a float value stands for "none" (NaN on the wire: GLSL cannot test for NaN reliably)

const VERTEX = `
attribute vec2 a_xy;
attribute float a_value;
uniform vec2 u_centre;      // the view's centre, in map units
uniform vec2 u_scale;       // clip units per map unit, x and y
uniform float u_size;       // a point's diameter in device pixels
uniform bool u_codes;       // true: a_value is a colour code; false: a value on the ramp
uniform vec4 u_palette[${CODES}];
uniform vec2 u_range;       // the values at the ramp's two ends
uniform vec3 u_ramp[${RAMP.length}];
uniform vec4 u_missing;     // a point with no value
varying vec4 v_colour;
void main() {
  gl_Position = vec4((a_xy - u_centre) * u_scale, 0.0, 1.0);
  gl_PointSize = u_size;
  if (u_codes) {
    // subtle: a vertex shader may index a uniform array with a computed index (GLSL ES 1.00, appendix A)
    v_colour = u_palette[int(clamp(a_value, 0.0, ${CODES - 1}.0) + 0.5)];
    if (v_colour.a < 0.5) gl_PointSize = max(1.0, u_size * 0.7); // the faint background code: smaller too
  } else if (a_value < ${MISSING / 10}) {
    v_colour = u_missing;
  } else {
    float t = clamp((a_value - u_range.x) / max(u_range.y - u_range.x, 1e-12), 0.0, 1.0) * ${RAMP.length - 1}.0;
    int i = int(min(floor(t), ${RAMP.length - 2}.0));
    v_colour = vec4(mix(u_ramp[i], u_ramp[i + 1], t - float(i)), 0.85);
  }
}`;

const FRAGMENT = `
precision mediump float;
varying vec4 v_colour;
void main() {
  vec2 d = gl_PointCoord - 0.5;
  if (dot(d, d) > 0.25) discard;  // a disc, not the sprite's square
  gl_FragColor = vec4(v_colour.rgb * v_colour.a, v_colour.a);  // premultiplied, as the canvas composites
}`;

// A CSS colour (any form the browser knows) -> [r, g, b, a] in 0..1, read back from a 1×1 canvas.
const probe = document.createElement("canvas").getContext("2d", { willReadFrequently: true });
export function rgba(css, alpha = 1) {
  probe.clearRect(0, 0, 1, 1);
  probe.fillStyle = css;
  probe.fillRect(0, 0, 1, 1);
  const [r, g, b, a] = probe.getImageData(0, 0, 1, 1).data;
  return [r / 255, g / 255, b / 255, (a / 255) * alpha];
}
export const RAMP_CSS = RAMP; // for the legend's gradient

export class Points {
  constructor(canvas) {
    const options = { alpha: true, antialias: false, depth: false, stencil: false, premultipliedAlpha: true };
    this.gl = canvas.getContext("webgl2", options) ?? canvas.getContext("webgl", options); // WebGL2 or 1
    if (!this.gl) throw new Error("this browser offers the page no WebGL, so the map cannot be drawn");
    const gl = this.gl;
    this.program = link(gl, VERTEX, FRAGMENT);
    this.at = Object.fromEntries(["a_xy", "a_value"].map((n) => [n, gl.getAttribLocation(this.program, n)]));
    this.u = Object.fromEntries(["u_centre", "u_scale", "u_size", "u_codes", "u_palette", "u_range", "u_ramp",
      "u_missing"].map((n) => [n, gl.getUniformLocation(this.program, n)]));
    gl.useProgram(this.program);
    gl.uniform3fv(this.u.u_ramp, RAMP.flatMap((c) => rgba(c).slice(0, 3)));
    gl.enable(gl.BLEND);
    gl.blendFunc(gl.ONE, gl.ONE_MINUS_SRC_ALPHA);
    gl.clearColor(0, 0, 0, 0);
    this.pixel = new Uint8Array(4); // finish()'s read-back
  }

  // A tile -> its GL buffer. `tile` is { bytes: ArrayBuffer, n, floats: the values are float32 }; a
  // float NaN ("no value") is rewritten in place first.
  upload(tile) {
    if (tile.floats) {
      const values = new Float32Array(tile.bytes, 12 * tile.n, tile.n);
      for (let i = 0; i < values.length; i++) if (Number.isNaN(values[i])) values[i] = MISSING;
    }
    const gl = this.gl;
    const buffer = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
    gl.bufferData(gl.ARRAY_BUFFER, tile.bytes, gl.STATIC_DRAW);
    return buffer;
  }

  release(buffer) {
    this.gl.deleteBuffer(buffer);
  }

  // How values become colours: { codes: true, palette: [[r, g, b, a], ...] } (a code's colour; alpha
  // under 0.5 marks the faint background code) or { codes: false, range: [lo, hi], missing: [r, g, b, a] }.
  colour({ codes, palette = [], range = [0, 1], missing = [0.8, 0.8, 0.8, 0.5] }) {
    const gl = this.gl;
    const flat = new Float32Array(4 * CODES);
    palette.slice(0, CODES).forEach((c, i) => flat.set(c, 4 * i));
    gl.uniform1i(this.u.u_codes, codes ? 1 : 0);
    gl.uniform4fv(this.u.u_palette, flat);
    gl.uniform2f(this.u.u_range, range[0], range[1]);
    gl.uniform4fv(this.u.u_missing, missing);
  }

  // Clear, then draw `tiles` ({ buffer, n, floats, spans }: spans [[first, count], ...] of its n points;
  // all n without spans) in order, later ones on top. `view` is { cx, cy,
  // scale (CSS px per map unit), width, height (device px), ratio (device px per CSS px), size (CSS px) }.
  draw(tiles, view) {
    const gl = this.gl;
    gl.viewport(0, 0, view.width, view.height);
    gl.clear(gl.COLOR_BUFFER_BIT);
    gl.uniform2f(this.u.u_centre, view.cx, view.cy);
    const perUnit = view.scale * view.ratio * 2; // device px per map unit, times 2 (clip space spans 2)
    gl.uniform2f(this.u.u_scale, perUnit / view.width, perUnit / view.height);
    gl.uniform1f(this.u.u_size, view.size * view.ratio);
    gl.enableVertexAttribArray(this.at.a_xy);
    gl.enableVertexAttribArray(this.at.a_value);
    for (const t of tiles) {
      const spans = t.spans ?? [[0, t.n]];
      if (!spans.length) continue;
      gl.bindBuffer(gl.ARRAY_BUFFER, t.buffer);
      gl.vertexAttribPointer(this.at.a_xy, 2, gl.FLOAT, false, 8, 0);
      gl.vertexAttribPointer(this.at.a_value, 1, t.floats ? gl.FLOAT : gl.UNSIGNED_BYTE, false, 0, 12 * t.n);
      for (const [first, count] of spans) gl.drawArrays(gl.POINTS, first, count);
    }
  }

  // Wait until the GPU (the software one too) has drawn everything asked: for honest timings only.
  // subtle: reading one pixel back waits for the drawing; chromium's gl.finish() returns before it.
  finish() {
    this.gl.readPixels(0, 0, 1, 1, this.gl.RGBA, this.gl.UNSIGNED_BYTE, this.pixel);
  }

  // Give the context back now (a browser keeps only a few alive) rather than when it is collected.
  lose() {
    this.gl.getExtension("WEBGL_lose_context")?.loseContext();
  }
}

function link(gl, vertex, fragment) {
  const program = gl.createProgram();
  for (const [kind, source] of [[gl.VERTEX_SHADER, vertex], [gl.FRAGMENT_SHADER, fragment]]) {
    const shader = gl.createShader(kind);
    gl.shaderSource(shader, source);
    gl.compileShader(shader);
    if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS)) throw new Error(`map shader: ${gl.getShaderInfoLog(shader)}`);
    gl.attachShader(program, shader);
  }
  gl.linkProgram(program);
  if (!gl.getProgramParameter(program, gl.LINK_STATUS)) throw new Error(`map program: ${gl.getProgramInfoLog(program)}`);
  return program;
}

// The colour ramp's ends for values never seen before (row norms): the root's, a random sample of every
// row, from its 1st to its 99th percentile, so that a few outliers do not wash the ramp out.
export function spread(values) {
  const finite = Float32Array.from(values.filter((v) => Number.isFinite(v) && v > -1e29)).sort();
  if (!finite.length) return [0, 1];
  const at = (q) => finite[Math.min(finite.length - 1, Math.floor(q * finite.length))];
  return [at(0.01), at(0.99)];
}
