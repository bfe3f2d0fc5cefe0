"""Heavy answers are computed one at a time, and cheap routes do not wait for them (lab/deps.HEAVY)."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import anyio
import httpx
import pytest
from tests.timeouts import margin

from embedlab.lab import create_app
from embedlab.lab.deps import get_heavy_slot, one_heavy_at_a_time
from embedlab.lab.routes import ROUTERS

# what costs milliseconds of CPU alone (bench/lab_load.py --clients 1): encoder layers, optimizer
# steps, sinusoid tables, a tied head's logits, a placement, a patch projection, the patch variances of
# a 448-pixel image at P = 4 (12,544 of them, ~4 ms), an unseen word's whole-word error (its closest
# spellings searched among every key)
HEAVY_PATHS = {
    "/api/attention",
    "/api/context",
    "/api/scale",
    "/api/gradients/steps",
    "/api/tying",
    "/api/recipe",
    "/api/patches/patch",
    "/api/patches/variance",
    "/api/subwords/unseen",
    "/api/distill",  # the teacher on up to 8 sentences
    "/api/distill/steps",  # measured once (half a minute) and kept: queued behind the other heavy answers
    "/api/projector/search",  # every key of the table searched (up to half a second at 10M rows)
    "/api/projector/neighbours",  # every row of the table scanned (~50 ms a million rows)
}
# what is computed once per setting and kept, queued only while it computes: a σ sweep (seconds),
# karate's node table trained and scored at six points (~40 ms), a table comparison (and the
# displacement drawn from it, and a tile coloured by it), a classifier quantized (k-means: seconds); and
# a typed text taken apart by the latest classifier (~15 ms), which waits outside the queue while the first one trains
KEPT_PATHS = {"/api/scale/sweep", "/api/nodes", "/api/projector/compare", "/api/projector/displacement",
              "/api/projector/tile", "/api/bag/quantize", "/api/bag/predict"}  # fmt: skip


def _routes_depending_on(function) -> set[str]:
    def depends(dependant) -> bool:
        return any(d.call is function or depends(d) for d in dependant.dependencies)

    return {route.path for router in ROUTERS for route in router.routes if depends(route.dependant)}


def test_the_heavy_routes_are_the_ones_marked():
    assert _routes_depending_on(one_heavy_at_a_time) == HEAVY_PATHS
    assert _routes_depending_on(get_heavy_slot) == KEPT_PATHS


@pytest.mark.parametrize("heavy", ["/api/scale", "/api/gradients/steps"])
def test_a_heavy_route_waits_while_another_computes_and_a_cheap_one_does_not(tmp_path, heavy):
    app = create_app(["minilm"], cache=tmp_path)

    async def main() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://lab", timeout=ANSWER_S) as http:
            assert (await http.get(heavy)).status_code == 200  # warm: the route made its lock
            held, finished = anyio.Event(), anyio.Event()

            async def another_heavy_answer() -> None:
                async with app.state.heavy:
                    held.set()
                    await finished.wait()

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(another_heavy_answer)
                await held.wait()
                assert (await http.get("/api/size", params={"vocab_size": 100, "dim": 8})).status_code == 200
                with anyio.move_on_after(1.0) as waited:
                    await http.get(heavy)
                assert waited.cancelled_caught, f"{heavy} answered while another heavy answer was computing"
                finished.set()
            assert (await http.get(heavy)).status_code == 200

    # in a thread of its own: the browser tests' sync Playwright keeps an event loop running in this one
    with ThreadPoolExecutor(1) as thread:
        thread.submit(anyio.run, main).result()


def test_a_kept_answer_does_not_wait_while_the_heavy_slot_is_held(tmp_path):
    app = create_app(["minilm"], cache=tmp_path)

    async def main() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://lab", timeout=ANSWER_S) as http:
            assert (await http.get("/api/nodes")).status_code == 200  # computed and kept; made the slot
            answered: list[int] = []

            async def not_kept() -> None:  # another seed: computed, so it queues
                answered.append((await http.get("/api/nodes", params={"seed": 2})).status_code)

            async with anyio.create_task_group() as tasks:
                async with app.state.heavy:  # as another heavy answer computing
                    with anyio.fail_after(KEPT_S):  # a kept answer that queued would never come back here
                        assert (await http.get("/api/nodes")).status_code == 200
                    tasks.start_soon(not_kept)
                    await anyio.sleep(1.0)  # ~40 ms of work: had it not queued, it would have answered by now
                    assert answered == []
                # the slot is given back; the task group waits for the queued answer
            assert answered == [200]

    with ThreadPoolExecutor(1) as thread:
        thread.submit(anyio.run, main).result()


@pytest.mark.slow  # the lab's first σ sweep reads its corpus: ~10 s on a quiet machine, a minute under load
def test_a_kept_answer_skips_the_queue_a_heavy_computation_holds(minilm_lab_url):
    """A real `embedlab lab`: a σ sweep that is not kept yet holds the heavy queue for a second or
    more; an optimizer-steps request sent after it waits its turn, and a kept Graph nodes answer
    asked for meanwhile comes back before either."""
    url = minilm_lab_url
    assert _get(url, "/api/nodes")[1] == 200  # computed once and kept
    sweep = {"optimizer": "sgd", "head": "tied", "steps": 24}  # a setting no other test asks for: not kept
    start = time.perf_counter()
    with ThreadPoolExecutor(2) as pool:
        computing = pool.submit(_get, url, "/api/scale/sweep", sweep)
        time.sleep(QUEUE_REACHED_S)
        queued_sent = time.perf_counter()
        queued = pool.submit(_get, url, "/api/gradients/steps", {"seed": 7})
        time.sleep(QUEUE_REACHED_S)
        kept_end, kept_status = _get(url, "/api/nodes")
        (sweep_end, sweep_status), (queued_end, queued_status) = computing.result(), queued.result()
    assert kept_status == sweep_status == queued_status == 200
    ends = {"kept": kept_end - start, "sweep": sweep_end - start, "queued": queued_end - start}
    # the kept answer came back while the sweep computed and the steps waited
    assert kept_end < min(sweep_end, queued_end), f"seconds after the sweep was sent: {ends}"
    # optimizer steps (~10 ms of CPU) waited in the queue the sweep held: they came back with the sweep,
    # seconds after they were sent, not at once. Which of the two bodies arrives first is left open: the
    # steps compute as soon as the sweep lets go of the slot, while its answer is still being sent.
    assert queued_end - queued_sent > 0.5 * (sweep_end - queued_sent), f"seconds after the sweep was sent: {ends}"


KEPT_S = margin(0.3)  # a kept Graph nodes answer, sent whole: 0.3 s measured at load 10 on 2 cores
# A request reaches the heavy queue milliseconds after it is sent on a quiet machine; under load (the
# whole suite beside it) a 0.3 s wait let the second heavy request overtake the first, so the wait is
# 1.0 s, and the sweep (24 steps for each of 7 σ: ~4 s alone on one core) outlasts both waits.
QUEUE_REACHED_S = 1.0
ANSWER_S = margin(30.0)  # a first σ sweep in a fresh lab reads its corpus: 33 s measured at load 11 on 2 cores


def _get(url: str, path: str, params: dict | None = None) -> tuple[float, int]:
    """GET url+path in a fresh connection -> (perf_counter when its whole body had come, status)."""
    response = httpx.get(url + path, params=params, timeout=ANSWER_S)
    return time.perf_counter(), response.status_code
