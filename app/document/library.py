"""Several documents of one meeting as one index (SPEC §3 across documents).

The backbone works on one numbered sentence list. ``merge`` lays the documents end to
end: sentence IDs run on from one document to the next, each sentence keeps its own
document's page and rectangles, and ``part_of`` tells which document an ID belongs to.
The first document keeps the IDs it has on its own, so what was cited before a document
was added still resolves to the same sentence.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

from app.document.model import DocumentIndex, Sentence


@dataclass(frozen=True)
class LibraryPart:
    """One document of the library and where its sentences sit in the merged list."""

    index: DocumentIndex
    first: int  # merged ID of its first sentence
    count: int  # its sentences

    @property
    def path(self) -> Path:
        return self.index.path

    @property
    def name(self) -> str:
        """What the document is called aloud and in the window: its title, else its file."""
        return self.index.title.strip() or self.index.path.stem

    def local(self, sid: int) -> int:
        """The ID ``sid`` of the merged list has in this document on its own."""
        return sid - self.first


@dataclass
class Library(DocumentIndex):
    """A DocumentIndex made of several: ``parts`` in the order they were opened."""

    parts: tuple[LibraryPart, ...] = ()

    def part_of(self, sid: int) -> LibraryPart | None:
        """The document sentence ``sid`` comes from; None for an ID that does not resolve."""
        if self.get(sid) is None:
            return None
        return self.parts[bisect_right(self._firsts, sid) - 1]

    def part_at(self, path: Path | str) -> LibraryPart | None:
        return next((p for p in self.parts if p.path == Path(path)), None)

    @cached_property
    def _firsts(self) -> list[int]:
        return [p.first for p in self.parts]

    @cached_property
    def _block(self) -> str:
        """The numbered lines under one heading per document, so the model can tell
        which document a sentence is in."""
        lines: list[str] = []
        for n, part in enumerate(self.parts, 1):
            lines.append(f"## Document {n}: {part.name}")
            lines += (f"[S{s.sid}] {s.text}"
                      for s in self.sentences[part.first : part.first + part.count])
        return "\n".join(lines)


def merge(indexes: Sequence[DocumentIndex]) -> DocumentIndex:
    """One index over ``indexes``: the document itself when there is one (nothing changes
    for a one-document meeting), else a Library with IDs running on across documents."""
    if not indexes:
        raise ValueError("a library needs at least one document")
    if len(indexes) == 1:
        return indexes[0]
    sentences: list[Sentence] = []
    parts: list[LibraryPart] = []
    for index in indexes:
        first = len(sentences)
        sentences += (replace(s, sid=first + n) for n, s in enumerate(index.sentences))
        parts.append(LibraryPart(index, first, len(index.sentences)))
    digest = hashlib.sha256("".join(i.sha256 for i in indexes).encode()).hexdigest()
    return Library(
        path=indexes[0].path,
        sha256=digest,
        title="; ".join(p.name for p in parts),
        page_count=sum(i.page_count for i in indexes),
        sentences=sentences,
        warnings=tuple(w for i in indexes for w in i.warnings),
        parts=tuple(parts),
    )


def part_of(document: object, sid: int) -> LibraryPart | None:
    """The document of sentence ``sid`` when ``document`` holds several; else None."""
    return document.part_of(sid) if isinstance(document, Library) else None

