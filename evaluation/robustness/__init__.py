"""Drivers of the robustness and speed checks the benchmarks run: prompt injection inside
documents, kill-and-resume of ``eval``, the executor check of gold programs, and fast
inference switched off against on."""
