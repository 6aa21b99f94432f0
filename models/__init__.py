"""Pinned, hash-verified model files and the offline sources they are assembled from."""
