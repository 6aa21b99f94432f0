"""The encoder trained on what the search serves: the compile's encoder stage.

The served search (query expansion, whole-filing scopes, page order) is run over a sample of
the reranker's training splits and over the committed tuning slices (FinanceBench's: its
questions over every filing); each question's candidates, labelled by gold, give contrastive
examples (:mod:`.encoder_examples`) as the embedder reads them, under the index's header;
a slice whose dataset's index is not built is left out, with a line (the stage never builds
the FinanceBench index).
The pinned MiniLM weights are fine-tuned on them (:mod:`.encoder_fine_tune`) and exported
into ``<out>/encoder``, with ``training.json`` saying what the stage searched, trained and
cost. A report slice never trains (:func:`~.reranker_groups.slice_groups` refuses one).

The compile runs it before the reranker (:func:`train_artifact_encoder`), which then trains
over indexes embedded by it; its estimate comes from the report of an earlier run
(:func:`expected_cost`), the reference run's by default.
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from filingqa.models.embedding import read_tuned_encoder
from filingqa.models.registry import MINILM_L6_V2_WEIGHTS, EmbeddingSpec
from filingqa.models.store import embedding_dir, pull_embedding
from filingqa.optimizers.budget import StageCost
from filingqa.optimizers.encoder_examples import examples_from_groups
from filingqa.optimizers.encoder_fine_tune import (
    EncoderSettings,
    EncoderTuneReport,
    TrainingUnavailable,
    fine_tune,
    training_libraries,
)
from filingqa.optimizers.reranker_groups import Group, SplitRun, index_builds, training_groups
from filingqa.optimizers.train_reranker import (
    DEFAULT_EVAL_SPECS,
    DEFAULT_TRAIN_SPECS,
    index_ready,
)
from filingqa.retrieval.index.embedder import Embedder
from filingqa.retrieval.index.passage_recipe import PassageRecipe
from filingqa.retrieval.search.pipeline import SearchSettings
from filingqa.retrieval.search.rerank_features import Candidate

ENCODER_DIR = "encoder"
TRAINING_FILE = "training.json"
REFERENCE_REPORT = Path(str(resources.files("filingqa.artifacts") / ENCODER_DIR / TRAINING_FILE))
"""The report of the stage's reference run (``artifacts/encoder``; the encoder itself is not
shipped): the basis of a compile's estimate."""
DEFAULT_ENCODER_SLICES: tuple[str, ...] = ("financebench-dev-tuning",)


class EncoderStageSettings(BaseModel):
    """What the encoder stage searches and how it trains."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    train_specs: tuple[str, ...] = DEFAULT_TRAIN_SPECS
    train_slices: tuple[str, ...] = DEFAULT_ENCODER_SLICES
    eval_specs: tuple[str, ...] = DEFAULT_EVAL_SPECS
    split_questions: int = Field(default=150, description="questions searched per split")
    split_examples: int = Field(
        default=150, description="examples kept from the splits (the slices keep all theirs)"
    )
    hard_negatives: int = 1
    tune: EncoderSettings = EncoderSettings(epochs=2, learning_rate=5e-5)


class EncoderStageReport(BaseModel):
    """What the encoder stage searched and trained, and what each part cost."""

    model_config = ConfigDict(extra="forbid")

    settings: EncoderStageSettings
    splits: dict[str, SplitRun]
    slice_examples: int
    split_examples: int
    search_seconds: float = Field(description="searching, without building indexes")
    tune: EncoderTuneReport
    seconds: float


class EncoderStage(BaseModel):
    """The encoder stage, as the manifest's ``encoder`` entry: the encoder's folder in the
    artifact, its name (what an index embedded by it records), its model's sha256, the
    examples it learned from and the stage's seconds."""

    model_config = ConfigDict(extra="forbid")

    dir: str
    name: str
    sha256: str
    examples: int
    seconds: float


def train_artifact_encoder(
    out: Path, data_dir: Path | None, *, progress: bool, say: Callable[[str], None]
) -> EncoderStage | None:
    """Train the encoder into ``out/encoder`` unless an earlier run did; None, with a line
    saying why, when the ``train`` extra is missing."""
    directory = out / ENCODER_DIR
    if not (directory / TRAINING_FILE).exists():
        try:
            training_libraries()
        except TrainingUnavailable as missing:
            say(f"4/7 encoder: skipped, {missing}")
            return None
        say("4/7 fine-tuning the encoder on what the search serves")
        train_encoder(directory, data_dir=data_dir, progress=progress, say=say)
    report = read_report(directory / TRAINING_FILE)
    encoder = read_tuned_encoder(directory)
    say(
        f"    {encoder.name}: {report.tune.examples} examples, loss {report.tune.first_loss:.2f}"
        f" -> {report.tune.last_loss:.2f}, {report.seconds / 60:.1f} min"
    )
    return EncoderStage(
        dir=ENCODER_DIR,
        name=encoder.name,
        sha256=encoder.model.sha256,
        examples=report.tune.examples,
        seconds=report.seconds,
    )


def read_report(path: Path = REFERENCE_REPORT) -> EncoderStageReport:
    """The stage report at ``path`` (default: the reference run's)."""
    return EncoderStageReport.model_validate(json.loads(path.read_text(encoding="utf-8")))


def expected_cost(
    report: EncoderStageReport | None = None, built: Callable[[str], bool] = index_ready
) -> StageCost:
    """What the stage costs again, from what ``report`` (default: the reference run's)
    measured: its searching, its fine-tune and export, and the first build of each index
    it searched that is not ``built`` yet."""
    report = report or read_report()
    building, indexes = index_builds(report.splits, built)
    questions = sum(run.questions for run in report.splits.values())
    basis = (
        f"{questions:,} questions searched in {report.search_seconds / 60:.1f} min, "
        f"{report.tune.steps} fine-tune steps in {report.tune.seconds / 60:.1f} min, {indexes}"
    )
    seconds = report.search_seconds + report.tune.seconds + building
    return StageCost(minutes=round(seconds / 60, 1), basis=basis)


def train_encoder(
    out: Path,
    settings: EncoderStageSettings | None = None,
    *,
    data_dir: Path | None = None,
    weights: Path | None = None,
    spec: EmbeddingSpec = MINILM_L6_V2_WEIGHTS,
    recipe: PassageRecipe | None = None,
    progress: bool = False,
    say: Callable[[str], None] = print,
) -> EncoderStageReport:
    """Search, fine-tune and export the encoder into ``out`` (see the module docstring);
    its report is written beside it as :data:`TRAINING_FILE`. ``weights`` (default: the
    pinned MiniLM's, pulled and verified when missing) are those of ``spec``; ``recipe``
    (default: the offline embedder's) is how the indexes it will embed read a passage.

    Raises:
        TrainingUnavailable: the ``train`` extra is not installed.
        DataLeakError: a training question or document is evaluated or in a report slice.
        ValueError: the searches gave no example.
    """
    settings = settings or EncoderStageSettings()
    started = time.perf_counter()
    training_libraries()
    if weights is None:
        pull_embedding(MINILM_L6_V2_WEIGHTS, progress=progress, say=say)
        weights = embedding_dir(MINILM_L6_V2_WEIGHTS)
    recipe = recipe or Embedder.load().passage_recipe()
    slices = [name for name in settings.train_slices if index_ready(name)]
    for name in sorted(set(settings.train_slices) - set(slices)):
        say(f"    {name}: its dataset's index is not built, so it does not train the encoder")
    slice_groups, split_groups, runs = _searched_groups(settings, slices, data_dir, progress)
    searched = sum(run.search_seconds for run in runs.values())
    text_of = _embedded_text(recipe)
    negatives = settings.hard_negatives
    from_slices = examples_from_groups(slice_groups, text_of, hard_negatives=negatives)
    from_splits = examples_from_groups(split_groups, text_of, hard_negatives=negatives)
    if len(from_splits) > settings.split_examples:
        from_splits = random.Random(0).sample(from_splits, settings.split_examples)
    examples = [*from_slices, *from_splits]
    kinds = Counter(kind for example in examples for kind in example.kinds)
    say(
        f"    {len(examples)} examples ({len(from_slices)} from {', '.join(slices) or 'no slice'}"
        f", {len(from_splits)} from {', '.join(settings.train_specs)}); negatives: "
        + (", ".join(f"{kind} {n}" for kind, n in kinds.most_common()) or "none")
        + f"; searching took {searched / 60:.1f} min"
    )
    tuned = fine_tune(examples, weights, out, settings.tune, spec=spec, progress=progress)
    report = EncoderStageReport(
        settings=settings,
        splits=runs,
        slice_examples=len(from_slices),
        split_examples=len(from_splits),
        search_seconds=round(searched, 1),
        tune=tuned,
        seconds=round(time.perf_counter() - started, 1),
    )
    (out / TRAINING_FILE).write_text(report.model_dump_json(indent=2) + "\n")
    return report


def _searched_groups(
    settings: EncoderStageSettings, slices: list[str], data_dir: Path | None, progress: bool
) -> tuple[list[Group], list[Group], dict[str, SplitRun]]:
    """The served search's groups of the tuning ``slices``, then of the sampled splits."""
    served = SearchSettings()
    from_slices, slice_runs = training_groups(
        (), settings.eval_specs, served, data_dir, progress, train_slices=slices
    )
    splits, split_runs = training_groups(
        settings.train_specs,
        settings.eval_specs,
        served,
        data_dir,
        progress,
        split_sample=settings.split_questions,
    )
    return from_slices, splits, slice_runs | split_runs


def _embedded_text(recipe: PassageRecipe) -> Callable[[Candidate], str]:
    """A candidate's text as an index of ``recipe`` embeds it."""

    def text_of(candidate: Candidate) -> str:
        if candidate.document is None:
            return candidate.passage.text
        return recipe.embedding_text(candidate.passage, candidate.document)

    return text_of
