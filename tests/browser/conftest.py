"""A JupyterLab server for the browser test (real server, real kernel, copies of the notebooks)."""

from __future__ import annotations

import json
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.lab import free_port, lab_command, wait_ready

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "notebooks"))
from lab_browser_support import ARTIFACTS, CHROMIUM, REPO, LabServer  # noqa: E402
from lab_env import kernel_env, musique_slice  # noqa: E402  (shared with the notebook tests)

#: JupyterLab settings for a test: every cell stays in the DOM; no news, no update checks.
SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false", "checkForUpdates": False,
    },
}


@pytest.fixture(scope="session")
def lab_server(
    tmp_path_factory: pytest.TempPathFactory, workshop_path: Path, embedder: SentenceTransformerEmbedder
) -> Iterator[LabServer]:
    """JupyterLab on 127.0.0.1 with a token, serving copies of the notebooks (so runs never save into git)."""
    if not CHROMIUM.exists():
        pytest.skip("the browser test needs Debian's Chromium at /usr/bin/chromium (apt-get install -y chromium)")
    musique = musique_slice(tmp_path_factory, embedder)
    root = tmp_path_factory.mktemp("lab-root")
    shutil.copytree(REPO / "notebooks", root / "notebooks")
    settings = root / ".settings"
    for name, values in SETTINGS.items():
        path = settings / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values), encoding="utf-8")
    ARTIFACTS.mkdir(exist_ok=True)
    port, token = free_port(), secrets.token_hex(16)
    extra = [f"--LabApp.user_settings_dir={settings}", f"--LabApp.workspaces_dir={root / '.workspaces'}"]
    log = (ARTIFACTS / "jupyterlab.log").open("w", encoding="utf-8")
    process = subprocess.Popen(
        lab_command(port=port, token=token, root_dir=root, extra=extra),
        env=kernel_env(workshop_path, musique), cwd=root, stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        wait_ready(port, token, timeout=180, process=process)
        yield LabServer(port, token, root)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
