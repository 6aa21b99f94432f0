"""Module paths from before the layout by role still import, as the new modules, warning."""

import importlib
import sys

import pytest

from filingqa._moved import MOVED


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_an_old_module_path_is_the_new_module_with_a_warning(old: str, new: str) -> None:
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {new}"):
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)


def test_an_unknown_module_is_still_missing() -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("filingqa.program.no_such_module")
