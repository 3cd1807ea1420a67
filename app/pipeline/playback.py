"""Players the floor driver speaks through.

``VoicePlayer`` adapts the voice package (TTS + audio sink) when it is installed.
``TextOnlyPlayer`` stands in when it is not: it "speaks" for the time the words would
take (2.5 words per second) and reports the same receipts, so the floor, the record and
the window behave as with a real voice.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from app.clock import Clock
from app.events import Intervention, PlaybackReceipt, ReceiptStatus

WORDS_PER_SECOND = 2.5


class TextOnlyPlayer:
    def __init__(self, clock: Clock, emit: Callable[[PlaybackReceipt], None]) -> None:
        self._clock = clock
        self._emit = emit
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None

    def play(self, text: str, intervention: Intervention) -> None:
        self.stop()
        self._cancel = threading.Event()
        self._thread = threading.Thread(
            target=self._run,
            args=(text, intervention, self._cancel),
            name="text-playback",
            daemon=True,
        )
        self._thread.start()

    def _run(self, text: str, intervention: Intervention, cancel: threading.Event) -> None:
        start = self._clock.now()
        self._emit(PlaybackReceipt(intervention.id, ReceiptStatus.STARTED, 0.0, 0, start))
        duration = max(1.0, len(text.split()) / WORDS_PER_SECOND)
        while self._clock.now() - start < duration:
            if cancel.is_set():
                heard = self._clock.now() - start
                now = self._clock.now()
                self._emit(PlaybackReceipt(intervention.id, ReceiptStatus.STOPPED, heard, 0, now))
                return
            cancel.wait(0.05)  # wall-clock wait: never drives a simulated clock
        now = self._clock.now()
        self._emit(PlaybackReceipt(intervention.id, ReceiptStatus.FINISHED, duration, 0, now))

    def stop(self) -> None:
        self._cancel.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(1.0)

    def close(self) -> None:
        self.stop()


class VoicePlayer:
    """The voice package's ``Player`` behind the floor driver's play/stop/close."""

    def __init__(self, player: Any) -> None:
        self.player = player

    def play(self, text: str, intervention: Intervention) -> None:
        self.player.play(intervention.id, text)

    def stop(self) -> None:
        self.player.stop()

    def close(self) -> None:
        self.player.close()


def open_voice(
    settings: Any,
    emit: Callable[[Any], None],
    clock: Clock,
    sink: str = "device",
    device: str | None = None,
    tap: Any = None,
) -> tuple[Any, str | None]:
    """A ``VoicePlayer`` on the loudspeaker (``sink="device"``) or a real-time null sink
    (``"null"``, for headless runs), or ``(None, reason)``."""
    try:
        from app import voice
    except ImportError as exc:
        return None, f"the voice package is not installed ({exc})"
    from app.clock import RealClock
    from app.pipeline.events import PipelineError

    def on_error(error: Any) -> None:
        emit(PipelineError("voice", getattr(error, "user_message", str(error))))

    try:
        engine = voice.CachingEngine(voice.open_engine(settings.voice))
    except Exception as exc:
        return None, getattr(exc, "user_message", None) or f"voice model: {exc}"
    announce_voice(engine, emit)
    try:
        out = (
            voice.NullSink(pace=RealClock())
            if sink == "null"
            else voice.SoundDeviceSink(device, settings.voice.block_seconds)
        )
    except Exception as exc:
        return None, getattr(exc, "user_message", None) or f"loudspeaker: {exc}"
    player = voice.Player(
        engine, out, settings.voice, tap=tap, on_receipt=emit, on_error=on_error, clock=clock
    )
    return VoicePlayer(player), None


def announce_voice(engine: Any, emit: Callable[[Any], None]) -> None:
    """Say in the window when the voice is not the one chosen or not an English one."""
    from app.pipeline.events import PipelineError

    if engine.note:
        emit(PipelineError("voice", engine.note, "Pick another voice in Settings."))
