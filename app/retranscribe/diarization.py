"""Offline diarization of a whole meeting with pyannote.audio.

On a workstation that pulled the gated ``pyannote/speaker-diarization-community-1``
(``jarvis models pull pyannote-community-1``) that pipeline runs from the local model
store. Otherwise the same pyannote pipeline runs on the embedded weights: segmentation-3.0
rebuilt as pyannote's PyanNet from the tensors of the model store's checkpoint (no pickled
code is loaded), and the CAM++ speaker embedding of the live diarizer wrapped as a
pyannote Model. Its PLDA is trained for community-1's own embeddings, so the embedded
pipeline clusters CAM++ cosines agglomeratively instead. Nothing comes from the hub.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import numpy as np

from app.speech.diarization import MIN_EMBED, CamppEmbedder, SpeakerSegment

log = logging.getLogger(__name__)

RATE = 16000
COMMUNITY = "pyannote-community-1"  # the model store's name for the gated pipeline

# progress(step, completed, total): which pyannote step runs and how far it is
Progress = Callable[[str, int, int], None]


class DiarizationPipeline(StrEnum):
    COMMUNITY = "pyannote speaker-diarization-community-1"
    EMBEDDED = "pyannote.audio on segmentation-3.0 and CAM++ (embedded weights)"


@dataclass(frozen=True)
class EmbeddedTuning:
    """The embedded pipeline's settings, measured on the AMI and pyannote clips (DER, no
    collar): the pyannote sample 0.052 and the AMI ES2004a minute 0.123 at step 0.1 with
    any threshold from 0.6 to 0.8; a step of 0.25 takes half the time for 0.055 / 0.137."""

    # Window step as a share of segmentation-3.0's 10 s window (pyannote's own default).
    # Every window embeds each of its speakers, so the step sets the CPU cost.
    step: float = 0.1
    # Centroid linkage of unit CAM++ embeddings: clusters closer than this euclidean
    # distance merge (0.7 is a cosine of 0.755 between two single embeddings). On the
    # 30 s AMI debug clips 0.7 finds 5 of tst00's 4 speakers and both of dev00's; 0.75
    # finds 4 and 1.
    threshold: float = 0.7
    min_cluster_size: int = 2  # smaller clusters join their nearest large one
    min_duration_off: float = 0.0  # seconds of silence a speaker's turn may bridge


@dataclass(frozen=True)
class OfflineDiarization:
    """Who speaks when in the whole recording."""

    segments: list[SpeakerSegment]  # overlapped speech included
    exclusive: list[SpeakerSegment]  # one speaker at any time: the words' speakers
    pipeline: DiarizationPipeline

    @property
    def speakers(self) -> list[str]:
        return sorted({s.speaker for s in self.segments})


def _quiet_imports() -> Any:
    """pyannote.audio, without its warning that torchcodec (file decoding) is absent: the
    audio is always handed over as a waveform."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pyannote.audio

    return pyannote.audio


def segmentation_model(weights: Path | None = None) -> Any:
    """segmentation-3.0 as pyannote's PyanNet, its tensors read by the loader that runs no
    code from the checkpoint (app.speech.segmentation.load_state)."""
    _quiet_imports()
    from pyannote.audio.core.task import Problem, Resolution, Specifications
    from pyannote.audio.models.segmentation import PyanNet

    from app.speech.segmentation import LOCAL_SPEAKERS, load_state
    from app.speech.weights import resolve

    model = PyanNet(
        sincnet={"stride": 10},
        lstm={"hidden_size": 128, "num_layers": 4, "bidirectional": True,
              "monolithic": True, "dropout": 0.0},
        linear={"hidden_size": 128, "num_layers": 2},
        sample_rate=RATE,
        num_channels=1,
    )  # fmt: skip
    model.specifications = Specifications(
        problem=Problem.MONO_LABEL_CLASSIFICATION,
        resolution=Resolution.FRAME,
        duration=10.0,
        warm_up=(0.0, 0.0),
        classes=[f"speaker#{k + 1}" for k in range(LOCAL_SPEAKERS)],
        powerset_max_classes=2,
        permutation_invariant=True,
    )
    model.build()
    model.load_state_dict(load_state(weights or resolve("diar-segmentation")))
    return model.eval()


def embedding_model(embedder: CamppEmbedder | None = None) -> Any:
    """CAM++ as a pyannote embedding Model: each waveform embedded over the frames its
    mask keeps (too little speech: NaN, which pyannote's clustering leaves out)."""
    _quiet_imports()
    import torch
    from pyannote.audio import Model

    class CamppModel(Model):
        def __init__(self, embedder: CamppEmbedder) -> None:
            super().__init__(sample_rate=RATE, num_channels=1)
            self.embedder = embedder

        @property
        def dimension(self) -> int:
            return 192

        def forward(self, waveforms: Any, **kwargs: Any) -> Any:
            weights = kwargs.get("weights")  # (batch, frames): the frames to embed
            audio = waveforms[:, 0].detach().cpu().numpy()
            masks = None if weights is None else weights.detach().cpu().numpy() > 0.5
            out = np.full((audio.shape[0], self.dimension), np.nan, dtype=np.float32)
            clips, rows = [], []
            for i, wave in enumerate(audio):
                clip = wave if masks is None else wave[_per_sample(masks[i], wave.size)]
                if clip.size >= MIN_EMBED * RATE:
                    clips.append(clip)
                    rows.append(i)
            if clips:
                out[rows] = self.embedder.embed(clips)
            return torch.from_numpy(out)

    return CamppModel(embedder or CamppEmbedder())


def _per_sample(frames: np.ndarray, n_samples: int) -> np.ndarray:
    """A mask over ``len(frames)`` equal frames spanning the waveform, per sample."""
    index = np.minimum(np.arange(n_samples) * frames.size // max(n_samples, 1), frames.size - 1)
    return frames[index]


def embedded_pipeline(tuning: EmbeddedTuning | None = None) -> Any:
    _quiet_imports()
    from pyannote.audio.core.plda import PLDA
    from pyannote.audio.pipelines import SpeakerDiarization

    class NoPLDA(PLDA):
        """Agglomerative clustering takes no PLDA; the pipeline still asks for one."""

        def __init__(self) -> None:
            pass

    t = tuning or EmbeddedTuning()
    pipeline = SpeakerDiarization(
        segmentation=segmentation_model(),
        segmentation_step=t.step,
        embedding=embedding_model(),
        embedding_exclude_overlap=True,
        plda=NoPLDA(),
        clustering="AgglomerativeClustering",
        segmentation_batch_size=8,
    )
    pipeline.instantiate({
        "segmentation": {"min_duration_off": t.min_duration_off},
        "clustering": {"method": "centroid", "threshold": t.threshold,
                       "min_cluster_size": t.min_cluster_size},
    })  # fmt: skip
    return pipeline


def community_pipeline(folder: Path) -> Any:
    """The pulled community-1 pipeline, read from its folder in the model store."""
    _quiet_imports()
    from pyannote.audio import Pipeline

    pipeline = Pipeline.from_pretrained(folder)
    if pipeline is None:
        raise FileNotFoundError(f"no pyannote pipeline in {folder}")
    return pipeline


def pulled_community() -> Path | None:
    """The community-1 folder when the model store has a verified pulled copy."""
    try:
        from app.models import default_manager

        manager = default_manager()
        path = manager.pulled(manager.entry(COMMUNITY))
    except Exception:  # no manager, or the manifest does not know it: the embedded one
        log.debug("no pulled %s", COMMUNITY, exc_info=True)
        return None
    return Path(path) if path is not None else None


class OfflineDiarizer:
    """Whole-recording diarization, community-1 where pulled, else embedded."""

    def __init__(
        self,
        community: Path | None = None,
        tuning: EmbeddedTuning | None = None,
    ) -> None:
        folder = community if community is not None else pulled_community()
        if folder is not None:
            self.kind = DiarizationPipeline.COMMUNITY
            self.pipeline = community_pipeline(folder)
        else:
            self.kind = DiarizationPipeline.EMBEDDED
            self.pipeline = embedded_pipeline(tuning)

    def __call__(self, audio: np.ndarray, progress: Progress | None = None) -> OfflineDiarization:
        import torch

        waveform = torch.from_numpy(np.ascontiguousarray(audio, dtype=np.float32))[None]
        file = {"waveform": waveform, "sample_rate": RATE, "uri": "meeting"}

        def hook(step: str, _artefact: Any, file: Any = None, total: int | None = None,
                 completed: int | None = None) -> None:  # fmt: skip
            if progress is not None:
                progress(step, completed or 0, total or 0)

        output = self.pipeline(file, hook=hook)
        full = getattr(output, "speaker_diarization", output)
        exclusive = getattr(output, "exclusive_speaker_diarization", full)
        return OfflineDiarization(_segments(full), _segments(exclusive), self.kind)


@contextmanager
def torch_threads(threads: int) -> Iterator[None]:
    """torch's CPU threads for a while (0: leave torch's own choice)."""
    import torch

    before = torch.get_num_threads()
    if threads:
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _segments(annotation: Any) -> list[SpeakerSegment]:
    """pyannote's SPEAKER_00, SPEAKER_01, ... as R1, R2, ... (re-run speakers), in time
    order."""
    labels = {label: f"R{i + 1}" for i, label in enumerate(sorted(annotation.labels()))}
    rows = [
        SpeakerSegment(labels[label], float(seg.start), float(seg.end))
        for seg, _, label in annotation.itertracks(yield_label=True)
    ]
    return sorted(rows, key=lambda s: (s.start, s.end))
