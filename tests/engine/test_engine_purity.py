"""engine/ is a pure library: no Django anywhere, and its docstring examples run."""

from __future__ import annotations

import ast
import doctest
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "engine"
MODULES = sorted(p.stem for p in ENGINE.glob("*.py") if p.stem != "__main__")


def imported_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_no_django_import_in_engine() -> None:
    files = sorted(ENGINE.rglob("*.py"))
    assert files
    for path in files:
        for name in imported_names(path):
            assert name.split(".")[0] != "django", f"{path.name} imports {name}"
        assert 'import_module("django' not in path.read_text()


def test_importing_the_engine_loads_no_django() -> None:
    code = "import engine, engine.scenario, sys; print(any(m == 'django' for m in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ENGINE.parent,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "False"


def test_engine_imports_only_the_standard_library() -> None:
    allowed = set(sys.stdlib_module_names)
    for path in ENGINE.rglob("*.py"):
        for name in imported_names(path):
            assert name.split(".")[0] in allowed, f"{path.name} imports {name}"


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples(module: str) -> None:
    mod = importlib.import_module(f"engine.{module}" if module != "__init__" else "engine")
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
