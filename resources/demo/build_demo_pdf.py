"""Build the demo PDF from green_roofs.html with PyMuPDF Story (run from any folder)."""

from __future__ import annotations

from pathlib import Path

import pymupdf

HERE = Path(__file__).resolve().parent
CSS = """
h1 { font-size: 20px; font-family: sans-serif; margin-bottom: 6px; }
h2 { font-size: 14px; font-family: sans-serif; margin-top: 14px; }
p { font-size: 12px; font-family: serif; line-height: 1.45; text-align: justify; }
p.meta { font-size: 10px; font-style: italic; color: #555; }
"""


def build(source: Path = HERE / "green_roofs.html", out: Path = HERE / "green_roofs.pdf") -> Path:
    story = pymupdf.Story(html=source.read_text(encoding="utf-8"), user_css=CSS)
    page = pymupdf.paper_rect("a4")
    where = page + (64, 72, -64, -72)
    writer = pymupdf.DocumentWriter(str(out))
    more = True
    while more:
        device = writer.begin_page(page)
        more, _ = story.place(where)
        story.draw(device)
        writer.end_page()
    writer.close()
    doc = pymupdf.open(out)
    doc.set_metadata({"title": "Green Roofs in the Harbor District: Pilot Summary",
                      "author": "Jarvis for the room project", "subject": "demo document"})
    doc.saveIncr()
    return out


if __name__ == "__main__":
    print(build())
