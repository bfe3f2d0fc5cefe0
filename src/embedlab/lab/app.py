"""The lab's FastAPI app: the tables it was started with, JSON errors, static pages.

    app = create_app(["minilm", "runs/enwiki-sgns"])   # tables named "minilm" and "enwiki-sgns"
    uvicorn.run(app, host="127.0.0.1", port=8000)

Simulations that build something once (the subword vocabularies, a live training run, MiniLM's
layers) keep it as a service of the Lab: `lab.service("name", factory)` makes it on first use,
once even under concurrent requests, and files they write go under `lab.cache_dir`.

Requests name tables as the server lists them at /api/tables, never by path: the paths are fixed
when the app is made. A caller's mistake is a 4xx JSON body {"error": "..."} naming the value and
its limit (404 for an unknown name, 409 for a second training run, 400 otherwise; 422 for a query
or body that does not validate); anything else is a 500 with a generic message (the traceback goes
to the server log, never to the client). Routes reach the Lab and its services through lab/deps.py.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import asynccontextmanager
from importlib.resources import files
from pathlib import Path
from typing import Any

import plotly
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline

from embedlab.data.models import MODELS
from embedlab.errors import EmbedlabError, MissingDataError, UnknownNameError, unknown_name
from embedlab.files import cache_dir
from embedlab.models.pipeline import Pipeline
from embedlab.sims.once import MadeOnce
from embedlab.sims.training import RunBusyError
from embedlab.vectors import Vectors

log = logging.getLogger("embedlab")

STATIC = Path(str(files("embedlab.lab") / "static"))
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
# A caller's mistake -> its status, the first match in order; any other EmbedlabError is a 400.
STATUSES: tuple[tuple[type[Exception], int], ...] = ((RunBusyError, 409), (UnknownNameError, 404), (KeyError, 404))


class Lab:
    """The tables a lab serves, by name, each loaded on first use and kept; and the simulations'
    services (things built once: vocabularies, loaded layers, the training run)."""

    def __init__(self, tables: list[str] | tuple[str, ...] = ("minilm",), cache: str | Path | None = None) -> None:
        self.cache_dir = Path(cache) if cache is not None else cache_dir() / "lab"
        self.paths: dict[str, str] = {}
        for source in tables:
            name = source if source in MODELS else Path(source).name
            if not (source in MODELS or Path(source).exists()):
                raise MissingDataError(f"table {source!r} is neither a built-in table ({', '.join(MODELS)}) nor a path")
            self.paths[name] = source
        self._services = MadeOnce()  # "table:NAME" -> Vectors, or a simulation's service

    @property
    def names(self) -> list[str]:
        return list(self.paths)

    def table(self, name: str) -> Vectors:
        if name not in self.paths:
            raise unknown_name("table", name, self.names)
        return self.service(f"table:{name}", lambda: self._load(name))

    def _load(self, name: str) -> Vectors:
        try:
            vectors = Vectors.load(self.paths[name])
        except EmbedlabError as err:  # its message names the server's path: log it, tell the client less
            log.error("table %r: %s", name, err)
            raise MissingDataError(f"table {name!r} could not be loaded (the server log says why)") from None
        vectors.name = name  # messages name the table as the client knows it, never by its path
        return vectors

    def pipeline(self, model: str = "minilm") -> Pipeline:
        """A built-in model's tokenizer and trained input embedding, loaded once for every simulation."""
        return self.service(f"pipeline:{model}", lambda: Pipeline.load(model))

    def service(self, name: str, factory: Callable[[], Any]) -> Any:
        """The object registered as `name`, made by `factory()` the first time it is asked for.

        One lock per name (sims.once.MadeOnce): a slow factory (training a vocabulary) holds up only
        the requests that wait for the same thing.
        """
        return self._services.get(name, factory)

    def close(self) -> None:
        """Stop what the services run in the background (a service with a close() method)."""
        for service in self._services.values():
            if hasattr(service, "close"):
                service.close()


def create_app(tables: list[str] | tuple[str, ...] = ("minilm",), cache: str | Path | None = None) -> FastAPI:
    """The lab app serving `tables` (built-in names or paths; each is served under its name);
    `cache` is the folder for what simulations build once (default: embedlab's cache folder)."""
    from embedlab.lab.routes import ROUTERS

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
