"""The layer order of ``docs/architecture.md``, enforced: a package or sub-room imports only
the layers below its own — at module level, inside functions, under ``TYPE_CHECKING`` or
through ``importlib`` —, every module lies in a layer, and no package code runs a script (a
benchmark, say) by its path. There is no ignore list."""

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


def documented_layers(doc: str) -> list[set[str]]:
    """The layer order of ``docs/architecture.md``, top first: the ``text`` block under
    "## Layers", one layer per line, peers separated by ``|``, anything after ``#`` a
    comment. A name is a package (``program``) or a sub-room (``retrieval.search``)."""
    section = doc.split("## Layers", 1)[1]
    block = re.search(r"```text\n(.*?)```", section, re.DOTALL)
    assert block is not None, "the Layers section has no ```text block"
    layers = []
    for line in block.group(1).splitlines():
        names = line.split("#", 1)[0].strip()
        if names:
            layers.append({name.strip() for name in names.split("|")})
    return layers


def our_modules(root: Path) -> dict[str, Path]:
    """Every module of the packages under ``root``, by dotted name, with its file."""
    modules = {}
    for package, folder in package_dirs(root).items():
        for path in sorted((root / folder).rglob("*.py")):
            relative = path.relative_to(root / folder).with_suffix("")
            modules[".".join([package, *relative.parts]).removesuffix(".__init__")] = path
    return modules


def layer_of(module: str, names: set[str], folders: dict[str, str]) -> str | None:
    """The layer ``module`` (or an attribute of it) lies in: the longest layer name that is
    its path below ``filingqa`` or a prefix of it; the top folder's modules lie in
    ``filingqa``. None: in no layer (or not ours)."""
    packages = [p for p in folders if module == p or module.startswith(p + ".")]
    if not packages:
        return None
    if max(packages, key=len) == "filingqa":
        return "filingqa" if "filingqa" in names else None
    short = module.split(".", 1)[1]
    owners = [n for n in names if short == n or short.startswith(n + ".")]
    return max(owners, key=len) if owners else None


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
    """Every import in the packages under ``root`` that does not go strictly down, and every
    import of a module of ours that lies in no layer."""
    folders = package_dirs(root)
    names = {name for layer in layers for name in layer}
    level = {name: depth for depth, peers in enumerate(reversed(layers)) for name in peers}
    modules = our_modules(root)
    unplaced = sorted(m for m in modules if layer_of(m, names, folders) is None)
    assert not unplaced, f"modules in no layer of the order: {unplaced}"
    stale = names - {layer_of(m, names, folders) for m in modules}
    assert not stale, f"layers naming no package or module: {sorted(stale)}"
    violations = []
    for module, path in modules.items():
        own = layer_of(module, names, folders)
        assert own is not None
        tree = ast.parse(path.read_text(), filename=str(path))
        shown = str(path.relative_to(root))
        for line, imported in imported_modules(tree, module):
            if imported != "filingqa" and not imported.startswith("filingqa."):
                continue
            target = layer_of(imported, names, folders)
            if target is None:
                violations.append(Violation(shown, line, imported, f"{own} → no layer"))
            elif target != own and level[target] >= level[own]:
                why = "a peer" if level[target] == level[own] else "a higher layer"
                violations.append(Violation(shown, line, imported, f"{own} → {why}"))
        violations += [
            Violation(shown, line, "a file by path", f"{own} runs a script by its path")
            for line in loads_script_by_path(tree)
        ]
    return violations


ARCHITECTURE = REPO_ROOT / "docs" / "architecture.md"


@pytest.fixture(scope="module")
def layers() -> list[set[str]]:
    return documented_layers(ARCHITECTURE.read_text())


def test_the_architecture_doc_orders_every_room_once(layers) -> None:
    names = [name for layer in layers for name in layer]
    assert len(names) == len(set(names))
    folders = package_dirs(REPO_ROOT)
    assert {name.split(".")[0] for name in names} == {
        p.split(".", 1)[1] if "." in p else p for p in folders
    }
    assert layers[0] == {"filingqa"}  # the CLI and the public API on top


def test_the_sub_rooms_of_retrieval_and_evaluation_have_their_own_layers(layers) -> None:
    names = {name for layer in layers for name in layer}
    for room in ("retrieval", "evaluation"):
        folder = REPO_ROOT / package_dirs(REPO_ROOT)[f"filingqa.{room}"]
        sub_rooms = {f"{room}.{p.parent.name}" for p in folder.glob("*/__init__.py")}
        assert sub_rooms and sub_rooms <= names, room


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


def test_runtime_rooms_sit_below_compile_and_evaluation(layers) -> None:
    depth = {name: i for i, names in enumerate(layers) for name in names}
    runtime = [name for name in depth if name.split(".")[0] in RUNTIME]
    assert set(RUNTIME) <= {name.split(".")[0] for name in runtime}
    evaluation = [name for name in depth if name.split(".")[0] == "evaluation"]
    assert all(depth[name] > depth[other] for name in runtime for other in evaluation)
    assert all(depth[name] > depth["optimizers"] for name in runtime)


RUNTIME = (
    "program", "router", "signatures", "metrics", "lm", "checks", "evidence", "retrieval",
    "datasets", "sandbox", "models", "records", "core",
)  # fmt: skip


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


def _planted_sub_rooms(tmp_path: Path, index_source: str) -> Path:
    """A tree whose retrieval package has two sub-rooms, search above index."""
    tree = _planted_tree(tmp_path, "import json\n")
    for room in ("search", "index"):
        (tree / "retrieval" / room).mkdir()
        (tree / "retrieval" / room / "__init__.py").write_text("")
    (tree / "retrieval" / "search" / "pipeline.py").write_text(
        "from filingqa.retrieval.index import store\n"
    )
    (tree / "retrieval" / "index" / "store.py").write_text(index_source)
    return tree


SUB_ROOM_LAYERS = [
    {"filingqa"}, {"optimizers"}, {"retrieval"}, {"retrieval.search"}, {"retrieval.index"},
]  # fmt: skip


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


def test_sub_rooms_pass_when_they_import_down(tmp_path: Path) -> None:
    tree = _planted_sub_rooms(tmp_path, "import json\n")
    assert upward_imports(tree, SUB_ROOM_LAYERS) == []


@pytest.mark.parametrize(
    "source",
    [
        "from filingqa.retrieval.search import pipeline\n",
        "def f():\n    from filingqa.retrieval.search.pipeline import x\n    return x\n",
        "from ..search import pipeline\n",
        "from filingqa.retrieval import search\n",
    ],
    ids=["module level", "function-local", "relative", "the parent package's name"],
)
def test_a_planted_upward_import_between_sub_rooms_fails(tmp_path: Path, source: str) -> None:
    tree = _planted_sub_rooms(tmp_path, source)
    violations = upward_imports(tree, SUB_ROOM_LAYERS)
    assert violations
    assert {v.file for v in violations} == {"retrieval/index/store.py"}
    assert all("retrieval.index → a higher layer" in v.why for v in violations)


def test_sub_rooms_on_one_line_may_not_import_each_other(tmp_path: Path) -> None:
    tree = _planted_sub_rooms(tmp_path, "import json\n")
    layers = [{"filingqa"}, {"optimizers"}, {"retrieval"}, {"retrieval.search", "retrieval.index"}]
    violations = upward_imports(tree, layers)
    assert [v.why for v in violations] == ["retrieval.search → a peer"] * 2


def test_a_module_in_no_layer_is_reported(tmp_path: Path) -> None:
    tree = _planted_sub_rooms(tmp_path, "import json\n")
    layers = [{"filingqa"}, {"optimizers"}, {"retrieval.search"}, {"retrieval.index"}]
    with pytest.raises(AssertionError, match=r"modules in no layer.*'filingqa\.retrieval'"):
        upward_imports(tree, layers)


def test_a_layer_naming_nothing_is_reported(tmp_path: Path) -> None:
    tree = _planted_sub_rooms(tmp_path, "import json\n")
    with pytest.raises(AssertionError, match=r"layers naming no package.*retrieval\.ingest"):
        upward_imports(tree, [*SUB_ROOM_LAYERS, {"retrieval.ingest"}])
