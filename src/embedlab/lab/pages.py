"""The lab's pages, in the nav's order: a page's name is its three files (lab/static/js/NAME.js,
lab/routes/NAME.py, sims/NAME.py), and its title is the nav's link.

A new page is those three files and one line here: routes/__init__.py mounts routes/NAME.py's
router, /api/config lists sims/NAME.py's LIMITS and the title, and the page builds its nav from it.
"""

PAGES: dict[str, str] = {  # name -> the nav's title
    "lookup": "Lookup",
    "size": "Table size",
    "recipe": "Input recipe",
    "patches": "Patches",
    "tying": "Tied vs untied",
    "scale": "Scale balance",
    "training": "Training",
    "subwords": "Subwords",
    "geometry": "Geometry",
    "gradients": "Sparse gradients",
    "attention": "Attention bridge",
    "context": "Static vs contextual",
    "distill": "Static from contextual",
    "bag": "Bag of embeddings",
    "arena": "Strategy arena",
    "projector": "Projector",
    "advise": "Advise",
    "nodes": "Graph nodes",
}
