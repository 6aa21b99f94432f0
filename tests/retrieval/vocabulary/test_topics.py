"""Narrative topics: which a question asks about, and the words their answering pages use."""

from filingqa.retrieval.vocabulary import lexicon
from filingqa.retrieval.vocabulary.topics import NARRATIVE_TOPICS, narrative_topics, topic_words


def test_questions_are_read_for_the_topics_they_ask_about() -> None:
    assert narrative_topics("Who are the primary customers of Acme as of FY2022?") == ["customers"]
    assert narrative_topics("Has Acme reported any ongoing legal battles?") == ["legal"]
    assert narrative_topics("Which geographic region had the biggest drop in revenues?") == [
        "geographies"
    ]
    assert narrative_topics("Is Acme spinning off any large business segments?") == [
        "segments",
        "separation",
    ]
    assert narrative_topics("What is Acme's FY2022 current ratio?") == []


def test_the_answering_page_words_come_once_per_topic_in_order() -> None:
    words = topic_words("Which debt securities are registered to trade, and any dividends?")
    assert words == [NARRATIVE_TOPICS["dividends"][1], NARRATIVE_TOPICS["debt_securities"][1]]


def test_search_text_adds_topic_words_for_the_question_not_its_instructions() -> None:
    question = "Who are Acme's major customers? Answer in one sentence for our segment team."
    searched = lexicon.search_text(question)
    assert searched.startswith("Who are Acme's major customers? ")
    assert NARRATIVE_TOPICS["customers"][1] in searched
    assert NARRATIVE_TOPICS["segments"][1] not in searched  # only the instructions say it


def test_topic_words_can_be_left_out() -> None:
    question = "Who are Acme's major customers?"
    assert lexicon.search_text(question, topics=False) == question
