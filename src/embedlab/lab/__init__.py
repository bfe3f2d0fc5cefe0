"""The lab: a local web app whose simulations run on real tables and the library's own layers.

    embedlab lab --vectors minilm --vectors runs/enwiki-sgns      # http://127.0.0.1:8000
    app = create_app(["minilm"])                                  # for uvicorn or a TestClient

app.py       the app factory, the tables it serves (by name only), JSON errors
routes/      one APIRouter per simulation family; each calls library code, no math in a route
static/      index.html, lab.css and one ES module per simulation; plotly.js from the plotly package
"""

from embedlab.lab.app import Lab, create_app

__all__ = ["Lab", "create_app"]
