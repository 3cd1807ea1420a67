"""The agent's voice: TTS engines, audio sinks and the player that emits receipts."""

from app.voice.engines import CachingEngine, KokoroEngine, PiperEngine, TTSEngine, open_engine
from app.voice.errors import PlaybackError, SynthesisError, VoiceError, VoiceModelError
from app.voice.player import Player, Position
from app.voice.sinks import AudioSink, FileSink, MemorySink, NullSink, SoundDeviceSink

__all__ = [
    "AudioSink",
    "CachingEngine",
    "FileSink",
    "KokoroEngine",
    "MemorySink",
    "NullSink",
    "PiperEngine",
    "PlaybackError",
    "Player",
    "Position",
    "SoundDeviceSink",
    "SynthesisError",
    "TTSEngine",
    "VoiceError",
    "VoiceModelError",
    "open_engine",
]
