"""The RRF conventions: how the paper and four libraries compute one vote's term.

The table lives below :mod:`agrag_lab.recipes` (a recipe names a convention)
and :mod:`agrag_lab.retrieval.fusion` (which applies it); both read it here.
:mod:`agrag_lab.retrieval.fusion` re-exports every name.

Examples
--------
>>> sorted(CONVENTIONS)
['haystack', 'llamaindex', 'paper', 'pyterrier', 'ranx']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from agrag_lab.errors import FusionError

__all__ = ["CONVENTIONS", "Convention", "get_convention"]


@dataclass(frozen=True, slots=True)
class Convention:
    """How one library (or the paper) computes the RRF term of one vote.

    With ``r`` the 1-based position of an item in a source's list, ``w`` the
    source's weight (``1.0`` when :attr:`uses_weights` is false) and
    ``n`` the number of lists, the term is::

        e  = r - 1 + rank_base                 # the rank the library counts
        k' = k + k_offset                      # the constant the library uses
        s  = w / sum(all weights)  if weight_normalisation == "sum"  else w
        term = s / (k' + e)                                   # score_normalisation "none"
        term = (s * n / (k' + e)) / (n / k')                  # score_normalisation "max"

    Attributes
    ----------
    name : str
        Registry key, e.g. ``"paper"``.
    library : str
        Who uses this convention, e.g. ``"Haystack"``.
    rank_base : {0, 1}
        Rank the library gives the top item of a list.
    k_offset : float
        Added to ``k`` to obtain the library's constant (Haystack's 61 is 60 + 1).
    uses_weights : bool
        Whether per-source weights enter the term.
    weight_normalisation : {"none", "sum"}
        ``"sum"`` divides each weight by the sum of all sources' weights.
    score_normalisation : {"none", "max"}
        ``"max"`` scales terms so that the first place in every list (with
        equal weights) scores 1, as Haystack does.
    formula : str
        The term, in one line.
    description : str
        The library, the formula and where it was checked.
    """

    name: str
    library: str
    rank_base: Literal[0, 1]
    k_offset: float
    uses_weights: bool
    weight_normalisation: Literal["none", "sum"]
    score_normalisation: Literal["none", "max"]
    formula: str
    description: str

    def effective_rank(self, rank: int) -> int:
        """The rank the library counts for 1-based ``rank`` (``rank - 1 + rank_base``).

        Examples
        --------
        >>> CONVENTIONS["paper"].effective_rank(1), CONVENTIONS["llamaindex"].effective_rank(1)
        (1, 0)
        """
        return rank - 1 + self.rank_base

    def term(
        self, rank: int, *, k: float = 60.0, weight: float = 1.0, n_lists: int = 1
    ) -> float:
        """Return the term of one vote at 1-based ``rank``; ``weight`` is already normalised.

        Examples
        --------
        >>> CONVENTIONS["paper"].term(1, k=60)
        0.01639344262295082
        >>> CONVENTIONS["llamaindex"].term(1, k=60) == 1 / 60
        True
        >>> CONVENTIONS["haystack"].term(1, k=60, weight=0.5, n_lists=2)
        0.5
        """
        w = weight if self.uses_weights else 1.0
        k_lib = k + self.k_offset
        effective = self.effective_rank(rank)
        if self.score_normalisation == "max":
            return (w * n_lists) / (k_lib + effective) / (n_lists / k_lib)
        return w / (k_lib + effective)


_CONVENTIONS: dict[str, Convention] = {
    "paper": Convention(
        name="paper",
        library="Cormack et al. 2009",
        rank_base=1,
        k_offset=0.0,
        uses_weights=True,
        weight_normalisation="none",
        score_normalisation="none",
        formula="w / (k + rank) with ranks from 1",
        description=(
            "Cormack et al. 2009, 'Reciprocal rank fusion outperforms Condorcet and "
            "individual rank learning methods': score = sum of 1 / (k + rank) with "
            "ranks from 1 and k = 60; agrag_lab adds an optional weight w per source "
            "(w / (k + rank)), the usual weighted RRF."
        ),
    ),
    "ranx": Convention(
        name="ranx",
        library="ranx",
        rank_base=1,
        k_offset=0.0,
        uses_weights=False,
        weight_normalisation="none",
        score_normalisation="none",
        formula="1 / (k + rank) with ranks from 1 (no weights)",
        description=(
            "ranx.fuse(runs, method='rrf', params={'k': k}) (ranx/fusion/rrf.py): "
            "each run's i-th document (i from 0, in score order) gets 1 / (k + i + 1), "
            "then comb_sum adds them over runs in run order; rrf() takes no weights "
            "(passing one in params raises TypeError), so weights are ignored. The "
            "min-max normalisation fuse() applies first does not change ranks."
        ),
    ),
    "llamaindex": Convention(
        name="llamaindex",
        library="LlamaIndex",
        rank_base=0,
        k_offset=0.0,
        uses_weights=False,
        weight_normalisation="none",
        score_normalisation="none",
        formula="1 / (k + rank) with ranks from 0 (no weights)",
        description=(
            "LlamaIndex QueryFusionRetriever._reciprocal_rerank_fusion "
            "(llama-index-core, retrievers/fusion_retriever.py): k = 60.0 fixed, "
            "score += 1.0 / (rank + k) with rank from enumerate(), i.e. from 0, so "
            "k = 60 acts as 59 in the paper's terms; retriever_weights are used only "
            "by the relative-score modes, so weights are ignored."
        ),
    ),
    "haystack": Convention(
        name="haystack",
        library="Haystack",
        rank_base=0,
        k_offset=1.0,
        uses_weights=True,
        weight_normalisation="sum",
        score_normalisation="max",
        formula=(
            "(s * n / (k + 1 + rank)) / (n / (k + 1)) with ranks from 0, "
            "s = w / sum(w) and n lists"
        ),
        description=(
            "Haystack DocumentJoiner._reciprocal_rank_fusion "
            "(haystack/components/joiners/document_joiner.py): k = 61 (the paper's 60 "
            "plus 1 for 0-based ranks, so here k + 1), weights divided by their sum "
            "(default 1/n each), score += (s * n) / (61 + rank) with rank from 0, then "
            "every score divided by n / 61 so that first place everywhere scores 1; "
            "agrag_lab folds that division into each term."
        ),
    ),
    "pyterrier": Convention(
        name="pyterrier",
        library="PyTerrier",
        rank_base=0,
        k_offset=0.0,
        uses_weights=False,
        weight_normalisation="none",
        score_normalisation="none",
        formula="1 / (k + rank) with ranks from 0 (no weights)",
        description=(
            "PyTerrier RRFusion / rr_fusion (pyterrier-alpha, fusion.py): "
            "score = 1 / (rank + k), k = 60 by default, with rank from "
            "pyterrier.model.add_ranks, whose FIRST_RANK is 0, summed over the result "
            "frames; it takes no weights, so weights are ignored."
        ),
    ),
}

#: Every known convention, by name. Read-only.
CONVENTIONS: Mapping[str, Convention] = MappingProxyType(_CONVENTIONS)


def get_convention(name: str) -> Convention:
    """Return the convention called ``name``.

    Raises
    ------
    FusionError
        ``name`` is not a key of :data:`CONVENTIONS`; the message lists the known ones.

    Examples
    --------
    >>> get_convention("ranx").rank_base
    1
    >>> get_convention("elastic")
    Traceback (most recent call last):
    ...
    agrag_lab.errors.FusionError: rrf is invalid (1 problem(s)):
      - convention: unknown convention 'elastic'; use one of 'paper', 'ranx', 'llamaindex', 'haystack', 'pyterrier'
    """
    try:
        return _CONVENTIONS[name]
    except (KeyError, TypeError):
        known = ", ".join(repr(c) for c in _CONVENTIONS)
        raise FusionError({"convention": f"unknown convention {name!r}; use one of {known}"}) from None


