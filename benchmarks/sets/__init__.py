"""The broad benchmark set generator (``python benchmarks/make_set.py``); see README.md."""
