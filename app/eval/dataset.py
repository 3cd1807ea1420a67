"""Readers for the replay benchmark layout and the direct-QA JSONL (see BENCHMARK.md).

Readers keep only the keys the evaluator uses and ignore the rest, so sets that carry
extra keys run unchanged. Malformed input raises ``BenchmarkFormatError`` with a message
that names the file and line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DOCUMENT_NAMES = ("document.pdf", "document.txt", "document.md")
EVENTS_FILE = "events.jsonl"
EVENT_TYPES = frozenset(
    {"gap", "wrong", "self_correction", "resolved_question", "unanswerable", "misattribution"}
)


class BenchmarkFormatError(ValueError):
    """The set on disk does not follow the benchmark format."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.user_message = message


@dataclass(frozen=True)
class ScriptTurn:
    """One turn line of a conversation file."""

    turn: int
    speaker: str
    text: str
    start: float | None = None
    end: float | None = None
    direct: bool = False


@dataclass(frozen=True)
class Conversation:
    name: str
    turns: tuple[ScriptTurn, ...]


@dataclass(frozen=True)
class Event:
    """A planted event and its oracle."""

    id: str
    conversation: str
    type: str
    onset_turn: int
    claim: str
    gold_values: tuple[str, ...] = ()
    gold_answer: str = ""
    evidence: str = ""
    page: int | None = None
    repair_turn: int | None = None
    trigger: str = ""

    @property
    def window_start(self) -> int:
        """First turn at which speaking addresses the event."""
        if self.type == "self_correction" and self.repair_turn is not None:
            return self.repair_turn
        return self.onset_turn


@dataclass(frozen=True)
class DocumentCase:
    """One document folder: the document, its conversations and its events."""

    name: str
    document: Path
    conversations: tuple[Conversation, ...]
    events: tuple[Event, ...]


@dataclass(frozen=True)
class BenchmarkSet:
    name: str
    root: Path
    documents: tuple[DocumentCase, ...]
    # (document, conversation) pairs the manifest flags as off-document talk: a meeting
    # about something else, with no events, where every intervention counts against.
    off_document: frozenset[tuple[str, str]] = frozenset()

    def is_off_document(self, document: str, conversation: str) -> bool:
        return (document, conversation) in self.off_document


@dataclass(frozen=True)
class QAItem:
    id: str
    document: Path
    question: str
    gold: str
    evidence: str = ""
    page: int | None = None
    other_refs: tuple[str, ...] = ()

    @property
    def answerable(self) -> bool:
        return bool(self.gold.strip())


# --- JSON helpers -------------------------------------------------------------------------


def _read_json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise BenchmarkFormatError(f"Cannot read {path}: {exc.strerror or exc}") from exc
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BenchmarkFormatError(f"{path}:{number}: not valid JSON ({exc.msg})") from exc
        if not isinstance(record, dict):
            raise BenchmarkFormatError(f"{path}:{number}: expected a JSON object")
        yield number, record


def _field(record: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in record:
        raise BenchmarkFormatError(f"{where}: missing key '{key}'")
    value = record[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise BenchmarkFormatError(f"{where}: '{key}' has the wrong type")
    return value


def _optional_number(record: dict[str, Any], key: str) -> float | None:
    value = record.get(key)
    return float(value) if isinstance(value, (int, float)) else None


# --- replay set ---------------------------------------------------------------------------


def read_conversation(path: Path) -> Conversation:
    turns = []
    for number, record in _read_json_lines(path):
        where = f"{path.name}:{number}"
        turns.append(
            ScriptTurn(
                turn=_field(record, "turn", int, where),
                speaker=str(record.get("speaker") or "S?"),
                text=_field(record, "text", str, where),
                start=_optional_number(record, "start"),
                end=_optional_number(record, "end"),
                direct=bool(record.get("direct", False)),
            )
        )
    turns.sort(key=lambda t: t.turn)
    return Conversation(name=path.stem, turns=tuple(turns))


def read_events(path: Path) -> tuple[Event, ...]:
    events = []
    for number, record in _read_json_lines(path):
        where = f"{path.name}:{number}"
        kind = _field(record, "type", str, where)
        if kind not in EVENT_TYPES:
            raise BenchmarkFormatError(f"{where}: unknown event type '{kind}'")
        repair = record.get("repair_turn")
        page = record.get("page")
        events.append(
            Event(
                id=_field(record, "id", str, where),
                conversation=_field(record, "conversation", str, where),
                type=kind,
                onset_turn=_field(record, "onset_turn", int, where),
                claim=_field(record, "claim", str, where),
                gold_values=tuple(str(v) for v in record.get("gold_values") or ()),
                gold_answer=str(record.get("gold_answer") or ""),
                evidence=str(record.get("evidence") or ""),
                page=page if isinstance(page, int) else None,
                repair_turn=repair if isinstance(repair, int) else None,
                trigger=str(record.get("trigger") or ""),
            )
        )
    return tuple(events)


def _find_document(folder: Path) -> Path:
    for name in DOCUMENT_NAMES:
        if (folder / name).is_file():
            return folder / name
    raise BenchmarkFormatError(f"{folder}: no document.pdf, document.txt or document.md")


def read_case(folder: Path) -> DocumentCase:
    if not folder.is_dir():
        raise BenchmarkFormatError(f"Document folder {folder} does not exist")
    events_path = folder / EVENTS_FILE
    events = read_events(events_path) if events_path.is_file() else ()
    conversations = tuple(
        read_conversation(path)
        for path in sorted(folder.glob("*.jsonl"))
        if path.name != EVENTS_FILE
    )
    if not conversations:
        raise BenchmarkFormatError(f"{folder}: no conversation files (*.jsonl)")
    names = {c.name for c in conversations}
    for event in events:
        if event.conversation not in names:
            raise BenchmarkFormatError(
                f"{events_path}: event {event.id} names an unknown conversation "
                f"'{event.conversation}'"
            )
    return DocumentCase(folder.name, _find_document(folder), conversations, events)


def read_set(root: Path, only: list[str] | None = None) -> BenchmarkSet:
    """Read a benchmark set; ``only`` keeps the named documents, in manifest order."""
    root = Path(root)
    manifest_path = root / "manifest.json"
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BenchmarkFormatError(f"{root} has no readable manifest.json") from exc
    except json.JSONDecodeError as exc:
        raise BenchmarkFormatError(f"{manifest_path}: not valid JSON ({exc.msg})") from exc
    if not isinstance(manifest, dict):
        raise BenchmarkFormatError(f"{manifest_path}: expected a JSON object")
    names = _field(manifest, "documents", list, manifest_path.name)
    if only:
        unknown = sorted(set(only) - set(names))
        if unknown:
            raise BenchmarkFormatError(f"Not in the manifest: {', '.join(unknown)}")
        names = [n for n in names if n in only]
    cases = tuple(read_case(root / str(name)) for name in names)
    off = _off_document(manifest, manifest_path.name, cases)
    return BenchmarkSet(str(manifest.get("name") or root.name), root, cases, off)


def _off_document(
    manifest: dict[str, Any], where: str, cases: tuple[DocumentCase, ...]
) -> frozenset[tuple[str, str]]:
    """The manifest's optional "off_document": ["<document>/<conversation>", ...]."""
    entries = manifest.get("off_document") or []
    if not isinstance(entries, list):
        raise BenchmarkFormatError(f"{where}: 'off_document' must be a list")
    present = {(c.name, v.name) for c in cases for v in c.conversations}
    kept = set()
    for entry in entries:
        document, _, conversation = str(entry).partition("/")
        if not conversation:
            raise BenchmarkFormatError(f"{where}: off_document entry '{entry}' is not doc/conv")
        if any(c.name == document for c in cases):
            if (document, conversation) not in present:
                raise BenchmarkFormatError(f"{where}: off_document names no conversation "
                                           f"'{entry}'")  # fmt: skip
            kept.add((document, conversation))
    return frozenset(kept)


def read_document_list(path: Path, root: Path | None = None) -> list[str]:
    """Document names from a file, one per line (blank lines and # comments skipped); a
    relative path not found from here is looked up in ``root`` (the set folder)."""
    path = Path(path)
    if not path.is_file() and root is not None and not path.is_absolute():
        path = Path(root) / path
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise BenchmarkFormatError(f"Cannot read document list {path}: "
                                   f"{exc.strerror or exc}") from exc  # fmt: skip
    names = [line.split("#", 1)[0].strip() for line in lines]
    return [name for name in names if name]


# --- direct QA ----------------------------------------------------------------------------


def resolve_document(relative: str, qa_file: Path, root: Path | None) -> Path:
    """A QA item's document: under ``root`` if given, else beside the file or an ancestor."""
    candidate = Path(relative)
    if candidate.is_absolute():
        return candidate
    if root is not None:
        return Path(root) / candidate
    for base in (qa_file.parent, *qa_file.parent.parents):
        if (base / candidate).exists():
            return base / candidate
    raise BenchmarkFormatError(
        f"Cannot find document '{relative}' next to {qa_file} or above it; pass --root"
    )


def read_qa(path: Path, root: Path | None = None) -> tuple[QAItem, ...]:
    path = Path(path)
    items = []
    for number, record in _read_json_lines(path):
        where = f"{path.name}:{number}"
        refs = record.get("other_refs") or ()
        page = record.get("page")
        items.append(
            QAItem(
                id=str(record.get("id") or f"{path.stem}-{number}"),
                document=resolve_document(_field(record, "document", str, where), path, root),
                question=_field(record, "question", str, where),
                gold=str(record.get("gold") or ""),
                evidence=str(record.get("evidence") or ""),
                page=page if isinstance(page, int) else None,
                other_refs=tuple(str(r) for r in refs),
            )
        )
    return tuple(items)
