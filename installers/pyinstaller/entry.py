"""Entry point of the frozen ``jarvis`` executable (see pyinstaller.spec)."""

import multiprocessing
import sys

from app.frozen import prepare_runtime  # importing app applies app.privacy (rth_privacy too)

# Worker processes (pymupdf.layout starts some) re-enter this executable when spawned.
multiprocessing.freeze_support()
prepare_runtime()  # before anything imports torch, ctranslate2 or llama_cpp

from app.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
