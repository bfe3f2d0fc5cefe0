"""The projector page in Debian's chromium against a real `embedlab lab` process. In 2-D the map is tiled:
a map not built yet shows its build's progress; the root tile is drawn before any other is asked for;
the tiles under the view are fetched as it zooms in (exactly those the rule names) and dropped as it
zooms out; where a dense tile meets a sparse one the points drawn are one uniform sample (every row in
view of rank below the page's threshold, and no other); a drag pans; region labels name the clusters
and never overlap; search counts every matching key (substring and regular expression) and rings those
sent, and a bad pattern's message is shown; a clicked point is linked to its nearest rows in the
table's own space (checked against NumPy and the server); compare colours the tiles by "moved"; a
table changed under the page says so. The tables are cluster tables written here (data/clusters.py:
the truth is known), one of 240,000 rows for a tree three levels deep (a tile holds at most 50,000
rows). 3-D keeps plotly's scatter of every row (a trained run), and the compare view works as before on
MiniLM and the run."""

from __future__ import annotations

import json
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request

import numpy as np
import pytest
from tests.lab.conftest import serving
from tests.timeouts import PAGE_S, margin

from embedlab.data.clusters import NAMES, write_clusters
from embedlab.vectors import Vectors

MAP = "document.querySelector('#proj-map')"
BIG_ROWS = 240_000  # more than the root's 1,000 and four tiles of 50,000: the tree has a third level
SMALL_ROWS = 3_000
BUILD_S = margin(30.0)  # the four maps built at once in child processes: about 30 s measured here
COSINE_SHOWN = 0.5e-4  # the page prints cosines to 4 decimals
NOTCH = -400  # wheel delta of one zoom step in (e^(0.002 * 400) = 2.2 times)


def get(url: str, path: str, **params) -> dict:
    with urllib.request.urlopen(f"{url}{path}?{urllib.parse.urlencode(params)}", timeout=PAGE_S) as r:
        return json.load(r)


def manifest_of(url: str, table: str) -> dict:
    """The table's map once built (the server builds it when first asked)."""
    deadline = time.monotonic() + BUILD_S
    while (m := get(url, "/api/projector/tiles", table=table, method="pca"))["state"] != "ready":
        assert time.monotonic() < deadline, m
        time.sleep(0.3)
    return m


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """The cluster tables: big.npy (240,000 × 8, 12 clusters), small.npy (3,000 × 8), twin.npy (small's
    keys, half its rows moved), changing.npy (a copy of small, touched by a test) and fresh.npy (another
    copy, whose map is left for the page to build)."""
    folder = tmp_path_factory.mktemp("tiled")
    write_clusters(folder / "big.npy", BIG_ROWS, dim=8, clusters=12, seed=0)
    small = write_clusters(folder / "small.npy", SMALL_ROWS, dim=8, clusters=6, seed=1)
    rows = np.load(small)
    moved = rows.copy()
    moved[::2] = np.random.default_rng(2).normal(size=moved[::2].shape)  # every other row elsewhere
    vocab = small.with_suffix(".vocab.json").read_bytes()
    for name, array in (("twin", moved), ("changing", rows), ("fresh", rows)):
        np.save(folder / f"{name}.npy", array)
        (folder / f"{name}.vocab.json").write_bytes(vocab)
    return {name: folder / f"{name}.npy" for name in ("big", "small", "twin", "changing", "fresh")}


@pytest.fixture(scope="module")
def tiled_lab(tables, lab_cache):
    """A lab serving the cluster tables (big.npy first: the page opens it), their maps built but fresh.npy's."""
    with serving([str(path) for path in tables.values()], lab_cache) as url:
        for name in ("big", "small", "twin", "changing"):
            get(url, "/api/projector/tiles", table=f"{name}.npy", method="pca")  # all four building at once
        for name in ("big", "small", "twin", "changing"):
            manifest_of(url, f"{name}.npy")
        yield url


def keys_of(path) -> list[str]:
    return json.loads(path.with_suffix(".vocab.json").read_text())["keys"]


def shown(page) -> dict:
    """The map's dataset: points, tiles, drawn (ids), held, depth, firstPaintMs, lastTileMs, tileTimes."""
    return page.evaluate(f"() => ({{...{MAP}.dataset}})")


def wait_drawn(page, ids: set[str]) -> None:
    page.wait_for_function(f"(ids) => {MAP}.dataset.drawn?.split(' ').sort().join(' ') === ids",
                           arg=" ".join(sorted(ids)))  # fmt: skip


def focused(page, key: str) -> None:
    """Wait until the page lists the neighbours of `key`."""
    kept = "document.querySelector('#proj-kept')?.innerText ?? ''"
    page.wait_for_function(f"(k) => ({kept}).startsWith(`'${{k}}'`)", arg=key)


def point_at(page, x: float, y: float) -> None:
    """Move the mouse over map point (x, y), the map scrolled into view first."""
    page.locator("#proj-map").scroll_into_view_if_needed()
    at = page.evaluate(f"(c) => {MAP}.map.view.screen(c[0], c[1])", [x, y])
    box = page.locator("#proj-overlay").bounding_box()
    page.mouse.move(box["x"] + at[0], box["y"] + at[1])


def depth(tile: str) -> int:
    return int(tile.split("/")[0])


def meets(manifest: dict, tile: str, box: list[float]) -> bool:
    """Whether tile `tile`'s box meets the view `box` [x0, y0, x1, y1]."""
    x0, y0, side = manifest["bounds"][0], manifest["bounds"][1], manifest["bounds"][2] - manifest["bounds"][0]
    d, x, y = map(int, tile.split("/"))
    s = side / 2**d
    return x0 + x * s < box[2] and box[0] < x0 + (x + 1) * s and y0 + y * s < box[3] and box[1] < y0 + (y + 1) * s


def under(manifest: dict, box: list[float], z: int) -> set[str]:
    """The tiles the map draws for a view `box` [x0, y0, x1, y1] at zoom level z: every tile of the tree
    at depth z + 1 or above whose box meets the view."""
    return {t for t in manifest["tiles"] if depth(t) <= z + 1 and meets(manifest, t, box)}


def test_the_root_tile_is_drawn_before_any_other_tile_is_asked_for(open_sim, tiled_lab, chromium):
    manifest = manifest_of(tiled_lab, "big.npy")
    asked = []

    def record(request) -> None:
        if "/api/projector/tile?" in request.url:
            asked.append(urllib.parse.parse_qs(urllib.parse.urlsplit(request.url).query)["tile"][0])

    chromium.on("request", record)
    try:
        page = open_sim("projector", url=tiled_lab)
        wait_drawn(page, {t for t in manifest["tiles"] if depth(t) <= 1})  # the whole map: depths 0 and 1
    finally:
        chromium.remove_listener("request", record)
    assert asked[0] == "0/0/0" and asked.count("0/0/0") == 1 and len(asked) == len(set(asked)), asked
    starts = page.evaluate("""() => performance.getEntriesByType('resource').filter((e) => e.name.includes('/tile?'))
        .map((e) => [new URL(e.name).searchParams.get('tile'), e.startTime])""")
    painted = float(shown(page)["firstPaintMs"])
    assert [t for t, _ in starts][0] == "0/0/0"
    assert all(start >= painted - 1 for tile, start in starts[1:]), (painted, starts)  # ms, rounded
    assert page.inner_text("#proj-caption").startswith("240,000 rows of big.npy (240,000 × 8). PCA of")
    assert page.inner_text("#proj-drawn").startswith(f"{int(shown(page)['points']):,} points drawn, ")
    assert page.inner_text("#proj-drawn").endswith(f"(of 240,000 rows in {len(manifest['tiles'])} tiles; zoom level 0)")


def test_a_map_not_built_yet_shows_its_build_under_way_then_draws(open_sim, tiled_lab):
    page = open_sim("projector", url=tiled_lab)
    page.select_option("#proj-table", "fresh.npy")
    page.wait_for_selector("#proj-building")  # the first manifest answers 202: a child process builds the map
    assert page.inner_text("#proj-building").startswith("Building the PCA map of fresh.npy (first use;")
    assert page.query_selector("#proj-gl") is None  # big.npy's map taken down meanwhile
    page.wait_for_function("() => document.querySelector('#proj-caption').innerText.includes('of fresh.npy')",
                           timeout=BUILD_S * 1000)  # fmt: skip
    assert page.query_selector("#proj-building") is None
    assert shown(page)["drawn"].split()[0] == "0/0/0"


def test_a_drag_pans_the_map_by_as_far_and_picks_nothing(open_sim, tiled_lab):
    manifest = manifest_of(tiled_lab, "big.npy")
    page = open_sim("projector", url=tiled_lab)
    wait_drawn(page, {t for t in manifest["tiles"] if depth(t) <= 1})
    before = page.evaluate(f"() => {MAP}.map.view")
    page.locator("#proj-map").scroll_into_view_if_needed()
    box = page.locator("#proj-overlay").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 120, y + 80, steps=5)
    page.mouse.up()
    after = page.evaluate(f"() => {MAP}.map.view")
    pixel = 1 / before["scale"]  # map units per CSS pixel
    assert after["scale"] == before["scale"]
    assert after["cx"] == pytest.approx(before["cx"] - 120 * pixel, abs=pixel)  # the map follows the pointer
    assert after["cy"] == pytest.approx(before["cy"] + 80 * pixel, abs=pixel)  # y grows up on the map
    assert page.query_selector("#proj-kept") is None  # a drag is no click


def test_zooming_in_fetches_the_deeper_tiles_under_the_view_and_zooming_out_drops_them(open_sim, tiled_lab):
    manifest = manifest_of(tiled_lab, "big.npy")
    page = open_sim("projector", url=tiled_lab)
    whole = {t for t in manifest["tiles"] if depth(t) <= 1}
    wait_drawn(page, whole)
    page.evaluate(f"() => {{ {MAP}.map.keep = 0; }}")  # no spare buffers: a tile the view leaves goes at once
    deepest = max((t for t in manifest["tiles"] if depth(t) == 2), key=lambda t: manifest["tiles"][t])
    d, x, y = map(int, deepest.split("/"))
    side = (manifest["bounds"][2] - manifest["bounds"][0]) / 4
    centre = [manifest["bounds"][0] + (x + 0.5) * side, manifest["bounds"][1] + (y + 0.5) * side]
    point_at(page, *centre)
    for _ in range(3):  # about 10 times closer, around that tile's centre
        page.mouse.wheel(0, NOTCH)
    page.wait_for_function(f"(t) => {MAP}.dataset.drawn.split(' ').includes(t)", arg=deepest)
    view = page.evaluate(f"() => {MAP}.map.view.extent()")
    assert view["z"] >= 1
    expected = under(manifest, view["box"], view["z"])
    wait_drawn(page, expected)  # every tile under the view down to z + 1, and no other
    assert any(depth(t) == 2 for t in expected) and not expected >= whole  # deeper, and some of depth 1 left
    assert int(shown(page)["rows"]) == sum(manifest["tiles"][t] for t in expected)
    assert 0 < int(shown(page)["points"]) <= int(shown(page)["rows"])  # all, or a sample when too many are in view
    page.click("#proj-reset")
    wait_drawn(page, whole)
    assert int(shown(page)["held"]) == len(whole)  # the deeper tiles' buffers deleted
    times = json.loads(shown(page)["tileTimes"])  # [id, fetch ms, draw ms] of each tile drawn
    assert {t for t, _, _ in times} >= expected | whole and all(f >= 0 and d >= 0 for _, f, d in times)


def tile_body(url: str, manifest: dict, tile: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tile `tile` as /tile sends it (coloured by theme: one uint8 code a row) -> rows (n,), points (n, 2)
    and ranks (n,)."""
    query = {"table": manifest["table"], "method": "pca", "build": manifest["build"], "tile": tile, "by": "theme"}
    with urllib.request.urlopen(f"{url}/api/projector/tile?{urllib.parse.urlencode(query)}", timeout=PAGE_S) as r:
        body, n = r.read(), int(r.headers["X-Rows"])
    points = np.frombuffer(body, "<f4", 2 * n).reshape(n, 2)
    return np.frombuffer(body, "<u4", n, offset=8 * n), points, np.frombuffer(body, "<u4", n, offset=13 * n)


def test_where_a_dense_tile_meets_a_sparse_one_the_points_drawn_are_one_uniform_sample(open_sim, tiled_lab):
    manifest = manifest_of(tiled_lab, "big.npy")
    tiles = {t: tile_body(tiled_lab, manifest, t) for t in manifest["tiles"]}  # every row, once
    parents = {f"{d - 1}/{x >> 1}/{y >> 1}" for d, x, y in (map(int, t.split("/")) for t in tiles) if d}
    # the fullest depth-2 tile (it has children) and a neighbour across one of its edges that has none
    dense = max((t for t in tiles if depth(t) == 2), key=lambda t: manifest["tiles"][t])
    _, x, y = map(int, dense.split("/"))
    sparse, edge = next((f"2/{x + dx}/{y + dy}", (x + 0.5 + dx / 2, y + 0.5 + dy / 2))
                        for dx, dy in ((-1, 0), (1, 0), (0, -1), (0, 1))
                        if f"2/{x + dx}/{y + dy}" in tiles and f"2/{x + dx}/{y + dy}" not in parents)  # fmt: skip
    assert dense in parents
    x0, y0, x1, _ = manifest["bounds"]
    page = open_sim("projector", url=tiled_lab)
    wait_drawn(page, {t for t in manifest["tiles"] if depth(t) <= 1})
    centre = [x0 + edge[0] * (x1 - x0) / 4, y0 + edge[1] * (x1 - x0) / 4]
    page.evaluate(f"(c) => {MAP}.map.flyTo(c, 0.2)", centre)  # a fifth of the map: zoom level 1, depth 2 drawn
    view = page.evaluate(f"() => {MAP}.map.view.extent()")
    expected = under(manifest, view["box"], view["z"])
    assert view["z"] == 1 and {dense, sparse} <= expected
    wait_drawn(page, expected)
    box = view["box"]
    inside = {t: (p[:, 0] > box[0]) & (p[:, 0] < box[2]) & (p[:, 1] > box[1]) & (p[:, 1] < box[3])
              for t, (_, p, _) in tiles.items()}  # fmt: skip

    def drawn_sample() -> tuple[int, dict[str, int]]:
        """The still frame's threshold P and counts, checked against the rows of rank < P of every tile."""
        page.wait_for_function(f"() => !{MAP}.map.moving && !{MAP}.map.frame")  # the still frame
        P, drawn = page.evaluate(f"""() => {{ const m = {MAP}.map;
          return [Number(m.node.dataset.threshold), m.drawn().map((t) => [t.id, t.boxes,
            t.spans.flatMap(([a, k]) => Array.from(t.rows.subarray(a, a + k))),
            t.spans.flatMap(([a, k]) => Array.from(t.ranks.subarray(a, a + k)))])]; }}""")
        assert 0 < P < BIG_ROWS
        shown_rows = []
        for tile, boxes, rows_drawn, ranks_drawn in drawn:
            rows, points, ranks = tiles[tile]
            # the oracle for a tile: its rows of rank < P in the cells whose box meets the view, the cell of a
            # point found here (cells of its box, row-major, the far edge in the last)
            cells = int(round(len(boxes) ** 0.5))
            x0_, y0_, x1_, _ = boxes[0][0], boxes[0][1], boxes[-1][2], boxes[-1][3]
            side = (x1_ - x0_) / cells
            col = np.clip(np.floor((points[:, 0].astype(np.float64) - x0_) / side), 0, cells - 1).astype(int)
            row = np.clip(np.floor((points[:, 1].astype(np.float64) - y0_) / side), 0, cells - 1).astype(int)
            near = np.array([min(b[2], box[2]) > max(b[0], box[0]) and min(b[3], box[3]) > max(b[1], box[1])
                             for b in boxes])  # fmt: skip
            assert np.array_equal(np.sort(rows_drawn), np.sort(rows[(ranks < P) & near[row * cells + col]])), tile
            assert all(r < P for r in ranks_drawn)
            shown_rows.append(np.intersect1d(rows_drawn, rows[inside[tile]]))  # those drawn that are in view
        # the oracle: every row of the table in view whose rank is below P (read from every tile) is drawn
        sample = np.concatenate([rows[(ranks < P) & inside[t]] for t, (rows, _, ranks) in tiles.items()])
        assert np.array_equal(np.sort(np.concatenate(shown_rows)), np.sort(sample))
        return P, {tile: len(rows_drawn) for tile, _, rows_drawn, _ in drawn}

    budgeted, counts = drawn_sample()  # the budget's P: 150,000 points in all
    assert sum(counts.values()) <= 150_000 and counts[sparse] < manifest["tiles"][sparse]
    # with no budget P is the frontier: the least last rank + 1 of the tiles drawn with a child in view not drawn
    page.evaluate(f"() => {{ {MAP}.map.budget = {{ seen: Infinity, all: Infinity }}; {MAP}.map.schedule(); }}")
    page.wait_for_function(f"(p) => Number({MAP}.dataset.threshold) > p", arg=budgeted)
    P, counts = drawn_sample()
    left = [map(int, t.split("/")) for t in tiles if meets(manifest, t, box) and t not in counts]  # in view, not drawn
    frontier = {f"{d - 1}/{x >> 1}/{y >> 1}" for d, x, y in left} & set(counts)  # drawn, with a child left out
    assert dense in frontier and P == min(int(tiles[t][2][-1]) + 1 for t in frontier)
    assert P > tiles[dense][2][-1] and counts[sparse] < manifest["tiles"][sparse]  # dense: every row near the view


def test_zoomed_deep_into_the_densest_cluster_the_screen_keeps_its_points(open_sim, tiled_lab):
    manifest = manifest_of(tiled_lab, "big.npy")
    points = np.concatenate([tile_body(tiled_lab, manifest, t)[1] for t in manifest["tiles"]])  # every row
    # the densest cluster: the fullest cell of a 64 × 64 grid over the map
    x0, y0, x1, _ = manifest["bounds"]
    grid, _, _ = np.histogram2d(points[:, 0], points[:, 1], bins=64, range=[[x0, x1], [y0, y0 + x1 - x0]])
    i, j = np.unravel_index(np.argmax(grid), grid.shape)
    centre = [x0 + (i + 0.5) * (x1 - x0) / 64, y0 + (j + 0.5) * (x1 - x0) / 64]
    page = open_sim("projector", url=tiled_lab)
    wait_drawn(page, {t for t in manifest["tiles"] if depth(t) <= 1})
    page.evaluate(f"(c) => {MAP}.map.flyTo(c, 1 / 32)", centre)  # zoom step 5: the tree (depth 2) far above
    view = page.evaluate(f"() => {MAP}.map.view.extent()")
    wait_drawn(page, under(manifest, view["box"], view["z"]))
    page.wait_for_function(f"() => !{MAP}.map.moving && !{MAP}.map.frame")  # the still frame
    box = view["box"]
    in_view = int(np.count_nonzero((points[:, 0] > box[0]) & (points[:, 0] < box[2]) & (points[:, 1] > box[1])
                                   & (points[:, 1] < box[3])))  # fmt: skip
    on_screen = page.evaluate(
        f"""(b) => {{ let k = 0; for (const t of {MAP}.map.drawn()) for (const [a, n] of t.spans)
      for (let i = a; i < a + n; i++) {{ const x = t.xy[2 * i], y = t.xy[2 * i + 1];
        if (x > b[0] && x < b[2] && y > b[1] && y < b[3]) k++; }} return k; }}""",
        box,
    )
    # the budget puts 80,000 on the screen, or every row in view when fewer; cells near the view only are drawn,
    # so the cap on all points drawn (150,000) does not empty the screen: at least half of that is kept
    assert on_screen >= 0.5 * min(80_000, in_view), (on_screen, in_view)
    assert int(shown(page)["points"]) <= 150_000 and int(shown(page)["calls"]) > 0


def test_region_labels_name_the_clusters_at_every_zoom_and_never_overlap(open_sim, tiled_lab):
    manifest = manifest_of(tiled_lab, "big.npy")
    page = open_sim("projector", url=tiled_lab)
    wait_drawn(page, {t for t in manifest["tiles"] if depth(t) <= 1})
    regions = f"{MAP}.map.overlay.placed.filter((p) => p.kind === 'region')"
    labelled = f"{MAP}.map.labelled.every((t) => {MAP}.map.overlays.get(t.id))"  # the view's overlays all here
    page.wait_for_function(f"() => {labelled} && {regions}.length > 0")
    amber = page.evaluate(f"() => {regions}.find((p) => p.text === 'amber')?.box")
    assert amber, "the largest cluster (weight 1/1 of the others' 1/rank) is labelled on the whole map"
    point_at(page, *page.evaluate(f"(b) => {MAP}.map.view.toMap((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)", amber))
    for zoom in range(4):
        page.wait_for_function(f"() => {labelled} && {regions}.length > 0")
        labels = page.evaluate(f"() => {regions}")
        assert {label["text"] for label in labels} <= set(NAMES[:12]), (zoom, labels)  # the clusters' own names
        boxes = [label["box"] for label in labels]
        meet = [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]]  # fmt: skip
        assert not meet, (zoom, labels)
        page.mouse.wheel(0, NOTCH)  # around amber's label: it stays in view


def search(page, pattern: str, regex: bool = False) -> str:
    page.set_checked("#proj-regex", regex)
    before = page.evaluate("() => document.querySelector('#proj-count')?.innerText ?? ''")
    page.fill("#proj-key", pattern)
    page.dispatch_event("#proj-key", "change")
    page.wait_for_function("(b) => (document.querySelector('#proj-count')?.innerText ?? b) !== b", arg=before)
    return page.inner_text("#proj-count")


def test_search_counts_every_matching_key_and_rings_those_sent(open_sim, tiled_lab, tables):
    keys = keys_of(tables["big"])
    page = open_sim("projector", url=tiled_lab)
    key = keys[12]  # "<cluster>-12": a whole key, and the start of others ("-120", "-1203", ...)
    hits = sum(key in k for k in keys)
    said = search(page, key)
    assert said.startswith(f"{hits:,} of 240,000 rows hold '{key}'; {min(hits, 10_000):,} shown"), said
    assert page.evaluate(f"() => {MAP}.map.hits.points.length") == min(hits, 10_000)
    focused(page, key)
    assert page.evaluate(f"() => {MAP}.map.focus.row") == 12  # a whole key found: its row linked, as a click would
    pattern = r"^fern-1\d{2}$"
    said = search(page, pattern, regex=True)
    expected = sum(bool(re.search(pattern, k)) for k in keys)
    assert said.startswith(f"{expected:,} of 240,000 rows match the regular expression '{pattern}'; {expected:,} shown")
    rows = sorted(page.evaluate(f"() => {MAP}.map.hits.rows"))
    assert [keys[r] for r in rows] == [k for k in keys if re.search(pattern, k)]


def test_a_pattern_that_does_not_compile_is_answered_with_the_servers_message(open_sim, tiled_lab):
    query = urllib.parse.urlencode({"table": "big.npy", "method": "pca", "pattern": "(", "regex": "true"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{tiled_lab}/api/projector/search?{query}", timeout=PAGE_S)
    status, message = refused.value.code, json.load(refused.value)["error"]
    assert 400 <= status < 500 and "(" in message
    page = open_sim("projector", url=tiled_lab, expected_status=status)
    page.set_checked("#proj-regex", True)
    page.fill("#proj-key", "(")
    page.dispatch_event("#proj-key", "change")
    page.wait_for_selector("#proj-hits .error")
    assert page.inner_text("#proj-hits .error") == message


def test_a_clicked_point_is_linked_to_its_nearest_rows_in_the_tables_own_space(open_sim, tiled_lab, tables):
    manifest = manifest_of(tiled_lab, "big.npy")
    page = open_sim("projector", url=tiled_lab)
    wait_drawn(page, {t for t in manifest["tiles"] if depth(t) <= 1})
    # the root's point farthest from any other drawn point (a grid of 8 px cells finds the near ones),
    # so that the click cannot pick another
    row, point, alone = page.evaluate(f"""() => {{ const m = {MAP}.map, root = m.tiles.get('0/0/0');
      const cell = 8 / m.view.scale, grid = new Map();
      const at = (x, y) => `${{Math.floor(x / cell)}},${{Math.floor(y / cell)}}`;
      for (const t of m.drawn()) for (const [a, k] of t.spans) for (let j = a; j < a + k; j++) {{  // those drawn
        const key = at(t.xy[2 * j], t.xy[2 * j + 1]);
        if (!grid.has(key)) grid.set(key, []);
        grid.get(key).push([t.rows[j], t.xy[2 * j], t.xy[2 * j + 1]]); }}
      let best = [null, null, -1];
      for (const [a, k] of root.spans) for (let i = a; i < a + k; i++) {{
        const x = root.xy[2 * i], y = root.xy[2 * i + 1], [px, py] = m.view.screen(x, y);
        if (px < 20 || py < 60 || px > m.view.width - 20 || py > m.view.height - 40) continue;  // off buttons, edges
        let near = cell;
        for (const dx of [-1, 0, 1]) for (const dy of [-1, 0, 1]) for (const [r, qx, qy] of grid.get(at(x + dx * cell,
          y + dy * cell)) ?? []) if (r !== root.rows[i]) near = Math.min(near, Math.hypot(qx - x, qy - y));
        if (near > best[2]) best = [root.rows[i], [x, y], near];
      }}
      return [best[0], best[1], best[2] * m.view.scale]; }}""")
    assert alone > 2  # px to the next point: a click on it picks it (the page picks the nearest within 6 px)
    point_at(page, *point)
    page.mouse.down()
    page.mouse.up()
    keys = keys_of(tables["big"])
    focused(page, keys[row])
    cells = page.eval_on_selector_all("#proj-neighbours tr td", "cells => cells.map((c) => c.innerText)")
    listed = [(cells[i + 1], float(cells[i + 2])) for i in range(0, len(cells), 4)]
    # the oracle: cosines over every row of the table, in NumPy
    rows = np.load(tables["big"]).astype(np.float64)
    cosines = rows @ rows[row] / (np.linalg.norm(rows, axis=1) * np.linalg.norm(rows[row]))
    cosines[row] = -np.inf
    best = np.argsort(-cosines)[:10]
    assert [k for k, _ in listed] == [keys[r] for r in best]
    assert all(abs(c - cosines[r]) <= COSINE_SHOWN for (_, c), r in zip(listed, best, strict=True))
    served = get(tiled_lab, "/api/projector/neighbours", table="big.npy", method="pca", row=row, k=10)
    assert [(nb["key"], round(nb["cosine"], 4)) for nb in served["neighbours"]] == listed
    links = page.evaluate(f"() => {MAP}.map.overlay.placed.filter((p) => p.kind === 'cosine').map((p) => p.text)")
    assert links and set(links) <= {f"{nb['cosine']:.3f}" for nb in served["neighbours"]}  # each link's cosine


def test_compare_lists_the_movers_and_colours_the_tiles_by_how_far_each_row_moved(open_sim, tiled_lab):
    page = open_sim("projector", url=tiled_lab)
    page.select_option("#proj-table", "small.npy")
    page.wait_for_function("() => document.querySelector('#proj-caption').innerText.includes('of small.npy')")
    assert page.eval_on_selector_all("#proj-other option", "os => os.map((o) => o.value)") == [
        "", "big.npy", "twin.npy", "changing.npy", "fresh.npy"]  # fmt: skip
    page.select_option("#proj-other", "twin.npy")
    page.wait_for_selector("#proj-movers")
    assert page.inner_text("#proj-compare-summary").startswith("3,000 shared keys (0 only in small.npy, 0 only in")
    page.select_option("#proj-scheme", "moved")
    page.wait_for_function("() => document.querySelector('#proj-legend').innerText.startsWith('moved')")
    wait_drawn(page, set(manifest_of(tiled_lab, "small.npy")["tiles"]))  # its 3,000 rows: depths 0 and 1
    moved = page.evaluate("""() => performance.getEntriesByType('resource').map((e) => new URL(e.name))
        .filter((u) => u.pathname === '/api/projector/tile' && u.searchParams.get('by') === 'moved')
        .map((u) => [u.searchParams.get('tile'), u.searchParams.get('other'), u.searchParams.get('table')])""")
    assert moved[0] == ["0/0/0", "twin.npy", "small.npy"] and len(moved) >= 2  # the root first, then the rest
    assert "not in the compared table" in page.inner_text("#proj-legend")
    first = page.inner_text("#proj-movers tr.clickable td:nth-child(2)")
    page.click("#proj-movers tr.clickable >> nth=0")
    focused(page, first)
    assert int(first.split("-")[1]) % 2 == 0  # the rows moved are the even ones


def test_a_table_changed_under_the_page_is_said_so(open_sim, tiled_lab, tables):
    page = open_sim("projector", url=tiled_lab, expected_status=409)
    page.select_option("#proj-table", "changing.npy")
    page.wait_for_function("() => document.querySelector('#proj-caption').innerText.includes('of changing.npy')")
    page.evaluate(f"() => {{ {MAP}.map.keep = 0; }}")
    x0, y0, x1, _ = manifest_of(tiled_lab, "changing.npy")["bounds"]
    point_at(page, x0 + (x1 - x0) / 4, y0 + (x1 - x0) / 4)
    for _ in range(3):  # into one quarter of the map: the others' tiles leave the view, and their buffers go
        page.mouse.wheel(0, NOTCH)
    page.wait_for_function(f"() => Number({MAP}.dataset.held) < Object.keys({MAP}.map.source.manifest.tiles).length")
    stat = os.stat(tables["changing"])
    os.utime(tables["changing"], ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # "changed"
    page.click("#proj-reset")  # the tiles that left are asked for again, of the build the page has
    page.wait_for_selector("#proj-status .error")
    assert "changing.npy changed since" in page.inner_text("#proj-status .error")


# ---- 3-D (plotly) and the page's other parts, on MiniLM and the small training run --------------------


def traces(page) -> list[dict]:
    """The 3-D map's traces: name, type and point count (the point arrays stay in the page)."""
    script = ("() => document.querySelector('#proj-map').data.map((t) => "
              "({name: t.name, type: t.type, n: t.x.length, text: Array.from(t.text).slice(0, 20)}))")  # fmt: skip
    return page.evaluate(script)


# The 3-D axis cube's 8 corners on the screen, projected by the scene's own camera matrices (plotly draws
# its 3-D ticks in WebGL, not as page elements), with the canvas's size; and the boxes of the toolbar and
# the colour bar's title.
CUBE = """() => { const gl = document.querySelector('#proj-map')._fullLayout.scene._scene.glplot;
  const { model, view, projection } = gl.cameraParams; const [lo, hi] = gl.bounds;
  const times = (m, v) => [0, 1, 2, 3].map((r) => m[r] * v[0] + m[4 + r] * v[1] + m[8 + r] * v[2] + m[12 + r] * v[3]);
  const { width, height } = gl.canvas.getBoundingClientRect(); const corners = [];
  for (const x of [lo[0], hi[0]]) for (const y of [lo[1], hi[1]]) for (const z of [lo[2], hi[2]]) {
    const c = times(projection, times(view, times(model, [x, y, z, 1])));
    corners.push([(c[0] / c[3] + 1) / 2 * width, (1 - c[1] / c[3]) / 2 * height]); }
  return { width, height, corners }; }"""
BOXES = """() => ['.modebar', '.cbtitle'].map((s) => { const b = document.querySelector(`#proj-map ${s}`)
  .getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; })"""
TICK_ROOM = 40  # px: a tick label stands off its cube edge and is up to ~35 px wide ("−0.4" and its pad)


def test_a_trained_run_coloured_by_band_in_2d_then_every_row_in_3d(open_sim, lab_run):
    run = Vectors.load(lab_run)
    page = open_sim("projector")
    page.select_option("#proj-table", "wiki-run")
    page.wait_for_function("() => document.querySelector('#proj-caption').innerText.includes('of wiki-run')")
    page.select_option("#proj-scheme", "band")
    page.wait_for_function("() => document.querySelector('#proj-legend').innerText.includes('rare')")
    page.select_option("#proj-dims", "3")
    page.wait_for_function("() => document.querySelector('#proj-map').data?.[0]?.type === 'scatter3d'")
    assert page.query_selector("#proj-gl") is None  # the tiled map gave its node back
    assert sum(t["n"] for t in traces(page)) == len(run) and any(t["name"].startswith("rare (") for t in traces(page))
    cube = page.evaluate(CUBE)  # the whole cube and room for its ticks inside the canvas, not cut at its edge
    assert all(TICK_ROOM <= x <= cube["width"] - TICK_ROOM for x, _ in cube["corners"]), cube
    assert all(TICK_ROOM <= y <= cube["height"] - TICK_ROOM for _, y in cube["corners"]), cube
    page.select_option("#proj-scheme", "norm")  # a colour bar, whose title the toolbar must leave free
    page.wait_for_function("() => document.querySelector('#proj-map .cbtitle') !== null")
    toolbar, title = page.evaluate(BOXES)
    assert toolbar[3] <= title[1] or title[2] <= toolbar[0], (toolbar, title)  # above it, or beside it
    page.fill("#proj-key", "war")
    page.dispatch_event("#proj-key", "change")
    focused(page, "war")
    listed = page.eval_on_selector_all("#proj-neighbours tr td:nth-child(2)", "cells => cells.map((c) => c.innerText)")
    assert listed == list(run.most_similar("war", topn=10).keys)
    assert traces(page)[-1]["text"] == ["war"]  # the key itself marked
    page.select_option("#proj-dims", "2")  # and back: tiles again
    page.wait_for_function(f"() => {MAP}.dataset.firstPaintMs !== undefined && {MAP}.data === undefined")


def test_minilm_offers_no_band_colouring_nor_moved_before_a_comparison(open_sim):
    page = open_sim("projector")
    options = "os => os.filter((o) => o.disabled).map((o) => o.value)"
    assert page.eval_on_selector_all("#proj-scheme option", options) == ["band", "moved"]
    page.select_option("#proj-other", "wiki-run")
    assert page.eval_on_selector_all("#proj-scheme option", options) == ["band"]


def test_the_first_api_call_does_not_wait_for_plotly(open_sim):
    page = open_sim("lookup", cold=True)  # a first visit to a page of plotly charts: plotly.js arrives over the wire
    entries = page.evaluate("""() => performance.getEntriesByType('resource').map((e) =>
        ({ name: new URL(e.name).pathname, start: e.startTime, end: e.responseEnd, bytes: e.transferSize }))""")
    plotly = next(e for e in entries if e["name"].endswith("plotly.min.js"))
    assert plotly["bytes"] > 1_000_000  # the whole file (about 1.4 MB gzipped), not a cached copy's 304
    first_api = min(e["start"] for e in entries if e["name"].startswith("/api/"))
    assert first_api < plotly["end"]  # asked while plotly was still arriving, not after it was parsed
    assert page.evaluate("document.head.querySelector('script[src$=\"plotly.min.js\"]').async") is True


def test_the_compare_note_says_where_the_neighbours_are_searched(open_sim):
    page = open_sim("projector")
    note = page.inner_text("#proj-compare-note")
    assert "searched among the shared keys only" in note and "each list found in its own table" not in note
    page.select_option("#proj-other", "wiki-run")
    page.wait_for_selector("#proj-movers")
    headers = page.eval_on_selector_all("#proj-movers th", "hs => hs.map((h) => h.innerText)")
    assert headers[-2:] == ["near in minilm (shared keys)", "near in wiki-run (shared keys)"]
