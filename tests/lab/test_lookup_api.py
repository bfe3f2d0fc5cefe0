"""The lookup routes and the table-size heat map's slice, through FastAPI's TestClient on the real
MiniLM table and the small training run: the numbers are the table's, bad input is a JSON 4xx
naming the limit."""

from __future__ import annotations

import numpy as np
import pytest

from embedlab.sims.lookup import THEMES
from embedlab.vectors.keys import themed_keys

KING = {"table": "minilm", "token": "king"}


def test_row_is_the_tables_row(client, minilm_vectors):
    r = client.get("/api/lookup/row", params={"table": "minilm", "token": "paris"}).json()
    row = minilm_vectors.get_vector("paris")
    assert r["table"] == "minilm" and r["key"] == "paris" and r["index"] == minilm_vectors.index_of("paris")
    assert r["row"] == row.tolist() and (r["vocab_size"], r["dim"]) == (30522, 384)
    assert r["norm"] == pytest.approx(float(np.linalg.norm(row.astype(np.float64))), rel=1e-12)


def test_map_marks_the_token_and_says_how_it_was_made(client, minilm_vectors):
    themed = len(themed_keys(minilm_vectors))
    raw = client.get("/api/lookup/map", params={"table": "minilm", "token": "cat"}).json()
    unit = client.get("/api/lookup/map", params={"table": "minilm", "token": "cat", "normalize": True}).json()
    assert raw["words"][raw["highlight"]] == "cat" and raw["projection"]["n_points"] == themed + 1 == len(
        raw["projection"]["coordinates"]
    )
    assert set(raw["themes"]) == {*THEMES, "chosen"} and raw["theme_names"] == [*THEMES, "chosen"]
    shape = (raw["projection"]["centred"], raw["projection"]["normalised"], unit["projection"]["normalised"])
    assert shape == (True, False, True)
    assert raw["caption"].startswith(f"PCA of {themed + 1} rows, centred, not normalised; axes explain")
    assert (
        unit["projection"]["coordinates"] != raw["projection"]["coordinates"]
    )  # MiniLM's rows differ in length: normalising moves points


def test_map_shows_the_groups_asked_for(client, minilm_vectors):
    picked = ["function words", "animals"]
    r = client.get("/api/lookup/map", params={"table": "minilm", "token": "cat", "themes": picked}).json()
    assert r["theme_names"] == ["animals", "function words", "chosen"]
    assert r["words"] == [*THEMES["animals"], *THEMES["function words"], "cat"] and r["themes"][-1] == "chosen"
    xy = np.array(r["projection"]["coordinates"])
    away = np.linalg.norm(xy - xy[r["highlight"]], axis=1)
    assert [r["themes"][i] for i in np.argsort(away)[1:4]] == ["animals"] * 3  # cat among the animals
    run = client.get("/api/lookup/map", params={"table": "wiki-run", "token": "two", "themes": "numbers"}).json()
    assert set(run["themes"]) == {"numbers"} and run["words"][run["highlight"]] == "two"


def test_onehot_product_equals_the_row(client, minilm_vectors):
    r = client.get("/api/lookup/onehot", params={"table": "minilm", "token": "paris", "size": 5, "dims": 6}).json()
    assert r["table"] == "minilm" and len(r["keys"]) == 5 and r["keys"][r["position"]] == "paris"
    assert r["one_hot"] == [1.0 if i == r["position"] else 0.0 for i in range(5)]
    assert r["product"] == r["row"] == minilm_vectors.get_vector("paris")[:6].tolist()
    assert r["e_small"] == minilm_vectors[r["keys"]][:, :6].tolist() and r["dim"] == 384
    assert r["max_abs_difference"] == 0


def test_slice_is_a_block_of_the_table(client, minilm_vectors):
    r = client.get("/api/size/slice", params={"table": "minilm", "start": 2000, "rows": 4, "dims": 5}).json()
    assert r["keys"] == minilm_vectors.index_to_key[2000:2004] and r["rows"] == [2000, 2001, 2002, 2003]
    assert r["values"] == minilm_vectors.vectors[2000:2004, :5].tolist() and r["vocab_size"] == 30522
    opened = client.get("/api/size/slice", params={"table": "minilm", "rows": 3, "dims": 1}).json()
    assert opened["keys"] == ["the", "of", "and"] and opened["rows"] == [1996, 1997, 1998]  # past [PAD], [unused…], "!"


def test_slice_of_a_run_and_a_neighbourhood(client, lab_run):
    from embedlab.vectors import Vectors

    run = Vectors.load(lab_run)
    r = client.get("/api/size/slice", params={"table": "wiki-run", "rows": 3, "dims": 64}).json()
    assert np.array(r["values"]).shape == (3, 32) and r["dim"] == 32  # cut at the run's 32 columns
    r = client.get("/api/size/slice", params={"table": "wiki-run", "token": "two", "rows": 4, "dims": 8}).json()
    assert r["keys"] == ["two", *run.most_similar("two", topn=3).keys]
    assert r["values"] == run[r["keys"]][:, :8].tolist()


@pytest.mark.parametrize(
    "path, params, status, message",
    [
        ("/api/lookup/row", {"table": "nope", "token": "king"}, 404, "unknown table 'nope'; known: minilm, wiki-run"),
        ("/api/lookup/row", {"table": "minilm", "token": "kign"}, 404, "unknown key 'kign'"),
        ("/api/lookup/row", {"table": "minilm", "token": "x" * 101}, 422, "token: String should have at most 100"),
        ("/api/lookup/row", {"table": "minilm", "token": ""}, 422, "token: String should have at least 1"),
        ("/api/lookup/map", {**KING, "normalize": "maybe"}, 422, "normalize: "),
        ("/api/lookup/map", {"table": "minilm", "token": "kign"}, 404, "unknown key 'kign'"),
        ("/api/lookup/map", {**KING, "themes": "fish"}, 400, "theme 'fish' is not one of animals, colours, people"),
        ("/api/lookup/map", {**KING, "themes": [*THEMES, "war"]}, 422, "themes: List should have at most"),
        ("/api/lookup/onehot", {**KING, "size": 17}, 422, "size: Input should be less than or equal to 16"),
        ("/api/lookup/onehot", {**KING, "dims": 65}, 422, "dims: Input should be less than or equal to 64"),
        ("/api/size/slice", {"table": "minilm", "rows": 257}, 422, "rows: Input should be less than or equal to 256"),
        ("/api/size/slice", {"table": "minilm", "dims": 513}, 422, "dims: Input should be less than or equal to 512"),
        ("/api/size/slice", {"table": "minilm", "start": -1}, 422, "start: Input should be greater than or equal to 0"),
        ("/api/size/slice", {"table": "minilm", "start": 30522}, 400, "start must be between 0 and 30521; got 30522"),
        ("/api/size/slice", {"table": "minilm", "token": "kign"}, 404, "unknown key 'kign'"),
        ("/api/size/slice", {"table": "../etc", "start": 0}, 404, "unknown table '../etc'"),
    ],
)  # fmt: skip
def test_bad_input_is_a_json_4xx_naming_the_limit(client, path, params, status, message):
    r = client.get(path, params=params)
    assert r.status_code == status, r.text
    assert message in r.json()["error"] and "Traceback" not in r.text


def test_routes_are_documented(client):
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/lookup/row", "/api/lookup/map", "/api/lookup/onehot", "/api/size/slice"):
        assert paths[path]["get"]["description"], path
