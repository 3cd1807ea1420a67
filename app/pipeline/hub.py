"""A tiny publish/subscribe hub: workers publish plain events, subscribers get them.

Subscribers are called on the publishing thread; a subscriber that raises is logged and
kept, so one bad listener never kills a worker.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

Subscriber = Callable[[Any], None]


class EventHub:
    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []
        self._lock = threading.Lock()

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    def publish(self, event: Any) -> None:
        with self._lock:
            targets = list(self._subscribers)
        for callback in targets:
            try:
                callback(event)
            except Exception:  # a listener's bug must not stop the worker
                log.exception("subscriber %r failed on %s", callback, type(event).__name__)
