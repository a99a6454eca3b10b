"""The tri-graph's names, read by search without the build: its sentence label, its one relation type, the mark
of a record that embeds its name alone, and LinearRAG's adjacent-passage edges.

:mod:`agrag_lab.kg.extract.tri_graph` builds the graph (and imports the extraction types); a search of it, and the index
records, need only these, so they live here, with nothing to import.

Examples
--------
>>> embeds_name(((EMBEDS_NAME, True),)), embeds_name(())
(True, False)
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

__all__ = ["EMBEDS_NAME", "IN_SENTENCE", "SENTENCE", "adjacent_passages", "embeds_name"]

#: Label of a sentence node.
SENTENCE = "Sentence"
#: Relation type of an entity-sentence edge (entity -> the sentence it occurs in).
IN_SENTENCE = "IN_SENTENCE"
#: Entity attribute: the record embeds the name alone (LinearRAG embeds an entity's text, a sentence's text).
EMBEDS_NAME = "embeds_name"


def embeds_name(attributes: Sequence[tuple[str, object]]) -> bool:
    """Whether a record with these attributes embeds its name alone (:data:`EMBEDS_NAME`)."""
    return bool(dict(attributes).get(EMBEDS_NAME, False))


def adjacent_passages(passages: Sequence[str]) -> list[tuple[str, str]]:
    """LinearRAG's adjacent-passage edges (``add_adjacent_passage_edges``): each passage to the next.

    LinearRAG numbers its passages in corpus order (``run.py``: ``f"{idx}:{chunk}"``) and links
    passage ``i`` to ``i + 1``, across documents too; ``passages`` is the index's passage order.

    Examples
    --------
    >>> adjacent_passages(["a#c0", "a#c1", "b#c0"])
    [('a#c0', 'a#c1'), ('a#c1', 'b#c0')]
    """
    return list(pairwise(passages))
