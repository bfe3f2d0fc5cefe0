"""The lab's FastAPI app: the tables it was started with, JSON errors, static pages.

    app = create_app(["minilm", "runs/enwiki-sgns"])   # tables named "minilm" and "enwiki-sgns"
    uvicorn.run(app, host="127.0.0.1", port=8000)

The app's state, the served tables and what simulations build once, is a `Lab` (lab/state.py).

Requests name tables as the server lists them at /api/tables, never by path: the paths are fixed
when the app is made. A caller's mistake is a 4xx JSON body {"error": "..."} naming the value and
its limit (404 for an unknown name, 409 for a second training run, 400 otherwise; 422 for a query
or body that does not validate); anything else is a 500 with a generic message (the traceback goes
to the server log, never to the client). Routes reach the Lab and its services through lab/deps.py.
"""

from __future__ import annotations

import logging
from contextlib import asynccontextmanager
from importlib.resources import files
from pathlib import Path

import plotly
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline

from embedlab.errors import BusyError, EmbedlabError, UnknownNameError
from embedlab.lab.routes import ROUTERS
from embedlab.lab.state import Lab

log = logging.getLogger("embedlab")

STATIC = Path(str(files("embedlab.lab") / "static"))
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
# A caller's mistake -> its status, the first match in order; any other EmbedlabError is a 400.
STATUSES: tuple[tuple[type[Exception], int], ...] = ((BusyError, 409), (UnknownNameError, 404), (KeyError, 404))


def create_app(tables: list[str] | tuple[str, ...] = ("minilm",), cache: str | Path | None = None) -> FastAPI:
    """The lab app serving `tables` (built-in names or paths; each is served under its name);
    `cache` is the folder for what simulations build once (default: embedlab's cache folder)."""
    lab = Lab(tables, cache)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        yield
        lab.close()

    # /docs and /redoc take Swagger UI and ReDoc from the fastapi-offline package, not a CDN.
    app = FastAPIOffline(title="embedlab lab", description="Simulations of embedding layers on real tables.",
                         lifespan=lifespan, static_url="/static/vendor/docs")  # fmt: skip
    app.state.lab = lab
    for router in ROUTERS:
        app.include_router(router)

    @app.exception_handler(EmbedlabError)
    async def caller_error(request: Request, err: EmbedlabError) -> JSONResponse:
        status = next((status for kind, status in STATUSES if isinstance(err, kind)), 400)
        return JSONResponse({"error": str(err)}, status_code=status)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, err: RequestValidationError) -> JSONResponse:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ()) if part not in ("query", "body"))
        return JSONResponse({"error": f"{where}: {first.get('msg')}"}, status_code=422)

    @app.exception_handler(Exception)
    async def server_error(request: Request, err: Exception) -> JSONResponse:
        log.exception("lab request %s failed", request.url.path)
        return JSONResponse({"error": "internal error (see the server log)"}, status_code=500)

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/static/vendor/plotly.min.js", include_in_schema=False)
    def plotly_js() -> FileResponse:
        return FileResponse(PLOTLY_JS, media_type="text/javascript")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
