"""The lab's FastAPI app: the tables it was started with, JSON errors, static pages.

    app = create_app(["minilm", "runs/enwiki-sgns"])   # tables named "minilm" and "enwiki-sgns"
    uvicorn.run(app, host="127.0.0.1", port=8000)

The app's state, the served tables and what simulations build once, is a `Lab` (lab/state.py).

Requests name tables as the server lists them at /api/tables, never by path: the paths are fixed
when the app is made. A caller's mistake is a 4xx JSON body {"error": "..."} naming the value and
its limit (404 for an unknown name, 409 for a second training run, 400 otherwise; 422 for a query
or body that does not validate); anything else is a 500 with a generic message (the traceback goes
to the server log, never to the client); a request the framework itself refuses (a body that is no
UTF-8 JSON, an unknown path) is answered {"error": ...} too. Routes reach the Lab and its services
through lab/deps.py.

plotly.min.js (4.8 MB) is served gzipped (about 1.4 MB, compressed once per process) to clients that
accept it, with an ETag so a reload asks only whether it changed; the pages load it in the
background (lab/static/js/plot.js; the 2-D projector, which draws with its own WebGL, not at all),
so their first API calls do not wait for it.
"""

from __future__ import annotations

import gzip
import logging
from contextlib import asynccontextmanager
from functools import cache
from importlib.resources import files
from pathlib import Path

import plotly
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from starlette.exceptions import HTTPException

from embedlab.errors import BusyError, EmbedlabError, FileChangedError, UnknownNameError
from embedlab.lab.routes import ROUTERS
from embedlab.lab.state import Lab

log = logging.getLogger("embedlab")

STATIC = Path(str(files("embedlab.lab") / "static"))
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
PLOTLY_ETAG = f'W/"plotly-{plotly.__version__}"'  # weak: one tag for its gzip and plain forms
# A caller's mistake -> its status, the first match in order; any other EmbedlabError is a 400.
STATUSES: tuple[tuple[type[Exception], int], ...] = (
    (BusyError, 409),
    (FileChangedError, 409),  # a served file changed on disk: this request fails, the server stays
    (UnknownNameError, 404),
    (KeyError, 404),
)


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

    @app.exception_handler(HTTPException)
    async def refused(request: Request, err: HTTPException) -> JSONResponse:
        return JSONResponse({"error": str(err.detail)}, status_code=err.status_code, headers=err.headers)

    @app.exception_handler(Exception)
    async def server_error(request: Request, err: Exception) -> JSONResponse:
        log.exception("lab request %s failed", request.url.path)
        return JSONResponse({"error": "internal error (see the server log)"}, status_code=500)

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/static/vendor/plotly.min.js", include_in_schema=False)
    def plotly_js(request: Request) -> Response:
        headers = {"ETag": PLOTLY_ETAG, "Cache-Control": "no-cache", "Vary": "Accept-Encoding"}
        if PLOTLY_ETAG in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        if "gzip" in request.headers.get("accept-encoding", ""):
            headers["Content-Encoding"] = "gzip"
            return Response(gzipped(PLOTLY_JS), media_type="text/javascript", headers=headers)
        return FileResponse(PLOTLY_JS, media_type="text/javascript", headers=headers)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


@cache
def gzipped(path: Path) -> bytes:
    """The file's bytes gzipped (level 6: plotly.min.js 4.8 MB -> ~1.4 MB in ~0.3 s), once per process."""
    return gzip.compress(path.read_bytes(), compresslevel=6, mtime=0)
