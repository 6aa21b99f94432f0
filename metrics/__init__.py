"""The strict numeric-tolerant judge and the official dataset metrics."""
