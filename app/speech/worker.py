"""SpeechWorker: from audio blocks to typed speech events, the frames judged in real time.

The frame side (this module, on the worker's thread) judges each 32 ms frame as it
arrives: echo cancellation against the agent's playback (while it plays, the voicing
comes from the double-talk detector on the raw mic; once its echo tail is over, the raw
mic is judged again), Silero VAD, the VAD segmenter (onset / sustained / short and long
silence, input level; a strict threshold while the agent may be heard, a lower one with
hysteresis otherwise), the words heard over the agent, and the wake-word model. What it
heard goes on to the turn stage (app.speech.turn_stage), which makes the turns: their
decodes take seconds, so in the app the stage runs on a thread of its own and a pause is
heard when it happens. Failures of a stage or of the device become events; both threads
keep running.
With ``keep_meeting_audio`` on, every frame the turns are heard from is kept in a WAV file
(app.speech.recording) and its path announced as a MeetingAudio event.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from app.clock import Clock, RealClock
from app.events import MeetingAudio, NameSource, RecordingState, SpeakerRenamed, WakeEvent
from app.settings import SpeechSettings
from app.speech.audio import AudioBlock, AudioDeviceError, AudioSource
from app.speech.diarization import Diarizer
from app.speech.doubletalk import NearEndVoice
from app.speech.echo import EchoCanceller, SelfVoiceReference
from app.speech.events import DeviceStatus, SpeechError
from app.speech.handoff import ThreadHandoff
from app.speech.overlap import OverlapListener, transcriber_text
from app.speech.recording import MeetingAudioWriter, recording_path
from app.speech.turn_stage import (
    RATE,
    AudioStopped,
    HeardFrame,
    Quiet,
    StageInput,
    StreamEnded,
    TurnStage,
    TurnTuning,
)
from app.speech.vad import SileroVad, VadSegmenter, rms
from app.speech.wake import WakeHit, WakeWordDetector

log = logging.getLogger(__name__)

Subscriber = Callable[[object], None]
WAKE_SPEAKER_S = 1.5  # seconds of audio before a wake word its speaker is told by


@dataclass(frozen=True)
class SpeechTuning:
    """Engineering knobs of the worker (the product parameters live in SpeechSettings)."""

    device_retry: float = 1.0  # seconds between attempts to reopen a lost device
    read_timeout: float = 0.1  # seconds a read waits for audio before the watchdog looks
    turns_drain: float = 60.0  # seconds the turn stage may take to finish at the end
    turns: TurnTuning = TurnTuning()


class SpeechWorker:
    def __init__(
        self,
        source: AudioSource,
        settings: SpeechSettings | None = None,
        *,
        transcriber: Any = None,
        diarizer: Diarizer | None = None,
        wake: WakeWordDetector | None = None,
        vad: Callable[[np.ndarray], float] | None = None,
        reference: SelfVoiceReference | None = None,
        clock: Clock | None = None,
        tuning: SpeechTuning | None = None,
        clock_origin: float | None = None,
        audio_path: Path | None = None,
        work_clock: Clock | None = None,
    ) -> None:
        from app.speech.asr import WhisperTranscriber

        self.settings = settings or SpeechSettings()
        self.tuning = tuning or SpeechTuning()
        self.source = source
        self.clock = clock or RealClock()
        # The worker's own pace (lag behind capture, decode cost, the turn watchdog) is
        # measured on this clock; ``clock`` may follow the audio, which cannot show lag.
        self.work_clock = work_clock or self.clock
        self.transcriber = transcriber or WhisperTranscriber(settings=self.settings)
        self.diarizer = diarizer or Diarizer(
            threshold=self.settings.speaker_match_cosine,
            change_window=self.settings.speaker_change_window,
            change_margin=self.settings.speaker_change_margin,
        )
        self.wake = wake
        self.vad = vad or SileroVad()
        self.reference = reference
        # Clock time of audio time 0, to match the player's on_played times; by default
        # the clock reading when capture started.
        self.clock_origin = clock_origin
        self._aec: EchoCanceller | None = None
        self._near_end: NearEndVoice | None = None
        self._overlap: OverlapListener | None = None  # words heard over the agent
        self.segmenter = VadSegmenter(self.settings)
        self._subscribers: list[Subscriber] = []
        self._emitting = threading.RLock()  # subscribers hear one event at a time
        self._speakers = threading.RLock()  # the diarizer, asked by both threads
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._recent: deque[np.ndarray] = deque()  # the last WAKE_SPEAKER_S of turn audio
        self._recent_samples = 0
        self._started_wall: float | None = None
        self._started_work: float | None = None  # work clock at audio time 0
        self._frame_carry = np.zeros(0, np.float32)
        self._next_sample = 0  # the stamp the next block should carry
        # Where the meeting audio goes when kept (default: a new file in the data folder).
        self.audio_path = audio_path
        self._kept: MeetingAudioWriter | None = None
        self.stats: dict[str, float] = {"frames": 0, "busy_seconds": 0.0}
        self.turns = TurnStage(
            self.settings, self.tuning.turns, self.transcriber, self.diarizer, self._emit,
            self.work_clock, self._lag, self._speakers,
        )  # fmt: skip
        self._handoff: ThreadHandoff[StageInput] = ThreadHandoff(self.turns.take)

    # --- wiring -------------------------------------------------------------------------

    def subscribe(self, fn: Subscriber) -> None:
        self._subscribers.append(fn)

    def _emit(self, event: object) -> None:
        with self._emitting:
            for fn in list(self._subscribers):
                try:
                    fn(event)
                except Exception:  # a faulty subscriber must not stop the ears
                    log.exception("speech subscriber failed on %r", type(event).__name__)

    def rename(self, speaker: str, name: str, source: NameSource = NameSource.USER) -> None:
        with self._speakers:
            self.diarizer.rename(speaker, name)
        self._emit(SpeakerRenamed(speaker, name, source))

    # --- thread -------------------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self.run, name="speech-worker", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)
        self.source.stop()

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def run(self) -> None:
        """Read until the source is exhausted or ``stop`` is called."""
        if not self._start_source():
            return
        self._handoff.start()
        self._open_kept_audio()
        while not self._stop.is_set():
            try:
                block = self.source.read(self.tuning.read_timeout)
            except AudioDeviceError as exc:
                self._on_device_lost(exc)
                continue
            if block is None:
                if self.source.finished:
                    break
                self._handoff.put(Quiet(self.work_clock.now()))
                continue
            busy = self.work_clock.now()
            try:
                self._on_block(block)
            except Exception as exc:  # a bad block or model hiccup must not end listening
                log.exception("speech frame processing failed")
                self._emit(SpeechError("frame", str(exc), block.time))
            self.stats["busy_seconds"] += self.work_clock.now() - busy
        self._handoff.put(StreamEnded(self.segmenter.time))
        if not self._handoff.close(self.tuning.turns_drain):
            log.warning("the turn stage did not finish in %.0f s", self.tuning.turns_drain)
        self._close_kept_audio()
        self._emit(DeviceStatus("stopped", "", self.segmenter.time))

    def _start_source(self) -> bool:
        while not self._stop.is_set():
            try:
                self.source.start()
                self._started_wall = self.clock.now() - self.segmenter.time
                self._started_work = self.work_clock.now() - self.segmenter.time
                self._emit(DeviceStatus("running", "", self.segmenter.time))
                return True
            except AudioDeviceError as exc:
                self._emit(DeviceStatus("lost", exc.user_message, self.segmenter.time))
                self._stop.wait(self.tuning.device_retry)
        return False

    def _on_device_lost(self, exc: AudioDeviceError) -> None:
        self._handoff.put(AudioStopped())  # what was said before the loss still counts
        self._emit(DeviceStatus("lost", exc.user_message, self.segmenter.time))
        self._stop.wait(self.tuning.device_retry)
        self._start_source()

    # --- kept meeting audio --------------------------------------------------------------

    def _open_kept_audio(self) -> None:
        if not self.settings.keep_meeting_audio or self._kept is not None:
            return
        path = self.audio_path or recording_path(datetime.now())
        try:
            self._kept = MeetingAudioWriter(path, RATE)
        except OSError as exc:
            self._kept_audio_failed(Path(path), exc)
            return
        self._emit(MeetingAudio(str(path), RecordingState.RECORDING, self.segmenter.time))

    def _keep_audio(self, frame: np.ndarray, sample: int) -> None:
        kept = self._kept
        if kept is None:
            return
        try:
            kept.write(frame, sample)
        except OSError as exc:  # a full disk costs the recording, never the meeting
            self._kept = None
            self._kept_audio_failed(kept.path, exc)

    def _kept_audio_failed(self, path: Path, exc: OSError) -> None:
        message = f"The meeting audio could not be written to {path}: {exc}"
        log.error("%s", message)
        now = self.segmenter.time
        self._emit(SpeechError("recording", message, now))
        self._emit(MeetingAudio(str(path), RecordingState.FAILED, now, message))

    def _close_kept_audio(self) -> None:
        kept, self._kept = self._kept, None
        if kept is None:
            return
        try:
            kept.close()
        except OSError as exc:
            self._kept_audio_failed(kept.path, exc)
            return
        self._emit(MeetingAudio(str(kept.path), RecordingState.STOPPED, self.segmenter.time))

    # --- per frame ----------------------------------------------------------------------

    def _on_block(self, block: AudioBlock) -> None:
        # Blocks the source dropped leave a gap in the stamps; it is heard as silence, so
        # the turn clock, the echo reference and the kept audio stay on the room's time.
        gap = np.zeros(max(0, block.sample - self._next_sample), np.float32)
        samples = np.concatenate([self._frame_carry, gap, block.samples])
        first = block.sample - gap.size - self._frame_carry.size
        self._next_sample = block.sample + block.samples.size
        n = self.settings.frame_samples
        for i in range(0, samples.size - n + 1, n):
            self._on_frame(samples[i : i + n], first + i)
        used = (samples.size // n) * n
        self._frame_carry = samples[used:]

    def _on_frame(self, frame: np.ndarray, sample: int) -> None:
        t0, dur = sample / RATE, frame.size / RATE
        self_voice = recent = False
        near: float | None = None
        heard = frame  # the signal the VAD judges
        said: np.ndarray | None = None  # the turn's audio where it is not ``frame``
        if self.reference is not None and self.reference.ever_played:
            origin = self.clock_origin
            if origin is None:
                origin = self._started_wall or 0.0
            at = origin + t0
            self_voice = self.reference.playing(at, at + dur)
            recent = self_voice or self.reference.playing(at - 0.5, at + dur)
            if self._aec is None:
                self._aec = EchoCanceller()
                self._near_end = NearEndVoice()
                self._overlap = OverlapListener(transcriber_text(self.transcriber))
            ref = self.reference.reference(at, frame.size)
            raw, cancelled = frame, self._aec.process(frame, ref)
            # AEC3 keeps adapting on every frame, but its output costs a participant's
            # quiet speech even when nothing plays: only while the agent's echo may be
            # in the room is the cancelled signal the one judged.
            if recent or not self.settings.echo_bypass_idle:
                frame = heard = cancelled
            if self_voice and self._near_end is not None:
                # AEC3 suppresses a participant who talks over the agent; while it
                # plays, voicing comes from the double-talk detector instead.
                near = self._near_end(raw, ref, dur)
                heard = self._near_end.detector.residual
                if near > 0.0 and self.settings.overlap_turn_residual:
                    said = heard  # the participant's words, as the turn hears them
        self._keep_audio(frame, sample)
        prob = self.vad(frame)
        if near is not None:
            prob = near
        level = rms(frame)
        events = self.segmenter.update(dur, prob, level, self_voice, recent)
        for event in events:
            self._emit(event)
        voiced = False
        judged = self.segmenter.last_level
        if judged is not None:
            voiced = judged.is_speech
            self._emit(replace(judged, lag=max(0.0, self._lag(judged.time))))
        if self._overlap is not None:
            # Speech over the agent: what it says decides whether it takes the floor.
            for transcript in self._overlap.update(heard, t0 + dur, events, recent, voiced):
                self._emit(transcript)
        heard_frame = frame if said is None else said
        self._keep_recent(heard_frame)
        wakes = self._feed_wake(frame, sample)
        now = self.work_clock.now()
        self._handoff.put(HeardFrame(heard_frame, t0, dur, voiced, recent, now, wakes))
        self.stats["frames"] += 1

    def _keep_recent(self, frame: np.ndarray) -> None:
        self._recent.append(frame)
        self._recent_samples += frame.size
        while self._recent_samples - self._recent[0].size >= WAKE_SPEAKER_S * RATE:
            self._recent_samples -= self._recent.popleft().size

    def _feed_wake(self, frame: np.ndarray, sample: int) -> tuple[tuple[WakeHit, str | None], ...]:
        if self.wake is None:
            return ()
        wakes = []
        for hit in self.wake.feed(frame, sample):
            speaker = self._guess_speaker(hit)
            wakes.append((hit, speaker))
            self._emit(WakeEvent(hit.time, speaker, hit.sample, hit.score, "audio"))
        return tuple(wakes)

    def _guess_speaker(self, hit: WakeHit) -> str | None:
        """Who said the wake word: the known voice nearest to the audio just heard."""
        audio = np.concatenate(self._recent) if self._recent else np.zeros(0, np.float32)
        try:
            with self._speakers:
                return self.diarizer.identify(audio)
        except Exception as exc:
            self._emit(SpeechError("diarization", str(exc), hit.time))
            return None

    def _lag(self, audio_time: float) -> float:
        """How far processing trails capture (live or real-time sources; < 0 when fast)."""
        if self._started_work is None:
            return 0.0
        return (self.work_clock.now() - self._started_work) - audio_time
