"""The lab's fixtures: a small real training run to serve beside MiniLM, a TestClient on them, and
a real `embedlab lab` process driven by Debian's chromium through Playwright; and a small fastText
subword table (the fastText tool's .bin) served beside MiniLM by its own client and process.

    def test_x(client): client.get("/api/tables")                  # the app in-process
    def test_y(open_sim): page = open_sim("lookup")                 # a browser page, simulation shown
    def test_z(open_sim, minilm_lab_url): open_sim("gradients", url=minilm_lab_url)   # a lab serving only minilm
    def test_w(subword_client): subword_client.get("/api/subwords/tables")   # minilm and wiki-ft.bin
    def test_v(open_sim, map_labels): texts, overlapping = map_labels(open_sim("lookup"), "#lookup-map")

`open_sim` fails a test whose page logged a console error or threw, whatever the test asserted.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from tests.timeouts import LAB_START_S, LAB_STOP_S, PAGE_S

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip


@pytest.fixture(scope="session")
def lab_run(small_text, once):
    """A word2vec run folder (sgns, dim 32, 2 epochs on 3,000 lines of enwiki-sample), served as "wiki-run"."""
    from embedlab.train import RunConfig, train

    def make(out: Path) -> None:
        train(RunConfig(corpus=str(small_text), method="sgns", dim=32, epochs=2, threads=1), out, evaluate=False)

    return once("wiki-run", make)


@pytest.fixture(scope="session")
def subword_bin(small_text, once):
    """A subword table the fastText tool trained on the 3,000 lines (skipgram, dim 16, 1 epoch, min
    count 2, 10,000 buckets, n-grams 4-6; under a second): wiki-ft.bin, served as "wiki-ft.bin"."""
    tool = shutil.which("fasttext")
    assert tool, "the subword lab tests need the fastText 0.9.2 tool: apt-get install fasttext"

    def make(folder: Path) -> None:
        folder.mkdir()
        command = [tool, "skipgram", "-input", str(small_text), "-output", str(folder / "wiki-ft"), "-dim", "16"]
        command += ["-epoch", "1", "-minn", "4", "-maxn", "6"]  # 4: a one-character word ("<q>") has no n-gram
        command += ["-minCount", "2", "-bucket", "10000", "-thread", "1", "-verbose", "0"]
        subprocess.run(command, check=True, capture_output=True)

    return once("fasttext", make) / "wiki-ft.bin"


@pytest.fixture(scope="session")
def client(lab_run, lab_cache):
    """The app in-process on tables "minilm" and "wiki-run"; server errors come back as 500s."""
    from fastapi.testclient import TestClient

    from embedlab.lab import create_app

    # the same folder the real server uses (EMBEDLAB_CACHE/lab): what one builds, the other reuses
    with TestClient(create_app(["minilm", str(lab_run)], cache=lab_cache / "lab"), raise_server_exceptions=False) as c:
        yield c


@pytest.fixture(scope="session")
def subword_client(subword_bin, lab_cache):
    """The app in-process on tables "minilm" and the subword table "wiki-ft.bin"."""
    from fastapi.testclient import TestClient

    from embedlab.lab import create_app

    app = create_app(["minilm", str(subword_bin)], cache=lab_cache / "lab")
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_serving(url: str, server: subprocess.Popen, seconds: float = LAB_START_S) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(f"{url}/api/tables", timeout=2):
                return
        except OSError:
            if server.poll() is not None:
                raise RuntimeError(f"the lab exited: {server.stderr.read()}") from None
            if time.monotonic() > deadline:
                raise RuntimeError(f"the lab did not answer within {seconds} s") from None
            time.sleep(0.2)


@contextmanager
def serving(tables: list[str], cache: Path) -> Iterator[str]:
    """A real `embedlab lab` process serving `tables`, its cache under `cache`; its base URL."""
    port = free_port()
    command = [str(Path(sys.executable).parent / "embedlab"), "lab", "--port", str(port)]
    for table in tables:
        command += ["--vectors", table]
    env = {**os.environ, "EMBEDLAB_CACHE": str(cache)}
    server = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(url, server)
        yield url
    finally:
        server.terminate()
        server.communicate(timeout=LAB_STOP_S)


@pytest.fixture
def serve():
    """serve(tables, cache): the context manager `serving`, for a test that needs its own lab process."""
    return serving


@pytest.fixture(scope="session")
def lab_url(lab_run, lab_cache):
    """A real `embedlab lab` process serving minilm and the small run; its base URL."""
    with serving(["minilm", str(lab_run)], lab_cache) as url:
        yield url


@pytest.fixture(scope="session")
def minilm_lab_url(lab_cache):
    """A real `embedlab lab` process serving only minilm (no table with update counts); its base URL."""
    with serving(["minilm"], lab_cache) as url:
        yield url


@pytest.fixture(scope="session")
def subword_lab_url(subword_bin, lab_cache):
    """A real `embedlab lab` process serving minilm and the subword table "wiki-ft.bin"; its base URL."""
    with serving(["minilm", str(subword_bin)], lab_cache) as url:
        yield url


# Every label drawn on a plot (annotations, and a trace's own text): its text and box in page pixels.
LABELS = """(selector) => [...document.querySelectorAll(`${selector} .annotation-text, ${selector} .textpoint text`)]
  .map((node) => { const b = node.getBoundingClientRect();
                   return [node.textContent, [b.left, b.top, b.right, b.bottom]]; })"""


@pytest.fixture
def map_labels():
    """map_labels(page, selector) -> (the texts of the labels drawn on that plot, the pairs of them
    whose boxes overlap): a map whose labels pile up has pairs."""

    def labels(page, selector: str) -> tuple[list[str], list[tuple[str, str]]]:
        drawn = page.evaluate(LABELS, selector)
        meet = [(a, b) for i, (a, p) in enumerate(drawn) for b, q in drawn[i + 1 :]
                if p[0] < q[2] and q[0] < p[2] and p[1] < q[3] and q[1] < p[3]]  # fmt: skip
        return [text for text, _ in drawn], meet

    return labels


@pytest.fixture(scope="session")
def chromium(tmp_path_factory):
    """One chromium profile on disk for the worker's browser tests, its pages 1280 × 900. A profile on
    disk keeps V8's compiled plotly.js between pages: an off-the-record context (Playwright's
    `browser.new_page()`) compiles its 4.8 MB again on every page, 2-3 s of a page's 3 on this machine,
    against under 1 s from the cache (measured on the lookup, size and recipe pages)."""
    from playwright.sync_api import sync_playwright

    profile = tmp_path_factory.mktemp("chromium")
    with sync_playwright() as p:
        viewport = {"width": 1280, "height": 900}
        context = p.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS, viewport=viewport
        )
        yield context
        context.close()


@pytest.fixture
def open_sim(chromium, lab_url):
    """open_sim(name) -> a Playwright page showing simulation `name`, rendered (#sim[data-ready=true]);
    `url` picks another lab than lab_url's; `expected_status` a 4xx the test provokes on purpose (the
    browser logs it as a console error, which otherwise fails the test); `cold` loads the page with the
    browser's cache off, as a first visit does."""
    pages, errors = [], []

    def open_(name: str, timeout_ms: float = PAGE_S * 1000, url: str = lab_url, expected_status: int | None = None,
              cold: bool = False):  # fmt: skip
        page = chromium.new_page()
        pages.append(page)
        if cold:
            session = chromium.new_cdp_session(page)
            session.send("Network.enable")  # the cache switch below holds only while the domain is on
            session.send("Network.setCacheDisabled", {"cacheDisabled": True})

        def console(m) -> None:
            provoked = expected_status is not None and f"status of {expected_status}" in m.text
            if m.type == "error" and not provoked:
                errors.append(f"console: {m.text}")

        page.on("console", console)
        page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
        page.set_default_timeout(timeout_ms)
        page.goto(f"{url}/#{name}")
        page.wait_for_selector(f'#sim[data-sim="{name}"][data-ready="true"]')
        return page

    yield open_
    for page in pages:
        page.close()
    assert not errors, errors
