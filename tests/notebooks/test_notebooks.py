"""Every notebook runs top to bottom, headless, in under two minutes; notebooks are stored without outputs."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
NAMES = [
    "01_quickstart", "02_rrf_by_hand", "03_compare_recipes", "04_why_did_it_rank",
    "05_citations", "06_graph_walks", "07_evaluate", "08_inspect_a_graphrag_index",
    "09_graphrag_methods_side_by_side",
]
#: Each notebook's run time is written here (a figure to read, never asserted: speed is for the benchmarks).
TIMES = REPO / "test-artifacts" / "notebook-times.json"


@pytest.fixture(scope="session")
def kernel_name() -> str:
    """The venv's own Python kernel (installed into the venv if it is missing)."""
    try:
        KernelSpecManager().get_kernel_spec("python3")
    except NoSuchKernel:
        from ipykernel.kernelspec import install

        install(prefix=os.environ.get("VIRTUAL_ENV") or __import__("sys").prefix)
    return "python3"


def test_the_notebooks_exist_and_are_stored_without_outputs() -> None:
    assert sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb")) == NAMES
    for name in NAMES:
        nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
        nbformat.validate(nb)
        assert nb.metadata["kernelspec"]["name"] == "python3"
        # read as stored: nbformat.read adds missing ids in memory (with a warning), so it cannot see them missing
        stored = json.loads((NOTEBOOKS / f"{name}.ipynb").read_text(encoding="utf-8"))
        missing = [i for i, cell in enumerate(stored["cells"]) if "id" not in cell]
        assert not missing, f"{name}: cells {missing} have no id (nbformat 4.5 requires one; nbformat.validator.normalize)"
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, f"{name}: strip the outputs"
        assert "widgets" not in nb.metadata, f"{name}: strip the widget state"


@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_headless(name: str, notebook_env: dict[str, str], kernel_name: str) -> None:
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    client = NotebookClient(
        nb, timeout=600, kernel_name=kernel_name, resources={"metadata": {"path": str(NOTEBOOKS)}},
        allow_errors=False, record_timing=True,
    )
    started = time.perf_counter()
    client.execute(env=notebook_env)
    seconds = time.perf_counter() - started
    _record(name, seconds)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code)
    errors = [o for c in code for o in c.outputs if o.get("output_type") == "error"]
    assert not errors


def _record(name: str, seconds: float) -> None:
    TIMES.parent.mkdir(exist_ok=True)
    times = json.loads(TIMES.read_text()) if TIMES.exists() else {}
    times[name] = round(seconds, 1)
    TIMES.write_text(json.dumps(times, indent=2, sort_keys=True) + "\n")
