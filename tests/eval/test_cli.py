"""`jarvis replay` and `jarvis qa` end to end on the tiny set, driven by a scripted backbone.

The unit under test is the evaluator's plumbing (feeding, recording, delivery, scoring,
reports); the scripted backbone answers with the planned interventions of ``tiny_set``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import matplotlib.image
import pytest

from app import cli
from app.eval import commands
from app.eval.records import DecisionRecord, read_decisions
from app.events import (
    AnswerDelta,
    Citation,
    Decision,
    Intervention,
    InterventionKind,
    PlaybackReceipt,
    Turn,
)
from tests.eval import tiny_set


def _citation(index: int) -> Citation:
    return Citation(sid=index, page=1, text=tiny_set.DOCUMENT_SENTENCES[index])


class ScriptedBackbone:
    """Returns the planned decision for each turn and remembers what was delivered."""

    def __init__(self, conversation: str) -> None:
        self.conversation = conversation
        self.turns: list[Turn] = []
        self.delivered: list[tuple[Intervention, PlaybackReceipt]] = []

    def on_turn(self, turn: Turn) -> Decision:
        self.turns.append(turn)
        latency = tiny_set.planned_latency(self.conversation, turn.index)
        plan = tiny_set.PLANNED.get((self.conversation, turn.index))
        if plan is None:
            return Decision(turn.index, "silent", "monitor: on_progress", latency_ms=latency)
        claim, text, sentence = plan
        intervention = Intervention(f"i{turn.index}", InterventionKind.PROACTIVE, text, claim,
                                    citations=(_citation(sentence),), decided_turn=turn.index)
        return Decision(turn.index, "speak", "gate fired", intervention, claim, latency)

    def answer_direct(self, question: Turn, on_delta: Any = None) -> Intervention:
        item = next(i for i in tiny_set.QA_ITEMS if i["question"] == question.text)
        text, sentence = tiny_set.QA_ANSWERS[str(item["id"])]
        if on_delta is not None:
            on_delta(AnswerDelta(0, 0, text, final=True))
        cites = () if sentence is None else (_citation(sentence),)
        return Intervention("d", InterventionKind.DIRECT, text, intent="answer", citations=cites)

    def on_delivered(self, intervention: Intervention, receipt: PlaybackReceipt) -> None:
        self.delivered.append((intervention, receipt))


class ScriptedFactory:
    def __init__(self, settings: Any) -> None:
        self.settings = settings
        self.order = iter(["main", "resolved"])
        self.made: list[ScriptedBackbone] = []
        self.documents: list[Path] = []
        self.closed = False

    def __call__(self, document: Path) -> ScriptedBackbone:
        self.documents.append(document)
        backbone = ScriptedBackbone(next(self.order, "main"))
        self.made.append(backbone)
        return backbone

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def factories(monkeypatch: pytest.MonkeyPatch) -> list[ScriptedFactory]:
    made: list[ScriptedFactory] = []

    def build(model: str | None, settings: Any) -> ScriptedFactory:
        made.append(ScriptedFactory(settings))
        return made[-1]

    monkeypatch.setattr(commands, "backbone_factory", build)
    return made


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tiny_set.write_set(tmp_path / "tiny")


def _replay(root: Path, out: Path, *extra: str) -> int:
    argv = ["replay", str(root), "--out", str(out), "--similarity", "lexical", "--no-progress"]
    return cli.main([*argv, *extra])


def test_replay_writes_decisions_and_a_report(root: Path, tmp_path: Path, factories) -> None:
    out = tmp_path / "run"
    assert _replay(root, out) == 0
    (factory,) = factories
    assert factory.closed and factory.documents == [root / "d01" / "document.pdf"] * 2
    main, resolved = factory.made
    assert [t.index for t in main.turns] == list(range(52))
    assert main.turns[4] == Turn("S1", tiny_set.turn_text("main", 4), 12.0, 14.5, False, 4)
    assert [i.id for i, _ in main.delivered] == ["i4", "i9", "i12", "i28", "i36", "i44", "i48"]
    assert all(r.status == "finished" for _, r in main.delivered)
    assert [i.id for i, _ in resolved.delivered] == ["i5"]

    lines = (out / "decisions.jsonl").read_text().splitlines()
    assert [DecisionRecord.from_json(json.loads(line)) for line in lines] == \
        tiny_set.planned_decisions()

    report = json.loads((out / "report.json").read_text())
    got = {t["type"]: (t["events"], t["addressed_pct"], t["correct_when_spoken_pct"],
                       t["good_pct"], t["interrupted_pct"], t["fabricated_pct"],
                       t["within_2_turns_pct"]) for t in report["types"]}  # fmt: skip
    assert got == tiny_set.EXPECTED_TYPES
    assert report["unprompted_per_100_turns"] == 3.0
    assert report["latency_ms"]["p50_ms"] == 100.0 and report["latency_ms"]["p95_ms"] == 500.0
    assert report["turns_from_onset"]["wrong"] == {"2": 1}
    assert report["meta"]["deference"] is True

    markdown = (out / "report.md").read_text()
    assert "| gap | 1 | 100.0 | 100.0 | 100.0 | – | – | 100.0 |" in markdown
    assert "| unanswerable | 1 | 100.0 | 0.0 | 0.0 | – | 100.0 | 100.0 |" in markdown
    image = matplotlib.image.imread(out / "report.png")
    assert image.shape[0] > 100 and image.shape[1] > 100


def test_limit_and_settings_reach_the_run(root: Path, tmp_path: Path, factories) -> None:
    out = tmp_path / "quick"
    assert _replay(root, out, "--limit", "3", "--patience", "deferent", "--no-deference",
                   "--context-mode", "focused", "--screen", "off",
                   "--draft-tokens", "0") == 0  # fmt: skip
    settings = factories[0].settings
    assert settings.llm.draft_tokens == 0  # as named: the default is 4
    assert settings.ledger.tau == 3 and settings.ledger.deference is False
    assert settings.ledger.screen_turns is False
    assert settings.llm.context_mode.value == "focused"
    decisions = read_decisions(out / "decisions.jsonl")
    assert [(d.conversation, d.turn) for d in decisions] == \
        [("main", 0), ("main", 1), ("main", 2), ("resolved", 0), ("resolved", 1),
         ("resolved", 2)]  # fmt: skip
    report = json.loads((out / "report.json").read_text())
    assert report["types"] == [] and report["ordinary_turns"] == 5  # main 2 is "Mm-hm."
    assert report["meta"]["deference"] is False and report["meta"]["screen"] == "off"
    assert report["meta"]["draft_tokens"] == 0


def test_without_leaves_each_named_mechanism_out(root: Path, tmp_path: Path,
                                                factories) -> None:  # fmt: skip
    out = tmp_path / "ablation"
    assert _replay(root, out, "--limit", "1", "--without", "detector-number", "--without",
                   "veto", "--without", "off-document", "--without", "screening",
                   "--without", "check-value", "--without", "standing") == 0  # fmt: skip
    settings = factories[0].settings
    ledger = settings.ledger
    assert ledger.detectors == ("name", "open_question", "absent")  # number left out
    assert ledger.correction_veto is False and ledger.off_document_min_shared == 0
    assert ledger.screen_turns is False and ledger.count_standing_turns is False
    assert settings.utterance.answer_checks == ("forced_answer", "grounded", "coverage")
    report = json.loads((out / "report.json").read_text())
    assert report["meta"]["without"] == ["check-value", "detector-number", "off-document",
                                         "screening", "standing", "veto"]


def test_rescore_runs_no_model(root: Path, tmp_path: Path, factories) -> None:
    out = tmp_path / "run"
    assert _replay(root, out) == 0
    assert _replay(root, out, "--rescore", "--attribution-threshold", "1.01",
                   "--patience", "deferent") == 0  # fmt: skip
    assert len(factories) == 1
    report = json.loads((out / "report.json").read_text())
    assert report["meta"]["patience"] == "default"  # how the run was made, from run.json
    assert report["unprompted"] == 8  # nothing reaches a threshold above 1
    assert report["meta"]["attribution_threshold"] == 1.01


def test_a_failing_turn_is_recorded_and_the_run_goes_on(
    root: Path, tmp_path: Path, factories, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = ScriptedBackbone.on_turn

    def flaky(self: ScriptedBackbone, turn: Turn) -> Decision:
        if turn.index == 1:
            raise RuntimeError("model output truncated")
        return original(self, turn)

    monkeypatch.setattr(ScriptedBackbone, "on_turn", flaky)
    out = tmp_path / "run"
    assert _replay(root, out, "--limit", "3") == 0
    decisions = read_decisions(out / "decisions.jsonl")
    assert len(decisions) == 6
    assert decisions[1].reason == "error: RuntimeError: model output truncated"


def test_bad_set_gives_a_message_not_a_trace(tmp_path: Path, factories, capsys) -> None:
    assert _replay(tmp_path / "missing", tmp_path / "out") == 2
    assert "manifest.json" in capsys.readouterr().err
    assert factories == []


def test_qa_scores_answers_citations_and_abstention(root: Path, tmp_path: Path,
                                                   factories) -> None:  # fmt: skip
    out = tmp_path / "qa"
    assert cli.main(["qa", str(root / "qa.jsonl"), "--out", str(out), "--no-progress"]) == 0
    items = [json.loads(line) for line in (out / "qa.jsonl").read_text().splitlines()]
    assert [(i["id"], i["action"], i["correct"]) for i in items] == \
        [("q1", "answer", True), ("q2", "answer", False), ("q3", "abstain", True)]
    assert [i["f1"] for i in items] == [0.4, 0.333, 0.0]
    assert [i["citation_overlap"] for i in items] == [1.0, 0.0, None]
    assert items[0]["page"] == 1 and items[0]["quote_sids"] == [0]
    assert all(i["ttft_ms"] is not None and i["ttft_ms"] <= i["total_ms"] for i in items)

    report = json.loads((out / "report.json").read_text())
    assert report["accuracy_pct"] == 50.0
    assert report["token_f1"] == round((0.4 + 0.333) / 2, 3)  # per-item F1s, as above
    assert (report["citation_overlap"], report["citation_hit_pct"]) == (0.5, 50.0)
    assert report["abstention_pct"] == 0.0
    assert report["abstained_when_unanswerable_pct"] == 100.0
    assert report["ttft_ms"]["p50"] is not None
    assert "| accuracy (gold contained) % | 50.0 |" in (out / "report.md").read_text()
    assert matplotlib.image.imread(out / "report.png").ndim == 3

    assert cli.main(["qa", str(root / "qa.jsonl"), "--out", str(out), "--limit", "1",
                     "--rescore", "--no-progress"]) == 0  # fmt: skip
    assert json.loads((out / "report.json").read_text())["items"] == 3


def test_qa_leaves_the_direct_value_check_out_when_asked(root: Path, tmp_path: Path,
                                                         factories) -> None:  # fmt: skip
    out = tmp_path / "qa"
    assert cli.main(["qa", str(root / "qa.jsonl"), "--out", str(out), "--no-progress",
                     "--without", "direct-value"]) == 0  # fmt: skip
    assert factories[0].settings.utterance.direct_value_check is False
    assert json.loads((out / "report.json").read_text())["meta"]["without"] == ["direct-value"]


def test_resume_replays_only_unfinished_conversations(root: Path, tmp_path: Path,
                                                      factories) -> None:  # fmt: skip
    out = tmp_path / "run"
    assert _replay(root, out, "--limit", "3") == 0
    lines = (out / "decisions.jsonl").read_text().splitlines()
    (out / "decisions.jsonl").write_text("\n".join(lines[:4]) + "\n")  # resolved cut at turn 0
    assert _replay(root, out, "--limit", "3", "--resume") == 0
    assert len(factories[1].made) == 1 and len(factories[1].made[0].turns) == 3
    again = [(d.conversation, d.turn) for d in read_decisions(out / "decisions.jsonl")]
    assert again == [(c, t) for c in ("main", "resolved") for t in range(3)]


def _two_documents(root: Path) -> None:
    """The tiny set with a copy of its document as d02."""
    import shutil

    shutil.copytree(root / "d01", root / "d02")
    manifest = json.loads((root / "manifest.json").read_text())
    (root / "manifest.json").write_text(json.dumps(manifest | {"documents": ["d01", "d02"]}))


def test_documents_from_a_file_add_to_documents(root: Path, tmp_path: Path, factories,
                                                capsys) -> None:  # fmt: skip
    _two_documents(root)
    (root / "check.txt").write_text("# the check half\nd02\n\n")
    assert _replay(root, tmp_path / "a", "--documents-from", str(root / "check.txt"),
                   "--limit", "2") == 0  # fmt: skip
    assert factories[0].documents == [root / "d02" / "document.pdf"] * 2
    assert {d.document for d in read_decisions(tmp_path / "a" / "decisions.jsonl")} == {"d02"}

    # A relative name is also looked up in the set folder; --documents adds to the file.
    assert _replay(root, tmp_path / "b", "--documents-from", "check.txt", "--documents", "d01",
                   "--limit", "2") == 0  # fmt: skip
    assert [p.parent.name for p in factories[1].documents] == ["d01", "d01", "d02", "d02"]

    (root / "bad.txt").write_text("d03\n")
    assert _replay(root, tmp_path / "c", "--documents-from", str(root / "bad.txt")) == 2
    assert "Not in the manifest: d03" in capsys.readouterr().err
    assert _replay(root, tmp_path / "d", "--documents-from", str(tmp_path / "none.txt")) == 2
    assert "Cannot read document list" in capsys.readouterr().err


def test_off_document_interventions_are_counted(root: Path, tmp_path: Path, factories) -> None:
    # A third conversation of unrelated talk; the scripted backbone speaks on its turns 4
    # and 9 (its plan for a third conversation is the main one's).
    turns = [{"turn": i, "speaker": f"S{i % 3 + 1}", "text": f"The printer on floor {i} is "
              "jammed again."} for i in range(10)]  # fmt: skip
    (root / "d01" / "wander.jsonl").write_text("".join(json.dumps(t) + "\n" for t in turns))
    manifest = json.loads((root / "manifest.json").read_text())
    (root / "manifest.json").write_text(json.dumps(manifest | {"off_document": ["d01/wander"]}))
    out = tmp_path / "run"
    assert _replay(root, out) == 0
    report = json.loads((out / "report.json").read_text())
    assert (report["off_document_interventions"], report["off_document_turns"]) == (2, 10)
    assert report["types"][0]["type"] == "gap"  # the events are scored as before
    assert "Off-document interventions: 2 over 10 turns" in (out / "report.md").read_text()

    # A run without the flag counts none; a flag naming no conversation is refused.
    (root / "manifest.json").write_text(json.dumps(manifest))
    assert _replay(root, out, "--rescore") == 0
    assert json.loads((out / "report.json").read_text())["off_document_interventions"] == 0
    (root / "manifest.json").write_text(json.dumps(manifest | {"off_document": ["d01/gone"]}))
    assert _replay(root, out, "--rescore") == 2
