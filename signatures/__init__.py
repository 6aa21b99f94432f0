"""One DSPy signature per reasoning step, each with typed outputs."""
