"""DSPy modules that compose the signatures into the question-answering program."""
