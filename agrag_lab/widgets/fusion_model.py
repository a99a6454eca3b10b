"""The fusion inspector's model: every step of one search as rows, and what-if re-fusion (pure Python).

:class:`FusionModel` reads a :class:`~agrag_lab.retrieval.run.SearchRun`
and turns its trace into the rows the views show: each method's ranked list
(scores, legs, status, time), the fusion ledger (each source's rank and term,
the fused score), the walk's additions, the community additions, the re-rank
moves and the cut. :meth:`FusionModel.refuse` re-fuses the cached lists with
another ``k``, other weights or another convention through
:meth:`SearchRun.refuse` (no new queries) and returns the new view state, a
:class:`FusionView`. :class:`~agrag_lab.widgets.fusion_inspector.FusionInspector`
is the widget over it; this module imports no widget library.

Examples
--------
With a run from ``engine.run(query, recipe)``::

    model = FusionModel(run, session=graph.evidence())
    model.refuse(k=5).keys               # the re-fused order
    model.explain(model.view.keys[0])    # why the first item ranks where it does
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agrag_lab.errors import ViewArgumentError
from agrag_lab.names import text_after_name
from agrag_lab.retrieval.fusion import Fusion
from agrag_lab.retrieval.run import SearchRun
from agrag_lab.retrieval.steps.communities import COMMUNITY_SOURCE
from agrag_lab.retrieval.steps.walk import WALK_SOURCE
from agrag_lab.retrieval.trace import PathStep
from agrag_lab.widgets._text import Passage, TextSource, read_passages, short

__all__ = ["FusionModel", "FusionView", "Row", "k_reorders"]

Row = dict[str, Any]


@dataclass(frozen=True)
class FusionView:
    """What the views show for one set of fusion settings (derived, read-only).

    ``ledger`` has one row per fused candidate in final order (after any
    re-rank); the first ``cut`` rows are the results. ``moved`` in a row is
    how many places the item rose (+) or fell (-) against the original run.
    """

    run: SearchRun
    k: float
    weights: Mapping[str, float]
    convention: str
    description: str
    sources: tuple[str, ...]
    ledger: tuple[Row, ...]
    cut: int
    cut_label: str
    seeds: tuple[Row, ...]
    walk: tuple[Row, ...]
    communities: tuple[Row, ...]
    rerank: tuple[Row, ...]

    @property
    def keys(self) -> tuple[str, ...]:
        """The results (after the cut), best first."""
        return self.run.keys

    @property
    def order(self) -> tuple[str, ...]:
        """Every fused candidate in final order (results first, then below the cut)."""
        return tuple(str(r["_key"]) for r in self.ledger)


def k_reorders(fusion: Fusion) -> bool:
    """Whether another ``k`` can change the order of ``fusion``'s candidates.

    With one vote per candidate and every vote weighted the same, each score
    is ``w / (k + rank)``: any ``k`` keeps the ranks' order, so ``k`` changes
    the scores only. A second vote, or unequal weights, let ``k`` reorder.

    Examples
    --------
    >>> from agrag_lab.retrieval.fusion import rrf
    >>> k_reorders(rrf({"a": ["x", "y"], "b": ["z"]}, k=60))
    False
    >>> k_reorders(rrf({"a": ["x", "y"], "b": ["z"]}, k=60, weights={"b": 2.0}))
    True
    >>> k_reorders(rrf({"a": ["x", "y"], "b": ["y", "z"]}, k=60))
    True
    """
    weights = {c.weight for item in fusion.items for c in item.contributions}
    return len(weights) > 1 or any(len(item.contributions) > 1 for item in fusion.items)


def _final_order(run: SearchRun) -> list[str]:
    out = run.trace.outcome
    if out.rerank is not None:
        return [m.key for m in sorted(out.rerank.moves, key=lambda m: m.after)]
    return list(out.fusion.keys)


class FusionModel:
    """The rows of every step of a run, re-fused on demand (pure Python).

    Parameters
    ----------
    run : SearchRun
        The search to inspect.
    session : EvidenceSession or Graph, optional
        Where the selected item's text is fetched from (default: the trace's text).
    """

    def __init__(self, run: SearchRun, *, session: TextSource | None = None) -> None:
        if not isinstance(run, SearchRun):
            raise ViewArgumentError(
                f"the fusion inspector shows one SearchRun (engine.run(query, recipe)), not {type(run).__name__}"
            )
        self.base = run
        self.session = session
        fusion = run.trace.outcome.fusion
        recipe_weights = dict(run.trace.recipe.get("fusion", {}).get("weights", {}) or {})
        self.sources = self._sources(run)
        self.base_weights = {s: float(recipe_weights.get(s, 1.0)) for s in self.sources}
        self.base_k = float(fusion.k)
        self.base_convention = fusion.convention
        self._base_order = {key: i for i, key in enumerate(_final_order(run), 1)}
        self.method_tables = self._method_tables(run)
        self.view = self._view(run, self.base_k, self.base_weights, self.base_convention)

    @staticmethod
    def _sources(run: SearchRun) -> tuple[str, ...]:
        out = [m.name for m in run.trace.methods]
        if run.trace.outcome.walk is not None:
            out.append(WALK_SOURCE)
        if run.trace.outcome.communities is not None:
            out.append(COMMUNITY_SOURCE)
        return tuple(out)

    # -- re-fusion -------------------------------------------------------------------
    def refuse(
        self,
        *,
        k: float | None = None,
        weights: Mapping[str, float] | None = None,
        convention: str | None = None,
    ) -> FusionView:
        """Re-fuse with these settings (unset ones keep their current value); no new queries."""
        new_k = float(k) if k is not None else self.view.k
        new_weights = {**self.view.weights, **(weights or {})}
        new_convention = convention or self.view.convention
        if (
            math.isclose(new_k, self.base_k)
            and new_convention == self.base_convention
            and all(math.isclose(new_weights[s], self.base_weights[s]) for s in self.sources)
        ):
            run = self.base
        else:
            run = self.base.refuse(k=new_k, weights=new_weights, convention=new_convention)
        self.view = self._view(run, new_k, new_weights, new_convention)
        return self.view

    def reset(self) -> FusionView:
        """Back to the run's own settings."""
        return self.refuse(k=self.base_k, weights=self.base_weights, convention=self.base_convention)

    # -- rows ------------------------------------------------------------------------
    def _view(self, run: SearchRun, k: float, weights: Mapping[str, float], convention: str) -> FusionView:
        trace = run.trace
        out = trace.outcome
        items = trace.items
        fused_rank = {item.key: i for i, item in enumerate(out.fusion.items, 1)}
        fused = {item.key: item for item in out.fusion.items}
        rerank_after = {m.key: m.after for m in out.rerank.moves} if out.rerank else {}
        ledger: list[Row] = []
        for position, key in enumerate(_final_order(run), 1):
            info = items.get(key)
            item = fused[key]
            before = self._base_order.get(key)
            moved = 0 if before is None else before - position
            row: Row = {
                "_key": key, "_tone": "up" if moved > 0 else "down" if moved < 0 else "",
                "position": position, "kind": info.kind if info else "?",
                "title": info.name if info else key, "_hover": key, "score": item.score,
                "fused_rank": fused_rank[key], "moved": moved, "kept": position <= out.cut.limit,
            }
            if out.rerank is not None:
                row["rerank_rank"] = rerank_after.get(key)
            for c in item.contributions:
                row[f"rank:{c.source}"] = c.rank
                row[f"term:{c.source}"] = c.term
            ledger.append(row)
        cut = min(out.cut.limit, len(ledger))
        cut_label = (
            f"cut: the first {out.cut.limit} of {out.cut.candidates} candidates are returned "
            f"(limit {out.cut.limit}); the rest fall below the line"
        )
        seeds: tuple[Row, ...] = ()
        walk_rows: tuple[Row, ...] = ()
        if out.walk is not None:
            seeds = tuple(
                {"_key": s, "rank": i, "title": items[s].name if s in items else s, "_hover": s}
                for i, s in enumerate(out.walk.seeds, 1)
            )
            final = {key: i for i, key in enumerate(_final_order(run), 1)}
            walk_rows = tuple(
                {
                    "_key": a.entity, "rank": a.rank,
                    "title": items[a.entity].name if a.entity in items else a.entity, "_hover": a.entity,
                    "hop": a.hop, "seed": short(items[a.seed].name if a.seed in items else a.seed, 30),
                    "seed_rank": a.seed_rank, "path": self._path_text(run, a.path), "position": final.get(a.entity),
                }
                for a in out.walk.additions
            )
        community_rows: tuple[Row, ...] = ()
        if out.communities is not None:
            community_rows = tuple(
                {
                    "_key": c.community, "rank": c.rank,
                    "title": items[c.community].name if c.community in items else c.community,
                    "_hover": c.community,
                    "overlap": c.overlap,
                    "entities": short(", ".join(items[e].name if e in items else e for e in c.entities), 80),
                }
                for c in out.communities
            )
        rerank_rows: tuple[Row, ...] = ()
        if out.rerank is not None:
            rerank_rows = tuple(
                {
                    "_key": m.key, "_tone": "up" if m.after < m.before else "down" if m.after > m.before else "",
                    "title": items[m.key].name if m.key in items else m.key, "_hover": m.key,
                    "before": m.before,
                    "after": m.after, "moved": m.before - m.after, "score": m.score,
                    "slot": "kept a report slot" if m.kept_slot else "",
                }
                for m in out.rerank.moves
            )
        return FusionView(
            run, k, dict(weights), convention, out.fusion.description, self.sources, tuple(ledger), cut,
            cut_label, seeds, walk_rows, community_rows, rerank_rows,
        )

    @staticmethod
    def _path_text(run: SearchRun, path: Sequence[PathStep]) -> str:
        items = run.trace.items

        def name(key: str) -> str:
            return short(items[key].name, 32) if key in items else key

        if not path:
            return "(direct)"
        parts = [name(path[0].source)]
        for step in path:
            parts.append(f"-[{step.relation}]-> {name(step.target)}")
        return " ".join(parts)

    @staticmethod
    def _method_tables(run: SearchRun) -> dict[str, tuple[str, tuple[Row, ...], tuple[str, ...]]]:
        items = run.trace.items
        tables: dict[str, tuple[str, tuple[Row, ...], tuple[str, ...]]] = {}
        for method in run.trace.methods:
            legs = tuple(method.legs)
            leg_rank = {leg: {h.key: h.rank for h in hits} for leg, hits in method.legs.items()}
            rows = []
            for hit in method.hits:
                info = items.get(hit.key)
                row: Row = {
                    "_key": hit.key, "rank": hit.rank, "kind": info.kind if info else "?",
                    "title": info.name if info else hit.key, "_hover": hit.key, "score": hit.score,
                }
                for leg in legs:
                    row[f"leg:{leg}"] = leg_rank[leg].get(hit.key)
                rows.append(row)
            caption = (
                f"{method.name}: {method.status}, {method.seconds * 1000:.0f} ms, {len(method.hits)} hits"
                + (f"; legs: {', '.join(legs)}" if legs else "")
                + (f" — {method.error}" if method.error else "")
            )
            tables[method.name] = (caption, tuple(rows), legs)
        return tables

    # -- selection -------------------------------------------------------------------
    def explain(self, key: str) -> str:
        """Why ``key`` stands where it does under the current settings."""
        run = self.view.run
        if key in run.keys:
            return run.explain(run.keys.index(key))
        rows = {str(r["_key"]): r for r in self.view.ledger}
        if key not in rows:
            return f"{key} is not among this run's fused candidates"
        row = rows[key]
        fused = next(i for i in run.trace.outcome.fusion.items if i.key == key)
        terms = " + ".join(f"{c.term:.5f} [{c.source} rank {c.rank}]" for c in fused.contributions)
        out = run.trace.outcome
        return (
            f"#{row['position']} {row['kind']} {row['title']!r} — below the cut\n"
            f"  fused score {fused.score:.5f} = {terms}  ({out.fusion.convention}, k={out.fusion.k:g})\n"
            f"  fused rank {row['fused_rank']}; cut: only the first {out.cut.limit} of {out.cut.candidates} "
            "candidates are returned"
        )

    def passages(self, key: str) -> list[Passage]:
        """The text of ``key``: a chunk itself; an entity or report with up to 3 supporting passages."""
        info = self.base.trace.items.get(key)
        if info is None:
            return []
        if info.kind == "chunk":
            return read_passages(self.session, [key], {key: info.text})
        own = Passage(key, info.title, text_after_name(info.kind, info.title, info.text),
                      f"{info.kind} (stored in the index)", name=info.name)
        return [own, *read_passages(self.session, list(info.chunk_ids[:3]))]
