"""One APIRouter per simulation family, in the order the page's nav lists them, and config's.

config.py      /api/tables and /api/config: the served tables, every page's limits, the themes
lookup.py size.py recipe.py patches.py tying.py scale.py training.py subwords.py geometry.py gradients.py
attention.py context.py arena.py projector.py: one page each (lab/static/js/X.js <-> routes/X.py <-> sims/X.py)
"""

from embedlab.lab.routes import config
from embedlab.lab.routes.config import PAGES

ROUTERS = [config.router, *(module.router for module in PAGES.values())]
