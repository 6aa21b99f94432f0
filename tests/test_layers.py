"""The layer order of the README's architecture section, enforced: a package imports only
packages below it — at module level, inside functions, under ``TYPE_CHECKING`` or through
``importlib`` — and no package code runs a script (a benchmark, say) by its path. There is
no ignore list."""

from __future__ import annotations

import ast
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Violation:
    """One import that goes up (or sideways) the layer order."""

    file: str
    line: int
    imported: str
    why: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.imported} ({self.why})"


def package_dirs(root: Path) -> dict[str, str]:
    """``filingqa.<name>`` → its folder, from ``pyproject.toml``'s package-dir table."""
    config = tomllib.loads((root / "pyproject.toml").read_text())
    return config["tool"]["setuptools"]["package-dir"]


def documented_layers(readme: str) -> list[set[str]]:
    """The README's layer order, top first: the ``text`` block under "### Layers", one
    layer per line, peers separated by ``|``, anything after ``#`` a comment."""
    section = readme.split("### Layers", 1)[1]
    block = re.search(r"```text\n(.*?)```", section, re.DOTALL)
    assert block is not None, "the Layers section has no ```text block"
    layers = []
    for line in block.group(1).splitlines():
        names = line.split("#", 1)[0].strip()
        if names:
            layers.append({name.strip() for name in names.split("|")})
    return layers


def imported_modules(tree: ast.AST, module: str) -> list[tuple[int, str]]:
    """Every module ``tree`` imports, wherever the statement stands, with its line."""
    found = []
    package = module.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            found.append((node.lineno, target))
            found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.Call) and _names_an_importer(node.func) and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.append((node.lineno, first.value))
    return found


def _names_an_importer(func: ast.expr) -> bool:
    return _called(func) in {"import_module", "__import__"}


def _called(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def loads_script_by_path(tree: ast.AST) -> list[int]:
    """Lines that run a Python file by its path (a benchmark script, say) instead of
    importing a module."""
    loaders = {"spec_from_file_location", "run_path", "SourceFileLoader"}
    return sorted(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and _called(node.func) in loaders
    )


def upward_imports(root: Path, layers: list[set[str]]) -> list[Violation]:
    """Every import in the packages under ``root`` that does not go strictly down."""
    folders = package_dirs(root)
    level = {name: depth for depth, names in enumerate(reversed(layers)) for name in names}
    unplaced = {_short(p) for p in folders} - set(level)
    assert not unplaced, f"packages missing from the layer order: {sorted(unplaced)}"
    violations = []
    for package, folder in folders.items():
        own = _short(package)
        for path in sorted((root / folder).rglob("*.py")):
            relative = path.relative_to(root / folder).with_suffix("")
            module = ".".join([package, *relative.parts]).removesuffix(".__init__")
            tree = ast.parse(path.read_text(), filename=str(path))
            shown = str(path.relative_to(root))
            for line, imported in imported_modules(tree, module):
                target = _owner(imported, folders)
                if target is None or target == own:
                    continue
                if level[target] >= level[own]:
                    why = "a peer" if level[target] == level[own] else "a higher layer"
                    violations.append(Violation(shown, line, imported, f"{own} → {why}"))
            violations += [
                Violation(shown, line, "a file by path", f"{own} runs a script by its path")
                for line in loads_script_by_path(tree)
            ]
    return violations


def _short(package: str) -> str:
    return package.split(".", 1)[1] if "." in package else package


def _owner(module: str, folders: dict[str, str]) -> str | None:
    """The layer name of the package ``module`` lies in (None: not ours)."""
    matches = [p for p in folders if module == p or module.startswith(p + ".")]
    return _short(max(matches, key=len)) if matches else None


@pytest.fixture(scope="module")
def layers() -> list[set[str]]:
    return documented_layers((REPO_ROOT / "README.md").read_text())


def test_the_readme_orders_every_package_once(layers) -> None:
    names = [name for layer in layers for name in layer]
    assert len(names) == len(set(names))
    assert set(names) == {_short(p) for p in package_dirs(REPO_ROOT)}
    assert layers[0] == {"filingqa"}  # the CLI and the public API on top


def test_every_import_goes_down_the_layer_order(layers) -> None:
    violations = upward_imports(REPO_ROOT, layers)
    assert not violations, "\n".join(map(str, violations))


def test_no_test_runs_a_script_by_its_path() -> None:
    """Benchmark code a test needs lives in the package: tests import it from there."""
    loading = {
        str(path.relative_to(REPO_ROOT)): lines
        for path in sorted((REPO_ROOT / "tests").rglob("*.py"))
        if (lines := loads_script_by_path(ast.parse(path.read_text())))
    }
    assert loading == {}


def test_runtime_packages_sit_below_compile_and_evaluation(layers) -> None:
    depth = {name: i for i, names in enumerate(layers) for name in names}
    runtime = [
        "program", "lm", "retrieval", "metrics", "checks", "signatures",
        "datasets", "sandbox", "router",
    ]  # fmt: skip
    assert all(depth[name] > depth["evaluation"] for name in runtime)
    assert all(depth[name] > depth["optimizers"] for name in runtime)


def _planted_tree(tmp_path: Path, retrieval_source: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.setuptools.package-dir]\n"filingqa" = "filingqa"\n'
        '"filingqa.retrieval" = "retrieval"\n"filingqa.optimizers" = "optimizers"\n'
    )
    for folder in ("filingqa", "retrieval", "optimizers"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "optimizers" / "train.py").write_text("from filingqa.retrieval import search\n")
    (tmp_path / "retrieval" / "search.py").write_text(retrieval_source)
    return tmp_path


PLANTED_LAYERS = [{"filingqa"}, {"optimizers"}, {"retrieval"}]


def test_a_clean_tree_passes(tmp_path: Path) -> None:
    assert upward_imports(_planted_tree(tmp_path, "import json\n"), PLANTED_LAYERS) == []


@pytest.mark.parametrize(
    "source",
    [
        "from filingqa.optimizers.train import fit\n",
        "def rank():\n    from filingqa.optimizers import train\n    return train\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import filingqa.optimizers\n",
        "import importlib\n\ndef f():\n    return importlib.import_module('filingqa.optimizers')\n",
        "from .. import optimizers\n",
        "import importlib.util\nspec = importlib.util.spec_from_file_location('x', 'run.py')\n",
        "import runpy\nrunpy.run_path('benchmarks/index_scale.py')\n",
    ],
    ids=[
        "module level",
        "function-local",
        "TYPE_CHECKING",
        "importlib",
        "relative",
        "script by path",
        "runpy",
    ],
)
def test_a_planted_upward_import_fails(tmp_path: Path, source: str) -> None:
    violations = upward_imports(_planted_tree(tmp_path, source), PLANTED_LAYERS)
    assert violations
    assert {v.file for v in violations} == {"retrieval/search.py"}


def test_peers_may_not_import_each_other(tmp_path: Path) -> None:
    tree = _planted_tree(tmp_path, "from filingqa.optimizers import train\n")
    violations = upward_imports(tree, [{"filingqa"}, {"optimizers", "retrieval"}])
    assert [str(v).split(": ", 1)[1] for v in violations] == [
        "filingqa.optimizers (retrieval → a peer)",
        "filingqa.optimizers.train (retrieval → a peer)",
        "filingqa.retrieval (optimizers → a peer)",
        "filingqa.retrieval.search (optimizers → a peer)",
    ]
