// Talking to the lab's API: JSON calls whose failures become Errors with the server's message, the
// lab's config (limits, themes) fetched once, and the one "latest answer wins" helper.
import { errorLine } from "./dom.js";

// GET a JSON endpoint; a 4xx/5xx body {"error": ...} becomes a thrown Error with that message.
export async function get(path, params = {}) {
  return answer(await fetch(`${path}?${new URLSearchParams(params)}`));
}

// POST a JSON body to an endpoint; errors as for get().
export async function post(path, body = {}) {
  return answer(await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body) }));
}

// GET a binary array: raw little-endian values whose dtype and shape come in the X-Dtype and X-Shape
// headers. -> { values: a typed array, shape: [n, ...], headers }; errors as for get().
const ARRAYS = { float32: Float32Array, uint8: Uint8Array, int32: Int32Array };
export async function getArray(path, params = {}) {
  const response = await fetch(`${path}?${new URLSearchParams(params)}`);
  if (!response.ok) return answer(response);
  const kind = ARRAYS[response.headers.get("X-Dtype")];
  if (!kind) throw new Error(`${path}: unknown array type ${response.headers.get("X-Dtype")}`);
  const shape = response.headers.get("X-Shape").split(",").map(Number);
  return { values: new kind(await response.arrayBuffer()), shape, headers: response.headers };
}

// GET raw bytes whose layout the endpoint's own headers describe (a projector tile).
// -> { buffer: ArrayBuffer, headers }; errors as for get().
export async function getBytes(path, params = {}) {
  const response = await fetch(`${path}?${new URLSearchParams(params)}`);
  if (!response.ok) return answer(response);
  return { buffer: await response.arrayBuffer(), headers: response.headers };
}

// The server's answer to a mistake: its message names the value and the limit.
class ApiError extends Error {}

async function answer(response) {
  const body = await response.json();
  if (!response.ok) throw new ApiError(body.error ?? response.statusText);
  return body;
}

// Show a failure in `box`; one that is not the server's answer (a bug here) goes to the console too.
function fail(box, err) {
  if (!(err instanceof ApiError)) console.error(err);
  box.replaceChildren(errorLine(err.message));
}

let configured = null;
// Every page's limits and choices (`limits.<page>`) and the theme groups with their colours
// (`themes`), from /api/config: asked once per page load.
export const config = () => (configured ??= get("/api/config"));

// Run `work` with `box` emptied; a failure shows its message there. -> work's answer, or undefined.
export async function shown(box, work) {
  box.replaceChildren();
  try {
    return await work();
  } catch (err) {
    fail(box, err);
    return undefined;
  }
}

// Latest answer wins: latest(load, draw, box) -> update(). `load()` reads the controls and asks the
// server; `draw(answer)` shows the answer. One request is out at a time: calls made while it is out
// fold into one more request, sent when it returns with the controls as they are then, and an
// answer made stale by a newer call is never drawn. A failure shows in `box` (emptied before a draw),
// and `clear()`, when given, takes down the last answer, so no stale answer stands beside the error.
export function latest(load, draw, box, clear = () => {}) {
  let busy = false;
  let again = false;
  return async function update() {
    if (busy) { again = true; return; }
    busy = true;
    try {
      do {
        again = false;
        try {
          const result = await load();
          if (!again) {
            box.replaceChildren();
            await draw(result);
          }
        } catch (err) {
          if (!again) { clear(); fail(box, err); }
        }
      } while (again);
    } finally {
      busy = false;
    }
  };
}
