"""The encoder stage: the served search's groups of the tuning slices and the sampled splits
become examples under the index's header, a tiny BERT is fine-tuned on them and exported
with the stage's report (needs the ``train`` extra)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from filingqa.artifacts.compiled import artifact_encoder
from filingqa.cli import main
from filingqa.models.embedding import (
    installed_tuned_encoder,
    read_tuned_encoder,
    tuned_encoder_dir,
)
from filingqa.models.store import ModelNotReady
from filingqa.optimizers import budget, encoder_stage
from filingqa.optimizers.encoder_examples import ContrastiveExample
from filingqa.optimizers.encoder_fine_tune import EncoderSettings, TrainingUnavailable
from filingqa.optimizers.encoder_stage import (
    TRAINING_FILE,
    EncoderStageReport,
    EncoderStageSettings,
    expected_cost,
    read_report,
    train_artifact_encoder,
    train_encoder,
)
from filingqa.optimizers.presets import preset
from filingqa.optimizers.reranker_groups import Group, SplitRun
from filingqa.records.documents import Document, Passage
from filingqa.retrieval.index.passage_recipe import HEADER_RECIPE, PassageRecipe
from filingqa.retrieval.search.rerank_features import Candidate

from .tiny_bert import TINY, write_tiny_bert

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("onnx")

COMMITTED = Path(__file__).parents[2] / "artifacts" / "qwen-local"

NORTHWIND = Document(doc_id="NORTHWIND_2024_10K", company="Northwind", doc_type="10k")
TEXTS = {
    "capex": "purchases of property plant and equipment",
    "dividend": "cash dividends paid to shareholders",
    "inventory": "inventories finished goods and raw materials",
    "revenue": "net sales by segment and region",
}


def _group(topic: str, question: str, other: str) -> Group:
    candidates = [
        Candidate(
            passage=Passage(
                id=f"NORTHWIND_2024_10K:p{page}:text0",
                doc_id=NORTHWIND.doc_id,
                page=page,
                kind="text",
                text=TEXTS[name],
            ),
            document=NORTHWIND,
        )
        for page, name in ((1, other), (2, topic))
    ]
    return Group(
        question, question, NORTHWIND.doc_id, candidates, np.zeros((2, 1)), np.array([0.0, 1.0])
    )


SLICE_GROUPS = [_group("capex", "what was capital expenditure", "revenue")]
SPLIT_GROUPS = [
    _group("dividend", "what was the dividend", "inventory"),
    _group("inventory", "how much inventory", "dividend"),
    _group("revenue", "what was revenue", "capex"),
]


def _run(questions: int, groups: int) -> SplitRun:
    return SplitRun(
        questions=questions,
        groups=groups,
        index_seconds=0.0,
        first_build_seconds=None,
        search_seconds=0.1,
    )


@pytest.fixture
def searched(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The served search, faked: the slice's groups, then the splits'; each call recorded."""
    calls: list[dict[str, Any]] = []

    def training_groups(
        train_specs: Sequence[str], eval_specs: Sequence[str], settings: Any, *args: Any, **kw: Any
    ) -> tuple[list[Group], dict[str, SplitRun]]:
        calls.append({"specs": list(train_specs), "settings": settings, **kw})
        if train_specs:
            return SPLIT_GROUPS, {spec: _run(5, 3) for spec in train_specs}
        slices = kw["train_slices"]
        return (SLICE_GROUPS if slices else []), {name: _run(1, 1) for name in slices}

    monkeypatch.setattr(encoder_stage, "training_groups", training_groups)
    monkeypatch.setattr(encoder_stage, "index_ready", lambda name: True)
    return calls


@pytest.fixture
def tuned(
    searched: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    isolated_home: Path,
) -> tuple[EncoderStageReport, list[ContrastiveExample], Path]:
    weights = write_tiny_bert(
        tmp_path / "weights",
        ["northwind 10-k", *TEXTS.values(), *(g.question for g in SPLIT_GROUPS)],
    )
    trained: list[ContrastiveExample] = []
    fine_tune = encoder_stage.fine_tune

    def spy(examples: list[ContrastiveExample], *args: Any, **kw: Any) -> Any:
        trained.extend(examples)
        return fine_tune(examples, *args, **kw)

    monkeypatch.setattr(encoder_stage, "fine_tune", spy)
    settings = EncoderStageSettings(
        train_specs=("finqa:train_sample100",),
        split_questions=5,
        split_examples=2,
        tune=EncoderSettings(epochs=2, batch_size=2, warmup_share=0.0),
    )
    out = tmp_path / "encoder"
    report = train_encoder(
        out,
        settings,
        weights=weights,
        spec=TINY,
        recipe=PassageRecipe(header=HEADER_RECIPE),
        say=lambda line: None,
    )
    return report, trained, out


def test_the_served_search_is_sampled_per_split_and_the_slices_searched_whole(
    tuned: tuple[EncoderStageReport, list[ContrastiveExample], Path],
    searched: list[dict[str, Any]],
) -> None:
    slices, splits = searched
    assert slices["train_slices"] == ["financebench-dev-tuning"]
    assert splits["specs"] == ["finqa:train_sample100"] and splits["split_sample"] == 5
    assert slices["settings"].expand and splits["settings"].pages  # as served


def test_a_slice_whose_index_is_not_built_is_left_out_with_a_line(
    searched: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    isolated_home: Path,
) -> None:
    monkeypatch.setattr(encoder_stage, "index_ready", lambda name: False)
    weights = write_tiny_bert(tmp_path / "weights", TEXTS.values())
    said: list[str] = []
    report = train_encoder(
        tmp_path / "encoder",
        EncoderStageSettings(tune=EncoderSettings(epochs=1, batch_size=2)),
        weights=weights,
        spec=TINY,
        recipe=PassageRecipe(),
        say=said.append,
    )
    assert searched[0]["train_slices"] == [] and report.slice_examples == 0
    assert said[0] == (
        "    financebench-dev-tuning: its dataset's index is not built, so it does not train "
        "the encoder"
    )
    assert "(0 from no slice, 3 from finqa:train_sample100, tatqa:dev)" in said[1]


def test_the_slice_keeps_every_example_and_the_splits_are_capped(
    tuned: tuple[EncoderStageReport, list[ContrastiveExample], Path],
) -> None:
    report, trained, _ = tuned
    assert (report.slice_examples, report.split_examples) == (1, 2)
    assert trained[0].query == "what was capital expenditure"
    assert len(trained) == report.tune.examples == 3
    assert set(report.splits) == {"financebench-dev-tuning", "finqa:train_sample100"}


def test_passages_are_trained_on_as_the_index_embeds_them_under_their_header(
    tuned: tuple[EncoderStageReport, list[ContrastiveExample], Path],
) -> None:
    _, trained, _ = tuned
    positive = trained[0].positive
    assert positive.startswith("Northwind") and positive.endswith(TEXTS["capex"])
    assert trained[0].negatives == (f"{positive.splitlines()[0]}\n{TEXTS['revenue']}",)


def test_the_encoder_is_exported_with_the_stage_report(
    tuned: tuple[EncoderStageReport, list[ContrastiveExample], Path],
) -> None:
    report, _, out = tuned
    assert read_tuned_encoder(out).name == report.tune.encoder
    written = json.loads((out / TRAINING_FILE).read_text())
    assert EncoderStageReport.model_validate(written) == report


def test_the_compile_stage_resumes_from_the_encoder_an_earlier_run_trained(
    tuned: tuple[EncoderStageReport, list[ContrastiveExample], Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    report, _, out = tuned

    def train_again(*args: Any, **kw: Any) -> None:
        raise AssertionError("trained again")

    monkeypatch.setattr(encoder_stage, "train_encoder", train_again)
    said: list[str] = []
    stage = train_artifact_encoder(out.parent, None, progress=False, say=said.append)
    assert stage is not None
    assert (stage.dir, stage.name, stage.examples) == ("encoder", report.tune.encoder, 3)
    assert stage.sha256 == read_tuned_encoder(out).model.sha256
    assert report.tune.encoder in said[-1]


def test_the_compile_stage_is_skipped_with_a_line_without_the_train_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def missing() -> None:
        raise TrainingUnavailable(
            "the encoder fine-tune needs torch: pip install 'filingqa[train]'"
        )

    monkeypatch.setattr(encoder_stage, "training_libraries", missing)
    said: list[str] = []
    assert train_artifact_encoder(tmp_path, None, progress=False, say=said.append) is None
    assert said == [
        "4/7 encoder: skipped, the encoder fine-tune needs torch: pip install 'filingqa[train]'"
    ]
    assert not (tmp_path / "encoder").exists()


def test_the_estimate_is_what_the_reference_run_measured_plus_indexes_to_build(
    tuned: tuple[EncoderStageReport, list[ContrastiveExample], Path],
) -> None:
    report, _, _ = tuned
    measured = report.model_copy(update={"search_seconds": 600.0})
    measured.splits["finqa:train_sample100"] = measured.splits["finqa:train_sample100"].model_copy(
        update={"first_build_seconds": 300.0}
    )
    tune_seconds = report.tune.seconds
    built = expected_cost(measured, built=lambda spec: True)
    unbuilt = expected_cost(measured, built=lambda spec: spec != "finqa:train_sample100")
    assert built.minutes == round((600 + tune_seconds) / 60, 1)
    assert unbuilt.minutes == round((900 + tune_seconds) / 60, 1)
    assert "6 questions searched in 10.0 min" in built.basis and "indexes built" in built.basis
    assert "1 index(es) to build" in unbuilt.basis


def test_the_reference_run_prices_the_stage_in_a_compile_estimate() -> None:
    reference = read_report()
    cost = expected_cost(reference, built=lambda spec: True)
    assert cost.minutes == round((reference.search_seconds + reference.tune.seconds) / 60, 1)
    estimate = budget.estimate(
        preset("structure", "light", local=True),
        train=4,
        dev=4,
        calibration=4,
        local=True,
        encoder=cost,
    )
    assert estimate.other == {"encoder training": cost}


def _artifact_with(encoder: Path, out: Path, sha256: str | None = None) -> Path:
    """A copy of the committed artifact's manifest, naming ``encoder`` as its compile's."""
    out.mkdir()
    shutil.copytree(encoder, out / "encoder")
    manifest = json.loads((COMMITTED / "manifest.json").read_text())
    pinned = read_tuned_encoder(encoder)
    entry = {"dir": "encoder", "name": pinned.name, "sha256": sha256 or pinned.model.sha256}
    (out / "manifest.json").write_text(json.dumps(manifest | {"encoder": entry}))
    return out


def test_an_artifact_s_encoder_is_installed_for_the_indexes_it_embeds(
    tuned: tuple[EncoderStageReport, list[ContrastiveExample], Path], tmp_path: Path
) -> None:
    report, _, encoder = tuned
    installed = artifact_encoder(_artifact_with(encoder, tmp_path / "artifact"))
    assert installed == tuned_encoder_dir(report.tune.encoder)
    assert installed_tuned_encoder(report.tune.encoder) == installed
    assert artifact_encoder(COMMITTED) is None


def test_an_artifact_whose_encoder_is_not_the_pinned_one_is_refused(
    tuned: tuple[EncoderStageReport, list[ContrastiveExample], Path], tmp_path: Path
) -> None:
    _, _, encoder = tuned
    other = _artifact_with(encoder, tmp_path / "artifact", sha256="0" * 64)
    with pytest.raises(ModelNotReady, match=r"not the encoder .*manifest\.json pins"):
        artifact_encoder(other)


def test_indexing_with_a_program_that_trained_no_encoder_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["index", str(tmp_path), "--program", str(COMMITTED), "--index", str(tmp_path)])
    assert code != 0
    assert "its compile trained no encoder" in capsys.readouterr().err
