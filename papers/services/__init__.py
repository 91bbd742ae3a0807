"""Writes of the papers app. Harvesting lives in harvest.py, storage of parsed records in storage.py."""
