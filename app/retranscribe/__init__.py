"""A cleaner transcript after the meeting: the kept meeting audio recognised again with
the best Whisper model, diarized offline with pyannote.audio, the live speakers' names
carried over by voice (``jarvis retranscribe``)."""
