"""Writes of the topics app: taxonomy loading, tagging, statistics."""
