"""A test sentence in a chosen voice: the settings dialog lets the user hear a voice, at
its rate and on its loudspeaker, before the meeting does.

The voice is opened as the meeting would open it (``open_engine``, with its fallback and
its note) and played through the meeting's own player, so what is heard is what the
meeting will hear.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from app.events import PlaybackReceipt, ReceiptStatus
from app.settings import VoiceSettings
from app.voice.engines import TTSEngine, open_engine
from app.voice.errors import PlaybackError, VoiceError
from app.voice.player import Player
from app.voice.sinks import AudioSink

TEST_SENTENCE = "Hello, I'm Jarvis. This is how I will sound in your meeting."
TRIAL_ID = "voice-test"

# Each voice tried is opened once and kept for the process: trying voices again and again
# never creates and frees ONNX Runtime sessions on worker threads while others are freed
# by the garbage collector elsewhere (a race that can bring the process down).
_opened: dict[VoiceSettings, TTSEngine] = {}
_opening = threading.Lock()


def trial_engine(settings: VoiceSettings) -> TTSEngine:
    """The engine for ``settings``, opened on first use as the meeting would open it."""
    with _opening:
        if settings not in _opened:
            _opened[settings] = open_engine(settings)
        return _opened[settings]


@dataclass(frozen=True)
class Trial:
    """What was played: which voice said the test sentence, and for how long."""

    engine: str  # the engine that spoke ("kokoro", "piper")
    voice: str  # the voice within it
    seconds: float  # audio played, seconds
    note: str  # what the window should say about the voice ("" when as chosen)


def say_test_sentence(
    settings: VoiceSettings, sink: AudioSink, text: str = TEST_SENTENCE, timeout: float = 60.0
) -> Trial:
    """Synthesise ``text`` with ``settings``' voice and play it on ``sink`` (closed after);
    blocks until it has been played. Raises ``VoiceError`` with a message for the user."""
    engine = trial_engine(settings)
    errors: list[VoiceError] = []
    receipts: list[PlaybackReceipt] = []
    over = threading.Event()

    def on_receipt(receipt: PlaybackReceipt) -> None:
        receipts.append(receipt)
        if receipt.status != ReceiptStatus.STARTED:
            over.set()

    player = Player(engine, sink, settings, on_receipt=on_receipt, on_error=errors.append)
    try:
        player.play(TRIAL_ID, text)
        ended = over.wait(timeout)
    finally:
        player.close()
    if errors:
        raise errors[0]
    if not ended or receipts[-1].status != ReceiptStatus.FINISHED:
        raise PlaybackError(f"The test sentence did not finish playing within {timeout:.0f} s.")
    voice = str(getattr(engine, "voice", settings.voice))
    return Trial(engine.name, voice, receipts[-1].delivered_seconds, engine.note)
