"""A real daphne serving the whole ASGI app on the test database, in a forked process.

The child shares the parent's test settings and database; its channel layer starts afresh (the
parent's pools and event loops do not survive a fork). Fork only from a thread with no event
loop running.
"""

from __future__ import annotations

from typing import Any


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
