"""One APIRouter per simulation family, in the order the page's nav lists them, and config's.

config.py      /api/tables and /api/config: the served tables, every page's limits (from its sims module), the themes
lookup.py size.py recipe.py patches.py tying.py scale.py training.py subwords.py geometry.py gradients.py
attention.py context.py arena.py projector.py: one page each (lab/static/js/X.js <-> routes/X.py <-> sims/X.py)
"""

from embedlab.lab.routes import (
    arena,
    attention,
    config,
    context,
    geometry,
    gradients,
    lookup,
    patches,
    projector,
    recipe,
    scale,
    size,
    subwords,
    training,
    tying,
)

PAGE_ROUTES = (  # each page's route module, in the nav's order
    lookup,
    size,
    recipe,
    patches,
    tying,
    scale,
    training,
    subwords,
    geometry,
    gradients,
    attention,
    context,
    arena,
    projector,
)
ROUTERS = [config.router, *(page.router for page in PAGE_ROUTES)]
