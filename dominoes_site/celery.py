"""The Celery app. Tasks are discovered in each installed app's `tasks` module.

Settings come from Django's settings under the `CELERY_` namespace; the beat schedule is static
and lives in settings (`CELERY_BEAT_SCHEDULE`). Celery's Django fix-up gives every task
`delay_on_commit()`, which is how services queue work: only after their transaction commits.
"""

import contextlib
import os
import time
from datetime import datetime
from typing import Any

from celery import Celery
from celery.signals import before_task_publish, task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dominoes_site.settings")

app = Celery("dominoes_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


# --- Task lateness (dominoes_site/metrics.py) ----------------------------------------------------
# Each message carries when it was sent; a worker that begins a task observes how late it is:
# from its ETA when it has one (a Gym clock's timer, a grace timer), else from when it was sent.


@before_task_publish.connect
def _stamp_sent(headers: dict[str, Any] | None = None, **kwargs: Any) -> None:
    if headers is not None:
        headers.setdefault("sent_at", time.time())


@task_prerun.connect
def _observe_lateness(task: Any = None, **kwargs: Any) -> None:
    from dominoes_site.metrics import TASK_LATENESS

    request = getattr(task, "request", None)
    if request is None or getattr(request, "is_eager", False):
        return
    due = getattr(request, "sent_at", None) or (request.headers or {}).get("sent_at")
    eta = getattr(request, "eta", None)
    if eta:
        with contextlib.suppress(TypeError, ValueError):
            due = (
                datetime.fromisoformat(eta).timestamp() if isinstance(eta, str) else eta.timestamp()
            )
    if isinstance(due, int | float):
        TASK_LATENESS.labels(task=task.name).observe(max(0.0, time.time() - due))
