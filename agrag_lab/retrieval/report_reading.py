"""A recipe that reads nothing but community reports, and the warning when it had none to read.

THEMATIC and GRAPHRAG_GLOBAL read nothing but community reports. On an index
with no reports (a bare GraphML import, a corpus with no relations) they
returned no result with ``status ok`` and no word (issue 42). A run whose
report-reading parts found no report now says so in ``trace.warnings``, which
the CLI prints, the ``search`` tool returns and the ledger keeps. Under a
scope the warning says no report is visible in it, whether the index holds
none or the scope shows none (the two must not be told apart).

Examples
--------
>>> from agrag_lab import recipes
>>> reads_only_reports(recipes.get("THEMATIC")), reads_only_reports(recipes.get("HYBRID_RERANKED"))
(True, False)
>>> nothing_read(recipes.get("THEMATIC"), found_reports=False, index_reports=0, scoped=False)[0][:60]
"recipe 'THEMATIC' reads community reports (method community)"
>>> nothing_read(recipes.get("THEMATIC"), found_reports=True, index_reports=4, scoped=False)
()
"""

from __future__ import annotations

from agrag_lab.recipes import Recipe

__all__ = ["REPORT_METHODS", "nothing_read", "reads_only_reports"]

#: Registry methods whose candidates are community reports.
REPORT_METHODS = frozenset({"community", "level_reports"})


def reads_only_reports(recipe: Recipe) -> bool:
    """Whether every method of ``recipe`` searches community reports (it has nothing else to read)."""
    return bool(recipe.methods) and all(m in REPORT_METHODS for m in recipe.methods)


def nothing_read(recipe: Recipe, *, found_reports: bool, index_reports: int, scoped: bool) -> tuple[str, ...]:
    """A warning when ``recipe`` reads nothing but community reports and its run found none; else ``()``.

    Parameters
    ----------
    recipe
        The recipe that ran.
    found_reports
        Whether any community report became a candidate of the run.
    index_reports
        How many community reports the index holds (not told under a scope).
    scoped
        Whether the run was restricted to some documents.
    """
    if not reads_only_reports(recipe) or found_reports:
        return ()
    what = (f"recipe {recipe.name!r} reads community reports (method {', '.join(recipe.methods)})")
    if scoped:
        return (f"{what}, but no report is visible in this scope (a report is visible only to a scope that reads "
                "every document it draws on), so it has nothing to read and returns no result; widen the scope "
                "or use a recipe that reads passages (CHUNK, HYBRID)",)
    if index_reports:
        return ()
    return (f"{what}, but this index has no community reports, so it has nothing to read and returns no result; "
            "reports are written when the graph has communities (an ingest whose documents relate entities, or "
            "an imported GraphRAG output with its community reports): use a recipe that reads passages "
            "(CHUNK, HYBRID)",)
