"""What a participant says over the agent: partial transcripts for the backchannel filter.

While the agent is audible, sustained participant speech goes to the floor's barge-in
rule (``app.floor.bargein``), which holds while everything heard is a backchannel.
``OverlapListener`` keeps the audio of the current speech from its onset (the signal the
VAD judged: the double-talk detector's residual while the agent plays) and decodes it
when the speech becomes sustained, then again every ``interval`` while it goes on, until
it holds words that are not a backchannel or ``max_seconds`` have passed. A decode needs
new voiced audio and runs at most ``tail`` after the latest voiced frame: what follows a
"yeah" is the agent's residual echo, in which Whisper finds words that were never said.

Decoding is on the speech worker's thread and on the latency path of a barge-in, so
``WhisperGlance`` reads faster-whisper with a shortened encoder window (whisper.cpp's
``audio_ctx``): about a tenth of the cost of a 30 s window on a CPU, a little less
accurate, enough to tell "yeah" from "wait, that's wrong".
"""

from __future__ import annotations

import re
import zlib
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from app.events import OverlapTranscript, VadEvent, VadKind
from app.language.talk import is_backchannel
from app.speech.asr import join_words

RATE = 16000

Decode = Callable[[np.ndarray], str]


@dataclass(frozen=True)
class OverlapTuning:
    preroll: float = 0.2  # audio kept before the onset frame
    interval: float = 0.2  # new audio between two decodes of the same speech
    max_seconds: float = 2.0  # no decodes this long after the onset (the floor has decided)
    tail: float = 0.1  # audio kept after the latest voiced frame


@dataclass
class _Speech:
    start: float
    audio: list[np.ndarray] = field(default_factory=list)
    armed: bool = False  # sustained while the agent was audible: decode it
    voiced_until: float = float("-inf")  # end of the latest voiced frame
    decoded_until: float = float("-inf")  # voiced_until at the last decode
    done: bool = False  # words that are not a backchannel were heard: no more decodes


class OverlapListener:
    """Fed every frame with the VAD events it caused; returns the transcripts to send."""

    def __init__(self, decode: Decode, tuning: OverlapTuning | None = None) -> None:
        self.decode = decode
        self.tuning = tuning or OverlapTuning()
        self._preroll: deque[np.ndarray] = deque()
        self._speech: _Speech | None = None
        self.decodes = 0

    def update(
        self,
        frame: np.ndarray,
        end: float,
        events: Sequence[VadEvent],
        agent_audible: bool,
        voiced: bool = True,
    ) -> list[OverlapTranscript]:
        """``end``: audio time at the end of ``frame``; ``agent_audible``: the agent was
        playing (or just stopped) when it was captured; ``voiced``: the VAD's verdict."""
        sustained = False
        for e in events:
            if e.kind == VadKind.SPEECH_ONSET:
                self._speech = _Speech(e.time, audio=list(self._preroll))
            elif e.kind == VadKind.SUSTAINED_SPEECH:
                sustained = True
            else:
                self._speech = None
        speech = self._speech
        if speech is None:
            self._keep_preroll(frame)
            return []
        speech.audio.append(np.asarray(frame, np.float32))
        if voiced:
            speech.voiced_until = end
        if sustained and agent_audible:
            speech.armed = True
        t = self.tuning
        if (
            not speech.armed
            or speech.done
            or end - speech.start > t.max_seconds + 1e-9
            or end - speech.decoded_until < t.interval - 1e-9
            or speech.voiced_until <= speech.decoded_until
            or end - speech.voiced_until > t.tail + 1e-9
        ):
            return []
        speech.decoded_until = speech.voiced_until
        self.decodes += 1
        text = self.decode(np.concatenate(speech.audio))
        speech.done = bool(text.strip()) and not is_backchannel(text)
        return [OverlapTranscript(text, speech.start, end)]

    def _keep_preroll(self, frame: np.ndarray) -> None:
        self._preroll.append(np.asarray(frame, np.float32))
        kept = sum(f.size for f in self._preroll)
        while self._preroll and kept - self._preroll[0].size >= self.tuning.preroll * RATE:
            kept -= self._preroll.popleft().size


def collapse_repeats(text: str) -> str:
    """"Okay? Okay? Okay?" -> "Okay?": a short window makes Whisper loop on one word."""
    out: list[str] = []
    for word in text.split():
        key = re.sub(r"[^a-z0-9']", "", word.lower())
        if out and key and key == re.sub(r"[^a-z0-9']", "", out[-1].lower()):
            continue
        out.append(word)
    return " ".join(out)


class WhisperGlance:
    """Greedy text of a short stretch of audio from a faster-whisper model, with the encoder
    window cut to ``window`` seconds (Whisper's is 30 s) and the app's hallucination guard."""

    def __init__(
        self,
        model: Any,
        window: float = 10.0,
        max_tokens: int = 24,
        guard: Any = None,
    ) -> None:
        from faster_whisper.tokenizer import Tokenizer

        from app.speech.asr import HallucinationGuard

        self.model = model
        self.window = window
        self.max_tokens = max_tokens
        self.guard = guard or HallucinationGuard()
        self._tokenizer = Tokenizer(model.hf_tokenizer, False, task="transcribe", language="en")
        self._prompt = [*self._tokenizer.sot_sequence, self._tokenizer.no_timestamps]

    def __call__(self, audio: np.ndarray) -> str:
        import ctranslate2

        from app.speech.asr import SegmentInfo

        n = int(self.window * RATE)
        audio = np.asarray(audio, np.float32)[:n]
        if audio.size < RATE // 10:
            return ""
        padded = np.zeros(n, np.float32)
        padded[: audio.size] = audio
        features = self.model.feature_extractor(padded, padding=0)[:, : n // 160]
        features = np.ascontiguousarray(features[None], dtype=np.float32)
        result = self.model.model.generate(
            ctranslate2.StorageView.from_array(features),
            [self._prompt],
            beam_size=1,
            max_length=self.max_tokens,
            return_scores=True,
            return_no_speech_prob=True,
        )[0]
        tokens = [t for t in result.sequences_ids[0] if t < self._tokenizer.eot]
        text = self._tokenizer.decode(tokens).strip()
        if not text:
            return ""
        raw = text.encode("utf-8")
        info = SegmentInfo(
            text,
            float(result.no_speech_prob),
            float(result.scores[0]) if result.scores else 0.0,
            len(raw) / max(1, len(zlib.compress(raw))),
        )
        voiced = audio.size / RATE
        return collapse_repeats(text) if self.guard.accept(info, voiced) else ""


def transcriber_text(transcriber: Any) -> Decode:
    """A decoder for the listener from the worker's transcriber: the quick glance when it is
    a faster-whisper model, else its ordinary ``transcribe`` (test doubles)."""
    model = getattr(transcriber, "model", None)
    if model is not None and hasattr(model, "feature_extractor"):
        return WhisperGlance(model, guard=getattr(transcriber, "guard", None))

    def text(audio: np.ndarray) -> str:
        words = transcriber.transcribe(audio, 0.0, "", audio.size / RATE)
        return join_words(words)

    return text
