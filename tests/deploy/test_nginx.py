"""The committed deploy/nginx.conf, run with Debian's nginx in front of real replicas.

The replicas are started with ``deploy/serve.sh``, which is the image's start command,
with the settings deploy/compose.yaml gives them. They listen on free loopback ports.
The test starts one replica per ``server`` line of the upstream. The configuration is
the committed file. The test rewrites only the listen port, the replica addresses,
the user, and the pid, log and temp-file paths, and every rewrite must match exactly
as often as expected, so a changed file cannot silently escape the test.

A real Chromium session goes through the proxy: the page loads, the figures draw,
and a slider moved from the keyboard comes back as a changed address (the server
rewrites it). Then the replica that holds the session is killed. That session's
websocket closes, a new page load still works (on the survivor), and the proxy keeps
answering.

Needs /usr/sbin/nginx (``apt-get install -y nginx``). Locally a missing nginx is a
skip, but under ``CI`` it is a failure.
"""

from __future__ import annotations

import os
import pwd
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from playwright.sync_api import Page, WebSocket

from tests.missing import missing
from tests.ui.helpers import PageWatch, open_page

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
NGINX_CONF = DEPLOY / "nginx.conf"
COMPOSE = DEPLOY / "compose.yaml"
NGINX = os.environ.get("NGINX", "/usr/sbin/nginx")
PAGE = "/app?page=sinusoidal"

pytestmark = pytest.mark.timeout(90)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str, timeout: float = 10) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.status, response.read().decode("utf-8", "replace")


def _wait_for(url: str, processes: list[subprocess.Popen], logs: list[Path], timeout: float):
    deadline = time.monotonic() + timeout
    while True:
        try:
            if _get(url, timeout=2)[0] == 200:
                return
        except OSError:
            pass
        exited = any(process.poll() is not None for process in processes)
        if exited or time.monotonic() > deadline:
            text = "\n".join(f"--- {log}\n{log.read_text(errors='replace')}" for log in logs)
            pytest.fail(f"{url} did not answer within {timeout} s:\n{text}")
        time.sleep(0.2)


def _upstream_servers(conf: str) -> list[str]:
    block = re.search(r"upstream\s+\w+\s*\{(.*?)\n\s*\}", conf, re.S)
    assert block, "deploy/nginx.conf has no upstream block"
    return re.findall(r"^\s*server\s+([\w.-]+:\d+)[^;]*;", block.group(1), re.M)


def _config_for_test(conf: str, *, listen: int, replicas: list[int], tmp: Path) -> str:
    """The committed config with only ports, addresses, user and file paths rewritten."""
    user = pwd.getpwuid(os.geteuid()).pw_name
    temp_paths = "".join(
        f"\n    {kind}_temp_path {tmp / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    rewrites = [
        (r"^user \S+;", f"user {user};", 1),
        (r"^pid \S+;", f"pid {tmp / 'nginx.pid'};", 1),
        (r"^error_log \S+", f"error_log {tmp / 'error.log'}", 1),
        (r"^(\s*access_log) /\S+", rf"\1 {tmp / 'access.log'}", 1),
        (r"^http \{", "http {" + temp_paths, 1),
        (r"^(\s*listen) 80;", rf"\1 127.0.0.1:{listen};", 1),
    ]
    for pattern, replacement, expected in rewrites:
        conf, count = re.subn(pattern, replacement, conf, flags=re.M)
        assert count == expected, f"deploy/nginx.conf: {pattern!r} matched {count} times"
    ports = iter(replicas)
    conf, count = re.subn(
        r"^(\s*server\s+)[\w.-]+:\d+",
        lambda m: f"{m.group(1)}127.0.0.1:{next(ports)}",
        conf,
        flags=re.M,
    )
    assert count == len(replicas)
    return conf


@dataclass
class Replica:
    port: int
    process: subprocess.Popen
    log: Path

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def kill(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)


@dataclass
class Stack:
    url: str
    replicas: list[Replica]
    access_log: Path
    error_log: Path

    def log_lines(self, needle: str) -> list[str]:
        text = self.access_log.read_text(errors="replace") if self.access_log.exists() else ""
        return [line for line in text.splitlines() if needle in line]


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)


@pytest.fixture
def nginx_binary() -> str:
    if not Path(NGINX).exists():
        missing(f"nginx not found at {NGINX} (apt-get install -y nginx)")
    return NGINX


@pytest.fixture
def stack(nginx_binary, redis_url, tmp_path) -> Iterator[Stack]:
    committed = NGINX_CONF.read_text()
    count = len(_upstream_servers(committed))
    assert count >= 2, "deploy/nginx.conf should balance at least two replicas"
    listen = _free_port()
    replica_env = yaml.safe_load(COMPOSE.read_text())["x-replica"]["environment"]
    env = {
        **os.environ,
        **{key: str(value) for key, value in replica_env.items()},
        # compose's Redis is a service named redis; here, a private one on loopback.
        "PEX_REDIS_URL": redis_url,
        "PEX_ADDRESS": "127.0.0.1",
        # The browser's page comes from nginx, so that is the websocket's Origin.
        "PEX_ALLOWED_ORIGINS": f"127.0.0.1:{listen}",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    replicas: list[Replica] = []
    processes: list[subprocess.Popen] = []
    try:
        for index in range(count):
            port = _free_port()
            log = tmp_path / f"replica{index}.log"
            with log.open("w") as handle:
                process = subprocess.Popen(
                    [str(DEPLOY / "serve.sh")],
                    cwd=ROOT,
                    env={**env, "PEX_PORT": str(port)},
                    stdout=handle,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            processes.append(process)
            replicas.append(Replica(port, process, log))
        for replica in replicas:
            _wait_for(f"http://{replica.address}/liveness", [replica.process], [replica.log], 60)
            command_line = Path(f"/proc/{replica.process.pid}/cmdline").read_bytes().split(b"\0")
            assert b"--use-xheaders" in command_line

        conf = tmp_path / "nginx.conf"
        conf.write_text(
            _config_for_test(
                committed, listen=listen, replicas=[r.port for r in replicas], tmp=tmp_path
            )
        )
        error_log = tmp_path / "error.log"
        base = [nginx_binary, "-p", str(tmp_path), "-c", str(conf), "-e", str(error_log)]
        checked = subprocess.run([*base, "-t"], capture_output=True, text=True, timeout=30)
        assert checked.returncode == 0, checked.stderr
        nginx_log = tmp_path / "nginx.out"
        with nginx_log.open("w") as handle:
            nginx = subprocess.Popen(
                [*base, "-g", "daemon off;"],
                stdout=handle,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        processes.append(nginx)
        url = f"http://127.0.0.1:{listen}"
        _wait_for(f"{url}/nginx-health", [nginx], [nginx_log, error_log], 15)
        yield Stack(url, replicas, tmp_path / "access.log", error_log)
    finally:
        for process in reversed(processes):
            _stop(process)


def _move_slider(page: Page) -> None:
    before = page.evaluate("window.location.search")
    page.locator(".noUi-handle").first.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"() => window.location.search !== {before!r}", timeout=15_000)


def _sockets(found: list[WebSocket]) -> list[WebSocket]:
    return [ws for ws in found if ws.url.split("?")[0].endswith("/ws")]


def _upstreams(line: str) -> list[str]:
    return re.search(r" upstream=(.*?) upstream_status=", line).group(1).split(", ")


def _wait_for_log(stack: Stack, needle: str, count: int, page: Page) -> list[str]:
    for _ in range(50):
        lines = stack.log_lines(needle)
        if len(lines) >= count:
            return lines
        page.wait_for_timeout(200)
    pytest.fail(f"{needle!r} logged {len(lines)} times, expected {count}")


def test_compose_and_nginx_list_the_same_replicas():
    compose = yaml.safe_load(COMPOSE.read_text())
    services = compose["services"]
    replicas = sorted(name for name in services if name not in ("nginx", "redis"))
    servers = _upstream_servers(NGINX_CONF.read_text())
    assert sorted(servers) == [f"{name}:5006" for name in replicas]
    for name in replicas:
        assert services[name]["build"]["dockerfile"] == "Dockerfile"
        assert services[name]["environment"]["PEX_USE_XHEADERS"] == "1"
        assert services[name]["environment"]["PEX_REDIS_URL"] == "redis://redis:6379/0"
        assert "redis" in services[name]["depends_on"]
        assert "healthcheck" in services[name]
        assert services["nginx"]["depends_on"][name]["condition"] == "service_healthy"
    assert "./nginx.conf:/etc/nginx/nginx.conf:ro" in services["nginx"]["volumes"]


@pytest.mark.ui
def test_sessions_through_nginx_survive_losing_a_replica(page: Page, stack: Stack):
    by_address = {replica.address: replica for replica in stack.replicas}

    # A session through the proxy: the page, its figures, and its websocket work.
    found: list[WebSocket] = []
    page.on("websocket", lambda ws: found.append(ws))
    watch = PageWatch().attach(page)
    open_page(page, stack.url + PAGE)
    _move_slider(page)
    assert watch.errors == []
    assert watch.external == []
    (first_socket,) = _sockets(found)
    assert not first_socket.is_closed()
    (load,) = stack.log_lines(f'"GET {PAGE} ')
    holder = by_address[_upstreams(load)[-1]]
    survivors = {replica.address: replica for replica in stack.replicas if replica is not holder}
    # Sticky: every request of the session so far (page, bundles) reached that replica.
    assert {_upstreams(line)[-1] for line in stack.log_lines('"GET ')} == {holder.address}

    # The replica holding the session dies: the session's websocket closes.
    holder.kill()
    for _ in range(50):
        if first_socket.is_closed():
            break
        page.wait_for_timeout(200)
    assert first_socket.is_closed()
    # nginx logs a websocket when it ends: the page and its socket had the same replica.
    (first_ws,) = _wait_for_log(stack, '"GET /app/ws', 1, page)
    assert " 101 " in first_ws
    assert _upstreams(first_ws) == [holder.address]

    # A new session through the proxy works, on a survivor.
    second = page.context.new_page()
    found_second: list[WebSocket] = []
    second.on("websocket", lambda ws: found_second.append(ws))
    watch_second = PageWatch().attach(second)
    open_page(second, stack.url + PAGE)
    _move_slider(second)
    assert watch_second.errors == []
    (second_socket,) = _sockets(found_second)
    assert not second_socket.is_closed()
    loads = stack.log_lines(f'"GET {PAGE} ')
    assert len(loads) == 2
    assert " 200 " in loads[-1]
    assert _upstreams(loads[-1])[-1] in survivors
    # Passive health check: the dead replica was taken out of the rotation.
    assert "upstream server temporarily disabled" in stack.error_log.read_text()
    assert f'upstream: "http://{holder.address}/' in stack.error_log.read_text()

    # The proxy keeps serving plain requests too.
    for _ in range(3):
        assert _get(stack.url + "/liveness")[0] == 200
    second.close()
    sockets = _wait_for_log(stack, '"GET /app/ws', 2, page)
    assert " 101 " in sockets[-1]
    assert _upstreams(sockets[-1])[-1] == _upstreams(loads[-1])[-1]
    for survivor in survivors.values():
        assert survivor.process.poll() is None
        assert "Traceback" not in survivor.log.read_text(errors="replace")
