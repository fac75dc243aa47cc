"""The optional compiled engine (engine/_native.py, native/build.py): used only when it was built
from the sources beside it, never required, and the run says which it is.

CI runs the whole suite twice: on the embedded default with ``DOMINOES_ENGINE=pure`` and on the
production stack with ``REQUIRE_COMPILED_ENGINE=1``, so every rules test passes both ways.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from engine import _native

ROOT = Path(__file__).resolve().parents[2]
REPORT = (
    "import engine, engine.state as s; "
    "print(engine.COMPILED, s.__file__.endswith('.py'), s.GameState.new.__class__.__name__)"
)


def run_engine(cwd: Path, **env: str) -> list[str]:
    """Import the engine in a fresh process in ``cwd``; what it says of itself."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("DOMINOES_ENGINE")}
    environ.update(env)
    out = subprocess.run(
        [sys.executable, "-c", REPORT],
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.split()


def test_this_run_uses_the_engine_it_asks_for() -> None:
    state_file = engine.state.__file__ or ""
    if os.environ.get("DOMINOES_ENGINE") == "pure":
        assert not engine.COMPILED
        assert state_file.endswith("state.py")
    elif os.environ.get("REQUIRE_COMPILED_ENGINE") == "1":
        assert engine.COMPILED, "CI asked for the compiled engine and this run did not load it"
        for name in _native.COMPILED_MODULES:
            module = importlib.import_module(f"engine.{name}")
            assert (module.__file__ or "").endswith(".so"), module.__file__
            assert (module.__file__ or "").startswith(str(_native.BUILD))
    else:  # a developer's run: compiled exactly when a current build exists
        assert _native.build_is_current() == engine.COMPILED


def copy_of_the_engine(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "engine", tmp_path / "engine", ignore=shutil.ignore_patterns("*.pyc"))
    return tmp_path


@pytest.mark.skipif(not _native.build_is_current(), reason="no compiled build on this machine")
def test_an_edited_source_runs_as_pure_python_never_as_the_stale_build(tmp_path: Path) -> None:
    copy = copy_of_the_engine(tmp_path)
    build = str(_native.BUILD)
    # the same sources: the build is used (its functions are compiled, not Python functions)
    assert run_engine(copy, DOMINOES_ENGINE_BUILD=build) == [
        "True",
        "False",
        "builtin_function_or_method",
    ]
    # asked for pure Python: the sources, though the build is current
    assert run_engine(copy, DOMINOES_ENGINE_BUILD=build, DOMINOES_ENGINE="pure") == [
        "False",
        "True",
        "method",
    ]
    # one source edited (a comment will do): the build no longer matches, and is not used
    state = copy / "engine" / "state.py"
    state.write_text(state.read_text() + "\n# edited after the build\n")
    assert run_engine(copy, DOMINOES_ENGINE_BUILD=build) == ["False", "True", "method"]


def test_no_compiler_means_pure_python_and_a_reason(tmp_path: Path) -> None:
    """A machine without a C compiler: the build says why and succeeds (pure Python), unless it
    is required."""
    build = tmp_path / "build" / "engine"
    environ = {k: v for k, v in os.environ.items() if k != "REQUIRE_COMPILED_ENGINE"}
    environ.update(CC="/nonexistent/cc", DOMINOES_ENGINE_BUILD=str(build))
    command = [sys.executable, str(ROOT / "native" / "build.py"), "--force"]
    done = subprocess.run(command, env=environ, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "not compiled, the engine runs as pure Python: no C compiler" in done.stderr
    assert not (build / "STAMP").exists()
    assert run_engine(ROOT, DOMINOES_ENGINE_BUILD=str(build)) == ["False", "True", "method"]
    required = subprocess.run(
        [*command, "--require"], env=environ, capture_output=True, text=True, check=False
    )
    assert required.returncode == 1
    assert "no C compiler" in required.stderr
