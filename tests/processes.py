"""Helpers for tests that start Paperscope processes (manage.py, gunicorn, workers) for real.

A child process starts from a newcomer's shell: this test session's own settings (the CI pass's
DATABASE_URL, the test settings module, DEBUG, ...) are left out, and each test says what it
sets on top.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Prefixes of every variable a test session may export that a Paperscope process reads.
SESSION_SETTINGS = (
    "DATABASE_URL",
    "REDIS_URL",
    "DEBUG",
    "SECRET_KEY",
    "ALLOWED_HOSTS",
    "LOG_",
    "DJANGO_",  # the test settings module, and DJANGO_ALLOW_ASYNC_UNSAFE of the browser tests
    "PAPERSCOPE_",
    "ARXIV_",
    "CELERY_",
)


def child_env(**settings: str) -> dict[str, str]:
    """This process's environment without the session's settings, plus ``settings``."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(SESSION_SETTINGS)}
    env.update(settings)
    return env


def run_manage(
    env: dict[str, str], *args: str, timeout: float = 120
) -> subprocess.CompletedProcess:
    """``python manage.py ARGS`` in the repository with ``env``, output captured as text."""
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def free_port() -> int:
    """A loopback TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
