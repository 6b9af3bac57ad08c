"""Real server + real Chromium for the browser tests.

The server is the product's own start command (`panel serve app`) on a free
loopback port; the browser is Debian's Chromium driven by Playwright (its own
browser download does not work on these machines). When ``CI`` is set a missing
browser is an error, never a skip.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# One list of Chromium flags for the tests and the benchmarks (the flags that
# keep background tabs from being throttled matter for both).
from benchmarks._browser import (  # noqa: E402
    CHROMIUM_ARGS,
    free_port,
    stop_process,
    wait_until_up,
)


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(pytest.mark.ui)


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """Start `panel serve app` on a free port; yield its base URL and log path."""
    port = free_port()
    log = tmp_path_factory.mktemp("server") / "panel.log"
    command = [
        sys.executable,
        "-m",
        "panel",
        "serve",
        "app",
        "--address",
        "127.0.0.1",
        "--port",
        str(port),
        "--allow-websocket-origin",
        f"127.0.0.1:{port}",
        "--liveness",
    ]
    with log.open("w") as handle:
        process = subprocess.Popen(command, cwd=ROOT, stdout=handle, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, process, log)
        yield {"url": f"{base}/app", "base": base, "log": log, "process": process}
    finally:
        stop_process(process)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args, chromium):
    return {**browser_type_launch_args, "executable_path": chromium, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1280, "height": 800}}
