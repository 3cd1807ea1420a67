"""Kept for the summary and speech, which still import from here; the words live in
``app.language``."""

from app.language.sentences import sentences
from app.language.talk import asks_about_document, contains_question, reports_failed_recall
from app.language.words import QUESTION_WORDS, content_tokens, is_number_token, words

__all__ = [
    "QUESTION_WORDS",
    "asks_about_document",
    "contains_question",
    "content_tokens",
    "is_number_token",
    "reports_failed_recall",
    "sentences",
    "words",
]
