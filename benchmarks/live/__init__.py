"""Benchmark helpers for live_meeting.py: render, play and score a spoken meeting."""
