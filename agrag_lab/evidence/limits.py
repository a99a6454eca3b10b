"""The limits of an evidence tool call: what a remote caller may ask for at most.

One home for them: the tool registry (:mod:`agrag_lab.evidence.tools`) puts them in its argument models, and
the evidence functions that check a limit themselves (:func:`agrag_lab.evidence.listing.list_documents`) read
the same constant. A request beyond a limit is refused with a message, never clamped silently.
"""

from __future__ import annotations

#: Most hits or entities one call returns.
MAX_RESULTS = 50
#: Most ids one fetch may ask for.
MAX_FETCH_IDS = 50
#: Deepest exploration, in hops.
MAX_DEPTH = 3
#: Most edges one exploration returns.
MAX_EXPLORE_LIMIT = 100
#: Longest query, in characters.
MAX_QUERY_CHARS = 1000
#: Longest evidence id or entity reference, in characters.
MAX_ID_CHARS = 300
#: Longest answer text given to check or render, in characters.
MAX_ANSWER_CHARS = 20_000
#: Most relation types one exploration may name.
MAX_RELATION_TYPES = 20
#: Most documents one listing returns.
MAX_DOCUMENTS = 500
#: Furthest ``text_offset`` (characters into a cut text).
MAX_TEXT_OFFSET = 1_000_000_000
