"""Readers for the public data the broad set is made from (``../shared/data``).

Each reader returns ``SourceDocument``s: the document's text as blocks to render (or an
original PDF), the data's own question/answer pairs about it, and the real conversations
held about it. Conversation material that belongs to no document (meeting transcripts)
comes as plain ``Dialogue``s.

COVID-QA articles reserved for outside evaluation are never read: the positions in
``RESERVED_COVIDQA`` are skipped, and so is any article whose title matches one of the
reserved documents ``documents/h0*.txt``.
"""

from __future__ import annotations

import csv
import json
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

# data[] positions of COVID-QA articles kept for outside evaluation.
RESERVED_COVIDQA = frozenset({6, 20, 39, 49, 78, 95})
RESERVED_DOCUMENTS = "documents/h0*.txt"
# COVID-QA articles and papers the public development set already uses: the backbone
# was tuned on them, so they go to the tuning half.
DEVELOPMENT_ARTICLES = frozenset({3, 36, 42, 50, 53, 61, 80, 83, 88, 96})

COVIDQA_FILE = "covid_qa/200423_covidQA.json"
ARGSCICHAT_FILES = ("argscichat/fold_0_train.json", "argscichat/fold_0_val.json",
                    "argscichat/fold_0_test.json")  # fmt: skip
CMUDOG_DOCUMENTS = "cmu_dog/WikiData"
CMUDOG_CHATS = "cmu_dog/Conversations_test"
ACL_PAPERS = ("papers_pdf/N18-3011.pdf", "papers_pdf/2020.acl-main.207.pdf")
QMSUM_MEETINGS = "qmsum/test"


class Source(StrEnum):
    COVIDQA = "covidqa"
    ARGSCICHAT = "argscichat"
    CMUDOG = "cmudog"
    ACL = "acl"


class BlockKind(StrEnum):
    TITLE = "title"
    META = "meta"  # small print under the title (authors, DOI, licence)
    HEADING = "heading"
    PARAGRAPH = "paragraph"
    ITEM = "item"  # one line of a list (cast, ratings)


@dataclass(frozen=True)
class Block:
    kind: BlockKind
    text: str


@dataclass(frozen=True)
class QAPair:
    """A question about a document and its answer, as the data gives them."""

    question: str
    answer: str  # the answer span or the answering message
    reply: str = ""  # a real answering turn from a conversation ("" when only a span exists)
    support: tuple[str, ...] = ()  # document text the data cites for the answer
    ref: str = ""  # where the pair comes from, e.g. "covidqa:262"


@dataclass(frozen=True)
class Dialogue:
    """A real conversation: (speaker as the data names them, utterance) in order."""

    ref: str
    turns: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class SourceDocument:
    id: str  # folder name in the set
    source: Source
    title: str
    blocks: tuple[Block, ...] = ()  # rendered to PDF when ``pdf`` is None
    pdf: Path | None = None  # an original PDF, used as it is
    qa: tuple[QAPair, ...] = ()
    dialogues: tuple[Dialogue, ...] = ()
    licence: str = ""
    origin: str = ""  # repository, file and position of the source
    seen: bool = False  # the development set already uses this document


def _read_json(path: Path) -> object:
    return json.loads(path.read_text(encoding="utf-8"))


def _title_key(title: str) -> str:
    return re.sub(r"\W+", " ", unicodedata.normalize("NFKC", title).lower()).strip()


def reserved_titles(data: Path) -> frozenset[str]:
    """Titles (first lines) of the documents reserved for outside evaluation."""
    keys = set()
    for path in sorted(data.glob(RESERVED_DOCUMENTS)):
        first = path.read_text(encoding="utf-8").strip().splitlines()[:1]
        if first:
            keys.add(_title_key(first[0]))
    return frozenset(keys)


# --- COVID-QA -----------------------------------------------------------------------------


def _covidqa_blocks(context: str) -> tuple[str, tuple[Block, ...]]:
    """Title, metadata lines and paragraphs of one article's context."""
    lines = [line.strip() for line in context.split("\n")]
    title = next(line for line in lines if line)
    blocks = [Block(BlockKind.TITLE, title)]
    body = False
    for line in lines[lines.index(title) + 1 :]:
        if not line:
            continue
        body = body or line.startswith(("Abstract:", "Text:")) or len(line) > 160
        blocks.append(Block(BlockKind.PARAGRAPH if body else BlockKind.META, line))
    return title, tuple(blocks)


def _licence_line(blocks: tuple[Block, ...]) -> str:
    for block in blocks:
        if block.kind is BlockKind.META and block.text.lower().startswith("license:"):
            return block.text.split(":", 1)[1].strip()
    return "unlabelled"


def covidqa_documents(data: Path) -> list[SourceDocument]:
    """The COVID-QA articles outside the reserved ones, with their QA pairs."""
    raw = _read_json(data / COVIDQA_FILE)
    assert isinstance(raw, dict)
    reserved = reserved_titles(data)
    out = []
    for index, article in enumerate(raw["data"]):
        if index in RESERVED_COVIDQA:
            continue
        paragraph = article["paragraphs"][0]
        title, blocks = _covidqa_blocks(paragraph["context"])
        if _title_key(title) in reserved:
            continue
        pairs = tuple(
            QAPair(
                question=q["question"].strip(),
                answer=q["answers"][0]["text"].strip(),
                ref=f"covidqa:{q['id']}",
            )
            for q in paragraph["qas"]
            if q.get("answers") and not q.get("is_impossible")
        )
        out.append(
            SourceDocument(
                id=f"covidqa-{index:03d}", source=Source.COVIDQA, title=title, blocks=blocks,
                qa=pairs, licence=_licence_line(blocks),
                origin=f"deepset-ai/COVID-QA {COVIDQA_FILE.split('/', 1)[1]} data[{index}]",
                seen=index in DEVELOPMENT_ARTICLES,
            )
        )  # fmt: skip
    return out


# --- ArgSciChat ---------------------------------------------------------------------------


def _argscichat_dialogues(data: Path) -> dict[str, list[Dialogue]]:
    """Real dialogues per paper title, from the corpus's message table."""
    path = data / "argscichat" / "dialogue_df.csv"
    rows: dict[tuple[str, str], list[tuple[int, str, str]]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            message = row["Message"].split("\n Facts:", 1)[0].strip()
            key = (row["Assignment"], row["Unit"])
            rows.setdefault(key, []).append((int(row["Message Number"]), row["Role"], message))
    # dialogue_df.csv has no titles; the corpus table links a dialogue's first question
    # to its paper.
    titles: dict[str, str] = {}
    with (data / "argscichat" / "argscichat_corpus.csv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            titles.setdefault(_message_key(row["P_Message"]), row["Article Title"])
    # Each assignment's two units are the two sides of one dialogue.
    by_assignment: dict[str, list[tuple[int, str, str]]] = {}
    for (assignment, _), messages in sorted(rows.items()):
        by_assignment.setdefault(assignment, []).extend(messages)
    out: dict[str, list[Dialogue]] = {}
    for assignment, messages in sorted(by_assignment.items(), key=lambda kv: int(kv[0])):
        messages.sort()
        title = next((titles[k] for _, role, m in messages
                      if role == "Proponent" and (k := _message_key(m)) in titles), None)
        if title is None:
            continue
        turns = tuple((role, text) for _, role, text in messages if text)
        out.setdefault(title, []).append(Dialogue(f"argscichat:assignment-{assignment}", turns))
    return out


def _message_key(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()


def argscichat_documents(data: Path) -> list[SourceDocument]:
    """The ArgSciChat papers (abstract and introduction) with their question/answer turns."""
    papers: list[dict] = []
    for name in ARGSCICHAT_FILES:
        raw = _read_json(data / name)
        assert isinstance(raw, dict)
        papers.extend(raw[key] for key in sorted(raw))
    papers.sort(key=lambda p: p["title"])
    dialogues = _argscichat_dialogues(data)
    out = []
    for number, paper in enumerate(papers, start=1):
        blocks = [Block(BlockKind.TITLE, paper["title"].strip())]
        blocks += [Block(BlockKind.PARAGRAPH, p) for p in _paragraphs(paper["content"])]
        pairs = tuple(
            QAPair(
                question=m["P_Message"].strip(), answer=m["DE_Message"].strip(),
                reply=m["DE_Message"].strip(), support=tuple(f.strip() for f in m["facts"]),
                ref=f"argscichat:{m['id']}",
            )
            for m in paper["message_pairs"]
            if m["facts"]
        )  # fmt: skip
        out.append(
            SourceDocument(
                id=f"argscichat-{number:02d}", source=Source.ARGSCICHAT,
                title=paper["title"].strip(), blocks=tuple(blocks), qa=pairs,
                dialogues=tuple(dialogues.get(paper["title"], ())), licence="Apache-2.0 (corpus)",
                origin=f"UKPLab/acl2023-argscichat fold_0 '{paper['title'][:60]}'",
            )
        )  # fmt: skip
    return out


def _paragraphs(sentences: list[str], size: int = 5) -> Iterator[str]:
    """The corpus keeps sentences only; group them into paragraphs of a few sentences."""
    kept = [s.strip() for s in sentences if len(s.split()) >= 4]
    for start in range(0, len(kept), size):
        yield " ".join(kept[start : start + size])


# --- CMU DoG ------------------------------------------------------------------------------

_FIELD_ORDER = ("movieName", "year", "director", "genre", "introduction")
_FIELD_LABEL = {"movieName": "Movie", "year": "Year", "director": "Director", "genre": "Genre"}


def _cmudog_blocks(doc: dict) -> tuple[Block, ...]:
    head = doc["0"]
    blocks = [Block(BlockKind.TITLE, head["movieName"].strip())]
    for key in _FIELD_ORDER[1:4]:
        if head.get(key):
            blocks.append(Block(BlockKind.META, f"{_FIELD_LABEL[key]}: {head[key].strip()}"))
    if head.get("introduction"):
        blocks.append(Block(BlockKind.PARAGRAPH, head["introduction"].strip()))
    for label, key in (("Cast", "cast"), ("Critical response", "critical_response"),
                       ("Ratings", "rating")):  # fmt: skip
        if head.get(key):
            blocks.append(Block(BlockKind.HEADING, label))
            blocks += [Block(BlockKind.ITEM, _sentence(item)) for item in head[key]]
    blocks.append(Block(BlockKind.HEADING, "Plot"))
    blocks += [Block(BlockKind.PARAGRAPH, doc[k].strip()) for k in ("1", "2", "3") if doc.get(k)]
    return tuple(blocks)


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text[-1:] in ".!?" else text + "."


def cmudog_documents(data: Path) -> list[SourceDocument]:
    """The CMU DoG movie articles with the test chats held about them."""
    docs: dict[int, dict] = {}
    for path in sorted((data / CMUDOG_DOCUMENTS).glob("*.json")):
        doc = _read_json(path)
        assert isinstance(doc, dict)
        docs[int(doc["wikiDocumentIdx"])] = doc | {"_file": path.stem}
    chats: dict[int, list[Dialogue]] = {}
    for path in sorted((data / CMUDOG_CHATS).glob("*.json")):
        chat = _read_json(path)
        assert isinstance(chat, dict)
        turns = tuple((h["uid"], h["text"]) for h in chat["history"] if h["text"].strip())
        if len(turns) >= 6:
            dialogue = Dialogue(f"cmudog:{path.stem[:12]}", turns)
            chats.setdefault(int(chat["wikiDocumentIdx"]), []).append(dialogue)
    out = []
    for index, doc in sorted(docs.items()):
        out.append(
            SourceDocument(
                id=f"cmudog-{index:02d}", source=Source.CMUDOG,
                title=doc["0"]["movieName"].strip(), blocks=_cmudog_blocks(doc),
                dialogues=tuple(chats.get(index, ())),
                licence="CC BY-SA (Wikipedia text); chats: festvox CMU DoG licence",
                origin=f"festvox/datasets-CMU_DoG WikiData/{doc['_file']}.json",
            )
        )  # fmt: skip
    return out


# --- ACL papers ---------------------------------------------------------------------------


def acl_documents(data: Path) -> list[SourceDocument]:
    """The two ACL Anthology papers, as their original PDFs."""
    out = []
    for relative in ACL_PAPERS:
        path = data / relative
        parse = _read_json(path.with_suffix(".s2orc.json"))
        assert isinstance(parse, dict)
        slug = path.stem.lower().replace(".", "-")
        out.append(
            SourceDocument(
                id=f"acl-{slug}", source=Source.ACL, title=str(parse.get("title") or path.stem),
                pdf=path, licence="CC BY 4.0 (ACL Anthology)",
                origin=f"allenai/s2orc-doc2json tests/pdf/{path.name}", seen=True,
            )
        )  # fmt: skip
    return out


# --- QMSum --------------------------------------------------------------------------------


def qmsum_meetings(data: Path) -> list[Dialogue]:
    """Speaker-labelled meeting transcripts (AMI, ICSI, parliamentary committees)."""
    out = []
    for path in sorted((data / QMSUM_MEETINGS).glob("*.json")):
        raw = _read_json(path)
        assert isinstance(raw, dict)
        turns = tuple((t["speaker"], t["content"]) for t in raw["meeting_transcripts"])
        out.append(Dialogue(f"qmsum:{path.stem}", turns))
    return out


def all_documents(data: Path) -> list[SourceDocument]:
    return (covidqa_documents(data) + argscichat_documents(data) + cmudog_documents(data)
            + acl_documents(data))  # fmt: skip
