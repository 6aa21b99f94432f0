"""The search pipeline the program calls: a question scoped to the filings it names, hybrid
search, documents ranked and searched again, the learned reranker over the candidates, and
pages as the unit of evidence."""
