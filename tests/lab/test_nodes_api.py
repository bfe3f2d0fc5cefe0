"""/api/nodes: the answer is sims.nodes.karate_passes' for the same setting (made once per app), the
answer's fields are documented, and settings outside the limits are 4xx naming the value."""

from __future__ import annotations

import pytest

from embedlab.files import json_safe
from embedlab.sims.nodes import karate_passes


@pytest.mark.parametrize("settings", [{}, {"p": 0.25, "q": 4, "seed": 7, "walks": 3}])
def test_the_answer_is_the_librarys(client, settings):
    r = client.get("/api/nodes", params=settings)
    assert r.status_code == 200, r.text
    expected = json_safe(karate_passes(**settings))
    assert r.json() == expected
    assert client.get("/api/nodes", params=settings).json() == expected  # the kept answer, the same
    assert [s["passes"] for s in expected["snapshots"]] == [0, 1, 2, 4, 8, 16]
    assert len(expected["snapshots"][0]["points"]) == 34 and expected["club_names"] == ["Mr. Hi", "Officer"]


def test_the_answer_is_documented_field_by_field(client):
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    assert set(schemas["NodePasses"]["properties"]) == set(json_safe(karate_passes()))
    assert schemas["Snapshot"]["properties"]["passes"]["description"].startswith("passes over the walks done")


@pytest.mark.parametrize(
    "params, status, message",
    [
        ({"p": 3}, 400, "p must be one of 0.25, 0.5, 1.0, 2.0, 4.0; got 3.0"),
        ({"q": 0}, 422, "q: "),
        ({"seed": 100}, 422, "seed: "),
        ({"walks": 0}, 422, "walks: "),
        ({"walks": 11}, 422, "walks: "),
    ],
)
def test_settings_outside_the_limits_are_4xx_naming_them(client, params, status, message):
    r = client.get("/api/nodes", params=params)
    assert r.status_code == status and message in r.json()["error"], r.text
