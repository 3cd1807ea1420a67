"""Voice activity: a pure event segmenter plus a thin Silero (ONNX) adapter.

``VadSegmenter`` is fed ``(frame_seconds, speech_probability, rms)`` and keeps its own
audio time, so it is tested on synthetic sequences without a clock or a model. Every
event is stamped with the audio time at the end of the frame that made it true.

Whether a frame is voiced depends on who may be in the room. While the agent is audible
(or its echo may still ring) only a confident probability counts, so its own leftover
echo is not speech. Otherwise the threshold is lower with hysteresis: a distant or quiet
participant in a far-field microphone gets probabilities well under 0.5 for much of what
they say, a frame reaching the onset threshold starts voice and the frames after it stay
voiced while they reach the lower offset threshold.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.events import InputLevel, VadEvent, VadKind
from app.settings import SpeechSettings

_US = 1_000_000  # durations are kept in integer microseconds so event times are exact


def _us(seconds: float) -> int:
    return int(round(seconds * _US))


@dataclass
class _Run:
    in_speech: bool = False
    voiced_us: int = 0  # voiced time in the current segment (gaps < hangover bridged)
    silence_us: int = 0  # current unvoiced run
    sustained_sent: bool = False
    short_sent: bool = True  # no silence events before the first frame
    long_sent: bool = True


class VadSegmenter:
    """Speech onset, sustained speech, short and long silence (SPEC §5).

    - onset: first voiced frame while not in speech;
    - sustained: voiced time in the segment reaches ``sustained_speech``; unvoiced gaps
      shorter than the hangover do not end the segment;
    - the segment ends after ``sustained_hangover`` of silence;
    - short / long silence: the unvoiced run reaches ``short_silence`` / ``long_silence``
      (each once per run; also at session start, so a quiet room releases the floor).
    """

    def __init__(self, settings: SpeechSettings | None = None) -> None:
        s = settings or SpeechSettings()
        self.threshold = s.vad_threshold
        self.onset_threshold = s.vad_onset_threshold
        self.offset_threshold = s.vad_offset_threshold
        self._voiced_before = False  # the previous frame was voiced (hysteresis)
        self._sustained = _us(s.sustained_speech)
        self._hangover = _us(s.sustained_hangover)
        self._short = _us(s.short_silence)
        self._long = _us(s.long_silence)
        self._t_us = 0
        self._run = _Run(short_sent=False, long_sent=False)
        self.last_level: InputLevel | None = None

    @property
    def time(self) -> float:
        return self._t_us / _US

    @property
    def in_speech(self) -> bool:
        return self._run.in_speech

    @property
    def silence_seconds(self) -> float:
        return self._run.silence_us / _US

    def update(
        self,
        frame_seconds: float,
        speech_probability: float,
        rms: float,
        self_voice: bool = False,
        agent_recent: bool | None = None,
    ) -> list[VadEvent]:
        """``self_voice``: the agent was playing during the frame; ``agent_recent``: it
        was playing or just stopped (its echo may remain; default: ``self_voice``)."""
        self._t_us += _us(frame_seconds)
        strict = self_voice if agent_recent is None else agent_recent
        voiced = self.is_voiced(speech_probability, strict)
        self._voiced_before = voiced
        self.last_level = InputLevel(self.time, rms, voiced)
        if voiced:
            return self._voiced(_us(frame_seconds), rms, self_voice)
        return self._unvoiced(_us(frame_seconds), rms, self_voice)

    def is_voiced(self, speech_probability: float, strict: bool = False) -> bool:
        """The frame's verdict (no state change): the strict threshold while the agent may
        be heard, else onset / offset hysteresis on the previous frame's verdict."""
        if strict:
            return speech_probability >= self.threshold
        bar = self.offset_threshold if self._voiced_before else self.onset_threshold
        return speech_probability >= bar

    def _event(self, kind: VadKind, rms: float, self_voice: bool) -> VadEvent:
        return VadEvent(kind, self.time, rms, self_voice)

    def _voiced(self, dt: int, rms: float, self_voice: bool) -> list[VadEvent]:
        run, out = self._run, []
        if not run.in_speech:
            run.in_speech, run.voiced_us, run.sustained_sent = True, 0, False
            out.append(self._event(VadKind.SPEECH_ONSET, rms, self_voice))
        run.silence_us = 0
        run.short_sent = run.long_sent = False
        run.voiced_us += dt
        if not run.sustained_sent and run.voiced_us >= self._sustained:
            run.sustained_sent = True
            out.append(self._event(VadKind.SUSTAINED_SPEECH, rms, self_voice))
        return out

    def _unvoiced(self, dt: int, rms: float, self_voice: bool) -> list[VadEvent]:
        run, out = self._run, []
        run.silence_us += dt
        if run.in_speech and run.silence_us >= self._hangover:
            run.in_speech = False
        if not run.short_sent and run.silence_us >= self._short:
            run.short_sent = True
            out.append(self._event(VadKind.SHORT_SILENCE, rms, self_voice))
        if not run.long_sent and run.silence_us >= self._long:
            run.long_sent = True
            out.append(self._event(VadKind.LONG_SILENCE, rms, self_voice))
        return out


def rms(samples: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(samples, dtype=np.float64)))) if samples.size else 0.0


def silero_model_path() -> Path:
    import silero_vad

    return Path(silero_vad.__file__).parent / "data" / "silero_vad.onnx"


class SileroVad:
    """Silero VAD through onnxruntime (no torch at run time): 512-sample frames at 16 kHz."""

    FRAME = 512
    CONTEXT = 64

    def __init__(self, model_path: str | Path | None = None) -> None:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.inter_op_num_threads = 1
        opts.intra_op_num_threads = 1
        self._session = ort.InferenceSession(
            str(model_path or silero_model_path()),
            sess_options=opts,
            providers=["CPUExecutionProvider"],
        )
        self._sr = np.array(16000, dtype=np.int64)
        self.reset()

    def reset(self) -> None:
        self._state = np.zeros((2, 1, 128), dtype=np.float32)
        self._context = np.zeros((1, self.CONTEXT), dtype=np.float32)

    def __call__(self, frame: np.ndarray) -> float:
        if frame.shape[-1] != self.FRAME:
            raise ValueError(f"Silero needs {self.FRAME}-sample frames, got {frame.shape[-1]}")
        x = np.concatenate([self._context, frame.reshape(1, -1).astype(np.float32)], axis=1)
        out, self._state = self._session.run(
            None, {"input": x, "state": self._state, "sr": self._sr}
        )
        self._context = x[:, -self.CONTEXT :]
        return float(out[0][0])
