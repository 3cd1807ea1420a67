"""Parsing and validation of finished generations (pure)."""

from __future__ import annotations

import logging

import pytest

from app.llm.output import parse_output
from app.llm.types import LLMOutputError
from tests.llm.conftest import SCHEMA


def test_valid_object_is_returned() -> None:
    assert parse_output('{"sid": 2, "year": 1886}', SCHEMA, "stop", "monitor") == {
        "sid": 2, "year": 1886}


def test_free_text_has_no_data() -> None:
    assert parse_output("Hello there", None, "stop", "direct") is None


@pytest.mark.parametrize(
    ("text", "finish", "needle"),
    [
        ('{"sid": 2, "ye', "length", "cut off"),
        ("Hello there", "length", "cut off"),
        ('{"sid": 2, "year": }', "stop", "not valid JSON"),
        ('{"sid": 9, "year": 1886}', "stop", "schema"),
        ('{"sid": 2}', "stop", "schema"),
        ('{"sid": 2, "year": 1886, "x": 1}', "stop", "schema"),
        ("", "stop", "not valid JSON"),
    ],
)
def test_bad_output_is_typed_and_keeps_raw(
    text: str, finish: str, needle: str, caplog: pytest.LogCaptureFixture
) -> None:
    schema = SCHEMA if text != "Hello there" else None
    with caplog.at_level(logging.WARNING), pytest.raises(LLMOutputError) as caught:
        parse_output(text, schema, finish, "monitor")
    assert caught.value.raw == text
    assert needle in caught.value.user_message
    assert caught.value.stage == "monitor"
    assert repr(text) in caplog.text


def test_non_object_json_is_rejected() -> None:
    with pytest.raises(LLMOutputError):
        parse_output("[1, 2]", {"type": "array"}, "stop", "monitor")
