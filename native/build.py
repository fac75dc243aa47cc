"""Compile the rules' hot path with mypyc, where this machine can; never required.

    python native/build.py [--force] [--require]

Compiles ``engine._native.COMPILED_MODULES`` into ``build/engine/`` (a copy of the sources is
compiled in a scratch folder, and the result moved into place whole), with the stamp of the
sources it compiled. ``make run`` and ``make test`` call it first. Without a C compiler, Python's
headers or mypyc it says why and leaves the engine pure Python, as it also is for a source
edited since the build (see engine/_native.py). ``--require`` (or REQUIRE_COMPILED_ENGINE=1, as
CI sets) makes a build that cannot be made an error instead.

Safe to run by two processes at once: a lock makes the second wait and then find the build
current.
"""

from __future__ import annotations

import argparse
import fcntl
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def native_module() -> ModuleType:
    """engine/_native.py, loaded by its path (importing the engine would take its decision)."""
    spec = importlib.util.spec_from_file_location("_engine_native", ROOT / "engine" / "_native.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def missing_tools() -> str | None:
    """Why this machine cannot compile the engine, or None."""
    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    if not shutil.which(compiler):
        return f"no C compiler ({compiler})"
    include = sysconfig.get_paths()["include"]
    if not (Path(include) / "Python.h").exists():
        return f"no Python headers ({include}/Python.h)"
    for module in ("mypyc", "setuptools"):
        if importlib.util.find_spec(module) is None:
            return f"no {module} in this Python"
    return None


SETUP = """
import sys
from setuptools import setup
from mypyc.build import mypycify

paths, group = sys.argv[1].split(","), sys.argv[2]
sys.argv = [sys.argv[0], "build_ext", "--build-lib", sys.argv[3], "--build-temp", "tmp"]
setup(name="dominoes_engine", ext_modules=mypycify(paths, opt_level="3", group_name=group))
"""


def build(native: ModuleType) -> tuple[bool, str]:
    """Compile into a scratch folder and move it into place; return (built, what to say)."""
    build_dir: Path = native.BUILD
    build_dir.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="engine-build-", dir=build_dir.parent) as scratch:
        work = Path(scratch)
        src = work / "src"
        (src / "engine").mkdir(parents=True)
        for path in (ROOT / "engine").glob("*.py"):
            shutil.copy2(path, src / "engine" / path.name)
        out = work / "out"
        stamp = native.stamp()  # of the sources as copied: taken before, checked after
        paths = ",".join(f"engine/{name}.py" for name in native.COMPILED_MODULES)
        done = subprocess.run(
            [sys.executable, "-c", SETUP, paths, native.GROUP, str(out)],
            cwd=src,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-25:])
            return False, f"mypyc failed:\n{tail}"
        for name in native.COMPILED_MODULES:
            copied = (src / "engine" / f"{name}.py").read_bytes()
            if copied != (ROOT / "engine" / f"{name}.py").read_bytes():
                return False, f"engine/{name}.py changed during the build: run it again"
        (out / "STAMP").write_text(stamp + "\n")
        old = work / "old"
        if build_dir.exists():
            build_dir.rename(old)  # processes that loaded the old modules keep their copies
        out.rename(build_dir)
    return True, f"compiled {len(native.COMPILED_MODULES)} engine modules into {build_dir}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="build even when current")
    parser.add_argument(
        "--require",
        action="store_true",
        default=os.environ.get("REQUIRE_COMPILED_ENGINE") == "1",
        help="fail when the compiled engine cannot be built",
    )
    args = parser.parse_args()
    native = native_module()
    native.BUILD.parent.mkdir(parents=True, exist_ok=True)
    with open(native.BUILD.parent / ".engine-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second build waits, then finds this one current
        if native.build_is_current() and not args.force:
            print("engine: the compiled build is current")
            return 0
        why = missing_tools()
        if why is None:
            print(
                "engine: compiling the rules' hot path with mypyc"
                " (about 30 s, once per change of the engine)...",
                flush=True,
            )
            started = time.monotonic()
            built, said = build(native)
            if built:
                print(f"engine: {said} in {time.monotonic() - started:.0f} s")
                return 0
            why = said
        print(f"engine: not compiled, the engine runs as pure Python: {why}", file=sys.stderr)
        return 1 if args.require else 0


if __name__ == "__main__":
    sys.exit(main())
