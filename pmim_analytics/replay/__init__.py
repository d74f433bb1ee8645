"""Replays and manual logs: the event vocabulary, readers, writers and validation."""
