"""Runs model-written Python in a separate, restricted process."""
