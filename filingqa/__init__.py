"""filingqa: question answering over financial filings as a compiled DSPy program.

The pipeline reads like its packages: ``filingqa.datasets`` (questions and context),
``filingqa.program`` (LM layer and modules), ``filingqa.signatures`` (typed LM steps),
``filingqa.sandbox`` (runs model-written Python), ``filingqa.metrics`` (the strict judge),
``filingqa.optimizers`` (compile-time metric and optimizers), ``filingqa.models`` (pinned
offline model files).
"""

__version__ = "0.1.0"
