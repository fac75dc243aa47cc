"""The Celery app. Tasks are discovered in each installed app's `tasks` module.

Settings come from Django's settings under the `CELERY_` namespace; the beat schedule is static
and lives in settings (`CELERY_BEAT_SCHEDULE`). Celery's Django fix-up gives every task
`delay_on_commit()`, which is how services queue work: only after their transaction commits.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dominoes_site.settings")

app = Celery("dominoes_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
