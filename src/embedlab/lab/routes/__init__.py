"""One APIRouter per simulation family, in the order the page's nav lists them."""

from embedlab.lab.routes import (
    attention,
    geometry,
    gradients,
    lookup,
    patches,
    recipe,
    scale,
    size,
    subwords,
    training,
    tying,
)

ROUTERS = [
    module.router
    for module in (lookup, size, recipe, patches, tying, scale, training, subwords, geometry, gradients, attention)
]
