"""Company names as filings and questions write them, reduced to one matching key."""

from __future__ import annotations

import re
from functools import lru_cache

_NAME_STOPWORDS = frozenset(
    {"the", "and", "inc", "incorporated", "corp", "corporation", "co", "company"}
    | {"plc", "ltd", "limited", "llc", "lp", "com"}
)


@lru_cache(maxsize=4096)
def normalise_company(name: str) -> str:
    """A matching key: "Best Buy Co., Inc." / "BESTBUY" → "bestbuy", "3M Company" → "3m"."""
    text = re.sub(r"['’]", "", name.lower())
    tokens = [t for t in re.findall(r"[a-z0-9]+", text) if t not in _NAME_STOPWORDS]
    return "".join(tokens) or "".join(re.findall(r"[a-z0-9]+", text))
