"""The websocket between page and server: answers leave as soon as they are ready.

Two delays sat in every round trip, whatever the control did (measured on
Sinusoidal's k, whose change only updates a line of text: slider set in the
browser → the server's answer in the browser, 46 ms before, 21 ms after
:func:`send_without_delay`; server and browser timestamps side by side):

* **Nagle's algorithm.** Bokeh's websocket handler leaves the socket's
  ``TCP_NODELAY`` off. The server first answers a change with ``OK``, then
  with the document patch a few ms later; each is several small websocket
  frames. With Nagle on, the kernel holds the patch's frames until the
  browser acknowledges the ``OK``, and the browser delays that
  acknowledgement: the patch reached the page ~40 ms after the ``OK``
  instead of at once. Tornado's documentation names this case and its cure,
  ``set_nodelay(True)`` once the connection is open.
* **A 10 ms poll.** Panel writes a patch only when no other message is being
  written on that socket; if one is, it sleeps 10 ms and looks again
  (``panel.io.document._dispatch_msgs``). The ``OK`` is usually still being
  written when the callback's patch is ready, so most changes waited those
  10 ms. Here the patch waits for the socket's write lock instead, and is
  sent the moment the ``OK`` is out.

Both are applied once per server process, from the app's module (before any
session's websocket opens), and guarded: if a later Bokeh or Panel renames
what is patched, the app works as before, only slower.
"""

from __future__ import annotations

from typing import Any

__all__ = ["send_without_delay"]


def send_without_delay() -> None:
    """Turn Nagle off on every app websocket, and wait for a busy socket, not poll it."""
    _nodelay_websockets()
    _wait_for_write_lock()


def _nodelay_websockets() -> None:
    from bokeh.server.views.ws import WSHandler

    original = WSHandler.open
    if getattr(original, "_pe_nodelay", False):
        return

    def open_without_nagle(self: Any, *args: Any, **kwargs: Any) -> Any:
        self.set_nodelay(True)
        return original(self, *args, **kwargs)

    open_without_nagle._pe_nodelay = True  # type: ignore[attr-defined]
    open_without_nagle.__wrapped__ = original  # type: ignore[attr-defined]
    WSHandler.open = open_without_nagle


def _wait_for_write_lock() -> None:
    from panel.io import document

    original = getattr(document, "_dispatch_msgs", None)
    queued = getattr(document, "_WRITE_MSGS", None)
    if original is None or queued is None or getattr(original, "_pe_waits", False):
        return

    async def dispatch_when_free(doc: Any) -> None:
        # Panel's own check, without the sleep: a socket whose lock is held
        # is writing another message; wait until it is done, then let Panel
        # send (it finds the socket free and writes at once).
        for conn in list(queued.get(doc, {})):
            lock = getattr(getattr(conn, "_socket", None), "write_lock", None)
            if lock is not None and lock._block._value == 0:
                async with lock:
                    pass
        await original(doc)

    dispatch_when_free._pe_waits = True  # type: ignore[attr-defined]
    dispatch_when_free.__wrapped__ = original  # type: ignore[attr-defined]
    document._dispatch_msgs = dispatch_when_free
