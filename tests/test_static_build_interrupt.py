"""Building the static model says up front how long it takes, and Ctrl-C stops it leaving nothing half-made:
no ``.partial`` model, no index folder (the model is built before the folder is made)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

LIGHTRAG = Path(__file__).resolve().parent / "fixtures" / "peers" / "lightrag"


def test_ctrl_c_during_the_static_model_build_stops_it_and_keeps_nothing(tmp_path: Path) -> None:
    cache, index = tmp_path / "cache", tmp_path / "index"
    env = {**os.environ, "AGRAG_LAB_CACHE": str(cache), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    code = "import sys; from agrag_lab.cli import main; sys.exit(main(sys.argv[1:]))"
    process = subprocess.Popen(
        [sys.executable, "-c", code, "import", "lightrag", str(LIGHTRAG), "--index", str(index), "--embedder", "static"],
        stderr=subprocess.PIPE, text=True, env=env,
    )
    assert process.stderr is not None
    said, before = "", []
    while "building the static model" not in said:  # the estimate comes before the build starts
        said = process.stderr.readline()
        before.append(said)
        assert said, before
    assert "building the static model once" in said and "minute(s) on this machine now" in said, said
    assert "Ctrl-C stops it and keeps nothing" in said
    time.sleep(3)  # well into the build
    process.send_signal(signal.SIGINT)
    started = time.perf_counter()
    rest = process.communicate(timeout=120)[1]
    stopped = time.perf_counter() - started
    assert process.returncode == 130, rest
    assert "interrupted (Ctrl-C)" in rest and "Traceback" not in rest
    assert stopped < 60
    assert not index.exists()
    assert not cache.exists() or not any(p.name.startswith("static-") for p in cache.iterdir())
