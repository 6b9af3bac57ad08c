"""The Docker image's start command, run outside a container.

The image's CMD is ``./deploy/serve.sh`` with the environment the Dockerfile
sets; this test reads both from the Dockerfile itself, runs the same script
with the same variables (only the port changed to a free one), and checks the
liveness endpoint and a page.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"


def _dockerfile_env_and_cmd() -> tuple[dict[str, str], list[str]]:
    text = DOCKERFILE.read_text().replace("\\\n", " ")
    env: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("ENV "):
            env.update(re.findall(r"(\w+)=(\S+)", line[4:]))
    cmd_line = next(line for line in text.splitlines() if line.startswith("CMD "))
    return env, json.loads(cmd_line[4:])


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.status, response.read().decode("utf-8", "replace")


def test_hadolint_passes():
    hadolint = shutil.which("hadolint") or str(Path(sys.executable).parent / "hadolint")
    result = subprocess.run([hadolint, str(DOCKERFILE)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_image_start_command_serves_liveness_and_pages(tmp_path):
    env, cmd = _dockerfile_env_and_cmd()
    assert cmd == ["./deploy/serve.sh"]
    port = _free_port()
    env.update(PEX_PORT=str(port), PEX_ADDRESS="127.0.0.1")
    # The image puts the installed package's scripts on PATH; so does the venv.
    run_env = {
        **os.environ,
        **env,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    log = tmp_path / "serve.log"
    with log.open("w") as handle:
        process = subprocess.Popen(
            [str(ROOT / cmd[0])], cwd=ROOT, env=run_env, stdout=handle, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                status, _ = _get(f"http://127.0.0.1:{port}/liveness")
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"server did not come up:\n{log.read_text()}")
                time.sleep(0.3)
        assert status == 200
        status, body = _get(f"http://127.0.0.1:{port}/app?page=sinusoidal")
        assert status == 200
        assert "Positional Encoding Explorer" in body
        # Every script comes from this server (relative paths, no CDN).
        assert "static/js/bokeh.min.js" in body
        assert "cdn." not in body
        command_line = Path(f"/proc/{process.pid}/cmdline").read_bytes().split(b"\0")
        assert b"--unused-session-lifetime" in command_line
        assert b"60000" in command_line
        # The Dockerfile's default '*' reaches panel as a wildcard, not as the
        # names of the files in the working directory (shell expansion).
        origins = [
            command_line[i + 1]
            for i, arg in enumerate(command_line)
            if arg == b"--allow-websocket-origin"
        ]
        assert origins == [b"*"]
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
    assert "Traceback" not in log.read_text()
