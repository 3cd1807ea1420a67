"""Runs the pure floor FSM against a clock and carries out its commands.

The FSM is fed every event with ``now`` and answers with commands; this driver turns
them into hub events (agent state, citation highlight, pending intervention) and into
calls on the voice player. A timer thread ticks the FSM so time-based transitions
(release after silence, hand timeout) happen without new input.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from typing import Any

from app.clock import Clock
from app.events import AgentState, Intervention
from app.pipeline.events import HighlightCitation, PendingIntervention, PipelineError
from app.settings import FloorMode

log = logging.getLogger(__name__)

TICK_SECONDS = 0.1


class FloorDriver:
    def __init__(
        self, fsm: Any, clock: Clock, emit: Callable[[Any], None], player: Any = None
    ) -> None:
        self.fsm = fsm
        self.player = player
        self._clock = clock
        self._emit = emit
        self._lock = threading.RLock()
        self._known: dict[str, Intervention] = {}
        self._stop = threading.Event()
        self._ticker = threading.Thread(target=self._tick_loop, name="floor-tick", daemon=True)
        self._ticker.start()

    # --- inputs ---------------------------------------------------------------------

    def feed(self, event: Any) -> None:
        self._call("on_event", event)

    def offer(self, intervention: Intervention) -> None:
        self._known[intervention.id] = intervention
        self._call("on_intervention", intervention)

    def grant(self) -> None:
        self._call("on_grant")

    def dismiss(self) -> None:
        self._call("on_dismiss")

    def set_mode(self, mode: FloorMode) -> None:
        self._call("set_mode", mode)

    def set_paused(self, paused: bool) -> None:
        self._call("set_paused", paused)

    def intervention(self, intervention_id: str) -> Intervention | None:
        return self._known.get(intervention_id)

    def stop(self) -> None:
        self._stop.set()
        if self._ticker.is_alive():
            self._ticker.join(1.0)
        stop = getattr(self.player, "stop", None)
        if callable(stop):
            stop()

    # --- FSM plumbing ---------------------------------------------------------------

    def _call(self, method: str, *args: Any) -> None:
        fn = getattr(self.fsm, method, None)
        if fn is None:
            return
        with self._lock:
            try:
                commands = fn(*args, self._clock.now())
            except Exception as exc:
                log.exception("floor FSM failed in %s", method)
                self._emit(PipelineError("floor", f"Floor control failed: {exc}"))
                return
        self._apply(commands or ())

    def _tick_loop(self) -> None:
        while not self._stop.wait(TICK_SECONDS):
            self._call("tick")

    def _apply(self, commands: Iterable[Any]) -> None:
        for command in commands:
            name = type(command).__name__
            if isinstance(command, AgentState):
                self._emit(command)
            elif name == "StateChanged":
                self._emit(AgentState(command.state))
            elif name == "ShowCitation":
                self._emit(HighlightCitation(command.intervention_id, command.citation, True))
            elif name == "HideCitation":
                self._emit(HighlightCitation(command.intervention_id, None, False))
            elif name in ("RaiseHand", "HandRaised"):
                self._emit(PendingIntervention(command.intervention))
            elif name in ("LowerHand", "HandLowered"):
                self._emit(PendingIntervention(None))
            elif name == "Play":
                self._play(command)
            elif name == "Stop":
                self._stop_playback(command)

    def _play(self, command: Any) -> None:
        intervention = command.intervention
        self._known[intervention.id] = intervention
        if intervention.citations:
            self._emit(HighlightCitation(intervention.id, intervention.citations[0], True))
        if self.player is not None:
            self.player.play(command)

    def _stop_playback(self, command: Any) -> None:
        if self.player is not None:
            self.player.stop()
