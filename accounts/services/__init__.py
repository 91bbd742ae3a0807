"""Writes of the accounts app, one module per concern (tokens, follows, lists, sync, ...)."""
