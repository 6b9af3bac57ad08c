"""The websocket sends each answer at once (app/transport.py).

Both checks run against the real thing: a Panel server in this process with a
real websocket client for the first, Panel's own message dispatcher for the
second. Each fails without :func:`app.transport.send_without_delay` (the
first with TCP_NODELAY = 0, the second with Panel's 10 ms sleep recorded).
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import panel as pn
from bokeh.client import pull_session
from bokeh.document import Document
from panel.io import document as panel_document
from tornado.locks import Lock

import app.main  # noqa: F401  (applies send_without_delay, as serving the app does)


def _in_thread(work: Callable[[], Any]) -> Any:
    """Run ``work`` on a thread of its own and return its result.

    Bokeh's client and ``asyncio.run`` each start an event loop, which fails
    in a thread where one runs already (a browser test's, earlier in the
    same pytest process).
    """
    result: dict[str, Any] = {}

    def run() -> None:
        try:
            result["value"] = work()
        except BaseException as err:  # re-raised in the test's thread
            result["error"] = err

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(30)
    assert not thread.is_alive(), "the scenario did not finish"
    if "error" in result:
        raise result["error"]
    return result.get("value")


@contextmanager
def _served(view: Callable[[], Any]) -> Iterator[Any]:
    """A Panel server for ``view`` on a free loopback port, its loop on its own thread."""
    ready: dict[str, Any] = {}
    started = threading.Event()

    def run() -> None:
        asyncio.set_event_loop(asyncio.new_event_loop())
        server = pn.serve(
            {"view": view}, port=0, address="127.0.0.1", show=False, start=False, threaded=False
        )
        server.start()
        ready["server"] = server
        started.set()
        server.io_loop.start()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert started.wait(30), "the server did not start"
    server = ready["server"]
    try:
        yield server
    finally:
        server.io_loop.add_callback(server.stop)
        server.io_loop.add_callback(server.io_loop.stop)
        thread.join(30)


def test_app_websockets_have_nagle_off():
    """With Nagle on, a patch sent right after the ``OK`` waited for the browser's delayed ACK."""
    with _served(lambda: pn.pane.Markdown("a page")) as server:

        def connect_and_look() -> list[int]:
            with pull_session(url=f"http://127.0.0.1:{server.port}/view"):
                connections = list(server._tornado._clients)
                return [
                    c._socket.ws_connection.stream.socket.getsockopt(
                        socket.IPPROTO_TCP, socket.TCP_NODELAY
                    )
                    for c in connections
                ]

        flags = _in_thread(connect_and_look)
    assert flags, "no websocket connection reached the server"
    assert all(flag == 1 for flag in flags), flags


def test_a_patch_waits_for_the_socket_and_not_for_a_poll(monkeypatch):
    """A patch queued while another message holds the socket goes out when it is released."""
    sent: list[Any] = []
    sleeps: list[float] = []
    real_sleep = asyncio.sleep

    class Socket:  # a websocket: Panel checks its write lock before writing
        def __init__(self) -> None:
            self.write_lock = Lock()

    class Connection:
        def __init__(self) -> None:
            self._socket = Socket()

    def write(connection: Any, events: Any = None, msg: Any = None) -> list[Any]:
        sent.append(msg)
        return []

    async def recording_sleep(delay: float, *args: Any) -> Any:
        sleeps.append(delay)
        return await real_sleep(0, *args)

    monkeypatch.setitem(panel_document.extra_socket_handlers, Socket, write)
    monkeypatch.setattr(panel_document.asyncio, "sleep", recording_sleep)

    async def scenario() -> tuple[list[Any], list[Any]]:
        doc, connection = Document(), Connection()
        await connection._socket.write_lock.acquire()  # the OK, still being written
        panel_document._WRITE_BLOCK[doc] = True
        panel_document._WRITE_MSGS[doc] = {connection: ["the patch"]}
        task = asyncio.ensure_future(panel_document._dispatch_msgs(doc))
        for _ in range(5):
            await real_sleep(0)
        while_held = list(sent)
        connection._socket.write_lock.release()
        await asyncio.wait_for(task, 5)
        return while_held, list(sent)

    while_held, after = _in_thread(lambda: asyncio.run(scenario()))
    assert while_held == []  # never two messages on one socket at once
    assert after == ["the patch"]
    assert 0.01 not in sleeps, f"Panel polled the socket: slept {sleeps}"
