"""A tiny script language for the floor: timed inputs in, timed command tuples out."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from app.events import (
    AnswerDelta,
    Citation,
    InputLevel,
    Intervention,
    InterventionKind,
    OverlapTranscript,
    PlaybackReceipt,
    Turn,
    TurnsRecognized,
    VadEvent,
    VadKind,
    WakeEvent,
)
from app.floor import (
    CancelGeneration,
    ClearCitation,
    Command,
    Delivered,
    Dropped,
    Earcon,
    FloorFSM,
    PatienceChanged,
    Play,
    RequestDirectAnswer,
    ShowCitation,
    StateChanged,
    Stop,
)

Step = tuple[float, str, Any]
CITE = Citation(sid=7, page=2, text="The trial enrolled 120 patients.")


def iv(
    iid: str = "p1",
    text: str = "Actually, the trial enrolled 120 patients. That is on page 2.",
    values: tuple[str, ...] = ("120 patients",),
    decided_turn: int = -1,
    topic: str = "trial enrolled patients sample size",
    kind: InterventionKind = InterventionKind.PROACTIVE,
    generation: int = 0,
) -> Intervention:
    return Intervention(
        iid,
        kind,
        text,
        topic=topic,
        citations=(CITE,),
        decided_turn=decided_turn,
        values=values,
        generation=generation,
    )


def answer(generation: int, text: str = "They used 120 patients.", iid: str = "") -> Intervention:
    return Intervention(
        iid or f"a{generation}", InterventionKind.DIRECT, text, generation=generation
    )


def turn(speaker: str, text: str, start: float, end: float, index: int = -1) -> Turn:
    return Turn(speaker, text, start, end, index=index)


def _times(t0: float, t1: float, step: float) -> list[float]:
    n = int(round((t1 - t0) / step))
    return [round(t0 + i * step, 3) for i in range(n)]


def room(
    t0: float,
    t1: float,
    speech: Iterable[tuple[float, float]] = (),
    noise: Iterable[tuple[float, float]] = (),
    self_voice: bool = False,
    step: float = 0.1,
) -> list[Step]:
    """Input levels every ``step`` plus the VAD events a segmenter would send."""
    speech, noise = list(speech), list(noise)
    out: list[Step] = []
    for t in _times(t0, t1, step):
        talking = any(a <= t < b for a, b in speech)
        loud = talking or any(a <= t < b for a, b in noise)
        out.append((t, "level", InputLevel(t, 0.05 if loud else 0.001, talking)))
    for a, b in speech:
        out.append((a, "vad", VadEvent(VadKind.SPEECH_ONSET, a, 0.05, self_voice)))
        if b - a >= 0.5:
            out.append(
                (a + 0.5, "vad", VadEvent(VadKind.SUSTAINED_SPEECH, a + 0.5, 0.05, self_voice))
            )
        resumed = min((a2 for a2, _ in speech if a2 > b), default=float("inf"))
        for gap, kind in ((0.5, VadKind.SHORT_SILENCE), (2.0, VadKind.LONG_SILENCE)):
            if b + gap < resumed:  # a segmenter only reports silence that really happened
                out.append((b + gap, "vad", VadEvent(kind, b + gap, 0.001, self_voice)))
    return out


def ticks(t0: float, t1: float, step: float = 0.1) -> list[Step]:
    return [(t, "tick", None) for t in _times(t0, t1, step)]


def receipt(t: float, iid: str, status: str, seconds: float = 0.0, sentence: int = 0) -> Step:
    return (t, "receipt", PlaybackReceipt(iid, status, seconds, sentence, t))


def describe(c: Command) -> tuple[Any, ...]:
    """A compact, comparable form of a command."""
    match c:
        case Play():
            return ("play", c.intervention.id, c.text, c.resume_sentence)
        case Stop():
            return ("stop", c.reason)
        case StateChanged():
            return ("state", c.state.value)
        case Earcon():
            return ("earcon", c.name)
        case ShowCitation():
            return ("cite", c.citation.sid)
        case ClearCitation():
            return ("uncite",)
        case RequestDirectAnswer():
            return ("request", c.question, c.speaker, c.generation)
        case CancelGeneration():
            return ("cancel", c.generation)
        case Dropped():
            return ("drop", c.intervention_id, c.reason)
        case Delivered():
            return ("delivered", c.intervention.id, c.complete, c.receipt.delivered_seconds)
        case PatienceChanged():
            return ("patience", c.patience.value)
    raise AssertionError(f"unknown command {c!r}")


_ORDER = {"level": 0, "vad": 1, "overlap": 2, "turn": 2, "recognized": 2, "wake": 2, "tick": 9}


@dataclass
class Run:
    fsm: FloorFSM
    log: list[tuple[float, tuple[Any, ...]]]

    def of(self, *kinds: str) -> list[tuple[float, tuple[Any, ...]]]:
        return [(t, d) for t, d in self.log if d[0] in kinds]


def run(steps: Iterable[Step], fsm: FloorFSM | None = None) -> Run:
    """Feed the steps in time order (levels, then VAD, then the rest, ticks last)."""
    fsm = fsm or FloorFSM()
    ordered = sorted(enumerate(steps), key=lambda s: (s[1][0], _ORDER.get(s[1][1], 5), s[0]))
    log: list[tuple[float, tuple[Any, ...]]] = []
    for _, (t, kind, payload) in ordered:
        for c in _feed(fsm, t, kind, payload):
            log.append((t, describe(c)))
    return Run(fsm, log)


def _feed(fsm: FloorFSM, t: float, kind: str, p: Any) -> list[Command]:
    handlers = {
        "level": lambda: fsm.on_level(p, t),
        "vad": lambda: fsm.on_vad(p, t),
        "turn": lambda: fsm.on_turn(p, t),
        "recognized": lambda: fsm.on_recognized(p, t),
        "overlap": lambda: fsm.on_overlap(p, t),
        "wake": lambda: fsm.on_wake(p, t),
        "iv": lambda: fsm.on_intervention(p, t),
        "delta": lambda: fsm.on_answer_delta(p, t),
        "receipt": lambda: fsm.on_receipt(p, t),
        "tick": lambda: fsm.tick(t),
        "grant": lambda: fsm.grant_floor(t),
        "lower": lambda: fsm.lower_hand(t),
        "mode": lambda: fsm.set_mode(p, t),
        "pause": lambda: fsm.set_paused(p, t),
        "patience": lambda: fsm.set_patience(p, t),
    }
    return handlers[kind]()


def recognized(t: float, until: float) -> Step:
    """At ``t``, the speech worker has sent every turn whose speech began before ``until``."""
    return (t, "recognized", TurnsRecognized(until))


def heard(t: float, start: float, text: str) -> Step:
    """The worker's transcript, at ``t``, of the speech over the agent that began at ``start``."""
    return (t, "overlap", OverlapTranscript(text, start, t))


def wake(t: float, speaker: str | None = "A", said_at: float | None = None) -> Step:
    """A wake event arriving at ``t`` for "Jarvis" said at ``said_at`` (default: ``t``)."""
    at = t if said_at is None else said_at
    return (t, "wake", WakeEvent(at, speaker, int(at * 16000), 0.9))


def delta(
    t: float, generation: int, seq: int, text: str, final: bool = False, checked: bool = False
) -> Step:
    return (t, "delta", AnswerDelta(generation, seq, text, final, checked=checked))
