"""``make typecheck`` (tools/typecheck.py): the link tree lays out every module of the
package-dir table under its ``filingqa.*`` name, and mypy, run over it with the repository's
configuration, reports a planted error at its real path, nothing on a clean tree, and a
module it did not check."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
CONFIG = REPO_ROOT / "pyproject.toml"


def _load_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "filingqa_tools_typecheck", REPO_ROOT / "tools" / "typecheck.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


typecheck = _load_tool()


def _modules_in(tree: Path) -> dict[str, Path]:
    """Every module a walk of ``tree`` finds (links followed), by dotted name, with the file
    it resolves to."""
    found = {}
    for folder, _, files in os.walk(tree, followlinks=True):
        for name in files:
            if name.endswith(".py"):
                path = Path(folder, name).relative_to(tree).with_suffix("")
                dotted = ".".join(path.parts).removesuffix(".__init__")
                found[dotted] = Path(folder, name).resolve()
    return found


def test_the_link_tree_holds_every_module_of_the_package_dir_table(tmp_path: Path) -> None:
    table = typecheck.package_dirs(REPO_ROOT)
    typecheck.link_tree(REPO_ROOT, tmp_path, table)
    in_tree = _modules_in(tmp_path)
    in_folders = {}
    for package, folder in table.items():
        for path in (REPO_ROOT / folder).rglob("*.py"):
            relative = path.relative_to(REPO_ROOT / folder).with_suffix("")
            in_folders[".".join([package, *relative.parts]).removesuffix(".__init__")] = path
    assert in_tree == in_folders
    assert len(in_tree) > 150
    assert (
        in_tree["filingqa.retrieval.search.pipeline"] == REPO_ROOT / "retrieval/search/pipeline.py"
    )
    assert in_tree["filingqa.cli"] == REPO_ROOT / "filingqa/cli/__init__.py"
    assert typecheck.expected_modules(REPO_ROOT, table) == set(in_tree)


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


# A repository laid out like this one: root folders mapped into ``filingqa``, a sub-package
# below a mapped folder, a module importing across the mapping, and a local ``datasets``
# folder beside a module importing Hugging Face's (resolved to the local one, mypy would
# report that it has no ``load_dataset``).
PLANTED_REPO = {
    "pyproject.toml": """
        [tool.setuptools.package-dir]
        "filingqa" = "filingqa"
        "filingqa.core" = "core"
        "filingqa.datasets" = "datasets"
        "filingqa.retrieval" = "retrieval"
    """,
    "filingqa/__init__.py": "",
    "filingqa/hub.py": """
        import datasets

        load = datasets.load_dataset
    """,
    "core/__init__.py": "",
    "core/numbers.py": """
        def double(n: int) -> int:
            return 2 * n
    """,
    "datasets/__init__.py": "",
    "retrieval/__init__.py": "",
    "retrieval/search/__init__.py": "",
    "retrieval/search/pages.py": """
        from filingqa.core.numbers import double


        def pages() -> int:
            return double(3)
    """,
}


def test_mypy_reports_a_planted_error_at_its_real_path_and_nothing_on_a_clean_tree(
    tmp_path: Path,
) -> None:
    root, tree = tmp_path / "repo", tmp_path / "repo" / "build" / "typecheck"
    _write(root, PLANTED_REPO)

    status, report = typecheck.typecheck(root, tree, config=CONFIG)
    assert status == 0, report
    assert "Success: no issues found in 8 source files" in report
    assert "typecheck: 8 of 8 modules checked" in report

    pages = (root / "retrieval/search/pages.py").read_text()
    (root / "retrieval/search/pages.py").write_text(pages.replace("double(3)", 'double("3")'))
    (root / "core/numbers.py").write_text('x: int = "a"\n' + (root / "core/numbers.py").read_text())
    status, report = typecheck.typecheck(root, tree, config=CONFIG)
    assert status == 1
    errors = [line for line in report.splitlines() if ": error: " in line]
    assert errors == [
        'core/numbers.py:1: error: Incompatible types in assignment (expression has type "str",'
        ' variable has type "int")  [assignment]',
        'retrieval/search/pages.py:6: error: Argument 1 to "double" has incompatible type "str";'
        ' expected "int"  [arg-type]',
    ], report


def test_a_module_mypy_did_not_check_fails_the_run(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _write(root, {**PLANTED_REPO, "core/data/stray.py": "x: int = 1\n"})
    status, report = typecheck.typecheck(root, tmp_path / "tree", config=CONFIG)
    assert status == 1
    assert "typecheck: filingqa.core.data.stray was not checked" in report
    assert "typecheck: 8 of 9 modules checked" in report


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        (
            "filingqa/core/numbers.py:3: error: boom  [misc]",
            "core/numbers.py:3: error: boom  [misc]",
        ),
        ("filingqa/__init__.py: note: In module", "filingqa/__init__.py: note: In module"),
        ("Found 1 error in 1 file (checked 2 source files)", None),
    ],
)
def test_report_lines_name_the_real_files(tmp_path: Path, line: str, shown: str | None) -> None:
    root = tmp_path / "repo"
    _write(root, PLANTED_REPO)
    _write(root, {"core/numbers.py": "\n\n\n"})
    tree = tmp_path / "tree"
    typecheck.link_tree(root, tree, typecheck.package_dirs(root))
    assert typecheck.real_path(line, root.resolve(), tree) == (shown or line)


def test_the_tool_itself_passes_mypy_strict(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "mypy", "--config-file", str(CONFIG), "--strict"]
    command += ["--cache-dir", str(tmp_path / "cache"), str(REPO_ROOT / "tools" / "typecheck.py")]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
