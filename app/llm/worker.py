"""A thread that creates an object and is the only thread that ever touches it.

llama.cpp's ``Llama`` is not thread-safe: every use goes through ``call``, which queues a
function and returns a Future; the functions run one at a time on the owner thread.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Generic, TypeVar

from app.llm.types import LLMError

log = logging.getLogger(__name__)
T = TypeVar("T")
R = TypeVar("R")
_STOP = object()


class OwnerThread(Generic[T]):
    def __init__(self, factory: Callable[[], T], close: Callable[[T], None], name: str) -> None:
        self._queue: queue.Queue[Any] = queue.Queue()
        self._close = close
        self._closed = False
        self._lock = threading.Lock()
        loaded: Future[None] = Future()
        self._thread = threading.Thread(
            target=self._run, args=(factory, loaded), name=name, daemon=True
        )
        self._thread.start()
        loaded.result()  # re-raises a load failure in the caller

    def call(self, fn: Callable[[T], R]) -> Future[R]:
        future: Future[R] = Future()
        with self._lock:
            if self._closed:
                raise LLMError("The language model has been shut down.")
            self._queue.put((fn, future))
        return future

    def close(self, timeout: float | None = None) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._queue.put(_STOP)
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    def _run(self, factory: Callable[[], T], loaded: Future[None]) -> None:
        try:
            obj = factory()
        except BaseException as exc:  # noqa: BLE001 - handed to the constructor's caller
            loaded.set_exception(exc)
            return
        loaded.set_result(None)
        while (item := self._queue.get()) is not _STOP:
            fn, future = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn(obj))
            except BaseException as exc:  # noqa: BLE001 - the caller gets it; the thread lives on
                future.set_exception(exc)
        try:
            self._close(obj)
        except Exception:  # noqa: BLE001
            log.exception("closing the model failed")
