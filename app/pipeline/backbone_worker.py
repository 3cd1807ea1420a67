"""The backbone on its own thread, scheduled to keep up with the room (SPEC §9).

Backbone calls block for seconds on a CPU, so they never run on the GUI or the speech
thread. The worker keeps three things apart:

- turns and delivery receipts are applied in arrival order and without the model: every
  turn joins the transcript and the ledger at once (``Backbone.admit_turns``);
- direct questions go first: one that arrives while a monitor call runs cuts that call
  short (its turns stay waiting and are checked again), and it is answered before the
  next check;
- the model never falls more than one call behind: all turns waiting when a call ends
  are checked together by the next single call (``Backbone.on_turns``);
- idle time is not wasted: with nothing to do after a step, the conversation as the next
  call will show it is read into the model's cache (``Backbone.prefill``), so a direct
  question after a stretch of screened turns reads only itself and its sentences. Any
  new arrival cuts that reading short.

Decisions go to ``emit`` (the pipeline records and publishes them). A crash is reported
and the worker goes on with what is left.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Protocol

from app.events import AnswerDelta, Decision, Intervention, PlaybackReceipt, Turn
from app.pipeline.events import PipelineError

log = logging.getLogger(__name__)


class BackbonePort(Protocol):
    def on_turn(self, turn: Turn) -> Decision: ...

    def admit_turns(self, turns: Sequence[Turn]) -> list[Decision]: ...

    def on_turns(
        self, turns: Sequence[Turn], cancel: threading.Event | None = None,
        newer: Callable[[], bool] | None = None,
    ) -> list[Decision]: ...

    @property
    def waiting(self) -> int: ...

    def answer_direct(
        self, question: Turn, on_delta: Callable[[AnswerDelta], None] | None = None
    ) -> Intervention: ...

    def on_delivered(self, intervention: Intervention, receipt: PlaybackReceipt) -> None: ...


class _OneByOne:
    """A backbone with ``on_turn`` only: each waiting turn gets a call of its own."""

    def __init__(self, backbone: Any) -> None:
        self._backbone = backbone
        self._turns: deque[Turn] = deque()

    def admit_turns(self, turns: Sequence[Turn]) -> list[Decision]:
        self._turns.extend(turns)
        return []

    def on_turns(self, turns: Sequence[Turn], cancel: threading.Event | None = None,
                 newer: Callable[[], bool] | None = None) -> list[Decision]:
        self._turns.extend(turns)
        return [self._backbone.on_turn(self._turns.popleft())] if self._turns else []

    @property
    def waiting(self) -> int:
        return len(self._turns)


class BackboneWorker:
    def __init__(
        self,
        backbone: BackbonePort,
        emit: Callable[[Any], None],
        on_intervention: Callable[[Intervention, Decision | None], None],
        on_delta: Callable[[AnswerDelta], None] | None = None,
    ) -> None:
        self._backbone = backbone
        self._turns: BackbonePort | _OneByOne = (
            backbone if hasattr(backbone, "on_turns") else _OneByOne(backbone))
        self._emit = emit
        self._on_intervention = on_intervention
        self._on_delta = on_delta or emit
        self._cond = threading.Condition()
        self._arrived: deque[tuple[str, Any]] = deque()  # turns and receipts, in order
        self._directs: deque[tuple[Turn, int]] = deque()
        self._unchecked = 0  # admitted turns waiting for (or in) a monitor call
        self._answering = False  # a direct question is being answered
        self._cancel: threading.Event | None = None  # the running check's
        self._prefilling: threading.Event | None = None  # the running prefill's
        self._prefill_due = False  # something changed since the last step
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="backbone", daemon=True)
        self.busy = threading.Event()

    def start(self) -> None:
        self._thread.start()

    def submit_turn(self, turn: Turn) -> None:
        self._put(self._arrived, ("turn", turn))

    def request_direct(self, question: Turn, generation: int) -> None:
        """A direct question assembled by the floor; its answer carries ``generation``.
        A monitor call in progress is cut short so the answer starts at once."""
        with self._cond:
            self._directs.append((question, generation))
            if self._cancel is not None:
                self._cancel.set()
            self._interrupt_prefill()
            self._cond.notify()

    def delivered(self, intervention: Intervention, receipt: PlaybackReceipt) -> None:
        self._put(self._arrived, ("delivered", (intervention, receipt)))

    @property
    def pending(self) -> int:
        """Turns and questions not decided yet: queued, waiting for a check or in one."""
        with self._cond:
            queued = sum(1 for kind, _ in self._arrived if kind == "turn")
            return queued + len(self._directs) + self._unchecked + int(self._answering)

    def stop(self, timeout: float = 5.0) -> bool:
        """Ask the worker to end after its current step (a monitor call is cut short);
        True when it ended."""
        with self._cond:
            self._stopping = True
            if self._cancel is not None:
                self._cancel.set()
            self._interrupt_prefill()
            self._cond.notify()
        if self._thread.is_alive():
            self._thread.join(timeout)
        return not self._thread.is_alive()

    # --- the worker thread ----------------------------------------------------------

    def _put(self, where: deque[Any], item: Any) -> None:
        with self._cond:
            where.append(item)
            self._interrupt_prefill()
            self._cond.notify()

    def _interrupt_prefill(self) -> None:
        if self._prefilling is not None:
            self._prefilling.set()

    def _has_work(self) -> bool:
        return bool(self._stopping or self._arrived or self._directs or self._unchecked)

    def _run(self) -> None:
        while True:
            with self._cond:
                idle = self._prefill_due and not self._has_work()
                if idle:
                    self._prefill_due = False
                    cancel = self._prefilling = threading.Event()
            if idle:
                self._prefill(cancel)
                continue
            with self._cond:
                self._cond.wait_for(self._has_work)
                if self._stopping:
                    return
                arrived = list(self._arrived)
                self._arrived.clear()
                # Taken turns count as unchecked until admitted, so ``pending`` never dips.
                self._unchecked += sum(1 for kind, _ in arrived if kind == "turn")
                direct = self._directs.popleft() if self._directs else None
                self._answering = direct is not None
                self.busy.set()
            try:
                self._guarded(self._apply, arrived)
                self._recount()
                if direct is not None:
                    self._guarded(self._direct, *direct)
                elif self._turns.waiting:
                    self._guarded(self._check)
            finally:
                self._recount(answering=False)
                self._prefill_due = True
                self.busy.clear()

    def _prefill(self, cancel: threading.Event) -> None:
        prefill = getattr(self._backbone, "prefill", None)
        try:
            if callable(prefill):
                self._guarded(prefill, cancel)
        finally:
            with self._cond:
                self._prefilling = None

    def _recount(self, answering: bool | None = None) -> None:
        waiting = self._turns.waiting  # only this thread changes it
        with self._cond:
            self._unchecked = waiting
            if answering is not None:
                self._answering = answering

    def _guarded(self, step: Callable[..., None], *args: Any) -> None:
        try:
            step(*args)
        except Exception as exc:  # report, keep serving what is left
            log.exception("backbone failed")
            self._emit(
                PipelineError(
                    "backbone",
                    f"The backbone failed: {exc}",
                    "The agent keeps listening; see the log.",
                )
            )

    def _apply(self, arrived: list[tuple[str, Any]]) -> None:
        """Turns and receipts in arrival order, none of them needing the model."""
        turns: list[Turn] = []
        for kind, payload in arrived:
            if kind == "turn":
                turns.append(payload)
                continue
            self._publish(self._turns.admit_turns(turns))
            turns = []
            self._backbone.on_delivered(*payload)
        self._publish(self._turns.admit_turns(turns))

    def _check(self) -> None:
        """One monitor call over every waiting turn, cut short by a direct question."""
        with self._cond:
            if self._directs or self._stopping:
                return  # they go first
            cancel = self._cancel = threading.Event()
        try:
            self._publish(self._turns.on_turns((), cancel, self._turn_arrived))
        finally:
            with self._cond:
                self._cancel = None

    def _turn_arrived(self) -> bool:
        """A turn is queued that the running check has not admitted."""
        with self._cond:
            return any(kind == "turn" for kind, _ in self._arrived)

    def _publish(self, decisions: list[Decision]) -> None:
        for decision in decisions:
            self._emit(decision)
            if decision.intervention is not None:
                self._on_intervention(decision.intervention, decision)

    def _direct(self, question: Turn, generation: int) -> None:
        def on_delta(delta: AnswerDelta) -> None:
            self._on_delta(replace(delta, generation=generation))

        answer = self._backbone.answer_direct(question, on_delta=on_delta)
        self._on_intervention(replace(answer, generation=generation), None)
