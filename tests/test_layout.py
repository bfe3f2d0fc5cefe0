"""The package keeps its shape: imports run down the spine, never back up it, and never in a circle;
each package's docstring lists its modules; `python -m embedlab` is the command line."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from tests.timeouts import COMMAND_S

import embedlab

PACKAGE = Path(embedlab.__file__).parent

# package -> the embedlab packages it must never import (anything above it on the spine)
NEVER = {
    "scratch": {"layers", "models", "tokenizer", "vectors", "train", "arena", "sims", "lab", "cli"},  # NumPy only
    "hashing": {"data", "layers", "models", "tokenizer", "vectors", "train", "arena", "sims", "lab", "cli"},
    "layers": {"models", "train", "vectors", "tokenizer", "sims", "lab", "cli"},
    "models": {"train", "sims", "lab", "cli"},
    "tokenizer": {"models", "vectors", "train", "sims", "lab", "cli"},
    "vectors": {"train", "sims", "lab", "cli"},
    "train": {"graphs", "sims", "lab", "cli"},
    "graphs": {"arena", "sims", "lab", "cli"},  # walks -> train's skip-gram -> vectors: above train, below the pages
    "arena": {"sims", "lab", "cli"},
    "data": {"layers", "models", "tokenizer", "vectors", "train", "sims", "lab", "cli"},
    "sims": {"lab", "cli"},
    "lab": {"cli"},
    "cli": {"sims"},  # the command line reaches the library, never a lab page's module
}
ONLY_IN = {"fastapi": "lab", "starlette": "lab", "uvicorn": "lab", "typer": "cli", "rich": "cli"}
# rich renders tables and bars: the library logs, only the command line prints (uvicorn is started there too)
ALSO_ALLOWED = {("uvicorn", "cli")}


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _imports(path: Path) -> set[str]:
    """Every module name `path` imports, at any depth of the file (lazy imports count too)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _package(path: Path) -> str:
    parts = path.relative_to(PACKAGE).parts
    return parts[0] if len(parts) > 1 else path.stem


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_run_down_the_spine(path):
    package = _package(path)
    for name in _imports(path):
        parts = name.split(".")
        if parts[0] == "embedlab" and len(parts) > 1:
            assert parts[1] not in NEVER.get(package, set()), f"{package} imports {name}"
        top = parts[0]
        if top in ONLY_IN and (top, package) not in ALSO_ALLOWED:
            assert package == ONLY_IN[top], f"{top} is imported by {path.relative_to(PACKAGE)}"


def test_only_the_lab_imports_sims():
    """sims/ is the library side of the lab's pages and nothing else's: what the command line (or any
    other package) needs lives below it, in models/, vectors/, advise/ ..."""
    for path in _modules():
        if _package(path) in {"sims", "lab"}:
            continue
        pages = sorted(name for name in _imports(path) if name.split(".")[:2] == ["embedlab", "sims"])
        assert not pages, f"{path.relative_to(PACKAGE)} imports {pages}: move what it needs out of sims/"


def test_no_module_imports_anothers_private_names():
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("embedlab"):
                private = [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
                assert not private, f"{path.relative_to(PACKAGE)} imports {private} from {node.module}"


def _name(path: Path) -> str:
    """src/embedlab/train/run.py -> "embedlab.train.run"; a package is its __init__: "embedlab.train"."""
    parts = ("embedlab", *path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(path): path for path in _modules()}


def _embedlab_imports(path: Path) -> set[str]:
    """The package's modules `path` imports anywhere in the file (inside functions too): `import
    embedlab.x`, `from embedlab.x import y` (y when it is a module, else x) and relative imports."""
    name = _name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.update(f"{module}.{a.name}" if f"{module}.{a.name}" in MODULES else module for a in node.names)
    return {module for module in found if module in MODULES and module != name}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The graph's strongly connected parts of two or more modules (each holds at least one circle),
    found by Tarjan's algorithm; each sorted by name."""
    index: dict[str, int] = {}  # module -> order of first visit
    low: dict[str, int] = {}  # module -> lowest visit order reachable from it on the stack
    stack: list[str] = []
    parts = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in sorted(graph[module]):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:  # module is the root of a part: pop it off the stack
            part = []
            while not part or part[-1] != module:
                part.append(stack.pop())
            if len(part) > 1:
                parts.append(sorted(part))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(parts)


def _shortest_circle(graph: dict[str, set[str]], start: str) -> list[str]:
    """The shortest import path from `start` back to itself (breadth first): [start, ..., start]."""
    paths = {target: [start, target] for target in sorted(graph[start])}
    queue = list(paths)
    for module in queue:
        if module == start:
            return paths[module]
        for target in sorted(graph[module]):
            if target not in paths:
                paths[target] = [*paths[module], target]
                queue.append(target)
    return []


def test_no_import_circles():
    graph = {name: _embedlab_imports(path) for name, path in MODULES.items()}
    found = [
        f"{' -> '.join(_shortest_circle(graph, part[0]))}  (all the modules of this circle: {', '.join(part)})"
        for part in _circles(graph)
    ]
    assert not found, "import circles (an import inside a function counts: it only hides one):\n" + "\n".join(found)


def test_the_circle_finder_finds_circles_and_only_circles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": {"d"}, "f": {"a"}}
    assert _circles(graph) == [["a", "b", "c"], ["d", "e"]]
    assert _shortest_circle(graph, "a") == ["a", "b", "c", "a"] and _shortest_circle(graph, "f") == []
    assert _circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_imports_are_resolved_to_modules_inside_functions_too():
    imports = _embedlab_imports(PACKAGE / "train" / "run.py")
    assert {"embedlab.train.config", "embedlab.vectors.io", "embedlab.vectors.evaluate"} <= imports
    assert "embedlab.vectors" in imports  # `from embedlab.vectors import Vectors` runs the package's __init__
    assert "embedlab.vectors.io.run" in imports  # `from embedlab.vectors.io import run as run_files`: a module
    assert "embedlab" in _embedlab_imports(PACKAGE / "vectors" / "io" / "run.py")  # from embedlab import __version__


@pytest.mark.parametrize("init", sorted(PACKAGE.glob("*/__init__.py")), ids=lambda p: p.parent.name)
def test_each_package_docstring_lists_its_modules(init):
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
    modules = [p for p in init.parent.iterdir() if (p.suffix == ".py" and p.stem != "__init__") or
               (p.is_dir() and (p / "__init__.py").is_file())]  # fmt: skip
    missing = [p.name for p in modules if p.name not in doc and f"{p.name}/" not in doc]
    assert not missing, f"{init.parent.name}/__init__.py does not list {missing}"


def test_python_dash_m_runs_the_command_line():
    result = subprocess.run(
        [sys.executable, "-m", "embedlab", "--help"], capture_output=True, text=True, timeout=COMMAND_S
    )
    assert result.returncode == 0, result.stderr
    assert "train" in result.stdout and "neighbors" in result.stdout
