"""A tiny TAT-QA-format data dir and an LM that answers by rule, for compile tests.

Each context holds a revenue table (2019 and 2018) and two questions: the revenue in 2019
(a lookup the LM always gets right) and its percentage change: the LM's first program
forgets to divide, unless its prompt holds a demo (a compiled program) or worked examples;
the verifier rejects the wrong program and the revision is right, so the full loop gets it
too (unless the LM is told the loop does not help).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path

import dspy
from dspy.lm15 import Request

from ..kit.lm import fake_lm
from ..kit.replies import chat, fenced

SPLIT = "mini"
WORKED_EXAMPLES = "Examples from other filings:"
CONTEXTS = 12


def write_data_dir(root: Path, contexts: int = CONTEXTS) -> Path:
    """``root/tatqa/tatqa_dataset_mini.json`` with ``contexts`` contexts; returns ``root``."""
    items = []
    for c in range(contexts):
        new, old = 100 + 10 * c, 80 + 5 * c
        change = round((new - old) / old * 100, 2)
        uid = f"ctx{c}"
        question = {
            "rel_paragraphs": ["1"],
            "req_comparison": False,
            "answer_from": "table",
        }
        items.append(
            {
                "table": {
                    "uid": uid,
                    "table": [["", "2019", "2018"], ["Revenue", str(new), str(old)]],
                },
                "paragraphs": [{"uid": f"{uid}-p", "order": 1, "text": f"Company {c} grew."}],
                "questions": [
                    {
                        **question,
                        "uid": f"{uid}-lookup",
                        "order": 1,
                        "question": f"What was the revenue of company {c} in 2019?",
                        "answer": new,
                        "derivation": str(new),
                        "answer_type": "arithmetic",
                        "scale": "",
                    },
                    {
                        **question,
                        "uid": f"{uid}-change",
                        "order": 2,
                        "question": "What was the percentage change in the revenue of company "
                        f"{c} from 2018 to 2019?",
                        "answer": change,
                        "derivation": f"({new}-{old})/{old}",
                        "answer_type": "arithmetic",
                        "scale": "percent",
                    },
                ],
            }
        )
    (root / "tatqa").mkdir(parents=True, exist_ok=True)
    (root / "tatqa" / f"tatqa_dataset_{SPLIT}.json").write_text(json.dumps(items))
    return root


def _figures(text: str) -> tuple[str, str]:
    new, old = re.findall(r"\|\s*Revenue\s*\|\s*(\d+)\s*\|\s*(\d+)", text)[-1]
    return new, old


def reply(
    system: str,
    user: str,
    demos: bool = False,
    loop_helps: bool = True,
    misled: Callable[[str], bool] | None = None,
) -> str:
    """The rule-following LM: see the module docstring. ``user`` is the last message,
    ``demos`` whether earlier messages (demos) came with it; with ``loop_helps`` off the
    revision repeats the rejected program; a program shown demos for a question ``misled``
    accepts reads the 2018 column, whatever it is asked."""
    instruction = user.rsplit("\n\n", 1)[-1]  # code signatures: no system message, ask last
    if "was rejected for the reason given" in instruction:
        new, old = _figures(user)
        if not loop_helps:
            return fenced(f"new = {new}\nold = {old}\nresult = new - old")
        return fenced(f"new = {new}\nold = {old}\nresult = (new - old) / old * 100")
    if "Python code that computes the answer" in instruction:
        new, old = _figures(user)
        question = user.split("Question:", 1)[-1]
        if demos and misled is not None and misled(question):
            return fenced(f"revenue = {old}\nresult = revenue")
        if "percentage change" in question and demos:
            return fenced(f"new = {new}\nold = {old}\nresult = (new - old) / old * 100")
        if "percentage change" in question:
            return fenced(f"new = {new}\nold = {old}\nresult = new - old")
        return fenced(f"revenue = {new}\nresult = revenue")
    if "Check a draft answer" in system + user:  # DSPy layout or evidence first
        good = "/ old" in user or "percentage change" not in user
        return chat(
            reasons='["the computation matches the question"]'
            if good
            else '["a percentage change must divide by the earlier value"]',
            missing="",
            verdict="ACCEPT" if good else "REJECT",
        )
    raise AssertionError(f"unexpected prompt: {system[:200]}")


def rule_lm(
    interrupt_at: int | None = None,
    demos_help: bool = True,
    loop_helps: bool = True,
    misled: Callable[[str], bool] | None = None,
    seconds_with_demos: float = 0.0,
    seconds_per_check: float = 0.0,
) -> dspy.LM:
    """A ``dspy.LM`` answering with :func:`reply` (cache off); it raises KeyboardInterrupt
    on call ``interrupt_at`` (a ctrl-C); with ``demos_help`` off its programs ignore demos
    and worked examples, so compiling gains nothing; with ``loop_helps`` off a revision is
    no better than the program it revises; demos mislead it on the questions ``misled``
    accepts; a reply to a prompt showing demos takes ``seconds_with_demos`` (a longer
    prompt to read), a verifier's check ``seconds_per_check``."""

    def respond(request: Request) -> str:
        system = request.system if isinstance(request.system, str) else ""
        text = request.messages[-1].text or ""
        shown = len(request.messages) > 1 or WORKED_EXAMPLES in text
        if shown:
            time.sleep(seconds_with_demos)
        if "Check a draft answer" in system + text:
            time.sleep(seconds_per_check)
        return reply(system, text, demos_help and shown, loop_helps, misled)

    return fake_lm(respond, interrupt_at=interrupt_at, model="rules/test")


def small_request(out: Path, **changes: object):
    """A bootstrap-rs request for 6 training and 8 dev questions of the mini split, no
    confirmation draw (unless ``settings`` has one); the backbone strings ``lm`` (default
    ``rules/test``, with ``api_base``) and ``teacher_lm`` are parsed into the request's
    backbones."""
    from filingqa.lm.backbone import Backbone
    from filingqa.optimizers.compile_plan import CompileRequest
    from filingqa.optimizers.presets import preset

    settings = preset("bootstrap-rs", "light", local=True).model_copy(
        update={
            "train": [f"tatqa:{SPLIT}:6"],
            "dev": [f"tatqa:{SPLIT}:8"],
            "confirm": [],
            "candidates": 1,
        }
    )
    lm, api_base = changes.pop("lm", "rules/test"), changes.pop("api_base", None)
    teacher = changes.pop("teacher_lm", None)
    assert isinstance(lm, str) and isinstance(api_base, str | None)
    assert isinstance(teacher, str | None)
    fields = {
        "name": out.name,
        "out_dir": out,
        "backbone": Backbone.parse(lm, api_base),
        "teacher_backbone": Backbone.parse(teacher) if teacher else None,
        "settings": settings,
        "skip_retriever": True,
    }
    return CompileRequest.model_validate(fields | changes)


def compile_small(
    data_dir: Path,
    out: Path,
    lm: dspy.LM | None = None,
    said: list[str] | None = None,
    **changes: object,
):
    """Compile :func:`small_request` with ``lm`` (default: a fresh :func:`rule_lm`),
    appending what it prints to ``said``; returns the manifest."""
    from filingqa.optimizers.compile import run_compile
    from filingqa.optimizers.compile_plan import plan_compile

    plan = plan_compile(small_request(out, **changes), data_dir)
    lines = said if said is not None else []
    return run_compile(
        plan, lm=lm or rule_lm(), data_dir=data_dir, progress=False, say=lines.append
    )
