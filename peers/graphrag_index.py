"""Run Microsoft GraphRAG 3.3.0's own indexing over peers/corpus (runs in the peers venv).

``python peers/graphrag_index.py --url http://127.0.0.1:PORT/v1 --root WORKDIR --out DIR [--text FILE ...]
[--vectors] [--snapshot-embeddings]``

``graphrag init`` writes its default settings and prompts; this script points both model
entries at the scripted server (``--url``), makes the text units small (``--chunk-size``, default
200 tokens, overlap a tenth) so a few short texts give several units, turns the cache off, and runs
``graphrag index`` over ``--text`` (default: every ``peers/corpus/*.txt``). The output tables
(``output/*.parquet``) and the settings are copied to ``--out``; with ``--vectors`` also the
LanceDB tables GraphRAG wrote (``output/lancedb/``: ``entity_description``, ``community_full_content``,
``text_unit_text``, the bundled model's vectors as GraphRAG's own ``generate_text_embeddings`` stored
them), and with ``--snapshot-embeddings`` GraphRAG's snapshot of the same vectors
(``embeddings.<name>.parquet``, ``snapshots.embeddings: true``).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from peers.graphrag_run import index_and_copy, run_arguments


def main() -> None:
    parser = run_arguments(argparse.ArgumentParser(description=__doc__))
    parser.add_argument("--vectors", action="store_true", help="keep the LanceDB vector tables (output/lancedb)")
    parser.add_argument("--snapshot-embeddings", action="store_true", help="also write embeddings.<name>.parquet")
    args = parser.parse_args()
    root: Path = args.root
    shutil.rmtree(root, ignore_errors=True)
    graphrag = [sys.executable, "-m", "graphrag"]
    subprocess.run([*graphrag, "init", "--root", str(root), "--model", "gpt-4.1", "--embedding", "all-MiniLM-L6-v2"], check=True)
    settings_path = root / "settings.yaml"
    settings = yaml.safe_load(settings_path.read_text(encoding="utf-8"))
    for group in ("completion_models", "embedding_models"):
        for model in settings[group].values():
            model["api_base"] = args.url
            model["api_key"] = "scripted"
            model.pop("retry", None)
    settings["chunking"]["size"] = args.chunk_size
    settings["chunking"]["overlap"] = args.chunk_size // 10
    settings["cache"] = {"type": "none"}
    settings["snapshots"]["embeddings"] = bool(args.snapshot_embeddings)
    index_and_copy(graphrag, root, settings, args.text, args.out, vectors=args.vectors, label="graphrag")


if __name__ == "__main__":
    main()
