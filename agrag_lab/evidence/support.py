"""Does a passage support the claim it is cited for? A check that needs no LLM (pure functions).

:func:`judge_support` compares a claim with a passage and gives a
:class:`Support`: a verdict, the evidence for it and the reason, in words.

- **Content words.** The claim's words less function words, lightly stemmed
  (``signed`` ~ ``sign``, ``ghosts`` ~ ``ghost``), are looked up in the
  passage; ``coverage`` is the share found.
  The words of a cross-reference (``see``, ``cf``) are not content: "See
  also [id]." claims nothing, so it is judged ``weak`` like any claim
  without content words, never ``unsupported``.
- **Names.** Capitalised words of the claim (``Scrooge``, ``Marley``) must all
  be in the passage.
- **Numbers.** Every number of the claim (digits or words: ``seven``, ``7``)
  must be in the passage; a claim of "ten years" cited to a passage of "seven
  years" is unsupported.
- **Negations.** In the passage sentence that states most of the claim, each
  of the claim's words must be negated (``not``, ``never``, ``no``, ``-n't``...
  up to :data:`NEGATION_REACH` words before it) exactly when it is in the
  claim: "Scrooge did not sign it" cited to "Scrooge signed it" is unsupported.

Verdicts, decided in this order:

``unsupported``
    Fewer than :data:`WEAK` of the claim's content words are in the
    passage; or a number or a name of the claim is not; or a word is negated
    in one and not the other.
``supported``
    At least :data:`SUPPORTED` of the content words, every name and number,
    negation agreeing.
``weak``
    Between: the passage is about the claim's subject but does not state all
    of it (a paraphrase, a partial claim).

The thresholds and their measured precision and recall on claims written by
hand (true and false, the Christmas Carol and the workshop corpus) are in
``docs/citations_support.md``. A lexical check cannot see a paraphrase that
shares no words, nor a false claim made only of the passage's words; an
entailment model can, and plugs in as a :class:`SupportJudge`.

Examples
--------
>>> passage = "Marley was dead: to begin with. The register of his burial was signed by the clergyman."
>>> judge_support("Marley was dead.", passage).verdict
'supported'
>>> judge_support("Marley was not dead.", passage).verdict
'unsupported'
>>> judge_support("The moon is made of cheese.", passage).verdict
'unsupported'
>>> print(judge_support("The moon is made of cheese.", passage).reason)
0 of 2 content words of the claim are in the passage (missing: moon, cheese)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise
from typing import Protocol

from agrag_lab.evidence.results import SupportVerdict

__all__ = [
    "NEGATION_REACH",
    "SUPPORTED",
    "WEAK",
    "Support",
    "SupportJudge",
    "SupportVerdict",
    "judge_support",
]

#: Share of the claim's content words a passage must hold to support it (with every name and number).
SUPPORTED = 0.6
#: Share below which a passage is unrelated to the claim.
WEAK = 0.34
#: How many words before a word a negation reaches (``did not sign``, ``never was``).
NEGATION_REACH = 3


@dataclass(frozen=True)
class Support:
    """The verdict on one claim and passage, with what it rests on.

    Attributes
    ----------
    verdict : {"supported", "weak", "unsupported"}
    coverage : float
        Share of the claim's content words found in the passage (0-1).
    missing : tuple of str
        The claim's content words, names and numbers not found.
    reason : str
        Why, in words (what was found and what was not).
    """

    verdict: SupportVerdict
    coverage: float
    missing: tuple[str, ...]
    reason: str


class SupportJudge(Protocol):
    """Anything that judges whether a passage supports a claim (the lexical :func:`judge_support`,
    or an entailment model wrapped to give a :class:`Support`)."""

    def __call__(self, claim: str, passage: str) -> Support:
        """The verdict on ``claim`` given ``passage``."""


_STOP = frozenset(["a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "done", "down", "during", "each", "either", "else", "even", "ever", "every", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "let", "like", "made", "make", "many", "may", "me", "might", "more", "most", "much", "must", "my", "myself", "of", "off", "on", "once", "one", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "per", "quite", "rather", "really", "said", "same", "say", "says", "she", "should", "since", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "though", "through", "thus", "to", "too", "under", "until", "up", "upon", "us", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "whose", "why", "will", "with", "would", "yet", "you", "your", "yours", "yourself", "yourselves", "shall", "came", "come", "went", "go", "goes", "got", "get", "gets", "thing", "things", "way", "ways", "well", "still", "back", "yes", "being", "also",
                   # a cross-reference ("See also [id]", "cf. [id]") points at a passage; it claims nothing
                   "see", "cf"])
_NEGATIONS = frozenset({"not", "no", "never", "nothing", "nobody", "none", "neither", "nor", "nowhere", "cannot"})
_NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13", "fourteen": "14",
    "fifteen": "15", "sixteen": "16", "seventeen": "17", "eighteen": "18", "nineteen": "19", "twenty": "20",
    "thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90",
    "hundred": "100", "thousand": "1000", "million": "1000000",
    "first": "1", "second": "2", "third": "3", "fourth": "4", "fifth": "5", "sixth": "6", "seventh": "7",
    "eighth": "8", "ninth": "9", "tenth": "10",
}
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")
_SENTENCE = re.compile(r"(?<=[.!?;:。！？])\s+|\n+")


def _stem(word: str) -> str:
    """A light English stem: possessive, plural and -ed/-ing endings off (``signed`` -> ``sign``)."""
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    if w.endswith("n't"):
        w = w[:-3]
    for suffix, keep in (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3 and not (suffix == "s" and w.endswith("ss")):
            return w[: len(w) - len(suffix)] + keep
    return w


def _tokens(text: str) -> list[str]:
    """Words; a run of CJK characters becomes its character bigrams (no spaces to split on)."""
    out: list[str] = []
    for m in _WORD.finditer(text):
        word = m.group()
        if _CJK.search(word):
            chars = [c for c in word if _CJK.match(c)]
            out.extend([a + b for a, b in pairwise(chars)] if len(chars) > 1 else chars)
        else:
            out.append(word)
    return out


def _number(word: str) -> str | None:
    w = word.lower().replace(",", "")
    if re.fullmatch(r"\d+(?:\.\d+)?", w):
        return w
    return _NUMBER_WORDS.get(w)


def _is_negation(word: str) -> bool:
    low = word.lower().replace("’", "'")
    return low in _NEGATIONS or low.endswith("n't")


def _negated_span(words: list[str], stems: set[str]) -> bool:
    """Whether a negation stands among ``words`` from :data:`NEGATION_REACH` words before the first word of
    ``stems`` to where every one of them has been seen (a negation elsewhere is about something else)."""
    at = [i for i, w in enumerate(words) if _stem(w) in stems]
    if not at:
        return False
    seen: set[str] = set()
    end = at[-1]
    for i in at:
        seen.add(_stem(words[i]))
        if seen >= stems or len(seen) == len({_stem(words[j]) for j in at}):
            end = i
            break
    return any(_is_negation(w) for w in words[max(0, at[0] - NEGATION_REACH) : end + 1])


def _content(words: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for w in words:
        low = w.lower()
        if low in _STOP or low in _NEGATIONS or _number(w) is not None or (len(low) < 2 and not _CJK.match(low)):
            continue
        seen.setdefault(low, None)
    return list(seen)


def _found(word: str, stems: set[str], prefixes: set[str]) -> bool:
    stem = _stem(word)
    return stem in stems or (len(stem) >= 5 and stem[:5] in prefixes)


def judge_support(claim: str, passage: str) -> Support:
    """Whether ``passage`` supports ``claim``: content words, names, numbers and negation (see the module).

    Parameters
    ----------
    claim : str
        The sentence (or clause) a citation is attached to, without the citation.
    passage : str
        The exact text of the cited passage.

    Returns
    -------
    Support
        The verdict, the coverage, what is missing and the reason.
    """
    claim_words = _tokens(claim)
    passage_words = _tokens(passage)
    stems = {_stem(w) for w in passage_words}
    prefixes = {s[:5] for s in stems if len(s) >= 5}
    passage_numbers = {n for w in passage_words if (n := _number(w)) is not None}
    content = _content(claim_words)
    names = [w for w in dict.fromkeys(claim_words) if w[:1].isupper() and w.lower() not in _STOP
             and w.lower() not in _NEGATIONS and _number(w) is None]
    numbers = [w for w in dict.fromkeys(claim_words) if _number(w) is not None and _number(w) not in ("1",)]
    if not content:
        return Support("weak", 0.0, (), "the claim has no content word to compare with the passage")
    found = [w for w in content if _found(w, stems, prefixes)]
    missing = [w for w in content if w not in found]
    coverage = len(found) / len(content)
    lost_names = [n for n in names if not _found(n, stems, prefixes)]
    lost_numbers = [n for n in numbers if _number(n) not in passage_numbers]
    counted = f"{len(found)} of {len(content)} content words of the claim are in the passage"
    shown = f" (missing: {', '.join(missing[:6])})" if missing else ""
    if lost_numbers:
        return Support("unsupported", coverage, tuple(lost_numbers + missing),
                       f"the claim's number {', '.join(lost_numbers)} is not in the passage; {counted}{shown}")
    if coverage < WEAK:
        return Support("unsupported", coverage, tuple(missing), counted + shown)
    if lost_names:
        return Support("unsupported", coverage, tuple(dict.fromkeys(lost_names + missing)),
                       f"the name{'s' if len(lost_names) > 1 else ''} {', '.join(lost_names)} of the claim "
                       f"{'are' if len(lost_names) > 1 else 'is'} not in the passage; {counted}{shown}")
    flipped, best = _negation_flips(claim_words, passage, content)
    if flipped:
        said = "negates what the passage states" if _negated_span(claim_words, {_stem(w) for w in content}) else \
            "states what the passage negates"
        return Support("unsupported", coverage, tuple(missing),
                       f"the claim {said} (passage: {best.strip()[:120]!r}); {counted}{shown}")
    if coverage >= SUPPORTED:
        return Support("supported", coverage, (), counted + (shown or ", every name and number"))
    return Support("weak", coverage, tuple(missing),
                   f"{counted}{shown}; read the passage again or cite one that states the claim")


def _negation_flips(claim_words: list[str], passage: str, content: list[str]) -> tuple[bool, str]:
    """Whether the claim and the passage sentence that states most of it differ in negation (over the words
    they share), and that sentence. A claim spread over several sentences is not compared."""
    sentences = [s for s in _SENTENCE.split(passage) if s.strip()] or [passage]
    stems = {_stem(w) for w in content}
    scored = [(len(stems & {_stem(t) for t in _tokens(s)}), s) for s in sentences]
    hits, best = max(scored, key=lambda hs: hs[0])
    if hits < SUPPORTED * len(stems):
        return False, best
    shared = stems & {_stem(t) for t in _tokens(best)}
    return _negated_span(claim_words, shared) != _negated_span(_tokens(best), shared), best
