"""The tuning / check split (by document) and the quick subset of the check half.

Documents the development set already uses go to the tuning half: the backbone was
tuned on them, so they cannot show generalization. The others are dealt out source by
source, each to the half that holds fewer documents of that source, so both halves mix
the sources alike. The quick subset takes check documents source by source in turn until
it holds enough events.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass

from benchmarks.sets.sources import Source, SourceDocument


@dataclass(frozen=True)
class Split:
    tune: tuple[str, ...]
    check: tuple[str, ...]
    quick: tuple[str, ...]  # a subset of ``check``


def split(documents: Mapping[str, SourceDocument], events: Mapping[str, int], seed: int,
          quick_events: int) -> Split:  # fmt: skip
    rng = random.Random(f"{seed}:split")
    tune = sorted(name for name, doc in documents.items() if doc.seen)
    check: list[str] = []
    for source in Source:
        pool = sorted(n for n, d in documents.items() if d.source is source and not d.seen)
        rng.shuffle(pool)
        for name in pool:
            in_tune = sum(documents[n].source is source for n in tune)
            in_check = sum(documents[n].source is source for n in check)
            if in_check < in_tune or (in_check == in_tune and len(check) <= len(tune)):
                check.append(name)
            else:
                tune.append(name)
    return Split(tuple(sorted(tune)), tuple(sorted(check)),
                 quick_subset(check, documents, events, quick_events, rng))  # fmt: skip


def quick_subset(check: list[str], documents: Mapping[str, SourceDocument],
                 events: Mapping[str, int], wanted: int, rng: random.Random) -> tuple[str, ...]:
    queues: dict[Source, list[str]] = {}
    for name in sorted(check):
        queues.setdefault(documents[name].source, []).append(name)
    for queue in queues.values():
        rng.shuffle(queue)
    chosen: list[str] = []
    total = 0
    while total < wanted and any(queues.values()):
        for source in Source:
            queue = queues.get(source, [])
            if queue and total < wanted:
                name = queue.pop(0)
                chosen.append(name)
                total += events[name]
    return tuple(sorted(chosen))
