"""Report files: ``report.json``, ``report.md`` (Markdown tables) and ``report.png``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.eval.scoring import ReplayReport

_TYPE_COLUMNS = (
    ("events", "events"),
    ("addressed_pct", "addressed %"),
    ("correct_when_spoken_pct", "correct when spoken %"),
    ("good_pct", "good outcome %"),
    ("interrupted_pct", "interrupted repair %"),
    ("fabricated_pct", "fabricated %"),
    ("within_2_turns_pct", "within 2 turns %"),
)


def _cell(value: object) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def replay_markdown(report: ReplayReport, meta: dict[str, Any]) -> str:
    types = markdown_table(
        ["type", *(label for _, label in _TYPE_COLUMNS)],
        [[t.type, *(getattr(t, key) for key, _ in _TYPE_COLUMNS)] for t in report.types],
    )
    lat = report.latency
    stages = markdown_table(
        ["stage", "calls", "p50 ms", "p95 ms", "share of time %"],
        [
            [name, s["calls"], s["p50_ms"], s["p95_ms"], s["share_pct"]]
            for name, s in lat.stages.items()
        ],
    )
    hist = markdown_table(
        ["type", "turns from onset: count"],
        [
            [k, ", ".join(f"{o}: {n}" for o, n in v.items()) or "–"]
            for k, v in report.histogram.items()
        ],
    )
    setting = ", ".join(f"{k}={v}" for k, v in meta.items())
    return "\n\n".join([
        f"# Replay report\n\n{setting}",
        types,
        f"Unprompted interventions: {report.unprompted} over {report.ordinary_turns} ordinary "
        f"turns ({_cell(report.unprompted_per_100)} per 100); interventions in all: "
        f"{report.interventions}.",
        *_off_document_line(report),
        f"Claim matching: {report.claim_matching.same_claim} of "
        f"{report.claim_matching.repeats} repeated reports on an event counted on the same "
        f"claim ({_cell(report.claim_matching.rate)}%).",
        *_false_corrections(report),
        *_utterance_defects(report),
        f"Per-turn backbone latency: p50 {_cell(lat.p50_ms)} ms, p95 {_cell(lat.p95_ms)} ms, "
        f"mean {_cell(lat.mean_ms)} ms.",
        stages,
        hist,
    ]) + "\n"  # fmt: skip


def _false_corrections(report: ReplayReport) -> list[str]:
    """The count, then each one with the sentences that state what the speaker said."""
    false = report.false_corrections
    lines = [f"False corrections (the speakers said what a document sentence about it says): "
             f"{len(false)} of {report.corrections} spoken corrections and not-in-document "
             f"replies."]
    if false:
        lines.append(markdown_table(
            ["document", "conversation", "turn", "trigger turns", "why"],
            [[f.document, f.conversation, f.turn, ", ".join(map(str, f.trigger_turns)),
              f.reason.removeprefix("veto: ").replace("|", "/")] for f in false]))
    return lines


def _utterance_defects(report: ReplayReport) -> list[str]:
    """The defect counts by kind, then a sample of what was said with its defects."""
    found = report.utterance_defects
    kinds = ", ".join(f"{kind} {n}" for kind, n in found.by_kind.items()) or "none"
    lines = [f"Utterance defects: {found.count} in {found.spoken} spoken texts ({kinds})."]
    samples = found.samples()
    if samples:
        lines.append(markdown_table(
            ["document", "conversation", "turn", "said", "defects"],
            [[s.document, s.conversation, s.turn, s.text.replace("|", "/"),
              "; ".join(f"{d.kind.value}: {d.detail}" for d in s.defects).replace("|", "/")
              or "–"] for s in samples]))  # fmt: skip
    return lines


def _off_document_line(report: ReplayReport) -> list[str]:
    if not report.off_document_turns:
        return []
    return [f"Off-document interventions: {report.off_document_interventions} over "
            f"{report.off_document_turns} turns of talk about something else (every one "
            f"counts against)."]  # fmt: skip


def _plot_replay(report: ReplayReport, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (bars, hist) = plt.subplots(1, 2, figsize=(12, 4.5))
    metrics = (("addressed_pct", "addressed"), ("correct_when_spoken_pct", "correct when spoken"),
               ("good_pct", "good outcome"))  # fmt: skip
    width = 0.8 / len(metrics)
    for i, (key, label) in enumerate(metrics):
        values = [getattr(t, key) or 0.0 for t in report.types]
        positions = [x + (i - 1) * width for x in range(len(report.types))]
        bars.bar(positions, values, width, label=label)
    bars.set_xticks(range(len(report.types)), [t.type for t in report.types], rotation=20)
    bars.set_ylim(0, 105)
    bars.set_ylabel("% of events")
    bars.set_title("Per event type")
    bars.legend(fontsize=8)
    offsets = list(
        range(
            min([0, *(o for v in report.histogram.values() for o in v)]),
            max([7, *(o for v in report.histogram.values() for o in v)]) + 1,
        )
    )
    bottom = [0] * len(offsets)
    for kind, counts in report.histogram.items():
        if not counts:
            continue
        heights = [counts.get(o, 0) for o in offsets]
        hist.bar(offsets, heights, bottom=bottom, label=kind)
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    hist.set_xticks(offsets)
    hist.yaxis.get_major_locator().set_params(integer=True)
    hist.set_xlabel("turns from onset to intervention")
    hist.set_ylabel("events")
    hist.set_title("Timing")
    if any(report.histogram.values()):
        hist.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def write_replay_report(report: ReplayReport, out_dir: Path, meta: dict[str, Any]) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    data = {"meta": meta} | report.to_json()
    (out_dir / "report.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    (out_dir / "report.md").write_text(replay_markdown(report, meta), encoding="utf-8")
    _plot_replay(report, out_dir / "report.png")


# --- direct QA ----------------------------------------------------------------------------


def _fraction(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _answer_defects(found: dict[str, Any] | None) -> str:
    if not found:
        return "–"
    kinds = ", ".join(f"{k} {n}" for k, n in found["by_kind"].items())
    return f"{found['count']} in {found['of_answers']} answers" + (f" ({kinds})" if kinds else "")


def qa_markdown(summary: dict[str, Any], meta: dict[str, Any]) -> str:
    rows = [
        ["items (answerable)", f"{summary['items']} ({summary['answerable']})"],
        ["accuracy (gold contained) %", summary["accuracy_pct"]],
        ["token F1", _fraction(summary["token_f1"])],
        ["cited %", summary["cited_pct"]],
        ["citation overlap", _fraction(summary["citation_overlap"])],
        ["citation hit %", summary["citation_hit_pct"]],
        ["abstained on answerable %", summary["abstention_pct"]],
        ["abstained on unanswerable %", summary["abstained_when_unanswerable_pct"]],
        ["answers with a citation %", summary.get("answers_cited_pct")],
        ["answer defects", _answer_defects(summary.get("answer_defects"))],
        ["errors", summary["errors"]],
        ["TTFT p50 / p95 ms", f"{_cell(summary['ttft_ms']['p50'])} / "
                              f"{_cell(summary['ttft_ms']['p95'])}"],
        ["total p50 / p95 ms", f"{_cell(summary['total_ms']['p50'])} / "
                               f"{_cell(summary['total_ms']['p95'])}"],
    ]  # fmt: skip
    setting = ", ".join(f"{k}={v}" for k, v in meta.items())
    return f"# Direct QA report\n\n{setting}\n\n" + markdown_table(["metric", "value"], rows) + "\n"


def _plot_qa(summary: dict[str, Any], latencies: dict[str, list[float]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (bars, hist) = plt.subplots(1, 2, figsize=(11, 4))
    labels = ["accuracy %", "token F1 ×100", "citation hit %", "abstained %"]
    values = [summary["accuracy_pct"], (summary["token_f1"] or 0) * 100,
              summary["citation_hit_pct"], summary["abstention_pct"]]  # fmt: skip
    bars.bar(labels, [v or 0.0 for v in values])
    bars.set_ylim(0, 105)
    bars.set_title("Direct QA")
    for name, values_ms in latencies.items():
        if values_ms:
            hist.hist(values_ms, bins=20, alpha=0.6, label=name)
    hist.set_xlabel("ms")
    hist.set_ylabel("questions")
    hist.set_title("Latency")
    if any(latencies.values()):
        hist.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def write_qa_report(
    summary: dict[str, Any],
    latencies: dict[str, list[float]],
    out_dir: Path,
    meta: dict[str, Any],
) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    data = {"meta": meta} | summary
    (out_dir / "report.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    (out_dir / "report.md").write_text(qa_markdown(summary, meta), encoding="utf-8")
    _plot_qa(summary, latencies, out_dir / "report.png")
