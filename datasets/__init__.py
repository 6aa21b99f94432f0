"""Loaders for the evaluation datasets, named ``name:split``."""
