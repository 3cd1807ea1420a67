from __future__ import annotations

from PySide6.QtGui import QImage

from app.ui.screenshots import STATES, capture


def _shots(tmp_path):
    paths = capture(tmp_path)
    assert [p.stem for p in paths] == list(STATES)
    return {p.stem: QImage(str(p)) for p in paths}


def _reddish(image: QImage, right_half: bool = False) -> int:
    xs = range(image.width() // 2, image.width(), 3) if right_half else range(
        0, image.width() // 2, 3)
    return sum(
        1
        for x in xs
        for y in range(0, image.height(), 3)
        if (c := image.pixelColor(x, y)).red() > 180 and c.green() < 80 and c.blue() < 80
    )


def _yellow_banner(image: QImage) -> int:
    """Pixels of the warning banner's yellow (#fff8c5) across the top of the window."""
    return sum(
        1
        for x in range(0, image.width(), 4)
        for y in range(0, 80, 2)
        if (c := image.pixelColor(x, y)).red() > 250 and c.green() > 240
        and 185 < c.blue() < 210
    )


def test_screenshots_of_the_window_states(qapp, tmp_path):
    shots = _shots(tmp_path)
    for name, image in shots.items():
        if name != "settings":
            assert image.width() >= 1000 and image.height() >= 600
    # the states look different (glyph, pending text, arrow, status rows)
    window_states = [shots[s] for s in STATES if s != "settings"]
    for a, b in zip(window_states, window_states[1:], strict=False):
        assert a != b
    # the speaking shot carries the arrow's red somewhere on the page
    assert _reddish(shots["speaking"]) > 10
    # the normal state: no warning banner above the document in any of them
    for name in ("listening", "recording", "hand_raised", "speaking", "snoozed", "paused"):
        assert _yellow_banner(shots[name]) == 0, name
    settings = shots["settings"]
    assert settings.width() >= 400 and settings.height() >= 300
