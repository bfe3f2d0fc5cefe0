"""Heavy answers are computed one at a time, and cheap routes do not wait for them (lab/deps.HEAVY)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import anyio
import httpx
import pytest

from embedlab.lab import create_app
from embedlab.lab.routes import ROUTERS

# what costs milliseconds of CPU alone (bench/lab_load.py --clients 1): encoder layers, optimizer
# steps, sinusoid tables, a tied head's logits, a placement, a patch projection, the patch variances of
# a 448-pixel image at P = 4 (12,544 of them, ~4 ms), a table comparison, an unseen word's
# whole-word error (its closest spellings searched among every key), a σ sweep (trained once per setting),
# karate's node table trained and scored at six points (~40 ms, once per setting)
HEAVY_PATHS = {
    "/api/attention",
    "/api/context",
    "/api/scale",
    "/api/scale/sweep",
    "/api/gradients/steps",
    "/api/tying",
    "/api/recipe",
    "/api/patches/patch",
    "/api/patches/variance",
    "/api/projector/compare",
    "/api/subwords/unseen",
    "/api/nodes",
}


def test_the_heavy_routes_are_the_ones_marked():
    marked = {
        route.path
        for router in ROUTERS
        for route in router.routes
        if any(d.dependency.__name__ == "one_heavy_at_a_time" for d in route.dependencies)
    }
    assert marked == HEAVY_PATHS


@pytest.mark.parametrize("heavy", ["/api/scale", "/api/gradients/steps"])
def test_a_heavy_route_waits_while_another_computes_and_a_cheap_one_does_not(tmp_path, heavy):
    app = create_app(["minilm"], cache=tmp_path)

    async def main() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://lab", timeout=60) as http:
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
