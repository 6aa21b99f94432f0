import pytest

from filingqa.evaluation.official import official_scores
from filingqa.records.qa_record import QARecord


def tatqa(value: float | list[str], scale: str, kind: str) -> QARecord:
    answer_type = (
        "number" if kind == "arithmetic" else "multi_span" if kind == "multi-span" else "span"
    )
    return QARecord(
        id="t1",
        dataset="tatqa",
        split="dev",
        question="Q?",
        answer=str(value),
        answer_value=value,
        answer_type=answer_type,
        scale=scale,
        meta={"tatqa_answer_type": kind},
    )


def finqa(exe_ans: float | str) -> QARecord:
    return QARecord(
        id="f1",
        dataset="finqa",
        split="dev",
        question="Q?",
        answer=str(exe_ans),
        answer_value=None,
        answer_type="explanation",
        meta={"exe_ans": exe_ans},
    )


@pytest.mark.parametrize(
    ("answer", "em"),
    [
        ("-22.22%", 1.0),
        ("In 2019 it fell by 22.22%", 0.0),  # the sign counts
        ("In 2019 it changed by -22.22%", 1.0),  # the year is not the answer
        ("-0.2222", 0.0),  # a fraction has no percent scale
        ("-22.2%", 0.0),  # TAT-QA has no tolerance
        ("no figure given", 0.0),
    ],
)
def test_tatqa_arithmetic_scores_the_first_number_with_its_scale(answer: str, em: float) -> None:
    scores = official_scores(tatqa(-22.22, "percent", "arithmetic"), answer)
    assert scores == {"tatqa_em": em, "tatqa_f1": em}


def test_tatqa_scale_words_must_match_the_gold_scale() -> None:
    record = tatqa(110.5, "million", "arithmetic")
    assert official_scores(record, "$110.5 million")["tatqa_em"] == 1.0
    assert official_scores(record, "110.5")["tatqa_em"] == 0.0
    assert official_scores(record, "$110,500 thousand")["tatqa_em"] == 0.0


def test_tatqa_spans_get_partial_f1() -> None:
    record = tatqa(["Appliances", "Computers"], "", "multi-span")
    assert official_scores(record, "Computers; Appliances") == {"tatqa_em": 1.0, "tatqa_f1": 1.0}
    partial = official_scores(record, "Appliances")
    assert partial["tatqa_em"] == 0.0 and partial["tatqa_f1"] == pytest.approx(0.5)


def test_tatqa_span_figures_are_scored_with_the_scale_their_words_state() -> None:
    record = tatqa(["73,260", "57,768"], "thousand", "multi-span")
    stated = official_scores(record, "73,260 thousand; 57,768 thousand")
    assert stated == {"tatqa_em": 1.0, "tatqa_f1": 1.0}
    assert official_scores(record, "73,260; 57,768") == {"tatqa_em": 0.0, "tatqa_f1": 0.0}
    wrong = official_scores(record, "73.26 million; 57.768 million")
    assert wrong == {"tatqa_em": 0.0, "tatqa_f1": 0.0}


@pytest.mark.parametrize(
    ("exe_ans", "answer", "match"),
    [
        (0.14095, "14.095%", 1.0),  # a percentage is compared as the fraction FinQA executes
        (0.14095, "14.1%", 0.0),  # rounded to 5 places, no tolerance
        (637.0, "637 million", 1.0),  # scale words are not applied
        ("yes", "True, it rose", 1.0),
        ("no", "Yes", 0.0),
    ],
)
def test_finqa_execution_accuracy(exe_ans: float | str, answer: str, match: float) -> None:
    assert official_scores(finqa(exe_ans), answer) == {"finqa_exe": match}


def test_datasets_without_an_official_metric_get_none() -> None:
    record = finqa(1.0).model_copy(update={"dataset": "financebench", "meta": {}})
    assert official_scores(record, "1.0") == {}
    assert official_scores(finqa(1.0).model_copy(update={"meta": {}}), "1.0") == {}
