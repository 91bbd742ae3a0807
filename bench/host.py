"""What the benchmarks report about the machine they ran on (bench_web.py, bench_load.py)."""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path


def host_facts(database_url: str) -> dict:
    """CPUs, the CPU model, Python, PostgreSQL's version (or "?") and the load average now."""
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    try:
        pg = subprocess.run(
            ["psql", database_url, "-Atc", "SHOW server_version"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pg = "?"
    return {
        "cpus": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "postgresql": pg,
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
