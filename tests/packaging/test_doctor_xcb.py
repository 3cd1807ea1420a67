"""`jarvis doctor` names a missing Qt xcb library with the package that installs it."""

from __future__ import annotations

from pathlib import Path

from app.doctor import FAIL, OK, WARN, XCB_LIBRARIES, check_window_system

REPO = Path(__file__).resolve().parents[2]
PRESENT = ("libc6", "libc.so.6")
ABSENT = ("libjarvis-nothing0", "libjarvis-nothing.so.0")


def test_missing_library_is_named_with_its_install_command() -> None:
    (row,) = check_window_system((PRESENT, ABSENT), platform="linux", display=":0")
    assert row.status == FAIL
    assert "libjarvis-nothing.so.0 (package libjarvis-nothing0)" in row.detail
    assert "libc" not in row.detail
    assert row.fix.startswith("sudo apt-get install libjarvis-nothing0 ")


def test_without_a_display_it_is_a_warning() -> None:
    (row,) = check_window_system((ABSENT,), platform="linux", display="")
    assert row.status == WARN and "X11 desktop" in row.detail


def test_all_present_and_other_systems() -> None:
    (row,) = check_window_system((PRESENT,), platform="linux", display=":0")
    assert row.status == OK
    assert check_window_system((ABSENT,), platform="win32") == []


def test_installers_install_what_doctor_checks() -> None:
    for script in ("installers/setup-embedded.sh", "installers/linux/install.sh"):
        text = (REPO / script).read_text()
        assert all(pkg in text for pkg, _ in XCB_LIBRARIES), script
