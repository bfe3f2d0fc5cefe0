"""Projector benchmark: computing and sending every row's map point, and drawing it in chromium.

    python bench/projector.py                    # MiniLM (30,522 x 384) and a 1,000,000 x 100 table, 3 repetitions
    python bench/projector.py --rows 200000      # a smaller synthetic table
    python bench/projector.py --json             # one JSON object on stdout

A real `embedlab lab` process serves MiniLM and a synthetic table of --rows rows (a mixture of 50
Gaussian clusters in 100 dimensions, written once as .npy + .vocab.json under a temporary folder).
Per table and repetition, each with a fresh server so nothing is cached between repetitions:

- load: GET /api/projector/info, which loads the table (read from disk) before answering;
- compute + send: the first GET /api/projector/layout (the PCA of every row, then its bytes);
- send: the same request again (the layout cached), and the keys (a JSON list) once computed;
- JSON instead: the size of the same coordinates as JSON lists of lists and the time to encode
  them with json.dumps (what the binary array saves);
- first paint: a fresh Debian chromium (headless, software WebGL) opening the page on that table
  after the table is loaded, from navigation until the map is drawn (the page's #sim[data-ready]),
  and the page's own split of it (fetching the arrays, drawing them);
- panning: 20 successive pans of the 2-D view (Plotly.relayout on both axes), ms per redraw.

Goal (issue 16): the first paint for MiniLM <= 2 s after the table is loaded, panning interactive.
Medians over repetitions; the machine is shared, so figures move by tens of percent.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import numpy as np

from lab_load import start_lab  # this folder's lab launcher

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip
PANS = 20
PAN_SCRIPT = """async (n) => {
  const div = document.querySelector('#proj-map');
  const [x0, x1] = div.layout.xaxis.range, [y0, y1] = div.layout.yaxis.range;
  const times = [];
  for (let i = 1; i <= n; i++) {
    const dx = (x1 - x0) * 0.01 * i, dy = (y1 - y0) * 0.01 * i;
    const t = performance.now();
    await Plotly.relayout(div, {'xaxis.range': [x0 + dx, x1 + dx], 'yaxis.range': [y0 + dy, y1 + dy]});
    times.push(performance.now() - t);
  }
  return times;
}"""


def synthetic_table(folder: Path, rows: int, dim: int = 100, clusters: int = 50, seed: int = 0) -> Path:
    """A (rows, dim) float32 table of Gaussian clusters as NAME.npy + NAME.vocab.json; its .npy path."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=3.0, size=(clusters, dim)).astype(np.float32)
    table = centres[rng.integers(0, clusters, rows)] + rng.normal(size=(rows, dim)).astype(np.float32)
    path = folder / f"synthetic-{rows}.npy"
    np.save(path, table)
    (folder / f"synthetic-{rows}.vocab.json").write_text(json.dumps({"keys": [f"w{i}" for i in range(rows)]}))
    return path


def timed(url: str, path: str, params: dict) -> tuple[float, httpx.Response]:
    start = time.perf_counter()
    response = httpx.get(f"{url}{path}", params=params, timeout=600)
    response.raise_for_status()
    return time.perf_counter() - start, response


def server_side(url: str, table: str) -> dict:
    """Seconds to load the table, compute + send its layout, send it again, send the keys; bytes."""
    load, info = timed(url, "/api/projector/info", {"table": table})
    first, layout = timed(url, "/api/projector/layout", {"table": table})
    again = statistics.median(timed(url, "/api/projector/layout", {"table": table})[0] for _ in range(5))
    timed(url, "/api/projector/keys", {"table": table})
    keys, key_answer = timed(url, "/api/projector/keys", {"table": table})
    coordinates = np.frombuffer(layout.content, dtype="<f4").reshape(-1, 2)
    start = time.perf_counter()
    as_json = json.dumps(coordinates.tolist())
    return {"rows": info.json()["rows"], "load_s": load, "compute_send_s": first, "send_s": again,
            "server_compute_s": float(layout.headers["x-seconds"]), "keys_s": keys,
            "binary_bytes": len(layout.content), "keys_bytes": len(key_answer.content),
            "json_bytes": len(as_json), "json_encode_s": time.perf_counter() - start}  # fmt: skip


def browser_side(playwright, url: str, table: str) -> dict:
    """First paint of the page on `table` (already loaded by the server) and ms per pan, in a fresh
    chromium: one that has drawn a million points keeps its software-WebGL process busy for minutes."""
    browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.set_default_timeout(600_000)
    start = time.perf_counter()
    page.goto(f"{url}/#projector")
    page.wait_for_selector('#sim[data-ready="true"]')
    if table != "minilm":  # the page opens on the first served table
        page.select_option("#proj-table", table)
        page.wait_for_function("t => document.querySelector('#proj-caption').innerText.includes('of ' + t)", arg=table)
    paint = time.perf_counter() - start
    split = page.evaluate("() => ({...document.querySelector('#proj-map').dataset})")
    pans = page.evaluate(PAN_SCRIPT, PANS)
    browser.close()
    if errors:
        raise SystemExit(f"console errors on {table}: {errors}")
    return {"first_paint_s": paint, "fetch_ms": float(split["fetchMs"]), "draw_ms": float(split["drawMs"]),
            "pan_ms": statistics.median(pans)}  # fmt: skip


@contextmanager
def served(source: str) -> Iterator[str]:
    """A fresh `embedlab lab` serving `source` (nothing cached yet); its base URL."""
    server, url = start_lab([source])
    try:
        yield url
    finally:
        server.terminate()
        server.wait()


def measure(tables: dict[str, str], reps: int) -> dict[str, list[dict]]:
    from playwright.sync_api import sync_playwright

    results: dict[str, list[dict]] = {name: [] for name in tables}
    with sync_playwright() as p:
        for rep in range(reps):
            for name, source in tables.items():
                with served(source) as url:
                    row = server_side(url, name)
                with served(source) as url:  # the browser's first paint includes computing the map
                    timed(url, "/api/projector/info", {"table": name})  # "after the table is loaded"
                    row.update(browser_side(p, url, name))
                results[name].append(row)
                print(f"rep {rep + 1}/{reps} {name}: first paint {row['first_paint_s']:.2f} s", file=sys.stderr)
    return results


def report(results: dict[str, list[dict]]) -> dict:
    return {name: {key: statistics.median(r[key] for r in rows) for key in rows[0]} for name, rows in results.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows of the synthetic table (<= 1,000,000)")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not 4 <= args.rows <= 1_000_000 or args.reps < 1:
        parser.error("--rows must be 4..1,000,000 and --reps >= 1")
    with tempfile.TemporaryDirectory() as tmp:
        big = synthetic_table(Path(tmp), args.rows)
        summary = report(measure({"minilm": "minilm", big.name: str(big)}, args.reps))  # served by file name
    if args.json:
        print(json.dumps(summary))
        return 0
    print(f"{'table':<22}{'rows':>10}{'load':>8}{'compute+send':>14}{'send':>8}{'keys':>8}"
          f"{'binary MB':>11}{'JSON MB':>9}{'JSON enc':>10}{'paint':>8}{'fetch':>8}{'draw':>8}{'pan':>8}")  # fmt: skip
    for name, r in summary.items():
        print(f"{name:<22}{r['rows']:>10,.0f}{r['load_s']:>7.2f}s{r['compute_send_s']:>13.2f}s{r['send_s']:>7.3f}s"
              f"{r['keys_s']:>7.3f}s{r['binary_bytes'] / 1e6:>11.2f}{r['json_bytes'] / 1e6:>9.2f}"
              f"{r['json_encode_s']:>9.2f}s{r['first_paint_s']:>7.2f}s{r['fetch_ms']:>6.0f}ms{r['draw_ms']:>6.0f}ms"
              f"{r['pan_ms']:>6.0f}ms")  # fmt: skip
    print(
        f"medians of {args.reps}; goal: MiniLM's first paint <= 2 s after the table is loaded "
        f"({summary['minilm']['first_paint_s']:.2f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
