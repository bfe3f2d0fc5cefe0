"""Projector benchmark: a table of a million and of ten million rows opened in chromium from tiles.

    python bench/projector.py                               # 1,000,000 and 10,000,000 rows x 100, 3 repetitions
    python bench/projector.py --rows 1000000 --reps 5       # one size
    python bench/projector.py --folder /data/bench --json   # keep the tables (and their maps) between runs

The tables are write_clusters tables (embedlab.data.clusters: 50 Gaussian clusters of known names,
width 100; 4 GB at ten million rows), written once under --folder. Per table:

- build: `embedlab map TABLE` timed as a process from nothing (wall seconds, each stage's seconds, peak
  RSS), once (--keep-maps: the maps of a run before, not timed);
- per repetition, a fresh `embedlab lab --vectors TABLE` (nothing kept in memory) and a fresh Debian
  chromium (headless, software WebGL), alternating the tiled 2-D map with the whole-table baseline:
  - first paint: navigation until the root tile is drawn (the page's own performance.now(), which
    counts from navigation), and until the first level of tiles under the view is drawn;
  - zoom: ZOOMS wheel steps into the densest region, each tile's fetch + draw as the page measures it;
  - neighbours: NEIGHBOURS clicked rows, /neighbours answered (client-side wall, and the server's own
    seconds for the scan);
  - server memory: the lab's RSS sampled every 50 ms through the whole session, and its peak (VmHWM);
  - before (--before DIR, tables up to a million rows): the page as it was before tiles, which sent
    every row's point and drew them all with plotly (6.47 s at a million rows in issue 16's run),
    served from DIR, a checkout of that commit: `git worktree add DIR b5f3858`.

Goals (issue 35): first paint <= 1.0 s at 1M and 10M rows; each zoom tile <= 200 ms; neighbours
<= 100 ms at 1M; the 10M x 100 build <= 10 minutes; server peak RSS <= 2 GB at 10M while the page pans
and zooms. Medians over repetitions; the machine is shared, so figures move by tens of percent.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import numpy as np

from lab_load import start_lab  # this folder's lab launcher
from machine import cpu_model  # this folder's machine description

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip
ZOOMS = 6  # wheel steps into the map, each waiting for its tiles
NEIGHBOURS = 20  # rows clicked per repetition
BASELINE_MAX = 1_000_000  # the whole-table 3-D view serves at most this many rows
EMBEDLAB = str(Path(sys.executable).parent / "embedlab")


def table_for(folder: Path, rows: int) -> Path:
    """The cluster table of `rows` x 100 under `folder`, written if missing."""
    from embedlab.data.clusters import write_clusters

    path = folder / f"clusters-{rows}.npy"
    if not (path.exists() and path.with_suffix(".vocab.json").exists()):
        print(f"writing {path} ...", file=sys.stderr)
        write_clusters(path, rows)
    return path


def build(path: Path, again: bool) -> dict:
    """`embedlab map` on `path` as a process: wall seconds, its stages and its peak RSS. again: the
    map a run before built is removed first, so the build is timed from nothing."""
    if again:
        shutil.rmtree(path.with_name(path.name + ".tiles"), ignore_errors=True)
    start = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-v", EMBEDLAB, "map", str(path), "--json"], capture_output=True,
                          text=True, check=True)  # fmt: skip
    answer = json.loads(done.stdout)
    peak_kb = next(int(line.split()[-1]) for line in done.stderr.splitlines() if "Maximum resident" in line)
    return {"build_s": time.perf_counter() - start, "stages": answer["stages"], "tiles": answer["tiles"],
            "depth": answer["depth"], "build_peak_mb": peak_kb / 1024}  # fmt: skip


class Memory(threading.Thread):
    """A process's resident memory sampled every `every` seconds, until stopped: the largest seen."""

    def __init__(self, pid: int, every: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.pid, self.every, self.largest_kb, self._stop_event = pid, every, 0, threading.Event()
        self.start()

    def run(self) -> None:
        while not self._stop_event.is_set():
            self.largest_kb = max(self.largest_kb, status_kb(self.pid, "VmRSS"))
            time.sleep(self.every)

    def stop(self) -> float:
        self._stop_event.set()
        self.join()
        return self.largest_kb / 1024


def status_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def neighbours(url: str, table: str, rows: int, seed: int) -> dict:
    """NEIGHBOURS random rows' /neighbours: median wall ms (client side) and the server's scan ms."""
    rng = np.random.default_rng(seed)
    walls, scans = [], []
    with httpx.Client(base_url=url, timeout=120) as http:
        for row in rng.integers(0, rows, NEIGHBOURS).tolist():
            start = time.perf_counter()
            answer = http.get("/api/projector/neighbours", params={"table": table, "row": row, "k": 10})
            walls.append(1000 * (time.perf_counter() - start))
            answer.raise_for_status()
            scans.append(1000 * answer.json()["seconds"])
    return {"neighbours_ms": statistics.median(walls), "neighbours_scan_ms": statistics.median(scans)}


def tiled(playwright, url: str, table: str) -> dict:
    """The 2-D page in a fresh chromium: first paint, the first level of tiles, ZOOMS wheel steps."""
    browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.set_default_timeout(600_000)
    page.goto(f"{url}/#projector")
    page.wait_for_function("() => document.querySelector('#proj-map')?.dataset.firstPaintMs")
    page.wait_for_function("() => document.querySelector('#proj-map').dataset.pending === '0'")
    first = page.evaluate("() => ({...document.querySelector('#proj-map').dataset})")
    box = page.locator("#proj-map canvas").first.bounding_box()
    for _ in range(ZOOMS):
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.wheel(0, -400)
        page.wait_for_timeout(100)
        page.wait_for_function("() => document.querySelector('#proj-map').dataset.pending === '0'")
    # the page's last tiles as [[id, fetch ms, draw ms], ...] (projector_map.js)
    tiles = json.loads(page.evaluate("() => document.querySelector('#proj-map').dataset.tileTimes || '[]'"))
    browser.close()
    if errors:
        raise SystemExit(f"console errors on {table}: {errors}")
    zoomed = [fetch + draw for tile, fetch, draw in tiles if tile != "0/0/0"]
    return {"first_paint_s": float(first["firstPaintMs"]) / 1000, "first_level_s": float(first["settledMs"]) / 1000,
            "tiles_loaded": len(tiles), "tile_ms": statistics.median(zoomed) if zoomed else float("nan"),
            "tile_ms_max": max(zoomed) if zoomed else float("nan")}  # fmt: skip


def whole(playwright, url: str) -> dict:
    """The page before tiles (served from --before): navigation until every point is drawn."""
    browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.set_default_timeout(600_000)
    start = time.perf_counter()
    page.goto(f"{url}/#projector")
    page.wait_for_function("() => document.querySelector('#proj-caption')?.innerText.includes('drawn in')")
    seconds = time.perf_counter() - start
    browser.close()
    return {"before_paint_s": seconds}


def session(playwright, path: Path, rows: int, rep: int, before: Path | None) -> dict:
    """One repetition on one table: a fresh server, the tiled page, neighbours, then the page before
    tiles (its own server, from the checkout `before`)."""
    server, url = start_lab([str(path)])
    memory = Memory(server.pid)
    try:
        httpx.get(f"{url}/api/projector/tiles", params={"table": path.name}, timeout=120).raise_for_status()
        row = tiled(playwright, url, path.name)
        row.update(neighbours(url, path.name, rows, seed=rep))
        row["server_peak_mb"] = memory.stop()
        row["server_hwm_mb"] = status_kb(server.pid, "VmHWM") / 1024
    finally:
        server.terminate()
        server.wait()
    if before is not None and rows <= BASELINE_MAX:
        os.environ["PYTHONPATH"] = str(before / "src")  # the lab's process imports that checkout
        try:
            server, url = start_lab([str(path)])
        finally:
            del os.environ["PYTHONPATH"]
        try:
            loaded = httpx.get(f"{url}/api/projector/info", params={"table": path.name}, timeout=600)
            loaded.raise_for_status()  # the table loaded, as issue 16's run measured it
            row.update(whole(playwright, url))
        finally:
            server.terminate()
            server.wait()
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--folder", type=Path, default=Path("/tmp/embedlab-bench-projector"))
    parser.add_argument("--before", type=Path, help="a checkout of the project before tiles (b5f3858)")
    parser.add_argument("--keep-maps", action="store_true", help="reuse the maps a run before built (no build timed)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--write", type=Path, help="also write the figures, with the run's setting, to this JSON file")
    args = parser.parse_args(argv)
    if any(r < 1000 for r in args.rows) or args.reps < 1:
        parser.error("--rows must be >= 1000 and --reps >= 1")
    from playwright.sync_api import sync_playwright

    args.folder.mkdir(parents=True, exist_ok=True)
    summary, load_before = {}, os.getloadavg()[0]
    with sync_playwright() as playwright:
        for rows in args.rows:
            path = table_for(args.folder, rows)
            built = build(path, again=not args.keep_maps)
            runs = [session(playwright, path, rows, rep, args.before) for rep in range(args.reps)]
            summary[rows] = {**built, **{k: statistics.median(r[k] for r in runs) for k in runs[0]},
                             "reps": args.reps, "runs": runs}  # fmt: skip
            print(f"{rows:,} rows: {json.dumps(summary[rows])}", file=sys.stderr)
    if args.write:
        setting = {"command": "python bench/projector.py " + " ".join(argv if argv is not None else sys.argv[1:]),
                   "date": time.strftime("%Y-%m-%d %H:%M"), "cpu": cpu_model(), "cores": os.cpu_count(),
                   "load": [round(load_before, 2), round(os.getloadavg()[0], 2)]}  # fmt: skip
        args.write.write_text(json.dumps({"recorded": setting, "tables": summary}, indent=1) + "\n")
    if args.json:
        print(json.dumps(summary))
        return 0
    print(f"{'rows':>12}{'build':>9}{'peak':>8}{'paint':>8}{'level 1':>9}{'tile':>8}{'tile max':>10}"
          f"{'neighbours':>12}{'server':>9}{'before':>9}")  # fmt: skip
    for rows, r in summary.items():
        baseline = f"{r['before_paint_s']:>8.2f}s" if "before_paint_s" in r else f"{'-':>9}"
        print(f"{rows:>12,}{r['build_s']:>8.1f}s{r['build_peak_mb']:>6.0f}MB{r['first_paint_s']:>7.2f}s"
              f"{r['first_level_s']:>8.2f}s{r['tile_ms']:>6.0f}ms{r['tile_ms_max']:>8.0f}ms"
              f"{r['neighbours_ms']:>10.0f}ms{r['server_peak_mb']:>7.0f}MB{baseline}")  # fmt: skip
    print(
        f"medians of {args.reps}; goals: paint <= 1.0 s, tile <= 200 ms, neighbours <= 100 ms at 1M, "
        "build <= 600 s and server <= 2 GB at 10M"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
