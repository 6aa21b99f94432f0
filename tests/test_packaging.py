"""The wheel `pip wheel .` builds: every package of the package-dir table, the shipped
artifact data and the sample filing in it, and no setuptools warning that an artifact
folder is "absent from the `packages` configuration"."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
ABSENT_WARNING = "absent from the `packages` configuration"
DATA_SUFFIXES = {".json", ".txt"}


def setuptools_config() -> dict:
    return tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def shipped_data_files() -> set[str]:
    """Wheel paths of the data the package must carry: the committed artifacts (without the
    git-ignored compile outputs) and the sample filings."""
    names = set()
    for folder in ("reranker", "qwen-local"):
        root = REPO_ROOT / "artifacts" / folder
        for path in root.rglob("*"):
            relative = path.relative_to(REPO_ROOT / "artifacts")
            if (
                path.is_file()
                and path.suffix in DATA_SUFFIXES
                and "eval" not in relative.parts
                and path.name != "compile.json"
            ):
                names.add(f"filingqa/artifacts/{relative.as_posix()}")
    for sample in (REPO_ROOT / "filingqa" / "samples").glob("*.txt"):
        names.add(f"filingqa/samples/{sample.name}")
    return names


@pytest.fixture(scope="module")
def built_wheel(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], str]:
    """Builds the wheel from a copy of the sources (so no build/ or egg-info lands in the
    working tree); returns the wheel's file names and the build output."""
    work = tmp_path_factory.mktemp("packaging")
    source = work / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(REPO_ROOT / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in sorted(set(setuptools_config()["package-dir"].values())):
        shutil.copytree(REPO_ROOT / folder, source / folder, ignore=ignore)
    out = work / "wheel"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--disable-pip-version-check",
            "-w",
            str(out),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    wheels = list(out.glob("filingqa-*.whl"))
    assert len(wheels) == 1, output
    with zipfile.ZipFile(wheels[0]) as wheel:
        return wheel.namelist(), output


def test_build_output_has_no_absent_package_warning(built_wheel):
    _, output = built_wheel
    assert ABSENT_WARNING not in output, output
    assert "Package would be ignored" not in output, output


def test_wheel_holds_every_package(built_wheel):
    names, _ = built_wheel
    files = set(names)
    for package in setuptools_config()["packages"]:
        folder = package.replace(".", "/")
        if package == "filingqa.samples":  # data only, no __init__.py
            assert any(n.startswith(f"{folder}/") for n in files), package
        else:
            assert f"{folder}/__init__.py" in files, package
    for package in setuptools_config()["package-dir"]:
        assert package in setuptools_config()["packages"], package


def test_wheel_holds_the_shipped_data(built_wheel):
    names, _ = built_wheel
    files = set(names)
    expected = shipped_data_files()
    for needed in (
        "filingqa/artifacts/reranker/model.txt",
        "filingqa/artifacts/reranker/features.json",
        "filingqa/artifacts/qwen-local/manifest.json",
        "filingqa/artifacts/qwen-local/program.json",
        "filingqa/artifacts/qwen-local/router/model.txt",
        "filingqa/artifacts/qwen-local/reranker/model.txt",
    ):
        assert needed in expected, needed
    assert not expected - files, sorted(expected - files)
    assert any(n.startswith("filingqa/samples/") and n.endswith(".txt") for n in files)


def test_wheel_holds_every_package_data_match(built_wheel):
    """Each file a package-data pattern matches in the sources is in the wheel."""
    names, _ = built_wheel
    config = setuptools_config()
    package_dir = config["package-dir"]
    missing = []
    for package, patterns in config["package-data"].items():
        parent = package
        while parent not in package_dir:
            parent = parent.rsplit(".", 1)[0]
        rest = package[len(parent) :].lstrip(".").replace(".", "/")
        folder = REPO_ROOT / package_dir[parent] / rest
        for pattern in patterns:
            for path in folder.glob(pattern):
                relative = path.relative_to(folder).as_posix()
                name = f"{package.replace('.', '/')}/{relative}"
                if path.is_file() and name not in names:
                    missing.append(name)
    assert not missing, missing


def test_wheel_has_one_top_level_package(built_wheel):
    """Only `filingqa`: the repo-root folders never land as top-level packages (a top-level
    `datasets` would shadow Hugging Face's)."""
    names, _ = built_wheel
    tops = {n.split("/", 1)[0] for n in names if ".dist-info/" not in n}
    assert tops == {"filingqa"}


def test_every_package_folder_is_listed() -> None:
    """A sub-package missing from ``packages`` would import from a checkout and be left out
    of the wheel: every folder holding an ``__init__.py`` under the mapped folders is listed."""
    config = setuptools_config()
    listed = set(config["packages"])
    found = set()
    for package, folder in config["package-dir"].items():
        for init in (REPO_ROOT / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(REPO_ROOT / folder).parts
            found.add(".".join([package, *parts]))
    assert found - listed == set()
