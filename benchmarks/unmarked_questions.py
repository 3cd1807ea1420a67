"""Questions whose mark the recognizer dropped: are they still read as asking?

Live, the recognizer often writes a question without its "?"; the backbone must still
see that the turn asks (``talk.asking_sentences``), or a gap is never noticed. For every
conversation turn of a set (real dialogue: ArgSciChat, CMU DoG, QMSum in the broad set)
each sentence written with "?" is read again with "." in its place (recall), and each
sentence ending in "." is read as written (statements read as asking; some are questions
their writer left unmarked). Model-free, seconds.

    python benchmarks/unmarked_questions.py ~/.cache/jarvis/broad \
        --documents-from ~/.cache/jarvis/broad/check.txt [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from app.language.sentences import sentences  # noqa: E402
from app.language.talk import asking_sentences  # noqa: E402


def read_sentences(root: Path, documents: set[str] | None) -> tuple[set[str], set[str]]:
    """The set's distinct question sentences (with "?") and statements (ending ".")."""
    questions: set[str] = set()
    statements: set[str] = set()
    for path in sorted(root.glob("*/*.jsonl")):
        if path.name == "events.jsonl" or (documents and path.parent.name not in documents):
            continue
        for line in path.read_text().splitlines():
            for sentence in sentences(json.loads(line)["text"]) if line.strip() else []:
                if sentence.endswith("?"):
                    questions.add(sentence)
                elif sentence.endswith("."):
                    statements.add(sentence)
    return questions, statements


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set_dir", type=Path)
    parser.add_argument("--documents-from", type=Path, help="file of document folder names")
    parser.add_argument("--out", type=Path,
                        default=REPO / "benchmarks" / "results" / "unmarked_questions.json")
    args = parser.parse_args()
    only = set(args.documents_from.read_text().split()) if args.documents_from else None
    questions, statements = read_sentences(args.set_dir, only)
    unmarked = sorted(q for q in questions if not asking_sentences(q[:-1] + "."))
    asking = sorted(s for s in statements if asking_sentences(s))
    read = len(questions) - len(unmarked)
    result = {
        "questions": len(questions), "read_as_asking_without_mark": read,
        "statements": len(statements), "statements_read_as_asking": len(asking),
        "missed_sample": unmarked[:20], "statements_asking_sample": asking[:20],
    }
    print(f"questions {len(questions)}: read as asking without the mark {read} "
          f"({read / max(1, len(questions)):.0%})")
    print(f"statements {len(statements)}: read as asking {len(asking)}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
