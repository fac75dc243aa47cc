"""A real daphne serving the whole ASGI app on the test database, in a forked process.

The child shares the parent's test settings and database; its channel layer starts afresh (the
parent's pools and event loops do not survive a fork). Fork only from a thread with no event
loop running.

`serve_process` starts one as a fresh process instead, through the house's own entry point
(`python -m dominoes_site.serve`, as production does), on the test database and the test
channel layer: what a test that signals the server needs.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _child_setup() -> None:
    """In the forked child only the forking thread survives: start afresh whatever kept threads
    (asgiref's thread-sensitive executor, the channel layer's pools and its background loop)."""
    from concurrent.futures import ThreadPoolExecutor

    from asgiref.sync import SyncToAsync
    from channels.layers import channel_layers

    import dominoes_site.layer as layer_module

    SyncToAsync.single_thread_executor = ThreadPoolExecutor(max_workers=1)
    SyncToAsync.context_to_thread_executor.clear()
    channel_layers.backends.clear()
    layer_module._loop = None
    layer_module._outboxes.clear()


def start_server(port: int = 0) -> Any:
    from daphne.testing import DaphneProcess
    from django.db import connections

    from dominoes_site.asgi import application

    connections.close_all()
    process = DaphneProcess("127.0.0.1", lambda: application, setup=_child_setup, port=port)
    process.daemon = True
    process.start()
    if not process.ready.wait(timeout=30):
        raise RuntimeError("daphne did not start")
    return process


def stop_server(process: Any) -> None:
    process.terminate()
    process.join(timeout=10)
    if process.is_alive():
        process.kill()


#: The child: the test database's name (the settings name the real one), then the entry point.
_SERVE = (
    "import sys\n"
    "from django.conf import settings\n"
    "settings.DATABASES['default']['NAME'] = sys.argv.pop(1)\n"
    "from dominoes_site.serve import main\n"
    "raise SystemExit(main(sys.argv[1:]))\n"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve_process(
    port: int, log: Path, extra_env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """`python -m dominoes_site.serve -b 127.0.0.1 -p <port> ...` on the test database and this
    process's VAR_DIR (the embedded channel layer's folder) and Redis, once it answers HTTP.
    Its output goes to `log`."""
    from django.conf import settings
    from django.db import connection

    env = {
        **os.environ,
        **(extra_env or {}),
        "DJANGO_SETTINGS_MODULE": "dominoes_site.settings",
        "VAR_DIR": str(settings.VAR_DIR),
        "PYTHONPATH": str(ROOT),
    }
    with open(log, "ab") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-c",
                _SERVE,
                str(connection.settings_dict["NAME"]),
                "-b",
                "127.0.0.1",
                "-p",
                str(port),
                "--websocket_connect_timeout",
                "20",
                "dominoes_site.asgi:application",
            ],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 60
    while process.poll() is None and time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                return process
        except urllib.error.HTTPError:
            return process  # it answered
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"the server on port {port} did not start: {log.read_text()[-2000:]}")


def end_process(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.kill()
        process.wait(timeout=10)
