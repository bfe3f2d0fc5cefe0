"""Load benchmark of the lab: concurrent clients against its main endpoints on 127.0.0.1.

    python bench/lab_load.py                               # starts `embedlab lab` on a free port: 8 clients, 20 s
    python bench/lab_load.py --clients 16 --seconds 30
    python bench/lab_load.py --vectors minilm --vectors runs/enwiki-sgns
    python bench/lab_load.py --url http://127.0.0.1:8000   # a lab that is already running
    python bench/lab_load.py --json                        # one JSON object on stdout

Each client is a thread with its own keep-alive connection, sending the requests of REQUESTS
one after the other (each client starts at a different place in the list) until the time is up.
Every endpoint is called once before the clock starts, so what is built on first use (MiniLM's
layers, the subword vocabularies) is not timed. Latency is wall time from sending a request to
having its whole body; the script prints p50 and p95 per endpoint and overall, and the counts of
4xx and 5xx answers. The goal (issue 6): zero 5xx and zero failed connections; the exit status
is 1 otherwise.

The clients and the server share the machine: on 2 cores, more clients measure queueing more
than the work of one request, which is why both the count and the duration are bounded.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

MAX_CLIENTS = 64
MAX_SECONDS = 300

# (name, path, query parameters): what the pages ask for, on the table "minilm".
REQUESTS = [
    ("tables", "/api/tables", {}),
    ("lookup/row", "/api/lookup/row", {"table": "minilm", "token": "king"}),
    ("lookup/map", "/api/lookup/map", {"table": "minilm", "token": "king"}),
    ("lookup/onehot", "/api/lookup/onehot", {"table": "minilm", "token": "king"}),
    ("size", "/api/size", {"vocab_size": 50257, "dim": 768, "positions": "learned", "max_len": 1024}),
    ("size/slice", "/api/size/slice", {"table": "minilm", "start": 2000, "rows": 32, "dims": 64}),
    ("recipe", "/api/recipe", {"recipe": "bert", "text": "the cat sat on the mat", "index": 2, "position": 40}),
    ("patches/patch", "/api/patches/patch", {"patch_size": 16, "row": 7, "col": 7}),
    ("tying", "/api/tying", {"table": "minilm", "a": "cat", "b": "queen", "t": 0.5}),
    ("scale", "/api/scale", {"d_model": 512, "scale": "sqrt_d"}),
    ("training/state", "/api/training/state", {}),
    ("subwords", "/api/subwords/split", {"text": "unhappiness"}),
    ("neighbors", "/api/geometry/neighbors", {"table": "minilm", "word": "king", "k": 10}),
    ("analogy", "/api/geometry/analogy", {"table": "minilm", "expression": "paris - france + italy", "k": 5}),
    ("pair", "/api/geometry/pair", {"table": "minilm", "a": "cat", "b": "dog"}),
    ("gradients/steps", "/api/gradients/steps", {"first": "2 2 5", "second": "5 7"}),
    ("attention", "/api/attention", {"text": "the cat sat on the mat because it was tired", "head": 3}),
]


@dataclass
class Tally:
    """What the clients saw, per endpoint name; appended to under a lock."""

    seconds: dict[str, list[float]] = field(default_factory=dict)
    statuses: dict[str, list[int]] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, name: str, seconds: float, status: int) -> None:
        with self.lock:
            self.seconds.setdefault(name, []).append(seconds)
            self.statuses.setdefault(name, []).append(status)


def client(url: str, start: int, deadline: float, tally: Tally) -> None:
    with httpx.Client(base_url=url, timeout=60) as http:
        i = start
        while time.perf_counter() < deadline:
            name, path, params = REQUESTS[i % len(REQUESTS)]
            i += 1
            t0 = time.perf_counter()
            try:
                response = http.get(path, params=params)
                response.read()
            except httpx.HTTPError as err:
                with tally.lock:
                    tally.failures.append(f"{name}: {type(err).__name__}: {err}")
                continue
            tally.add(name, time.perf_counter() - t0, response.status_code)


def percentile(values: list[float], p: int) -> float:
    """The p-th percentile (inclusive method; the value itself for a single sample)."""
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1] if len(values) > 1 else values[0]


def summarise(tally: Tally, clients: int, seconds: float) -> dict:
    def row(times: list[float], statuses: list[int]) -> dict:
        return {
            "requests": len(times),
            "p50_ms": 1000 * percentile(times, 50),
            "p95_ms": 1000 * percentile(times, 95),
            "4xx": sum(400 <= s < 500 for s in statuses),
            "5xx": sum(s >= 500 for s in statuses),
        }

    endpoints = {name: row(tally.seconds[name], tally.statuses[name]) for name in tally.seconds}
    every_time = [t for times in tally.seconds.values() for t in times]
    every_status = [s for statuses in tally.statuses.values() for s in statuses]
    overall = row(every_time, every_status) if every_time else {"requests": 0}
    return {"clients": clients, "seconds": seconds, "requests_per_s": len(every_time) / seconds,
            "overall": overall, "endpoints": endpoints, "failures": tally.failures}  # fmt: skip


def start_lab(vectors: list[str]) -> tuple[subprocess.Popen, str]:
    """`embedlab lab` on a free port of 127.0.0.1, answering; (process, base URL)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [str(Path(sys.executable).parent / "embedlab"), "lab", "--port", str(port)]
    for v in vectors:
        command += ["--vectors", v]
    server = subprocess.Popen(command, stderr=subprocess.DEVNULL, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            httpx.get(f"{url}/api/tables", timeout=2)
            return server, url
        except httpx.HTTPError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                raise SystemExit(f"the lab did not start on {url}") from None
            time.sleep(0.2)


def run(url: str, clients: int, seconds: float) -> dict:
    for name, path, params in REQUESTS:  # warm-up: build what is built on first use
        status = httpx.get(url + path, params=params, timeout=600).status_code
        if status >= 400:
            raise SystemExit(f"warm-up: {name} answered {status}; is the server serving table 'minilm'?")
    tally = Tally()
    deadline = time.perf_counter() + seconds
    threads = [threading.Thread(target=client, args=(url, i, deadline, tally)) for i in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return summarise(tally, clients, time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running lab's base URL (default: start one on a free port)")
    parser.add_argument("--vectors", action="append", help="tables for the lab this script starts (default: minilm)")
    parser.add_argument("--clients", type=int, default=8, help=f"concurrent clients, 1..{MAX_CLIENTS}")
    parser.add_argument("--seconds", type=float, default=20.0, help=f"duration, 1..{MAX_SECONDS}")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if not 1 <= args.clients <= MAX_CLIENTS:
        parser.error(f"--clients must be between 1 and {MAX_CLIENTS}; got {args.clients}")
    if not 1 <= args.seconds <= MAX_SECONDS:
        parser.error(f"--seconds must be between 1 and {MAX_SECONDS}; got {args.seconds}")

    server = None
    url = args.url
    if url is None:
        server, url = start_lab(args.vectors or ["minilm"])
    try:
        result = run(url.rstrip("/"), args.clients, args.seconds)
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)

    if args.json:
        print(json.dumps(result))
    else:
        print(f"{result['clients']} clients, {result['seconds']:.1f} s, {result['requests_per_s']:.1f} requests/s")
        print(f"{'endpoint':<18}{'requests':>9}{'p50 ms':>9}{'p95 ms':>9}{'4xx':>6}{'5xx':>6}")
        for name, r in [*result["endpoints"].items(), ("overall", result["overall"])]:
            print(f"{name:<18}{r['requests']:>9}{r['p50_ms']:>9.1f}{r['p95_ms']:>9.1f}{r['4xx']:>6}{r['5xx']:>6}")
        for failure in result["failures"][:5]:
            print("failed:", failure)
    bad = result["overall"].get("5xx", 0) + len(result["failures"])
    return 1 if bad or not result["overall"]["requests"] else 0


if __name__ == "__main__":
    sys.exit(main())
