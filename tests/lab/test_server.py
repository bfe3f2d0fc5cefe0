"""`embedlab lab` as a real process: it binds 127.0.0.1, prints its URL and serves page and API."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.timeouts import LAB_START_S, LAB_STOP_S, QUICK_ANSWER_S


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_embedlab_lab_serves_the_page_and_the_api():
    port = _free_port()
    command = [str(Path(sys.executable).parent / "embedlab"), "lab", "--port", str(port)]
    server = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + LAB_START_S
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables", timeout=2) as r:
                    assert json.load(r) == {"tables": ["minilm"]}
                break
            except OSError:
                assert server.poll() is None, server.stderr.read()
                assert time.monotonic() < deadline, f"the lab did not start within {LAB_START_S} s"
                time.sleep(0.2)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=QUICK_ANSWER_S) as r:
            assert "<nav" in r.read().decode()
    finally:
        server.terminate()
        _, err = server.communicate(timeout=LAB_STOP_S)
    assert f"http://127.0.0.1:{port}" in err


def test_a_bad_port_is_one_line(run_cli):
    status, _, err = run_cli("lab", "--port", "70000")
    assert status == 2 and err.count("\n") == 1 and "port must be between 1 and 65535; got 70000" in err


def test_plotly_is_served_gzipped_with_an_etag_and_loaded_by_the_pages_not_the_head(client):
    from embedlab.lab.app import PLOTLY_JS

    r = client.get("/static/vendor/plotly.min.js", headers={"Accept-Encoding": "gzip"})
    assert r.status_code == 200 and r.headers["content-encoding"] == "gzip" and r.headers["vary"] == "Accept-Encoding"
    raw = PLOTLY_JS.read_bytes()
    assert r.content == raw  # httpx decodes it; on the wire it was a third of the size or less
    assert int(r.headers["content-length"]) < len(raw) / 3
    again = client.get("/static/vendor/plotly.min.js", headers={"If-None-Match": r.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    plain = client.get("/static/vendor/plotly.min.js", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.content == raw
    index = client.get("/").text
    assert "plotly.min.js" not in index  # not parsed in <head>: plot.js loads it in the background
    assert "/static/vendor/plotly.min.js" in client.get("/static/js/plot.js").text


def test_a_request_the_framework_refuses_is_a_json_error(client):
    r = client.post("/api/training/start", content=b'{"corpus": "\xff"}', headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json() == {"error": "There was an error parsing the body"}
    assert client.get("/api/no-such-page").json() == {"error": "Not Found"}


def test_a_served_file_cut_short_is_an_error_for_the_request_not_a_dead_server(subword_bin, serve, tmp_path):
    """A real `embedlab lab` serving a copy of a fastText .bin (its rows memory-mapped): the file is
    cut short in place by another process while the lab runs; the next request that reads its rows
    is a 409 naming the change, and the server still answers (a stale mapping would SIGBUS it)."""
    import shutil
    import urllib.error

    served = tmp_path / "served.bin"
    shutil.copy(subword_bin, served)
    unseen = "/api/subwords/unseen?table=served.bin&word=zzyzxq"

    def get(url: str) -> tuple[int, dict]:
        try:
            with urllib.request.urlopen(url, timeout=QUICK_ANSWER_S) as r:
                return r.status, json.load(r)
        except urllib.error.HTTPError as err:
            return err.code, json.load(err)

    with serve([str(served)], tmp_path / "cache") as url:
        status, _ = get(url + unseen)
        assert status == 200  # the rows read through the mapping while the file is whole
        with open(served, "r+b") as f:
            f.truncate(4096)  # the same file, cut short under the server's mapping
        status, answer = get(url + unseen)
        assert status == 409 and "changed on disk" in answer["error"] and "4,096 bytes" in answer["error"], answer
        assert get(url + "/api/tables") == (200, {"tables": ["served.bin"]})  # still serving
