"""BENCHMARKS.md reads as today's figures: one section per measure, each naming how it was measured,
and a benchmark run replaces the figures by title without losing the notes of what did not work."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks import benchmarks_md, peers, run, scale_report

#: The file the project keeps its figures in.
BENCHMARKS = Path(__file__).resolve().parents[1] / "BENCHMARKS.md"
#: Words that date a figure by a work period instead of by the measure it belongs to.
WORK_PERIOD = re.compile(r"\bsessions? [0-9]+|\b(?:this|last|next|second|third) session\b", re.IGNORECASE)
#: A command that reproduces a figure, as the file quotes it.
COMMAND = re.compile(r"`(?:make [a-z-]+|python -m benchmarks\.[a-z_]+|agrag-lab [a-z]+|pytest )[^`]*`")
#: A date of measurement.
DATE = re.compile(r"\b20[0-9]{2}-[01][0-9]-[0-3][0-9]\b")


@pytest.fixture(scope="module")
def text() -> str:
    return BENCHMARKS.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def sections(text: str) -> dict[str, str]:
    """Section title -> its text, the "What did not work" notes included."""
    return _split(text)


def test_the_file_is_short_enough_to_find_a_figure_in(text: str) -> None:
    assert len(text.splitlines()) < 800


def test_no_figure_is_dated_by_a_work_period(text: str) -> None:
    assert WORK_PERIOD.findall(text) == []


def test_each_measure_has_one_section(sections: dict[str, str], text: str) -> None:
    titles = re.findall(r"^## (.+)$", text, flags=re.MULTILINE)
    assert len(titles) == len(set(titles))
    assert len(sections) >= 20


def test_every_section_says_when_and_by_which_command_it_was_measured(sections: dict[str, str]) -> None:
    for title, body in sections.items():
        figures = body.split(benchmarks_md.NOTES)[0]
        assert DATE.search(figures), f"{title!r} names no date of measurement"
        assert COMMAND.search(figures), f"{title!r} names no command that reproduces it"


def test_every_section_a_benchmark_writes_is_in_place(sections: dict[str, str]) -> None:
    """A title the code writes and the file lacks would be appended at the end, a second home of the measure."""
    written = [*run.titles(), scale_report.TITLE, peers.TITLE]
    assert [t for t in written if t not in sections] == []


def _split(text: str) -> dict[str, str]:
    parts = re.split(r"^## (.+)$", text, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_a_run_replaces_the_figures_and_keeps_every_other_section_and_the_notes(text: str) -> None:
    title = "Retrieval quality (issue 6)"
    before = _split(text)
    notes = before[title][before[title].index(benchmarks_md.NOTES):]
    new = _split(benchmarks_md.replace_sections(text, [(title, ["| measure | value |", "|---|---|", "| x | 1 |"])],
                                                "Measured today by `make bench`."))
    assert list(new) == list(before)
    assert {t: b for t, b in new.items() if t != title} == {t: b for t, b in before.items() if t != title}
    assert new[title].startswith("\n\nMeasured today by `make bench`.\n\n| measure | value |")
    assert new[title].endswith(notes) and "MuSiQue-100 (1,890 passages" not in new[title]
