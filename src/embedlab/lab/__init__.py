"""The lab: a local web app whose simulations run on real tables and the library's own layers.

    embedlab lab --vectors minilm --vectors runs/enwiki-sgns      # http://127.0.0.1:8000
    app = create_app(["minilm"])                                  # for uvicorn or a TestClient

app.py       the app factory: routers, JSON errors, static files
pages.py     the pages, in the nav's order, with their titles (a new page is one line here)
state.py     Lab: the tables it serves (by name only) and what simulations build once
deps.py      Annotated dependencies: the Lab, a served table, MiniLM's pipeline, the live run, ...
schemas/     request bodies and the lab's own answers; answer_model derives every page's answer from sims
routes/      one APIRouter per simulation family: validate, call embedlab.sims, return
static/      index.html, lab.css, one ES module per simulation and the http, dom and plot helpers;
             plotly.js from the plotly package
"""

from embedlab.lab.app import create_app
from embedlab.lab.state import Lab

__all__ = ["Lab", "create_app"]
