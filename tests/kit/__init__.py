"""The shared test kit: fakes and fixtures every test folder uses.

``lm``: one fake DSPy engine (replayed replies or rules by prompt marker, request recording,
injected faults) and ``fake_lm`` over it; ``replies``: fenced and chat-format completions,
FinancialQA's prompt markers and canned replies; ``passages``: a tiny corpus, a search
handle over a list and what such a handle holds; ``data``: a FinanceBench split on disk
and judged rows; ``clock``: a clock a scripted LM advances, timing the runner's rows.
"""
