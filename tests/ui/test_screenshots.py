from __future__ import annotations

from PySide6.QtGui import QImage

from app.ui.screenshots import STATES, capture


def test_screenshots_of_the_three_states(qapp, tmp_path):
    paths = capture(tmp_path)
    assert [p.stem for p in paths] == list(STATES)
    images = [QImage(str(p)) for p in paths]
    for image in images:
        assert image.width() >= 1000 and image.height() >= 600
    # the states look different (glyph, pending text, arrow)
    assert images[0] != images[1] and images[1] != images[2]
    # the speaking shot carries the arrow's red somewhere on the page
    speaking = images[2]
    red = sum(
        1
        for x in range(0, speaking.width() // 2, 3)
        for y in range(0, speaking.height(), 3)
        if (c := speaking.pixelColor(x, y)).red() > 180 and c.green() < 80 and c.blue() < 80
    )
    assert red > 10
