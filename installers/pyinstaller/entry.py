"""Entry point of the frozen ``jarvis`` executable (see pyinstaller.spec)."""

import sys

from app.frozen import prepare_runtime

prepare_runtime()  # before anything imports torch, ctranslate2 or llama_cpp

from app.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
