"""`jarvis demo` picks headless mode by itself where there is no screen."""

from __future__ import annotations

import sys

import pytest

from app.ui import commands


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="X11/Wayland variables only")
@pytest.mark.parametrize(
    ("env", "expected"),
    [({}, False), ({"DISPLAY": ":0"}, True), ({"WAYLAND_DISPLAY": "wayland-0"}, True)],
)
def test_display_detection(monkeypatch: pytest.MonkeyPatch, env: dict[str, str],
                           expected: bool) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert commands._has_display() is expected


def test_demo_without_display_runs_headless(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, object] = {}

    def fake_run_demo(**kwargs: object) -> int:
        seen.update(kwargs)
        return 0

    import app.ui.app

    monkeypatch.setattr(app.ui.app, "run_demo", fake_run_demo)
    monkeypatch.setattr(commands, "_has_display", lambda: False)
    from app.cli import build_parser

    args = build_parser().parse_args(["demo", "--fast"])
    assert args.handler(args) == 0
    assert seen["headless"] is True and seen["fast"] is True
