"""What became of each intervention a session record holds: heard, cut short, or never said.

An intervention enters the record when it is decided (a ``decision`` entry), when a direct
answer is ready (``intervention_answer``), held under a raised hand
(``intervention_pending``) or handed to the voice (``intervention_playing``);
receipts, deliveries and drops follow under its id. A record that ends before a receipt
(a crash, or the meeting ended while it waited) leaves it pending: it still counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

# Entries that carry the intervention itself, and those that only name it by id.
CARRIERS = (
    "intervention_offered",
    "intervention_pending",
    "intervention_playing",
    "intervention_delivered",
)
MENTIONS = ("playback_receipt", "intervention_dropped")


class Delivery(StrEnum):
    DELIVERED = "delivered in full"
    PARTLY = "partly delivered"
    NOT_DELIVERED = "not delivered"


@dataclass(frozen=True)
class InterventionFate:
    """One intervention and how much of it the room heard."""

    id: str
    text: str
    kind: str  # "proactive" / "direct"
    citations: tuple[dict[str, Any], ...]
    delivery: Delivery
    heard_seconds: float  # the longest playback of it that ended (finished or stopped), s
    detail: str  # why, in words ("dropped: replaced", "stopped after 1.3 s heard", ...)
    last_entry: int  # index of the last record entry about it (where the export places it)


def intervention_id(entry: dict[str, Any]) -> str:
    """The id of the intervention an entry is about; "" when it is about none."""
    kind = entry.get("kind")
    if kind == "decision":
        carried = entry.get("intervention")
        return str(carried.get("id") or "") if isinstance(carried, dict) else ""
    if kind in CARRIERS:
        return str(entry.get("id") or "")
    if kind in MENTIONS:
        return str(entry.get("intervention_id") or "")
    return ""


@dataclass
class _Trace:
    """What the record says about one intervention, gathered in order."""

    carried: dict[str, Any] = field(default_factory=dict)
    heard: float = 0.0
    finished: bool = False
    stopped: bool = False
    playing: bool = False  # handed to the voice and no receipt has ended it yet
    failed: bool = False
    dropped: str = ""
    last_entry: int = 0

    def see(self, entry: dict[str, Any], index: int) -> None:
        self.last_entry = index
        kind = entry.get("kind")
        if kind == "decision":
            self.carried = self.carried or dict(entry.get("intervention") or {})
        elif kind in CARRIERS:
            self.carried = self.carried or entry
        if kind == "intervention_playing":
            self.playing = True
        elif kind in ("playback_receipt", "intervention_delivered"):
            self._receipt(str(entry.get("status") or ""), entry.get("delivered_seconds"))
        elif kind == "intervention_dropped":
            detail = str(entry.get("detail") or "")
            self.dropped = str(entry.get("reason") or "dropped") + (f", {detail}" if detail else "")

    def _receipt(self, status: str, seconds: Any) -> None:
        self.playing = status == "started"
        if status in ("finished", "stopped"):
            self.heard = max(self.heard, _seconds(seconds))
            self.finished = self.finished or status == "finished"
            self.stopped = self.stopped or status == "stopped"
        elif status == "failed":
            self.failed = True

    def verdict(self, ended_cleanly: bool) -> tuple[Delivery, str]:
        if self.finished:
            again = " after an interruption" if self.stopped else ""
            return Delivery.DELIVERED, f"{self.heard:.1f} s{again}"
        if self.stopped and self.heard > 0:
            then = f", then dropped: {self.dropped}" if self.dropped else ""
            return Delivery.PARTLY, f"stopped after {self.heard:.1f} s heard{then}"
        if self.playing:
            return Delivery.PARTLY, "it was being spoken when the record ended"
        if self.stopped:
            return Delivery.NOT_DELIVERED, "stopped before any of it was heard"
        if self.failed:
            return Delivery.NOT_DELIVERED, "playback failed"
        if self.dropped:
            return Delivery.NOT_DELIVERED, f"dropped: {self.dropped}"
        end = "the session ended" if ended_cleanly else "the record ended unexpectedly"
        return Delivery.NOT_DELIVERED, f"still waiting for the floor when {end}"


def _seconds(value: Any) -> float:
    try:
        return max(0.0, float(value))
    except (TypeError, ValueError):
        return 0.0


def intervention_fates(
    entries: list[dict[str, Any]], ended_cleanly: bool = True
) -> list[InterventionFate]:
    """Every intervention whose words the record holds, in the order they were decided."""
    traces: dict[str, _Trace] = {}
    for index, entry in enumerate(entries):
        iid = intervention_id(entry)
        if iid:
            traces.setdefault(iid, _Trace()).see(entry, index)
    fates = []
    for iid, trace in traces.items():
        text = str(trace.carried.get("text") or "")
        if not text:  # known by id only (a superseded answer stream): nothing to show
            continue
        delivery, detail = trace.verdict(ended_cleanly)
        kind = trace.carried.get("subtype") or trace.carried.get("kind") or ""
        fates.append(
            InterventionFate(
                id=iid,
                text=text,
                kind=str(kind),
                citations=tuple(trace.carried.get("citations") or ()),
                delivery=delivery,
                heard_seconds=trace.heard,
                detail=detail,
                last_entry=trace.last_entry,
            )
        )
    return fates
