"""`embedlab lab` as a real process: it binds 127.0.0.1, prints its URL and serves page and API."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_embedlab_lab_serves_the_page_and_the_api():
    port = _free_port()
    command = [str(Path(sys.executable).parent / "embedlab"), "lab", "--port", str(port)]
    server = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables", timeout=2) as r:
                    assert json.load(r) == {"tables": ["minilm"]}
                break
            except OSError:
                assert server.poll() is None, server.stderr.read()
                assert time.monotonic() < deadline, "the lab did not start within 60 s"
                time.sleep(0.2)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
            assert "<nav" in r.read().decode()
    finally:
        server.terminate()
        _, err = server.communicate(timeout=30)
    assert f"http://127.0.0.1:{port}" in err


def test_a_bad_port_is_one_line(run_cli):
    status, _, err = run_cli("lab", "--port", "70000")
    assert status == 2 and err.count("\n") == 1 and "port must be between 1 and 65535; got 70000" in err
