"""When the growing turn is decoded again for its partial transcript (the live caption).

A decode costs a whole Whisper window whatever the turn's length, so on a CPU one can
take longer than the second of audio it follows. Partials are a courtesy to the window;
the turn itself must never fall behind the microphone for them. The schedule keeps
partial decodes to a share of real time: the next one waits ``interval`` seconds of new
audio, or longer when the last decode was slow.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class PartialSchedule:
    interval: float  # seconds of new audio between partial decodes, at least
    share: float  # the most of real time partial decodes may take (0-1; 0: no budget)
    cost: float = 0.0  # seconds the last partial decode took

    def due(self, new_audio: float) -> bool:
        """``new_audio``: seconds of audio since the last partial decode."""
        return new_audio >= self.wait()

    def wait(self) -> float:
        """Seconds of new audio the next partial decode waits for."""
        return max(self.interval, self.cost / self.share) if self.share > 0 else self.interval

    def spent(self, seconds: float) -> None:
        """Record how long the partial decode just done took."""
        self.cost = max(0.0, seconds)


@dataclass
class DecodeLoad:
    """The share of real time the worker's Whisper decodes took over the last ``window``
    seconds of audio. Optional decodes (the speculative one at a pause) run only while it
    is under ``limit``: a wasted speculation costs a whole decode, which a machine with
    room to spare can afford and one near its limit cannot."""

    window: float = 20.0  # seconds of audio
    limit: float = 0.5  # share of real time (0-1)
    _decodes: list[tuple[float, float]] = field(default_factory=list)  # (audio time, s)

    def spent(self, audio_time: float, seconds: float) -> None:
        self._decodes.append((audio_time, max(0.0, seconds)))
        self._decodes = [d for d in self._decodes if d[0] > audio_time - self.window]

    def share(self, audio_time: float) -> float:
        recent = sum(s for t, s in self._decodes if t > audio_time - self.window)
        return recent / self.window

    def room(self, audio_time: float) -> bool:
        return self.share(audio_time) < self.limit
