"""A readable meeting record (Markdown or HTML) from a session record."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from app.session.record import read_record


def _clock(seconds: Any) -> str:
    try:
        s = float(seconds)
    except (TypeError, ValueError):
        return "--:--"
    return f"{int(s // 60):02d}:{s % 60:04.1f}"


def _citations(entry: dict[str, Any]) -> list[str]:
    out = []
    for c in entry.get("citations") or []:
        out.append(f"page {c.get('page')}, [S{c.get('sid')}] \u201c{c.get('text', '')}\u201d")
    return out


def _lines(entries: list[dict[str, Any]]) -> list[tuple[str, str, list[str]]]:
    """(section, line, sub-lines) for each entry worth showing, in order."""
    # A speaker named late in the meeting is named throughout the record.
    names = {e.get("speaker", ""): e.get("name", "") for e in entries
             if e.get("kind") == "speaker_renamed"}
    rows: list[tuple[str, str, list[str]]] = []
    for e in entries:
        kind = e.get("kind")
        if kind == "session_started":
            rows.append(("head", f"Document: {e.get('document') or 'none'}", []))
        elif kind == "turn":
            who = names.get(e.get("speaker", ""), e.get("speaker", "?"))
            rows.append(("turn", f"[{_clock(e.get('start'))}] {who}: {e.get('text', '')}", []))
        elif kind == "decision":
            if e.get("action") == "speak" or e.get("claim"):
                rows.append(
                    (
                        "decision",
                        f"Decision on turn {e.get('turn')}: {e.get('action')}"
                        f" ({e.get('reason', '')})",
                        [],
                    )
                )
        elif kind == "intervention_delivered":
            rows.append(
                (
                    "agent",
                    f"Jarvis: {e.get('text', '')}",
                    _citations(e)
                    + [
                        f"delivery: {e.get('status', '?')}, "
                        f"{float(e.get('delivered_seconds') or 0):.1f} s"
                    ],
                )
            )
        elif kind == "error":
            rows.append(
                ("error", f"Problem ({e.get('component', '?')}): {e.get('message', '')}", [])
            )
    return rows


def to_markdown(entries: list[dict[str, Any]], title: str = "Meeting record") -> str:
    out = [f"# {title}", ""]
    for section, line, subs in _lines(entries):
        if section == "agent":
            out.append(f"- **{line}**")
        elif section in ("decision", "error"):
            out.append(f"- _{line}_")
        elif section == "head":
            out += [line, ""]
            continue
        else:
            out.append(f"- {line}")
        out += [f"  - {s}" for s in subs]
    return "\n".join(out) + "\n"


def to_html(entries: list[dict[str, Any]], title: str = "Meeting record") -> str:
    body = []
    for section, line, subs in _lines(entries):
        items = "".join(f"<li>{html.escape(s)}</li>" for s in subs)
        sub = f"<ul>{items}</ul>" if subs else ""
        body.append(f'<li class="{section}">{html.escape(line)}{sub}</li>')
    style = (
        "body{font-family:sans-serif;max-width:50em;margin:2em auto}"
        ".agent{font-weight:bold;color:#1f6feb}.decision,.error{color:#666;font-style:italic}"
        ".head{list-style:none;font-weight:bold}"
    )
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
        f"</title><style>{style}</style></head><body><h1>{html.escape(title)}</h1>"
        f"<ul>{''.join(body)}</ul></body></html>\n"
    )


def export_record(record_path: Path, out_path: Path) -> Path:
    """Write Markdown (.md) or HTML (.html/.htm) next to nothing else; returns out_path."""
    entries = read_record(record_path)
    title = f"Meeting record {Path(record_path).stem}"
    suffix = Path(out_path).suffix.lower()
    if suffix in (".html", ".htm"):
        text = to_html(entries, title)
    elif suffix in (".md", ".markdown", ".txt"):
        text = to_markdown(entries, title)
    else:
        raise ValueError(f"cannot export to '{suffix}': choose a .md or .html file name")
    Path(out_path).write_text(text, encoding="utf-8")
    return Path(out_path)
