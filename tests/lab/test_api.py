"""The lab's JSON API through FastAPI's TestClient, on the real MiniLM table: every route, and
bad input as 4xx JSON that names the limit."""

from __future__ import annotations

import ast
import dataclasses
import json
from pathlib import Path

import pytest

import embedlab.lab.routes
from embedlab.errors import MissingDataError
from embedlab.lab import create_app
from embedlab.lab.pages import PAGES
from embedlab.sizing import PRESETS, EmbeddingLayout, count


def test_index_nav_static_and_openapi(client):
    page = client.get("/")
    assert page.status_code == 200 and '<nav id="nav">' in page.text  # main.js fills it from /api/config
    assert client.get("/static/js/main.js").status_code == 200
    assert client.get("/api/config").json()["pages"]["size"] == "Table size"
    plotly = client.get("/static/vendor/plotly.min.js")
    assert plotly.status_code == 200 and len(plotly.content) > 1_000_000  # the installed plotly.js
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/api/tables", "/api/geometry/neighbors", "/api/geometry/pair", "/api/size"} <= set(paths)


def test_tables_are_listed_by_name(client):
    assert client.get("/api/tables").json() == {"tables": ["minilm", "wiki-run"]}


def test_neighbors_and_analogy_are_the_librarys(client, minilm_vectors):
    r = client.get("/api/geometry/neighbors", params={"table": "minilm", "word": "king", "k": 5}).json()
    expected = minilm_vectors.most_similar("king", topn=5)
    assert r["table"] == "minilm" and r["found"]["keys"] == list(expected.keys) and r["higher_is_better"]
    assert r["found"]["scores"] == pytest.approx(list(expected.scores)) and r["found"]["metric"] == "cosine"
    r = client.get("/api/geometry/analogy", params={"table": "minilm", "expression": "king - man + woman"}).json()
    assert r["found"]["keys"][0] == "queen" and r["found"]["inputs"] == ["king", "man", "woman"]


def test_pair_takes_the_dot_product_apart(client, minilm_vectors):
    r = client.get("/api/geometry/pair", params={"table": "minilm", "a": "cat", "b": "dog"}).json()
    assert (r["table"], r["a"], r["b"]) == ("minilm", "cat", "dog")
    parts = r["parts"]
    assert parts["dot"] == pytest.approx(parts["norm_a"] * parts["norm_b"] * parts["cosine"], rel=1e-6)
    assert parts["cosine"] == pytest.approx(minilm_vectors.similarity("cat", "dog"), rel=1e-5)
    assert r["distance"] == pytest.approx(minilm_vectors.similarity("cat", "dog", metric="euclidean"), rel=1e-5)


def test_size_is_embedlab_sizing(client):
    r = client.get("/api/size", params={"vocab_size": 50257, "dim": 768, "max_len": 1024, "tied": False}).json()
    layout = EmbeddingLayout(vocab_size=50257, dim=768, positions="learned", max_len=1024, tied=False)
    assert r["total_params"] == count(layout).total_params == 2 * 50257 * 768 + 1024 * 768
    presets = client.get("/api/size/presets").json()
    # whole layouts, as JSON writes them (a tuple field, such as adaptive_cutoffs, arrives as a list)
    assert presets == json.loads(json.dumps({name: dataclasses.asdict(layout) for name, layout in PRESETS.items()}))


@pytest.mark.parametrize(
    "path, params, status, message",
    [
        ("/api/geometry/neighbors", {"table": "nope", "word": "king"}, 404, "unknown table 'nope'; known: minilm"),
        ("/api/geometry/neighbors", {"table": "minilm", "word": "kign"}, 404, "unknown key 'kign'"),
        ("/api/geometry/neighbors", {"table": "minilm", "word": "king", "k": 51}, 422, "k: "),
        ("/api/geometry/neighbors", {"table": "minilm", "word": "x" * 201}, 422, "word: "),
        ("/api/geometry/analogy", {"table": "minilm", "expression": "king -"}, 400, "cannot parse analogy 'king -'"),
        ("/api/size", {"vocab_size": -1}, 422, "vocab_size: "),
        ("/api/size", {"vocab_size": 0}, 400, "vocab_size must be >= 1 for a text layout; got 0"),
        ("/api/size", {"dtype": "fp64"}, 422, "dtype: "),
        ("/api/geometry/pair", {"table": "../../etc/passwd", "a": "a", "b": "b"}, 404, "unknown table"),
    ],
)
def test_bad_input_is_a_json_4xx_naming_the_value(client, path, params, status, message):
    r = client.get(path, params=params)
    assert r.status_code == status, r.text
    assert message in r.json()["error"] and "Traceback" not in r.text


def test_messages_name_a_run_table_not_its_path(client, lab_run):
    r = client.get("/api/geometry/neighbors", params={"table": "wiki-run", "word": "qqqq"})
    assert r.status_code == 404 and "keys of wiki-run" in r.json()["error"] and str(lab_run) not in r.text


def test_a_table_that_does_not_load_is_a_400_without_its_path(tmp_path):
    from fastapi.testclient import TestClient

    broken = tmp_path / "not-a-table"
    broken.mkdir()
    with TestClient(create_app([str(broken)], cache=tmp_path / "cache")) as client:
        r = client.get("/api/geometry/neighbors", params={"table": "not-a-table", "word": "king"})
    assert r.status_code == 400 and "table 'not-a-table' could not be loaded" in r.json()["error"]
    assert str(tmp_path) not in r.text


def test_unknown_vectors_at_start_are_refused():
    with pytest.raises(MissingDataError, match="^table 'no/such/table' is neither a built-in table"):
        create_app(["no/such/table"])


# Every page's route validates, calls sims/ and returns (lab/routes/X.py imports nothing deeper).
THREE_FILE_PAGES = list(PAGES)
ROUTE_IMPORTS = ("fastapi", "typing", "__future__", "embedlab.lab.deps", "embedlab.lab.schemas", "embedlab.sims")


@pytest.mark.parametrize("page", THREE_FILE_PAGES)
def test_a_route_reaches_only_sims(page):
    source = Path(embedlab.lab.routes.__file__).parent / f"{page}.py"
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        names += [node.module] if isinstance(node, ast.ImportFrom) else []
        for name in names:
            assert name.startswith(ROUTE_IMPORTS), f"routes/{page}.py imports {name}"
