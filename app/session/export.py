"""A readable meeting record (Markdown or HTML) from a session record.

It shows the talk, what the agent said and what it meant to say but did not (or only in
part), the settings changed and the snoozes asked for during the meeting (at the time of
day they happened), and what could not be read back from a damaged record.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from datetime import datetime, timedelta
from enum import StrEnum
from pathlib import Path
from typing import Any

from app.session.delivery import Delivery, InterventionFate, intervention_fates
from app.session.record import RecordContents, ended_cleanly, read_record_contents


class ExportFormat(StrEnum):
    MARKDOWN = "md"
    HTML = "html"


SUFFIXES = {
    ".md": ExportFormat.MARKDOWN,
    ".markdown": ExportFormat.MARKDOWN,
    ".txt": ExportFormat.MARKDOWN,
    ".html": ExportFormat.HTML,
    ".htm": ExportFormat.HTML,
}

Row = tuple[str, str, list[str]]  # (section, line, sub-lines)


def _clock(seconds: Any) -> str:
    try:
        s = float(seconds)
    except (TypeError, ValueError):
        return "--:--"
    return f"{int(s // 60):02d}:{s % 60:04.1f}"


def _citations(entry: dict[str, Any] | InterventionFate) -> list[str]:
    cited = entry.citations if isinstance(entry, InterventionFate) else entry.get("citations")
    return [
        f"{_where(c)}, [S{c.get('sid')}] \u201c{c.get('text', '')}\u201d"
        for c in cited or []
    ]


def _where(citation: dict[str, Any]) -> str:
    """"page 4", or "Budget report, page 4" for a meeting with several documents."""
    name = citation.get("document_title") or ""
    return f"{name}, page {citation.get('page')}" if name else f"page {citation.get('page')}"


def _wall(entry: dict[str, Any]) -> datetime | None:
    """When the entry was written, on this computer's clock."""
    try:
        return datetime.fromisoformat(str(entry["wall"])).astimezone()
    except (KeyError, TypeError, ValueError):
        return None


def _at(entry: dict[str, Any]) -> str:
    wall = _wall(entry)
    return f"{wall:%H:%M:%S}" if wall is not None else "--:--:--"


# What the window calls each setting the running agent takes (app.events.Setting).
SETTING_NAMES = {
    "patience": "Patience",
    "mode": "Floor mode",
    "proactive_gap": "At most one remark every",
    "voice_engine": "Voice engine",
    "voice": "Voice",
    "speed": "Speaking rate",
    "input_device": "Microphone",
    "output_device": "Loudspeaker",
}


def _setting_value(setting: str, value: Any) -> str:
    """A setting's value in words, in the unit the window shows it in."""
    if setting in ("input_device", "output_device"):
        return str(value) if value else "system default"
    if setting in ("mode", "patience"):  # a preset's name: "hand_raise" reads "hand raise"
        return str(value).replace("_", " ")
    if setting in ("proactive_gap", "speed"):
        try:
            number = float(value)
        except (TypeError, ValueError):
            return str(value)
        if setting == "speed":
            return f"{number:g}\u00d7"
        return f"{number / 60:g} min" if number > 0 else "no limit"
    return str(value)


def _setting_row(entry: dict[str, Any]) -> Row:
    setting = str(entry.get("setting", ""))
    name = SETTING_NAMES.get(setting, setting.replace("_", " "))
    old, new = (_setting_value(setting, entry.get(k)) for k in ("old", "new"))
    return ("decision", f"{_at(entry)} Setting changed: {name} {old} \u2192 {new}", [])


_SNOOZE_BY = {"window": "from the window", "voice": "by voice"}


def _snooze_row(entry: dict[str, Any]) -> Row:
    """A snooze asked for (how long, by whom, until when) or its end."""
    source, seconds = str(entry.get("source", "")), float(entry.get("seconds") or 0)
    by = _SNOOZE_BY.get(source, source)
    if entry.get("until") is None:
        ended = "Snooze over (its time ran out)" if source == "expired" else f"Snooze ended {by}"
        return ("decision", f"{_at(entry)} {ended}: Jarvis may speak up again", [])
    wall = _wall(entry)
    until = f" until {wall + timedelta(seconds=seconds):%H:%M}" if wall is not None else ""
    return ("decision", f"{_at(entry)} Snoozed for {seconds / 60:g} min {by}{until}: no "
            "proactive remarks, questions still answered", [])  # fmt: skip


def _delivery_line(entry: dict[str, Any]) -> str:
    """One playback of an intervention, as its receipt says."""
    status, seconds = entry.get("status", "?"), float(entry.get("delivered_seconds") or 0)
    if status == "finished":
        return f"delivery: {Delivery.DELIVERED} (finished, {seconds:.1f} s)"
    if status == "stopped":
        return f"delivery: {Delivery.PARTLY} (stopped after {seconds:.1f} s heard)"
    return f"delivery: {status}, {seconds:.1f} s"


def _unsaid(fate: InterventionFate) -> Row:
    """An intervention no delivery entry shows: never played, or cut off by the end."""
    return (
        "unsaid",
        f"Jarvis ({fate.delivery}): {fate.text}",
        _citations(fate) + [f"delivery: {fate.delivery} ({fate.detail})"],
    )


def speaker_names(entries: Sequence[dict[str, Any]]) -> dict[str, str]:
    """The name each speaker of the record is shown by: a session label by its last name,
    an earlier name (turns after a rename carry the name) by the name that replaced it,
    and a merged label by the name of the speaker it became."""
    latest: dict[str, str] = {}  # label -> its last name
    earlier: dict[str, str] = {}  # a name given before -> the label it was given to
    for e in entries:
        if e.get("kind") != "speaker_renamed" or not e.get("name"):
            continue
        label, name = str(e.get("speaker", "")), str(e["name"])
        if label in latest and latest[label] != name:
            earlier[latest[label]] = label
        latest[label] = name
    names = {**{old: latest[label] for old, label in earlier.items()}, **latest}
    for who, name in names.items():
        seen = {who}
        while name in latest and name not in seen:  # a merge named a label: follow it
            seen.add(name)
            name = latest[name]
        names[who] = name
    return names


def _named_row(entry: dict[str, Any]) -> Row | None:
    """A name the meeting found by itself: a remembered voice, or an introduction."""
    source, who, name = entry.get("source"), entry.get("speaker"), entry.get("name")
    if source == "voice":
        score = entry.get("score")
        how = f"by voice ({float(score):.2f})" if score is not None else "by voice"
        return ("decision", f"{who} recognised as {name} {how}", [])
    if source == "introduction":
        return ("decision", f"{who} named {name} (introduced themself)", [])
    return None


def _entry_row(entry: dict[str, Any], names: dict[str, str]) -> Row | None:
    kind = entry.get("kind")
    if kind == "speaker_renamed":
        return _named_row(entry)
    if kind == "session_started":
        return ("head", f"Document: {entry.get('document') or 'none'}", [])
    if kind == "turn":
        who = names.get(entry.get("speaker", ""), entry.get("speaker", "?"))
        return ("turn", f"[{_clock(entry.get('start'))}] {who}: {entry.get('text', '')}", [])
    if kind == "decision" and (entry.get("action") == "speak" or entry.get("claim")):
        return (
            "decision",
            f"Decision on turn {entry.get('turn')}: {entry.get('action')}"
            f" ({entry.get('reason', '')})",
            [],
        )
    if kind == "settings_changed":
        return _setting_row(entry)
    if kind == "snooze_changed":
        return _snooze_row(entry)
    if kind == "intervention_delivered":
        line = f"Jarvis: {entry.get('text', '')}"
        return ("agent", line, _citations(entry) + [_delivery_line(entry)])
    if kind == "error":
        return ("error", f"Problem ({entry.get('component', '?')}): {entry.get('message', '')}", [])
    return None


def _lines(entries: list[dict[str, Any]]) -> list[Row]:
    """Each entry worth showing, in order; an intervention never heard sits where the record
    last mentions it, and a summary of every intervention closes the record."""
    names = speaker_names(entries)  # a speaker named late is named throughout the record
    fates = intervention_fates(entries, ended_cleanly(entries))
    shown = {e.get("id") for e in entries if e.get("kind") == "intervention_delivered"}
    unsaid: dict[int, list[InterventionFate]] = {}
    for fate in fates:
        if fate.id not in shown:
            unsaid.setdefault(fate.last_entry, []).append(fate)
    rows: list[Row] = []
    added = _documents_added(entries)
    for index, entry in enumerate(entries):
        row = _added_row(entry) if index in added else _entry_row(entry, names)
        if row is not None:
            rows.append(row)
        rows += [_unsaid(fate) for fate in unsaid.get(index, [])]
    return rows + _summary(fates)


def _documents_added(entries: list[dict[str, Any]]) -> set[int]:
    """Indexes of the entries that bring a document into the meeting after its first."""
    seen = {str(e["document"]) for e in entries
            if e.get("kind") == "session_started" and e.get("document")}  # fmt: skip
    added: set[int] = set()
    for index, entry in enumerate(entries):
        path = str(entry.get("path") or "")
        if entry.get("kind") != "document_loaded" or not path or path in seen:
            continue
        if seen:  # the first document is the meeting's own
            added.add(index)
        seen.add(path)
    return added


def _added_row(entry: dict[str, Any]) -> Row:
    path = Path(str(entry.get("path")))
    title = entry.get("title") or path.stem
    return ("decision", f"Document added: {title} ({path.name})", [])


def _summary(fates: list[InterventionFate]) -> list[Row]:
    if not fates:
        return []
    rows: list[Row] = [("section", "Interventions", [])]
    for fate in fates:
        rows.append(("summary", f"{fate.delivery}: \u201c{fate.text}\u201d ({fate.detail})", []))
    return rows


def record_notes(contents: RecordContents) -> list[str]:
    """What a reader of the export must know about the record itself."""
    notes = []
    if contents.entries and not contents.ended_cleanly:
        notes.append("The session ended unexpectedly: this record holds everything written before.")
    if contents.skipped:
        notes.append(f"Damaged record: {contents.skipped_note()}.")
    return notes


def to_markdown(
    entries: list[dict[str, Any]], title: str = "Meeting record", notes: Sequence[str] = ()
) -> str:
    out = [f"# {title}", ""]
    out += [f"> {note}" for note in notes] + ([""] if notes else [])
    for section, line, subs in _lines(entries):
        if section == "agent":
            out.append(f"- **{line}**")
        elif section in ("decision", "error", "unsaid"):
            out.append(f"- _{line}_")
        elif section == "head":
            out += [line, ""]
            continue
        elif section == "section":
            out += ["", f"## {line}", ""]
            continue
        else:
            out.append(f"- {line}")
        out += [f"  - {s}" for s in subs]
    return "\n".join(out) + "\n"


def to_html(
    entries: list[dict[str, Any]], title: str = "Meeting record", notes: Sequence[str] = ()
) -> str:
    body = []
    for section, line, subs in _lines(entries):
        if section == "section":
            body.append(f"</ul><h2>{html.escape(line)}</h2><ul>")
            continue
        items = "".join(f"<li>{html.escape(s)}</li>" for s in subs)
        sub = f"<ul>{items}</ul>" if subs else ""
        body.append(f'<li class="{section}">{html.escape(line)}{sub}</li>')
    style = (
        "body{font-family:sans-serif;max-width:50em;margin:2em auto}"
        ".agent{font-weight:bold;color:#1f6feb}.decision,.error{color:#666;font-style:italic}"
        ".unsaid{color:#9a6700;font-style:italic}.head{list-style:none;font-weight:bold}"
        ".note{background:#fff8c5;border:1px solid #d4a72c;padding:4px}"
    )
    head = "".join(f"<p class='note'>{html.escape(n)}</p>" for n in notes)
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
        f"</title><style>{style}</style></head><body><h1>{html.escape(title)}</h1>"
        f"{head}<ul>{''.join(body)}</ul></body></html>\n"
    )


def export_format(out_path: Path | None, fmt: str | None = None) -> ExportFormat:
    """The format asked for, else the one the file name says, else Markdown."""
    if fmt:
        return ExportFormat(fmt)
    if out_path is None:
        return ExportFormat.MARKDOWN
    suffix = Path(out_path).suffix.lower()
    if suffix not in SUFFIXES:
        raise ValueError(f"cannot export to '{suffix}': choose a .md or .html file name")
    return SUFFIXES[suffix]


def render_record(contents: RecordContents, fmt: ExportFormat) -> str:
    title = f"Meeting record {contents.path.stem}"
    render = to_html if fmt == ExportFormat.HTML else to_markdown
    return render(contents.entries, title, record_notes(contents))


def export_record(record_path: Path, out_path: Path, fmt: str | None = None) -> Path:
    """Write the record as Markdown or HTML (by ``fmt``, else by the suffix); returns
    out_path. A damaged or unfinished record is exported as far as it can be read."""
    chosen = export_format(out_path, fmt)
    text = render_record(read_record_contents(record_path), chosen)
    Path(out_path).write_text(text, encoding="utf-8")
    return Path(out_path)
