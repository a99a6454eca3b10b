"""A person's check of the graph's entities: the FusionInspector for "Who worked with Babbage?" shows no junk.

Writes a two-cell notebook into the session's JupyterLab (``lab_server``), runs it in
Debian Chromium at 1366x768, reads the top 20 entity rows of the inspector's ledger and
checks every one against the hand-written gold list of the workshop corpus
(``tests/kg/workshop_gold_entities.toml``); then, in the light and the dark theme, checks
that the ledger is legible and saves what a person sees to
``test-artifacts/entity_quality_inspector_{light,dark}.png`` (the ledger as it opens) and
``..._{light,dark}_to_20.png`` (scrolled down to the cut line at 20).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agrag_lab.graph import Graph
from agrag_lab.kg.extract.quality import GoldList

GOLD = Path(__file__).resolve().parents[1] / "kg" / "workshop_gold_entities.toml"
NOTEBOOK = "entity_quality"
QUESTION = "Who worked with Babbage?"
TOP = 20
CELLS = [
    "from agrag_lab import recipes\nfrom agrag_lab.lab import open_workshop\nfrom agrag_lab.widgets import FusionInspector\n"
    "graph = open_workshop()",
    f"run = graph.engine().run({QUESTION!r}, recipes.ENTITY.replace(limit={TOP}))\n"
    "FusionInspector(run, session=graph.evidence())",
]
#: ``[key, title as shown]`` of each ledger row, in the final order (a cell's text before any mark).
ROWS = """() => [...document.querySelectorAll(
  '.agrag-fusion-inspector .agrag-table[data-name="ledger"] tbody tr')].map(
  r => [r.dataset.key, (r.querySelector('td[data-column="title"]').childNodes[0]?.textContent || '').trim()])"""

#: Scroll the ledger (not the notebook) so that row ``e`` sits at its bottom edge.
SCROLL_TO = """e => { const s = e.closest('.agrag-table-scroll');
  s.scrollTop += e.getBoundingClientRect().bottom - s.getBoundingClientRect().bottom + 2; }"""

#: Whether row ``e`` lies wholly inside the ledger's scrolled box, top to bottom.
INSIDE = """e => { const r = e.getBoundingClientRect(), s = e.closest('.agrag-table-scroll').getBoundingClientRect();
  return r.top >= s.top - 1 && r.bottom <= s.bottom + 1; }"""


def write_notebook(path: Path, sources: list[str]) -> None:
    """A notebook of code cells ``sources``, unexecuted, at ``path``."""
    cells = [
        {"cell_type": "code", "metadata": {}, "source": source, "outputs": [], "execution_count": None}
        for source in sources
    ]
    nb = {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(nb), encoding="utf-8")


def test_inspector_for_who_worked_with_babbage_shows_only_gold_entities(
    page: Any, lab: Any, lab_server: Any, workshop_path: Path, embedder: Any
) -> None:
    write_notebook(lab_server.root / "notebooks" / f"{NOTEBOOK}.ipynb", CELLS)
    lab.run_notebook(page, NOTEBOOK)
    inspector = page.locator(".agrag-fusion-inspector").first
    ledger = inspector.locator('.agrag-table[data-name="ledger"] tbody tr')
    ledger.first.wait_for(state="visible")

    rows = page.evaluate(ROWS)[:TOP]  # the ledger lists every candidate, in the final order
    assert len(rows) == TOP
    with Graph.open(workshop_path, embedder=embedder, read_only=True) as graph:
        entities = graph.graph_store.graph.entities
        names = {key: entities[key].name for key, _title in rows}
    for key, title in rows:  # what the person sees is the entity's name (cut to fit with an ellipsis)
        assert title and names[key].startswith(title.rstrip("…").rstrip()), (key, title)
    gold = GoldList.load(GOLD)
    assert [n for n in names.values() if not gold.contains(n)] == [], rows
    assert {"Ada Lovelace", "Charles Babbage"} <= set(names.values())

    lab.to_top(inspector)
    last = ledger.nth(TOP - 1)
    for theme in lab.each_theme(page):
        lab.assert_legible(inspector.locator('.agrag-table[data-name="ledger"]'), f"the ledger ({theme})")
        lab.shot(page, f"entity_quality_inspector_{theme}.png")  # the first rows, as the inspector opens
        last.evaluate(SCROLL_TO)  # a person scrolls the ledger down to the cut line at 20
        page.wait_for_timeout(300)
        assert last.evaluate(INSIDE) and "cut-line" in (last.get_attribute("class") or "")
        assert lab.visible_fraction(last) > 0.5  # in the window, not under the notebook's edge
        lab.shot(page, f"entity_quality_inspector_{theme}_to_{TOP}.png")
        last.evaluate("e => { e.closest('.agrag-table-scroll').scrollTop = 0; }")
