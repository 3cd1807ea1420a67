"""Real documents indexed once per test session."""

from __future__ import annotations

from functools import cache

import pytest

from app.document import DocumentIndex, open_document
from tests.conftest import shared_path

DEV_DOCUMENTS = ("d01", "d02", "d03", "d04")


@cache
def _index(relative: str) -> DocumentIndex:
    return open_document(shared_path(relative))


def indexed(relative: str) -> DocumentIndex:
    shared_path(relative)  # skip (not fail) when the shared data is absent
    return _index(relative)


@pytest.fixture(scope="session")
def paper() -> DocumentIndex:
    return indexed("data/papers_pdf/N18-3011.pdf")
