"""Runs the pure floor FSM (``app.floor.FloorFSM``) against a clock and carries out its
commands.

Every event is fed with ``now``; the returned commands become hub events (agent state,
citation highlight, pending intervention, drops, deliveries) and calls on the player
and the backbone. A timer thread ticks the FSM so time-based transitions (release after
a silence, permission wait, hand timeout) happen without new input.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from typing import Any

from app.clock import Clock
from app.events import (
    AnswerDelta,
    InputLevel,
    Intervention,
    OverlapTranscript,
    PlaybackReceipt,
    SettingsChanged,
    Turn,
    TurnsRecognized,
    VadEvent,
    WakeEvent,
)
from app.pipeline.events import (
    HighlightCitation,
    PendingIntervention,
    PipelineError,
    PlayEarcon,
)
from app.settings import FloorMode, Patience

log = logging.getLogger(__name__)

TICK_SECONDS = 0.1

_FEEDS: tuple[tuple[type, str], ...] = (
    (VadEvent, "on_vad"),
    (InputLevel, "on_level"),
    (OverlapTranscript, "on_overlap"),
    (Turn, "on_turn"),
    (TurnsRecognized, "on_recognized"),
    (WakeEvent, "on_wake"),
    (AnswerDelta, "on_answer_delta"),
    (PlaybackReceipt, "on_receipt"),
    (SettingsChanged, "on_settings"),
)


class FloorDriver:
    """``emit`` publishes display/record events; ``player.play(text, intervention)`` and
    ``player.stop()`` speak; ``on_direct(question_turn, generation)`` asks the backbone,
    ``on_delivered(intervention, receipt)`` tells it what was heard."""

    def __init__(
        self,
        fsm: Any,
        clock: Clock,
        emit: Callable[[Any], None],
        player: Any = None,
        on_direct: Callable[[Turn, int], None] | None = None,
        on_delivered: Callable[[Intervention, PlaybackReceipt], None] | None = None,
        tick: bool = True,
    ) -> None:
        self.fsm = fsm
        self.player = player
        self.on_direct = on_direct
        self.on_delivered = on_delivered
        self._clock = clock
        self._emit = emit
        self._lock = threading.RLock()
        self._known: dict[str, Intervention] = {}
        self._held_id: str | None = None
        self._next_player: Any = None  # takes over once nothing is being said
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None
        if tick:
            self._ticker = threading.Thread(target=self._tick_loop, name="floor-tick", daemon=True)
            self._ticker.start()

    # --- inputs ---------------------------------------------------------------------

    def feed(self, event: Any) -> None:
        for kind, method in _FEEDS:
            if isinstance(event, kind):
                self._call(method, event)
                return

    def offer(self, intervention: Intervention) -> None:
        self._known[intervention.id] = intervention
        self._call("on_intervention", intervention)

    def grant(self) -> None:
        self._call("grant_floor")

    def dismiss(self) -> None:
        """Lower a raised hand, or stop the agent mid-sentence."""
        if getattr(self.fsm, "playing", None) is not None and self.player is not None:
            self.player.stop()
        self._call("lower_hand")

    def set_mode(self, mode: FloorMode) -> None:
        self._call("set_mode", mode)

    def set_patience(self, patience: Patience) -> None:
        self._call("set_patience", patience)

    def set_paused(self, paused: bool) -> None:
        self._call("set_paused", paused)

    def snooze(self, seconds: float) -> None:
        """Hold proactive interventions back for ``seconds`` (0 ends a snooze)."""
        from app.floor.outputs import SnoozeSource

        self._call("snooze", seconds, SnoozeSource.WINDOW)

    def replace_player(self, player: Any) -> None:
        """Speak through ``player`` from the next intervention on; what is being said
        finishes on the old one, which is then closed."""
        with self._lock:
            self._next_player = player
        self._take_next_player()

    def tick(self) -> None:
        self._call("tick")

    def intervention(self, intervention_id: str) -> Intervention | None:
        return self._known.get(intervention_id)

    def stop(self) -> None:
        self._stop.set()
        if self._ticker is not None and self._ticker.is_alive():
            self._ticker.join(1.0)
        with self._lock:
            waiting, self._next_player = self._next_player, None
        for player in (self.player, waiting):
            if player is not None:
                player.close()

    # --- FSM plumbing ---------------------------------------------------------------

    def _call(self, method: str, *args: Any) -> None:
        with self._lock:
            try:
                commands = getattr(self.fsm, method)(*args, self._clock.now())
            except Exception as exc:
                log.exception("floor FSM failed in %s", method)
                self._emit(PipelineError("floor", f"Floor control failed: {exc}"))
                return
            held = getattr(self.fsm, "held", None)
        self._apply(commands or ())
        self._update_pending(held)
        self._take_next_player()

    def _take_next_player(self) -> None:
        with self._lock:
            new = self._next_player
            if new is None or getattr(self.fsm, "playing", None) is not None:
                return
            old, self.player, self._next_player = self.player, new, None
        if old is not None and old is not new:
            threading.Thread(target=old.close, name="player-close", daemon=True).start()

    def _tick_loop(self) -> None:
        while not self._stop.wait(TICK_SECONDS):
            self.tick()

    def _update_pending(self, held: Any) -> None:
        iv = held.intervention if held is not None else None
        held_id = iv.id if iv is not None else None
        if held_id != self._held_id:
            self._held_id = held_id
            self._emit(PendingIntervention(iv))

    def _apply(self, commands: Iterable[Any]) -> None:
        for command in commands:
            handler = getattr(self, f"_do_{type(command).__name__}", None)
            if handler is not None:
                handler(command)
            else:
                self._emit(command)

    def _do_StateChanged(self, command: Any) -> None:  # noqa: N802
        self._emit(command.state)

    def _do_Earcon(self, command: Any) -> None:  # noqa: N802
        self._emit(PlayEarcon(command.name))

    def _do_ShowCitation(self, command: Any) -> None:  # noqa: N802
        self._emit(HighlightCitation(self._playing_id(), command.citation, True))

    def _do_ClearCitation(self, command: Any) -> None:  # noqa: N802
        self._emit(HighlightCitation("", None, False))

    def _do_Play(self, command: Any) -> None:  # noqa: N802
        self._known[command.intervention.id] = command.intervention
        self._emit(command)
        if self.player is not None:
            self.player.play(command.text, command.intervention)

    def _do_Stop(self, command: Any) -> None:  # noqa: N802
        self._emit(command)
        if self.player is not None:
            self.player.stop()

    def _do_RequestDirectAnswer(self, command: Any) -> None:  # noqa: N802
        self._emit(command)
        if self.on_direct is not None:
            now = self._clock.now()
            question = Turn(command.speaker, command.question, now, now, direct=True)
            self.on_direct(question, command.generation)

    def _do_Delivered(self, command: Any) -> None:  # noqa: N802
        self._emit(command)
        if self.on_delivered is not None:
            self.on_delivered(command.intervention, command.receipt)

    def _playing_id(self) -> str:
        playing = getattr(self.fsm, "playing", None)
        return playing.slot.intervention.id if playing is not None else ""
