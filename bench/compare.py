"""Run `ws_load.py` on an older commit and on the code here, alternating, and print both.

These machines are shared and their speed drifts from minute to minute, so a figure is only
worth comparing with one taken beside it. This script checks the older commit out into a
temporary git worktree (same virtualenv), then runs the same `ws_load.py` arguments on it and on
this working tree in turn (old, new, old, new, ...), each run starting and stopping its own
servers, and prints every run's figures, the median of each side and the ratio new / old.

    .venv/bin/python bench/compare.py --rev 229e106 --rounds 2 -- --stack embedded --tables 50
    .venv/bin/python bench/compare.py --rev 229e106 -- --stack production --tables 50 --rate 100

Everything after `--` goes to both sides' `ws_load.py` (each side runs its own copy of the
script, so an option only the new one knows cannot be compared). `--json FILE` writes all runs.

`--script many_sockets.py` compares another bench instead (its figures are listed in
`FIGURES_BY_SCRIPT`). A script that takes `--code-root` runs from this tree on both sides (the
older commit may not have it): only the servers run the older commit's code, from its worktree.

    .venv/bin/python bench/compare.py --script many_sockets.py --rev b8f44db --rounds 1
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

#: (label, path into ws_load's JSON, "higher" or "lower" is better)
FIGURES = [
    ("moves/s", ("game", "moves_per_s"), "higher"),
    ("server CPU per move (ms)", ("game", "cpu_ms_per_move", "server"), "lower"),
    ("move -> all seats p50 (ms)", ("game", "latency", "p50_ms"), "lower"),
    ("move -> all seats p99 (ms)", ("game", "latency", "p99_ms"), "lower"),
    ("move -> ack p50 (ms)", ("game", "ack", "p50_ms"), "lower"),
    ("move -> ack p99 (ms)", ("game", "ack", "p99_ms"), "lower"),
    ("other processes (% of a core)", ("game", "cpu_percent_of_one_core", "other processes"), "-"),
    ("baseline fan-out /s", ("baseline", "moves_per_s"), "higher"),
]

#: The same for the other scripts compare.py can run (`--script`).
MANY = "mix_result"
FIGURES_BY_SCRIPT: dict[str, list[tuple[str, tuple[str, ...], str]]] = {
    "ws_load.py": FIGURES,
    "many_sockets.py": [
        ("sockets open", (MANY, "ramp", "sockets"), "higher"),
        ("handshakes/s (ramp)", (MANY, "ramp", "handshakes_per_s"), "higher"),
        ("handshake p50 (ms)", (MANY, "ramp", "handshake_ms", "p50_ms"), "lower"),
        ("handshake p99 (ms)", (MANY, "ramp", "handshake_ms", "p99_ms"), "lower"),
        ("hello -> snapshot p99 (ms)", (MANY, "ramp", "hello_to_snapshot_ms", "p99_ms"), "lower"),
        ("daphne CPU per handshake (ms)",
         (MANY, "ramp", "server_cpu_ms_per_handshake", "daphnes"), "lower"),
        ("daphne KiB per socket", (MANY, "ramp", "memory_kib_per_socket", "daphnes"), "lower"),
        ("redis KiB per socket", (MANY, "ramp", "memory_kib_per_socket", "redis"), "lower"),
        ("redis connections after the ramp", (MANY, "ramp", "redis_connections"), "lower"),
        ("client KiB per socket", (MANY, "ramp", "memory_kib_per_socket", "clients"), "-"),
        ("mix move -> table p99 (ms)",
         (MANY, "play", "move_to_every_table_socket_ms", "p99_ms"), "lower"),
        ("dead sockets (no pong)", (MANY, "check", "dead_total"), "lower"),
        ("deaf sockets", (MANY, "check", "deaf_total"), "lower"),
        ("final move -> all watchers p50 (ms)",
         ("final_result", "move_to_every_watcher_ms", "p50_ms"), "lower"),
        ("final move -> all watchers p99 (ms)",
         ("final_result", "move_to_every_watcher_ms", "p99_ms"), "lower"),
        ("final daphne CPU per move (ms)",
         ("final_result", "server_cpu_ms_per_move", "daphnes"), "lower"),
        ("final moves", ("final_result", "moves"), "higher"),
    ],
}  # fmt: skip

#: Scripts that run from this tree on both sides, the older side with `--code-root <worktree>`.
CLIENT_SCRIPTS = {"many_sockets.py"}


def _dig(data: dict[str, Any], path: tuple[str, ...]) -> float | None:
    value: Any = data
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return float(value) if isinstance(value, int | float) else None


def _worktree(rev: str, into: Path) -> Path:
    subprocess.run(
        ["git", "worktree", "add", "--detach", str(into), rev],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return into


def _run(
    tree: Path, bench_args: list[str], out: Path, script: str = "ws_load.py"
) -> dict[str, Any] | None:
    if script in CLIENT_SCRIPTS:  # this tree's client, `tree`'s servers
        command = [sys.executable, str(ROOT / "bench" / script), "--code-root", str(tree)]
        cwd = ROOT
    else:
        command = [sys.executable, str(tree / "bench" / script)]
        cwd = tree
    command += [*bench_args, "--json", str(out)]
    print(f"\n$ (in {cwd}) {' '.join(command[1:])}", flush=True)
    done = subprocess.run(command, cwd=cwd)
    if done.returncode != 0 or not out.exists():
        print(f"  -> failed (exit {done.returncode})", flush=True)
        return None
    return dict(json.loads(out.read_text()))


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    bench_args: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, bench_args = argv[:at], argv[at + 1 :]
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rev", default="229e106", help="the older commit (default 229e106)")
    parser.add_argument("--rounds", type=int, default=2, help="runs of each side, alternating")
    parser.add_argument("--json", metavar="FILE", help="write every run's figures here")
    parser.add_argument(
        "--script", default="ws_load.py", choices=sorted(FIGURES_BY_SCRIPT), help="the bench"
    )
    parser.add_argument(
        "--new-args",
        default="",
        help="more ws_load.py options for this tree only (ones the old script does not know, "
        'e.g. "--route spread")',
    )
    args = parser.parse_args(argv)

    scratch = Path(tempfile.mkdtemp(prefix="bench-compare-"))
    old_tree = _worktree(args.rev, scratch / f"rev-{args.rev}")
    runs: dict[str, list[dict[str, Any] | None]] = {"old": [], "new": []}
    try:
        for i in range(args.rounds):
            for side, tree in (("old", old_tree), ("new", ROOT)):
                # (the new script would also record its run in bench/results/: not a comparison's)
                extra = ["--no-record", *args.new_args.split()] if side == "new" else []
                if args.script in CLIENT_SCRIPTS:  # both sides are this tree's script
                    extra = ["--no-record", *(args.new_args.split() if side == "new" else [])]
                out = scratch / f"{side}-{i}.json"
                runs[side].append(_run(tree, [*bench_args, *extra], out, args.script))
    finally:
        subprocess.run(
            ["git", "worktree", "remove", "--force", str(old_tree)],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    print(f"\nside by side: {args.rev} (old) and this tree (new), {args.rounds} runs each,")
    print(
        f"alternating; {args.script} {' '.join(bench_args)}; new side also: "
        f"{args.new_args or '-'}\n"
    )
    print(f"{'figure':34} {'old runs':>24} {'new runs':>24} {'old':>8} {'new':>8} {'new/old':>8}")
    summary: dict[str, Any] = {}
    for label, path, better in FIGURES_BY_SCRIPT[args.script]:
        olds = [v for r in runs["old"] if r and (v := _dig(r, path)) is not None]
        news = [v for r in runs["new"] if r and (v := _dig(r, path)) is not None]
        old_m = statistics.median(olds) if olds else None
        new_m = statistics.median(news) if news else None
        ratio = new_m / old_m if old_m and new_m is not None else None
        summary[label] = {"old": olds, "new": news, "ratio": ratio, "better": better}
        print(
            f"{label:34} {' '.join(f'{v:.1f}' for v in olds):>24} "
            f"{' '.join(f'{v:.1f}' for v in news):>24} "
            f"{'-' if old_m is None else f'{old_m:.1f}':>8} "
            f"{'-' if new_m is None else f'{new_m:.1f}':>8} "
            f"{'-' if ratio is None else f'{ratio:.2f} x':>8}"
        )
    failed = [s for s, rs in runs.items() for r in rs if r is None]
    if failed:
        print(f"\nruns that failed: {', '.join(failed)}")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(
            json.dumps(
                {
                    "rev": args.rev,
                    "script": args.script,
                    "args": bench_args,
                    "new_args": args.new_args.split(),
                    "runs": runs,
                    "summary": summary,
                }
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
