"""Precision and recall of the citation support check on claims written by hand (``docs/citations_support.md``).

Each claim of ``tests/evidence/data/support_claims.jsonl`` names a passage
(a text unit of the bundled Christmas Carol GraphRAG output by its
``human_readable_id``, or the paragraph of a workshop document holding an
anchor sentence) and says whether the passage supports it. The check
(:func:`agrag_lab.evidence.support.judge_support`) is scored at two
operating points:

- **valid**: a citation is accepted when the verdict is ``supported`` or
  ``weak`` (what ``check_citations`` accepts);
- **supported**: only ``supported`` is accepted.

For each: precision (accepted claims that are true), recall (true claims
accepted) and the share of false claims rejected; per corpus, per split and
per kind of claim too. The rules were revised once after measuring the
``development`` claims; the ``held-out`` claims were written afterwards and
measured once, with no change made after.

Run: ``python -m benchmarks.citation_support``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from agrag_lab.evidence.support import Support, judge_support

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = ROOT / "tests" / "evidence" / "data" / "support_claims.jsonl"
CAROL = ROOT / "datasets" / "msgraphrag_christmas_carol" / "v3" / "text_units.parquet"
WORKSHOP = ROOT / "datasets" / "workshop" / "docs"


def load_claims(path: Path = CLAIMS) -> list[dict[str, Any]]:
    """The hand-written claims, one JSON object a line."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@cache
def _carol_units() -> dict[int, str]:
    import polars as pl

    units = pl.read_parquet(CAROL)
    return {int(r["human_readable_id"]): str(r["text"]) for r in units.iter_rows(named=True)}


def passage_of(claim: Mapping[str, Any]) -> str:
    """The passage a claim is judged against (see the module)."""
    if claim["corpus"] == "carol":
        return _carol_units()[int(claim["unit"])]
    text = (WORKSHOP / f"{claim['document']}.md").read_text(encoding="utf-8")
    paragraph = next((p for p in text.split("\n\n") if claim["anchor"] in p), None)
    if paragraph is None:
        raise KeyError(f"{claim['document']}.md holds no paragraph with {claim['anchor']!r}")
    return paragraph


def _scores(pairs: Iterable[tuple[bool, bool]]) -> dict[str, float | int]:
    """``(truth, accepted)`` pairs -> precision, recall, false claims rejected, counts."""
    counts = Counter(pairs)
    tp, fp, fn, tn = counts[(True, True)], counts[(False, True)], counts[(True, False)], counts[(False, False)]
    return {
        "precision": tp / (tp + fp) if tp + fp else 1.0,
        "recall": tp / (tp + fn) if tp + fn else 1.0,
        "false_rejected": tn / (tn + fp) if tn + fp else 1.0,
        "true": tp + fn, "false": tn + fp,
    }


def measure(
    claims: Iterable[Mapping[str, Any]], judge: Callable[[str, str], Support] = judge_support,
) -> dict[str, Any]:
    """Scores of ``judge`` on ``claims`` at both operating points, overall, per corpus and per kind."""
    rows = [(c, judge(c["claim"], passage_of(c))) for c in claims]
    out: dict[str, Any] = {}
    for point, accepted in (("valid", {"supported", "weak"}), ("supported", {"supported"})):
        out[point] = _scores((bool(c["supported"]), s.verdict in accepted) for c, s in rows)
        for field in ("split", "corpus"):
            for value in sorted({str(c[field]) for c, _ in rows}):
                out[f"{point}.{value}"] = _scores(
                    (bool(c["supported"]), s.verdict in accepted) for c, s in rows if c[field] == value)
    kinds = sorted({str(c["kind"]) for c, _ in rows})
    out["verdicts_by_kind"] = {k: dict(Counter(s.verdict for c, s in rows if c["kind"] == k)) for k in kinds}
    out["errors"] = [
        {"claim": c["claim"], "truth": c["supported"], "verdict": s.verdict, "reason": s.reason}
        for c, s in rows
        if bool(c["supported"]) != (s.verdict != "unsupported")
    ]
    return out


def main() -> None:
    """Print the table of ``docs/citations_support.md``."""
    result = measure(load_claims())
    print("| operating point | claims (true/false) | precision | recall | false claims rejected |")
    print("|---|---|---|---|---|")
    for key, value in result.items():
        if isinstance(value, dict) and "precision" in value:
            print(f"| {key} | {value['true']}/{value['false']} | {value['precision']:.2f} | {value['recall']:.2f} | "
                  f"{value['false_rejected']:.2f} |")
    print()
    for kind, verdicts in result["verdicts_by_kind"].items():
        print(f"- {kind}: {verdicts}")
    print()
    for error in result["errors"]:
        print(f"- {'true' if error['truth'] else 'false'} claim judged {error['verdict']}: {error['claim']!r} ({error['reason']})")


if __name__ == "__main__":
    main()
