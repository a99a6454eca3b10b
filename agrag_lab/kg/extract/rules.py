"""The rules behind :class:`~agrag_lab.kg.extract.extraction.RuleExtractor`.

:class:`Rules` finds name candidates in a chunk (capitalised spans, quoted or
italic titles, table cells), labels them from cue words, and relates names that
share a sentence. It works on plain text and offsets and knows nothing of
mentions or documents, so each step can be tested on its own.

Examples
--------
>>> from agrag_lab.kg.text import split_sentences
>>> rules = Rules()
>>> text = "Babbage was born in London."
>>> [(c.name, c.label) for c in rules.candidates(text, split_sentences(text))]
[('Babbage', 'Person'), ('London', 'Place')]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from agrag_lab.documents import TableInfo
from agrag_lab.kg.extract import lexicon as lx
from agrag_lab.kg.schema import GENERIC, GraphSchema
from agrag_lab.kg.text import match_key, singular

__all__ = ["Candidate", "Pair", "Rules"]

_TOKEN = re.compile(
    r"(?:[A-ZÀ-Þ]\.){2,}|[A-ZÀ-Þ]\.(?=\s)"
    r"|(?:Mr|Mrs|Ms|Dr|St|Mt|Ft|Jr|Sr|Rev|Gen|Col|Lt|Capt|Sgt|Prof|Gov|Sen|Hon)\.(?=\s)"
    r"|[^\W_]+(?:[-'’][^\W_]+)*['’]?|&"
)
_WORK_SPAN = re.compile(
    r"(?<![*\w])\*(?!\*)([^*\n]{2,120}?)\*(?![*\w])|(?<![_\w])_(?!_)([^_\n]{2,120}?)_(?![_\w])"
    r"|\"([^\"\n]{2,120}?)\"|“([^”\n]{2,120}?)”|``([^`'\n]{2,120}?)''"
)
_PARENTHETICAL = re.compile(r"\s*\([^)]*\)\s*")
_PREPOSITION_BEFORE = re.compile(r"\b(?:in|at|of|from|near|on|to|for|with)\s+(?:the\s+)?$", re.IGNORECASE)


class _Token(NamedTuple):
    start: int
    end: int
    text: str

    @property
    def lower(self) -> str:
        return self.text.casefold().rstrip(".")


@dataclass(frozen=True)
class Candidate:
    """A name found at ``text[start:end]`` (lower ``priority`` wins overlaps).

    ``initial`` marks a span whose first word stands where any word is
    capitalised (a sentence, table cell or quotation start): only the corpus
    can confirm such a name (see :mod:`agrag_lab.kg.extract.confirmation`).
    """

    start: int
    end: int
    name: str
    label: str
    priority: int
    initial: bool = False


def _is_capitalised(token: str) -> bool:
    first = token[0]
    if first.isupper():
        return True
    return first.isalpha() and not token.islower()  # "eBay", "iPhone"


def _strip_possessive(token: str) -> str:
    if "'" not in token and "’" not in token:
        return token
    for suffix in ("'s", "’s", "'", "’"):
        if token.endswith(suffix) and len(token) > len(suffix):
            return token[: -len(suffix)]
    return token


def _is_possessive(token: str) -> bool:
    return _strip_possessive(token) != token


#: Words right before a span that make it a common noun ("a Fellow", "another Swede").
_INDEFINITE = frozenset({"a", "an", "another", "every", "each", "any", "no"})
#: Adjective endings ("Leibnizian notation", "Romantic movement", "Scottish engineer").
_ADJECTIVE_ENDINGS = ("ian", "ean", "ese", "ish", "ic", "ist")
_VARIABLE = re.compile(r"[A-Z]\d{1,3}")
_PREPOSITION_OPENING = re.compile(
    r"^(?:in|at|after|before|on|from|during|by|with|for|to|when|while|until|since)\b(?:\s+\w+)?\s*$", re.IGNORECASE
)


def _is_initial(text: str, sentence_start: int, start: int) -> bool:
    """Whether only marks stand between the start of the sentence (or table cell, or line) and ``start``.

    Examples
    --------
    >>> _is_initial("| Store | Holds numbers |", 0, 10), _is_initial('"Hello", he said.', 0, 1)
    (True, True)
    >>> _is_initial("Babbage met Ada.", 0, 12)
    False
    """
    before = text[sentence_start:start]
    cut = max(before.rfind("|"), before.rfind("\n"))
    before = before[cut + 1 :]
    return not any(ch.isalnum() for ch in before)


def _opens_quotation(text: str, start: int) -> bool:
    return start > 0 and text[start - 1] in "*_\"“'‘("


_ALL_HEADS = frozenset().union(*(words for _, words in lx.HEAD_WORDS))
_HEADS_BY_LABEL = dict(lx.HEAD_WORDS)
#: Words stripped from the ends of a span, without and with dates kept.
_SKIP = lx.STOP_CAPITALISED | lx.DATE_WORDS
_SKIP_KEEPING_DATES = lx.STOP_CAPITALISED


def _is_head(word: str, labels: tuple[str, ...] | None = None) -> bool:
    """Whether ``word`` (or its singular: "Bridges") is a head word, of ``labels`` when given."""
    lowered = word.casefold()
    forms = {lowered, singular(lowered)}
    if labels is None:
        return not forms.isdisjoint(_ALL_HEADS)
    return any(not forms.isdisjoint(_HEADS_BY_LABEL[label]) for label in labels)


def _holds_office(text: str, sentence_start: int, parts: Sequence[_Token]) -> bool:
    """Whether ``parts`` is an office set after a name by a comma ("..., Officer of the Military Engineers").

    Examples
    --------
    >>> t = "L. F. Menabrea, of Turin, Officer of the Military Engineers"
    >>> _holds_office(t, 0, _tokens(t, 26, len(t)))
    True
    >>> t = "The Officer of the Watch"
    >>> _holds_office(t, 0, _tokens(t, 4, len(t)))
    False
    """
    if len(parts) < 3 or parts[0].lower not in lx.OFFICES or parts[1].lower not in ("of", "for"):
        return False
    return text[sentence_start : parts[0].start].rstrip().endswith(",")


_TABLE_SEPARATOR = re.compile(r"^\|?[\s:|-]*-[\s:|-]*\|?$")


def _table_header_lines(text: str) -> set[int]:
    """Start offsets of the header row and separator rows of a Markdown table."""
    starts: set[int] = set()
    header_seen = False
    for line in re.finditer(r"[^\n]+", text):
        row = line.group(0).strip()
        if not row.startswith("|"):
            continue
        if _TABLE_SEPARATOR.match(row) or not header_seen:
            starts.add(line.start() + (len(line.group(0)) - len(line.group(0).lstrip())))
        header_seen = True
    return starts


def _table_cells(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """``(start, end)`` of each cell of the table row ``text[a:b]``."""
    cells, start = [], a
    row = text[a:b]
    inner_start = a + (1 if row.startswith("|") else 0)
    inner_end = b - (1 if row.endswith("|") and len(row) > 1 else 0)
    start = inner_start
    for match in re.finditer(r"\|", text[inner_start:inner_end]):
        cells.append((start, inner_start + match.start()))
        start = inner_start + match.end()
    cells.append((start, inner_end))
    return cells


def _looks_like_title(text: str) -> bool:
    """A quoted or italic span that reads like a title ("Sketch of the Analytical Engine").

    It starts with a capital or digit, has at most 12 words, and longer ones
    are mostly capitalised (a quoted sentence is not a title).

    Examples
    --------
    >>> _looks_like_title("Sketch of the Analytical Engine"), _looks_like_title("an inbuilt proclivity")
    (True, False)
    >>> _looks_like_title("The media and public reaction towards her most-discussed songs")
    False
    >>> _looks_like_title("J. Smith, of Leeds, Fellow of the Society")
    False
    """
    words = text.split()
    if not words or len(words) > 12 or not (text[0].isupper() or text[0].isdigit()):
        return False
    if re.search(r",\s+[a-z]", text):
        return False  # "L. F. Menabrea, of Turin, Officer of ...": a byline, not a title
    if len(words) <= 3:
        return True
    content = [
        w
        for w in words
        if w.casefold() not in lx.NAME_CONNECTORS
        and w.casefold() not in ("a", "an", "and", "or", "in", "to", "at", "by", "with")
    ]
    capitalised = sum(1 for w in content if w[0].isupper() or w[0].isdigit())
    return capitalised * 2 >= len(content)


def _looks_like_full_name(cell: str) -> bool:
    """A header cell that is a name ("Charles Babbage"), not a column name ("Designer")."""
    words = cell.split()
    if match_key(cell) in lx.PLACES:
        return True
    return len(words) >= 2 and all(_is_capitalised(w) or w in lx.NAME_CONNECTORS for w in words)


def _tokens(text: str, start: int, end: int) -> list[_Token]:
    return [_Token(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(text, start, end)]


def _shouted(token: _Token) -> bool:
    return len(token.text) > 1 and token.text.isupper() and token.text.isalpha()


def _unshouted(tokens: list[_Token], lowercase_words: set[str]) -> list[_Token]:
    """Common words in a run of capitals ("LIMITED WARRANTY", "END OF THE PROJECT") read as lower case.

    A word in capitals next to another word in capitals is common when its
    lower-case form occurs in the chunk or is a stop word; acronyms alone
    ("NASA", "US Army") are untouched.

    Examples
    --------
    >>> [t.text for t in _unshouted(_tokens("THE LIMITED WARRANTY of MARLEY", 0, 30), {"limited", "of"})]
    ['the', 'limited', 'WARRANTY', 'of', 'MARLEY']
    """
    out = list(tokens)
    for x, token in enumerate(tokens):
        if not _shouted(token):
            continue
        beside = (x > 0 and _shouted(tokens[x - 1])) or (x + 1 < len(tokens) and _shouted(tokens[x + 1]))
        if beside and (token.lower in lowercase_words or token.lower in lx.STOP_CAPITALISED):
            out[x] = token._replace(text=token.text.lower())
    return out


@dataclass(frozen=True)
class Pair:
    """A relation between two candidates of one sentence (or table row)."""

    source: Candidate
    target: Candidate
    type: str
    sentence: str


@dataclass(frozen=True)
class Rules:
    """Candidate finding, labelling and relation typing with fixed options.

    See :class:`~agrag_lab.kg.extract.extraction.RuleExtractor` for the options.
    """

    schema: GraphSchema = GENERIC
    include_dates: bool = False
    pair_window: int = 4
    max_name_tokens: int = 10

    def candidates(
        self,
        text: str,
        sentences: Sequence[tuple[int, int]],
        table: TableInfo | None = None,
    ) -> list[Candidate]:
        """Non-overlapping name candidates of ``text``, in text order.

        In a table chunk the header row is not scanned for names (its cells
        are column names), except header cells that look like full names.
        """
        found = self._work_candidates(text)
        if table is not None:
            found += self._table_candidates(table, text)
        lowercase_words = {m.group(0) for m in re.finditer(r"\b[a-z][a-z'-]+\b", text)}
        skipped = _table_header_lines(text) if table is not None else set()
        for a, b in sentences:
            if a not in skipped:
                found += self._span_candidates(text, a, b, lowercase_words)
        return self._without_overlaps(found)

    def title_candidate(self, title: str) -> Candidate | None:
        """The document title as a candidate (offsets ``-1``), or ``None`` if it is no name.

        A parenthetical (``"Hall (surname)"``) and a trailing ``", Place"`` are dropped.

        Examples
        --------
        >>> Rules().title_candidate("Paris (band)").name
        'Paris'
        """
        title = _PARENTHETICAL.sub(" ", title).strip()
        if re.search(r",.*\band\b", title):
            return None  # "Timeline of Babbage, Lovelace and the Engines" lists names; it is none
        title = title.split(",")[0].strip() if re.search(r",\s+[A-Z]", title) else title
        words = title.split()
        lower = [w for w in words if not (_is_capitalised(w) or w[0].isdigit() or w.casefold() in lx.NAME_CONNECTORS)]
        if lower and any(re.fullmatch(r"\d{3,4}", w.strip(",.")) for w in words):
            return None  # "Babbage in Turin, 1840" is a topic, not a name
        if not title or not (title[0].isupper() or title[0].isdigit()) or len(words) > self.max_name_tokens:
            return None
        if not match_key(title):
            return None
        label = lx.head_label(tuple(words))
        if label is None and 1 < len(words) <= 4 and words[0].casefold() in lx.GIVEN_NAMES:
            label = "Person"
        if label is None and match_key(title) in lx.PLACES:
            label = "Place"
        return Candidate(-1, -1, title, self.schema.normalise_label(label), 0)

    # -- candidates -------------------------------------------------------------

    def _label(
        self,
        text: str,
        start: int,
        end: int,
        tokens: Sequence[str],
        sentence_start: int,
    ) -> str:
        words = tuple(_strip_possessive(t) for t in tokens)
        label = lx.head_label(words)
        if label is None:
            lowered = [w.casefold() for w in words]
            before = text[max(sentence_start, start - 40) : start].casefold()
            after = text[end : end + 60]
            previous_word = before.split()[-1] if before.split() else ""
            if len(words) > 1 and lowered[0].rstrip(".") in lx.PERSON_TITLES:
                label = "Person"
            elif " ".join(lowered) in lx.PLACES:
                label = "Place"
            elif not _is_possessive(tokens[-1]):
                label = next(
                    (lab for pattern, lab in lx.BEFORE_CUES if pattern.search(before)),
                    None,
                )
            if label is None and (
                (1 < len(words) <= 4 and (lowered[0] in lx.GIVEN_NAMES or re.fullmatch(r"[A-Z]\.", words[0])))
                or previous_word in lx.PERSON_ROLES
                or lx.PERSON_AFTER.match(after)
            ):
                label = "Person"
        return self.schema.normalise_label(label)

    def _span_candidates(self, text: str, a: int, b: int, lowercase_words: set[str]) -> list[Candidate]:
        tokens = _unshouted(_tokens(text, a, b), lowercase_words)
        out: list[Candidate] = []
        i, n = 0, len(tokens)
        while i < n:
            if not _is_capitalised(tokens[i].text):
                i += 1
                continue
            span, k = self._grow(text, tokens, i)
            out.extend(self._finish(text, tokens, span, a, lowercase_words))
            i = k
        return out

    @staticmethod
    def _joined(text: str, left: _Token, right: _Token) -> bool:
        gap = text[left.end : right.start]
        return gap == "" or (gap.isspace() and "\n" not in gap)

    @staticmethod
    def _connects(tokens: list[_Token], m: int, k: int, has_connector: bool) -> bool:
        word = tokens[m].lower
        if word == "&" or (word == "and" and has_connector):
            return True
        if word in lx.FOLLOWING_CONNECTORS:
            return m > k
        if word in lx.HEAD_CONNECTORS:
            return m == k and any(tokens[m - 1].lower in words for _, words in lx.HEAD_WORDS)
        return word in lx.NAME_CONNECTORS

    @staticmethod
    def _continues(tokens: list[_Token], k: int) -> bool:
        """A name goes on past a possessive only into an institution or place ("King's College London")."""
        if not _is_possessive(tokens[k - 1].text):
            return True
        return _is_capitalised(tokens[k].text) and _is_head(tokens[k].text, ("Organization", "Place"))

    def _date_edge(self, tokens: list[_Token], k: int) -> bool:
        """Whether a date ("1 August 1973", "May 1945") starts or ends at token ``k``."""
        if self.include_dates:
            return False
        here, before = tokens[k], tokens[k - 1]
        after = tokens[k + 1] if k + 1 < len(tokens) else None
        if here.text.isdigit():
            return before.lower in lx.DATE_WORDS or (after is not None and after.lower in lx.DATE_WORDS)
        if here.lower in lx.DATE_WORDS:
            return before.text.isdigit() or (after is not None and after.text.isdigit())
        return False

    def _grow(self, text: str, tokens: list[_Token], i: int) -> tuple[list[int], int]:
        span = [i]
        k, n = i + 1, len(tokens)
        has_connector = False
        while k < n and self._continues(tokens, k) and self._joined(text, tokens[k - 1], tokens[k]):
            tok = tokens[k]
            if self._date_edge(tokens, k):
                break
            if _is_capitalised(tok.text) or (tok.text.isdigit() and len(tok.text) <= 3):
                span.append(k)
                k += 1
                continue
            m = k
            while m < n and m - k < 2 and self._connects(tokens, m, k, has_connector):
                m += 1
            if (
                m > k
                and m < n
                and _is_capitalised(tokens[m].text)
                and all(self._joined(text, tokens[x - 1], tokens[x]) for x in range(k, m + 1))
            ):
                span.extend(range(k, m + 1))
                has_connector = True
                k = m + 1
                continue
            if (
                k + 2 < n
                and tok.text.isalpha()
                and tok.lower not in lx.STOP_CAPITALISED
                and tokens[k + 1].lower in lx.FOREIGN_CONNECTORS
                and _is_capitalised(tokens[k + 2].text)
                and self._joined(text, tok, tokens[k + 1])
                and self._joined(text, tokens[k + 1], tokens[k + 2])
            ):
                span.extend((k, k + 1, k + 2))
                k += 3
                continue
            if tok.lower in lx.EXTENDING_HEADS and any(tokens[x].lower not in lx.STOP_CAPITALISED for x in span):
                span.append(k)
                k += 1
            break
        return span, k

    def _finish(
        self,
        text: str,
        tokens: list[_Token],
        span: list[int],
        sentence_start: int,
        lowercase_words: set[str],
    ) -> list[Candidate]:
        parts = [tokens[x] for x in span]
        skip = _SKIP_KEEPING_DATES if self.include_dates else _SKIP

        def droppable(token: _Token) -> bool:
            acronym = len(token.text) > 1 and token.text.isupper()
            particle = token.text[0].isupper() and token.lower in lx.FOREIGN_CONNECTORS and token.lower != "y"
            return (
                (token.lower in skip and not acronym)
                or (token.lower in lx.NAME_CONNECTORS and not particle)
                or token.text == "&"
            )

        def trailing(token: _Token) -> bool:  # "Harvard Mark I" keeps its numeral
            return (droppable(token) and not (token.text == "I" and len(parts) > 1)) or token.text == "and"

        while parts and droppable(parts[0]):
            parts.pop(0)
        while parts and trailing(parts[-1]):
            parts.pop()
        if not self.include_dates:
            while parts and parts[0].text.isdigit():
                parts.pop(0)
        if not parts or len(parts) > self.max_name_tokens:
            return []
        initial = _is_initial(text, sentence_start, parts[0].start)
        before = text[max(sentence_start, parts[0].start - 30) : parts[0].start].split()
        previous = before[-1].casefold() if before else ""
        if len(parts) > 1 and (previous in _INDEFINITE or (initial and self._common_lead(parts[0], lowercase_words))):
            # "a Fellow of the Royal Society", "Members of the Academy of Sciences": the name follows "of"
            of = next((x for x, p in enumerate(parts) if p.lower in ("of", "for")), -1)
            if of > 0 and not any(_is_head(p.text) or p.lower in lx.PERSON_TITLES for p in parts[:of]):
                parts = parts[of + 1 :]
                while parts and droppable(parts[0]):
                    parts.pop(0)
                if not parts:
                    return []
                initial, previous = False, ""
        if _holds_office(text, sentence_start, parts):
            # "L. F. Menabrea, of Turin, Officer of the Military Engineers": the office is the
            # person's role (it stays in their description); what it is "of" is a name only with a head word
            parts = parts[2:]
            while parts and droppable(parts[0]):
                parts.pop(0)
            if not any(_is_head(p.text) for p in parts):
                return []
            initial, previous = False, ""
        words = [_strip_possessive(p.text) for p in parts]
        if len(parts) == 1 and self._not_a_name(text, parts[0], words[0], previous, initial, lowercase_words):
            return []
        split = self._fronted_split(text, sentence_start, tokens, parts)
        if split:
            return [c for piece in split for c in self._finish(text, tokens, piece, sentence_start, lowercase_words)]
        start = parts[0].start
        end = parts[-1].end - (len(parts[-1].text) - len(words[-1]))
        if len(parts) > 1 and text[end - 1] == "." and not re.fullmatch(r"(?:[A-Z]\.){2,}", words[-1]):
            end -= 1  # "Albert I." ends a sentence; "U.S." keeps its dots
        name = text[start:end]
        coordinated = self._coordinated_head(text, tokens, span[-1], parts)
        if coordinated:  # "the Difference and Analytical Engines": the Difference Engines
            name = f"{name} {coordinated}"
        label = self._label(text, start, end, [*(p.text for p in parts), *coordinated.split()], sentence_start)
        return [Candidate(start, end, name, label, 3, initial)]

    @staticmethod
    def _common_lead(token: _Token, lowercase_words: set[str]) -> bool:
        """A common word at a sentence start ("Members"), neither a head word nor a title."""
        lowered = token.text.casefold()
        if _is_head(lowered) or lowered in lx.PERSON_TITLES or lowered in lx.GIVEN_NAMES or lowered in lx.PLACES:
            return False
        plural = len(lowered) > 4 and lowered.endswith("s") and not lowered.endswith("ss")
        return lowered in lowercase_words or plural  # "Members of the Academy of Sciences"

    @staticmethod
    def _not_a_name(
        text: str, token: _Token, word: str, previous: str, initial: bool, lowercase_words: set[str]
    ) -> bool:
        """Whether a lone capitalised word is a common word, a demonym, a title or a fragment."""
        lowered = word.casefold()
        after = text[token.end : token.end + 30]
        followed_by_lowercase = re.match(r"\s+[a-z]", after) is not None
        return (
            len(word) < 2
            or word.isdigit()
            or _VARIABLE.fullmatch(word) is not None  # "V1", "B7": variables and grid cells
            or lowered in lx.DEMONYMS
            or lowered in lx.PERSON_TITLES  # "the 2nd Earl", "Esq."
            or (lowered in lx.STOP_CAPITALISED and not word.isupper())
            or (initial and lowered in lowercase_words)
            or previous in _INDEFINITE  # "a Whig politician", "another Swede"
            or (
                followed_by_lowercase
                and lowered.endswith(_ADJECTIVE_ENDINGS)
                and lowered not in lx.GIVEN_NAMES
                and len(lowered) > 4
            )
            or (_opens_quotation(text, token.start) and followed_by_lowercase)  # *Seconda riunione ...*
        )

    @staticmethod
    def _coordinated_head(text: str, tokens: list[_Token], last: int, parts: list[_Token]) -> str:
        """The head word a coordinated name shares: "Difference" in "the Difference and Analytical Engines"."""
        if len(parts) != 1 or last + 3 >= len(tokens) or tokens[last + 1].lower != "and":
            return ""
        k = last + 2
        while k < len(tokens) and _is_capitalised(tokens[k].text) and k - last <= 5:
            k += 1
        head = tokens[k - 1]
        joined = all(Rules._joined(text, tokens[x - 1], tokens[x]) for x in range(last + 1, k))
        if k - 1 > last + 1 and joined and _is_head(head.text):
            return head.text
        return ""

    @staticmethod
    def _fronted_split(text: str, sentence_start: int, tokens: list[_Token], parts: list[_Token]) -> list[list[int]]:
        """Two names run together after a fronted phrase ("At Cambridge Herschel met ...").

        Returns the token indexes of the two pieces (empty: no split). The first
        piece is a known place or ends in a head word; the second is one more word.
        """
        if len(parts) < 2 or parts[0].start - sentence_start > 40:
            return []
        opening = " ".join(text[sentence_start : parts[0].start].split())
        if not _PREPOSITION_OPENING.match(opening):
            return []
        prefix, last = parts[:-1], parts[-1]
        prefix_key = " ".join(p.lower for p in prefix)
        if _is_head(last.text) or last.text[0].isdigit() or last.text.isupper() or last.lower in lx.NAME_CONNECTORS:
            return []
        if prefix_key in lx.PLACES or _is_head(prefix[-1].text):
            return [[tokens.index(p) for p in prefix], [tokens.index(last)]]
        return []

    def _work_candidates(self, text: str) -> list[Candidate]:
        out = []
        for match in _WORK_SPAN.finditer(text):
            group = next(g for g in match.groups() if g is not None)
            inner = group.strip().rstrip(".,;:").strip()
            if not _looks_like_title(inner):
                continue
            start = match.start() + match.group(0).index(inner)
            out.append(
                Candidate(
                    start,
                    start + len(inner),
                    inner,
                    self.schema.normalise_label("Work"),
                    1,
                )
            )
        return out

    def _table_candidates(self, table: TableInfo, text: str) -> list[Candidate]:
        header = [c.strip() for c in table.header if _looks_like_full_name(c.strip())]
        cells = header + [row[0].strip() for row in table.rows if row]
        out, position = [], 0
        for cell in cells:
            if not cell or not _is_capitalised(cell) or len(cell.split()) > 8 or cell.replace(".", "").isdigit():
                continue
            found = text.find(cell, position)
            found = found if found >= 0 else text.find(cell)
            if found < 0:
                continue
            position = found + len(cell)
            label = self.schema.normalise_label(lx.head_label(tuple(cell.split())))
            out.append(Candidate(found, found + len(cell), cell, label, 2))
        return out

    @staticmethod
    def _without_overlaps(candidates: list[Candidate]) -> list[Candidate]:
        chosen: list[Candidate] = []
        for cand in sorted(candidates, key=lambda c: (c.priority, c.start, -c.end)):
            if not any(cand.start < c.end and c.start < cand.end for c in chosen):
                chosen.append(cand)
        return sorted(chosen, key=lambda c: (c.start, c.end))

    # -- relations --------------------------------------------------------------

    def _relation_type(self, text: str, left: Candidate, right: Candidate) -> tuple[str, bool]:
        between = " ".join(text[left.end : right.start].casefold().split())
        if len(between) <= 100:
            for pattern, relation_type, reverse in lx.RELATION_PATTERNS:
                if pattern.search(between):
                    return self.schema.normalise_relation_type(relation_type), reverse
            if re.fullmatch(
                r"(?:'s?|’s?)?\s*(?:was|is|became|had been)(?: also)?(?: the| a| an)?",
                between,
            ):
                after = re.match(r"(?:'s|’s)\s+(\w+)", text[right.end : right.end + 30])
                if after and after.group(1).casefold() in lx.POSSESSIVE_ROLES:
                    relation_type, reverse = lx.POSSESSIVE_ROLES[after.group(1).casefold()]
                    return self.schema.normalise_relation_type(relation_type), reverse
        return self.schema.default_relation_type, False

    def pairs(
        self,
        text: str,
        sentences: Sequence[tuple[int, int]],
        chosen: Sequence[Candidate],
        table: TableInfo | None = None,
    ) -> list[Pair]:
        """Relations between candidates that share a sentence (or a table row).

        Two adjacent names get a type from the words between them; when the
        first of them is the object of a preposition ("the Museum in London
        built ...") the typed relation starts from the name before it. Every
        other pair within :attr:`pair_window` names is ``RELATED_TO``. At most
        one relation per unordered pair and sentence. In a table row, the
        names of the first cell relate to the names of every other cell, typed
        by that column's header ("Designer" → DESIGNED); the sentence is the
        row written as ``header: cell; ...``.

        Examples
        --------
        >>> from agrag_lab.kg.text import split_sentences
        >>> t = "The Science Museum in London built a Difference Engine."
        >>> r, sentences = Rules(), split_sentences(t)
        >>> pairs = r.pairs(t, sentences, r.candidates(t, sentences))
        >>> [(p.source.name, p.type, p.target.name) for p in pairs]
        [('Science Museum', 'BUILT', 'Difference Engine'), ('Science Museum', 'RELATED_TO', 'London'), ('London', 'RELATED_TO', 'Difference Engine')]
        """
        out: list[Pair] = []
        index = 0
        header = [h.strip() for h in table.header] if table is not None else []
        skipped = _table_header_lines(text) if table is not None else set()
        for a, b in sentences:
            names: list[Candidate] = []
            while index < len(chosen) and chosen[index].start < b:
                if chosen[index].start >= a:
                    names.append(chosen[index])
                index += 1
            if table is not None and text.startswith("|", a):
                if a not in skipped:
                    out.extend(self._row_pairs(text, a, b, names, header))
                continue
            out.extend(self._sentence_pairs(text, a, b, names))
        return out

    def _sentence_pairs(self, text: str, a: int, b: int, names: list[Candidate]) -> list[Pair]:
        out: list[Pair] = []
        default = self.schema.default_relation_type
        sentence = text[a:b]
        keys = [match_key(c.name) for c in names]
        related: set[frozenset[str]] = set()
        for i in range(len(names) - 1):
            relation_type, reverse = self._relation_type(text, names[i], names[i + 1])
            if relation_type == default:
                continue
            s = i
            if not reverse:
                while s > 0 and _PREPOSITION_BEFORE.search(text, max(a, names[s].start - 12), names[s].start):
                    s -= 1
            pair_key = frozenset((keys[s], keys[i + 1]))
            if keys[s] == keys[i + 1] or pair_key in related:
                continue
            related.add(pair_key)
            source, target = (names[i + 1], names[s]) if reverse else (names[s], names[i + 1])
            out.append(Pair(source, target, relation_type, sentence))
        for i in range(len(names)):
            for j in range(i + 1, min(len(names), i + 1 + self.pair_window)):
                pair_key = frozenset((keys[i], keys[j]))
                if keys[i] == keys[j] or pair_key in related:
                    continue
                related.add(pair_key)
                out.append(Pair(names[i], names[j], default, sentence))
        return out

    def _row_pairs(self, text: str, a: int, b: int, names: list[Candidate], header: list[str]) -> list[Pair]:
        cells = _table_cells(text, a, b)
        values = [text[x:y].strip() for x, y in cells]
        labelled = [f"{header[i]}: {v}" if i < len(header) and header[i] else v for i, v in enumerate(values)]
        sentence = "; ".join(part for part, v in zip(labelled, values, strict=True) if v) + "."
        by_cell: list[list[Candidate]] = [[c for c in names if x <= c.start < y] for x, y in cells]
        if not by_cell or not by_cell[0]:
            return self._sentence_pairs(text, a, b, names)
        out: list[Pair] = []
        default = self.schema.default_relation_type
        for column in range(1, len(cells)):
            cue = header[column].casefold() if column < len(header) else ""
            relation_type, reverse = lx.TABLE_HEADER_CUES.get(cue, (default, False))
            relation_type = self.schema.normalise_relation_type(relation_type)
            for subject in by_cell[0]:
                for other in by_cell[column]:
                    if match_key(subject.name) != match_key(other.name):
                        source, target = (other, subject) if reverse else (subject, other)
                        out.append(Pair(source, target, relation_type, sentence))
        return out
