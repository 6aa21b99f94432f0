"""The LM layer: one way to get a backbone, the in-process and served llama.cpp engines, a
scripted engine answering by prompt text, the adapters that lay out requests, and the
per-step trace and faults of LM calls."""
