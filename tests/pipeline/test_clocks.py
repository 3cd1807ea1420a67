from __future__ import annotations

import time

from app.events import InputLevel, Turn, VadEvent, VadKind
from app.pipeline.clocks import AudioFollowingClock
from app.speech.events import DeviceStatus


def test_follows_audio_time_then_real_time_after_the_end():
    clock = AudioFollowingClock()
    assert clock.now() == 0.0
    clock.observe(InputLevel(3.2, 0.01, True))
    clock.observe(VadEvent(VadKind.SPEECH_ONSET, 2.0))  # an older event never moves it back
    clock.observe(Turn("S1", "x", 0.0, 9.0))  # turns do not drive the clock
    time.sleep(0.05)
    assert clock.now() == 3.2  # no drift while audio flows, however slow the worker
    clock.observe(DeviceStatus("stopped"))
    time.sleep(0.2)
    assert 3.35 < clock.now() < 3.6
