"""``agrag-lab lab`` (command line, index preparation) and the widget benchmark."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from agrag_lab import Graph
from agrag_lab.cli import build_parser
from agrag_lab.errors import AgragError
from agrag_lab.lab import (
    WORKSHOP_ENV,
    cmd_lab,
    free_port,
    lab_command,
    open_workshop,
    wait_ready,
)
from agrag_lab.widgets.bench import TARGET_MS, bench


def test_the_cli_has_the_lab_command() -> None:
    args = build_parser().parse_args(["lab", "--port", "8899", "--no-musique", "--prepare-only"])
    assert args.func is cmd_lab and args.port == 8899 and args.no_musique and args.prepare_only


def test_lab_command_listens_on_localhost_with_a_token(tmp_path: Path) -> None:
    cmd = lab_command(port=8123, token="secret", root_dir=tmp_path)
    assert cmd[:3] == [sys.executable, "-m", "jupyterlab"]
    assert "--ip=127.0.0.1" in cmd and "--port=8123" in cmd and "--no-browser" in cmd
    assert "--IdentityProvider.token=secret" in cmd
    assert f"--ServerApp.root_dir={tmp_path.resolve()}" in cmd


def test_wait_ready_notices_a_server_that_died() -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    with pytest.raises(AgragError, match="exited"):
        wait_ready(free_port(), "x", timeout=5, process=dead)


def test_the_index_comes_from_the_environment(
    workshop_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from agrag_lab import lab

    monkeypatch.setenv(WORKSHOP_ENV, str(workshop_path))
    assert lab.workshop_path() == workshop_path
    args = argparse.Namespace(index=None, no_musique=True, musique_index=None, musique_questions=None,
                              prepare_only=True, port=0, token=None, notebooks="notebooks")
    assert cmd_lab(args) == 0
    assert str(workshop_path.resolve()) in capsys.readouterr().out
    with open_workshop() as graph:
        assert graph.stats()["documents"] == 24 and not graph.writable


def test_bench_reports_p50_and_p95(workshop_graph: Graph) -> None:
    result = bench(workshop_graph, moves=12, warmup=1)
    communities = min(100, len(workshop_graph.graph_store.communities()))  # each method returns its 100 best, or all it has
    assert "entity 100" in result["run"] and "chunk 100" in result["run"]
    assert f"community {communities} hits" in result["run"]
    for key in ("model re-fusion p50 / p95 (ms)", "k slider -> view state p50 / p95 (ms)",
                "weight slider -> view state p50 / p95 (ms)"):
        p50, p95 = (float(x) for x in result[key].split(" / "))
        assert 0 < p50 <= p95
    assert result["target p95 (ms)"] == TARGET_MS and isinstance(result["meets target"], bool)


def test_agrag_lab_lab_starts_jupyterlab_and_prints_the_url_with_its_token(workshop_path: Path) -> None:
    """The real command: prepare (nothing to do), start JupyterLab, print the URL, stop on Ctrl-C."""
    import re
    import signal
    import time
    import urllib.request

    from agrag_lab.lab import kernel_env

    env = kernel_env(workshop_path, threads=1)
    process = subprocess.Popen(
        [sys.executable, "-m", "agrag_lab.cli", "lab", "--no-musique", "--token", "t0ken"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    try:
        deadline = time.monotonic() + 180
        url = None
        assert process.stdout is not None
        while url is None and time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            found = re.search(r"http://127\.0\.0\.1:\d+/\S+\?token=\S+", line)
            url = found.group(0) if found else None
        assert url is not None, "agrag-lab lab printed no URL"
        assert url.endswith("?token=t0ken") and "/lab/tree/notebooks/01_quickstart.ipynb" in url
        status = url.split("/lab/", 1)[0] + "/api/status?token=t0ken"
        with urllib.request.urlopen(status, timeout=10) as response:
            assert response.status == 200
        # JupyterLab serves working copies: its autosaves never write into the tracked notebooks
        from agrag_lab.lab import root_folder

        served = root_folder() / ".agrag" / "lab" / "notebooks" / "01_quickstart.ipynb"
        tracked = root_folder() / "notebooks" / "01_quickstart.ipynb"
        assert served.is_file() and served.read_bytes() == tracked.read_bytes()
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
    assert process.returncode == 0
