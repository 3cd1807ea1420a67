"""What the room saw, as the benchmark's files: one decision line per scripted turn,
the direct answers as ``jarvis qa`` scores them, and the live timings.

Recognized turns are aligned to scripted turns by time overlap; every intervention the
room heard is attached to the scripted turn during or after which its first word
sounded. The lines are ``app.eval.records.DecisionRecord``s, so the replay scorer reads
them unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.eval.dataset import BenchmarkSet, QAItem
from app.eval.qa import QARecord, score_item
from app.eval.records import DecisionRecord
from app.eval.replay import intervention_fields
from app.eval.scoring import ReplayReport, percentile
from app.events import Decision, Intervention, InterventionKind, Turn
from live.render import Line, Rendering
from live.room import RoomLog


@dataclass(frozen=True)
class Heard:
    """An intervention the room heard: when its first word sounded (recording seconds)."""

    intervention: Intervention
    at: float
    wall: float


@dataclass
class ConversationResult:
    """One conversation's lines and raw timings, pooled later over the whole run."""

    document: str
    conversation: str
    lines: list[DecisionRecord]
    qa: list[QARecord]
    decision_lag_s: list[float]
    undecided: int
    direct_first_audio_s: list[float]
    backlog_max: int
    turns_waiting_max: int
    meeting_s: float
    wall_s: float  # from the start of the recording to the end of the run
    cpu_s: dict[str, float]
    audio_dropped_s: float
    speakers: tuple[int, int]  # scripted, recognized
    stage_ms: dict[str, float]  # backbone time per stage over every recognized turn
    # per heard direct answer: seconds from the question's end to each step of its answer
    direct_stages: list[dict[str, float | None]] = field(default_factory=list)
    heard_at: dict[tuple[int, str], float] = field(default_factory=dict)  # (turn, text) -> s
    turn_ends: dict[int, float] = field(default_factory=dict)  # scripted turn -> its end, s
    playbacks: tuple[int, int, int] = (0, 0, 0)  # begun, cut short, begun over speech
    room_waited: tuple[int, float] = (0, 0.0)  # turns a yielding room held back, seconds
    levels: tuple[int, int] = (0, 0)  # input levels, those judged late (room.JUDGED_LATE_S)
    pause_levels: tuple[int, int] = (0, 0)  # the same at pauses' starts (RoomLog.pause_levels)
    turn_delay_s: list[float] = field(default_factory=list)  # speech end -> turn, each turn


def _overlap(a: float, b: float, line: Line) -> float:
    return min(b, line.end) - max(a, line.start)


def recognized_by_turn(rendering: Rendering, log: RoomLog) -> dict[int, list[tuple[float, Turn]]]:
    """Each recognized turn under the scripted turn it overlaps most (none: inserted speech
    or something the script never said)."""
    scripted = rendering.scripted
    out: dict[int, list[tuple[float, Turn]]] = {line.turn: [] for line in scripted}  # type: ignore[misc]
    for wall, turn in log.turns:
        a, b = turn.start, turn.end
        best = max(scripted, key=lambda line: _overlap(a, b, line))
        if _overlap(a, b, best) > 0 and best.turn is not None:
            out[best.turn].append((wall, turn))
    return out


def covering_decision(
    turn: Turn, decisions: Sequence[tuple[float, Decision]]
) -> tuple[float, Decision] | None:
    """The verdict on ``turn``: its own, else the first on a later turn (it was checked
    together with that one)."""
    later = None
    for wall, decision in decisions:
        if decision.turn == turn.index:
            return wall, decision
        if later is None and decision.turn > turn.index:
            later = (wall, decision)
    return later


def heard(log: RoomLog) -> list[Heard]:
    out = [Heard(log.played[i], log.recording_time(w), w)
           for i, w in log.first_audio.items() if i in log.played]  # fmt: skip
    return sorted(out, key=lambda h: h.at)


def spoken_during(rendering: Rendering, at: float) -> int:
    """The scripted turn during or after which something said at ``at`` sounded."""
    scripted = rendering.scripted
    before = [line for line in scripted if line.start <= at]
    line = before[-1] if before else scripted[0]
    return int(line.turn)  # type: ignore[arg-type]


def decision_lines(
    document: str, conversation: str, rendering: Rendering, log: RoomLog
) -> tuple[list[DecisionRecord], dict[tuple[int, str], float]]:
    """One line per scripted turn (more where the room heard several interventions during
    it), and when each heard intervention sounded."""
    by_turn = recognized_by_turn(rendering, log)
    said: dict[int, list[Heard]] = {}
    for h in heard(log):
        said.setdefault(spoken_during(rendering, h.at), []).append(h)
    lines: list[DecisionRecord] = []
    times: dict[tuple[int, str], float] = {}
    for line in rendering.scripted:
        turn = int(line.turn)  # type: ignore[arg-type]
        recognized = by_turn[turn]
        verdict = covering_decision(recognized[-1][1], log.decisions) if recognized else None
        decision = verdict[1] if verdict else None
        base = {
            "document": document, "conversation": conversation, "turn": turn,
            "claim": decision.claim if decision else "",
            "latency_ms": _latency({t.index for _, t in recognized}, log.decisions),
            "claim_id": decision.claim_id if decision else None,
        }  # fmt: skip
        spoken = said.get(turn, [])
        if not spoken:
            lines.append(DecisionRecord(action="silent", reason=_silent_reason(
                recognized, decision, log), **base))  # type: ignore[arg-type]
        for i, h in enumerate(spoken):
            fields: dict[str, Any] = base | intervention_fields(h.intervention)
            fields["claim"] = h.intervention.claim or fields["claim"]
            # The claim it speaks to is the one of the verdict that made it, not of the
            # verdict on the turn it was heard during (the scorer finds its raising turns).
            fields["claim_id"] = _claim_of(h.intervention, log.decisions, fields["claim_id"])
            if i:
                fields["latency_ms"] = {}  # one turn's backbone time is counted once
            reason = "heard" + (f"; verdict here: {decision.reason}" if decision else "")
            lines.append(DecisionRecord(action="speak", reason=reason, **fields))
            times[(turn, h.intervention.text)] = h.at
    return lines, times


def _claim_of(intervention: Intervention, decisions: Sequence[tuple[float, Decision]],
              default: int | None) -> int | None:
    made = next((d for _, d in decisions
                 if d.intervention is not None and d.intervention.id == intervention.id), None)
    return default if made is None else made.claim_id


def _latency(indices: set[int], decisions: Sequence[tuple[float, Decision]]) -> dict[str, float]:
    """Backbone time per stage spent on these recognized turns."""
    return stage_ms(d for _, d in decisions if d.turn in indices)


def stage_ms(decisions: Iterable[Decision]) -> dict[str, float]:
    totals: dict[str, float] = {}
    for decision in decisions:
        for stage, ms in decision.latency_ms.items():
            totals[stage] = totals.get(stage, 0.0) + ms
    return totals


def _silent_reason(
    recognized: list[tuple[float, Turn]], decision: Decision | None, log: RoomLog
) -> str:
    if not recognized:
        return "not recognized"
    if decision is None:
        return "no verdict before the run ended"
    intervention = decision.intervention
    if decision.action == "speak" and intervention is not None:
        why = log.dropped.get(intervention.id, "not heard")
        return f"decided to speak, not heard ({why}): {decision.reason}"
    return decision.reason


def decision_lag(rendering: Rendering, log: RoomLog) -> tuple[list[float], int]:
    """Seconds from the end of each recognized turn's speech to its verdict; undecided."""
    lags, undecided = [], 0
    for _, turn in log.turns:
        verdict = covering_decision(turn, log.decisions)
        if verdict is None:
            undecided += 1
            continue
        end = log.wall_time(turn.end)
        lags.append(max(0.0, verdict[0] - end))
    return lags, undecided


def turn_delays(log: RoomLog) -> list[float]:
    """Seconds from the end of each recognized turn's speech to the turn's arrival."""
    return [max(0.0, wall - log.wall_time(turn.end)) for wall, turn in log.turns]


def turns_waiting_max(log: RoomLog) -> int:
    """Most recognized turns at once between arrival and verdict."""
    marks: list[tuple[float, int]] = []
    for wall, turn in log.turns:
        verdict = covering_decision(turn, log.decisions)
        marks += [(wall, 1), (verdict[0] if verdict else log.ended_at, -1)]
    most = level = 0
    for _, step in sorted(marks, key=lambda m: (m[0], m[1])):
        level += step
        most = max(most, level)
    return most


def direct_answers(
    rendering: Rendering, log: RoomLog, items: dict[str, QAItem], abstain_text: str,
    stages: list[dict[str, float | None]],
) -> tuple[list[QARecord], list[float]]:
    """Each inserted question with the first direct answer heard after it and before the
    next question began (an answer heard later belongs to a later question: the question
    before it was missed, its wake word unheard), scored as ``jarvis qa`` scores it; and
    seconds from the question's end to the answer's first audio. Where each heard
    answer's wait went is added to ``stages``."""
    answers = [h for h in heard(log) if h.intervention.kind is InterventionKind.DIRECT]
    records, first_audio = [], []
    questions = list(rendering.questions)
    for n, question in enumerate(questions):
        until = questions[n + 1].start if n + 1 < len(questions) else float("inf")
        answer = next((h for h in answers if question.start <= h.at < until), None)
        if answer is not None:
            answers.remove(answer)
            stages.append(direct_stages(question, answer, log))
        end = log.wall_time(question.end)
        delay = None if answer is None else max(0.0, answer.wall - end)
        done = log.finished.get(answer.intervention.id) if answer else None
        total = ((done or log.ended_at) - end) * 1000 if answer else 0.0
        records.append(score_item(items[question.qa_id], answer.intervention if answer else None,
                                  None if delay is None else delay * 1000, total, abstain_text))
        if delay is not None:
            first_audio.append(delay)
    return records, first_audio


def direct_stages(question: Line, answer: Heard, log: RoomLog) -> dict[str, float | None]:
    """Where a direct answer's wait went, in seconds after the question's last word: its
    last recognized turn, the answer's first checked sentence, its first audio."""
    end = log.wall_time(question.end)
    recognized = [wall for wall, turn in log.turns
                  if _overlap(turn.start, turn.end, question) > 0 and wall <= answer.wall]

    def after(wall: float | None) -> float | None:
        return None if wall is None else round(wall - end, 2)

    generation = answer.intervention.generation
    return {"recognized_s": after(max(recognized, default=None)),
            "first_checked_s": after(log.first_checked.get(generation)),
            "first_audio_s": after(answer.wall)}


def result(
    document: str,
    conversation: str,
    rendering: Rendering,
    log: RoomLog,
    items: dict[str, QAItem],
    abstain_text: str,
) -> ConversationResult:
    lines, times = decision_lines(document, conversation, rendering, log)
    lags, undecided = decision_lag(rendering, log)
    stages: list[dict[str, float | None]] = []
    qa, first_audio = direct_answers(rendering, log, items, abstain_text, stages)
    return ConversationResult(
        document, conversation, lines, qa, lags, undecided, first_audio,
        backlog_max=max((n for _, n in log.backlog), default=0),
        turns_waiting_max=turns_waiting_max(log),
        meeting_s=rendering.duration, wall_s=log.ended_at - log.started_at,
        cpu_s=dict(log.cpu_s),
        audio_dropped_s=round(log.audio_dropped_s, 2),
        speakers=(len(rendering.voices), len({t.speaker for _, t in log.turns})),
        stage_ms=stage_ms(d for _, d in log.decisions),
        direct_stages=stages,
        playbacks=(log.started, log.stopped, log.begun_over_speech),
        levels=log.levels, pause_levels=log.pause_levels, turn_delay_s=turn_delays(log),
        room_waited=(len(log.holds), round(sum(h.seconds for h in log.holds), 1)),
        heard_at=times, turn_ends={int(x.turn): x.end for x in rendering.scripted},  # type: ignore[arg-type]
    )  # fmt: skip


# --- pooled figures -----------------------------------------------------------------------


def spread(values: Sequence[float], top: bool = False) -> dict[str, float | None]:
    def q(p: float) -> float | None:
        value = percentile(values, p)
        return None if value is None else round(value, 2)

    out = {"p50": q(50), "p95": q(95)}
    return out | {"max": q(100)} if top else out


def speak_delays(
    benchmark: BenchmarkSet, report: ReplayReport, runs: Sequence[ConversationResult]
) -> tuple[list[float], list[float]]:
    """Turns and seconds from each addressed event's onset turn to its first heard word."""
    events = {e.id: e for case in benchmark.documents for e in case.events}
    turns, seconds = [], []
    for outcome in report.outcomes:
        if outcome.turns_from_onset is None or not outcome.covered:
            continue
        event = events[outcome.event_id]
        spoke = event.onset_turn + outcome.turns_from_onset
        key = (outcome.document, outcome.conversation)
        run = next((r for r in runs if (r.document, r.conversation) == key), None)
        if run is None:
            continue
        at = [t for (turn, _), t in run.heard_at.items() if turn == spoke]
        onset_end = run.turn_ends.get(event.onset_turn)
        turns.append(float(outcome.turns_from_onset))
        if at and onset_end is not None:
            seconds.append(round(max(0.0, min(at) - onset_end), 2))
    return turns, seconds


def direct_stage_spread(runs: Sequence[ConversationResult]) -> dict[str, dict[str, float | None]]:
    """p50 / p95 of each step of the direct answers' wait, over every heard answer."""
    rows = [row for r in runs for row in r.direct_stages]
    keys = dict.fromkeys(k for row in rows for k in row)
    return {k: spread([v for row in rows if (v := row[k]) is not None]) for k in keys}


def cpu_share(runs: Sequence[ConversationResult]) -> dict[str, Any]:
    totals: dict[str, float] = {}
    for run in runs:
        for part, seconds in run.cpu_s.items():
            totals[part] = totals.get(part, 0.0) + seconds
    busy = sum(totals.values()) or 1.0
    wall = sum(r.wall_s for r in runs) or 1.0
    return {
        "seconds": {k: round(v, 1) for k, v in sorted(totals.items())},
        "share": {k: round(v / busy, 3) for k, v in sorted(totals.items())},
        "cores_busy": round(sum(totals.values()) / wall, 2),  # over the run's wall time
    }


def stage_seconds(runs: Iterable[ConversationResult]) -> dict[str, float]:
    totals: dict[str, float] = {}
    for run in runs:
        for stage, ms in run.stage_ms.items():
            totals[stage] = totals.get(stage, 0.0) + ms / 1000
    return {k: round(v, 1) for k, v in sorted(totals.items())}
