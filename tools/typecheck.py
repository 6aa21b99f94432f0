"""mypy over the filingqa package under its import names (``make typecheck``).

pyproject.toml's ``[tool.setuptools.package-dir]`` table maps root folders into one
namespace (``filingqa.core`` is ``core/``), and an editable install resolves that at run time
through an import hook that static tools cannot follow. This lays out a tree of symlinks the
way Python imports the package (``build/typecheck/filingqa/core -> ../../../core``), runs mypy
from inside it with the repository's ``[tool.mypy]`` configuration (so only ``filingqa`` is on
its path, never a top-level ``datasets`` that would shadow Hugging Face's), prints mypy's report
with the real paths (``core/cache.py:12: error: ...``), and fails when mypy checked another
number of modules than the package-dir folders hold (naming those it could not reach).

    python tools/typecheck.py [--root DIR] [--tree DIR] [--config FILE] [MYPY ARGS...]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
# A report line that starts with a file of the tree: ``filingqa/core/cache.py:12: error: ...``.
REPORT_PATH = re.compile(r"^(?P<path>[\w./-]+\.pyi?)(?=:)")
# mypy's last line: "Success: no issues found in 208 source files", "Found 3 errors in 2 files
# (checked 208 source files)".
SUMMARY = re.compile(r"(?P<count>\d+) source files?\)?$")


def package_dirs(root: Path) -> dict[str, str]:
    """``filingqa.<name>`` → its folder, from ``root/pyproject.toml``'s package-dir table."""
    config = tomllib.loads((root / "pyproject.toml").read_text())
    table: dict[str, str] = config["tool"]["setuptools"]["package-dir"]
    return table


def expected_modules(root: Path, table: dict[str, str]) -> set[str]:
    """Every module the package-dir folders hold, by dotted name."""
    modules = set()
    for package, folder in table.items():
        for path in (root / folder).rglob("*.py"):
            relative = path.relative_to(root / folder).with_suffix("")
            modules.add(".".join([package, *relative.parts]).removesuffix(".__init__"))
    return modules


def _link(source: Path, link: Path) -> None:
    link.symlink_to(os.path.relpath(source, link.parent), target_is_directory=source.is_dir())


def link_tree(root: Path, tree: Path, table: dict[str, str]) -> None:
    """Lays the packages of ``table`` out under ``tree`` as Python imports them: a package
    with no mapped sub-package is one link to its folder; one with mapped sub-packages is a
    directory linking each entry of its folder, beside the links of those sub-packages.
    Replaces whatever an earlier run laid there (mypy's cache beside it stays)."""
    for top in {tree / package.split(".")[0] for package in table}:
        if top.is_symlink():
            top.unlink()
        elif top.exists():
            shutil.rmtree(top)
    for package in sorted(table, key=lambda name: name.count(".")):
        source, target = root / table[package], tree.joinpath(*package.split("."))
        children = {
            name.split(".")[package.count(".") + 1]
            for name in table
            if name.startswith(package + ".")
        }
        target.parent.mkdir(parents=True, exist_ok=True)
        if not children:
            _link(source, target)
            continue
        target.mkdir(exist_ok=True)
        for entry in sorted(source.iterdir()):
            if entry.name not in children and entry.name != "__pycache__":
                _link(entry, target / entry.name)


def real_path(line: str, root: Path, tree: Path) -> str:
    """``line`` with a leading path of the tree (relative to it) made the file's real path,
    relative to ``root``; any other line unchanged."""
    match = REPORT_PATH.match(line)
    if match is None or not (tree / match["path"]).exists():
        return line
    real = (tree / match["path"]).resolve()
    shown = real.relative_to(root) if real.is_relative_to(root) else real
    return f"{shown}{line[match.end() :]}"


def crawled_modules(tree: Path, package: str) -> set[str]:
    """The modules ``mypy -p package`` finds in ``tree`` without namespace packages: every
    ``.py`` file reached through folders that hold an ``__init__.py``."""
    folder = tree.joinpath(*package.split("."))
    if not (folder / "__init__.py").is_file():
        return set()
    found = {package}
    for entry in folder.iterdir():
        if entry.suffix == ".py" and entry.name != "__init__.py":
            found.add(f"{package}.{entry.stem}")
        elif entry.is_dir():
            found |= crawled_modules(tree, f"{package}.{entry.name}")
    return found


def typecheck(
    root: Path, tree: Path, mypy_args: list[str] | None = None, config: Path | None = None
) -> tuple[int, str]:
    """Lays out the link tree of ``root``'s package-dir table under ``tree``, runs mypy over
    each top package with ``config`` (default ``root/pyproject.toml``) and returns its exit
    status (1 too when mypy checked another number of modules than the package-dir folders
    hold) and its report with real paths."""
    root, tree = root.resolve(), tree.resolve()
    table = package_dirs(root)
    link_tree(root, tree, table)
    packages = sorted({package.split(".")[0] for package in table})
    command = [
        sys.executable,
        "-m",
        "mypy",
        "--config-file",
        str(config or root / "pyproject.toml"),
    ]
    command += [*(mypy_args or []), *(f"--package={package}" for package in packages)]
    done = subprocess.run(command, cwd=tree, capture_output=True, text=True, check=False)
    lines = [real_path(line, root, tree) for line in (done.stdout + done.stderr).splitlines()]
    summary = SUMMARY.search(lines[-1]) if lines else None
    if done.returncode not in (0, 1) or summary is None:
        return done.returncode or 2, "\n".join(lines)
    expected, checked = expected_modules(root, table), int(summary["count"])
    lines.append(f"typecheck: {checked} of {len(expected)} modules checked")
    if checked == len(expected):
        return done.returncode, "\n".join(lines)
    found = set().union(*(crawled_modules(tree, package) for package in packages))
    lines += [f"typecheck: {module} was not checked" for module in sorted(expected - found)]
    return 1, "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="mypy over the package under its import names")
    parser.add_argument("--root", type=Path, default=REPO_ROOT, help="the repository")
    parser.add_argument("--tree", type=Path, help="where the link tree goes (ROOT/build/typecheck)")
    parser.add_argument("--config", type=Path, help="mypy's configuration (ROOT/pyproject.toml)")
    args, mypy_args = parser.parse_known_args(argv)
    tree = args.tree or args.root / "build" / "typecheck"
    status, report = typecheck(args.root, tree, mypy_args, args.config)
    print(report)
    return status


if __name__ == "__main__":
    sys.exit(main())
