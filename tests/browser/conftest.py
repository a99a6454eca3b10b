"""A JupyterLab server for the browser test (real server, real kernel, copies of the notebooks)."""

from __future__ import annotations

import json
import secrets
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.lab import free_port, kernel_env, lab_command, lab_url, prepare_musique, wait_ready

#: --doctest-modules would import this file as a module named "conftest", which clashes with
#: the other conftest.py files of tests/ (not packages); pytest loads it as a plugin anyway.
collect_ignore = ["conftest.py"]

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = Path("/usr/bin/chromium")
#: The same slice as tests/notebooks (built once per session at the same place).
MUSIQUE_QUESTIONS = 5


@dataclass(frozen=True)
class LabServer:
    """A running JupyterLab: its port, token and served folder."""

    port: int
    token: str
    root: Path

    def url(self, path: str) -> str:
        return lab_url(self.port, self.token, path)


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
    musique = prepare_musique(
        tmp_path_factory.getbasetemp() / "musique-lab" / "index", questions=MUSIQUE_QUESTIONS, embedder=embedder
    )
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
        env=kernel_env(workshop_path, musique, questions=MUSIQUE_QUESTIONS, threads=1), cwd=root, stdout=log, stderr=subprocess.STDOUT,
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
