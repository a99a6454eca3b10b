"""Constants and the server handle shared by the browser test and its conftest."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agrag_lab.lab import lab_url

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = Path("/usr/bin/chromium")


@dataclass(frozen=True)
class LabServer:
    """A running JupyterLab: its port, token and served folder."""

    port: int
    token: str
    root: Path

    def url(self, path: str) -> str:
        return lab_url(self.port, self.token, path)
