"""How long ``agrag-lab search`` takes from spawn to exit, against a bare ONNX query embedding (issue 30).

Measured per run, interleaved, from spawn to exit:

* ``agrag-lab search`` on the index (HYBRID, the default recipe);
* the baseline: a bare ``python -c`` that imports onnxruntime and tokenizers,
  loads the bundled model's ONNX export and embeds one query (the floor of
  any command that embeds a query without torch);
* the torch floor: a bare ``python -c`` that imports sentence-transformers,
  loads the bundled model and embeds one query (what every search paid
  before the ONNX embedder);
* ``Graph.open(read_only=True)`` + ``engine()`` inside one process (no search).

``--before DIR`` also times the search and the open of another checkout
(``PYTHONPATH``, e.g. main before a change) in the same interleaved rounds.

Run: ``python -m benchmarks.cli_startup --index PATH [--repeat 3] [--before DIR]``;
``benchmarks/run.py`` calls :func:`bench` with the workshop index.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks import compile_package

if TYPE_CHECKING:
    from agrag_lab import Graph

TITLE = "CLI start-up and the ONNX embedder (issue 30)"
#: Spawns of each command, interleaved: the median of 5 (of 3, one slow first spawn moved the
#: median of 3 by a tenth of the ratio on an idle machine).
REPEATS = 5

BARE_ONNX = """
import numpy as np, onnxruntime as ort
from tokenizers import Tokenizer
from agrag_lab.onnx_models import export_onnx
folder = export_onnx()
tok = Tokenizer.from_file(str(folder / "tokenizer.json")); tok.enable_truncation(max_length=256)
session = ort.InferenceSession(str(folder / "model.onnx"), providers=["CPUExecutionProvider"])
e = tok.encode("Who built the loom?")
ids = np.array([e.ids]); mask = np.array([e.attention_mask])
(h,) = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})
print(h.mean(axis=1).shape)
"""

BARE_TORCH = """
from sentence_transformers import SentenceTransformer
from agrag_lab.embedding import default_model_path
print(SentenceTransformer(default_model_path(), device="cpu").encode(["Who built the loom?"]).shape)
"""

OPEN_ENGINE = """
import sys, time
t = time.perf_counter()
from agrag_lab import Graph
g = Graph.open(sys.argv[1], read_only=True); g.engine()
print(time.perf_counter() - t)
"""


def _env(checkout: Path | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", ANONYMIZED_TELEMETRY="False", TOKENIZERS_PARALLELISM="false")
    env.pop("AGRAG_LAB_TORCH", None)
    if checkout is not None:  # its agrag_lab first on the path, ahead of the installed one
        env["PYTHONPATH"] = str(checkout)
    return env


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _spawn(args: list[str], checkout: Path | None = None) -> tuple[float, str, float]:
    """Wall seconds, stdout and CPU seconds (user + system, all threads) of one run of ``args``.

    The CPU time is the figure to compare on a busy machine: the wall time
    there is mostly waiting for a core.
    """
    cpu = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, timeout=900, env=_env(checkout), check=True,
                          cwd=checkout)
    return time.perf_counter() - started, done.stdout, _children_cpu() - cpu


def measure(index: Path, repeat: int = REPEATS, before: Path | None = None, torch: bool = True) -> dict[str, Any]:
    """Median seconds of each command over ``repeat`` interleaved spawns (``before``: also that checkout's).

    ``out["cpu"]`` holds the median CPU seconds of each spawned command, and
    ``search_over_onnx_cpu`` their ratio; ``torch=False`` leaves out the torch floor.
    """
    from agrag_lab.onnx_models import export_onnx

    export_onnx()  # made once before timing (the first run on a machine exports it)
    compile_package()  # bytecode, as `make` leaves it (PYTHONDONTWRITEBYTECODE is set on our machines)
    if before is not None:
        compile_package(before)
    index = index.resolve()
    search = [sys.executable, "-m", "agrag_lab.cli", "search", "Who built the loom?", "--index", str(index)]
    commands: dict[str, tuple[list[str], Path | None]] = {
        "agrag-lab search": (search, None),
        "bare onnxruntime query": ([sys.executable, "-c", BARE_ONNX], None),
    }
    if torch:
        commands["bare sentence-transformers query"] = ([sys.executable, "-c", BARE_TORCH], None)
    checkouts: dict[str, Path | None] = {"open_engine_s": None}
    if before is not None:
        commands["agrag-lab search before"] = (search, before.resolve())
        checkouts["open_engine_before_s"] = before.resolve()
    times: dict[str, list[float]] = {name: [] for name in [*commands, *checkouts]}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, (args, checkout) in commands.items():
            wall, _, used = _spawn(args, checkout)
            times[name].append(wall)
            cpu[name].append(used)
        for name, checkout in checkouts.items():
            times[name].append(float(_spawn([sys.executable, "-c", OPEN_ENGINE, str(index)], checkout)[1].strip()))
    out: dict[str, Any] = {name: statistics.median(ts) for name, ts in times.items()}
    out["runs"] = times
    out["cpu"] = {name: statistics.median(ts) for name, ts in cpu.items()}
    out["repeat"] = repeat
    out["search_over_onnx"] = out["agrag-lab search"] / out["bare onnxruntime query"]
    out["search_over_onnx_cpu"] = out["cpu"]["agrag-lab search"] / out["cpu"]["bare onnxruntime query"]
    if torch:
        out["search_over_torch"] = out["agrag-lab search"] / out["bare sentence-transformers query"]
    out["load"] = os.getloadavg()[0]
    return out


def bench(graph: Graph) -> list[str]:
    """The section of ``make bench`` (``benchmarks/run.py``), over the workshop index."""
    m = measure(graph.path)
    return [
        f"Spawn to exit, median of {m['repeat']} spawns each, interleaved (1-minute load average at the end: "
        f"{m['load']:.1f} on this machine's cores).",
        "",
        "| command | seconds | over the bare onnxruntime query | CPU seconds | CPU over the bare query |",
        "|---|---|---|---|---|",
        f"| `agrag-lab search` (HYBRID, workshop index) | {m['agrag-lab search']:.2f} | **{m['search_over_onnx']:.2f}** "
        f"(target <= 1.5) | {m['cpu']['agrag-lab search']:.2f} | {m['search_over_onnx_cpu']:.2f} |",
        f"| bare `python -c`: onnxruntime + tokenizers, one query embedded | {m['bare onnxruntime query']:.2f} | 1.00 | "
        f"{m['cpu']['bare onnxruntime query']:.2f} | 1.00 |",
        f"| bare `python -c`: sentence-transformers (torch), one query embedded | "
        f"{m['bare sentence-transformers query']:.2f} | {m['bare sentence-transformers query'] / m['bare onnxruntime query']:.2f} | "
        f"{m['cpu']['bare sentence-transformers query']:.2f} | "
        f"{m['cpu']['bare sentence-transformers query'] / m['cpu']['bare onnxruntime query']:.2f} |",
        "",
        f"`agrag-lab search` / the torch floor: {m['search_over_torch']:.2f}. `Graph.open(read_only=True)` + "
        f"`engine()` in one process (imports included): {m['open_engine_s']:.2f} s (target <= 1 s on an idle machine).",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--repeat", type=int, default=REPEATS)
    parser.add_argument("--before", type=Path, default=None,
                        help="also time the search and open of this checkout (e.g. main before a change), in the same run")
    parser.add_argument("--no-torch", action="store_true", help="leave out the torch floor (the slowest command)")
    args = parser.parse_args()
    for key, value in measure(args.index, args.repeat, args.before, torch=not args.no_torch).items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
