"""The optional compiled engine: which modules it compiles, and whether this process uses it.

``native/build.py`` compiles :data:`COMPILED_MODULES` with mypyc (the engine is mypy-strict)
into ``build/engine/``, and writes there the stamp of the sources it compiled. On import,
``engine/__init__.py`` calls :func:`use_compiled`: the compiled modules are used only when their
stamp matches the sources beside this file (an edited source falls back to pure Python, never
to stale machine code) and ``DOMINOES_ENGINE`` is not ``pure``; ``engine.COMPILED`` then says
whether they were loaded (:func:`loaded_compiled`). Without a compiler the build is
skipped, and the engine runs as the pure Python it always was: the two are the same rules, and
CI runs the whole suite once with each.

This module is never compiled itself, and uses the standard library only.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import Final

SOURCE: Final = Path(__file__).resolve().parent
BUILD: Final = Path(os.environ.get("DOMINOES_ENGINE_BUILD") or SOURCE.parent / "build" / "engine")
"""Where native/build.py puts the compiled modules (``engine/*.so``) and their ``STAMP``."""

COMPILED_MODULES: Final = (
    "bones",
    "board",
    "dealing",
    "events",
    "rules",
    "scoring",
    "state",
    "views",
    "bots",
    "coach",
)
"""The modules compiled: the rules' hot path, and the house players and the coach, which spend
their time simulating games. The rest stay Python: ``actions`` and ``errors`` (an action built
by hand may hold anything, and must get the engine's own error for it, and a compiled class
checks its fields' types as it is built), ``scenario`` (a command)."""

GROUP: Final = "dominoes_engine"
"""mypyc's name for the shared library the compiled modules live in (``dominoes_engine__mypyc``)."""


def stamp() -> str:
    """What the compiled build must have been built from: this Python, and the exact sources."""
    digest = hashlib.sha256()
    digest.update(f"{sys.implementation.cache_tag} {sys.version}\n".encode())
    for name in COMPILED_MODULES:
        digest.update(name.encode() + b"\0")
        digest.update((SOURCE / f"{name}.py").read_bytes())
    return digest.hexdigest()


def build_is_current() -> bool:
    try:
        built = (BUILD / "STAMP").read_text().strip()
    except OSError:
        return False
    return built == stamp()


def loaded_compiled() -> bool:
    """Whether the compiled modules the engine has imported (``state`` among them) came from the
    build. Those imported later (``bots``, ``coach``) come from the same place, the package's
    path being set once."""
    build = str(BUILD)
    if "engine.state" not in sys.modules:
        return False
    for name in COMPILED_MODULES:
        module = sys.modules.get(f"engine.{name}")
        if module is not None and not (getattr(module, "__file__", None) or "").startswith(build):
            return False
    return True


def use_compiled(package_path: list[str]) -> bool:
    """Put the compiled modules ahead of the sources on the package's path when they may be
    used; return whether they are."""
    if os.environ.get("DOMINOES_ENGINE", "").strip().lower() == "pure":
        return False
    if not build_is_current():
        return False
    package_path.insert(0, str(BUILD / "engine"))
    if str(BUILD) not in sys.path:
        sys.path.append(str(BUILD))  # the shared library, imported by its top-level name
    return True
