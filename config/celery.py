"""The Celery app: one for web and workers, configured from Django settings (CELERY_*)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

app = Celery("paperscope")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
