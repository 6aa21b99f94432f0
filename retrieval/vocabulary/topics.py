"""Narrative topics: what filings answer in prose, how questions ask it, and how the answering
page words it.

Questions about segments, geographies, customers, legal matters or acquisitions share few
words with the page that answers them ("Who are Boeing's primary customers?" is answered by
"the U.S. government ... accounted for 40% of revenues"). :func:`narrative_topics` names the
topics a question asks about; :data:`NARRATIVE_TOPICS` gives each the words its answering
pages use, which :func:`~filingqa.retrieval.vocabulary.lexicon.search_text` adds to the query.
"""

from __future__ import annotations

import re

NARRATIVE_TOPICS: dict[str, tuple[tuple[str, ...], str]] = {
    "customers": (
        ("customer", "customers", "client concentration", "who buys"),
        "major customers significant customers concentration accounted for percent of revenues",
    ),
    "legal": (
        ("legal", "lawsuit", "litigation", "court", "sued", "settlement", "investigation"),
        "legal proceedings litigation claims contingencies",
    ),
    "segments": (
        ("segment", "segments", "business unit", "division", "divisions"),
        "segment information reportable segments operating segments",
    ),
    "product_categories": (
        ("product category", "product categories", "service categories", "product line"),
        "revenue by product category disaggregation of revenue",
    ),
    "geographies": (
        ("geographic", "geography", "geographies", "region", "regions", "country", "countries"),
        "revenues by geographic area region united states international",
    ),
    "separation": (
        ("spin off", "spin-off", "spinning off", "spun off", "separation", "discontinued"),
        "separation spin-off discontinued operations distribution",
    ),
    "acquisitions": (
        ("acquire", "acquired", "acquisition", "acquisitions", "merger", "bought"),
        "acquisitions business combinations purchase price acquired",
    ),
    "dividends": (
        ("dividend", "dividends", "buyback", "buybacks", "repurchase", "repurchases"),
        "cash dividends declared per share share repurchase program",
    ),
    "debt_securities": (
        ("debt securities", "notes", "bonds", "registered to trade", "securities exchange"),
        "securities registered pursuant to section 12(b) notes due trading symbol exchange",
    ),
    "derivatives": (
        ("derivative", "derivatives", "hedge", "hedging", "swap", "swaps"),
        "derivative instruments hedges notional amount",
    ),
    "pensions": (
        ("pension", "pensions", "retiree", "retirees", "postretirement", "benefit payments"),
        "expected benefit payments pension postretirement plans",
    ),
    "risk": (
        ("risk factor", "risk factors", "biggest risk", "main risks", "exposed to"),
        "risk factors",
    ),
    "business": (
        ("what business", "business model", "what products", "primarily sell", "line of business"),
        "business overview products and services we are",
    ),
    "leadership": (
        ("ceo", "chief executive", "cfo", "board member", "director", "directors", "nominee"),
        "executive officers election of directors votes for against",
    ),
    "stores": (
        ("stores", "store count", "locations", "branches"),
        "number of stores store count square footage",
    ),
}
"""Narrative topics: ``name -> (how questions ask about it, the words of its answering page)``."""

_PATTERNS = {
    name: re.compile(r"\b(?:" + "|".join(map(re.escape, asks)) + r")\b", re.IGNORECASE)
    for name, (asks, _) in NARRATIVE_TOPICS.items()
}


def narrative_topics(text: str) -> list[str]:
    """The narrative topics ``text`` asks about, in :data:`NARRATIVE_TOPICS` order."""
    return [name for name, pattern in _PATTERNS.items() if pattern.search(text)]


def topic_words(text: str) -> list[str]:
    """The answering-page words of each narrative topic ``text`` asks about."""
    return [NARRATIVE_TOPICS[name][1] for name in narrative_topics(text)]
