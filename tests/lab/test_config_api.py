"""/api/config and /openapi.json: every page's limits are the constants its routes enforce, the theme
groups and colours are embedlab.data.themes', and every JSON route documents its response body."""

from __future__ import annotations

import json
import re

import pytest
from fastapi.testclient import TestClient

from embedlab.data.themes import COLOURS, OTHER, THEMES
from embedlab.errors import BusyError
from embedlab.lab import create_app
from embedlab.lab.pages import PAGES
from embedlab.lab.routes import PAGE_ROUTES, training
from embedlab.lab.routes.config import SIMS
from embedlab.sims import attention, geometry, gradients, lookup, recipe, size, subwords, tying
from embedlab.sims import training as sims_training
from embedlab.sims.limits import MAX_TOKEN
from embedlab.sims.training import LiveRun

NAV = ["lookup", "size", "recipe", "patches", "tying", "scale", "training", "subwords", "geometry", "gradients",
       "attention", "context", "distill", "bag", "arena", "projector", "advise", "nodes"]  # fmt: skip


def test_every_page_has_its_title_and_limits(client):
    answer = client.get("/api/config").json()
    assert list(answer["pages"]) == list(answer["limits"]) == list(PAGES) == NAV
    assert answer["pages"] == PAGES and all(answer["pages"].values())
    assert answer["limits"] == {name: module.LIMITS for name, module in SIMS.items()}
    assert [module.__name__ for module in SIMS.values()] == [f"embedlab.sims.{name}" for name in NAV]


def test_a_page_is_its_three_files():
    assert [module.__name__ for module in PAGE_ROUTES] == [f"embedlab.lab.routes.{name}" for name in NAV]
    for name, route in zip(PAGES, PAGE_ROUTES, strict=True):  # limits live in the page's sims module only
        assert getattr(route, "LIMITS", SIMS[name].LIMITS) is SIMS[name].LIMITS, route.__name__


@pytest.mark.parametrize(
    "page, key, value",
    [
        ("lookup", "token", MAX_TOKEN),
        ("size", "rows", [1, size.MAX_SLICE_ROWS]),
        ("size", "patch_size", [1, size.MAX_IMAGE]),
        ("recipe", "recipes", list(recipe.RECIPE_NAMES)),
        ("tying", "words", [tying.MIN_WORDS, tying.MAX_WORDS]),
        ("training", "max_words", [sims_training.MIN_WORDS, sims_training.MAX_WORDS]),
        ("subwords", "text", subwords.MAX_TEXT),
        ("geometry", "k", [1, geometry.MAX_K]),
        ("geometry", "metrics", ["cosine", "dot", "euclidean"]),
        ("gradients", "vocab_size", [2, gradients.MAX_VOCAB]),
        ("attention", "text", attention.MAX_TEXT),
    ],
)
def test_a_limit_is_what_the_route_enforces(client, page, key, value):
    assert client.get("/api/config").json()["limits"][page][key] == value


@pytest.mark.parametrize("path, params, status", [
    ("/api/lookup/row", {"table": "minilm", "token": "x" * (MAX_TOKEN + 1)}, 422),
    ("/api/lookup/onehot", {"table": "minilm", "token": "king", "size": lookup.MAX_VOCAB + 1}, 422),
    ("/api/geometry/neighbors", {"table": "minilm", "word": "king", "k": geometry.MAX_K + 1}, 422),
    ("/api/geometry/neighbors", {"table": "minilm", "word": "king", "metric": "manhattan"}, 422),
    ("/api/tying", {"words": " ".join(f"w{i}" for i in range(tying.MAX_WORDS + 1))}, 400),
    ("/api/size", {"dim": size.MAX_DIM + 1}, 422),
    ("/api/gradients/batch", {"vocab_size": gradients.MAX_VOCAB + 1}, 422),
    ("/api/attention", {"text": "x" * (attention.MAX_TEXT + 1)}, 422),
])  # fmt: skip
def test_one_past_a_limit_is_refused(client, path, params, status):
    assert client.get(path, params=params).status_code == status


def test_themes_and_their_colours(client):
    themes = client.get("/api/config").json()["themes"]
    assert themes["names"] == list(THEMES) and themes["other"] == OTHER and themes["chosen"] == "chosen"
    assert themes["colours"] == COLOURS and set(COLOURS) == {*THEMES, OTHER}
    assert all(re.fullmatch(r"#[0-9a-f]{6}", c) for c in COLOURS.values())
    assert len(set(COLOURS.values())) == len(COLOURS)  # every group its own colour


def test_no_page_retypes_the_palette_or_the_limits(client):
    for name in NAV:
        script = client.get(f"/static/js/{name}.js").text
        assert not any(colour in script for colour in COLOURS.values()), name
    assert client.get("/static/js/api.js").status_code == 404  # split into http.js, dom.js and plot.js


def test_every_json_route_documents_its_answer(client):
    spec = client.get("/openapi.json").json()
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            content = operation["responses"]["200"]["content"]
            if "application/json" in content:  # a model of lab/schemas/, not a bare object
                assert "#/components/schemas/" in json.dumps(content["application/json"]), f"{method} {path}"
    schemas = spec["components"]["schemas"]
    assert {"LabConfig", "TableList", "RowLookup", "TyingView", "TrainingState", "UpdateFrequency"} <= set(schemas)


def test_a_busy_run_is_a_409_from_the_apps_handler(lab_run, tmp_path):
    class Busy(LiveRun):
        def start(self, config, *, max_words=None, watch=()):
            raise BusyError("run 1 (sgns on c) is still running; stop it before starting another")

    app = create_app([str(lab_run)], cache=tmp_path)
    app.state.lab.service("training", lambda: Busy(tmp_path / "training", corpora={"c": "c"}))
    with TestClient(app) as client:
        r = client.post("/api/training/start", json={"corpus": "c"})
    assert r.status_code == 409 and r.json() == {"error": "run 1 (sgns on c) is still running; stop it before "
                                                          "starting another"}  # fmt: skip
    assert "BusyError" not in vars(training)  # the route leaves the status to the app
