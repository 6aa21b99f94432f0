from filingqa.checks.quotes import check_quote, merged, normalized

from ..kit.passages import CASH_FLOW, MDNA, passage

POLICY = passage(
    "ACME_2024_10K:p7:tex2",
    "We adopted ASC 842 using the \u201cmodified retrospective\u201d method on January 1, 2019. "
    "Depreciation is calculated using the straight-line method over the estimated useful "
    "lives of the assets, which range from three to forty years.",
)
SALES = passage("ACME_2024_10K:p5:tab2", "| Total sales | $ | 1,496.5 | $ | 1,320.1 |")


def test_a_quote_is_found_whatever_its_case_spacing_and_typographic_quotes() -> None:
    checked = check_quote('the  "Modified Retrospective" method', [MDNA, POLICY])
    assert checked.ok
    assert checked.location is not None
    assert checked.location.passage_id == POLICY.id
    assert checked.location.text == "the \u201cmodified retrospective\u201d method"
    assert (checked.location.doc_id, checked.location.page) == ("ACME_2024_10K", 7)


def test_a_figure_is_found_across_the_table_pipes_of_its_row() -> None:
    assert check_quote("$1,496.5", [SALES]).ok
    assert check_quote("412.6", [CASH_FLOW]).location.text == "412.6"  # type: ignore[union-attr]
    assert check_quote("Operating cash flow | 812.4", [CASH_FLOW]).ok


def test_a_quote_not_in_the_evidence_is_rejected_with_what_to_do() -> None:
    checked = check_quote("the declining-balance method", [POLICY])
    assert (checked.ok, checked.problem, checked.location) == (False, "not_found", None)
    assert "does not occur in the evidence" in checked.feedback()


def test_an_over_long_quote_is_rejected() -> None:
    checked = check_quote(POLICY.text[:220], [POLICY], max_words=20)
    assert checked.problem == "too_long"
    assert "too long" in checked.feedback()


def test_a_whole_passage_is_no_answer() -> None:
    checked = check_quote(POLICY.text, [POLICY], max_words=100)
    assert checked.problem == "whole_passage"
    assert check_quote("Total sales", [SALES]).ok  # a short passage's label may be quoted


def test_an_empty_quote_is_rejected() -> None:
    assert check_quote(" . ", [POLICY]).problem == "empty"


def test_duplicate_quotes_are_merged_in_order() -> None:
    quotes = [check_quote(q, [POLICY]) for q in ("straight-line", "ASC 842", "Straight-Line.")]
    assert [q.quote for q in merged(quotes)] == ["straight-line", "ASC 842"]


def test_normalized_keeps_each_character_s_origin() -> None:
    text, origin = normalized("A |  B\u2019s")
    assert text == "a b's"
    assert [origin[i] for i in range(len(text))] == [0, 1, 5, 6, 7]
