"""The meeting's microphone audio, kept as a WAV file when the user opts in
(``SpeechSettings.keep_meeting_audio``), for a cleaner transcript after the meeting.

The speech worker hands every frame it processes to a ``MeetingAudioWriter`` on its own
thread. Each write appends 16-bit PCM, rewrites the header's two sizes and flushes, so
the file on disk is a complete WAV after every frame: a crash of the app loses at most
the frame being written, and every few seconds of audio the file is synced to the disk.
Sample n of the file is audio time n / 16000 s of the session (a gap in the frames is
filled with silence), so the times of the record's turns index it directly.
"""

from __future__ import annotations

import os
import struct
from datetime import datetime
from pathlib import Path
from typing import BinaryIO

import numpy as np

from app.paths import data_dir

RATE = 16000
HEADER_BYTES = 44
SAMPLE_BYTES = 2  # 16-bit PCM, mono


def recordings_dir() -> Path:
    """Where kept meeting audio lives: ``<data dir>/recordings``."""
    return data_dir() / "recordings"


def recording_path(started: datetime, folder: Path | None = None, label: str = "meeting") -> Path:
    """A new file name for audio captured from ``started`` on (never an existing file)."""
    folder = folder or recordings_dir()
    stamp = started.strftime("%Y%m%d-%H%M%S")
    path, n = folder / f"{stamp}-{label}.wav", 1
    while path.exists():
        n += 1
        path = folder / f"{stamp}-{label}-{n}.wav"
    return path


def _header(data_bytes: int, rate: int) -> bytes:
    return b"".join(
        [
            b"RIFF",
            struct.pack("<I", 36 + data_bytes),
            b"WAVEfmt ",
            struct.pack("<IHHIIHH", 16, 1, 1, rate, rate * SAMPLE_BYTES, SAMPLE_BYTES, 16),
            b"data",
            struct.pack("<I", data_bytes),
        ]
    )


def to_pcm16(frame: np.ndarray) -> bytes:
    """float samples in [-1, 1] (clipped; NaN as silence) as little-endian 16-bit PCM."""
    x = np.nan_to_num(np.asarray(frame, dtype=np.float32), nan=0.0, posinf=1.0, neginf=-1.0)
    return (np.clip(x, -1.0, 1.0) * 32767.0).round().astype("<i2").tobytes()


class MeetingAudioWriter:
    """A WAV file that is complete on disk after every ``write``.

    ``sync_every``: seconds of audio between fsyncs (the flush after each write already
    survives a crash of the app; the sync survives one of the machine)."""

    def __init__(self, path: Path, rate: int = RATE, sync_every: float = 5.0) -> None:
        self.path = Path(path)
        self.rate = rate
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: BinaryIO | None = self.path.open("xb")
        self._file.write(_header(0, rate))
        self._file.flush()
        self._samples = 0  # samples in the file
        self._sync_samples = max(1, int(sync_every * rate))
        self._unsynced = 0

    @property
    def seconds(self) -> float:
        """Audio kept so far, in seconds."""
        return self._samples / self.rate

    @property
    def closed(self) -> bool:
        return self._file is None

    def write(self, frame: np.ndarray, sample: int) -> None:
        """Keep ``frame``, whose first sample is audio sample ``sample`` of the session.
        Audio already kept is not written twice; a gap before it becomes silence."""
        f = self._file
        if f is None:
            raise ValueError("the meeting audio file is closed")
        skip = max(0, self._samples - sample)
        frame = np.asarray(frame)[skip:]
        gap = max(0, sample - self._samples)
        if frame.size == 0:
            return
        f.seek(0, os.SEEK_END)
        f.write(b"\0" * (gap * SAMPLE_BYTES) + to_pcm16(frame))
        self._samples += gap + frame.size
        self._patch_sizes(f)
        f.flush()
        self._unsynced += gap + frame.size
        if self._unsynced >= self._sync_samples:
            os.fsync(f.fileno())
            self._unsynced = 0

    def _patch_sizes(self, f: BinaryIO) -> None:
        data = self._samples * SAMPLE_BYTES
        f.seek(4)
        f.write(struct.pack("<I", 36 + data))
        f.seek(40)
        f.write(struct.pack("<I", data))

    def close(self) -> None:
        """Sync and close; safe to call twice."""
        f, self._file = self._file, None
        if f is None:
            return
        try:
            f.flush()
            os.fsync(f.fileno())
        finally:
            f.close()
