"""``SearchResult`` and ``SearchRun``: the results of a search plus its ledger.

Examples
--------
A run explains itself and re-fuses without querying again::

    run = engine.run("Who worked with Babbage?", HYBRID)
    print(run.explain(0))
    wider = run.refuse(k=10)          # no new queries
    run.to_polars()                   # the ledger as a long table
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agrag_lab.errors import NoSuchResultError
from agrag_lab.kg.paths import PathStep
from agrag_lab.names import name_of
from agrag_lab.recipes import Recipe
from agrag_lab.retrieval.pipeline import assemble
from agrag_lab.retrieval.steps.communities import COMMUNITY_SOURCE
from agrag_lab.retrieval.steps.walk import WALK_SOURCE
from agrag_lab.retrieval.trace import ItemInfo, ItemKind, SearchTrace, tie_note, tied

if TYPE_CHECKING:
    import polars as pl


@dataclass(frozen=True)
class SearchResult:
    """One ranked result: an entity, a chunk (passage) or a community report."""

    id: str
    kind: ItemKind
    score: float
    rank: int
    title: str
    text: str
    document_id: str | None = None
    heading_path: tuple[str, ...] = ()
    label: str | None = None
    chunk_ids: tuple[str, ...] = ()
    #: ``traverse`` only: hops from the seed (None elsewhere).
    hop: int | None = None
    #: ``traverse`` only: the relations followed from the seed to this entity, in order.
    path: tuple[PathStep, ...] = ()

    @classmethod
    def from_info(
        cls, info: ItemInfo, score: float, rank: int, *, hop: int | None = None, path: tuple[PathStep, ...] = ()
    ) -> SearchResult:
        return cls(info.key, info.kind, score, rank, info.title, info.text, info.document_id,
                   info.heading_path, info.label, info.chunk_ids, hop, path)

    @property
    def name(self) -> str:
        """What a person sees for it: a chunk as ``title > heading #c3`` (see :mod:`agrag_lab.names`)."""
        return name_of(self, self.id)

    def passages(self) -> tuple[str, ...]:
        """The chunk ids this result stands for: itself for a chunk, its support otherwise."""
        return (self.id,) if self.kind == "chunk" else self.chunk_ids


def _results(trace: SearchTrace) -> tuple[SearchResult, ...]:
    out = trace.outcome
    return tuple(
        SearchResult.from_info(trace.items[key], out.scores[key], rank)
        for rank, key in enumerate(out.order, 1)
    )


@dataclass(frozen=True)
class SearchRun:
    """Results and the frozen trace that explains them."""

    results: tuple[SearchResult, ...]
    trace: SearchTrace

    @classmethod
    def from_trace(cls, trace: SearchTrace) -> SearchRun:
        return cls(_results(trace), trace)

    @property
    def recipe(self) -> Recipe:
        """The recipe this run used."""
        return Recipe.from_dict(self.trace.recipe)

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(r.id for r in self.results)

    def __len__(self) -> int:
        return len(self.results)

    # -- re-fusion ----------------------------------------------------------------
    def refuse(
        self,
        *,
        k: float | None = None,
        weights: Mapping[str, float] | None = None,
        convention: str | None = None,
    ) -> SearchRun:
        """Fuse the cached method lists again with other settings; no new queries.

        Walk, report and re-rank steps are recomputed from the captured graph
        context, so the result equals a fresh run with the same settings.
        """
        recipe = self.recipe
        fusion = self.trace.outcome.fusion
        new_k = float(k) if k is not None else fusion.k
        new_weights = dict(weights) if weights is not None else dict(recipe.fusion.weights)
        new_convention = convention or fusion.convention
        kinds = {key: info.kind for key, info in self.trace.items.items()}
        outcome = assemble(
            self.trace.methods, self.trace.context, kinds, recipe,
            k=new_k, weights=new_weights, convention=new_convention,
        )
        recipe_data = dict(self.trace.recipe)
        recipe_data["fusion"] = {"k": new_k, "weights": new_weights, "convention": new_convention}
        trace = SearchTrace(
            self.trace.query, recipe_data, self.trace.filters, self.trace.methods, self.trace.context,
            self.trace.items, outcome, self.trace.seconds, self.trace.spans, self.trace.warnings,
        )
        return SearchRun.from_trace(trace)

    # -- explanation ------------------------------------------------------------
    def explain(self, i: int) -> str:
        """Why result ``i`` (0-based) stands where it does, in plain words."""
        if not 0 <= i < len(self.results):
            raise NoSuchResultError(f"result {i} does not exist; this run has {len(self.results)} results (0-based)")
        result = self.results[i]
        out = self.trace.outcome
        item = next(it for it in out.fusion.items if it.key == result.id)
        items = self.trace.items

        def name(key: str) -> str:
            return items[key].name if key in items else key

        lines = [f"#{i + 1} {result.kind} {result.name!r}"]
        given = items[result.id].builder_id if result.id in items else ""
        if given:
            lines[0] += f" (its builder's id: {given})"
        lines.append(
            f"  fused score {item.score:.5f} = "
            + " + ".join(f"{c.term:.5f} [{c.source}]" for c in item.contributions)
            + f"  ({out.fusion.convention}, k={out.fusion.k:g})"
        )
        for c in item.contributions:
            if c.source == WALK_SOURCE and out.walk is not None:
                add = next(a for a in out.walk.additions if a.entity == result.id)
                path = " ".join(
                    [name(add.path[0].source), *(f"-[{s.relation}]-> {name(s.target)}" for s in add.path)]
                    if add.path else []
                )
                if out.walk.strategy == "ppr":
                    if add.seed in out.walk.seeds:
                        origin = f"{add.hop} step(s) from seed {name(add.seed)!r} (seed {add.seed_rank}); path: {path}"
                    elif add.seed and add.seed != add.entity:
                        origin = f"{add.hop} step(s) from dense passage hit #{add.seed_rank}; path: {path}"
                    elif add.seed:  # a prior passage, its own restart point (said below)
                        origin = "no seed within the walk's depth"
                    else:
                        origin = "no seed or dense passage hit within the walk's depth"
                    if add.prior_rank:
                        origin += f"; itself dense passage hit #{add.prior_rank}, a restart point of the walk"
                    lines.append(f"  graph walk (PageRank): rank {c.rank}, probability {add.score:.5f}; {origin}")
                else:
                    lines.append(
                        f"  graph walk: rank {c.rank}, {add.hop} hop(s) from seed {name(add.seed)!r} "
                        f"(seed rank {add.seed_rank}); path: {path or '(direct)'}"
                    )
            elif c.source == COMMUNITY_SOURCE and out.communities is not None:
                add_c = next(a for a in out.communities if a.community == result.id)
                lines.append(
                    f"  community report: rank {c.rank}, its community holds {add_c.overlap} of the "
                    f"entities found ({', '.join(name(e) for e in add_c.entities)})"
                )
            else:
                method = self.trace.method(c.source)
                hit = next(h for h in method.hits if h.key == result.id)
                legs = []
                def kind_of(key: str) -> str:
                    return "chunk" if "@" in key else "entity" if key.startswith("ent-") else "other"

                own = kind_of(result.id)
                for leg, hits in method.legs.items():
                    found = [h for h in hits if h.key == result.id]
                    ties = tied(hits, result.id)
                    tie = f", tied with {ties} other(s) at score {found[0].score:.4f}" if ties else ""
                    if found:
                        legs.append(f"{leg} rank {found[0].rank}{tie}")
                    elif own != "other" and any(kind_of(h.key) == own for h in hits):  # a list of its kind without it
                        legs.append(f"not in its {leg} list")
                    elif hits and all(kind_of(h.key) == "entity" for h in hits):  # what it was reached through
                        legs.append(f"reached through its {leg} ({len(hits)})")
                    # any other list (a query's keywords) says nothing about this item: not named
                lines.append(
                    f"  {c.source} search: rank {c.rank} (score {hit.score:.4f}; {', '.join(legs)}) "
                    f"-> term {c.weight:g}/({out.fusion.k:g}+{c.effective_rank:g}) = {c.term:.5f}"
                )
                if hit.via:
                    lines.append(f"    found through its relation record {hit.via}: it stands for that relation's "
                                 "passages")
                if method.tied:
                    lines.append(f"    {tie_note(method)}")
        fused_rank = out.fusion.keys.index(result.id) + 1
        if out.rerank is not None:
            move = next(m for m in out.rerank.moves if m.key == result.id)
            slot = " (kept in a community-report slot)" if move.kept_slot else ""
            if not move.scored:
                fused = out.rerank.pool == "fused"
                where = "the methods' fused first 2 x limit" if fused else "the first 2 x limit of every list"
                slot += f" (not scored: outside {where}, kept in fused order)"
            precision = f" ({out.rerank.precision} model)" if out.rerank.precision else ""
            lines.append(
                f"  re-rank ({out.rerank.kind}): fused rank {move.before} -> {move.after}, "
                f"score {move.score:.4f}{precision}{slot}"
            )
        else:
            lines.append(f"  fused rank {fused_rank}; no re-rank")
        zero = (f"; {len(out.cut.zero_score)} with fused score 0 not returned (every vote they had weighs 0)"
                if out.cut.zero_score else "")
        lines.append(f"  cut: kept {len(out.order)} of {out.cut.candidates} candidates (limit {out.cut.limit}){zero}")
        return "\n".join(lines)

    # -- tables -----------------------------------------------------------------
    def ledger_rows(self) -> list[dict[str, Any]]:
        """The ledger as rows: one per (item, source), every fused candidate included.

        ``via`` is the record the source found the item through when it is not
        the item's own (an entity found through one of its relation records:
        that record's id; see :class:`~agrag_lab.retrieval.trace.Hit`), else "".
        """
        out = self.trace.outcome
        final = {k: r for r, k in enumerate(out.order, 1)}
        rerank_rank = {m.key: m.after for m in out.rerank.moves} if out.rerank else {}
        via = self._via()
        rows = []
        for fused_rank, item in enumerate(out.fusion.items, 1):
            info = self.trace.items[item.key]
            for c in item.contributions:
                rows.append({
                    "key": item.key, "builder_id": info.builder_id, "kind": info.kind, "title": info.title, "name": info.name,
                    "fused_rank": fused_rank, "fused_score": item.score,
                    "rerank_rank": rerank_rank.get(item.key), "final_rank": final.get(item.key),
                    "kept": item.key in final, "source": c.source, "source_rank": c.rank,
                    "effective_rank": c.effective_rank, "weight": c.weight, "term": c.term,
                    "tied": self._tied(c.source, item.key), "via": via.get((c.source, item.key), ""),
                })
        return rows

    def _via(self) -> dict[tuple[str, str], str]:
        """(source, key) -> the record a source's hit of ``key`` was found through (its fused list's), where one was."""
        return {(m.name, h.key): h.via for m in self.trace.methods for h in m.hits if h.via}

    def _tied(self, source: str, key: str) -> int:
        """Hits of one of ``source``'s legs (or of its list, without legs) sharing ``key``'s score, at most."""
        method = next((m for m in self.trace.methods if m.name == source), None)
        if method is None:
            return 0
        if method.legs:
            return max(tied(hits, key) for hits in method.legs.values())
        return tied(method.hits, key)

    def to_polars(self) -> pl.DataFrame:
        """The ledger as a long polars table (see :meth:`ledger_rows`)."""
        import polars as pl

        schema = {
            "key": pl.String, "builder_id": pl.String, "kind": pl.String, "title": pl.String, "name": pl.String, "fused_rank": pl.Int64,
            "fused_score": pl.Float64, "rerank_rank": pl.Int64, "final_rank": pl.Int64, "kept": pl.Boolean,
            "source": pl.String, "source_rank": pl.Int64, "effective_rank": pl.Float64,
            "weight": pl.Float64, "term": pl.Float64, "tied": pl.Int64, "via": pl.String,
        }
        return pl.DataFrame(self.ledger_rows(), schema=schema)

    def to_pandas(self) -> Any:
        """The ledger as a pandas DataFrame (needs pandas)."""
        return self.to_polars().to_pandas()

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe; :meth:`from_dict` rebuilds an equal run."""
        return self.trace.to_dict()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SearchRun:
        return cls.from_trace(SearchTrace.from_dict(data))
