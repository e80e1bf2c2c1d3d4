"""One metric's own controls in a real browser: det_f1's picture, ru_meteor's alignment picker and synonym
sources, codebleu's snippets and weights, vqa_acc's examples and per-preset options (fixtures:
tests/_browser.py).
"""

import re

import _browser as ui
import pytest
from _browser import DESKTOP, error_badges, shot
from helpers import load_metric

from multimodal_metrics.demo import fmt  # the rounding the page shows
from multimodal_metrics.det_f1 import drawing

pytest_plugins = ["_browser", "_browser_cases"]  # the fixtures browser, served, page, resources


def test_det_f1_picture_explains_its_boxes(page, served):
    """det_f1's example: dashed "missed" boxes while recall reads 1: a note beside the picture says why,
    and the box labels are drawn at least 12 px tall in the page."""
    ui.open_page(page, served, "det_f1")
    ui.compute(page, "")
    assert ui.read_headline(page, "")["recall"].startswith("1 ")
    picture = page.locator("#picture img").first
    picture.wait_for(state="visible")
    picture.scroll_into_view_if_needed()
    shot(page, "det_f1_picture")
    note = page.locator("#picture_note")
    assert note.count() and note.is_visible(), "no note beside the picture"
    text = note.inner_text()
    assert re.search(r"dashed", text) and re.search(r"recall", text) and re.search(r"any", text), text
    shown, natural = picture.evaluate("img => [img.getBoundingClientRect().width, img.naturalWidth]")
    label_px = drawing.LABEL_PX * shown / natural  # the labels as drawn in the page
    assert label_px >= 12, (label_px, shown, natural)
    # named by what it draws (it was the only unnamed control: a button holding <img alt="">)
    described = re.compile(r"^Boxes of 2 images\. street\.jpg: cat: 3 ground-truth boxes \(1 hit, 2 missed\)")
    assert page.get_by_role("button", name=described).count() == 1, picture.get_attribute("alt")
    unnamed = page.evaluate(
        """() => [...document.querySelectorAll('button, [role=button]')].filter(b => b.checkVisibility()
            && !(b.getAttribute('aria-label') || b.innerText.trim() || b.title
                 || [...b.querySelectorAll('img')].some(i => i.alt))).map(b => b.outerHTML.slice(0, 120))"""
    )
    assert not unnamed, unnamed


def test_det_f1_empty_box_says_what_to_put(page, served):
    ui.open_page(page, served, "det_f1")
    ui.set_text(page, "refs", "")
    message = ui.error_after_compute(page, "")
    shot(page, "det_f1_empty_box", full_page=False)
    assert "Expecting value" not in message and re.search(r"references is empty.*\{", message), message


def test_det_f1_says_which_images_are_drawn(page, served):
    """det_f1 with six images, the missed boxes in images 4 and 5 (not drawn): the note says the picture
    shows the first 4 of the 6 images and counts only the dashed boxes drawn (it counted undrawn ones)."""
    import json

    ui.open_page(page, served, "det_f1")
    refs = {f"img{i}.jpg": {"cat": [[10, 10, 40, 40], [60, 10, 30, 30]]} for i in range(6)}
    preds = {f"img{i}.jpg": {"cat": [[10, 10, 40, 40]] * (2 if i < 4 else 1)} for i in range(6)}
    preds["img0.jpg"] = {"cat": [[10, 10, 40, 40], [11, 11, 40, 40]]}  # image 0: one missed box, FN 0 (any)
    ui.set_text(page, "refs", json.dumps(refs))
    ui.set_text(page, "preds", json.dumps(preds))
    ui.compute(page, "")
    page.locator("#picture img").first.wait_for(state="visible")
    shot(page, "det_f1_six_images")
    note = page.locator("#picture_note").inner_text()
    assert re.search(r"first 4 of the 6 images", note), note
    # each image misses its second cat; images 4 and 5 are not drawn: 4 dashed boxes, not 6
    assert re.search(r"\b4 dashed box\(es\) in the 4 images drawn", note), note


def test_ru_meteor_nltk_on_a_fresh_page_scores_with_wordnet(page, served):
    """ru_meteor, a fresh page, preset nltk: the synonyms box shows "preset: wordnet" (it kept the "none"
    the page had chosen for the default preset and scored 0.83 with syn:none); none and then "preset"
    again is accepted (it was refused: "preset is not in the list of choices"); the number and the
    signature are `ru_meteor.score(..., preset="nltk")`'s (0.9977 with syn:wordnet)."""
    from _browser_cases import CI

    from multimodal_metrics import ru_meteor
    from multimodal_metrics.demo import shown_number

    ui.open_page(page, served, "ru_meteor")
    ui.pick(page, "preset", "nltk")
    page.wait_for_function("() => document.querySelector('#opt_synonyms input').value === 'preset: wordnet'")
    ui.set_text(page, "preds", "a cat sleeps on the couch")
    ui.set_text(page, "refs", "a cat sleeps on the sofa")
    ui.pick(page, "opt_synonyms", "none")
    ui.pick(page, "opt_synonyms", "preset: wordnet")
    ui.compute(page, "")
    shot(page, "ru_meteor_nltk_fresh", full_page=False)
    expected = ru_meteor.score(
        ["a cat sleeps on the couch"], ["a cat sleeps on the sofa"], preset="nltk", **CI
    )
    assert ui.read_headline(page, "")["meteor"] == shown_number(expected, "meteor"), ui.headline_text(
        page, ""
    )
    assert (
        ui.get_text(page, "signature") == expected["signature"] and "|syn:wordnet|" in expected["signature"]
    )


def test_ru_meteor_alignment_picker_counts_like_the_table(page, served):
    """The alignment shown for example #1 is the table's row 1 (both count from 0)."""
    ui.open_page(page, served, "ru_meteor")
    ui.pick(page, "opt_synonyms", "none")  # runs on any machine (the preset's RuWordNet may be missing)
    ui.set_text(page, "example", "1")
    ui.compute(page, "")
    page.locator("#alignment").scroll_into_view_if_needed()
    shot(page, "ru_meteor_alignment_1")
    headers, rows = ui.read_table(page, "")
    row = next(r for r in rows if r[0] == "1")
    shown = re.search(r"prediction\s*:\s*(.+)", page.locator("#alignment").inner_text())[1].strip()
    assert shown == row[headers.index("prediction")].strip(), (shown, rows)


def test_ru_meteor_offers_only_what_runs(page, served):
    """Every synonyms source offered computes here; "preset" says what it stands for, and under a preset
    whose own source is not installed (RuWordNet on this machine, as on the Space) says so, and Compute
    is refused with the library's message saying what to install; one line names the presets refused."""
    from multimodal_metrics import ru_meteor
    from multimodal_metrics.demo import alignment

    url = ui.open_page(page, served, "ru_meteor")
    page.locator("#opt_synonyms input").click()
    offered = [
        t.strip().splitlines()[-1].strip() for t in page.get_by_role("option").all_inner_texts()
    ]  # no "✓"
    shot(page, "ru_meteor_synonyms", full_page=False)
    runs = alignment.offered_synonyms(ru_meteor.OPTIONS["synonyms"])
    assert offered[0].startswith("preset: ") and offered[1:] == runs, offered
    failed = {}
    for choice in offered:
        page.goto(url)
        ui.pick(page, "opt_synonyms", choice)
        ui.compute(page, "")
        text = ui.headline_text(page, "")
        refused = "Not computed" in text
        if refused != choice.endswith("(not installed)"):
            failed[choice] = text[:300]
        elif refused and "ruwordnet download" not in text:
            failed[choice] = f"no install line: {text[:300]}"
    assert not failed, (offered, failed)
    if not alignment.runs_here("ruwordnet_fb"):
        why = page.locator("#synonyms_note")
        assert why.is_visible() and re.search(r"Not installed.*ruwordnet_fb.*default", why.inner_text()), (
            why.inner_text()
        )


def test_ru_meteor_negative_example_gives_a_fresh_result_not_error_badges(page, served):
    """ru_meteor: a result, then example # -1 and Compute: no "Error" badges over the outputs (Gradio's own
    range check fired before, the old result stayed under them); the new result is shown and the
    alignment says that -1 is not an example and which one it shows."""
    ui.open_page(page, served, "ru_meteor")
    ui.pick(page, "opt_synonyms", "none")
    ui.compute(page, "")
    ui.set_text(page, "preds", "кот спит")
    ui.set_text(page, "refs", "кот спит")
    ui.set_text(page, "example", "-1")
    ui.compute(page, "")
    page.wait_for_timeout(1000)
    shot(page, "ru_meteor_example_minus_1", full_page=False)
    assert not error_badges(page)
    expected = load_metric("ru_meteor", "captioning").compute(
        predictions=["кот спит"], references=["кот спит"], synonyms="none"
    )
    assert ui.read_headline(page, "")["meteor"].startswith(f"{fmt(expected['meteor'])} "), ui.headline_text(
        page, ""
    )
    alignment = page.locator("#alignment").inner_text()
    assert re.search(r"no example #-1.*showing #0", alignment, re.S), alignment


def test_ru_meteor_picker_realigns_and_never_withholds_the_score(page, served):
    """ru_meteor: after a compute, choosing another example shows that example's alignment at once (the
    previous one stayed, unlabelled); an example number past the end still gives the score and shows
    the last example, saying so."""
    ui.open_page(page, served, "ru_meteor")
    ui.pick(page, "opt_synonyms", "none")
    ui.compute(page, "")
    headers, rows = ui.read_table(page, "")
    while "prediction" not in headers:  # the headers of the example's table, once drawn
        page.wait_for_timeout(250)
        headers, rows = ui.read_table(page, "")
    ui.set_text(page, "example", "2")
    page.locator("#example input").press("Enter")
    expected = rows[2][headers.index("prediction")].strip()
    page.locator("#alignment").get_by_text("example #2").wait_for(state="visible", timeout=15_000)
    shown = re.search(r"prediction\s*:\s*(.+)", page.locator("#alignment").inner_text())[1].strip()
    assert shown == expected, (shown, expected)
    ui.set_text(page, "preds", "две птицы\nкот")
    ui.set_text(page, "refs", "две птицы\nкот")
    ui.set_text(page, "example", "5")
    ui.compute(page, "")
    shot(page, "ru_meteor_example_5_of_2", full_page=False)
    assert "Not computed" not in ui.headline_text(page, "") and ui.read_headline(page, "")["meteor"], (
        ui.headline_text(page, "")
    )
    alignment = page.locator("#alignment").inner_text()
    assert re.search(r"no example #5.*showing #1", alignment, re.S) and "кот" in alignment, alignment


def test_codebleu_example_has_several_pairs(page, served):
    """codebleu's pre-filled example: several pairs, so the interval is not a point and the histogram has
    more than one bar's worth of examples."""
    ui.open_page(page, served, "codebleu")
    ui.compute(page, "")
    shot(page, "codebleu_example")
    shown = ui.read_headline(page, "")
    value = shown["codebleu"]
    low, high = re.fullmatch(r"\S+ \[(\S+), (\S+)\]", value).groups()
    assert float(low) < float(high), value
    headers, rows = ui.read_table(page, "")
    assert len(rows) >= 3 and sum(ui.wait_for_bars(page, "", len(rows))) == len(rows), rows


def test_codebleu_preset_change_keeps_the_weights_box_usable(page, served):
    """codebleu: another preset picked; the weights box stays empty (its help names the new preset's
    weights) and Compute scores with that preset (a Gradio update object landed in the box before)."""
    ui.open_page(page, served, "codebleu")
    ui.pick(page, "preset", "pypi")
    page.locator("#opt_weights").get_by_text("[preset pypi:").wait_for(state="visible")
    shot(page, "codebleu_preset_pypi", full_page=False)
    assert ui.get_text(page, "opt_weights") == "", ui.get_text(page, "opt_weights")
    ui.compute(page, "")
    assert "Not computed" not in ui.headline_text(page, ""), ui.headline_text(page, "")
    assert "|preset:pypi|" in ui.get_text(page, "signature")


def test_codebleu_dashes_in_a_docstring_stay_in_one_pair(page, served):
    """codebleu: a function whose numpydoc docstring underlines "Parameters" with dashes is one pair
    (the dashes split it into two pairs before); code holding the separator line itself goes in as JSON
    lists, as the page says."""
    import json

    module, url = served("codebleu")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
    code = 'def area(w, h):\n    """Area.\n\n    Parameters\n    ----------\n    w, h : float\n    """\n    return w * h\n'
    ui.set_text(page, "preds", code)
    ui.set_text(page, "refs", code.replace("w * h", "h * w"))
    ui.compute(page, "")
    assert len(ui.read_table(page, "")[1]) == 1, ui.read_table(page, "")
    assert (
        module.SEPARATOR_LINE in page.locator("body").inner_text()
        and "JSON list" in page.locator("body").inner_text()
    )
    tricky = [f"s = '''\n{module.SEPARATOR_LINE}\n'''\n", "x = 1\n"]
    ui.set_text(page, "preds", json.dumps(tricky))
    ui.set_text(page, "refs", json.dumps(tricky))
    ui.compute(page, "")
    shot(page, "codebleu_json_lists", full_page=False)
    assert len(ui.read_table(page, "")[1]) == 2, ui.read_table(page, "")


@pytest.mark.parametrize("preset", ["lmms_eval", "vlmevalkit"])
def test_vqa_acc_every_preset_has_an_example(page, served, preset):
    """vqa_acc: a harness preset, then "load the preset's example", then Compute: inputs filled, a score
    (the loader raised KeyError before: error badges over the inputs)."""
    module, url = served("vqa_acc")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
    ui.set_text(page, "preds", "x")
    ui.pick(page, "preset", preset)
    page.locator("#load_example").click()
    page.wait_for_function("() => document.querySelector('#preds textarea').value !== 'x'", timeout=15_000)
    assert ui.get_text(page, "preds") == module.example_of(preset)[0]
    assert not page.get_by_text(re.compile(r"^Error$")).count()
    ui.compute(page, "")
    shot(page, f"vqa_acc_{preset}_example", full_page=False)
    assert ui.read_headline(page, "")["accuracy"] and f"|preset:{preset}|" in ui.get_text(page, "signature")


def test_vqa_acc_options_of_other_presets_are_disabled_and_say_so(page, served):
    """vqa_acc under default: threshold (wups) and lowercase (bleu1) cannot be set and their help says
    which preset uses them; picking wups enables threshold."""
    ui.open_page(page, served, "vqa_acc")
    for name, user in (("threshold", "wups"), ("lowercase", "bleu1")):
        box = page.locator(f"#opt_{name}")
        assert box.locator("input, textarea").first.is_disabled(), name
        assert re.search(rf"not used by preset default.*{user}", box.inner_text()), box.inner_text()
    shot(page, "vqa_acc_disabled_options", full_page=False)
    ui.pick(page, "preset", "wups")
    page.wait_for_function(
        "() => !document.querySelector('#opt_threshold textarea, #opt_threshold input').disabled"
    )
    assert page.locator("#opt_lowercase input").is_disabled()
    ui.set_text(page, "opt_threshold", "0")
    ui.set_text(page, "preds", "cat")
    ui.set_text(page, "refs", "dog")
    ui.compute(page, "")
    assert "|thr:0|" in ui.get_text(page, "signature")
