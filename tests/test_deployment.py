"""The documented production processes are the ones that run: the Procfile's commands are
docker-compose.yml's and the deployment guide's, and its release and web commands really start
Paperscope under gunicorn with the production settings (static files from whitenoise, JSON
access log, security headers)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import yaml

from tests.processes import child_env, free_port

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def procfile() -> dict[str, str]:
    lines = (ROOT / "Procfile").read_text().splitlines()
    return dict(line.split(": ", 1) for line in lines if line.strip())


def compose_command(service: dict) -> str:
    command = service["command"]
    # A command that chains several with && runs under sh -c in the container.
    return command.removeprefix('sh -c "').removesuffix('"')


def test_the_procfile_has_the_four_processes():
    assert list(procfile()) == ["release", "web", "worker", "beat"]


def test_docker_compose_runs_exactly_the_procfile_commands():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    for name, command in procfile().items():
        assert compose_command(services[name]) == command, name
    assert services["beat"]["deploy"]["replicas"] == 1


def test_the_deployment_guide_quotes_every_procfile_command():
    guide = (ROOT / "docs" / "deployment.md").read_text()
    for name, command in procfile().items():
        assert command in guide, name


def shell(command: str) -> str:
    """A Procfile line as the shell runs it, with this virtual environment's programs."""
    return re.sub(r"(^|&& )(python|gunicorn|celery) ", rf"\1{BIN}/\2 ", command)


@pytest.fixture(scope="module")
def released(tmp_path_factory) -> dict[str, str]:
    """The environment of a fresh installation after the Procfile's release command ran."""
    env = child_env(
        PAPERSCOPE_DATA_DIR=str(tmp_path_factory.mktemp("deployment")),
        SECRET_KEY="deployment-test-" + "q8Zx" * 12,
        ALLOWED_HOSTS="127.0.0.1",
    )
    release = subprocess.run(
        shell(procfile()["release"]),
        shell=True,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert release.returncode == 0, release.stderr
    return env


def start(command: str, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        shell(command),
        shell=True,
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def stop(process: subprocess.Popen) -> tuple[str, str]:
    """SIGTERM, as a process manager stops a service; SIGKILL if it has not ended in 30 s."""
    os.killpg(process.pid, signal.SIGTERM)
    try:
        return process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        return process.communicate(timeout=30)


def test_the_release_and_web_commands_serve_paperscope_in_production(released, tmp_path):
    port = free_port()
    # A home of its own: gunicorn must not open its control socket (~/.gunicorn/gunicorn.ctl),
    # which a second gunicorn on the host would take over.
    home_dir = tmp_path / "home"
    home_dir.mkdir()
    settings = {**released, "GUNICORN_BIND": f"127.0.0.1:{port}", "HOME": str(home_dir)}
    web = start(procfile()["web"], settings)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                health = httpx.get(f"{base}/healthz")
                break
            except httpx.TransportError:
                assert web.poll() is None, web.stderr.read()
                assert time.monotonic() < deadline, "gunicorn did not start within 60 s"
                time.sleep(0.3)
        assert health.status_code == 200
        assert health.json()["status"] == "ok"

        home = httpx.get(f"{base}/")
        assert home.status_code == 200
        assert "script-src 'self'" in home.headers["content-security-policy"]
        # whitenoise serves the hashed, compressed static files with a far-future lifetime.
        stylesheet = re.search(r'href="(/static/css/paperscope\.[0-9a-f]{12}\.css)"', home.text)
        assert stylesheet, "the page links the hashed stylesheet"
        css = httpx.get(f"{base}{stylesheet.group(1)}", headers={"Accept-Encoding": "gzip"})
        assert css.status_code == 200
        assert css.headers["content-encoding"] == "gzip"
        assert "max-age=315360000" in css.headers["cache-control"]
        assert httpx.get(f"{base}/no-such-page").status_code == 404
        assert not (home_dir / ".gunicorn").exists()
    finally:
        stdout, _ = stop(web)
    access = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    assert [(r["method"], r["path"], r["status"]) for r in access] == [
        ("GET", "/healthz", 200),
        ("GET", "/", 200),
        ("GET", stylesheet.group(1), 200),
        ("GET", "/no-such-page", 404),
    ]
    assert all(isinstance(r["duration_ms"], float) for r in access)


@pytest.mark.parametrize(("name", "ready"), [("worker", "ready."), ("beat", "beat: Starting")])
def test_the_worker_and_beat_commands_start(released, name, ready):
    process = start(procfile()[name], released)
    seen = []
    try:
        deadline = time.monotonic() + 90
        while not any(ready in line for line in seen):
            assert process.poll() is None, "".join(seen)
            assert time.monotonic() < deadline, "".join(seen)
            line = process.stderr.readline()
            seen.append(line)
    finally:
        stop(process)
