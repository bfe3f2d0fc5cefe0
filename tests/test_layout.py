"""The package keeps its shape: imports run down the spine, never back up it; each package's
docstring lists its modules; `python -m embedlab` is the command line."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import embedlab

PACKAGE = Path(embedlab.__file__).parent

# package -> the embedlab packages it must never import (anything above it on the spine)
NEVER = {
    "layers": {"models", "train", "vectors", "tokenizer", "sims", "lab", "cli"},
    "models": {"train", "sims", "lab", "cli"},
    "tokenizer": {"models", "train", "sims", "lab", "cli"},
    "vectors": {"train", "sims", "lab", "cli"},
    "train": {"sims", "lab", "cli"},
    "arena": {"sims", "lab", "cli"},
    "data": {"layers", "models", "tokenizer", "vectors", "train", "sims", "lab", "cli"},
    "sims": {"lab", "cli"},
    "lab": {"cli"},
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


def test_no_module_imports_anothers_private_names():
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("embedlab"):
                private = [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
                assert not private, f"{path.relative_to(PACKAGE)} imports {private} from {node.module}"


@pytest.mark.parametrize("init", sorted(PACKAGE.glob("*/__init__.py")), ids=lambda p: p.parent.name)
def test_each_package_docstring_lists_its_modules(init):
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
    modules = [p for p in init.parent.iterdir() if (p.suffix == ".py" and p.stem != "__init__") or
               (p.is_dir() and (p / "__init__.py").is_file())]  # fmt: skip
    missing = [p.name for p in modules if p.name not in doc and f"{p.name}/" not in doc]
    assert not missing, f"{init.parent.name}/__init__.py does not list {missing}"


def test_python_dash_m_runs_the_command_line():
    result = subprocess.run([sys.executable, "-m", "embedlab", "--help"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "train" in result.stdout and "neighbors" in result.stdout
