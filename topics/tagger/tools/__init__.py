"""Offline tools for the tagger (corpus reading, model distillation). Not used at run time."""
