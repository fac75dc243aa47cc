"""`make run`: migrate, then start daphne, one Celery worker and one beat together.

Prints the URL, and stops every process on Ctrl-C (or when any of them dies).

    python -m dominoes_site.run [--demo] [--port 8000] [--host 127.0.0.1]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _manage(*args: str) -> None:
    subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, check=True)


def _wait_until_serving(url: str, web: subprocess.Popen[bytes], seconds: float = 60) -> None:
    """Wait until the web process answers, so the URL is printed when it works."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and web.poll() is None:
        try:
            with urllib.request.urlopen(url + "healthz", timeout=2):
                return
        except urllib.error.HTTPError:
            return  # it answered, even if a check is failing
        except OSError:
            time.sleep(0.3)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--demo", action="store_true", help="create demo players and a staff login")
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    args = parser.parse_args(argv)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dominoes_site.settings")
    print("Migrating the database…", flush=True)
    _manage("migrate", "--noinput", "-v", "0")
    if args.demo:
        _manage("demo_setup")

    var = ROOT / "var"
    var.mkdir(exist_ok=True)
    beat_pid = var / "celerybeat.pid"
    if beat_pid.exists():
        beat_pid.unlink()  # left by a previous run that was killed; beat refuses to start over it
    bin_dir = Path(sys.executable).parent
    commands = {
        # daphne, drained when stopped: its sockets are told to reconnect (dominoes_site/serve.py)
        "web": [
            sys.executable,
            "-m",
            "dominoes_site.serve",
            "-b",
            args.host,
            "-p",
            str(args.port),
            "--proxy-headers",
            # A restart brings every player back at once: give a handshake time to queue.
            "--websocket_connect_timeout",
            "20",
            "dominoes_site.asgi:application",
        ],
        "worker": [
            str(bin_dir / "celery"),
            "-A",
            "dominoes_site",
            "worker",
            "-l",
            "INFO",
            "--concurrency",
            os.environ.get("CELERY_CONCURRENCY", "2"),
            "-n",
            "worker@%h",
        ],
        "beat": [
            str(bin_dir / "celery"),
            "-A",
            "dominoes_site",
            "beat",
            "-l",
            "INFO",
            "--pidfile",
            str(beat_pid),
        ],
    }
    processes: dict[str, subprocess.Popen[bytes]] = {}
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    for name, command in commands.items():
        processes[name] = subprocess.Popen(command, cwd=ROOT, start_new_session=True)

    url = (
        f"http://{'localhost' if args.host in ('127.0.0.1', '0.0.0.0') else args.host}:{args.port}/"
    )
    _wait_until_serving(url, processes["web"])
    print(
        f"\n  Dominologist is running at {url}\n  (web, worker and beat; Ctrl-C stops them all)\n"
    )
    exit_code = 0
    try:
        while not stopping:
            for name, process in processes.items():
                if process.poll() is not None:
                    print(
                        f"The {name} process stopped (exit {process.returncode}); "
                        "stopping the rest."
                    )
                    exit_code = process.returncode or 1
                    stopping = True
                    break
            time.sleep(0.3)
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.terminate()  # each stops its own children (the worker's pool) cleanly
        deadline = time.monotonic() + 10
        for process in processes.values():
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
        print("Stopped web, worker and beat.")
    return exit_code


if __name__ == "__main__":
    raise SystemExit(main())
