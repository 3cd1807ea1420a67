"""A short spoken conversation through the real pipeline (benchmarks/live_meeting.py).

Four scripted turns of two participants (about 20 s) are rendered with two installed
voices and played like a microphone, twice as fast as real time, through the speech
worker, the backbone worker with a real model, the floor and a null-sink voice; the
benchmark's files must hold one decision line per scripted turn and the replay scorer
must read them.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
from collections import Counter
from pathlib import Path

import pytest

from app.eval.dataset import read_set
from app.eval.records import read_decisions
from app.eval.scoring import lexical_similarity, score_replay
from app.pipeline.demo import DemoAssets

REPO = Path(__file__).resolve().parents[2]
TURNS = [
    ("S1", "Okay, so this report is about the green roof pilot in the city.", 0.5, 4.6),
    ("S2", "Right, and they only planted roofs on twelve buildings.", 5.2, 8.9),
    ("S1", "The top floor flats were cooler on the hottest afternoons, weren't they?", 9.6, 14.2),
    ("S2", "Yes, about two degrees cooler, if I remember correctly.", 14.9, 18.6),
]
EVENT = {
    "id": "g-e01", "conversation": "main", "type": "wrong", "onset_turn": 1,
    "claim": "the number of buildings with planted roofs",
    "trigger": TURNS[1][1], "gold_answer": "Planted roofs were installed on 48 buildings.",
    "gold_values": ["48"], "evidence": "", "page": 1,
}  # fmt: skip


def _tiny_set(root: Path) -> Path:
    folder = root / "set" / "g01"
    folder.mkdir(parents=True)
    shutil.copy(DemoAssets.bundled().pdf, folder / "document.pdf")
    # No times: natural gaps, each turn spoken once (fitting scripted spans costs CI time).
    rows = [{"turn": i, "speaker": s, "text": t, "direct": False}
            for i, (s, t, _, _) in enumerate(TURNS)]  # fmt: skip
    (folder / "main.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "events.jsonl").write_text(json.dumps(EVENT) + "\n")
    manifest = {"name": "tiny", "version": 1, "documents": ["g01"]}
    (root / "set" / "manifest.json").write_text(json.dumps(manifest))
    return root / "set"


@pytest.mark.slow
def test_rendering_keeps_the_script_times_and_waits_for_answers(tmp_path: Path) -> None:
    import soundfile as sf

    sys.path.insert(0, str(REPO / "benchmarks"))
    from live.render import Question, RoomSettings, Voices, render

    from app.eval.dataset import ScriptTurn

    voices = Voices()
    voices.names = ["piper:joe"]  # one fast voice is enough for the layout
    turns = [ScriptTurn(i, s, t, a, b) for i, (s, t, a, b) in enumerate(TURNS[:3])]
    turns.append(ScriptTurn(3, "S2", "Mm-hm."))  # no times; a backchannel overlaps
    room = RoomSettings(overlap_share=0.0, backchannel_share=0.0, answer_wait=4.0)
    asked = [Question(1, "how many buildings got planted roofs?", "q1")]
    rendering = render(turns, asked, voices, tmp_path, room)
    lines = rendering.lines
    assert [line.turn for line in lines] == [0, 1, None, 2, 3]
    first, question, after = lines[0], lines[2], lines[3]
    assert first.start == pytest.approx(room.lead_in + TURNS[0][2])
    assert question.direct and question.qa_id == "q1" and question.text.startswith("Hey Jarvis")
    assert question.start > lines[1].end and after.start >= question.end + room.answer_wait
    assert all(b.start >= a.end for a, b in zip(lines[:-1], lines[1:-1], strict=False))
    assert lines[4].start < lines[3].end < lines[4].end  # over the last words
    audio, rate = sf.read(rendering.audio)
    assert rate == 16000 and len(audio) / rate == pytest.approx(lines[-1].end + room.tail, abs=0.01)
    again = render(turns, asked, voices, tmp_path, room)  # from the cache
    assert again == rendering and len(list(tmp_path.glob("*.flac"))) == 1


def test_the_silences_between_anyones_speech_are_the_pauses(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO / "benchmarks"))
    from live.pauses import meeting_pauses, silences

    from tests.speech.scoring import read_rttm

    rttm = [
        "SPEAKER m 1 4.00 1.00 <NA> <NA> B <NA> <NA>",  # out of order
        "SPEAKER m 1 0.00 2.00 <NA> <NA> A <NA> <NA>",
        "SPEAKER m 1 1.50 1.00 <NA> <NA> B <NA> <NA>",  # overlaps A: no silence
        "SPEAKER m 1 2.50 0.50 <NA> <NA> A <NA> <NA>",  # touches B's end
        "SPEAKER m 1 30.00 1.00 <NA> <NA> A <NA> <NA>",
        "SPEAKER m 1 4.20 0.30 <NA> <NA> A <NA> <NA>",  # inside B's speech
        "SPKR-INFO m 1 <NA> <NA> <NA> unknown A <NA> <NA>",
    ]
    (tmp_path / "m.rttm").write_text("\n".join(rttm))
    spans = [(start, end) for _, start, end in read_rttm(tmp_path / "m.rttm")]
    assert silences(spans) == pytest.approx([1.0, 25.0])
    assert meeting_pauses(tmp_path, at_most=10.0) == (1.0, 10.0)
    other = [line.replace(" m ", " n ").replace("30.00", "3.20") for line in rttm]
    (tmp_path / "n.rttm").write_text("\n".join(rttm + other))  # two recordings, one file
    assert meeting_pauses(tmp_path, at_most=10.0) == (1.0, 10.0, 1.0, 10.0, 0.2)
    with pytest.raises(FileNotFoundError):
        meeting_pauses(tmp_path / "none")


@pytest.mark.slow
def test_rendering_with_meeting_pauses_draws_every_gap_from_them(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO / "benchmarks"))
    from live.render import RoomSettings, Voices, render

    from app.eval.dataset import ScriptTurn

    voices = Voices()
    voices.names = ["piper:joe"]
    turns = [ScriptTurn(i, s, t, a, b) for i, (s, t, a, b) in enumerate(TURNS[:3])]
    room = RoomSettings(overlap_share=0.0, backchannel_share=0.0, pauses=(2.5,))
    lines = render(turns, [], voices, tmp_path, room).lines
    assert lines[0].start == pytest.approx(room.lead_in + 2.5)  # not the script's 0.5 s
    gaps = [b.start - a.end for a, b in zip(lines, lines[1:], strict=False)]
    assert gaps == pytest.approx([2.5, 2.5])


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_rendered_meeting_plays_through_the_whole_app(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO / "benchmarks"))
    import live_meeting

    set_dir, out = _tiny_set(tmp_path), tmp_path / "out"
    assert live_meeting.main([str(set_dir), "--out", str(out), "--render-only", "--cache",
                              str(tmp_path / "cache")]) == 0
    [rendered] = (tmp_path / "cache").glob("*.flac")
    made = rendered.stat().st_mtime_ns
    assert not (out / "live.json").exists()  # nothing played
    code = live_meeting.main([
        str(set_dir), "--out", str(out), "--model", "llm-0.5b", "--direct", "0",
        "--speed", "2", "--tail", "5", "--mic-buffer", "0", "--similarity", "lexical",
        "--cache", str(tmp_path / "cache"),
    ])  # fmt: skip
    assert code == 0
    live = json.loads((out / "live.json").read_text())
    [conversation] = live["conversations"]
    assert conversation["speakers_scripted"] == 2
    assert conversation["speakers_recognized"] == 2  # one voice, one recognized speaker
    # the rendering is cached: playback found the one --render-only made
    assert list((tmp_path / "cache").glob("*.flac")) == [rendered]
    assert rendered.stat().st_mtime_ns == made
    decisions = read_decisions(out / "decisions.jsonl")
    lines = Counter(d.turn for d in decisions)
    assert sorted(lines) == [0, 1, 2, 3]
    # A further line on a turn only for a further intervention heard during it.
    assert all(d.spoke for d in decisions if lines[d.turn] > 1)
    recognized = [d for d in decisions if d.reason != "not recognized"]
    assert len(recognized) >= 3, [d.reason for d in decisions]
    report = score_replay(read_set(set_dir), decisions, lexical_similarity)
    assert report.ordinary_turns == 4 and [t.type for t in report.types] == ["wrong"]
    assert (out / "report.json").is_file() and set(live["decision_lag_s"]) == {"p50", "p95", "max"}


def test_decision_lines_align_turns_and_attach_what_was_heard() -> None:
    sys.path.insert(0, str(REPO / "benchmarks"))
    from live import score
    from live.render import Line, Rendering
    from live.room import RoomLog

    from app.events import Decision, Intervention, InterventionKind, Turn

    rendering = Rendering(Path("x.flac"), (
        Line("S1", "first", 0.0, 3.0, 0), Line("S2", "second", 3.5, 6.0, 1),
        Line("S1", "Hey Jarvis, what?", 6.5, 8.0, None, True, "q1"),
        Line("S2", "third", 20.0, 23.0, 2), Line("S1", "fourth", 23.5, 26.0, 3),
    ), {"S1": "kokoro:a", "S2": "kokoro:b"})  # fmt: skip
    log = RoomLog(speed=1.0, started_at=100.0, ended_at=140.0)
    log.turns = [(103.5, Turn("A", "first", 0.1, 2.9, index=1)),
                 (106.5, Turn("B", "second", 3.6, 5.8, index=2)),
                 (108.5, Turn("A", "what", 6.6, 7.9, True, index=3)),
                 (123.5, Turn("B", "third", 20.2, 22.8, index=4))]  # fmt: skip
    proactive = Intervention("p", InterventionKind.PROACTIVE, "It was 48.", claim="count")
    answer = Intervention("d", InterventionKind.DIRECT, "Page 2 says so.", generation=4)
    log.decisions = [(104.0, Decision(1, "silent", "monitor: fine", latency_ms={"monitor": 500})),
                     (110.0, Decision(2, "speak", "gate fired", proactive, "count")),
                     (110.0, Decision(3, "silent", "direct: for the floor")),
                     (130.0, Decision(5, "silent", "a later turn"))]  # fmt: skip
    log.played = {"p": proactive, "d": answer}
    log.first_audio = {"p": 110.5, "d": 111.0}  # both during the wait after the question
    log.finished = {"d": 113.0}
    log.first_checked = {4: 110.2, 9: 101.0}
    lines, heard_at = score.decision_lines("g01", "main", rendering, log)
    assert [(d.turn, d.action, d.kind) for d in lines] == [
        (0, "silent", ""), (1, "speak", "proactive"), (1, "speak", "direct"),
        (2, "silent", ""), (3, "silent", ""),
    ]  # fmt: skip
    assert lines[0].reason == "monitor: fine" and lines[0].latency_ms == {"monitor": 500}
    assert lines[1].text == "It was 48." and lines[1].claim == "count"
    assert lines[2].latency_ms == {}  # the turn's backbone time counts once
    assert lines[3].reason == "a later turn"  # covered by the verdict on a later turn
    assert lines[4].reason == "not recognized"
    assert heard_at[(1, "It was 48.")] == pytest.approx(10.5)
    lags, undecided = score.decision_lag(rendering, log)
    assert lags == pytest.approx([1.1, 4.2, 2.1, 7.2]) and undecided == 0
    assert score.turns_waiting_max(log) == 2
    # turns arrive 0.6, 0.7, 0.6 and 0.7 s after their speech ended
    assert score.turn_delays(log) == pytest.approx([0.6, 0.7, 0.6, 0.7])
    from app.eval.dataset import QAItem

    item = QAItem("q1", Path("doc.pdf"), "what?", "page 2")
    stages: list[dict[str, float | None]] = []
    [record], first_audio = score.direct_answers(rendering, log, {"q1": item}, "I can't say.",
                                                 stages)
    assert first_audio == pytest.approx([3.0])  # question end 8.0 s -> first word 11.0 s
    assert stages == [{"recognized_s": 0.5, "first_checked_s": 2.2, "first_audio_s": 3.0}]
    assert record.action == "answer" and record.correct and record.total_ms == pytest.approx(5000)
    # A second question asked before that answer was heard takes it; the first, whose
    # wake word went unheard, has none (not an answer 3 s late).
    late = Line("S2", "Hey Jarvis, which page?", 9.0, 10.0, None, True, "q2")
    two = dataclasses.replace(rendering, lines=(*rendering.lines[:3], late, *rendering.lines[3:]))
    items = {"q1": item, "q2": QAItem("q2", Path("doc.pdf"), "which page?", "page 2")}
    first, second = score.direct_answers(two, log, items, "I can't say.", [])[0]
    assert first.action != "answer" and first.total_ms == 0.0
    assert second.action == "answer" and second.correct


@pytest.mark.slow
def test_participants_never_speak_with_the_agents_voice() -> None:
    sys.path.insert(0, str(REPO / "benchmarks"))
    from live.render import Voices

    from app.models import resolve_file
    from app.voice.engines import PIPER_MODEL, piper_voice_name

    voices = Voices()
    assert voices.names, "no participant voice"
    # Every voice is named as its engine names it, so the comparison below means something.
    piper = {f"piper:{piper_voice_name(resolve_file(PIPER_MODEL, 'model'))}"}
    assert all(n in piper for n in voices.names if n.startswith("piper:"))
    assert voices.agent_voice not in voices.names
    assert set(voices.cast(["S1", "S2", "S3"]).values()) <= set(voices.names)


def test_an_intervention_heard_turns_later_keeps_the_claim_that_made_it() -> None:
    """The scorer finds a correction's raising turns by its claim id: the verdict that
    made it, not the one on the turn it was heard during."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    from live import score
    from live.render import Line, Rendering
    from live.room import RoomLog

    from app.events import Decision, Intervention, InterventionKind, Turn

    rendering = Rendering(Path("x.flac"), (
        Line("S1", "first", 0.0, 3.0, 0), Line("S2", "second", 3.5, 6.0, 1),
        Line("S1", "third", 6.5, 9.0, 2),
    ), {"S1": "kokoro:a", "S2": "kokoro:b"})  # fmt: skip
    log = RoomLog(speed=1.0, started_at=100.0, ended_at=120.0)
    log.turns = [(103.5, Turn("A", "first", 0.1, 2.9, index=1)),
                 (106.5, Turn("B", "second", 3.6, 5.8, index=2)),
                 (109.5, Turn("A", "third", 6.6, 8.9, index=3))]  # fmt: skip
    fix = Intervention("p", InterventionKind.PROACTIVE, "It was 48.", claim="count")
    log.decisions = [(104.0, Decision(1, "silent", "gate: waiting 1/2", claim_id=7)),
                     (107.0, Decision(2, "speak", "gate fired", fix, "count", claim_id=7)),
                     (110.0, Decision(3, "silent", "monitor: on_progress"))]  # fmt: skip
    log.played = {"p": fix}
    log.first_audio = {"p": 108.0}  # heard during the third turn
    lines, _ = score.decision_lines("g01", "main", rendering, log)
    [spoken] = [d for d in lines if d.spoke]
    assert (spoken.turn, spoken.claim_id) == (2, 7)


def test_a_playback_begun_inside_a_recognized_turn_counts_as_begun_over_speech() -> None:
    from live.room import RoomLog

    from app.events import PlaybackReceipt, ReceiptStatus, Turn

    log = RoomLog(speed=1.0)
    log.turns = [(0.0, Turn("A", "first", 1.0, 4.0)), (0.0, Turn("B", "second", 6.0, 9.0))]
    for at in (4.5, 6.05, 7.0, 3.9):  # in a gap, at the onset, inside, inside
        log.observe(PlaybackReceipt("p", ReceiptStatus.STARTED, 0.0, 0, at))
    log.observe(PlaybackReceipt("p", ReceiptStatus.STOPPED, 0.5, 0, 7.5))
    assert (log.started, log.stopped, log.begun_over_speech) == (4, 1, 2)


def test_input_levels_judged_late_are_counted() -> None:
    from live.room import RoomLog

    from app.events import InputLevel

    log = RoomLog(speed=1.0)
    for lag in (0.0, 1.2, 0.3, 0.31):  # more than 0.3 s counts
        log.observe(InputLevel(1.0, 0.01, False, lag))
    assert log.levels == (4, 2)


def test_input_levels_judged_late_at_a_pause_start_are_counted_apart() -> None:
    from live.room import RoomLog

    from app.events import InputLevel, Turn

    log = RoomLog(speed=1.0)
    log.turns = [(0.0, Turn("A", "first", 1.0, 4.0)), (0.0, Turn("B", "second", 5.0, 9.0))]
    # in A's pause late and not, inside B, after B's pause began and ended, before A
    for at, lag in ((4.2, 1.0), (4.8, 0.1), (6.0, 2.0), (10.5, 0.9), (11.5, 0.9), (0.5, 0.9)):
        log.observe(InputLevel(at, 0.01, False, lag))
    assert log.pause_levels == (3, 2)
    assert log.levels == (6, 5)
