"""Load benchmark of the lab: concurrent clients against every route it registers, on 127.0.0.1.

    python bench/lab_load.py                               # starts `embedlab lab` on MiniLM: 8 clients, 20 s
    python bench/lab_load.py --vectors minilm --vectors runs/demo --vectors wiki.bin   # every route timed
    python bench/lab_load.py --clients 32 --burners 2      # beside two CPU-bound processes
    python bench/lab_load.py --url http://127.0.0.1:8000   # a lab that is already running
    python bench/lab_load.py --json                        # one JSON object on stdout

The routes come from the lab itself (its /openapi.json): each has one request in CALLS, or a reason
in UNTIMED not to be timed (a POST that starts minutes of work). A route the lab registers that is in
neither is reported and the exit status is 1, as it is for any 5xx or failed connection. Some calls
need a kind of table the lab may not serve: a training run folder (update counts), a subword table
(a fastText .bin), a second table to compare with; they are listed as not timed, with the reason, when
the lab serves none. The training page's calls need a live run: the warm-up starts a small one (1,000
words) when the lab has none, and waits for it to end; the Bag of embeddings page's first call trains
its default classifier.

Each client is a thread with its own keep-alive connection, sending CALLS one after the other (each
client starts at a different place in the list) until the time is up. Every call is made once before
the clock starts, so what is built or kept on first use (MiniLM's layers, the subword vocabularies, a
σ sweep, a projector map) is not timed: the figures are those of a lab in use. Latency is wall time
from sending a request to having its whole body; the script prints p50 and p95 per route, for the
routes that always queue for the heavy slot (HEAVY in lab/deps.py) and for the others ("cheap"), the
counts of 4xx and 5xx answers, and the load average before and after (with --burners N, N CPU-bound
processes run beside the clients and the lab for the timed part).

Only the standard library talks to the lab, so the script runs wherever `embedlab lab` does (`make
demo`'s environment). The clients and the server share the machine: on 2 cores, more clients measure
queueing more than the work of one request, which is why both the count and the duration are bounded.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

from machine import burning, cpu_model  # this folder's CPU-bound neighbours

MAX_CLIENTS = 64
MAX_SECONDS = 300
MAX_BURNERS = 16
ANSWER_S = 600  # a first answer may train or fit something (a σ sweep, the subword vocabularies)
TRAINING_RUN = {"corpus": "enwiki-sample", "dim": 8, "epochs": 1, "max_words": 1_000}  # the smallest the page allows

# Placeholders in CALLS, filled from what the lab serves (`picks`).
TABLE, RUN, SUBWORDS, OTHER, WATCHED, BUILD = "{table}", "{run}", "{subwords}", "{other}", "{watched}", "{build}"
NEEDS = {
    RUN: "a training run folder (embedlab train --out DIR; serve it with --vectors DIR)",
    SUBWORDS: "a subword table (a fastText .bin, or embedlab train --subwords)",
    OTHER: "a second served table to compare with",
    WATCHED: "a training run's frame",
    BUILD: "the table's tiled map (built in the warm-up)",
}


@dataclass(frozen=True)
class Call:
    """One request of the mix: `name` is "METHOD /path" as /openapi.json lists the route."""

    name: str
    params: dict = field(default_factory=dict)  # query parameters; placeholder values are filled in

    @property
    def method(self) -> str:
        return self.name.split()[0]

    @property
    def path(self) -> str:
        return self.name.split()[1]


CALLS = [
    Call("GET /api/tables"),
    Call("GET /api/config"),
    Call("GET /api/lookup/row", {"table": TABLE, "token": "king"}),
    Call("GET /api/lookup/map", {"table": TABLE, "token": "king"}),
    Call("GET /api/lookup/onehot", {"table": TABLE, "token": "king"}),
    Call("GET /api/size/presets"),
    Call("GET /api/size", {"vocab_size": 50257, "dim": 768, "positions": "learned", "max_len": 1024}),
    Call("GET /api/size/activations", {"vocab_size": 50257, "dim": 768, "max_len": 1024, "seq": 1024}),
    Call("GET /api/size/slice", {"table": TABLE, "start": 2000, "rows": 32, "dims": 64}),
    Call("GET /api/size/stored", {"vocab_size": 50257, "dim": 768, "dsub": 2}),
    Call("GET /api/recipe", {"recipe": "bert", "text": "the cat sat on the mat", "index": 2, "position": 40}),
    Call("GET /api/patches/options"),
    Call("GET /api/patches/image.png", {"image": "china", "size": 224}),
    Call("GET /api/patches/tiling", {"size": 224, "patch_size": 16, "dim": 192}),
    Call("GET /api/patches/patch", {"patch_size": 16, "row": 7, "col": 7}),
    Call("GET /api/patches/variance", {"patch_size": 16}),
    Call("GET /api/tying", {"table": TABLE, "a": "cat", "b": "queen", "t": 0.5}),
    Call("GET /api/scale", {"d_model": 512, "scale": "sqrt_d"}),
    Call("GET /api/scale/sweep", {"steps": 5}),  # kept after the warm-up, as on the page after its first sweep
    Call("GET /api/training/options"),
    Call("GET /api/training/state"),
    Call("GET /api/training/row", {"token": WATCHED, "frame": 0}),
    Call("POST /api/training/stop"),  # nothing runs after the warm-up: answers the state at once
    Call("GET /api/subwords/vocabularies"),
    Call("GET /api/subwords/split", {"text": "unhappiness"}),
    Call("GET /api/subwords/table"),
    Call("GET /api/subwords/tables"),
    Call("GET /api/subwords/unseen", {"table": SUBWORDS, "word": "unhappiness"}),
    Call("GET /api/geometry/neighbors", {"table": TABLE, "word": "king", "k": 10}),
    Call("GET /api/geometry/analogy", {"table": TABLE, "expression": "paris - france + italy", "k": 5}),
    Call("GET /api/geometry/pair", {"table": TABLE, "a": "cat", "b": "dog"}),
    Call("GET /api/geometry/defaults", {"table": TABLE}),
    Call("GET /api/gradients/batch", {"ids": "2 2 5"}),
    Call("GET /api/gradients/steps", {"first": "2 2 5", "second": "5 7"}),
    Call("GET /api/gradients/tables"),
    Call("GET /api/gradients/updates", {"table": RUN}),
    Call("GET /api/attention", {"text": "the cat sat on the mat because it was tired", "head": 3}),
    Call("GET /api/context"),
    Call("GET /api/distill"),
    Call("GET /api/distill/steps"),  # measured in the warm-up, then kept
    Call("GET /api/bag"),
    # its warm-up trains the page's default classifier (seconds), which every later call of the page uses
    Call("GET /api/bag/predict", {"text": "a small freshwater fish of the carp family", "k": 3}),
    Call("GET /api/bag/quantize", {"cutoff": 10_000, "dsub": 2}),  # measured in the warm-up, then kept
    Call("GET /api/arena"),
    Call("GET /api/projector/info", {"table": TABLE}),
    Call("GET /api/projector/keys", {"table": TABLE}),
    Call("GET /api/projector/layout", {"table": TABLE, "method": "pca", "dims": 2}),
    Call("GET /api/projector/colours", {"table": TABLE, "by": "theme"}),
    Call("GET /api/projector/focus", {"table": TABLE, "key": "king"}),
    Call("GET /api/projector/compare", {"table": OTHER, "other": TABLE}),
    Call("GET /api/projector/displacement", {"table": OTHER, "other": TABLE}),
    Call("GET /api/projector/tiles", {"table": TABLE}),  # built in the warm-up: the manifest at once
    Call("GET /api/projector/tile", {"table": TABLE, "build": BUILD, "tile": "0/0/0"}),
    Call("GET /api/projector/overlay", {"table": TABLE, "build": BUILD, "tile": "0/0/0"}),
    Call("GET /api/projector/search", {"table": TABLE, "pattern": "^king", "regex": "true"}),
    Call("GET /api/projector/neighbours", {"table": TABLE, "row": 2000}),
    Call("GET /api/advise"),
    Call("GET /api/nodes"),
]
UNTIMED = {
    "POST /api/training/start": "starts a training run (seconds to minutes of work in the background); "
    "the warm-up starts one when the lab has none",
    "POST /api/arena/start": "starts the quick race (minutes of training in the background)",
    "POST /api/bag/start": "starts a classifier run (seconds of training in the background); the warm-up's "
    "first /api/bag/predict trains the page's default one",
}


def routes(openapi: dict) -> set[str]:
    """Every route of an /openapi.json document, as "METHOD /path"."""
    return {f"{method.upper()} {path}" for path, item in openapi["paths"].items() for method in item}


def uncovered(openapi: dict) -> list[str]:
    """The routes the lab registers that the bench neither times nor says why it does not."""
    return sorted(routes(openapi) - {c.name for c in CALLS} - set(UNTIMED))


def queued_routes() -> set[str]:
    """The routes that always wait for the heavy slot (lab/deps.py HEAVY), from the installed lab."""
    from embedlab.lab.deps import one_heavy_at_a_time
    from embedlab.lab.routes import ROUTERS

    def queues(dependant) -> bool:
        return any(d.call is one_heavy_at_a_time or queues(d) for d in dependant.dependencies)

    return {f"{m} {r.path}" for router in ROUTERS for r in router.routes if queues(r.dependant) for m in r.methods}


class Lab:
    """One keep-alive HTTP connection to the lab (http.client), reopened after a failure."""

    def __init__(self, url: str, timeout: float = ANSWER_S) -> None:
        parts = urllib.parse.urlsplit(url)
        self.host, self.port, self.timeout = parts.hostname, parts.port or 80, timeout
        self.conn: http.client.HTTPConnection | None = None

    def request(self, method: str, path: str, params: dict | None = None, body: dict | None = None):
        """-> (status, body bytes). Raises OSError or http.client.HTTPException when no answer comes."""
        if self.conn is None:
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        query = "?" + urllib.parse.urlencode(params, doseq=True) if params else ""
        data, headers = (json.dumps(body).encode(), {"Content-Type": "application/json"}) if body else (None, {})
        try:
            self.conn.request(method, path + query, body=data, headers=headers)
            response = self.conn.getresponse()
            return response.status, response.read()
        except (OSError, http.client.HTTPException):
            self.close()
            raise

    def json(self, method: str, path: str, params: dict | None = None, body: dict | None = None) -> dict:
        status, data = self.request(method, path, params, body)
        if status >= 400:
            raise SystemExit(f"{method} {path} answered {status}: {data[:300].decode(errors='replace')}")
        return json.loads(data)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def picks(lab: Lab) -> dict[str, str]:
    """What the placeholders stand for on this lab; a placeholder the lab cannot fill is left out."""
    tables = lab.json("GET", "/api/tables")["tables"]
    runs = lab.json("GET", "/api/gradients/tables")["tables"]
    subwords = lab.json("GET", "/api/subwords/tables")["tables"]
    table = "minilm" if "minilm" in tables else tables[0]
    others = [t for t in runs + tables if t != table]  # a run folder's few keys compare in seconds
    chosen = {TABLE: table, RUN: runs[0] if runs else None, SUBWORDS: subwords[0] if subwords else None}
    chosen[OTHER] = others[0] if others else None
    chosen[WATCHED] = watched_token(lab)
    chosen[BUILD] = map_build(lab, table)
    return {k: v for k, v in chosen.items() if v is not None}


def watched_token(lab: Lab) -> str | None:
    """A token watched by the lab's live training run, after starting a small run if it has had none
    and waiting for it to end (the timed mix is not to run beside a training run)."""
    state = lab.json("GET", "/api/training/state")
    if state["frame_count"] == 0 and state["status"] != "running":
        state = lab.json("POST", "/api/training/start", body=TRAINING_RUN)
    deadline = time.monotonic() + ANSWER_S
    while state["status"] == "running" and time.monotonic() < deadline:
        time.sleep(0.5)
        state = lab.json("GET", "/api/training/state")
    return state["tokens"][0] if state["frame_count"] and state["tokens"] else None


def map_build(lab: Lab, table: str) -> str | None:
    """The build of `table`'s tiled PCA map, after waiting for the lab to build it (a child process)."""
    deadline = time.monotonic() + ANSWER_S
    manifest = lab.json("GET", "/api/projector/tiles", params={"table": table})
    while manifest["state"] != "ready" and time.monotonic() < deadline:
        time.sleep(0.5)
        manifest = lab.json("GET", "/api/projector/tiles", params={"table": table})
    return manifest.get("build")


def fill(call: Call, chosen: dict[str, str]) -> dict | None:
    """The call's query with its placeholders filled; None when the lab lacks what one stands for."""
    if any(v in NEEDS and v not in chosen for v in call.params.values()):
        return None
    return {k: chosen.get(v, v) if isinstance(v, str) else v for k, v in call.params.items()}


@dataclass
class Tally:
    """What the clients saw, per route; appended to under a lock."""

    seconds: dict[str, list[float]] = field(default_factory=dict)
    statuses: dict[str, list[int]] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, name: str, seconds: float, status: int) -> None:
        with self.lock:
            self.seconds.setdefault(name, []).append(seconds)
            self.statuses.setdefault(name, []).append(status)


def client(url: str, mix: list[tuple[Call, dict]], start: int, deadline: float, tally: Tally) -> None:
    lab, i = Lab(url), start
    while time.perf_counter() < deadline:
        call, params = mix[i % len(mix)]
        i += 1
        t0 = time.perf_counter()
        try:
            status, _ = lab.request(call.method, call.path, params)
        except (OSError, http.client.HTTPException) as err:
            with tally.lock:
                tally.failures.append(f"{call.name}: {type(err).__name__}: {err}")
            continue
        tally.add(call.name, time.perf_counter() - t0, status)
    lab.close()


def percentile(values: list[float], p: int) -> float:
    """The p-th percentile (inclusive method; the value itself for a single sample)."""
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1] if len(values) > 1 else values[0]


def summarise(tally: Tally, queued: set[str]) -> dict:
    """p50/p95 and 4xx/5xx counts per route, overall, and for the cheap and the queued routes apart."""

    def row(names: list[str]) -> dict:
        times = [t for n in names for t in tally.seconds[n]]
        statuses = [s for n in names for s in tally.statuses[n]]
        if not times:
            return {"requests": 0}
        return {"requests": len(times), "p50_ms": 1000 * percentile(times, 50), "p95_ms": 1000 * percentile(times, 95),
                "4xx": sum(400 <= s < 500 for s in statuses), "5xx": sum(s >= 500 for s in statuses)}  # fmt: skip

    names = list(tally.seconds)
    cheap = [n for n in names if n not in queued]
    worst = max(cheap, key=lambda n: percentile(tally.seconds[n], 95), default=None)
    return {"overall": row(names), "cheap": {**row(cheap), "worst": worst},
            "heavy": row([n for n in names if n in queued]), "routes": {n: row([n]) for n in names}}  # fmt: skip


def start_lab(vectors: list[str]) -> tuple[subprocess.Popen, str]:
    """`embedlab lab` on a free port of 127.0.0.1, answering; (process, base URL)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [str(Path(sys.executable).parent / "embedlab"), "lab", "--port", str(port)]
    for v in vectors:
        command += ["--vectors", v]
    server = subprocess.Popen(command, stderr=subprocess.DEVNULL, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    url = f"http://127.0.0.1:{port}"
    lab, deadline = Lab(url, timeout=2), time.monotonic() + 120
    while True:
        try:
            lab.request("GET", "/api/tables")
            lab.close()
            return server, url
        except (OSError, http.client.HTTPException):
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                raise SystemExit(f"the lab did not start on {url}") from None
            time.sleep(0.2)


def run(url: str, clients: int, seconds: float, burners: int = 0) -> dict:
    """Warm every call up once, then time `clients` clients for `seconds` beside `burners` burners."""
    lab = Lab(url)
    missing = uncovered(lab.json("GET", "/openapi.json"))
    chosen = picks(lab)
    mix, not_timed = [], {}
    for call in CALLS:
        params = fill(call, chosen)
        if params is None:
            lacking = [NEEDS[v] for v in call.params.values() if v in NEEDS and v not in chosen]
            not_timed[call.name] = "the lab serves no " + ", ".join(lacking)
            continue
        status, body = lab.request(call.method, call.path, params)  # warm-up: build what is built on first use
        if status >= 400:
            raise SystemExit(f"warm-up: {call.name} answered {status}: {body[:300].decode(errors='replace')}")
        mix.append((call, params))
    lab.close()
    tally = Tally()
    with burning(burners):
        load_before = os.getloadavg()[0]
        deadline = time.perf_counter() + seconds
        threads = [threading.Thread(target=client, args=(url, mix, i, deadline, tally)) for i in range(clients)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - t0
        load_after = os.getloadavg()[0]
    total = sum(len(times) for times in tally.seconds.values())
    return {"clients": clients, "seconds": elapsed, "burners": burners, "requests_per_s": total / elapsed,
            **summarise(tally, queued_routes()), "mix": [c.name for c, _ in mix], "not_timed": not_timed,
            "untimed": UNTIMED, "uncovered": missing, "failures": tally.failures,
            "load_before": round(load_before, 2), "load_after": round(load_after, 2),
            "cpu": cpu_model(), "cores": os.cpu_count()}  # fmt: skip


def report(result: dict) -> None:
    print(f"{result['clients']} clients, {result['seconds']:.1f} s, {result['requests_per_s']:.1f} requests/s, "
          f"{result['burners']} burners, load {result['load_before']} -> {result['load_after']} "
          f"({result['cpu']}, {result['cores']} cores)")  # fmt: skip
    print(f"{'route':<34}{'requests':>9}{'p50 ms':>9}{'p95 ms':>9}{'4xx':>6}{'5xx':>6}")
    rows = [*sorted(result["routes"].items()), ("cheap", result["cheap"]), ("heavy (queued)", result["heavy"]),
            ("overall", result["overall"])]  # fmt: skip
    for name, r in rows:
        if r["requests"]:
            print(f"{name:<34}{r['requests']:>9}{r['p50_ms']:>9.1f}{r['p95_ms']:>9.1f}{r['4xx']:>6}{r['5xx']:>6}")
    print(f"worst cheap p95: {result['cheap']['worst']}")
    for name, why in result["not_timed"].items():
        print(f"not timed: {name}: {why}")
    for name in result["uncovered"]:
        print(f"MISSING from the bench: {name}")
    for failure in result["failures"][:5]:
        print("failed:", failure)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running lab's base URL (default: start one on a free port)")
    parser.add_argument("--vectors", action="append", help="tables for the lab this script starts (default: minilm)")
    parser.add_argument("--clients", type=int, default=8, help=f"concurrent clients, 1..{MAX_CLIENTS}")
    parser.add_argument("--seconds", type=float, default=20.0, help=f"duration, 1..{MAX_SECONDS}")
    parser.add_argument("--burners", type=int, default=0, help=f"CPU-bound processes beside, 0..{MAX_BURNERS}")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if not 1 <= args.clients <= MAX_CLIENTS:
        parser.error(f"--clients must be between 1 and {MAX_CLIENTS}; got {args.clients}")
    if not 1 <= args.seconds <= MAX_SECONDS:
        parser.error(f"--seconds must be between 1 and {MAX_SECONDS}; got {args.seconds}")
    if not 0 <= args.burners <= MAX_BURNERS:
        parser.error(f"--burners must be between 0 and {MAX_BURNERS}; got {args.burners}")

    server, url = (None, args.url) if args.url else start_lab(args.vectors or ["minilm"])
    try:
        result = run(url.rstrip("/"), args.clients, args.seconds, args.burners)
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
    if args.json:
        print(json.dumps(result))
    else:
        report(result)
    bad = result["overall"].get("5xx", 0) + len(result["failures"]) + len(result["uncovered"])
    return 1 if bad or not result["overall"]["requests"] else 0


if __name__ == "__main__":
    sys.exit(main())
