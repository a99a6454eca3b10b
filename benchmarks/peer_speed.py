"""``make bench-peers``: each peer recipe timed against the peer's own query code, one run, interleaved.

The same index and the same vectors on both sides. The peers' side runs in the peers venv
(``make peers``, ``PEERS_VENV``) as :mod:`peers.bench.peer_timer`: GraphRAG 3.3.0's own engines
(``build_context`` of basic, local and global search, as ``graphrag query`` builds them) over a GraphRAG
output, and lightrag-hku 1.5.7's ``aquery_data`` (retrieval without generation, the keywords given, re-rank
off) over a LightRAG working directory that LightRAG's own insert wrote. Every vector either side reads is
the bundled model's: the peers reach it through :mod:`peers.server` (an OpenAI-compatible endpoint on
127.0.0.1), so a peer's time includes its query embedding's round trip, as it runs for its users; ours
embeds in process. Our side imports the same output into an index and runs the peer recipe through the
engine (ledger included).

HIPPORAG2 against ``hipporag==2.0.0a3``'s own retrieval functions (``get_fact_scores``, ``rerank_facts``,
``graph_search_with_fact_entities``, as ``peers/parity/hipporag_parity.py`` calls them) over our import of the
LightRAG directory, exported as its ``index`` would build it (:mod:`peers.parity.hipporag_export`); measured where
the peers venv has HippoRAG.

LINEARRAG against LinearRAG's own ``retrieve`` (a snapshot of its source, ``--linearrag-src``, in its own venv,
``--linearrag-python``: :mod:`peers.bench.linearrag_timer`) over the tri-graph LinearRAG's own ``index`` steps build
of the English texts of ``peers/corpus``, with our vectors for what it indexes (as the parity run,
``peers/parity/linearrag_export.py``), its questions embedded through the endpoint; ours over our tri-graph of the
same texts (``--extractor linear``). Measured where both are given (``make bench-peers LINEARRAG_SRC=...``).

Indexes: the GraphRAG output ``make peers`` wrote (``tests/fixtures/peers/graphrag``, questions of
``peers/parity/questions.json``), the bundled Christmas Carol output (GraphRAG 3.x, its judged questions),
and a LightRAG working directory over ``peers/corpus`` (written by LightRAG at the first run, kept under
``--root``). Each question is asked once to warm both sides, then ``--rounds`` times, the peer and ours
alternating who goes first. Reported: the median of each side over every (question, round), and their
ratio (ours ÷ peer).

``python -m benchmarks.peer_speed --peers-python .peers/venv/bin/python [--root .agrag/bench-peers] [--rounds 5]
[--linearrag-python .peers/linearrag-venv/bin/python --linearrag-src PATH] [--only RECIPE ...] [--no-write]``
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "peers"
CAROL = ROOT / "datasets" / "msgraphrag_christmas_carol" / "v3"
TITLE = "Peer recipes against the peers' own query code: time"

#: peer recipe -> (peer, the peer's method)
METHODS: dict[str, tuple[str, str]] = {
    "GRAPHRAG_BASIC": ("graphrag", "basic"),
    "GRAPHRAG_LOCAL": ("graphrag", "local"),
    "GRAPHRAG_GLOBAL": ("graphrag", "global"),
    "LIGHTRAG_LOCAL": ("lightrag", "local"),
    "LIGHTRAG_GLOBAL": ("lightrag", "global"),
    "LIGHTRAG_HYBRID": ("lightrag", "hybrid"),
    "LIGHTRAG_MIX": ("lightrag", "mix"),
    "HIPPORAG2": ("hipporag", "retrieve"),
    "LINEARRAG": ("linearrag", "retrieve"),
}


@dataclass(frozen=True)
class Case:
    """One index both sides search: its name, the peer that built it, our index folder, its questions."""

    name: str
    peer: str
    index: Path
    questions: tuple[str, ...]


def _peer_questions() -> tuple[str, ...]:
    data = json.loads((ROOT / "peers" / "parity" / "questions.json").read_text(encoding="utf-8"))
    return tuple(q["text"] for q in data["questions"])


def _carol_questions(limit: int) -> tuple[str, ...]:
    lines = (CAROL.parent / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    return tuple(json.loads(line)["question"] for line in lines if line.strip())[:limit]


def _peers_env(python: str) -> dict[str, str]:
    from peers.run import _tiktoken_cache

    return dict(os.environ, LITELLM_LOCAL_MODEL_COST_MAP="True", TIKTOKEN_CACHE_DIR=_tiktoken_cache(python),
                PYTHONPATH=str(ROOT), GRAPHRAG_API_KEY="scripted")


def graphrag_root(output: Path, root: Path, url: str) -> Path:
    """A GraphRAG project folder: the settings ``make peers`` ran with, its models pointed at ``url``, and
    ``output/`` holding ``output``'s tables."""
    import yaml

    if not (root / "output").exists():
        (root / "output").mkdir(parents=True)
        for table in output.glob("*.parquet"):
            shutil.copy(table, root / "output" / table.name)
    settings = yaml.safe_load((FIXTURES / "graphrag" / "settings.yaml").read_text(encoding="utf-8"))
    for group in ("completion_models", "embedding_models"):
        for model in settings.get(group, {}).values():
            model["api_base"] = url
    (root / "settings.yaml").write_text(yaml.safe_dump(settings, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return root


def lightrag_workdir(python: str, url: str, env: dict[str, str], root: Path) -> Path:
    """LightRAG's own working directory over ``peers/corpus``, written by its insert once and kept."""
    work = root / "lightrag"
    if not (work / "vdb_entities.json").exists():
        shutil.rmtree(work, ignore_errors=True)
        subprocess.run([python, str(ROOT / "peers" / "lightrag_index.py"), "--url", url, "--out", str(work)],
                       check=True, env=env, stderr=subprocess.DEVNULL)
    return work


def our_index(kind: str, source: Path, folder: Path) -> Path:
    """``source`` imported into ``folder`` by our importer (kept between runs)."""
    from agrag_lab import Graph

    if not (folder / ".imported").exists():
        shutil.rmtree(folder, ignore_errors=True)
        with Graph.open(folder) as graph:
            (graph.import_graphrag if kind == "graphrag" else graph.import_lightrag)(source)
        (folder / ".imported").write_text(str(source), encoding="utf-8")
    return folder


class PeerTimer:
    """The peers-venv process of :mod:`peers.bench.peer_timer`: one request, one timing."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self._in: IO[str] = process.stdin  # type: ignore[assignment]
        self._out: IO[str] = process.stdout  # type: ignore[assignment]
        ready = json.loads(self._out.readline() or "{}")
        if not ready.get("ready"):
            raise RuntimeError("the peers' timer did not start: see its standard error above")

    def time(self, index: str, peer: str, method: str, query: str) -> float:
        self._in.write(json.dumps({"index": index, "peer": peer, "method": method, "query": query}) + "\n")
        self._in.flush()
        line = self._out.readline()
        if not line:
            raise RuntimeError(f"the peers' timer stopped on {peer} {method}: see its standard error above")
        return float(json.loads(line)["seconds"])


def hipporag_input(index: Path, root: Path) -> Path:
    """Our index exported as HippoRAG's retrieval reads it (:mod:`peers.parity.hipporag_export`)."""
    from peers.parity.hipporag_export import main as export

    out = root / "hipporag-input.json"
    export(str(out), str(index))
    return out


def has_hipporag(python: str) -> bool:
    """Whether the peers venv has HippoRAG (``make peers`` installs it)."""
    found = "import importlib.util as u; raise SystemExit(not (u.find_spec('hipporag') and u.find_spec('igraph')))"
    return subprocess.run([python, "-c", found], capture_output=True, check=False).returncode == 0


def linearrag_case(root: Path) -> tuple[Case, Path]:
    """Our tri-graph of the English texts of ``peers/corpus`` (kept under ``root``) and the export LinearRAG's
    timer builds its own from (:mod:`peers.parity.linearrag_export`)."""
    from peers.parity.linearrag_export import ENGLISH_QUESTIONS
    from peers.parity.linearrag_export import main as export

    out = root / "linearrag-input.json"
    export(str(out), str(root / "ours-linear"))
    return Case("peers-linear", "linearrag", root / "ours-linear", tuple(q["text"] for q in ENGLISH_QUESTIONS)), out


@contextmanager
def linearrag_timer(python: str, src: Path, export: Path, url: str, log: Path) -> Iterator[PeerTimer]:
    """LinearRAG's own retrieval in its venv (:mod:`peers.bench.linearrag_timer`), its standard error in ``log``."""
    command = [python, str(ROOT / "peers" / "bench" / "linearrag_timer.py"), "--export", str(export),
               "--src", str(src), "--url", url]
    with log.open("w", encoding="utf-8") as err:
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True)
        try:
            yield PeerTimer(process)
        finally:
            if process.stdin:
                process.stdin.close()
            process.wait(timeout=60)


@contextmanager
def peer_timer(python: str, url: str, env: dict[str, str], graphrag: dict[str, Path],
               lightrag: Path, hipporag: Path | None) -> Iterator[PeerTimer]:
    command = [python, str(ROOT / "peers" / "bench" / "peer_timer.py"), "--url", url, "--lightrag", str(lightrag)]
    if hipporag is not None:
        command += ["--hipporag", str(hipporag)]
    for name, root in graphrag.items():
        command += ["--graphrag", f"{name}={root}"]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    try:
        yield PeerTimer(process)
    finally:
        if process.stdin:
            process.stdin.close()
        process.wait(timeout=60)


def _ours(engine: Any, recipe: Any, query: str) -> float:
    start = time.perf_counter()
    engine.run(query, recipe)
    return time.perf_counter() - start


def measure(cases: Sequence[Case], timers: Mapping[str, PeerTimer], rounds: int,
            only: frozenset[str] = frozenset()) -> dict[tuple[str, str], tuple[list[float], list[float]]]:
    """(case, recipe) -> (peer seconds, our seconds), one pair per question per round, after one warm-up;
    ``timers``: the peer's timer by peer name; ``only``: these recipes alone (empty: all)."""
    from agrag_lab import Graph
    from agrag_lab.recipes import peers

    recipes = peers()
    samples: dict[tuple[str, str], tuple[list[float], list[float]]] = {}
    for case in cases:
        with Graph.open(case.index, read_only=True) as graph:
            engine = graph.engine()
            names = [name for name, (peer, _) in METHODS.items()
                     if peer in case.peer.split("+") and (not only or name in only)]
            for turn in range(rounds + 1):
                for name in names:
                    peer, method = METHODS[name]
                    for query in case.questions:
                        if turn % 2:
                            ours = _ours(engine, recipes[name], query)
                            theirs = timers[peer].time(case.name, peer, method, query)
                        else:
                            theirs = timers[peer].time(case.name, peer, method, query)
                            ours = _ours(engine, recipes[name], query)
                        if turn:  # the first turn warms both sides
                            pair = samples.setdefault((case.name, name), ([], []))
                            pair[0].append(theirs)
                            pair[1].append(ours)
    return samples


def table(samples: dict[tuple[str, str], tuple[list[float], list[float]]], cases: Sequence[Case]) -> list[str]:
    """The Markdown rows: per index and recipe, the two medians and ours ÷ peer."""
    questions = {c.name: len(c.questions) for c in cases}
    lines = ["| index | recipe | questions | peer's code, median | ours, median | ours ÷ peer |", "|---|---|---|---|---|---|"]
    for (case, name), (theirs, ours) in samples.items():
        peer_ms, our_ms = statistics.median(theirs) * 1000, statistics.median(ours) * 1000
        lines.append(f"| {case} | {name} | {questions[case]} | {peer_ms:.1f} ms | {our_ms:.1f} ms | "
                     f"{our_ms / peer_ms:.2f} |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    from benchmarks.benchmarks_md import BENCHMARKS, update
    from peers.server import serve

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--peers-python", required=True, help="the peers venv's python (make peers)")
    parser.add_argument("--root", type=Path, default=ROOT / ".agrag" / "bench-peers")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--carol-questions", type=int, default=20)
    parser.add_argument("--out", type=Path, default=BENCHMARKS)
    parser.add_argument("--linearrag-python", default="", help="LinearRAG's venv's python (make peers)")
    parser.add_argument("--linearrag-src", type=Path, default=None,
                        help="a snapshot of DEEP-PolyU/LinearRAG's source (the folder holding src/)")
    parser.add_argument("--only", action="append", default=[], choices=sorted(METHODS), metavar="RECIPE",
                        help="time this peer recipe alone (repeatable; default: every one)")
    parser.add_argument("--no-write", action="store_true", help="print the table, leave BENCHMARKS.md as it is")
    args = parser.parse_args(argv)
    only = frozenset(args.only)
    wanted = {METHODS[name][0] for name in only} if only else {peer for peer, _ in METHODS.values()}
    root: Path = args.root.resolve()
    root.mkdir(parents=True, exist_ok=True)
    env = _peers_env(args.peers_python)
    with serve() as url:
        workdir = lightrag_workdir(args.peers_python, url, env, root)
        roots = {"peers-graphrag": graphrag_root(FIXTURES / "graphrag", root / "graphrag-peers", url),
                 "christmas-carol": graphrag_root(CAROL, root / "graphrag-carol", url)}
        cases: list[Case] = []
        if "graphrag" in wanted:
            cases += [
                Case("peers-graphrag", "graphrag",
                     our_index("graphrag", FIXTURES / "graphrag", root / "ours-peers-graphrag"), _peer_questions()),
                Case("christmas-carol", "graphrag", our_index("graphrag", CAROL, root / "ours-carol"),
                     _carol_questions(args.carol_questions)),
            ]
        hipporag = None
        if wanted & {"lightrag", "hipporag"}:
            lightrag_index = our_index("lightrag", workdir, root / "ours-lightrag")
            if "hipporag" in wanted and has_hipporag(args.peers_python):
                hipporag = hipporag_input(lightrag_index, root)
            cases.append(Case("peers-lightrag", "lightrag" + ("+hipporag" if hipporag else ""), lightrag_index,
                              _peer_questions()))
        linear = "linearrag" in wanted and args.linearrag_python and args.linearrag_src
        if linear:
            case, export = linearrag_case(root)
            cases.append(case)
        with ExitStack() as stack:
            timer = stack.enter_context(peer_timer(args.peers_python, url, env, roots, workdir, hipporag))
            timers = {"graphrag": timer, "lightrag": timer, "hipporag": timer}
            if linear:
                timers["linearrag"] = stack.enter_context(linearrag_timer(
                    args.linearrag_python, args.linearrag_src.resolve(), export, url, root / "linearrag-timer.log"))
            samples = measure(cases, timers, args.rounds, only)
    lines = table(samples, cases)
    print("\n".join(lines))
    print(f"1-minute load average at the end: {os.getloadavg()[0]:.1f}")
    if args.no_write:
        return 0
    stamp = (f"Measured {dt.datetime.now().strftime('%Y-%m-%d %H:%M')} on {platform.node()} "
             f"({os.cpu_count()} cores; `make bench-peers`, one run, {args.rounds} rounds after a warm-up; "
             f"1-minute load average at the end {os.getloadavg()[0]:.1f}).")
    update(args.out, [(TITLE, [*lines, "", "Peer's side: GraphRAG 3.3.0 `build_context` of each search engine "
                               "(query embedding through the endpoint included); lightrag-hku 1.5.7 `aquery_data` "
                               "with its keywords given and re-rank off; LinearRAG's `retrieve` (source `4ecfa25`, spaCy "
                               "`en_core_web_sm`) over its own tri-graph of the same passages. Ours: `engine.run` of the peer recipe on "
                               "the same output imported, ledger included. A peer embeds its query through an OpenAI-compatible "
                               "endpoint (here the bundled model served in this process), most of its time where ours "
                               "embeds in process; GRAPHRAG_GLOBAL embeds no query on either side."])], stamp)
    print(f"updated {TITLE!r} in {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
