"""The Dockerfile built for real and the image run, without a Docker engine.

``scripts/build-image-locally.sh`` makes a stand-in for ``python:3.11-slim``
(Debian bookworm, by mmdebstrap; cached under /var/tmp/pex-base), builds the
unchanged Dockerfile on it with buildah, runs the image with its own CMD, ENV
and USER, and checks /liveness, the page /app, a websocket opened with a LAN
Origin (PEX_ALLOWED_ORIGINS=*), the HEALTHCHECK command, and that the server
runs as uid 10001. This test runs that script.

It needs root and ``apt-get install -y buildah mmdebstrap``. Without them the
test is skipped, except when ``CI`` is set: there a missing tool is an error.
On two cores a cold run (base included) took 3 min 12 s on a quiet machine,
5 to 6 min on a busy one; later runs reuse the base (about 2 min less).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from tests.missing import missing

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "build-image-locally.sh"


def _missing_requirements() -> list[str]:
    absent = [tool for tool in ("buildah", "mmdebstrap") if shutil.which(tool) is None]
    if os.geteuid() != 0:
        absent.append("root")
    return absent


@pytest.mark.timeout(900)
def test_image_builds_runs_and_serves():
    absent = _missing_requirements()
    if absent:
        message = (
            f"missing {', '.join(absent)} (run as root after apt-get install -y buildah mmdebstrap)"
        )
        missing(message)
    # A session of its own: on a timeout the whole group (buildah, the server)
    # gets SIGTERM, and the script's trap removes what it started.
    process = subprocess.Popen(
        [str(SCRIPT)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=840)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGTERM)
        stdout, stderr = process.communicate(timeout=60)
        pytest.fail(f"the script took over 14 minutes:\n{stdout}{stderr}")
    output = stdout + stderr
    print(output)  # the timings and the image size, shown with -rP or -s
    assert process.returncode == 0, output
    assert stdout.rstrip().endswith("OK"), output
    assert re.search(r"^start to /liveness: +[\d.]+ s$", stdout, re.MULTILINE), output
    assert "runs as uid 10001" in stderr, output
    assert "a websocket with Origin" in stderr, output
    assert "HEALTHCHECK command succeeded" in stderr, output
