"""A person's check of the graph's entities: the FusionInspector for "Who worked with Babbage?" shows no junk.

Writes a small notebook into the test JupyterLab, runs it in Debian Chromium,
reads the entity rows of the inspector's ledger and checks every one against
the hand-written gold list of the workshop corpus; the screenshot goes to
``test-artifacts/entity_quality_inspector.png``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agrag_lab.graph import Graph
from agrag_lab.kg.quality import GoldList

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM = Path("/usr/bin/chromium")
GOLD = REPO / "tests" / "kg" / "workshop_gold_entities.toml"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="needs Debian's Chromium at /usr/bin/chromium (apt-get install -y chromium)"
)

CELLS = [
    'import os\nos.environ.setdefault("HF_HUB_OFFLINE", "1")\nos.environ.setdefault("ANONYMIZED_TELEMETRY", "False")\n'
    "from agrag_lab import recipes\nfrom agrag_lab.lab import open_workshop\nfrom agrag_lab.widgets import FusionInspector\n"
    "graph = open_workshop()",
    'run = graph.engine().run("Who worked with Babbage?", recipes.ENTITY.replace(limit=20))\n'
    "FusionInspector(run, session=graph.evidence())",
]
ROWS = """() => [...document.querySelectorAll(
  '.agrag-fusion-inspector .agrag-table[data-name="ledger"] tbody tr')].map(
  r => [r.dataset.key, r.querySelector('td[data-column="title"]').innerText.trim()])"""


def _notebook(path: Path) -> None:
    cells = [
        {"cell_type": "code", "metadata": {}, "source": source, "outputs": [], "execution_count": None}
        for source in CELLS
    ]
    nb = {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(nb), encoding="utf-8")


@pytest.fixture
def page(lab_server: Any) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        context = browser.new_context(viewport={"width": 1366, "height": 768})
        page = context.new_page()
        page.set_default_timeout(120_000)
        yield page
        browser.close()


def test_inspector_for_who_worked_with_babbage_shows_only_gold_entities(
    page: Any, lab_server: Any, workshop_path: Path, embedder: Any
) -> None:
    _notebook(lab_server.root / "notebooks" / "entity_quality.ipynb")
    page.goto(lab_server.url("lab/workspaces/entity-quality/tree/notebooks/entity_quality.ipynb"))
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell")
    page.wait_for_function(
        "() => /Idle/.test(document.querySelector('#jp-main-statusbar')?.textContent || '')", timeout=180_000
    )
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
    inspector = page.locator(".agrag-fusion-inspector").first
    inspector.wait_for(state="visible", timeout=600_000)
    ledger = inspector.locator('.agrag-table[data-name="ledger"] tbody tr')
    ledger.first.wait_for(state="visible")
    errors = page.locator(".jp-OutputArea-output", has_text="Traceback (most recent call last)")
    assert errors.count() == 0, errors.first.inner_text()[:2000]

    rows = page.evaluate(ROWS)[:20]  # the ledger lists every candidate, in the final order
    assert len(rows) == 20
    with Graph.open(workshop_path, embedder=embedder, read_only=True) as graph:
        store = graph.graph_store
        names = {key: store.graph.entities[key].name for key, _title in rows}
    for key, title in rows:  # what the person sees is the entity's name (cut to fit with an ellipsis)
        assert names[key].startswith(title.rstrip("…").rstrip()), (key, title)
    gold = GoldList.load(GOLD)
    assert [n for n in names.values() if not gold.contains(n)] == [], rows
    assert "Ada Lovelace" in names.values()

    ARTIFACTS.mkdir(exist_ok=True)
    inspector.scroll_into_view_if_needed()
    inspector.screenshot(path=str(ARTIFACTS / "entity_quality_inspector.png"))
