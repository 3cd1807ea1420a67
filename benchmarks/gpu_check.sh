#!/usr/bin/env bash
# GPU check for a lent CUDA machine with no internet (the `device` tool's H200: Python 3.12
# with torch, nvcc, CMake and ninja; no llama-cpp-python).
#
#   bash benchmarks/gpu_check.sh [MODEL.gguf]
#
# 1. Builds llama-cpp-python with CUDA from a carried sdist when the installed one (if any)
#    cannot offload. Carried files live in $JARVIS_GPU_CARRY (default .gpu-carry/), made
#    here with:  bash benchmarks/gpu_check.sh --prepare
# 2. Loads a GGUF fully offloaded and prints load, shared-prefix prefill, TTFT and total per
#    backbone stage (benchmarks/gpu_llm.py). The model is the argument or $JARVIS_GGUF; else
#    the zero-weight replica of the embedded 1.5B model rebuilt from its carried header
#    (real speed, meaningless text: the 1.1 GB file cannot travel); else the LLM part is
#    skipped with a message.
# 3. Reports CTranslate2's CUDA devices, and times faster-whisper on CUDA when
#    $JARVIS_WHISPER_MODEL names a CTranslate2 model folder.
# JARVIS_GPU_CHECK_CPU=1 runs the same steps with a CPU llama-cpp-python (no build), and
# JARVIS_GPU_LLM_ARGS passes options to gpu_llm.py (e.g. "--doc-tokens 300"): for tests.
# Writes gpu_check.json (and gpu_llm.json, build logs) to $OUT (default ./gpu_check_out).
#
# With the device tool, after --prepare here (about 14 MB in .gpu-carry/, an ignored path):
#   run  command="bash benchmarks/gpu_check.sh"  carry=[".gpu-carry"]  timeout_s=600
# Expected cost: machine start 1-2 min; the CUDA build of llama.cpp for one architecture is
# the long part (144 CUDA files; estimated 5-8 min on 16 cores); the benchmark under 1 min.
set -uo pipefail
cd "$(dirname "$0")/.."
CARRY=${JARVIS_GPU_CARRY:-.gpu-carry}
OUT=${OUT:-$PWD/gpu_check_out}
PY=${PYTHON:-python3}
LLAMA_VERSION=${JARVIS_LLAMA_VERSION:-0.3.36}
started=$SECONDS
stamp() { echo "== $((SECONDS - started))s: $*"; }

prepare() {  # on the development machine: fill $CARRY (must stay well under 64 MiB)
  set -e
  mkdir -p "$CARRY"
  local work sdist model
  work=$(mktemp -d)
  "$PY" -m pip download --no-deps --no-binary :all: -d "$work" "llama-cpp-python==$LLAMA_VERSION"
  sdist=$(ls "$work"/llama_cpp_python-*.tar.gz)
  tar xzf "$sdist" -C "$work"
  # Drop what the library build never reads: git objects, vocab test models, docs, web UI.
  (cd "$work"/llama_cpp_python-*/ && rm -rf .git vendor/llama.cpp/{docs,models,benches,tests,media} \
    vendor/llama.cpp/tools/{ui,server})
  tar czf "$CARRY/llama_cpp_python-$LLAMA_VERSION.tar.gz" -C "$work" "llama_cpp_python-$LLAMA_VERSION"
  "$PY" -m pip download --no-deps -d "$CARRY" diskcache
  model=$("$PY" -c 'from app.models import resolve; print(resolve("llm-1.5b"))')
  "$PY" benchmarks/gguf_replica.py header "$model" "$CARRY/llm-1.5b.ggufhdr"
  rm -rf "$work"
  du -sh "$CARRY"
}

gpu_offload() { "$PY" -c 'import llama_cpp, sys; sys.exit(0 if llama_cpp.llama_supports_gpu_offload() else 1)' 2>/dev/null; }

# CMake's FindCUDAToolkit needs cuBLAS and the driver library; a toolkit assembled from pip
# wheels keeps cuBLAS in site-packages/nvidia/*/lib without the unversioned names.
cuda_cmake_args() {
  local nvcc root args="" shim="$OUT/cuda-shim" lib inc drv
  nvcc=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
  root=$(dirname "$(dirname "$(readlink -f "$nvcc")")")
  if ! ls "$root"/lib64/libcublas.so "$root"/targets/*/lib/libcublas.so >/dev/null 2>&1; then
    local roots
    roots=${JARVIS_CUBLAS_SEARCH:-$("$PY" -c 'import site; print(" ".join(site.getsitepackages()))') /usr/local /opt}
    # shellcheck disable=SC2086
    lib=$(find $roots -name 'libcublas.so.[0-9]*' -path '*nvidia*' 2>/dev/null | head -n1)
    if [[ -n "$lib" ]]; then
      mkdir -p "$shim"
      ln -sf "$lib" "$shim/libcublas.so"
      ln -sf "$(ls "$(dirname "$lib")"/libcublasLt.so.[0-9]* | head -n1)" "$shim/libcublasLt.so"
      inc=$(dirname "$(dirname "$lib")")/include
      # The built library needs the versioned cuBLAS at run time too.
      echo "export LD_LIBRARY_PATH=$(dirname "$lib")\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" >"$OUT/cuda-env.sh"
      args+=" -DCUDA_cublas_LIBRARY=$shim/libcublas.so -DCUDA_cublasLt_LIBRARY=$shim/libcublasLt.so"
      args+=" -DCMAKE_CUDA_FLAGS=-I$inc -DCMAKE_CXX_FLAGS=-I$inc"
    fi
  fi
  drv=$(ls /usr/local/nvidia/lib64/libcuda.so.1 /usr/lib/x86_64-linux-gnu/libcuda.so.1 \
    "$root"/lib64/stubs/libcuda.so 2>/dev/null | head -n1)
  [[ -n "$drv" ]] || drv=$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 /{print $NF; exit}')
  [[ -n "$drv" ]] && args+=" -DCUDA_cuda_driver_LIBRARY=$drv"
  echo "$args"
}

build_llama() {
  if gpu_offload; then
    stamp "llama-cpp-python already offloads to the GPU: no build"
    return 0
  fi
  if [[ -n "${JARVIS_GPU_CHECK_CPU:-}" ]] && "$PY" -c 'import llama_cpp' 2>/dev/null; then
    stamp "JARVIS_GPU_CHECK_CPU is set: using the installed CPU llama-cpp-python"
    GPU_LAYERS=0
    return 0
  fi
  local sdist arch
  sdist=$(ls "$CARRY"/llama_cpp_python-*.tar.gz 2>/dev/null | head -n1)
  if [[ -z "$sdist" ]]; then
    echo "no llama-cpp-python sdist in $CARRY: run 'bash benchmarks/gpu_check.sh --prepare' here first"
    return 1
  fi
  "$PY" -c 'import diskcache' 2>/dev/null ||
    "$PY" -m pip install -q --no-index --no-deps "$CARRY"/diskcache-*.whl
  arch=${CUDA_ARCH:-$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n1 | tr -d .)}
  local args
  args="-DGGML_CUDA=on -DCMAKE_CUDA_ARCHITECTURES=${arch:-native} -DLLAVA_BUILD=OFF$(cuda_cmake_args)"
  # shellcheck disable=SC1091
  [[ -f "$OUT/cuda-env.sh" ]] && source "$OUT/cuda-env.sh"
  stamp "building llama-cpp-python with CUDA (sm_$arch) on $(nproc) cores: CMAKE_ARGS=$args"
  local t0=$SECONDS
  if ! CMAKE_ARGS="$args" CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) "$PY" -m pip install --no-index \
    --no-build-isolation --no-deps --no-cache-dir "$sdist" >"$OUT/llama_build.log" 2>&1; then
    tail -n 40 "$OUT/llama_build.log"
    return 1
  fi
  BUILD_S=$((SECONDS - t0))
  stamp "built in ${BUILD_S}s"
  gpu_offload || { echo "the build cannot offload to the GPU"; return 1; }
}

pick_model() {
  MODEL=${1:-${JARVIS_GGUF:-}} MODEL_KIND=given
  [[ -n "$MODEL" && -f "$MODEL" ]] && return 0
  [[ -n "$MODEL" ]] && echo "no model file at $MODEL"
  local header
  header=$(ls "$CARRY"/*.ggufhdr 2>/dev/null | head -n1)
  if [[ -n "$header" ]]; then
    MODEL=/tmp/$(basename "${header%.ggufhdr}")-replica.gguf MODEL_KIND="zero-weight replica"
    "$PY" benchmarks/gguf_replica.py expand "$header" "$MODEL" && return 0
  fi
  MODEL="" MODEL_KIND=none
  return 1
}

whisper_check() {
  "$PY" - "$OUT/gpu_whisper.json" <<'EOF'
import json, os, sys, time
report = {}
try:
    import ctranslate2
    report["ctranslate2"] = ctranslate2.__version__
    report["cuda_devices"] = ctranslate2.get_cuda_device_count()
    if report["cuda_devices"]:
        report["cuda_compute_types"] = sorted(ctranslate2.get_supported_compute_types("cuda"))
except Exception as exc:  # not installed, or no CUDA libraries for it
    report["skipped"] = f"ctranslate2 unavailable: {exc}"
model = os.environ.get("JARVIS_WHISPER_MODEL")
if report.get("cuda_devices") and model:
    import numpy as np
    from faster_whisper import WhisperModel
    t0 = time.perf_counter()
    whisper = WhisperModel(model, device="cuda", compute_type="float16")
    report["load_s"] = round(time.perf_counter() - t0, 2)
    audio = (0.1 * np.sin(np.linspace(0, 30 * 2 * np.pi * 220, 30 * 16000))).astype("float32")
    t0 = time.perf_counter()
    list(whisper.transcribe(audio, beam_size=1)[0])
    report["rtf_30s"] = round((time.perf_counter() - t0) / 30, 4)
elif report.get("cuda_devices"):
    report["skipped"] = "no JARVIS_WHISPER_MODEL folder given: devices only"
print("whisper:", json.dumps(report))
json.dump(report, open(sys.argv[1], "w"), indent=2)
EOF
}

main() {
  if [[ "${1:-}" == "--prepare" ]]; then prepare; return; fi
  mkdir -p "$OUT"
  stamp "machine"
  nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap --format=csv,noheader \
    | tee "$OUT/gpu.txt" || echo "nvidia-smi failed: no GPU here"
  "$PY" -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.cuda.is_available())' 2>&1
  BUILD_S="" LLM_STATUS="skipped" GPU_LAYERS=-1
  if build_llama; then
    if pick_model "${1:-}"; then
      stamp "LLM: $MODEL ($MODEL_KIND), all layers on the GPU"
      # shellcheck disable=SC2086
      if "$PY" benchmarks/gpu_llm.py "$MODEL" --gpu-layers "$GPU_LAYERS" ${JARVIS_GPU_LLM_ARGS:-} \
        --out "$OUT/gpu_llm.json"; then
        LLM_STATUS=ok
      else
        LLM_STATUS=failed
      fi
    else
      echo "LLM skipped: no GGUF given (argument or JARVIS_GGUF) and no carried header in $CARRY"
    fi
  else
    LLM_STATUS="build failed (see $OUT/llama_build.log)"
  fi
  stamp "whisper"
  whisper_check || true
  "$PY" - "$OUT" "$LLM_STATUS" "${BUILD_S:-}" "${MODEL_KIND:-none}" "$SECONDS" <<'EOF'
import json, pathlib, sys
out, status, build_s, kind, seconds = sys.argv[1:]
out = pathlib.Path(out)
def load(name):
    path = out / name
    return json.loads(path.read_text()) if path.is_file() else None
summary = {"llm_status": status, "llama_build_s": int(build_s) if build_s else None,
           "model_kind": kind, "llm": load("gpu_llm.json"), "whisper": load("gpu_whisper.json"),
           "gpu": (out / "gpu.txt").read_text().strip() if (out / "gpu.txt").is_file() else None,
           "wall_s": int(seconds)}
(out / "gpu_check.json").write_text(json.dumps(summary, indent=2))
print("wrote", out / "gpu_check.json")
EOF
  stamp "done (LLM: $LLM_STATUS)"
  [[ $LLM_STATUS == ok || $LLM_STATUS == skipped ]]
}

main "$@"
