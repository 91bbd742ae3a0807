"""Writes of the papers app: harvest.py fetches, storage.py stores parsed records."""
