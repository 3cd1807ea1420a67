"""PyInstaller runtime hook: the network opt-outs of app.privacy before any other code runs.

Runtime hooks run ahead of the entry script and of the other packages' hooks; importing
``app`` applies ``app.privacy`` (its ``__init__`` does), so no bundled library is imported
before its switch is set.
"""

import app  # noqa: F401
