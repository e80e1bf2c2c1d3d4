"""Each metric's sources (``multimodal_metrics.hf.sources``): one table, read by the evaluate modules, in step
with the citations of the cards."""

import re

import pytest
from helpers import METRICS, load_metric, metric_names

from multimodal_metrics.hf.sources import BIBTEX, SOURCES

KEY = re.compile(r"^@\w+\{([^,\s]+),", re.MULTILINE)


def card_keys(name: str) -> list[str]:
    """The BibTeX keys of the card's Citation section."""
    card = (METRICS / name / "README.md").read_text(encoding="utf-8")
    return KEY.findall(card.split("## Citation", 1)[1].split("\n## ", 1)[0])


def test_every_metric_has_one_row_and_every_work_is_cited():
    assert sorted(SOURCES) == metric_names()
    cited = {key for row in SOURCES.values() for key in row.cites}
    assert cited == set(BIBTEX), "a BibTeX entry no metric cites, or a key without its entry"
    for key, entry in BIBTEX.items():
        assert KEY.findall(entry) == [key], f"the entry under {key!r} names another key"
        assert entry.count("{") == entry.count("}"), key


@pytest.mark.parametrize("name", metric_names())
def test_the_card_cites_works_of_the_table(name):
    keys = card_keys(name)
    assert keys, f"{name}: the card has no BibTeX entry"
    assert set(keys) <= set(SOURCES[name].cites), (
        f"{name}: the card cites {keys}, the table {SOURCES[name].cites}"
    )


@pytest.mark.parametrize("name", ["anls", "det_f1"])
def test_the_evaluate_module_shows_its_row(name):
    metric, row = load_metric(name), SOURCES[name]
    assert metric.citation == row.citation
    assert KEY.findall(metric.citation) == list(row.cites)
    assert metric.homepage == row.homepage
    assert metric.reference_urls == list(row.reference_urls)
    # the docs stay the script's: the description opens the class docstring, the examples follow
    assert type(metric).__doc__.startswith(metric.description)
    assert metric.inputs_description in type(metric).__doc__
    assert ">>> " in metric.inputs_description
