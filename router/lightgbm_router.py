"""The trained router: LightGBM on :mod:`~filingqa.router.features` decides whether
a question gets the full verify-refine loop; the path (PoT or CoT) stays the keyword rule's.

Saved as ``model.txt`` (LightGBM's text format) and ``router.json`` (feature names and
version, decision threshold). ``filingqa compile`` trains it
(:mod:`filingqa.router.training`).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from filingqa.router.features import FEATURE_NAMES, FEATURE_VERSION, extract
from filingqa.router.rule import RoutingDecision, route_by_rule

if TYPE_CHECKING:
    import lightgbm

MODEL_FILE = "model.txt"
META_FILE = "router.json"


class RouterMeta(BaseModel):
    """What a saved router model expects and how its score is read."""

    model_config = ConfigDict(extra="forbid")

    feature_version: int = FEATURE_VERSION
    feature_names: list[str] = list(FEATURE_NAMES)
    threshold: float = 0.5


class LightGBMRouter:
    """``router(question) -> RoutingDecision`` with ``source="lightgbm"``: the full loop
    when the model's probability that it beats a single pass reaches the threshold."""

    def __init__(self, booster: lightgbm.Booster, threshold: float = 0.5) -> None:
        self.booster = booster
        self.threshold = threshold
        self._lock = threading.Lock()

    def __deepcopy__(self, memo: dict[int, object]) -> LightGBMRouter:
        """The same router: it is read-only once trained, so copies of a program (DSPy
        deep-copies modules) share it instead of failing on its lock."""
        return self

    @classmethod
    def load(cls, directory: Path) -> LightGBMRouter:
        """The router saved in ``directory``.

        Raises:
            FileNotFoundError: no router there.
            ValueError: it was trained on other features than this code computes.
        """
        import lightgbm

        meta_path = Path(directory) / META_FILE
        if not meta_path.is_file():
            raise FileNotFoundError(f"no trained router in {directory} (missing {META_FILE})")
        meta = RouterMeta.model_validate_json(meta_path.read_text(encoding="utf-8"))
        if meta.feature_version != FEATURE_VERSION or tuple(meta.feature_names) != FEATURE_NAMES:
            raise ValueError(
                f"{directory}: router trained on features v{meta.feature_version} "
                f"{meta.feature_names}, this code computes v{FEATURE_VERSION}; recompile"
            )
        booster = lightgbm.Booster(model_file=str(Path(directory) / MODEL_FILE))
        return cls(booster, meta.threshold)

    def save(self, directory: Path) -> Path:
        """Write ``model.txt`` and ``router.json`` into ``directory``; return it."""
        directory.mkdir(parents=True, exist_ok=True)
        self.booster.save_model(str(directory / MODEL_FILE))
        meta = RouterMeta(threshold=self.threshold)
        (directory / META_FILE).write_text(meta.model_dump_json(indent=2) + "\n")
        return directory

    def probability(self, question: str) -> float:
        """The model's probability that the full loop beats a single pass on ``question``."""
        with self._lock:
            return float(self.booster.predict([extract(question).vector()])[0])

    def __call__(self, question: str) -> RoutingDecision:
        chance = self.probability(question)
        full_loop = chance >= self.threshold
        rule = route_by_rule(question)
        return RoutingDecision(
            path=rule.path,
            full_loop=full_loop,
            source="lightgbm",
            reason=f"lightgbm: P(full loop helps) = {chance:.2f} "
            f"({'≥' if full_loop else '<'} {self.threshold:g}); path by rule",
        )
