"""The extras: a core install runs ``agrag-lab search`` and ``agrag-lab mcp``; a missing extra says which to install."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agrag_lab.errors import AgragError, MissingExtraError
from agrag_lab.extras import EXTRAS, require

ROOT = Path(__file__).resolve().parents[1]
#: Top-level modules only the [lab] extra brings (and Jupyter's own stack).
LAB_MODULES = ("jupyterlab", "jupyter_server", "notebook", "ipykernel", "ipywidgets", "anywidget", "plotly")


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
    assert set(EXTRAS) == {"lab", "eval", "falkordb", "linear"}
