"""SpeechWorker: one thread from audio blocks to typed speech events.

Per 32 ms frame: echo cancellation against the agent's playback (while it plays, the
voicing comes from the double-talk detector on the raw mic; once its echo tail is over,
the raw mic is judged again), Silero VAD, the VAD segmenter (onset / sustained / short
and long silence, input level; a strict threshold while the agent may be heard, a lower
one with hysteresis otherwise), the wake-word model, and the turn tracker. A turn is
decoded for partials while it grows, speculatively once its silence begins, and
committed (words, speaker, wake binding) when the silence reaches the turn-end
threshold. Speech the VAD missed is looked for again by the segmentation model in the
audio outside turns heard while the agent was silent (app.speech.recovery): the silence
before a turn while its end-silence runs, and every few seconds of a silent room; what it
finds becomes turns of its own. Failures of a stage or of the device become events; the
thread keeps running.
With ``keep_meeting_audio`` on, every frame the turns are heard from is kept in a WAV file
(app.speech.recording) and its path announced as a MeetingAudio event.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from app.clock import Clock, RealClock
from app.events import (
    MeetingAudio,
    NameSource,
    PartialTranscript,
    RecordingState,
    SpeakerRenamed,
    Turn,
    WakeEvent,
)
from app.language.address import mentions_only, text_wake
from app.settings import SpeechSettings
from app.speech.asr import LocalAgreement, Word, join_words
from app.speech.audio import AudioBlock, AudioDeviceError, AudioSource
from app.speech.diarization import Diarizer, SpeakerSegment, TurnEmbedding, speaker_renames
from app.speech.doubletalk import NearEndVoice
from app.speech.echo import EchoCanceller, SelfVoiceReference
from app.speech.events import DeviceStatus, SpeechError
from app.speech.overlap import OverlapListener, transcriber_text
from app.speech.partials import DecodeLoad, PartialSchedule
from app.speech.recording import MeetingAudioWriter, recording_path
from app.speech.recovery import MissedSpeech, Stretch
from app.speech.segmentation import speech_spans
from app.speech.turns import TurnAction, TurnStep, TurnTracker
from app.speech.vad import SileroVad, VadSegmenter, rms
from app.speech.wake import WakeHit, WakeRetracted, WakeWordDetector

log = logging.getLogger(__name__)

Subscriber = Callable[[object], None]
RATE = 16000


@dataclass(frozen=True)
class SpeechTuning:
    """Engineering knobs of the worker (the product parameters live in SpeechSettings)."""

    partial_interval: float = 1.0  # seconds of new audio between partial decodes, at least
    partial_share: float = 0.25  # the most of real time partial decodes may take (0-1)
    max_partial_lag: float = 0.3  # skip a partial when this far behind the microphone
    speculate_after: float = 0.15  # silence before the final decode starts
    speculate_max_load: float = 0.5  # no speculation while decodes take this share of time
    preroll: float = 0.2  # audio kept before the first voiced frame
    max_turn: float = 15.0  # a longer monologue is committed in pieces
    min_voiced: float = 0.25  # less voiced audio than this is never a turn
    # A turn with this much voiced audio that decodes to no words under the prompt is
    # read once more without it (SpeechSettings.asr_retry_without_prompt).
    unprompted_retry_voiced: float = 1.0
    device_retry: float = 1.0
    read_timeout: float = 0.1
    partials: bool = True


@dataclass
class _OpenTurn:
    start: float
    audio: list[np.ndarray] = field(default_factory=list)
    agreement: LocalAgreement = field(default_factory=LocalAgreement)
    voiced: float = 0.0
    last_partial: float = 0.0
    spec_words: list[Word] | None = None
    spec_embedding: TurnEmbedding | None = None
    voiced_spans: list[list[float]] = field(default_factory=list)
    missed: list[Stretch] | None = None  # speech the VAD missed before it, once looked at

    def mark_voiced(self, start: float, end: float) -> None:
        if self.voiced_spans and start - self.voiced_spans[-1][1] < 0.05:
            self.voiced_spans[-1][1] = end
        else:
            self.voiced_spans.append([start, end])

    def heard(self, word: Word, slack: float = 0.25) -> bool:
        """Did the VAD hear voice around this word? Words in silence are invented."""
        return any(a - slack <= word.end and word.start <= b + slack for a, b in self.voiced_spans)

    def samples(self) -> np.ndarray:
        return np.concatenate(self.audio) if self.audio else np.zeros(0, np.float32)


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
        self._merges_announced: set[str] = set()
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
        s = self.settings
        self.tracker = TurnTracker(s.turn_end_silence, s.turn_watchdog, self.tuning.speculate_after)
        self._subscribers: list[Subscriber] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._turn: _OpenTurn | None = None
        self._preroll: list[np.ndarray] = []
        self._wake_hits: list[tuple[WakeHit, str | None]] = []
        self._turn_index = 0
        self._pending_text_wake = False
        self._context = ""  # recent committed text, the decoding prompt
        self._said_until = 0.0  # audio time the last emitted turn ended
        self._started_wall: float | None = None
        self._started_work: float | None = None  # work clock at audio time 0
        self._frame_carry = np.zeros(0, np.float32)
        self._next_sample = 0  # the stamp the next block should carry
        # Where the meeting audio goes when kept (default: a new file in the data folder).
        self.audio_path = audio_path
        self._kept: MeetingAudioWriter | None = None
        self.stats: dict[str, float] = {"frames": 0, "busy_seconds": 0.0}
        self._partials = PartialSchedule(self.tuning.partial_interval, self.tuning.partial_share)
        self._load = DecodeLoad(limit=self.tuning.speculate_max_load)
        self._missed: MissedSpeech | None = None  # speech the VAD missed, found again
        if s.recover_missed_speech:
            keep = self.tuning.max_turn + s.recover_window + 1.0  # a turn and a window
            self._missed = MissedSpeech(
                self._speech_spans, s.recover_window, s.recover_min_speech, s.turn_end_silence,
                keep=keep, min_snr_db=s.recover_min_snr_db,
            )  # fmt: skip
        self._last_look = 0.0  # audio time the missed speech was last looked for

    # --- wiring -------------------------------------------------------------------------

    def subscribe(self, fn: Subscriber) -> None:
        self._subscribers.append(fn)

    def _emit(self, event: object) -> None:
        for fn in list(self._subscribers):
            try:
                fn(event)
            except Exception:  # a faulty subscriber must not stop the ears
                log.exception("speech subscriber failed on %r", type(event).__name__)

    def _announce_merges(self) -> None:
        for event in speaker_renames(self.diarizer.clusters, self._merges_announced):
            self._emit(event)

    def rename(self, speaker: str, name: str, source: NameSource = NameSource.USER) -> None:
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
                self._steps(self.tracker.tick(self.work_clock.now()))
                continue
            busy = self.work_clock.now()
            try:
                self._on_block(block)
            except Exception as exc:  # a bad block or model hiccup must not end listening
                log.exception("speech frame processing failed")
                self._emit(SpeechError("frame", str(exc), block.time))
            self.stats["busy_seconds"] += self.work_clock.now() - busy
        self._steps(self.tracker.flush())
        now = self.segmenter.time
        for stretch in self._find_missed(now, now, hold=False):
            self._commit_missed(stretch)
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
        self._steps(self.tracker.flush())  # what was said before the loss still counts
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
        self._feed_wake(frame, sample)
        self._collect(frame if said is None else said, voiced, dur)
        if self._missed is not None:
            self._missed.hear(frame if said is None else said, t0 + dur, not recent)
        self._steps(self.tracker.update(t0, t0 + dur, voiced, self.work_clock.now()))
        self._look_in_silence(t0 + dur, recent)
        self._maybe_partial(t0 + dur)
        if self._turn is not None and t0 + dur - self._turn.start >= self.tuning.max_turn:
            self._steps(self.tracker.flush())  # commit a monologue in pieces
        self.stats["frames"] += 1

    def _collect(self, frame: np.ndarray, voiced: bool, dur: float) -> None:
        turn = self._turn
        if turn is None:
            self._preroll.append(frame)
            keep = max(1, int(self.tuning.preroll * RATE / frame.size))
            del self._preroll[:-keep]
            return
        turn.audio.append(frame)
        if voiced:
            end = turn.start + sum(f.size for f in turn.audio) / RATE
            turn.mark_voiced(end - dur, end)
            turn.voiced += dur

    def _feed_wake(self, frame: np.ndarray, sample: int) -> None:
        if self.wake is None:
            return
        for hit in self.wake.feed(frame, sample):
            speaker = self._guess_speaker(hit)
            self._wake_hits.append((hit, speaker))
            self._emit(WakeEvent(hit.time, speaker, hit.sample, hit.score, "audio"))

    def _guess_speaker(self, hit: WakeHit) -> str | None:
        turn = self._turn
        if turn is None:
            return self.diarizer.identify(np.zeros(0, np.float32))
        audio = turn.samples()[-int(1.5 * RATE) :]
        try:
            return self.diarizer.identify(audio)
        except Exception as exc:
            self._emit(SpeechError("diarization", str(exc), hit.time))
            return None

    # --- turns --------------------------------------------------------------------------

    def _steps(self, steps: list[TurnStep]) -> None:
        for step in steps:
            try:
                self._step(step)
            except Exception as exc:  # a model failure loses one turn, not the worker
                log.exception("turn step %s failed", step.action)
                self._emit(SpeechError("turn", str(exc), step.end))
                if step.action is TurnAction.CLOSE:
                    self._turn = None

    def _step(self, step: TurnStep) -> None:
        if step.action is TurnAction.OPEN:
            start = step.start - sum(f.size for f in self._preroll) / RATE
            self._turn = _OpenTurn(max(0.0, start), audio=list(self._preroll))
            self._turn.voiced = step.end - step.start
            self._turn.mark_voiced(step.start, step.end)
            self._turn.last_partial = step.end
            self._preroll = []
        elif self._turn is None:
            return
        elif step.action is TurnAction.SPECULATE:
            self._look_before(self._turn)  # while the turn-end silence runs, not after it
            self._speculate(self._turn, step)
        elif step.action is TurnAction.RESUME:
            self._turn.spec_words = self._turn.spec_embedding = None
        elif step.action is TurnAction.CLOSE:
            turn, self._turn = self._turn, None
            if self._missed is not None:
                self._look_before(turn)
                for stretch in turn.missed or []:
                    self._commit_missed(stretch)
                self._missed.skip_to(step.end)  # the silence after it is looked at later
            self._commit(turn, step)

    # --- speech the VAD missed (app.speech.recovery) ------------------------------------

    def _speech_spans(self, audio: np.ndarray) -> list[tuple[float, float]]:
        return speech_spans(self.diarizer.segmenter.activity(audio))

    def _find_missed(self, until: float, end: float, hold: bool) -> list[Stretch]:
        """Speech found between the last turn or look and ``until``, the model reading
        the audio up to ``end`` (app.speech.recovery.MissedSpeech.examine)."""
        if self._missed is None:
            return []
        try:
            return self._missed.examine(until, end, hold)
        except Exception as exc:  # the VAD's turns go on without the second look
            log.exception("looking for missed speech failed")
            self._emit(SpeechError("recovery", str(exc), until))
            return []

    def _look_in_silence(self, now: float, recent: bool) -> None:
        """Every few seconds while nobody holds a turn and the agent is silent; the end of
        what the model reads is looked at again next time, with what follows as context."""
        every = self.settings.recover_every
        if self._turn is not None or recent or now - self._last_look < every:
            return
        self._last_look = now
        for stretch in self._find_missed(now - every / 2, now, hold=True):
            self._commit_missed(stretch)

    def _look_before(self, turn: _OpenTurn) -> None:
        """The silence before a turn, read with the turn's start as context (once)."""
        if self._missed is not None and turn.missed is None:
            context = turn.start + self._missed.window / 2
            turn.missed = self._find_missed(turn.start, context, hold=False)

    def _commit_missed(self, stretch: Stretch) -> None:
        assert self._missed is not None
        turn = _OpenTurn(stretch.start, audio=[self._missed.audio(stretch.start, stretch.end)])
        for a, b in stretch.spans:
            turn.mark_voiced(a, b)
        turn.voiced = stretch.seconds
        try:
            self._commit(turn, TurnStep(TurnAction.CLOSE, stretch.start, stretch.end))
        except Exception as exc:  # a model failure loses this turn, not the worker
            log.exception("a turn of missed speech failed")
            self._emit(SpeechError("turn", str(exc), stretch.end))

    def _decode(
        self, turn: _OpenTurn, final: bool = False
    ) -> tuple[list[Word], np.ndarray, float]:
        """The turn's words, the audio decoded and the seconds the decode took; ``final``:
        the words the turn commits (a speculative or closing decode, not a partial)."""
        # Whisper pads every call to 30 s, so re-reading the whole turn costs the same as
        # a tail and keeps the words' context (max_turn bounds it). Trailing silence is
        # cut to 0.2 s: Whisper fills longer silence with stock phrases. The prompt is
        # what came before this turn: prompting with the turn's own words skips them.
        audio = turn.samples()
        if turn.voiced_spans:
            audio = audio[: int((turn.voiced_spans[-1][1] + 0.2 - turn.start) * RATE)]
        began = self.work_clock.now()
        words = self.transcriber.transcribe(audio, turn.start, self._context, turn.voiced)
        words = [w for w in words if turn.heard(w)]
        if not words and final and self._context and self._retry_unprompted(turn):
            # The small model, led by a prompt, can return nothing at all for seconds of
            # clear speech it reads well alone; that much voice is not silence.
            words = self.transcriber.transcribe(audio, turn.start, "", turn.voiced)
            words = [w for w in words if turn.heard(w)]
        seconds = self.work_clock.now() - began
        self._load.spent(turn.start + audio.size / RATE, seconds)
        return words, audio, seconds

    def _retry_unprompted(self, turn: _OpenTurn) -> bool:
        return (
            self.settings.asr_retry_without_prompt
            and turn.voiced >= self.tuning.unprompted_retry_voiced
        )

    def _speculate(self, turn: _OpenTurn, step: TurnStep) -> None:
        if not self._load.room(step.end):
            return  # near the machine's limit: the turn is decoded once, when it closes
        words, audio, _ = self._decode(turn, final=True)
        turn.spec_words = words
        speech = audio[: int((step.end - turn.start) * RATE)]
        turn.spec_embedding = self.diarizer.embed(speech) if speech.size else None

    def _maybe_partial(self, now: float) -> None:
        turn = self._turn
        if turn is None or not self.tuning.partials or turn.spec_words is not None:
            return
        if not self._partials.due(now - turn.last_partial):
            return
        if self._lag(now) > self.tuning.max_partial_lag:
            return  # behind the microphone: partials wait, the turn end must not
        turn.last_partial = now
        words, _, seconds = self._decode(turn)
        self._partials.spent(seconds)
        turn.agreement.insert(words)
        text = join_words([*turn.agreement.committed, *turn.agreement.pending])
        if text:
            speaker = self.diarizer.identify(turn.samples()[-int(1.5 * RATE) :])
            self._emit(PartialTranscript(speaker, text, turn.start, now))

    def _lag(self, audio_time: float) -> float:
        """How far processing trails capture (live or real-time sources; < 0 when fast)."""
        if self._started_work is None:
            return 0.0
        return (self.work_clock.now() - self._started_work) - audio_time

    def _commit(self, turn: _OpenTurn, step: TurnStep) -> None:
        if turn.voiced < self.tuning.min_voiced:
            return
        words = turn.spec_words
        if words is None:
            words, _, _ = self._decode(turn, final=True)
        turn.agreement.finish(words)
        committed = turn.agreement.committed
        if not committed:
            return
        self._context = (self._context + " " + join_words(committed))[-200:]
        speech = turn.samples()[: max(1, int((step.end - turn.start) * RATE))]
        embedding = turn.spec_embedding or self.diarizer.embed(speech)
        _, segments = self.diarizer.label(embedding, turn.start)
        self._announce_merges()
        for segment in segments:
            self._emit(segment)
        wake_time = self._wake_time(turn.start, step.end, join_words(committed), committed)
        for speaker, group in split_by_speaker(committed, segments):
            start = turn.start if group is committed or group[0] is committed[0] else group[0].start
            end = step.end if group[-1] is committed[-1] else group[-1].end
            # Turns never overlap: a turn's pre-roll or Whisper's word times can reach back
            # into the turn before.
            start = min(max(start, self._said_until), end)
            self._said_until = end
            direct = wake_time is not None and start - 0.3 <= wake_time <= end + 0.3
            self._turn_index += 1
            unsure = tuple(w.text for w in group
                           if w.probability < self.settings.asr_unsure_probability)
            turn_event = Turn(speaker, join_words(group), start, end, direct, self._turn_index,
                              unsure)
            if direct and wake_time is not None:
                self._announce_text_wake(turn_event, wake_time)
            self._emit(turn_event)

    def _wake_time(self, start: float, end: float, text: str, words: list[Word]) -> float | None:
        """When the turn addressed Jarvis (audio hit or transcript), or None."""
        inside = [h for h, _ in self._wake_hits if start - 0.3 <= h.time <= end + 0.3]
        self._wake_hits = [(h, s) for h, s in self._wake_hits if h.time > end + 0.3]
        self._pending_text_wake = not inside
        if inside and mentions_only(text):
            self._emit(WakeRetracted(inside[0].time, None, text))
            return None
        if inside:
            return inside[0].time
        index = text_wake(text)
        if index is None:
            return None
        return words[min(index, len(words) - 1)].end

    def _announce_text_wake(self, turn: Turn, time: float) -> None:
        if self._pending_text_wake:
            self._pending_text_wake = False
            self._emit(WakeEvent(time, turn.speaker, int(time * RATE), 1.0, "text"))


def split_by_speaker(
    words: list[Word], segments: list[SpeakerSegment]
) -> list[tuple[str, list[Word]]]:
    """Group consecutive words by the speaker segment holding each word's midpoint."""
    groups: list[tuple[str, list[Word]]] = []
    for word in words:
        mid = (word.start + word.end) / 2
        speaker = segments[-1].speaker
        for seg in segments:
            if mid < seg.end:
                speaker = seg.speaker
                break
        if groups and groups[-1][0] == speaker:
            groups[-1][1].append(word)
        else:
            groups.append((speaker, [word]))
    return groups
