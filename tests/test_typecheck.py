"""``make typecheck`` (tools/typecheck.py, run here as make runs it): the link tree lays out
every module of the package-dir table under its ``filingqa.*`` name and mypy checks them all;
run with the repository's configuration, it reports a planted error at its real path, nothing
on a clean tree, and a module it could not reach."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
CONFIG = REPO_ROOT / "pyproject.toml"
TOOL = REPO_ROOT / "tools" / "typecheck.py"


def run_tool(*args: str | Path) -> tuple[int, list[str]]:
    done = subprocess.run(
        [sys.executable, str(TOOL), *map(str, args)], capture_output=True, text=True, check=False
    )
    return done.returncode, (done.stdout + done.stderr).splitlines()


def modules_in_folders(root: Path) -> dict[str, Path]:
    """Every module under the package-dir folders of ``root``, by dotted name, with its file."""
    table = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    modules = {}
    for package, folder in table["package-dir"].items():
        for path in (root / folder).rglob("*.py"):
            relative = path.relative_to(root / folder).with_suffix("")
            modules[".".join([package, *relative.parts]).removesuffix(".__init__")] = path
    return modules


def modules_in_tree(tree: Path) -> dict[str, Path]:
    """Every module a walk of ``tree`` finds (links followed), with the file it resolves to."""
    found = {}
    for folder, _, files in os.walk(tree, followlinks=True):
        for name in files:
            if name.endswith(".py"):
                dotted = ".".join(Path(folder, name).relative_to(tree).with_suffix("").parts)
                found[dotted.removesuffix(".__init__")] = Path(folder, name).resolve()
    return found


def test_mypy_checks_every_module_of_the_package_dir_table(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    _, report = run_tool("--tree", tree)
    modules = modules_in_folders(REPO_ROOT)
    assert len(modules) > 150
    assert modules_in_tree(tree) == modules
    assert (
        modules["filingqa.retrieval.search.pipeline"] == REPO_ROOT / "retrieval/search/pipeline.py"
    )
    assert f"typecheck: {len(modules)} of {len(modules)} modules checked" in report, report
    for line in report:  # whatever errors the package has now, each names its real file
        if ": error: " in line:
            path = REPO_ROOT / line.split(":", 1)[0]
            assert path.is_file() and not path.is_symlink(), line


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


# A repository laid out like this one: root folders mapped into ``filingqa``, a sub-package
# below a mapped folder, a module importing across the mapping, and a local ``datasets``
# folder beside a module importing Hugging Face's (resolved to the local folder, as it would
# be from the repository root, mypy would report that it has no ``load_dataset``).
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


def test_a_planted_error_is_reported_at_its_real_path_and_a_clean_tree_passes(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    write(root, PLANTED_REPO)
    status, report = run_tool("--root", root, "--config", CONFIG)
    assert status == 0, report
    assert report[-2:] == [
        "Success: no issues found in 8 source files",
        "typecheck: 8 of 8 modules checked",
    ]

    pages = root / "retrieval/search/pages.py"
    pages.write_text(pages.read_text().replace("double(3)", 'double("3")'))
    numbers = root / "core/numbers.py"
    numbers.write_text('x: int = "a"\n' + numbers.read_text())
    status, report = run_tool("--root", root, "--config", CONFIG)
    assert status == 1
    assert report == [
        'core/numbers.py:1: error: Incompatible types in assignment (expression has type "str",'
        ' variable has type "int")  [assignment]',
        'retrieval/search/pages.py:6: error: Argument 1 to "double" has incompatible type "str";'
        ' expected "int"  [arg-type]',
        "Found 2 errors in 2 files (checked 8 source files)",
        "typecheck: 8 of 8 modules checked",
    ]


def test_a_module_mypy_cannot_reach_fails_the_run(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write(root, {**PLANTED_REPO, "core/data/stray.py": "x: int = 1\n"})
    status, report = run_tool("--root", root, "--config", CONFIG)
    assert status == 1
    assert report[-2:] == [
        "typecheck: 8 of 9 modules checked",
        "typecheck: filingqa.core.data.stray was not checked",
    ]


def test_the_tool_itself_passes_mypy_strict(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "mypy", "--config-file", str(CONFIG), "--strict"]
    command += ["--cache-dir", str(tmp_path / "cache"), str(TOOL)]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
