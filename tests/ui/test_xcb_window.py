"""`jarvis run` opens its window on a real X server through Qt's xcb plugin (not offscreen).

Xvfb is the X server; xdotool finds the window and presses Ctrl+Q in it (or the test
sends the process Ctrl-C, as a terminal would); xwd takes the screenshot, read here as
plain XWD. The installers put all of them (and the xcb libraries
Qt needs) on the machine; the test skips, saying which is absent, elsewhere.
"""

from __future__ import annotations

import os
import shutil
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from app.doctor import XCB_LIBRARIES, loadable
from app.pipeline.demo import DemoAssets
from app.session.record import SESSION_ENDED, read_record

TOOLS = ("Xvfb", "xdotool", "xwd")
TITLE = "Jarvis for the room"
OUTPUT = "output.txt"  # what the app writes, under the test's tmp_path
pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11 is Linux-only"),
    pytest.mark.slow,  # the app starts its models while the window is up
]


def require_tools() -> None:
    absent = [t for t in TOOLS if shutil.which(t) is None]
    if absent:
        pytest.skip(f"needs {', '.join(absent)} (apt-get install xvfb xdotool x11-apps)")


@pytest.fixture
def display():
    """A fresh Xvfb server; its display name, e.g. ':5'."""
    require_tools()
    read, write = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x900x24", "-nolisten", "tcp"],
        pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    os.close(write)
    with os.fdopen(read) as fd:
        number = fd.readline().strip()
    if not number:
        server.kill()
        pytest.fail(f"Xvfb did not start: {server.communicate()[1].decode(errors='replace')}")
    yield f":{number}"
    server.terminate()
    server.wait(timeout=10)


def xdotool(display: str, *args: str) -> str:
    result = subprocess.run(["xdotool", *args], env={**os.environ, "DISPLAY": display},
                            capture_output=True, text=True, timeout=30)
    return result.stdout.strip() if result.returncode == 0 else ""


def read_xwd(data: bytes) -> np.ndarray:
    """An XWD dump (ZPixmap, true colour) as an (height, width, 3) RGB array."""
    fields = struct.unpack(">25I", data[:100])
    header_size, pixmap_format, width, height = fields[0], fields[2], fields[4], fields[5]
    byte_order, bits_per_pixel, bytes_per_line = fields[7], fields[11], fields[12]
    masks, ncolors = fields[14:17], fields[19]
    assert pixmap_format == 2 and bits_per_pixel in (24, 32), "xwd: not a true-colour ZPixmap"
    size = bits_per_pixel // 8
    start = header_size + 12 * ncolors  # the colormap's XWDColor entries come first
    rows = np.frombuffer(data, dtype=np.uint8, count=bytes_per_line * height, offset=start)
    raw = rows.reshape(height, bytes_per_line)[:, : width * size].reshape(height, width, size)
    shifts = range(size) if byte_order == 0 else range(size - 1, -1, -1)  # LSB or MSB first
    value = sum(raw[..., i].astype(np.uint32) << (8 * s) for i, s in enumerate(shifts))
    channels = [(value & m) >> (m & -m).bit_length() - 1 for m in masks]
    return np.stack(channels, axis=-1).astype(np.uint8)


def screenshot(display: str) -> np.ndarray:
    dump = subprocess.run(["xwd", "-root", "-silent", "-display", display],
                          capture_output=True, timeout=30, check=True).stdout
    return read_xwd(dump)


def window_box(display: str, window: str) -> tuple[int, int, int, int]:
    """x, y, width, height of a window on the root."""
    values = dict(
        line.split("=", 1) for line in xdotool(display, "getwindowgeometry", "--shell",
                                                window).splitlines() if "=" in line
    )
    return int(values["X"]), int(values["Y"]), int(values["WIDTH"]), int(values["HEIGHT"])


def save_png(pixels: np.ndarray, path: Path) -> None:
    from PySide6.QtGui import QImage

    rgb = np.ascontiguousarray(pixels)
    h, w, _ = rgb.shape
    QImage(rgb.data, w, h, 3 * w, QImage.Format.Format_RGB888).save(str(path))


def launch(display: str, tmp_path: Path) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "DISPLAY": display,
        "QT_QPA_PLATFORM": "xcb",
        "JARVIS_DATA_DIR": str(tmp_path / "data"),  # the session record
        "XDG_CONFIG_HOME": str(tmp_path / "config"),  # saved preferences
    }
    pdf = DemoAssets.bundled().pdf
    # Output to a file, not a pipe nobody reads while the app runs: a full pipe would
    # block the app's logging, and so its exit.
    with open(tmp_path / OUTPUT, "w") as out:
        return subprocess.Popen([sys.executable, "-m", "app", "run", str(pdf)], env=env,
                                stdout=out, stderr=subprocess.STDOUT, text=True)


def wait_for_window(display: str, app: subprocess.Popen[str], timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and app.poll() is None:
        found = xdotool(display, "search", "--onlyvisible", "--name", TITLE).split()
        if found:
            return found[0]
        time.sleep(0.5)
    return ""


def painted(display: str, window: str, timeout: float) -> np.ndarray:
    """The window's pixels once it shows more than a flat fill (or the last try)."""
    deadline = time.monotonic() + timeout
    while True:
        x, y, w, h = window_box(display, window)
        crop = screenshot(display)[y : y + h, x : x + w]
        if crop.size and crop.std() > 20 or time.monotonic() > deadline:
            return crop
        time.sleep(1.0)


def test_jarvis_run_opens_a_painted_window_on_xcb(display: str, tmp_path: Path) -> None:
    missing = [pkg for pkg, lib in XCB_LIBRARIES if not loadable(lib)]
    assert not missing, f"Qt's xcb plugin needs: apt-get install {' '.join(missing)}"
    app = launch(display, tmp_path)
    try:
        window = wait_for_window(display, app, timeout=90)
        assert window, f"no window appeared; jarvis run said:\n{_output(app, tmp_path)}"
        crop = painted(display, window, timeout=30)
        save_png(crop, tmp_path / "window.png")

        h, w, _ = crop.shape
        assert w >= 600 and h >= 400, f"window is {w}x{h}"
        colours = len(np.unique(crop.reshape(-1, 3), axis=0))
        assert crop.std() > 20 and colours > 50, (
            f"blank window (std {crop.std():.1f}, {colours} colours); see {tmp_path}")

        xdotool(display, "windowfocus", "--sync", window)
        xdotool(display, "key", "ctrl+q")
        assert exit_code(app, timeout=60) == 0, _output(app, tmp_path)
    finally:
        if app.poll() is None:
            app.send_signal(signal.SIGKILL)
            app.wait()


def test_ctrl_c_in_the_terminal_closes_the_window_and_its_record(display: str,
                                                                  tmp_path: Path) -> None:
    app = launch(display, tmp_path)
    try:
        assert wait_for_window(display, app, timeout=90), _output(app, tmp_path)
        time.sleep(3.0)  # the workers are starting: Ctrl-C must stop them as well
        app.send_signal(signal.SIGINT)
        assert exit_code(app, timeout=60) == 0, _output(app, tmp_path)
        records = sorted((tmp_path / "data" / "sessions").glob("*.jsonl"))
        assert records, _output(app, tmp_path)
        assert read_record(records[-1])[-1]["kind"] == SESSION_ENDED
    finally:
        if app.poll() is None:
            app.send_signal(signal.SIGKILL)
            app.wait()


def exit_code(app: subprocess.Popen[str], timeout: float) -> int | None:
    """The app's exit code, or None when it has not exited within ``timeout``."""
    try:
        return app.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def _output(app: subprocess.Popen[str], tmp_path: Path) -> str:
    """What the app said (its exit code first), stopping it if it still runs."""
    if app.poll() is None:
        app.kill()
        app.wait(timeout=30)
    said = (tmp_path / OUTPUT).read_text(errors="replace")
    return f"exit code {app.returncode}\n{said[-4000:]}"
