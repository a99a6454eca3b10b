"""nbclient's notebook client, its shell replies read in short polls: a headless run never waits out a cell timeout.

nbclient awaits a cell's ``execute_reply`` with one poll of the shell socket
that lasts the whole cell timeout. When an ``ipywidgets.Output`` captures output
during the cell (``ipywidgets.interactive`` does), nbclient's own output-widget
handler *sends* a state update on that same socket while the poll is pending;
the send consumes the socket's edge-triggered read event, so the reply that
arrives next is not noticed until the poll times out (jupyter/nbclient#312).
The cell then "takes" the whole timeout, 600 s, with the kernel idle: seen
here once in 35 to 100 runs of a notebook with such a widget, with ipykernel 6
and 7 alike. Every wake-up of pyzmq's poll, a timeout included, ends in a real
``zmq_poll``, so a poll that returns every :data:`STEP` seconds finds such a
reply at once.

Used by the notebook tests and :mod:`benchmarks.notebook_run`; the notebooks
themselves show widgets without captured output, so a user's ``papermill`` run
does not meet the wait either.
"""

from __future__ import annotations

import time
from queue import Empty
from typing import Any

from nbclient import NotebookClient

__all__ = ["STEP", "ShortPollClient"]

#: Seconds of one poll of the shell socket.
STEP = 1.0


class ShortPollClient(NotebookClient):
    """A :class:`nbclient.NotebookClient` whose shell channel is read :data:`STEP` seconds at a time.

    The cell timeout keeps its meaning: a reply that does not come by then
    raises as before.
    """

    async def async_start_new_kernel_client(self) -> Any:
        kc = await super().async_start_new_kernel_client()
        channel = kc.shell_channel
        whole_poll = channel.get_msg

        async def get_msg(timeout: float | None = None) -> dict[str, Any]:
            deadline = None if timeout is None else time.monotonic() + timeout
            while True:
                left = STEP if deadline is None else max(0.0, deadline - time.monotonic())
                try:
                    msg: dict[str, Any] = await whole_poll(timeout=min(STEP, left))
                    return msg
                except Empty:
                    if deadline is not None and time.monotonic() >= deadline:
                        raise

        channel.get_msg = get_msg
        return kc
