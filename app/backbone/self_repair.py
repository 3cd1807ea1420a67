"""Self-repair reply -> proposed resolutions (the guard still has to accept each one)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from app.backbone.citations import valid_sids
from app.backbone.schemas import MAX_SIDS


@dataclass(frozen=True)
class Resolution:
    cid: int
    by: str
    sids: tuple[int, ...]


def parse(data: dict[str, Any], open_cids: Collection[int], document: Any) -> list[Resolution]:
    """Resolutions for claims that are really open; invented claim IDs are ignored."""
    out: list[Resolution] = []
    items = data.get("resolved") or []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        cid = item.get("cid")
        if isinstance(cid, bool) or not isinstance(cid, int) or cid not in open_cids:
            continue
        if any(r.cid == cid for r in out):
            continue
        sids = item.get("by_sids") or []
        out.append(Resolution(cid, str(item.get("by", "")).strip()[:40],
                              valid_sids(document, sids if isinstance(sids, list) else [],
                                         MAX_SIDS)))
    return out
