"""Typed events that flow one way: speech -> backbone -> floor -> voice and UI.

All times are seconds on the session's clock (audio time for speech events). Events are
frozen so they can be shared between threads without copying.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum, StrEnum

Rect = tuple[float, float, float, float]


# --- speech -----------------------------------------------------------------------------


class VadKind(str, Enum):
    SPEECH_ONSET = "speech_onset"
    SUSTAINED_SPEECH = "sustained_speech"
    SHORT_SILENCE = "short_silence"
    LONG_SILENCE = "long_silence"


@dataclass(frozen=True)
class VadEvent:
    kind: VadKind
    time: float
    rms: float = 0.0
    self_voice: bool = False  # captured while the agent was playing


@dataclass(frozen=True)
class TurnsRecognized:
    """Every turn whose speech began before ``time`` (audio, s) has been recognized and
    sent. A turn is decoded seconds after its pause is heard; the floor waits for this
    before taking a pause, so it never speaks over words it has not read yet."""

    time: float


@dataclass(frozen=True)
class InputLevel:
    """Per-frame input level; the floor needs RMS to find a real pause."""

    time: float
    rms: float
    is_speech: bool
    # Seconds the speech path trailed the microphone when it judged this frame (0 when
    # it keeps up, or reads a file faster than real time): audio not judged yet may hold
    # someone starting to talk.
    lag: float = 0.0


@dataclass(frozen=True)
class WakeEvent:
    time: float
    speaker: str | None
    sample: int
    score: float
    source: str = "audio"  # "audio" (openWakeWord) or "text" (transcript fallback)


@dataclass(frozen=True)
class PartialTranscript:
    speaker: str | None
    text: str
    start: float
    time: float


@dataclass(frozen=True)
class OverlapTranscript:
    """Words heard so far in speech that began at ``start`` while the agent was audible,
    decoded from the audio up to ``end``; empty text: no words (a hum, a laugh, noise).
    The floor uses it to tell a backchannel from someone taking the floor."""

    text: str
    start: float
    end: float


@dataclass(frozen=True)
class Turn:
    """A committed utterance of one speaker."""

    speaker: str
    text: str
    start: float
    end: float
    direct: bool = False
    index: int = -1
    # Words the recognizer was unsure of (as written in ``text``): a name among them may
    # be misheard, so nothing is said about it as if it were what the speaker said.
    unsure: tuple[str, ...] = ()


class NameSource(StrEnum):
    """How a session speaker got its name."""

    USER = "user"  # typed in the window (or a merge carried a name over)
    VOICE = "voice"  # recognised from a voice remembered in an earlier meeting
    INTRODUCTION = "introduction"  # the speaker said their name and the user confirmed it


SPEAKER_LABEL = re.compile(r"S\d+")  # how the diarizer labels session speakers


def is_speaker_label(who: str) -> bool:
    """A session label (S1, S2, ...) rather than a name."""
    return SPEAKER_LABEL.fullmatch(who) is not None


@dataclass(frozen=True)
class SpeakerRenamed:
    speaker: str  # session label (S1, S2, ...)
    name: str
    source: NameSource = NameSource.USER
    score: float | None = None  # cosine to the remembered voice (source VOICE only)


@dataclass(frozen=True)
class NameOffered:
    """A speaker seemed to say their name ("Hi, I'm Maya"): the window offers it."""

    speaker: str  # session label
    name: str
    turn: int  # the turn's index
    text: str  # what was said


class RecordingState(StrEnum):
    """Where the kept meeting audio stands."""

    RECORDING = "recording"  # the file is open and grows with every frame heard
    STOPPED = "stopped"  # closed when listening ended: the file is complete
    FAILED = "failed"  # writing failed (disk full, ...): the file holds what came before


@dataclass(frozen=True)
class MeetingAudio:
    """The meeting's microphone audio kept on disk (opt-in: SpeechSettings
    .keep_meeting_audio); the window shows a "recording audio" indicator while its
    state is RECORDING, and ``jarvis retranscribe`` finds the file in the record."""

    path: str  # the WAV file, 16 kHz mono 16-bit; sample n is audio time n / 16000 s
    state: RecordingState
    time: float = 0.0  # audio time of the change, in seconds
    message: str = ""  # why writing failed (FAILED only)


# --- backbone ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Citation:
    sid: int
    page: int  # 1-based
    text: str
    rects: tuple[Rect, ...] = ()
    keyword: str = ""
    document: str = ""  # path of the cited document; "" = the meeting's first (or only) one
    document_title: str = ""  # its name, set when the meeting has several documents


class InterventionKind(str, Enum):
    PROACTIVE = "proactive"
    DIRECT = "direct"


class Intent(StrEnum):
    """What an intervention does for the room."""

    CORRECT = "correct"  # states the document's fact against a wrong one
    MISSING = "missing"  # gives a fact the room asked for or could not recall
    NOT_IN_DOCUMENT = "not_in_paper"  # says the document does not settle the point
    ANSWER = "answer"  # a direct answer to "Hey Jarvis, ..."
    ABSTAIN = "abstain"  # a direct question the document does not answer


@dataclass(frozen=True)
class Intervention:
    """Something the agent wants to say, with what it cites and when it was decided."""

    id: str
    kind: InterventionKind
    text: str
    claim: str = ""
    intent: str = ""  # an Intent, "" for none
    topic: str = ""
    citations: tuple[Citation, ...] = ()
    decided_turn: int = -1
    generation: int = 0
    values: tuple[str, ...] = ()  # facts it carries, for the freshness check


@dataclass(frozen=True)
class AnswerDelta:
    """A piece of a streamed direct answer; ``seq`` orders deltas of one generation.

    Only a ``checked`` piece may be played: whole sentences the backbone accepted, with
    the sentences that carry them. The ``final`` delta ends the stream; the answer's
    Intervention (the same generation) then says what remains to be said after them."""

    generation: int
    seq: int
    text: str
    final: bool = False
    citations: tuple[Citation, ...] = ()
    checked: bool = False  # accepted by the backbone's checks: safe to say


@dataclass(frozen=True)
class Decision:
    """The backbone's verdict on one turn."""

    turn: int
    action: str  # "speak" or "silent"
    reason: str
    intervention: Intervention | None = None
    claim: str = ""
    latency_ms: dict[str, float] = field(default_factory=dict)
    claim_id: int | None = None  # the ledger claim this turn's verdict counted on
    answer: str = ""  # that claim's answer as the monitor read it in the document, if any


# --- floor, voice and UI ----------------------------------------------------------------


class AgentState(str, Enum):
    IDLE = "idle"
    LISTENING = "listening"
    THINKING = "thinking"
    HAND_RAISED = "hand_raised"
    SPEAKING = "speaking"
    PAUSED = "paused"


class Setting(str, Enum):
    """A setting the user can change while the agent runs."""

    PATIENCE = "patience"  # Patience preset (the ledger's persistence threshold)
    MODE = "mode"  # FloorMode: speak at a pause or raise the hand
    VOICE_ENGINE = "voice_engine"  # TTS engine name ("kokoro", "piper")
    VOICE = "voice"  # voice name within the engine
    SPEED = "speed"  # speaking rate, a multiple of the voice's normal rate
    INPUT_DEVICE = "input_device"  # microphone name; "" = the system default
    OUTPUT_DEVICE = "output_device"  # loudspeaker name; "" = the system default
    PROACTIVE_GAP = "proactive_gap"  # seconds between proactive interventions; 0 = no limit


SettingValue = str | float


@dataclass(frozen=True)
class SettingsChanged:
    """One setting changed on the running agent; the ledger, the floor and the voice each
    apply the ones they own. Values are in the setting's own unit (see ``Setting``)."""

    setting: Setting
    old: SettingValue
    new: SettingValue
    time: float = 0.0  # session clock, seconds


class ReceiptStatus(StrEnum):
    """Where the playback of one intervention stands."""

    STARTED = "started"  # the first sample reached the speaker
    FINISHED = "finished"  # played to the end
    STOPPED = "stopped"  # cut short (barge-in, the user, a newer intervention)
    FAILED = "failed"  # the voice could not play it


@dataclass(frozen=True)
class PlaybackReceipt:
    intervention_id: str
    status: ReceiptStatus
    delivered_seconds: float = 0.0
    sentence_index: int = 0
    time: float = 0.0
