"""Run Microsoft GraphRAG 1.2.0's own indexing over peers/corpus (runs in the graphrag 1.x venv).

``python peers/graphrag1_index.py --url http://127.0.0.1:PORT/v1 --root WORKDIR --out DIR [--text FILE ...]``

``graphrag init`` writes 1.2's default settings and prompts; this script points its chat model
(``llm``) and its embedding model (``embeddings.llm``, ``all-MiniLM-L6-v2``) at the scripted server
(``--url``), makes the text units small (``chunks.size``, default 200 tokens, overlap a tenth, as the
3.3.0 fixture's), turns the cache off and runs ``graphrag index`` over ``--text`` (default: every
``peers/corpus/*.txt``, the input of the ``graphrag_vectors`` fixture). Copied to ``--out``: the
output tables (``create_final_*.parquet``), the settings, and the LanceDB tables 1.2's own
``generate_text_embeddings`` wrote (``lancedb/default-entity-description.lance``,
``default-text_unit-text.lance``, ``default-community-full_content.lance``: columns ``id``, ``text``,
``vector``, ``attributes``; the bundled model's vectors).
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
    args = parser.parse_args()
    root: Path = args.root
    shutil.rmtree(root, ignore_errors=True)
    graphrag = [sys.executable, "-m", "graphrag"]
    subprocess.run([*graphrag, "init", "--root", str(root)], check=True)
    settings_path = root / "settings.yaml"
    settings = yaml.safe_load(settings_path.read_text(encoding="utf-8"))
    settings["llm"].update(api_base=args.url, api_key="scripted", model="scripted", max_retries=1)
    settings["embeddings"]["llm"].update(api_base=args.url, api_key="scripted", model="all-MiniLM-L6-v2",
                                         max_retries=1)
    settings["chunks"].update(size=args.chunk_size, overlap=args.chunk_size // 10)
    settings["cache"] = {"type": "none"}
    index_and_copy(graphrag, root, settings, args.text, args.out, vectors=True, label="graphrag 1.x")


if __name__ == "__main__":
    main()
