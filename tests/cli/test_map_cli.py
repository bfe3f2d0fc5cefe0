"""`embedlab map TABLE` end to end: the tiles written beside the table and told as JSON, a second run
finding them built, a build killed between stages resumed, and mistakes as one line with exit 2."""

from __future__ import annotations

import json

from embedlab.data.clusters import write_clusters
from embedlab.vectors.tiles import TileTree


def test_a_table_is_mapped_beside_itself(run_cli, tmp_path):
    path = write_clusters(tmp_path / "c.npy", 4000, dim=8, clusters=4)
    status, out, err = run_cli("map", str(path), "--json")
    assert status == 0, err
    answer = json.loads(out)
    assert (answer["rows"], answer["dim"], answer["method"]) == (4000, 8, "pca")
    assert answer["folder"] == str(tmp_path / "c.npy.tiles" / "pca") and set(answer["stages"]) >= {"layout", "tree"}
    tree = TileTree.open(answer["folder"])
    assert len(tree.tiles) == answer["tiles"] and sum(tree.tiles.values()) == 4000
    status, out, _ = run_cli("map", str(path))  # built already: told, not built again
    assert status == 0 and "4,000 rows x 8 mapped by PCA" in out


def test_a_build_cut_short_resumes_from_its_last_stage(run_cli, tmp_path):
    path = write_clusters(tmp_path / "c.npy", 3000, dim=6, clusters=3)
    status, out, _ = run_cli("map", str(path), "--json")
    folder = tmp_path / "c.npy.tiles" / "pca"
    coords = (folder / "coords.npy").stat().st_mtime_ns
    (folder / "manifest.json").unlink()  # as if killed after the layout and the tree
    for overlay in folder.glob("overlay*"):
        overlay.unlink()
    (folder / "stage-overlay.json").unlink()
    status, again, _ = run_cli("map", str(path), "--json")
    assert status == 0 and (folder / "coords.npy").stat().st_mtime_ns == coords  # the layout was kept
    assert json.loads(again)["tiles"] == json.loads(out)["tiles"]


def test_mistakes_are_one_line_and_exit_2(run_cli, tmp_path):
    status, _, err = run_cli("map", str(tmp_path / "missing.npy"))
    assert status == 2 and len(err.strip().splitlines()) == 1 and "missing.npy" in err
    path = write_clusters(tmp_path / "c.npy", 100, dim=4)
    status, _, err = run_cli("map", str(path), "--method", "tsne")
    assert status == 2 and "tsne" in err and "pca" in err and len(err.strip().splitlines()) == 1
