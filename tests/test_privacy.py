"""Nothing leaves the machine.

The main test runs ``jarvis index`` on the demo PDF, loads every embedded model with one
inference each, and plays the first seconds of the demo meeting, each in a child process
whose environment lacks every switch of ``app.privacy`` (so the app must set them itself),
with ``HOME`` in a temporary folder, inside a fresh network namespace when ``unshare -n``
works, and watched twice:

- Python's socket layer is guarded by a ``sitecustomize`` on ``PYTHONPATH``: every
  connect / sendto / name lookup other than to this machine is refused and written down;
- native code (ONNX Runtime uploads from C++) is watched with ``strace``: any IPv4/IPv6
  connect or send to another machine, or a DNS query (port 53).

It fails on any of these, or when ONNX Runtime's telemetry store (``~/.cache/Microsoft``)
appears. ``python -m tests.test_privacy load-models`` is the model-loading child.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from app import privacy

REPO = Path(__file__).resolve().parents[1]
DEMO_PDF = REPO / "resources" / "demo" / "green_roofs.pdf"
TELEMETRY_STORE = Path(".cache") / "Microsoft"

GUARD = textwrap.dedent('''
    """Refuses and records every socket use that would leave this machine (test only)."""
    import ipaddress, json, os, socket

    _LOG = os.environ["JARVIS_NET_LOG"]
    _LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}

    def _local(host):
        if host in (None, "") or str(host).lower() in _LOCAL_NAMES:
            return True
        try:
            return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
        except ValueError:
            return False

    def _refuse(what, target):
        with open(_LOG, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"pid": os.getpid(), "call": what, "target": repr(target)}) + "\\n")
        raise OSError(f"network use refused by the privacy test: {what} {target!r}")

    def _checked(what, original, index):
        def call(*args, **kwargs):
            sock, target = args[0], args[index]
            if sock.family in (socket.AF_INET, socket.AF_INET6):
                host = target[0] if isinstance(target, tuple) else target
                if not _local(host):
                    _refuse(what, target)
            return original(*args, **kwargs)
        return call

    def _lookup(what, original):
        def call(host, *args, **kwargs):
            if not _local(host):
                _refuse(what, host)
            return original(host, *args, **kwargs)
        return call

    socket.socket.connect = _checked("connect", socket.socket.connect, 1)
    socket.socket.connect_ex = _checked("connect_ex", socket.socket.connect_ex, 1)
    socket.socket.sendto = _checked("sendto", socket.socket.sendto, -1)
    for _name in ("getaddrinfo", "gethostbyname", "gethostbyname_ex"):
        setattr(socket, _name, _lookup(_name, getattr(socket, _name)))
''')

# strace lines that mean the network was used: IPv4/IPv6 to anything but loopback, or any
# DNS packet. (nscd's socket is left alone: user and group look-ups use it too.)
_INET = re.compile(
    r"sa_family=AF_INET6?, .*?(?:inet_addr\(\"([^\"]+)\"\)|inet_pton\(AF_INET6, \"([^\"]+)\")"
)
_DNS = re.compile(r"sin6?_port=htons\(53\)")
_LOOPBACK = re.compile(r"^(127\.|::1$|::ffff:127\.)")


def native_attempts(trace: Path) -> list[str]:
    """The traced syscalls that reached for another machine or a name lookup."""
    found = []
    for line in trace.read_text(errors="replace").splitlines():
        if _DNS.search(line):
            found.append(line)
            continue
        match = _INET.search(line)
        if match and not _LOOPBACK.match(match.group(1) or match.group(2) or ""):
            found.append(line)
    return found


def network_namespace() -> list[str]:
    """``unshare -n`` when it works here: then nothing can leave even if something tries."""
    if shutil.which("unshare") is None:
        return []
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True)
    return ["unshare", "-n"] if probe.returncode == 0 else []


def strace_prefix(trace: Path) -> list[str]:
    if shutil.which("strace") is None:
        return []
    return ["strace", "-f", "-qq", "--seccomp-bpf", "-e",
            "trace=connect,sendto,sendmsg,sendmmsg", "-o", str(trace)]


def child_env(tmp: Path) -> dict[str, str]:
    """The test's environment less every switch the app must set itself; HOME elsewhere."""
    from app.paths import cache_dir

    env = {k: v for k, v in os.environ.items()
           if k not in privacy.OPT_OUTS
           and k not in (privacy.OFFLINE, privacy.OFFLINE_BY_APP, "TRANSFORMERS_OFFLINE",
                         "XDG_CACHE_HOME", "PYTHONPATH")}
    home = tmp / "home"
    home.mkdir()
    asound = Path.home() / ".asoundrc"  # the ALSA null device of machines without sound
    if asound.is_file():
        shutil.copy(asound, home / ".asoundrc")
    guard = tmp / "guard"
    guard.mkdir()
    (guard / "sitecustomize.py").write_text(GUARD)
    env.update({
        "HOME": str(home),
        "PYTHONPATH": os.pathsep.join([str(guard), str(REPO)]),
        "JARVIS_NET_LOG": str(tmp / "python-network.jsonl"),
        "JARVIS_DATA_DIR": str(tmp / "data"),
        "JARVIS_CACHE_DIR": str(cache_dir()),  # joined weights are reused, not rebuilt
        "QT_QPA_PLATFORM": "offscreen",
    })
    return env


def run_watched(args: list[str], tmp: Path, name: str, timeout: float) -> str:
    trace = tmp / f"{name}.strace"
    command = [*network_namespace(), *strace_prefix(trace), sys.executable, *args]
    result = subprocess.run(command, env=child_env_cached(tmp), cwd=tmp, capture_output=True,
                            text=True, timeout=timeout)
    output = result.stdout + result.stderr
    assert result.returncode in (0, 1), f"{name} crashed ({result.returncode}):\n{output[-3000:]}"
    native = native_attempts(trace) if trace.exists() else []
    assert not native, f"{name} reached for the network from native code:\n" + "\n".join(native)
    store = tmp / "home" / TELEMETRY_STORE
    assert not store.exists(), f"{name} created ONNX Runtime's telemetry store: " + ", ".join(
        sorted(str(p.relative_to(store)) for p in store.rglob("*")))
    return output


_ENV: dict[Path, dict[str, str]] = {}


def child_env_cached(tmp: Path) -> dict[str, str]:
    if tmp not in _ENV:
        _ENV[tmp] = child_env(tmp)
    return _ENV[tmp]


@pytest.mark.slow
def test_index_models_and_demo_never_touch_the_network(tmp_path: Path) -> None:
    if shutil.which("strace") is None and not network_namespace():
        pytest.skip("needs strace or unshare -n to see native network use "
                    "(installers/setup-embedded.sh installs strace)")
    indexed = run_watched(["-m", "app", "index", str(DEMO_PDF)], tmp_path, "index", 300)
    assert "sentences:" in indexed, indexed[-2000:]
    loaded = run_watched(["-m", "tests.test_privacy", "load-models"], tmp_path, "models", 600)
    assert "every model loaded" in loaded, loaded[-3000:]
    demo = run_watched(["-m", "app", "demo", "--headless", "--fast", "--timeout", "20"],
                       tmp_path, "demo", 600)
    assert "Session record:" in demo, demo[-3000:]

    log = tmp_path / "python-network.jsonl"
    refused = log.read_text().splitlines() if log.exists() else []
    assert not refused, "Python code reached for the network:\n" + "\n".join(refused)


def load_every_model() -> None:
    """Each embedded model through the app's own loaders, with one inference each."""
    import numpy as np

    from app.embedding import Embedder
    from app.llm.factory import resolve_model_path
    from app.llm.llama import LlamaBackend
    from app.models import resolve_file
    from app.speech.asr import WhisperTranscriber
    from app.speech.vad import SileroVad
    from app.speech.wake import WakeWordDetector
    from app.voice.engines import PiperEngine

    tone = (0.1 * np.sin(np.linspace(0, 2000 * np.pi, 16000))).astype(np.float32)
    from kokoro_onnx import Kokoro  # the pack's own voice: any voice starts the same runtime

    kokoro = Kokoro(str(resolve_file("kokoro", "model")), str(resolve_file("kokoro", "voices")))
    kokoro.create("Planted roofs.", next(iter(kokoro.voices.keys())), 1.0, lang="en-us")
    next(PiperEngine().synthesize_sentences("Planted roofs."))
    WakeWordDetector().feed(tone, 0)
    SileroVad()(tone[:512])
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    get_speech_timestamps(tone, VadOptions())
    WhisperTranscriber().transcribe(tone, 0.0)
    Embedder().encode(["Planted roofs were cooler."])
    LlamaBackend(resolve_model_path(None)).close()
    try:  # pyannote.audio (the retranscription's diarization) ships OpenTelemetry metrics
        from app.retranscribe.diarization import OfflineDiarizer
    except ImportError:
        print("pyannote.audio is not installed: offline diarization not loaded", flush=True)
    else:
        OfflineDiarizer()(np.concatenate([tone, tone]))
    print("every model loaded", flush=True)


# --- the switches themselves (fast) -----------------------------------------------------

def test_apply_sets_every_opt_out_and_goes_offline_once_models_are_here() -> None:
    env: dict[str, str] = {"ORT_DISABLE_TELEMETRY": "0"}
    privacy.apply(env, models_present=lambda: True)
    assert all(env[k] == v for k, v in privacy.OPT_OUTS.items())  # an opt-out is not optional
    assert env[privacy.OFFLINE] == "1" and env[privacy.OFFLINE_BY_APP] == "1"

    missing: dict[str, str] = {}
    privacy.apply(missing, models_present=lambda: False)  # `jarvis models pull` must work
    assert privacy.OFFLINE not in missing

    user: dict[str, str] = {privacy.OFFLINE: "0"}
    privacy.apply(user, models_present=lambda: True)
    assert user[privacy.OFFLINE] == "0" and privacy.OFFLINE_BY_APP not in user


def test_a_pull_lifts_only_the_offline_mode_the_app_chose() -> None:
    import huggingface_hub.constants as hub

    chosen = {privacy.OFFLINE: "1", privacy.OFFLINE_BY_APP: "1"}
    saved = hub.HF_HUB_OFFLINE
    try:
        hub.HF_HUB_OFFLINE = True
        privacy.allow_hub(chosen)
        assert chosen == {privacy.OFFLINE: "0"} and hub.HF_HUB_OFFLINE is False
        hub.HF_HUB_OFFLINE = True
        users = {privacy.OFFLINE: "1"}
        privacy.allow_hub(users)
        assert users == {privacy.OFFLINE: "1"} and hub.HF_HUB_OFFLINE is True
    finally:
        hub.HF_HUB_OFFLINE = saved


def _modules_after(code: str, with_app: bool) -> list[str]:
    script = ("import app\n" if with_app else "") + code + (
        "\nimport json, sys; print(json.dumps(sorted(m for m in sys.modules if m.startswith("
        "'pymupdf.layout'))))")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                         text=True, timeout=120, check=True).stdout
    return list(json.loads(out.strip().splitlines()[-1]))


def test_import_pymupdf_leaves_the_layout_analyzer_to_the_index() -> None:
    assert "pymupdf.layout" in _modules_after("import pymupdf", with_app=False)  # its default
    assert _modules_after("import pymupdf", with_app=True) == []
    code = "import pymupdf, app.document.tables\nassert callable(pymupdf._get_layout)"
    assert "pymupdf.layout" in _modules_after(code, with_app=True)  # the table finder's model


def test_installers_export_the_same_switches() -> None:
    for script in ("installers/setup-embedded.sh", "installers/linux/install.sh"):
        text = (REPO / script).read_text()
        exported = dict(re.findall(r"\b([A-Z_]+)=(\S+)", text))
        assert all(exported.get(k) == v for k, v in privacy.OPT_OUTS.items()), script
    ps1 = (REPO / "installers" / "windows" / "install.ps1").read_text()
    for key, value in privacy.OPT_OUTS.items():
        assert f'$env:{key} = "{value}"' in ps1
    hook = (REPO / "installers" / "pyinstaller" / "rth_privacy.py").read_text()
    assert "import app" in hook and "rth_privacy.py" in (REPO / "pyinstaller.spec").read_text()


if __name__ == "__main__" and sys.argv[1:] == ["load-models"]:
    load_every_model()
