"""One APIRouter per page (lab/pages.py names them, in the nav's order), and config's.

config.py  /api/tables and /api/config: the served tables, the pages with every page's limits (from
           its sims module) and the themes
NAME.py    one page each, for every NAME of lab/pages.py (lab/static/js/NAME.js <-> routes/NAME.py <->
           sims/NAME.py): validate, call sims/, return
"""

from importlib import import_module

from embedlab.lab.pages import PAGES
from embedlab.lab.routes import config

PAGE_ROUTES = tuple(import_module(f"{__name__}.{name}") for name in PAGES)  # each page's route module
ROUTERS = [config.router, *(page.router for page in PAGE_ROUTES)]
