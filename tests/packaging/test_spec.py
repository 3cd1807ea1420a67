"""pyinstaller.spec stays consistent with the embedded weight list and the app's entry."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# Packages that carry code the bundle runs, not only weights.
CODE_PACKAGES = {"openwakeword"}


def spec_excludes() -> set[str]:
    """Evaluate the EXCLUDES list literally (the spec itself needs PyInstaller to run)."""
    tree = ast.parse((REPO / "pyinstaller.spec").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "EXCLUDES":
            names: set[str] = set()
            for item in node.value.elts:  # type: ignore[attr-defined]
                if isinstance(item, ast.Constant):
                    names.add(item.value)
                else:  # *[f"prefix{i}" for i in range(a, b)]
                    comp = item.value
                    prefix = comp.elt.values[0].value
                    start, stop = (a.value for a in comp.generators[0].iter.args)
                    names.update(f"{prefix}{i}" for i in range(start, stop))
            return names
    raise AssertionError("EXCLUDES not found in pyinstaller.spec")


def weight_modules() -> set[str]:
    lines = (REPO / "installers" / "embedded-models.txt").read_text().splitlines()
    names = {line.split("==")[0].strip() for line in lines if line and not line.startswith("#")}
    return {name.replace("-", "_") for name in names} - CODE_PACKAGES


def test_weights_never_go_into_the_bundle() -> None:
    missing = weight_modules() - spec_excludes()
    assert not missing, f"weight packages the bundle would pull in: {sorted(missing)}"


def test_embedded_list_pins_every_package_exactly() -> None:
    lines = (REPO / "installers" / "embedded-models.txt").read_text().splitlines()
    reqs = [line for line in lines if line and not line.startswith("#")]
    assert len(reqs) == 22 + 6 + 1 + 1 + 4 + 1 + 1 + 1 + 1
    assert all(re.fullmatch(r"[a-z0-9-]+==[0-9.]+", req) for req in reqs), reqs


def test_entry_prepares_the_runtime_before_the_cli() -> None:
    entry = (REPO / "installers" / "pyinstaller" / "entry.py").read_text()
    assert entry.index("prepare_runtime()") < entry.index("from app.cli import main")
    spec = (REPO / "pyinstaller.spec").read_text()
    assert '"installers" / "pyinstaller" / "entry.py"' in spec
