"""``make peers``: run the peers' own indexing (and parity) against the scripted server.

Runs in agrag_lab's venv: starts :mod:`peers.server` on a free 127.0.0.1 port (our
embedder's vectors, scripted chat answers), then runs each script under ``peers/`` with
the peers venv's python (``--peers-python``), which reaches the server by URL. Outputs go
to ``tests/fixtures/peers/`` (``graphrag/`` tables, ``lightrag/`` working directory,
``parity/*.json``).

``python -m peers.run --peers-python PEERS_VENV/bin/python [--linearrag-python LINEARRAG_VENV/bin/python]
[--graphrag1-python GRAPHRAG1_VENV/bin/python]
[--only graphrag,lightrag,custom_kg,lightrag_dim,parity,hipporag,linearrag,graphrag_vectors,graphrag_zh,graphrag1]``
(``custom_kg``: a working directory written by LightRAG's ``insert_custom_kg``, kept as
``lightrag_custom_kg/``.) ``graphrag_vectors``: GraphRAG over the same corpus, kept with the LanceDB
tables its indexer wrote (``graphrag_vectors/lancedb/``), and what its own context builders select
searching those stored vectors (``parity/graphrag_vectors.json``). ``graphrag_zh``: GraphRAG over the
Chinese texts alone (Chinese entity names), kept with its LanceDB tables and its
``embeddings.<name>.parquet`` snapshot (``graphrag_zh/``), and its selections for the Chinese questions
of ``parity/questions_zh.json`` (``parity/graphrag_zh.json``). ``lightrag_dim``: LightRAG's insert with
another embedding model than ours, :data:`DIM_MODEL` of :data:`DIM_DIMENSION` dimensions, kept with its vector
files as ``lightrag_dim/``, and what LightRAG's ``aquery_data`` selects on it, in ``parity/lightrag_dim.json``.
(``parity`` needs ``graphrag`` and ``lightrag`` in the same run: it reads their working directories.) ``hipporag``
exports our graph of ``tests/fixtures/peers/lightrag`` (:mod:`peers.parity.hipporag_export`) and runs
HippoRAG's retrieval on it: the PyPI release into ``parity/hipporag-pypi.json``, or with
``HIPPORAG_SRC`` (a checkout's ``src/``) that source into ``parity/hipporag.json``. ``linearrag``
builds our tri-graph of the English texts of ``peers/corpus`` (:mod:`peers.parity.linearrag_export`) and
runs LinearRAG's own functions on the same passages in a venv of its own (``--linearrag-python``), from
a snapshot of its source (``LINEARRAG_SRC``: the folder holding ``src/``), into ``parity/linearrag.json``.
``graphrag1``: graphrag 1.2.0's own indexer, in a venv of its own (``--graphrag1-python``), over the input of
``graphrag_vectors`` (:mod:`peers.graphrag1_index`), kept with the LanceDB tables it wrote as
``graphrag1_vectors/``, and what its own ``LocalSearchMixedContext`` selects searching them
(:mod:`peers.parity.graphrag1_parity`, ``parity/graphrag1_vectors.json``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from peers.server import serve

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "peers"
STEPS = ("graphrag", "lightrag", "custom_kg", "lightrag_dim", "parity", "hipporag", "linearrag", "graphrag_vectors",
         "graphrag_zh", "graphrag1")
#: The Chinese texts of the corpus (the graphrag_zh step indexes them alone).
ZH_TEXTS = (ROOT / "peers" / "corpus" / "sanguo_yanyi.txt", ROOT / "peers" / "corpus" / "zh" / "xiyouji.txt")
#: The builder's model of the ``lightrag_dim`` working directory: the static model distilled from the bundled
#: one (model2vec, served by :mod:`peers.server`), another model with vectors of another length than ours.
DIM_MODEL, DIM_DIMENSION = "static-all-MiniLM-L6-v2-256", 256


def _tiktoken_cache(python: str) -> str:
    """tiktoken's encodings ship inside litellm (a graphrag dependency): offline, no download."""
    found = subprocess.run(
        [python, "-c", "import litellm, os; print(os.path.join(os.path.dirname(litellm.__file__), 'litellm_core_utils', 'tokenizers'))"],
        check=True,
        capture_output=True,
        text=True,
        env=dict(os.environ, LITELLM_LOCAL_MODEL_COST_MAP="True"),
    )
    return found.stdout.strip().splitlines()[-1]


def keep_lightrag(workdir: Path, fixture: Path) -> None:
    """The working directory as LightRAG wrote it, less its vector files (our model's vectors,
    which agrag_lab recomputes) and its LLM response cache (the scripted answers): small."""
    shutil.rmtree(fixture, ignore_errors=True)
    fixture.mkdir(parents=True)
    for path in sorted(workdir.iterdir()):
        if path.is_file() and not path.name.startswith("vdb_") and "llm_response_cache" not in path.name:
            shutil.copy(path, fixture / path.name)


def keep_with_vectors(workdir: Path, fixture: Path) -> None:
    """The working directory as LightRAG wrote it, with its vector files, less its LLM response cache."""
    shutil.rmtree(fixture, ignore_errors=True)
    fixture.mkdir(parents=True)
    for path in sorted(workdir.iterdir()):
        if path.is_file() and "llm_response_cache" not in path.name:
            shutil.copy(path, fixture / path.name)


def hipporag(python: str, env: dict[str, str]) -> Path:
    """Export our graph for HippoRAG, run its retrieval in the peers venv; the parity file written."""
    source = os.environ.get("HIPPORAG_SRC", "")
    commit = ""
    if source:
        commit = subprocess.run(["git", "-C", source, "rev-parse", "HEAD"], capture_output=True, text=True,
                                check=False).stdout.strip()
    out = FIXTURES / "parity" / ("hipporag.json" if source else "hipporag-pypi.json")
    with tempfile.TemporaryDirectory(prefix="agrag-hipporag-") as work:
        exported = Path(work) / "input.json"
        subprocess.run([sys.executable, "-m", "peers.parity.hipporag_export", str(exported)], check=True, cwd=ROOT)
        subprocess.run([python, str(ROOT / "peers" / "parity" / "hipporag_parity.py"), str(exported), str(out), commit],
                       check=True, env=env)
    return out


def linearrag(python: str) -> Path:
    """Export our tri-graph's passages and vectors, run LinearRAG's functions on them; the parity file written."""
    source = os.environ.get("LINEARRAG_SRC", "")
    if not source or not (Path(source) / "src" / "LinearRAG.py").is_file():
        raise SystemExit("peers: the linearrag step needs LINEARRAG_SRC, a snapshot of DEEP-PolyU/LinearRAG "
                         "(the folder holding src/LinearRAG.py)")
    commit = os.environ.get("LINEARRAG_COMMIT", "") or subprocess.run(
        ["git", "-C", source, "rev-parse", "HEAD"], capture_output=True, text=True, check=False).stdout.strip()
    out = FIXTURES / "parity" / "linearrag.json"
    with tempfile.TemporaryDirectory(prefix="agrag-linearrag-") as work:
        exported = Path(work) / "input.json"
        subprocess.run([sys.executable, "-m", "peers.parity.linearrag_export", str(exported)], check=True, cwd=ROOT)
        subprocess.run([python, str(ROOT / "peers" / "parity" / "linearrag_parity.py"), str(exported), str(out),
                        source, commit], check=True, env=dict(os.environ, PYTHONHASHSEED="0"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--peers-python", required=True)
    parser.add_argument("--linearrag-python", default="", help="LinearRAG's venv's python (the linearrag step)")
    parser.add_argument("--graphrag1-python", default="", help="graphrag 1.2.0's venv's python (the graphrag1 step)")
    parser.add_argument("--only", default=",".join(STEPS))
    args = parser.parse_args()
    steps = [s for s in args.only.split(",") if s]
    python = args.peers_python
    if "graphrag1" in steps and not args.graphrag1_python:
        raise SystemExit("peers: the graphrag1 step needs --graphrag1-python (make peers sets it)")
    if "linearrag" in steps:  # its own venv, no scripted server
        if not args.linearrag_python:
            raise SystemExit("peers: the linearrag step needs --linearrag-python (make peers sets it)")
        linearrag(args.linearrag_python)
    if not set(steps) - {"linearrag"}:
        print(f"peers: done (linearrag) -> {FIXTURES}", file=sys.stderr)
        return
    env = dict(
        os.environ,
        LITELLM_LOCAL_MODEL_COST_MAP="True",
        TIKTOKEN_CACHE_DIR=_tiktoken_cache(args.peers_python),
        PYTHONPATH=str(ROOT),
    )
    with serve() as url, tempfile.TemporaryDirectory(prefix="agrag-peers-") as work:
        if "graphrag" in steps:
            subprocess.run(
                [python, str(ROOT / "peers" / "graphrag_index.py"), "--url", url, "--root", f"{work}/graphrag", "--out", str(FIXTURES / "graphrag")],
                check=True,
                env=env,
            )
        for step, texts, extra, questions in (
            ("graphrag_vectors", (), ("--vectors",), "questions.json"),
            ("graphrag_zh", ZH_TEXTS, ("--vectors", "--snapshot-embeddings", "--chunk-size", "80"), "questions_zh.json"),
        ):
            if step not in steps:
                continue
            root = f"{work}/{step}"
            given = [a for t in texts for a in ("--text", str(t))]
            subprocess.run([python, str(ROOT / "peers" / "graphrag_index.py"), "--url", url, "--root", root,
                            "--out", str(FIXTURES / step), *given, *extra], check=True, env=env)
            subprocess.run([python, str(ROOT / "peers" / "parity" / "graphrag_parity.py"), "--url", url,
                            "--fixtures", str(FIXTURES), "--root", root, "--stored-vectors", "--name", step,
                            "--questions", str(ROOT / "peers" / "parity" / questions)], check=True, env=env)
        if "graphrag1" in steps:  # 1.2.0 in its own venv; tiktoken's encodings from the peers venv (offline)
            root = f"{work}/graphrag1_vectors"
            subprocess.run([args.graphrag1_python, str(ROOT / "peers" / "graphrag1_index.py"), "--url", url, "--root", root,
                            "--out", str(FIXTURES / "graphrag1_vectors")], check=True, env=env)
            subprocess.run([args.graphrag1_python, str(ROOT / "peers" / "parity" / "graphrag1_parity.py"),
                            "--fixtures", str(FIXTURES), "--root", root], check=True, env=env)
        if "lightrag" in steps:
            subprocess.run(
                [python, str(ROOT / "peers" / "lightrag_index.py"), "--url", url, "--out", f"{work}/lightrag"],
                check=True,
                env=env,
            )
            keep_lightrag(Path(work) / "lightrag", FIXTURES / "lightrag")
        if "custom_kg" in steps:
            subprocess.run(
                [python, str(ROOT / "peers" / "lightrag_custom_kg.py"), "--url", url, "--out", f"{work}/custom_kg"],
                check=True,
                env=env,
            )
            keep_lightrag(Path(work) / "custom_kg", FIXTURES / "lightrag_custom_kg")
        if "lightrag_dim" in steps:
            model = ["--embedding-model", DIM_MODEL, "--embedding-dim", str(DIM_DIMENSION)]
            subprocess.run(
                [python, str(ROOT / "peers" / "lightrag_index.py"), "--url", url, "--out", f"{work}/lightrag_dim", *model],
                check=True,
                env=env,
            )
            keep_with_vectors(Path(work) / "lightrag_dim", FIXTURES / "lightrag_dim")
            subprocess.run(
                [python, str(ROOT / "peers" / "parity" / "lightrag_parity.py"), "--url", url, "--fixtures", str(FIXTURES),
                 "--workdir", f"{work}/lightrag_dim", "--name", "lightrag_dim", *model],
                check=True,
                env=env,
            )
        if "parity" in steps:
            parity = ROOT / "peers" / "parity"
            subprocess.run(
                [python, str(parity / "graphrag_parity.py"), "--url", url, "--fixtures", str(FIXTURES), "--root", f"{work}/graphrag"],
                check=True,
                env=env,
            )
            subprocess.run(
                [python, str(parity / "lightrag_parity.py"), "--url", url, "--fixtures", str(FIXTURES), "--workdir", f"{work}/lightrag"],
                check=True,
                env=env,
            )
    if "hipporag" in steps:
        hipporag(python, env)
    print(f"peers: done ({', '.join(steps)}) -> {FIXTURES}", file=sys.stderr)


if __name__ == "__main__":
    main()
