"""A person's check in a real browser of the RecipeEditor (notebook 01) and the CitationChecker (notebook 05).

At 1366x768, in the light and the dark theme: type into the editor (an
invalid value, then a valid one), run the recipe, load a file that is not
there; paste an answer into the checker and read each citation's verdict as
it is typed. Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

#: The first test may also wait for the session's set-up (indexes, JupyterLab, Chromium).
pytestmark = pytest.mark.timeout(1800)


def field(editor: Any, key: str) -> Any:
    return editor.locator(".agrag-field-" + key.replace(".", "-").replace("_", "-"))


def test_01_recipe_editor_sections_errors_run_and_files(page: Any, lab: Any) -> None:
    lab.run_notebook(page, "01_quickstart")
    editor = page.locator(".agrag-recipe-editor").first
    editor.wait_for(state="visible")
    titles = editor.locator(".agrag-section-title").all_inner_texts()
    assert titles[:5] == ["recipe", "fusion", "graph walk", "community reports", "re-rank"]
    # the notebook turned the walk on (bfs): its depth applies, PageRank's restart does not
    assert field(editor, "walk.depth").is_visible() and not field(editor, "walk.restart").is_visible()
    assert not field(editor, "rerank.model").is_visible() and not field(editor, "communities.top_k").is_visible()
    assert editor.locator(".agrag-help:visible").count() >= 12  # help is on the page, not only in tooltips

    lab.to_top(editor)
    limit = field(editor, "limit").locator("input")
    limit.fill("0")
    limit.press("Tab")
    error = field(editor, "limit").locator(".agrag-error")
    error.wait_for(state="visible")
    assert "must be an integer" in error.inner_text()
    assert lab.in_viewport(error, fraction=0.9)  # next to its field, where the person typed
    run = editor.locator(".agrag-run")
    assert run.is_disabled()
    limit.fill("4")
    limit.press("Tab")
    error.wait_for(state="detached")
    assert run.is_enabled()

    # the PageRank walk shows its own settings, the choice of push or power iteration among them
    field(editor, "walk.strategy").locator("select").select_option("ppr")
    method = field(editor, "walk.pagerank")
    method.wait_for(state="visible")
    assert method.locator("select").input_value() == "push" and "local" in method.inner_text()
    assert field(editor, "walk.restart").is_visible() and not field(editor, "walk.depth").is_visible()
    for theme in lab.each_theme(page):
        lab.to_top(field(editor, "walk.enabled"))
        lab.assert_legible(method, f"PageRank method, {theme}")
        lab.shot(page, f"01_recipe_editor_pagerank_walk_{theme}.png")
    field(editor, "walk.strategy").locator("select").select_option("bfs")
    method.wait_for(state="hidden")

    # turning the walk off hides its settings
    field(editor, "walk.enabled").locator("input[type=checkbox]").uncheck()
    field(editor, "walk.depth").wait_for(state="hidden")

    run.click()
    results = editor.locator('.agrag-table[data-name="editor-results"] tbody tr')
    results.first.wait_for(state="visible")
    assert results.count() == 4
    assert "searched in" in editor.inner_text()

    # saving says where; a failed load says why, and the "saved"/"loaded" line goes
    editor.locator("button", has_text="Save TOML").click()
    status = editor.locator("text=/saved HYBRID_EDITED to/")  # the walk was switched: another recipe now
    status.wait_for(state="visible")
    path = editor.locator(".widget-text", has_text="file").locator("input")
    path.fill("my_recipes/not_there.toml")
    path.press("Tab")
    editor.locator("button", has_text="Load TOML").click()
    editor.locator(".agrag-error", has_text="not_there").wait_for(state="visible")
    assert status.count() == 0

    for theme in lab.each_theme(page):
        lab.to_top(editor)
        lab.assert_legible(editor, f"recipe editor, {theme}")
        lab.shot(page, f"01_recipe_editor_{theme}.png")
    lab.shot(editor, "01_recipe_editor_whole.png", whole=True)


def test_05_citation_checker_checks_as_you_paste(page: Any, lab: Any) -> None:
    lab.run_notebook(page, "05_citations")
    checker = page.locator(".agrag-citation-checker").first
    checker.wait_for(state="visible")
    rows = checker.locator('.agrag-table[data-name="citations"] tbody tr')
    rows.first.wait_for(state="visible")
    assert rows.count() == 3
    ids = rows.locator('td[data-column="citation"]').all_inner_texts()
    fetched, unread = ids[0], ids[1]
    lab.to_top(checker)
    box = checker.locator("textarea")
    # paste (no blur): the table follows at once
    answer = (f"Lovelace computed the Bernoulli numbers [{fetched}] [1]. She described the operations "
              f"[{unread}] and the loom [nobody@0123456789ab#c1].")
    box.fill(answer)
    page.wait_for_function("(el) => el.querySelectorAll('tbody tr').length === 4",
                           arg=checker.locator('.agrag-table[data-name="citations"]').element_handle())
    assert box.evaluate("e => e === document.activeElement")  # still typing: the box never lost focus
    # typing key by key: one check once the typing pauses, not one per key
    summary = checker.locator(".agrag-citation-summary")
    checks = int(summary.get_attribute("data-checks") or "0")
    typed = " See [x]."
    box.press("End")
    box.press_sequentially(typed, delay=40)
    page.wait_for_function("(el) => el.querySelectorAll('tbody tr').length === 5",
                           arg=checker.locator('.agrag-table[data-name="citations"]').element_handle())
    page.wait_for_timeout(800)
    done = int(summary.get_attribute("data-checks") or "0") - checks
    assert 1 <= done <= 2, f"{done} checks for {len(typed)} keys"
    box.fill(answer)  # back to the answer the rest of the test reads
    page.wait_for_function("(el) => el.querySelectorAll('tbody tr').length === 4",
                           arg=checker.locator('.agrag-table[data-name="citations"]').element_handle())
    assert rows.locator('td[data-column="status"]').all_inner_texts() == ["valid", "not an id", "invalid", "invalid"]
    assert rows.locator('td[data-column="reason"]').all_inner_texts() == ["fetched", "unresolved", "not_fetched",
                                                                          "unknown"]
    assert "bracketed text" in checker.locator(".agrag-citation-summary").inner_text()
    # the "why" column is shown whole
    for cell in rows.locator('td[data-column="message"]').all():
        assert cell.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), cell.inner_text()
        assert lab.visible_fraction(cell) > 0.99
    # "fetch this id" only for an id that exists and was not fetched
    fetch = checker.locator("button", has_text="fetch this id")
    offered = {}
    for i in range(rows.count()):
        row = rows.nth(i)
        row.click()
        page.wait_for_timeout(300)
        offered[row.locator('td[data-column="reason"]').inner_text()] = fetch.is_enabled()
    assert offered == {"fetched": False, "unresolved": False, "not_fetched": True, "unknown": False}, offered
    rows.filter(has_text=re.compile("not_fetched")).first.click()
    fetch.click()
    expect(checker.locator(".agrag-citation-summary")).to_contain_text("2 valid")

    for theme in lab.each_theme(page):
        lab.to_top(checker)
        lab.assert_legible(checker, f"citation checker, {theme}")
        lab.shot(page, f"05_citation_checker_{theme}.png")
