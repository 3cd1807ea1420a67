"""Every tunable parameter of the product, as frozen dataclasses.

Each section belongs to one concern (document, llm, ledger/gate, floor, speech, voice).
Values are the deployed defaults from the product specification; code never hard-codes
them, so tests can build variants with ``dataclasses.replace``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, StrEnum


class Patience(str, Enum):
    """How long the agent lets the group fix a problem itself (persistence threshold)."""

    ENTHUSIASTIC = "enthusiastic"
    DEFAULT = "default"
    DEFERENT = "deferent"

    @property
    def tau(self) -> int:
        return {"enthusiastic": 1, "default": 2, "deferent": 3}[self.value]


class UtteranceStyle(str, Enum):
    FULL = "full"
    PAGE_ONLY = "page_only"
    OFF = "off"


class FloorMode(str, Enum):
    SPEAK = "speak"
    HAND_RAISE = "hand_raise"


class ContextMode(str, Enum):
    AUTO = "auto"
    FULL = "full"
    FOCUSED = "focused"


@dataclass(frozen=True)
class DocumentSettings:
    min_sentence_tokens: int = 5
    max_pages: int = 500
    max_file_mb: int = 200
    # Lines repeated on at least this share of pages at the same place are running heads.
    running_line_min_share: float = 0.5


@dataclass(frozen=True)
class LLMStageSettings:
    temperature: float
    max_tokens: int


@dataclass(frozen=True)
class LLMSettings:
    context_tokens: int = 16384
    # llama.cpp threads. None: $JARVIS_LLM_THREADS, else the model's share of the physical
    # cores; speech recognition keeps its own share (app/cores.py, measured by
    # benchmarks/thread_split.py) so neither starves the other.
    threads: int | None = None
    # llama.cpp threads for a batch of more than one token (reading a prompt, checking a
    # draft). None: $JARVIS_LLM_THREADS, else every physical core (app/cores.py); never
    # llama-cpp-python's own default of every logical CPU.
    batch_threads: int | None = None
    gpu_layers: int = -1
    seed: int = 7
    monitor: LLMStageSettings = LLMStageSettings(0.1, 1024)
    self_repair: LLMStageSettings = LLMStageSettings(0.1, 256)
    generate: LLMStageSettings = LLMStageSettings(0.7, 256)
    direct: LLMStageSettings = LLMStageSettings(0.7, 256)
    context_mode: ContextMode = ContextMode.AUTO
    focused_top_k: int = 6
    # Cached runs of at least this many tokens that the next prompt repeats at another
    # position are shifted there instead of read again (a sliding transcript window);
    # 0 reuses only the leading run the prompts share.
    reuse_min_tokens: int = 32
    # Speculative decoding: up to this many tokens guessed from the prompt and the reply
    # so far (app/llm/draft.py) are checked in one batched step; 0 decodes one at a time.
    # On a broad-set replay the outcomes per event type were the same with 4 and 0, and
    # monitor calls took a median 11% less.
    draft_tokens: int = 4


class Detector(StrEnum):
    """The deterministic checks that propose a problem to the monitor."""

    NUMBER = "number"  # a number the turn gives differs from the document's for it
    NAME = "name"  # a restatement of a document sentence with one name or term swapped
    OPEN_QUESTION = "open_question"  # a question the replies left open
    ABSENT = "absent"  # a finding stated with names the document never uses


class AnswerCheck(StrEnum):
    """The checks a generated intervention passes before it is said
    (app/backbone/intervene.py). Each can be left out for an ablation; a meeting runs all."""

    FORCED_ANSWER = "forced_answer"  # an answer to an open question is its answer sentence's
    GROUNDED = "grounded"  # every sentence is carried by the cited or shown sentences
    VALUE = "value"  # a value checked in the sentences beforehand is in what is said
    COVERAGE = "coverage"  # a missing fact is said from a sentence about what was asked


@dataclass(frozen=True)
class LedgerSettings:
    """Claim ledger and gate (SPEC §4)."""

    match_cosine: float = 0.6
    patience: Patience = Patience.DEFAULT
    cooldown_turns: int = 6
    max_rollbacks: int = 2
    forget_closed_after: int = 3
    forget_open_after: int = 10
    near_duplicate_cosine: float = 0.5
    near_duplicate_window: int = 10
    transcript_window: int = 10
    direct_context_turns: int = 8
    guard_window_turns: int = 3
    guard_min_token_share: float = 0.6
    # False reproduces the paper's ablation: no gate, no self-repair, speak when actionable.
    deference: bool = True
    # Run the monitor only on turns a detector, a question, an attribution or an open claim
    # makes worth checking. None: on in focused (small-model, CPU) mode, off in full mode.
    screen_turns: bool | None = None
    # Where the screening runs, a turn none of whose content words the document uses
    # (compared by their first OFF_DOCUMENT_PREFIX letters, so "recruit" meets "recruited")
    # is talk about something else: silent as "off_document", no monitor call. A turn with
    # fewer than this many shared words is off the document; 0 turns the check off.
    off_document_min_shared: int = 1  # content words
    # A later turn that cannot fix a claim a detector confirmed, still waiting at the gate,
    # counts as the room letting it stand (persistence +1): a screened-out turn (no monitor
    # call: the screening knows it asks nothing and cannot fix it), or a monitored one whose
    # verdict is about something else while no recent turn holds the fix. False: only a
    # verdict on the claim counts, and a claim the next calls pass over never reaches the
    # gate. Claims of the monitor's alone always need a second verdict.
    count_standing_turns: bool = True
    # A later turn that a detector flags with the same wrong value or term as a claim it
    # confirmed, still waiting at the gate, counts as raising it again (persistence +1)
    # without a monitor call, unless the turn asks about it, sets the value aside ("not
    # 164K") or holds the fix. False: the monitor judges the repetition.
    count_restated: bool = True
    # A question the monitor judged a missing fact that the very next turn answers with "I
    # don't know" or a move to something else counts that reply as a second report, even
    # without a detector's confirmation (the answer checks still decide what is said).
    # False: such a question needs a second verdict of its own.
    count_unanswered: bool = True
    # Before a correction or a "the document doesn't report that", stay silent when a
    # document sentence about the same matter states every value and name the turns that
    # raised the claim gave (app/backbone/veto.py). False: the monitor's verdict stands.
    correction_veto: bool = True
    # A claim the agent would correct (a wrong value, a misattribution) that the last
    # turns fix by the guard's own rules (the document's value stated, or a retraction) is
    # closed without asking the model: the speaker corrected themself, and a missed
    # self-repair would contradict them. False: the model must propose every closure.
    guard_closes_corrections: bool = True
    # An intervention the room heard to the end answers its claim: the claim closes as
    # fixed by the agent, so the model is never asked whether the agent's own checked words
    # fixed it. False: the agent's words join the transcript and self-repair judges them.
    close_heard_claims: bool = True
    # The detectors whose proposals the monitor sees (app/backbone/detectors.py); leaving
    # one out is the ablation of what it buys.
    detectors: tuple[Detector, ...] = tuple(Detector)

    @property
    def tau(self) -> int:
        return self.patience.tau


@dataclass(frozen=True)
class UtteranceSettings:
    style: UtteranceStyle = UtteranceStyle.FULL
    max_words_correction: int = 25
    max_words_misattribution: int = 20
    max_sentences_direct: int = 3
    abstain_text: str = "That isn't covered in the document."
    # A direct question that asks for a date or a quantity ("when was ...?", "how many
    # ...?") is answered only by a sentence that gives one (app/language/asked.py); an
    # answer without one is an abstention. False: any checked sentence answers.
    direct_value_check: bool = True
    # The checks a proactive intervention passes before it is said (all: leaving one out
    # is the ablation of what it buys).
    answer_checks: tuple[AnswerCheck, ...] = tuple(AnswerCheck)
    # A missing fact whose value was checked in a document sentence (the sentence holds
    # it verbatim) is said as that sentence's words, with no generation call: seconds
    # sooner on a CPU, and never a value spliced onto the tail of a clause (corrections:
    # ``quote_corrections``). False: the model writes every missing fact.
    quote_checked_values: bool = True
    # A correction whose value was checked in a document sentence is said without a
    # generation call as that sentence (within the correction's word limit), the clause
    # of it that holds the value, or the value set against the participants' own ("says
    # STEP, not LAB."). False: the model writes every correction.
    quote_corrections: bool = True
    # A direct question that asks for a date, a share or a quantity is answered at once
    # with the words of the sentence that gives it (``detectors.answer_sentence``), with no
    # generation call, when that sentence holds at least this share of the question's
    # content words (0-1); else the model answers. 0: the model answers every question.
    quote_direct_coverage: float = 2 / 3
    # Any other direct question is answered the same way when the sentence the
    # open-question detector finds for it holds at least this share of its content words
    # (0-1). 0: the model answers them.
    quote_any_coverage: float = 0.8
    # A direct question those thresholds leave to the model is answered with the words of
    # the sentences the model picks for it from those it was shown (at most
    # ``max_sentences_picked``), not with text it writes: a reply of a few tokens instead
    # of sentences (seconds on a CPU), never a clipped or spliced sentence. False: the
    # model writes the answer.
    quote_model_picks: bool = True
    max_sentences_picked: int = 2
    # A picked sentence after the first is said only while the answer stays within this
    # many words (about 20 s of speech): two long sentences took 48 s to say live.
    max_words_picked: int = 50
    # An open question the room left (a gap the gate passed) is answered the same way,
    # with the same two thresholds, from the sentence the open-question detector found;
    # else the model writes the intervention. False: the model writes it.
    quote_open_questions: bool = True
    # Where those thresholds leave it to the model, an open question the room left is
    # still said as the detector's answer sentence when that sentence passes the answer
    # check (``gap_min_coverage``) and has a verb: the forced-answer check lets the model
    # say that sentence's facts only, so its call adds seconds, not facts. A line without
    # a verb goes to the model. False: the model writes it.
    quote_covering_answers: bool = True
    # A misattribution whose raising turns name terms the document never uses is said as
    # "The document doesn't mention <those terms>.", with no generation call: the absence
    # is checked against the document's text. False: the model writes the denial.
    quote_denials: bool = True
    # A missing fact is said only from a sentence that holds at least this share of the
    # question's content words (0-1; the answer check ``coverage``): a sentence that
    # shares a word or two with the question is about its topic, not its answer.
    gap_min_coverage: float = 0.6


BACKCHANNEL_WORDS: frozenset[str] = frozenset(
    "yeah ok okay m hm hmm hmmm uh huh ha hah haha ah um umhum uhhuh right nice good fine "
    "oh really god hey so well all cool wow yep yo eh sure gotcha and yes ow yum sign "
    "laugh shoot".split()
)


@dataclass(frozen=True)
class FloorSettings:
    """Interaction timings (SPEC §5), all in seconds."""

    mode: FloorMode = FloorMode.SPEAK
    release_silence: float = 2.0
    # An intervention that has waited through this many participants' turns for an
    # opening takes a pause of ``release_silence_waited`` instead (0: never): a lively
    # room may not pause two seconds for minutes (one gap in five between the real AMI
    # meetings' speakers is that long, two in five last a second), and a correction said
    # turns after its claim comes too late to help.
    release_wait_turns: int = 2
    release_silence_waited: float = 1.0
    release_rms: float = 0.004
    release_rms_hold: float = 0.35
    # Backchannel filter (SPEC §5: backchannels do not barge in): sustained speech over
    # the agent stops it only once its partial transcript holds a word that is not a
    # backchannel word, or once it has gone on this long (onset to latest voiced frame).
    # A drawn-out recorded "Okaaay" runs 1.06 s, so 1.0 s cut it off; speech heard as no
    # words or only backchannels stops 0.2 s later than at 1.0 s (benchmarks/barge_in.py).
    barge_in_backchannel_filter: bool = True
    barge_in_hold_max: float = 1.2
    replay_full_below: float = 2.0
    resume_below: float = 5.0
    resume_prefix: str = "To finish my response,"
    permission_join: float = 1.5
    permission_span: float = 3.0
    permission_wait: float = 0.4
    hand_timeout: float = 60.0
    wake_overlap: float = 0.3
    wake_bind_within: float = 5.0
    wake_expire: float = 20.0
    wake_only_max_tokens: int = 3
    wake_only_max_seconds: float = 2.5
    wake_grace: float = 5.0
    continuation_within: float = 4.5
    continuation_cap: float = 30.0
    speculative_after: float = 0.5
    # A direct question goes first: from the question until its answer has been said, a
    # proactive intervention does not start, for at most this many seconds after the
    # question ended (an answer that never comes does not hold it back for good).
    direct_first_wait: float = 30.0
    glyph_listening_timeout: float = 30.0
    glyph_thinking_timeout: float = 15.0
    glyph_debounce: float = 0.25
    backchannel_max_words: int = 4
    # Freshness before playback (SPEC §7).
    freshness_value_share: float = 0.6  # content words of a value a turn must carry
    freshness_late_turns: int = 5  # turns since the one it answers after which it is late
    freshness_drift_turns: int = 3  # a late one whose last this many turns are off topic goes
    freshness_topic_similarity: float = 0.2  # below this (lexical overlap) = off topic
    # Words a turn needs to count as the room talking on (a fragment endpointing cut off a
    # speaker's turn, "In" or "Let me.", does not); 1 counts every turn.
    freshness_min_words: int = 3
    # An interrupted intervention is recovered at most this many times.
    max_recoveries: int = 2
    turn_history: int = 50
    # The speech worker flags every VAD event captured while the agent is audible
    # (self_voice) and runs the VAD on echo-cancelled audio: sustained speech in that
    # cleaned signal during playback is a participant, so it may barge in.
    barge_in_on_flagged: bool = True
    # Proactivity limits (SPEC §9): at most one proactive intervention per this many
    # seconds, counted from the start of the last one (0: no limit). Direct answers are
    # never limited.
    proactive_gap: float = 0.0
    # How long "Jarvis, not now" (a snooze without a duration) keeps proactive
    # interventions back, in seconds.
    snooze_default: float = 900.0


@dataclass(frozen=True)
class SpeechSettings:
    """Speech module (SPEC §5 speech events, §6)."""

    sample_rate: int = 16000
    frame_samples: int = 512
    # Silero speech probability (0-1) a frame needs while the agent is audible or its echo
    # may remain (playing, or within the echo tail after it): confident speech only.
    vad_threshold: float = 0.5
    # With the agent silent: probability that starts voice, and the lower one that keeps
    # voice going from one 32 ms frame to the next (hysteresis). Far-field speech of a
    # quiet participant mostly scores 0.05-0.5; room noise stays under 0.05.
    vad_onset_threshold: float = 0.15
    vad_offset_threshold: float = 0.05
    # Once the agent has spoken, the echo canceller still runs on every frame, but the
    # raw microphone is what the VAD and the turns get whenever the agent has been silent
    # for the echo tail (AEC3's output loses quiet speech even with nothing to cancel).
    echo_bypass_idle: bool = True
    # While the agent plays, a turn's audio on frames the double-talk detector calls a
    # participant's is the detector's linear echo residual, not AEC3's output, whose
    # suppressor removes much of a participant who talks over the agent
    # (``benchmarks/overlap_transcript.py``). False: AEC3's output throughout.
    overlap_turn_residual: bool = True
    sustained_speech: float = 0.5
    sustained_hangover: float = 0.5
    short_silence: float = 0.5
    long_silence: float = 2.0
    turn_end_silence: float = 0.5
    turn_watchdog: float = 0.7
    # Speech the VAD missed (app/speech/recovery.py): segmentation-3.0 reads the audio
    # outside turns that was heard while the agent was silent: every recover_every seconds
    # of a silent room, the silence before a turn (while the turn's end silence runs) and
    # at the end. It reads recover_window seconds at once (its training chunk), and a
    # stretch with at least recover_min_speech seconds of speech becomes a turn of its own
    # when its median level is recover_min_snr_db (dB) above the noise floor (the 10th
    # percentile of the last ~25 s of frame levels): the model also calls a pause inside
    # someone's phrase speech, and silence handed to the recognizer comes back as made-up
    # words. False: the VAD alone.
    recover_missed_speech: bool = True
    recover_window: float = 10.0
    recover_every: float = 5.0  # at most half of recover_window (a held phrase is reread)
    recover_min_speech: float = 0.3
    recover_min_snr_db: float = 12.0
    wake_threshold: float = 0.5
    asr_model: str = "tiny.en"
    # CTranslate2 threads for recognition. None: $JARVIS_ASR_THREADS, else speech's share
    # of the physical cores (app/cores.py); the model gets the rest.
    asr_threads: int | None = None
    asr_no_speech_threshold: float = 0.6
    # A recognized word below this probability is marked unsure on its turn. On the dev
    # meetings rendered and recognized (tiny.en), 69% of the names the recognizer made up
    # fall below 0.5, 13% of those it heard right (names the document uses), 18% of names
    # said that the document lacks.
    asr_unsure_probability: float = 0.5
    asr_compression_ratio_threshold: float = 2.4
    # A turn of a second or more of voice whose decode under the prompt (the meeting's
    # recent words) gives no words at all is decoded once more without it: Whisper tiny
    # can return nothing for seconds of clear speech after some prompts. False: never.
    asr_retry_without_prompt: bool = True
    speaker_match_cosine: float = 0.6  # CAM++ on 2 s windows (tuned on AMI and pyannote clips)
    # Speaker changes inside one local voice of a turn (app/speech/changes.py): seconds of
    # the voice's clean audio per window, each window embedded on its own and handed to
    # another known speaker it matches at speaker_match_cosine and beats the voice's own
    # speaker by speaker_change_margin (a cosine). 0: one embedding per voice.
    speaker_change_window: float = 1.0
    speaker_change_margin: float = 0.05
    # A new session speaker takes a remembered voice's name at this cosine (its centroid to
    # the voiceprint's) or above. benchmarks/voiceprints.py on the AMI and pyannote clips:
    # at 0.6 no speaker of another meeting takes a name (0 of 10; 2 of 10 at 0.5 and
    # 0.55), 3 of 4 speakers renamed in a clip's first half are named in its second half
    # (4 of 4 at 0.5), and no enrolled speaker is given another enrolled speaker's name.
    voiceprint_match_cosine: float = 0.6
    # Opt-in: keep the meeting's microphone audio (what the turns were heard from, the
    # agent's echo cancelled) as a 16 kHz mono WAV in <data dir>/recordings, written as it
    # is heard, so `jarvis retranscribe` can redo the transcript after the meeting. The
    # file's path is in the session record (a meeting_audio entry). Off: nothing is kept.
    keep_meeting_audio: bool = False


@dataclass(frozen=True)
class VoiceSettings:
    engine: str = "kokoro"
    voice: str = "af_heart"
    speed: float = 1.0
    sample_rate: int = 24000
    block_seconds: float = 0.02
    # The first sentence is split at a clause break after this many words so audio
    # starts early.
    first_chunk_words: int = 3


@dataclass(frozen=True)
class Settings:
    document: DocumentSettings = field(default_factory=DocumentSettings)
    llm: LLMSettings = field(default_factory=LLMSettings)
    ledger: LedgerSettings = field(default_factory=LedgerSettings)
    utterance: UtteranceSettings = field(default_factory=UtteranceSettings)
    floor: FloorSettings = field(default_factory=FloorSettings)
    speech: SpeechSettings = field(default_factory=SpeechSettings)
    voice: VoiceSettings = field(default_factory=VoiceSettings)
