"""What filings' words mean: fiscal calendars and the period expressions of questions,
company names as filings and questions write them, and a small finance lexicon (metrics and
the line items filings print them as). Pure functions over text, shared by ingestion, the
index's signals, the search pipeline, the router's features and the formula checks."""
