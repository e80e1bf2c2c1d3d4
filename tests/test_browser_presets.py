"""Every preset of every metric on a fresh page, in the metric's own page and in the playground's tab, as a
person tries one: open the page, pick the preset, load its example (vqa_acc's button; elsewhere the
pre-filled example, fid_clip's images uploaded and its model paths typed), press Compute. The numbers and
the signature shown must be `<metric>.score(..., preset=P)`'s on the same inputs; where the library
refuses the preset here (ru_meteor's RuWordNet presets on a machine without RuWordNet), the page refuses
it with the library's message (what to install). A widget value chosen for the default preset, or by
the page for what is installed, never reaches another preset's number (ru_meteor's `nltk` scored with
`synonyms` none before). On each metric's own page every input box emptied is refused, as
`score([], [])` is (codebleu scored two empty boxes before).

The apps are served once for the session (`served`); each metric's own page is opened afresh per preset,
the playground once per round (round k: the k-th preset of every metric, each in its untouched tab).
About 2 s a compute on 2 busy cores: `pytest tests/test_browser_presets.py -s --durations=0` prints
the computes compared and the time of each test.
"""

import re

import _browser as ui
import pytest
from _browser_cases import CASES, CI
from helpers import ROOT, metric_names

from multimodal_metrics.demo import fmt, parse_alternatives, parse_items, shown_number

pytest_plugins = ["_browser", "_browser_cases"]  # the fixtures browser, served, page, resources

APPS = [name for name in metric_names() if (ROOT / "metrics" / name / "app.py").is_file()]
INPUT_NAMES = ("predictions", "references", "texts", "question_types", "answer_types", "languages")
COMPUTES = []  # (metric, place, preset, "equal" / "refused"): what the session compared (printed, -s)


def library(name: str):
    import importlib

    return importlib.import_module(f"multimodal_metrics.{name}")


def example_of(name: str, preset: str, app, res: dict) -> dict:
    """The inputs (as `<metric>.score` takes them) the page holds once preset's example is there: vqa_acc's
    button loads the preset's example, the other pages keep their pre-filled one (CASES' first run: the
    options the person gives, codebleu's `lang`, fid_clip's model paths, kept)."""
    if name == "vqa_acc":
        preds, refs, types_a, types_b = app.example_of(preset)
        columns = {"question_types": types_a, "answer_types": types_b, "languages": types_b}
        kwargs = {"predictions": parse_items(preds, "p"), "references": parse_alternatives(refs, "r")}
        extra = library(name).extra_inputs(preset)
        return kwargs | {k: col for k in extra if (col := parse_items(columns[k], k))}
    run = CASES[name].runs[0]
    kwargs = run.compute(res) if callable(run.compute) else dict(run.compute)
    return {
        k: v
        for k, v in kwargs.items()
        if k in INPUT_NAMES or k in ("lang", "inception_weights", "clip_model")
    }


def fill(page, name: str, preset: str, app, prefix: str, res: dict) -> None:
    """What the person does after picking the preset: load its example, or upload and type fid_clip's."""
    if name == "vqa_acc":
        page.locator(f"#{prefix}load_example").click()
        boxes = [f"#{prefix}{box.name} textarea" for row in app.DEMO.rows for box in row]
        page.wait_for_function(  # every box holds the preset's example
            "([boxes, texts]) => boxes.every((sel, i) => document.querySelector(sel).value === texts[i])",
            arg=[boxes, list(app.example_of(preset))],
        )
        return
    run = CASES[name].runs[0]
    for suffix, key in run.files.items():
        ui.upload(page, f"{prefix}{suffix}", res[key])
    for suffix, text in run.typed.items():
        ui.set_text(page, f"{prefix}{suffix}", text.format(**res))
    for suffix, value in run.options.items():
        ui.set_option(page, f"{prefix}{suffix}", value.format(**res))


def spoken(text: str) -> str:
    """A message as read on the page: code spans drawn as code (no backticks), spaces collapsed."""
    return re.sub(r"\s+", " ", text.replace("`", "").replace("\xa0", " ")).strip()


def shows_the_library(page, prefix: str, name: str, preset: str, kwargs: dict) -> str:
    """The page shows `<metric>.score(**kwargs, preset=preset)`: its numbers as the page rounds them (with
    their intervals), its signature and its per-example scores, or its refusal's message. Returns "equal"
    or "refused"."""
    try:
        expected = library(name).score(
            **kwargs, preset=preset, return_per_example=True, **(CASES[name].ci or CI)
        )
    except ValueError as err:
        shown = spoken(ui.headline_text(page, prefix))
        assert "Not computed" in shown and spoken(str(err)) in shown, (preset, shown, str(err))
        return "refused"
    shown = ui.read_headline(page, prefix)
    numbers = [
        k for k, v in expected.items() if isinstance(v, float) and not k.endswith(("_ci_low", "_ci_high"))
    ]
    assert shown == {k: shown_number(expected, k) for k in numbers}, (preset, ui.headline_text(page, prefix))
    assert ui.get_text(page, f"{prefix}signature") == expected["signature"], preset
    key = CASES[name].score or numbers[0]
    headers, rows = ui.read_table(page, prefix, header=key)
    per = [fmt(p[key] if isinstance(p, dict) else p) for p in expected["per_example"]]
    assert [row[headers.index(key)] for row in rows] == per, (preset, headers, rows, per)
    return "equal"


def fresh(page, url: str, prefix: str) -> None:
    page.goto(url)  # a fresh page: every widget as the page first draws it
    page.locator(f"#{prefix}go").wait_for(state="visible")


def try_preset(page, name: str, preset: str, app, prefix: str, res: dict, place: str) -> None:
    """On a page (or tab) whose widgets nobody touched: pick `preset`, fill, Compute, compare."""
    if ui.get_text(page, f"{prefix}preset") != preset:
        ui.pick(page, f"{prefix}preset", preset)
    fill(page, name, preset, app, prefix, res)
    ui.compute(page, prefix)
    COMPUTES.append(
        (
            name,
            place,
            preset,
            shows_the_library(page, prefix, name, preset, example_of(name, preset, app, res)),
        )
    )


@pytest.mark.parametrize("name", APPS)
def test_every_preset_on_a_fresh_page_is_the_library(page, served, resources, name):
    """The metric's own page, opened afresh for each preset: every preset equals the library."""
    module, url = served(name)
    for preset in library(name).PRESETS:
        fresh(page, url, "")
        try_preset(page, name, preset, module, "", resources(name), "page")
    print(f"{len(COMPUTES)} browser computes compared with the library so far")


@pytest.mark.parametrize("round_", range(max(len(library(name).PRESETS) for name in APPS)))
def test_every_preset_in_a_fresh_playground_tab_is_the_library(page, served, resources, round_):
    """The playground opened afresh for each round; in each metric's tab (its widgets untouched: the tabs
    are separate pages) the round's preset of that metric: every preset of every tab equals the library."""
    playground, url = served("playground")
    fresh(page, url, f"{APPS[0]}_")
    for name in APPS:
        presets = list(library(name).PRESETS)
        if round_ < len(presets):
            page.get_by_role("tab", name=playground.TITLES.get(name, name), exact=True).click()
            page.locator(f"#{name}_go").wait_for(state="visible")
            try_preset(
                page, name, presets[round_], playground.APPS[name], f"{name}_", resources(name), "playground"
            )
    print(f"{len(COMPUTES)} browser computes compared with the library so far")


@pytest.mark.parametrize("name", APPS)
def test_empty_boxes_are_refused_as_the_library_refuses_no_example(page, served, name):
    """Every input box of the metric's page emptied (fid_clip: no image uploaded), Compute: refused, as
    `<metric>.score([], [])` is under the page's first preset, with the library's message where the page
    hands it the empty lists (det_f1 and fid_clip read their boxes themselves: their message says what to
    put there, naming `predictions`); names drawn as code, never between literal backticks."""
    module, url = served(name)
    page.goto(url)
    for row in module.DEMO.rows:
        for box in row:
            ui.set_text(page, box.name, "")
    message = ui.error_after_compute(page, "")
    given = (
        {"lang": "python"} if name == "codebleu" else {}
    )  # the options the person gives, as the page holds them
    with pytest.raises(ValueError) as refused:
        library(name).score([], [], **given)
    assert "`" not in message and page.locator("#headline code").count(), message
    if name in ("det_f1", "fid_clip"):
        assert re.search(
            r"predictions.*(is empty|upload)|upload the generated images \(predictions\)", message
        ), message
    else:
        assert spoken(str(refused.value)) in spoken(message), (message, str(refused.value))
    COMPUTES.append((name, "page", "empty", "refused"))
    print(f"{len(COMPUTES)} browser computes compared with the library so far")
