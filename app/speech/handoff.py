"""How the frame side hands what it heard to the turn stage: through a queue to a thread
of the stage's own, so a decode never holds back the judging of frames."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

log = logging.getLogger(__name__)

Item = TypeVar("Item")


class ThreadHandoff(Generic[Item]):
    """The stage takes the items in order on its own thread; ``close`` lets it finish
    what was handed over, then ends the thread."""

    _END = object()

    def __init__(self, take: Callable[[Item], None], name: str = "speech-turns") -> None:
        self._take, self._name = take, name
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._ending = False  # the end is in the queue for the running thread

    def start(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
            self._ending = False
            self._thread.start()

    def put(self, item: Item) -> None:
        self._queue.put(item)

    def close(self, timeout: float | None = None) -> bool:
        """True once everything handed over was taken and the thread ended."""
        if self._thread is None or not self._thread.is_alive():
            return True
        if not self._ending:
            self._ending = True
            self._queue.put(self._END)
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is self._END:
                return
            try:
                self._take(item)  # type: ignore[arg-type]
            except Exception:  # the stage reports its own failures; this keeps the thread
                log.exception("the turn stage failed")
