"""The language of the meeting and the document, in one place.

- ``words``: tokens, stopword lists, stems and content words;
- ``numbers``: number words, scales, quantities (one ``Quantity``) and the numbers of a text;
- ``sentences``: the one sentence splitter for talk, answers and document text;
- ``values``: whether a text carries a value (a citation, a reply, a spoken answer);
- ``talk``: the kinds of talk (questions, questions to the room, retraction, failed
  recall, moving on, negation, ...) as one table of phrase patterns.

Pure text logic: no model, no document, no clock; every part of the product that reads
words uses these.
"""
