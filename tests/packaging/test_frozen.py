"""app.frozen: where CUDA libraries are looked for, and what gets loaded."""

from __future__ import annotations

import ctypes.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app import frozen

REPO = Path(__file__).resolve().parents[2]


def nvidia_tree(root: Path, sub: str, libs: dict[str, list[str]]) -> None:
    for package, names in libs.items():
        folder = root / "nvidia" / package / sub
        folder.mkdir(parents=True)
        for name in names:
            (folder / name).write_bytes(b"")


def test_linux_lib_dirs_under_site_packages(tmp_path: Path) -> None:
    nvidia_tree(tmp_path, "lib", {"cublas": ["libcublas.so.12"], "cudnn": ["libcudnn.so.9"]})
    (tmp_path / "nvidia" / "empty").mkdir()  # a package without lib/ is ignored
    dirs = frozen.cuda_library_dirs([tmp_path], windows=False)
    assert dirs == [tmp_path / "nvidia" / "cublas" / "lib", tmp_path / "nvidia" / "cudnn" / "lib"]


def test_windows_bin_dirs_and_frozen_extras(tmp_path: Path) -> None:
    nvidia_tree(tmp_path, "bin", {"cublas": ["cublas64_12.dll"]})
    nvidia_tree(tmp_path, "lib", {"cudnn": ["x.lib"]})  # lib/ is not where DLLs live
    (tmp_path / "torch" / "lib").mkdir(parents=True)
    (tmp_path / "llama_cpp" / "lib").mkdir(parents=True)
    plain = frozen.cuda_library_dirs([tmp_path], windows=True)
    assert plain == [tmp_path / "nvidia" / "cublas" / "bin"]
    bundled = frozen.cuda_library_dirs([tmp_path], windows=True, frozen=True)
    assert bundled == [
        tmp_path / "nvidia" / "cublas" / "bin",
        tmp_path,
        tmp_path / "torch" / "lib",
        tmp_path / "llama_cpp" / "lib",
    ]


def test_no_nvidia_packages_means_nothing_to_do(tmp_path: Path) -> None:
    assert frozen.cuda_library_dirs([tmp_path, tmp_path / "missing"], windows=False) == []


def test_preload_order_puts_dependencies_first(tmp_path: Path) -> None:
    nvidia_tree(tmp_path, "lib", {
        "cudnn": ["libcudnn.so.9", "libcudnn_ops.so.9"],
        "cublas": ["libcublas.so.12", "libcublasLt.so.12", "libnvblas.so.12"],
        "cuda_runtime": ["libcudart.so.12"],
    })
    dirs = frozen.cuda_library_dirs([tmp_path], windows=False)
    names = [p.name for p in frozen.preload_candidates(dirs)]
    assert names == ["libcudart.so.12", "libcublasLt.so.12", "libcublas.so.12",
                     "libcudnn.so.9", "libcudnn_ops.so.9"]


def real_shared_library() -> Path:
    name = ctypes.util.find_library("m")
    folders = ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64")
    found = next((Path(f) / name for f in folders if name and (Path(f) / name).is_file()), None)
    if found is None:
        pytest.skip(reason="no libm shared library on this platform to stand in for a CUDA library")
    return found


@pytest.mark.skipif(sys.platform != "linux", reason="dlopen preloading is Linux-only")
def test_preload_loads_real_libraries_and_reports_broken_ones(tmp_path: Path) -> None:
    good = tmp_path / "libcublas.so.12"
    shutil.copy(real_shared_library(), good)
    broken = tmp_path / "libcudnn.so.9"
    broken.write_text("not an ELF file")
    loaded, failed = frozen.preload([good, broken])
    assert loaded == [good]
    assert len(failed) == 1 and failed[0].startswith("libcudnn.so.9")
    assert str(good) in Path("/proc/self/maps").read_text()


def test_driver_detection_reads_marker_files(tmp_path: Path) -> None:
    marker = tmp_path / "version"
    assert not frozen.nvidia_driver_present([str(marker)])
    marker.write_text("NVRM version: 580")
    assert frozen.nvidia_driver_present([str(tmp_path / "nope"), str(marker)])


def test_search_roots_keep_only_site_packages(tmp_path: Path) -> None:
    site = tmp_path / "lib" / "site-packages"
    site.mkdir(parents=True)
    roots = frozen.search_roots([str(site), str(tmp_path), str(site), str(tmp_path / "x.zip")])
    assert roots == [site]


def test_embedded_models_dir_follows_the_data_dir(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    monkeypatch.delenv("JARVIS_EMBEDDED_MODELS", raising=False)
    monkeypatch.setenv("JARVIS_DATA_DIR", str(tmp_path))
    assert frozen.embedded_models_dir() == tmp_path / "embedded-models"
    monkeypatch.setenv("JARVIS_EMBEDDED_MODELS", str(tmp_path / "elsewhere"))
    assert frozen.embedded_models_dir() == tmp_path / "elsewhere"


def run_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60,
        env={**os.environ, **env},
    )


def test_prepare_runtime_makes_weight_packages_beside_a_bundle_importable(tmp_path: Path) -> None:
    models = tmp_path / "embedded-models"
    (models / "weightpkg_for_test").mkdir(parents=True)
    (models / "weightpkg_for_test" / "__init__.py").write_text("")
    code = (
        "import importlib.util as u\n"
        "from app.frozen import prepare_runtime\n"
        "assert u.find_spec('weightpkg_for_test') is None\n"
        "r = prepare_runtime()\n"
        "assert prepare_runtime() is r\n"
        "print(r.frozen, r.models_path, u.find_spec('weightpkg_for_test') is not None)\n"
    )
    result = run_python(code, JARVIS_DATA_DIR=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", str(models), "True"]
    missing = run_python(code, JARVIS_DATA_DIR=str(tmp_path / "none"))
    assert "None False" in missing.stdout


def test_bundle_root_is_meipass(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert frozen.is_frozen()
    assert frozen.bundle_root() == tmp_path
    assert frozen.search_roots(["/ignored/site-packages"]) == [tmp_path]
