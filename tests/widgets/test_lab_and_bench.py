"""``agrag-lab lab`` (command line, index preparation) and the widget benchmark."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from agrag_lab import Graph
from agrag_lab.cli import build_parser
from agrag_lab.cli_options import read_token_file
from agrag_lab.errors import AgragError, ServiceError
from agrag_lab.lab import WORKSHOP_ENV, open_carol, open_workshop, prepare_carol, prepare_workshop
from agrag_lab.lab_server import cmd_lab, lab_command, lab_env, wait_ready
from agrag_lab.processes import free_port
from agrag_lab.storage.lock import WriterLock
from benchmarks.workbench import TARGET_MS, bench


def test_the_cli_has_the_lab_command() -> None:
    args = build_parser().parse_args(["lab", "--port", "8899", "--no-musique", "--prepare-only"])
    assert args.func is cmd_lab and args.port == 8899 and args.no_musique and args.prepare_only


def test_lab_command_listens_on_localhost_with_the_token_in_its_environment(tmp_path: Path) -> None:
    """Issue 31, finding 4: the token was on the command line, readable by every local user."""
    cmd = lab_command(port=8123, root_dir=tmp_path)
    assert cmd[:3] == [sys.executable, "-m", "jupyterlab"]
    assert "--ip=127.0.0.1" in cmd and "--port=8123" in cmd and "--no-browser" in cmd
    assert not any("token" in part.lower() for part in cmd)
    assert f"--ServerApp.root_dir={tmp_path.resolve()}" in cmd
    env = lab_env("secret", {"PATH": "/bin", "JUPYTER_TOKEN_FILE": "/elsewhere"})
    assert env == {"PATH": "/bin", "JUPYTER_TOKEN": "secret"}


def test_a_token_file_must_be_private(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("s3cret\n", encoding="utf-8")
    path.chmod(0o644)
    with pytest.raises(ServiceError, match="has mode 644: other users may read it; run chmod 600"):
        read_token_file(path)
    path.chmod(0o600)
    assert read_token_file(path) == "s3cret"
    args = build_parser().parse_args(["lab", "--token-file", str(path)])
    assert args.token_file == str(path) and not hasattr(args, "token")  # no option takes the token itself


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
    args = argparse.Namespace(index=None, workshop_index=None, no_musique=True, musique_index=None, musique_questions=None,
                              prepare_only=True, port=0, token_file=None, notebooks="notebooks")
    assert cmd_lab(args) == 0
    assert str(workshop_path.resolve()) in capsys.readouterr().out
    with open_workshop() as graph:
        assert graph.stats()["documents"] == 24 and not graph.writable


def test_a_built_index_is_prepared_and_opened_while_another_process_writes_to_it(
    workshop_path: Path, carol_lab_path: Path
) -> None:
    """A CI failure: notebook 08's ``open_carol()`` re-opened the imported index for
    writing to re-import it, and failed with IndexLockedError while another kernel held it.
    A filled index is only read: preparing it never takes (or waits for) the writer lock."""
    for path, prepare in ((workshop_path, prepare_workshop), (carol_lab_path, prepare_carol)):
        with WriterLock(path):
            assert prepare(path, wait=0) == path
    with WriterLock(carol_lab_path), open_carol(carol_lab_path) as graph:
        assert graph.stats()["chunks"] > 0


def test_an_index_being_built_elsewhere_is_waited_for_then_reported(tmp_path: Path) -> None:
    empty = tmp_path / "index"
    empty.mkdir()
    with WriterLock(empty), pytest.raises(AgragError, match="open for writing in another process"):
        prepare_carol(empty, wait=0)


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


def _readable(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def test_agrag_lab_lab_starts_jupyterlab_and_prints_the_url_with_its_token(workshop_path: Path) -> None:
    """The real command: prepare (nothing to do), start JupyterLab, print the URL, stop on Ctrl-C."""
    import re
    import signal
    import time
    import urllib.request

    from agrag_lab.lab import kernel_env

    env = {**kernel_env(workshop_path, threads=1), "JUPYTER_TOKEN": "t0ken"}
    process = subprocess.Popen(
        [sys.executable, "-m", "agrag_lab.cli", "lab", "--no-musique"],
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
        # no process of this user shows the token on its command line (the process list is world-readable)
        shown = [p for p in Path("/proc").glob("[0-9]*/cmdline") if _readable(p) and b"t0ken" in _readable(p)]
        assert not shown, [p.read_bytes() for p in shown]
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
