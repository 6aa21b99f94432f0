"""The foundations every room builds on: where files live, the on-disk caches, and numbers
as filings and answers write them."""
