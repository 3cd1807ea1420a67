"""The backbone on its own thread: turns in through a queue, decisions out to ``emit``.

``Backbone.on_turn`` blocks for seconds on a CPU, so it never runs on the GUI or the
speech thread. Decisions go to ``emit`` (the pipeline records and publishes them). Turns
queue up in order; a crash in one turn is reported and the worker goes on with the next.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

from app.events import AnswerDelta, Decision, Intervention, PlaybackReceipt, Turn
from app.pipeline.events import PipelineError

log = logging.getLogger(__name__)


class BackbonePort(Protocol):
    def on_turn(self, turn: Turn) -> Decision: ...

    def answer_direct(
        self, question: Turn, on_delta: Callable[[AnswerDelta], None] | None = None
    ) -> Intervention: ...

    def on_delivered(self, intervention: Intervention, receipt: PlaybackReceipt) -> None: ...


_STOP = object()


class BackboneWorker:
    def __init__(
        self,
        backbone: BackbonePort,
        emit: Callable[[Any], None],
        on_intervention: Callable[[Intervention, Decision | None], None],
        on_delta: Callable[[AnswerDelta], None] | None = None,
    ) -> None:
        self._backbone = backbone
        self._emit = emit
        self._on_intervention = on_intervention
        self._on_delta = on_delta or emit
        self._queue: queue.Queue[Any] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="backbone", daemon=True)
        self.busy = threading.Event()

    def start(self) -> None:
        self._thread.start()

    def submit_turn(self, turn: Turn) -> None:
        self._queue.put(("turn", turn))

    def request_direct(self, question: Turn, generation: int) -> None:
        """A direct question assembled by the floor; its answer carries ``generation``."""
        self._queue.put(("direct", (question, generation)))

    def delivered(self, intervention: Intervention, receipt: PlaybackReceipt) -> None:
        self._queue.put(("delivered", (intervention, receipt)))

    @property
    def pending(self) -> int:
        return self._queue.qsize() + (1 if self.busy.is_set() else 0)

    def stop(self, timeout: float = 5.0) -> bool:
        """Ask the worker to finish its current call and end; True when it ended."""
        self._queue.put(_STOP)
        if self._thread.is_alive():
            self._thread.join(timeout)
        return not self._thread.is_alive()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            self.busy.set()
            try:
                self._handle(*item)
            except Exception as exc:  # report, keep serving the next turn
                log.exception("backbone failed")
                self._emit(
                    PipelineError(
                        "backbone",
                        f"The backbone failed: {exc}",
                        "The agent keeps listening; see the log.",
                    )
                )
            finally:
                self.busy.clear()

    def _handle(self, what: str, payload: Any) -> None:
        if what == "delivered":
            self._backbone.on_delivered(*payload)
            return
        if what == "direct":
            self._direct(*payload)
            return
        turn: Turn = payload
        decision = self._backbone.on_turn(turn)
        self._emit(decision)
        if decision.intervention is not None:
            self._on_intervention(decision.intervention, decision)

    def _direct(self, question: Turn, generation: int) -> None:
        def on_delta(delta: AnswerDelta) -> None:
            self._on_delta(replace(delta, generation=generation))

        answer = self._backbone.answer_direct(question, on_delta=on_delta)
        self._on_intervention(replace(answer, generation=generation), None)
