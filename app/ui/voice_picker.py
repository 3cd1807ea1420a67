"""The voice picker in the settings dialog: the installed voices (engine, name, language)
and a button that says a test sentence with the chosen voice, rate and loudspeaker.

The sentence is synthesised and played off the GUI thread; what went wrong (no such
loudspeaker, a voice that cannot load) is said under the picker and logged.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.settings import VoiceSettings
from app.voice.engines import PULL_KOKORO, InstalledVoice, installed_voices
from app.voice.sinks import AudioSink
from app.voice.trial import Trial, say_test_sentence

log = logging.getLogger(__name__)

SinkFactory = Callable[[str], AudioSink]  # loudspeaker name ("" = the default) -> a sink
Choice = tuple[str, str]  # (engine, voice)


def loudspeaker(device: str) -> AudioSink:
    from app.voice.sinks import SoundDeviceSink

    return SoundDeviceSink(device or None)


def trial_text(trial: Trial) -> str:
    """What the picker says once the test sentence has been heard."""
    said = f"Said by {trial.engine.capitalize()} {trial.voice} ({trial.seconds:.1f} s)."
    return f"{said} {trial.note}" if trial.note else said


class _Tried(QObject):
    finished = Signal(object)  # the Trial played, or the message of what went wrong


class VoicePicker(QWidget):
    def __init__(
        self,
        engine: str,
        voice: str,
        output: Callable[[], str],
        speed: Callable[[], float],
        sink: SinkFactory | None = None,
        voices: Sequence[InstalledVoice] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        """``output`` and ``speed`` read the dialog's loudspeaker and rate when the test
        sentence is asked for; ``voices`` defaults to the installed ones."""
        super().__init__(parent)
        self._output, self._speed = output, speed
        self._sink = sink or loudspeaker
        self._tried = _Tried()
        self._tried.finished.connect(self._finished, Qt.ConnectionType.QueuedConnection)
        self.worker: threading.Thread | None = None  # the test sentence being said
        self.voices = list(installed_voices() if voices is None else voices)
        self.choices: list[Choice] = [(v.engine, v.voice) for v in self.voices]  # by row
        self.combo = QComboBox()
        self.combo.addItems([v.label for v in self.voices])
        if (engine, voice) not in self.choices:  # chosen before, not installed now
            self.choices.append((engine, voice))
            self.combo.addItem(f"{engine.capitalize()} {voice} (not installed)")
        self.combo.setCurrentIndex(self.choices.index((engine, voice)))
        self.say_button = QPushButton("Say a test sentence")
        self.say_button.setToolTip("Hear this voice at this rate on the chosen loudspeaker")
        self.say_button.clicked.connect(self.say)
        self.status = QLabel()
        self.status.setWordWrap(True)
        row = QHBoxLayout()  # under the list, so a long voice name is read whole
        row.addWidget(self.say_button)
        row.addWidget(self.status, 1)
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        col.addWidget(self.combo)
        col.addLayout(row)
        self.combo.currentIndexChanged.connect(self._describe)
        self._describe()

    def choice(self) -> Choice:
        return self.choices[self.combo.currentIndex()]

    def choose(self, engine: str, voice: str) -> None:
        self.combo.setCurrentIndex(self.choices.index((engine, voice)))

    def chosen(self) -> InstalledVoice | None:
        """The installed voice chosen; None for one that is not installed."""
        return next((v for v in self.voices if (v.engine, v.voice) == self.choice()), None)

    def _describe(self) -> None:
        """Say beside the picker when the voice is not an English one or not installed."""
        chosen = self.chosen()
        if chosen is None:
            engine, voice = self.choice()
            hint = f" ({PULL_KOKORO})" if engine == "kokoro" else ""
            self.status.setText(f"{voice} is not installed{hint}; Jarvis speaks with another "
                                "voice. Say a test sentence to hear which.")
        elif not chosen.english:
            self.status.setText(f"{chosen.voice} is a {chosen.language} voice: Jarvis will "
                                "read English with it.")
        else:
            self.status.setText("")

    def say(self) -> None:
        """The test sentence with the chosen voice, rate and loudspeaker, off the GUI
        thread; the status says what was heard or what went wrong."""
        engine, voice = self.choice()
        settings = VoiceSettings(engine=engine, voice=voice, speed=round(self._speed(), 2))
        device = self._output()
        self.say_button.setEnabled(False)
        self.status.setText("Saying the test sentence\u2026")
        self.worker = threading.Thread(
            target=self._say, args=(settings, device), name="voice-test", daemon=True
        )
        self.worker.start()

    def _say(self, settings: VoiceSettings, device: str) -> None:
        try:
            result: object = say_test_sentence(settings, self._sink(device))
        except Exception as exc:  # a voice error carries its message; anything else too
            message = getattr(exc, "user_message", None) or f"The voice could not speak: {exc}"
            log.warning("test sentence with %s %s failed: %s", settings.engine,
                        settings.voice, message)
            result = message
        try:
            self._tried.finished.emit(result)
        except RuntimeError:  # the dialog was closed meanwhile: nobody to tell
            log.debug("test sentence finished after its dialog closed")

    def _finished(self, result: object) -> None:
        self.say_button.setEnabled(True)
        self.status.setText(trial_text(result) if isinstance(result, Trial) else str(result))
