"""Recipe search within a session's scope: the engine's ranking, shown as the scope sees it.

:func:`search` runs a named recipe (or a :class:`~agrag_lab.recipes.Recipe`)
on the session's search engine with the scope as a filter *inside* the run
(``SearchFilters(document_ids=searchable)``), then describes every result as
the scope shows it:

* a passage (chunk) is shown only if its document is searchable;
* an entity or a community report is shown as the session's
  :class:`~agrag_lab.kg.store.GraphScope` sees it (aliases, description and
  supporting passages from documents in scope only), or not at all when the
  scope shows nothing of it.

The scoped descriptions replace the items of the run's trace, so the
explanation of a result is written from what the scope shows (no string is
patched afterwards). An unrestricted session shows the run as it is.

Examples
--------
>>> from agrag_lab import Graph                                       # doctest: +SKIP
>>> session = Graph.open("index").evidence(Scope(document_ids={"ada-lovelace"}))  # doctest: +SKIP
>>> found = session.search("Who worked with Babbage?", "HYBRID", limit=5)  # doctest: +SKIP
>>> found.results[0].explanation                                      # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
import time
from typing import TYPE_CHECKING

from agrag_lab.evidence.results import RankedResult, RecipeMethod, RecipeSearchResult
from agrag_lab.evidence.search import check_query
from agrag_lab.kg.records import entity_text
from agrag_lab.retrieval.run import SearchRun
from agrag_lab.retrieval.trace import ItemInfo

if TYPE_CHECKING:
    from agrag_lab.evidence.session import EvidenceSession
    from agrag_lab.recipes import Recipe

__all__ = ["TEXT_CHARS", "scoped_item", "search"]

#: A result's text is cut at this many characters.
TEXT_CHARS = 600


def scoped_item(session: EvidenceSession, info: ItemInfo) -> ItemInfo | None:
    """``info`` as the session's scope shows it; ``None`` when the scope shows nothing of it."""
    resolved = session.resolved
    if resolved.unrestricted:
        return info
    scope = session.graph_scope()
    store = session.graph.graph_store
    if info.kind == "entity":
        entity = store.entity(info.key, scope)
        if entity is None:
            return None
        text = entity_text(entity.name, entity.aliases, entity.description)
        return dataclasses.replace(info, title=entity.name, text=text, chunk_ids=tuple(entity.chunk_ids))
    if info.kind == "community":
        report = store.report(info.key, scope)
        if report is None:
            return None
        return dataclasses.replace(info, title=report.title, text=report.summary, chunk_ids=tuple(report.chunk_ids))
    if info.document_id is None or not resolved.can_search(info.document_id):
        return None
    return info


def search(
    session: EvidenceSession, query: str, recipe: str | Recipe = "HYBRID", limit: int | None = None
) -> RecipeSearchResult:
    """Run a recipe within the session's scope; every result explained as the scope shows it.

    Parameters
    ----------
    session : EvidenceSession
        The session (and so the scope) to search in.
    query : str
        What to look for.
    recipe : str or Recipe
        A built-in recipe name (``ENTITY``, ``CHUNK``, ``HYBRID``,
        ``HYBRID_RERANKED``, ``GRAPH_EXPAND``, ``THEMATIC``) or a recipe.
    limit : int, optional
        Most results; default the recipe's own limit.

    Raises
    ------
    EvidenceArgumentError
        A blank query.
    RecipeError
        An unknown recipe name or an invalid limit.
    """
    from agrag_lab import recipes
    from agrag_lab.retrieval.filters import SearchFilters

    query = check_query(query)
    chosen = recipes.get(recipe) if isinstance(recipe, str) else recipe
    if limit is not None:
        chosen = chosen.replace(limit=limit)
    resolved = session.resolved
    started = time.perf_counter()
    if not resolved.unrestricted and not resolved.searchable:
        return RecipeSearchResult(query, chosen.name, 0.0, (), ())
    filters = None if resolved.unrestricted else SearchFilters(document_ids=resolved.searchable)
    run = session.engine().run(query, chosen, filters=filters)
    shown = {key: scoped_item(session, info) for key, info in run.trace.items.items()}
    visible = {key: info for key, info in shown.items() if info is not None}
    if not resolved.unrestricted:
        hidden = {key: info for key, info in run.trace.items.items() if shown[key] is None}
        run = SearchRun.from_trace(dataclasses.replace(run.trace, items={**hidden, **visible}))
    results = tuple(
        RankedResult(
            r.rank, r.id, r.kind, r.score, r.title, r.text[:TEXT_CHARS], r.document_id, tuple(r.heading_path),
            r.label, tuple(r.passages()), run.explain(i), name=r.name,
        )
        for i, r in enumerate(run.results)
        if r.id in visible
    )
    methods = tuple(RecipeMethod(m.name, m.status, m.seconds, m.error) for m in run.trace.methods)
    return RecipeSearchResult(query, chosen.name, time.perf_counter() - started, results, methods, run.trace.status)
