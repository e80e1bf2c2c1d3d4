"""The result panel in a real browser, whatever the metric: the current run and its message, the metric's
warnings, bounded heights, the interval on one line, the score column and histogram on a phone, a second
Compute while one runs, large inputs, paired boxes, table headers, the keyboard (fixtures: tests/_browser.py).
"""

import re

import _browser as ui
import pytest
from _browser import DESKTOP, PHONE, VIEWPORTS, error_badges, shot
from _browser_cases import CASES, CI
from helpers import load_metric

from multimodal_metrics.demo import fmt  # the rounding the page shows

pytest_plugins = ["_browser", "_browser_cases"]  # the fixtures browser, served, page, resources


def test_page_shows_the_current_run_and_keeps_the_message(page, served):
    """anls: the example (5 bars' worth), then two examples: the bars drawn add up to 2, not to the
    previous run's 5; then unequal line counts: the message is still on the page 15 s later and the
    previous headline and bars are gone."""
    ui.open_page(page, served, "anls")
    ui.compute(page, "")
    assert sum(ui.wait_for_bars(page, "", 5)) == 5
    ui.set_text(page, "preds", "a\nb")
    ui.set_text(page, "refs", "a\nx")
    ui.compute(page, "")
    shown = ui.headline_text(page, "")
    assert "0.5 [0, 1]" in shown and "2 example(s)" in shown, shown
    bars = ui.wait_for_bars(page, "", 2)
    shot(page, "anls_second_run")
    wrong = [] if sum(bars) == 2 else [f"the histogram shows {bars} for a run of 2 examples"]
    ui.set_text(page, "preds", "a\nb\nc")
    page.locator("#go").click()
    message = page.get_by_text(re.compile(r"has 3 examples but")).first
    message.wait_for(state="visible")
    page.wait_for_timeout(15_000)
    shot(page, "anls_error_after_15s")
    if not message.is_visible():
        wrong.append("the error message left the page")
    if "0.5 [0, 1]" in ui.headline_text(page, ""):
        wrong.append("the previous headline is still shown beside the error")
    if sum(ui.histogram_bars(page, "")):
        wrong.append("the previous histogram is still shown beside the error")
    assert not wrong, wrong


def test_page_shows_the_metric_warnings(page, served):
    """codebleu: Python code scored as Java parses with errors; the library's warning is on the page."""
    ui.open_page(page, served, "codebleu")
    ui.pick(page, "opt_lang", "java")
    ui.compute(page, "")
    shot(page, "codebleu_warning")
    assert page.locator("#headline").get_by_text(re.compile("do not parse cleanly as java")).count(), (
        ui.headline_text(page, "")
    )


@pytest.mark.parametrize(("name", "box"), [("anls", "preds"), ("codebleu", "preds"), ("det_f1", "refs")])
def test_page_height_is_bounded_for_long_inputs(page, served, name, box):
    """5,000 lines pasted into an input: the box scrolls, the page stays short, Compute stays near the top."""
    _, url = served(name)
    page.set_viewport_size(DESKTOP)
    page.goto(url)
    before = ui.page_height(page)
    ui.set_text(page, box, "\n".join(f'"line {i}": {{"cat": [[0, 0, {i}, 5]]}},' for i in range(5000)))
    page.wait_for_timeout(500)
    height, go = ui.page_height(page), page.locator("#go").bounding_box()
    shot(page, f"{name}_5000_lines", full_page=False)
    assert height < before + 1200 and go["y"] < 2500, (before, height, go)


def test_typed_inputs_survive_a_preset_change(page, served):
    """vqa_acc: inputs typed, then another preset picked: the typed text stays; the preset's example
    comes only from the explicit button."""
    module, url = served("vqa_acc")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
    ui.set_text(page, "preds", "yes\nno")
    ui.set_text(page, "refs", "yes\nyes")
    ui.pick(page, "preset", "wups")
    page.wait_for_timeout(1000)
    shot(page, "vqa_acc_preset_changed", full_page=False)
    assert (ui.get_text(page, "preds"), ui.get_text(page, "refs")) == ("yes\nno", "yes\nyes")
    page.locator("#load_example").click()
    page.wait_for_function("() => document.querySelector('#preds textarea').value.startsWith('cat')")
    assert ui.get_text(page, "preds") == module.EXAMPLES["wups"][0]


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x800", "390x844"])
def test_primary_number_reads_on_one_line(page, served, viewport):
    """vqa_acc's example (6 numbers): the primary number and its interval are drawn on one line."""
    _, url = served("vqa_acc")
    page.set_viewport_size(viewport)
    page.goto(url)
    ui.compute(page, "")
    expected = load_metric("vqa_acc", "default").compute(**CASES["vqa_acc"].runs[0].compute, **CI)
    key = next(k for k, v in expected.items() if isinstance(v, float))
    text = f"{fmt(expected[key])} [{fmt(expected[key + '_ci_low'])}, {fmt(expected[key + '_ci_high'])}]"
    page.locator("#headline").scroll_into_view_if_needed()
    shot(page, f"vqa_acc_headline_{viewport['width']}x{viewport['height']}", full_page=False)
    assert ui.lines_of(page, "", text) == 1, (text, ui.headline_text(page, ""))


@VIEWPORTS
@pytest.mark.parametrize("name", ["vqa_acc", "ru_meteor", "codebleu"])
def test_score_column_is_on_screen(page, served, name, viewport):
    """The example computed: the per-example score column is drawn inside the table's visible box and
    inside the window (not behind a horizontal scroll of long input columns)."""
    _, url = served(name)
    page.set_viewport_size(viewport)
    page.goto(url)
    if name == "ru_meteor":  # its preset's RuWordNet may be missing here: the sources that run anywhere
        ui.pick(page, "opt_synonyms", "none")
    ui.compute(page, "")
    score = next(iter(ui.read_headline(page, "")))
    page.locator("#table").scroll_into_view_if_needed()
    shot(page, f"{name}_table_{viewport['width']}x{viewport['height']}", full_page=False)
    box = ui.column_header_box(page, "", score)
    assert box is not None, (score, ui.read_table(page, "")[0])
    inside = (
        box["x"] >= box["table_left"] - 1 and box["right"] <= min(box["table_right"], viewport["width"]) + 1
    )
    assert inside, (score, box, viewport)


def test_histogram_reads_on_a_phone(page, served):
    """anls's example at 390x844: the bins' labels do not run together and the count axis shows whole
    examples only."""
    _, url = served("anls")
    page.set_viewport_size(PHONE)
    page.goto(url)
    ui.compute(page, "")
    assert sum(ui.wait_for_bars(page, "", 5)) == 5
    page.locator("#histogram").scroll_into_view_if_needed()
    shot(page, "anls_histogram_390x844", full_page=False)
    x, y = ui.axis_labels(page, "", "x"), ui.axis_labels(page, "", "y")
    assert len(x) == 10 and y, (x, y)
    assert not ui.overlapping(x), ui.overlapping(x)
    halves = [t["text"] for t in y if not re.fullmatch(r"\d+", t["text"].replace(",", ""))]
    assert not halves, [t["text"] for t in y]


def test_bar_without_spaces_is_explained(page, served):
    """anls: `a|b` (no spaces) is one reference; the page says so (the numbers stay those of one reference)."""
    ui.open_page(page, served, "anls")
    page.locator("#go").wait_for(state="visible")
    assert re.search(r"without spaces", page.locator("body").inner_text()), "the help text does not say it"
    ui.set_text(page, "preds", "b")
    ui.set_text(page, "refs", "a|b")
    ui.compute(page, "")
    shot(page, "anls_bar_without_spaces", full_page=False)
    text = ui.headline_text(page, "")
    assert text.startswith("anls: 0 ") and re.search(r"references.*example 0.*\|.*one reference", text), text


def test_deeply_nested_json_is_a_message(page, served):
    """The playground's anls tab given JSON nested 100,000 deep: a message saying so (a bare "Error" before)."""
    ui.open_page(page, served, "playground")
    ui.set_text(page, "anls_preds", "[" * 100_000 + "]" * 100_000)
    message = ui.error_after_compute(page, "anls_")
    shot(page, "playground_deep_json", full_page=False)
    assert re.search(r"predictions is nested too deeply", message), message
    assert not error_badges(page)


def _anls_with_60_000_lines(page, served) -> None:
    """anls's page at desktop size with the same 60,000 lines typed as predictions and as references."""
    ui.open_page(page, served, "anls")
    lines = "\n".join(f"answer {i}" for i in range(60_000))
    ui.set_text(page, "preds", lines)
    ui.set_text(page, "refs", lines)


def test_a_second_compute_while_one_runs_scores_the_new_inputs(page, served):
    """anls: Compute on 60,000 lines, then at once two lines typed and Compute again: the page ends on the
    two lines' result and never shows the 60,000 lines' result beside them (the second press was
    dropped: "60000 example(s)" stayed beside boxes holding two lines)."""
    _anls_with_60_000_lines(page, served)
    page.locator("#go").click()
    page.locator("#headline [data-testid=status-tracker]:not(.hide)").wait_for(state="attached")  # computing
    ui.set_text(page, "preds", "ab\nhello")
    ui.set_text(page, "refs", "ab\nhallo")
    page.evaluate(  # from the second press on: what the headline shows
        """() => { window.mmSeen = [];
            document.addEventListener('click', () => { window.mmPressed = true; }, true);
            const seen = () => [...document.querySelectorAll('#headline p, #headline strong')]
                .filter(e => e.checkVisibility({visibilityProperty: true})).map(e => e.innerText).join(' ');
            new MutationObserver(() => window.mmPressed && window.mmSeen.push(seen()))
                .observe(document.querySelector('#headline'), {subtree: true, childList: true, characterData: true, attributes: true}); }"""
    )
    page.locator("#go").click()
    page.wait_for_function(
        "() => /2 example\\(s\\)/.test(document.querySelector('#headline').innerText)", timeout=ui.TIMEOUT_MS
    )
    page.wait_for_timeout(3000)
    shot(page, "anls_second_press", full_page=False)
    seen = page.evaluate("() => window.mmSeen")
    assert not [t for t in seen if "60000 example" in t], (
        "the 60,000 lines' result was shown after the second press"
    )
    expected = load_metric("anls", "default").compute(predictions=["ab", "hello"], references=["ab", "hallo"])
    assert ui.read_headline(page, "")["anls"].startswith(fmt(expected["anls"])), ui.headline_text(page, "")
    assert "2 example(s)" in ui.headline_text(page, "")


def test_sixty_thousand_lines_keep_the_page_responsive(page, served):
    """anls on 60,000 lines: the table shows the first 1,000 rows and says so, a CSV file holds every row,
    the histogram counts all 60,000, and no task blocks the page for 3 s while the result is drawn (it
    was 8.4 s: the whole table rendered)."""
    import csv

    _anls_with_60_000_lines(page, served)
    page.evaluate(
        """() => { window.mmLong = [];
            new PerformanceObserver(list => list.getEntries().forEach(e => window.mmLong.push(e.duration)))
                .observe({type: 'longtask'}); }"""
    )
    ui.compute(page, "")
    ui.settled(page)
    longest = max(page.evaluate("() => window.mmLong"), default=0)
    shot(page, "anls_60000_lines", full_page=False)
    text = ui.headline_text(page, "")
    assert re.search(r"60000 example\(s\).*first 1000.*CSV", text, re.S), text
    assert len(ui.read_table(page, "")[1]) <= 1000
    assert sum(ui.wait_for_bars(page, "", 60_000)) == 60_000
    download = page.locator("#download a[download], #download a").first
    download.wait_for(state="attached")
    with page.expect_download() as got:
        download.click()
    with open(got.value.path(), newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0][:2] == ["#", "anls"] and len(rows) == 60_001 and rows[-1][0] == "59999", rows[:2]
    assert longest < 3000, f"a task blocked the page for {longest:.0f} ms"


@VIEWPORTS
def test_paired_boxes_keep_their_lines_side_by_side(page, served, viewport):
    """text_qa (and every paired box): a long line does not wrap, so line n of the predictions faces line
    n of the references (the long line wrapped before, the boxes went out of step), also on a phone."""
    _, url = served("text_qa")
    page.set_viewport_size(viewport)
    page.goto(url)
    long_line = "улица Авиаконструктора Сухого дом семнадцать корпус три строение один подъезд два"
    ui.set_text(page, "preds", f"{long_line}\nтри кота\nжёлтого")
    ui.set_text(page, "refs", "Авиаконструктора Сухого\n3 кота\nжелтый")
    shot(page, f"text_qa_long_line_{viewport['width']}x{viewport['height']}", full_page=False)
    content = "e => { const h = e.style.height; e.style.height = '0px'; const s = e.scrollHeight; e.style.height = h; return s; }"
    heights = [
        page.locator(f"#{box} textarea").evaluate(content) for box in ("preds", "refs")
    ]  # the lines' height
    wide = page.locator("#preds textarea").evaluate("e => e.scrollWidth > e.clientWidth")
    assert heights[0] == heights[1] and wide, (heights, wide)


@VIEWPORTS
def test_table_headers_read_whole(page, served, viewport):
    """codebleu: before a result no table with "1 2 3" headers; after it, each column header is drawn on
    one line ("syntax_match" was broken mid-word on a phone)."""
    _, url = served("codebleu")
    page.set_viewport_size(viewport)
    page.goto(url)
    page.locator("#go").wait_for(state="visible")
    assert not page.locator("#table").is_visible(), "an empty table is shown before any result"
    assert "One Compute reads at most 10,000,000 characters" in ui.headline_text(page, "")
    ui.compute(page, "")
    page.locator("#table").scroll_into_view_if_needed()
    shot(page, f"codebleu_headers_{viewport['width']}x{viewport['height']}", full_page=False)
    broken = page.evaluate(
        """() => [...document.querySelectorAll('#table [role=columnheader] .header')].map(h => {
            const range = document.createRange(); range.selectNodeContents(h);
            const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
            return [h.innerText.trim(), tops.size]; }).filter(([text, lines]) => text && lines > 1)"""
    )
    assert not broken, broken


def test_input_over_the_cap_is_refused_with_the_cap(page, served):
    """anls: more than 10 million characters: the page says how many it got and what it reads, at once."""
    ui.open_page(page, served, "anls")
    ui.set_text(page, "preds", "\n".join("x" * 100 for _ in range(110_000)))
    message = ui.error_after_compute(page, "")
    assert re.search(r"holds 11,\d{3},\d{3} characters; one Compute reads at most 10,000,000", message), (
        message
    )


@pytest.mark.parametrize(("name", "boxes"), [("det_f1", ("refs", "preds")), ("codebleu", ("preds", "refs"))])
def test_keyboard_moves_through_every_box(page, served, name, boxes):
    """Tab leaves the code boxes of det_f1 and codebleu without changing their text (it indented the text
    and never left), each box is named by what it holds, and dropdowns tabbed through are closed after
    Compute (their lists stayed open over the labels)."""
    _, url = served(name)
    page.set_viewport_size(DESKTOP)
    page.goto(url)
    first = page.locator(f"#{boxes[0]} textarea, #{boxes[0]} .cm-content").first
    before = ui.get_text(page, boxes[0])
    first.focus()
    page.keyboard.press("Tab")
    inside = page.evaluate(f"() => !!document.activeElement.closest('#{boxes[0]}')")
    assert not inside and ui.get_text(page, boxes[0]) == before, "Tab stayed in the box or changed its text"
    for box in boxes:
        label = (
            page.locator(f"#{box} [data-testid=block-label], #{box} label span").first.inner_text().strip()
        )
        assert page.get_by_role("textbox", name=label, exact=True).count() == 1, (box, label)
    page.locator("#preset input").focus()
    for _ in range(12):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.closest('#go') !== null"):
            break
    page.keyboard.press("Enter")
    page.locator("#headline strong").first.wait_for(state="visible", timeout=ui.TIMEOUT_MS)
    ui.settled(page)
    shot(page, f"{name}_after_keyboard", full_page=False)
    assert not [e for e in page.get_by_role("listbox").all() if e.is_visible()], "a dropdown list stayed open"


def test_enter_on_a_dropdown_option_keeps_the_focus_on_the_dropdown(page, served):
    """anls, keyboard only: the preset dropdown focused, ArrowDown, Enter: the option is chosen, the list
    closes and the focus stays on the dropdown with its ring drawn (it went to <body>, no ring); a click
    on it opens the list again."""
    ui.open_page(page, served, "anls")
    ring = "i => { const s = getComputedStyle(i.closest('.wrap')); return [s.borderColor, s.boxShadow]; }"
    unfocused = page.locator("#preset input").evaluate(ring)
    page.locator("#preset input").focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('#preset input').value === 'stvqa'")
    page.wait_for_timeout(300)  # Gradio's blur, then the page's refocus
    shot(page, "anls_preset_after_enter", full_page=False)
    focused = page.evaluate(
        "() => [document.activeElement.closest('[id]')?.id, document.activeElement.matches(':focus-visible')]"
    )
    assert focused == ["preset", True], focused
    assert not [e for e in page.get_by_role("listbox").all() if e.is_visible()], "the list stayed open"
    assert page.locator("#preset input").evaluate(ring) != unfocused, "no focus ring drawn"
    page.locator("#preset input").click()
    page.get_by_role("option", name="default", exact=True).wait_for(state="visible")


def test_a_preset_change_marks_the_result_outdated_until_the_next_compute(page, served):
    """anls: a result, then another preset picked: the result is dimmed and a line (a status for screen
    readers) says it was computed before the change; Compute: the new result, unmarked."""
    ui.open_page(page, served, "anls")
    ui.compute(page, "")
    note = page.locator("#headline .mm-outdated-note")
    assert not note.count()
    ui.pick(page, "preset", "stvqa")
    note.wait_for(state="visible")
    shot(page, "anls_outdated_after_preset_change", full_page=False)
    assert note.get_attribute("role") == "status" and "changed to stvqa" in note.inner_text(), (
        note.inner_text()
    )
    drawn = "e => { let o = 1; for (let n = e; n; n = n.parentElement) o *= +getComputedStyle(n).opacity; return o; }"
    for element in ("#headline strong", "#signature textarea", "#histogram .mm-bar"):
        assert page.locator(element).first.evaluate(drawn) < 0.5, element
    assert note.evaluate(drawn) == 1
    ui.compute(page, "")
    assert not note.count() and "|preset:stvqa|" in ui.get_text(page, "signature")
    page.wait_for_function(
        f"() => ({drawn})(document.querySelector('#headline strong')) === 1", timeout=5_000
    )


def test_paired_boxes_sit_level_and_take_a_phone_s_width(page, served):
    """Paired input boxes: side by side at desktop size, their text areas level on every page (vqa_acc's
    long label pushed its box 20 px below its neighbour, codebleu's too); on a phone one above the other,
    each nearly the screen's width (two boxes of about 140 px cut long answers before)."""
    from helpers import metric_names

    uneven, narrow = {}, {}
    for viewport, names in ((DESKTOP, metric_names()), (PHONE, ["text_qa", "vqa_acc"])):
        page.set_viewport_size(viewport)
        for name in names:
            module, url = served(name)
            page.goto(url)
            page.locator("#go").wait_for(state="visible")
            for row in (r for r in module.DEMO.rows if len(r) > 1):
                boxes = [page.locator(f"#{box.name} textarea").bounding_box() for box in row]
                if viewport is DESKTOP and max(b["y"] for b in boxes) - min(b["y"] for b in boxes) > 1:
                    uneven[name] = boxes
                if viewport is PHONE and min(b["width"] for b in boxes) < 0.7 * PHONE["width"]:
                    narrow[name] = boxes
    shot(page, "vqa_acc_boxes_390x844")
    assert not uneven and not narrow, (uneven, narrow)
