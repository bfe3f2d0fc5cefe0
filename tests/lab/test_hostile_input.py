"""Hostile text in every text or name parameter of every route, as a careless (or curious) user sends
it: control characters, an accent alone, bidi marks, bytes that are no UTF-8, very long strings.

The routes come from the app's own /openapi.json, so a route added later is covered without a line
here: each string query parameter (and each string item of a list parameter), and each string field
of a JSON body, gets every hostile value, alone and after a sane value (to reach past the first
check). Every answer must be a 4xx JSON {"error": "..."} or a 200 with a well-formed body; never a 5xx.
"""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from embedlab.lab import create_app

# name -> (what it is, the value): sent as text, percent-encoded by this module
HOSTILE = {
    "NUL": "\x00",
    "ESC": "\x1b",
    "DEL": "\x7f",
    "an accent alone": "\u0301",
    "right-to-left override": "\u202e",
    "left-to-right isolate": "\u2066",
    "a long string": "x" * 20_000,
    "many words": "bank " * 4_000,
}
# bytes that are no UTF-8, sent as raw escapes: a lone byte, and a surrogate's UTF-8 form
RAW = {"byte FF": "%FF", "a surrogate's bytes": "%ED%A0%80"}
# what a required parameter holds while another one is tried (any other name: "bank")
SANE = {
    "table": "minilm",
    "other": "minilm",
    "token": "king",
    "key": "king",
    "word": "bank",
    "a": "king",
    "b": "queen",
    "expression": "king - man + woman",
    "text": "the bank",
}
BODY_SANE = {"/api/training/start": {}}  # a body's other fields keep their defaults


def _spec() -> dict:
    return create_app(["minilm"]).openapi()


def _is_text(schema: dict) -> bool:
    kinds = [schema, *schema.get("anyOf", [])]
    return any(k.get("type") == "string" or k.get("items", {}).get("type") == "string" for k in kinds)


def _is_list(schema: dict) -> bool:
    return any(k.get("type") == "array" for k in [schema, *schema.get("anyOf", [])])


def _query_cases(spec: dict) -> list[tuple[str, str, dict]]:
    """(path, the parameter tried, every query parameter) for each text parameter of each GET route."""
    cases = []
    for path, methods in spec["paths"].items():
        params = methods.get("get", {}).get("parameters", [])
        for p in params:
            if p["in"] == "query" and _is_text(p["schema"]):
                cases.append((path, p["name"], {q["name"]: q for q in params}))
    return cases


def _body_cases(spec: dict) -> list[tuple[str, str]]:
    """(path, field) for each string field of each JSON request body."""
    cases = []
    for path, methods in spec["paths"].items():
        for operation in methods.values():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if body:
                model = spec["components"]["schemas"][body["schema"]["$ref"].rsplit("/", 1)[-1]]
                cases += [(path, name) for name, field in model["properties"].items() if _is_text(field)]
    return cases


SPEC = _spec()
QUERY_CASES = _query_cases(SPEC)
BODY_CASES = _body_cases(SPEC)


def _query(params: dict, tried: str, raw: str) -> str:
    """The query string: `tried` holds `raw` (already percent-encoded), the other required ones sane."""
    parts = []
    for name, p in params.items():
        if name == tried:
            value = [raw, raw] if _is_list(p["schema"]) else [raw]  # a list: two items (some need >= 2)
        elif p.get("required"):
            kind = p["schema"].get("type")
            value = [quote(SANE.get(name, "bank"))] if kind == "string" else [str(p["schema"].get("minimum", 0))]
        else:
            continue
        parts += [f"{name}={v}" for v in value]
    return "&".join(parts)


def _check(response, what: str) -> str | None:
    """None if the answer is a well-formed 4xx or 200; else what is wrong with it."""
    if response.status_code >= 500:
        return f"{what}: {response.status_code} {response.text[:200]}"
    if response.status_code >= 400:
        try:
            error = response.json()["error"]
        except (ValueError, KeyError):
            return f"{what}: {response.status_code} without a JSON error: {response.text[:200]}"
        return None if isinstance(error, str) and error else f"{what}: empty error {response.text[:200]}"
    if response.status_code != 200:
        return f"{what}: status {response.status_code}"
    if response.headers["content-type"].startswith("application/json"):
        response.json()  # parses, or the test fails here
    elif not response.content:
        return f"{what}: an empty 200"
    return None


def _values(prefix: str) -> dict[str, str]:
    """Every hostile value, percent-encoded, alone and after `prefix` (a sane value)."""
    values = {}
    for name, text in HOSTILE.items():
        values[name] = quote(text)
        values[f"{prefix!r} + {name}"] = quote(prefix + text)
    for name, raw in RAW.items():
        values[name] = raw
        values[f"{prefix!r} + {name}"] = quote(prefix) + raw
    return values


def test_every_text_parameter_of_every_route_is_tried():
    tried = {(path, name) for path, name, _ in QUERY_CASES} | set(BODY_CASES)
    # the pages' text and name parameters, as examples of what the enumeration must find
    expected = {
        ("/api/context", "text"),
        ("/api/context", "word"),
        ("/api/projector/focus", "key"),
        ("/api/subwords/split", "text"),
        ("/api/training/row", "token"),
        ("/api/training/start", "corpus"),
        ("/api/lookup/row", "table"),
        ("/api/geometry/analogy", "expression"),
    }
    assert expected <= tried and len(tried) >= 30


@pytest.mark.parametrize("path, name, params", QUERY_CASES, ids=[f"{p} {n}" for p, n, _ in QUERY_CASES])
def test_hostile_query_text_is_a_4xx_or_a_sane_200(client, path, name, params):
    wrong = []
    for what, raw in _values(SANE.get(name, "bank")).items():
        response = client.get(f"{path}?{_query(params, name, raw)}")
        wrong.append(_check(response, f"{name}={what}"))
    assert not [w for w in wrong if w], [w for w in wrong if w]


@pytest.mark.parametrize("path, name", BODY_CASES, ids=[f"{p} {n}" for p, n in BODY_CASES])
def test_hostile_body_text_is_a_4xx_or_a_sane_200(client, path, name):
    wrong = []
    for what, text in {**HOSTILE, "a lone surrogate": "\ud800"}.items():
        body = json.dumps({**BODY_SANE.get(path, {}), name: text})  # ASCII: the surrogate as \ud800
        response = client.post(path, content=body, headers={"Content-Type": "application/json"})
        wrong.append(_check(response, f"{name}={what}"))
    for what, raw in {"byte FF": b"\xff", "a surrogate's bytes": b"\xed\xa0\x80"}.items():
        response = client.post(
            path, content=b'{"%s": "%s"}' % (name.encode(), raw), headers={"Content-Type": "application/json"}
        )
        wrong.append(_check(response, f"{name}={what}"))
    assert not [w for w in wrong if w], [w for w in wrong if w]
    assert client.get("/api/training/state").json()["status"] != "running"  # nothing hostile started a run
