"""Notebook 01's "run all": where its time goes, and what share the model load takes (issue 30).

A workshop opens ``notebooks/01_quickstart.ipynb`` and runs every cell. Measured
here, from one headless run (nbclient, the venv's ``python3`` kernel, the
workshop index already built, as after ``make lab``):

* the whole run, from kernel start to the last cell (what a participant waits);
* each code cell's wall time (nbclient's ``record_timing`` metadata);
* the embedding model's load, as ``open_workshop`` prints it in the first cell
  ("embedding model ... loaded in X s"): the share of the run it takes is the
  figure the issue asks about.

Run: ``python -m benchmarks.notebook_run --index PATH``; ``benchmarks/run.py``
calls :func:`bench` with the workshop index (``--only notebook``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agrag_lab import Graph

TITLE = "Notebook 01 \"run all\": where the time goes (issue 30)"
NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "01_quickstart.ipynb"
_LOADED = re.compile(r"embedding model \S+ loaded in ([0-9.]+) s")


def _seconds(cell: Any) -> float:
    """A code cell's wall time from nbclient's timing metadata."""
    timing = cell.metadata.get("execution", {})
    start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
    if not (start and end):
        return float("nan")
    parse = dt.datetime.fromisoformat
    return (parse(end.replace("Z", "+00:00")) - parse(start.replace("Z", "+00:00"))).total_seconds()


def measure(index: Path, notebook: Path = NOTEBOOK) -> dict[str, Any]:
    """Run ``notebook`` once against the workshop index at ``index``; its total, per-cell and model-load seconds."""
    import nbformat
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    from agrag_lab.lab import kernel_env
    from benchmarks.notebook_client import ShortPollClient

    try:
        KernelSpecManager().get_kernel_spec("python3")
    except NoSuchKernel:
        from ipykernel.kernelspec import install

        install(prefix=sys.prefix)
    nb = nbformat.read(notebook, as_version=4)  # type: ignore[no-untyped-call]
    client = ShortPollClient(nb, timeout=600, kernel_name="python3", allow_errors=False, record_timing=True,
                             resources={"metadata": {"path": str(notebook.parent)}})
    started = time.perf_counter()
    client.execute(env=kernel_env(index.resolve()))
    total = time.perf_counter() - started
    cells: list[tuple[int, str, float]] = []
    model = float("nan")
    for number, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
        first = next((line for line in cell.source.splitlines() if line.strip() and not line.startswith("#")), "")
        cells.append((number + 1, first[:60], _seconds(cell)))
        for output in cell.outputs:
            found = _LOADED.search(str(output.get("text", "")))
            if found:
                model = float(found.group(1))
    return {"total": total, "cells": cells, "model": model}


def bench(graph: Graph) -> list[str]:
    """Section lines for BENCHMARKS.md: the run's total, the model load's share, and every cell."""
    got = measure(Path(graph.path))
    cells_sum = sum(s for _, _, s in got["cells"])
    lines = [
        f"One headless run of `notebooks/01_quickstart.ipynb` (every cell; the workshop index already built). "
        f"Whole run, kernel start included: **{got['total']:.1f} s**; the code cells: {cells_sum:.1f} s.",
        "",
        f"The embedding model's load (printed by `open_workshop` in cell 1): **{got['model']:.2f} s**, "
        f"{100 * got['model'] / got['total']:.0f}% of the run.",
        "",
        "| cell | first line | seconds |",
        "|---|---|---|",
    ]
    lines += [f"| {n} | `{text.replace('|', '/')}` | {s:.2f} |" for n, text, s in got["cells"]]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--index", required=True, type=Path, help="the workshop index folder (built)")
    args = parser.parse_args(argv)
    got = measure(args.index)
    print(f"total {got['total']:.1f} s, model {got['model']:.2f} s, load {os.getloadavg()[0]:.1f}")
    for n, text, s in got["cells"]:
        print(f"{n:>3} {s:7.2f}  {text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
