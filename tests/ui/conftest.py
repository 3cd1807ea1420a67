from __future__ import annotations

from dataclasses import replace

import pytest

from app.clock import SimulatedClock
from app.pipeline.demo import DemoAssets
from app.pipeline.pipeline import Pipeline
from app.settings import FloorMode, Settings
from app.ui.settings_store import Preferences


@pytest.fixture
def assets() -> DemoAssets:
    return DemoAssets.bundled()


@pytest.fixture
def window(qtbot):
    from app.ui.window import MainWindow

    settings = replace(Settings(), floor=replace(Settings().floor, mode=FloorMode.HAND_RAISE))
    pipeline = Pipeline(settings, clock=SimulatedClock(0.0))
    pipeline.tick_floor = False
    win = MainWindow(pipeline, Preferences(mode="hand_raise"), save_prefs=False)
    qtbot.addWidget(win)
    win.resize(1200, 800)
    win.show()
    return win
