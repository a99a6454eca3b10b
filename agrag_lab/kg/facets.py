"""Entity facets: extra searchable records of an entity, one per typed relation."""

from __future__ import annotations

#: Separates an entity id from the number of one of its relation facets.
FACET_MARK = "#r"


def facet_owner(record_id: str) -> str:
    """The entity a record of the ``entities`` collection belongs to.

    Examples
    --------
    >>> facet_owner("ent-ada-lovelace#r2"), facet_owner("ent-ada-lovelace")
    ('ent-ada-lovelace', 'ent-ada-lovelace')
    """
    return record_id.split(FACET_MARK, 1)[0]
