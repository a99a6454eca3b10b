"""What every GraphRAG version's indexing run shares: its settings written, the corpus copied in, ``graphrag index``
run, the output tables copied out.

Used by ``peers/graphrag_index.py`` (graphrag 3.3.0) and ``peers/graphrag1_index.py`` (1.2.0), each run in the venv
of its version (``peers/run.py`` puts the repository on ``PYTHONPATH``); it needs only the standard library and PyYAML,
which both versions install. What differs between the versions, their settings' layout, stays in each script.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

#: The texts each run indexes unless given others.
CORPUS = Path(__file__).with_name("corpus")


def run_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """``parser`` with the arguments every version's run takes: the scripted server's ``--url``, the work folder
    ``--root``, the fixture folder ``--out``, the input ``--text`` files, the text units' ``--chunk-size``."""
    parser.add_argument("--url", required=True)
    parser.add_argument("--root", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--text", action="append", type=Path, default=[], help="an input text (default: the corpus)")
    parser.add_argument("--chunk-size", type=int, default=200, help="text unit tokens (overlap: a tenth)")
    return parser


def index_and_copy(
    graphrag: Sequence[str], root: Path, settings: dict[str, Any], texts: Sequence[Path], out: Path, *,
    vectors: bool, label: str,
) -> None:
    """Write ``settings`` to ``root/settings.yaml``, index ``texts`` (default: :data:`CORPUS`) with ``graphrag``, and
    copy the output tables and the settings to ``out`` (emptied first), with the LanceDB tables when ``vectors``."""
    settings_path = root / "settings.yaml"
    settings_path.write_text(yaml.safe_dump(settings, allow_unicode=True, sort_keys=False), encoding="utf-8")
    (root / ".env").write_text("GRAPHRAG_API_KEY=scripted\n", encoding="utf-8")
    inputs = root / "input"
    inputs.mkdir(parents=True, exist_ok=True)
    for text in texts or sorted(CORPUS.glob("*.txt")):
        shutil.copy(text, inputs / text.name)
    env = dict(os.environ, GRAPHRAG_API_KEY="scripted")
    subprocess.run([*graphrag, "index", "--root", str(root)], check=True, env=env)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    for table in sorted((root / "output").glob("*.parquet")):
        shutil.copy(table, out / table.name)
    shutil.copy(settings_path, out / "settings.yaml")
    if vectors:
        shutil.copytree(root / "output" / "lancedb", out / "lancedb")
    print(f"{label}: {len(list(out.glob('*.parquet')))} tables in {out}")
