"""The demos in a real browser (Debian's chromium through Playwright), used as a person uses them.

Every per-metric app (metrics/*/app.py) and the playground (spaces/playground/app.py) is served on
127.0.0.1 once per module; one Chromium serves the session. For each metric the table CASES says
what a person does: leave the pre-filled example and press Compute, or type inputs, pick a preset,
set an option and press Compute; the numbers shown (headline, per-example table) must equal the
module's own `compute` on the same inputs and preset, rounded as shown, and the signature shown must
be the module's. Every demo asks for the 95% bootstrap interval (`multimodal_metrics.demo.RESAMPLING`): a headline
number with an interval reads `value [low, high]`, equal to the module's `compute(...,
confidence=0.95, n_resamples=1000, seed=12345)` (fid_clip: 200 resamples, the module's default with FID). Garbage typed in (invalid JSON, wrong lengths, a bad option) must show a message
naming what is wrong. Screenshots go to .build/screenshots/. The cases: tests/_browser_cases.py; the other
browser tests by subject: test_browser_page.py (the result panel), test_browser_metrics.py (one
metric's own controls), test_browser_fid_clip.py. A browser that cannot start fails the
test: it is never skipped. Adding a metric = one entry in CASES (test_every_app_has_a_case checks).

    MM_DOCS_SCREENSHOT=1 bash scripts/test.sh tests/test_browser.py   # also refresh docs/playground.png
"""

import os
import re
from pathlib import Path

import _browser as ui
import pytest
from _browser import (
    DESKTOP,
    PAGE_SHOTS,
    PHONE,
    ROOT,
    SHOTS,
    VIEWPORTS,
    save_docs_screenshot,
    shot,
)
from _browser_cases import CASES, check_garbage, check_shown, do_run
from helpers import metric_names

APPS = [name for name in metric_names() if (ROOT / "metrics" / name / "app.py").is_file()]

pytest_plugins = ["_browser", "_browser_cases"]  # the fixtures browser, served, page, resources


def test_every_app_has_a_case():
    assert sorted(CASES) == sorted(APPS), "add the new metric's demo to CASES"


@pytest.mark.parametrize("name", [name for name in APPS if len(CASES[name].runs) > 1])
def test_metric_app_gives_the_module_numbers(page, served, resources, name):
    """The runs after the first (typed inputs, options set, a preset's example loaded); the first, the
    pre-filled example, is computed under every preset by tests/test_browser_presets.py."""
    _, url = served(name)
    res = resources(name)
    SHOTS.mkdir(parents=True, exist_ok=True)
    for i, run in enumerate(CASES[name].runs[1:], 1):
        page.goto(url)  # a fresh page: every option on "preset"
        do_run(page, run, res=res)
        check_shown(page, name, run, res=res)
        page.screenshot(path=str(SHOTS / f"{name}_{i}_{run.config}.png"), full_page=True)


@pytest.mark.parametrize("name", APPS)
def test_metric_app_names_what_is_wrong(page, served, name):
    _, url = served(name)
    for i, garbage in enumerate(CASES[name].garbage):
        page.goto(url)  # a fresh page: the message shown is this input's
        check_garbage(page, garbage)
        page.screenshot(path=str(SHOTS / f"{name}_error_{i}.png"))


def test_playground_every_tab(page, served, resources):
    """Every tab names what is wrong with its garbage; the first tab's example computed for the screenshot
    (every tab's example under every preset: tests/test_browser_presets.py)."""
    module, url = served("playground")
    page.goto(url)
    SHOTS.mkdir(parents=True, exist_ok=True)
    for name in module.NAMES:
        prefix = f"{name}_"
        page.get_by_role("tab", name=module.TITLES.get(name, name), exact=True).click()
        if name == module.NAMES[0]:
            run = CASES[name].runs[0]
            do_run(page, run, prefix, resources(name))
            check_shown(page, name, run, prefix, resources(name))
            page.screenshot(path=str(SHOTS / "playground.png"))
            if os.environ.get("MM_DOCS_SCREENSHOT"):
                save_docs_screenshot(SHOTS / "playground.png")
        check_garbage(page, CASES[name].garbage[0], prefix)
    page.screenshot(path=str(SHOTS / "playground_last_tab.png"), full_page=True)


def citation_of(name: str) -> str:
    """The BibTeX of the metric's card (its Citation section's code block)."""
    card = (ROOT / "metrics" / name / "README.md").read_text(encoding="utf-8")
    return re.search(r"^## Citation\s+```\w*\n(.*?)```", card, re.S | re.M)[1]


@VIEWPORTS
def test_playground_every_tab_reachable_with_card_and_citation(page, served, viewport):
    """Every tab can be reached and opened (also on a phone), and each shows a summary of the metric's
    card and its citation."""
    module, url = served("playground")
    page.set_viewport_size(viewport)
    page.goto(url)
    shot(page, f"playground_tabs_{viewport['width']}x{viewport['height']}", full_page=False)
    unreachable, missing = [], []
    for name in module.NAMES:
        tab = page.get_by_role("tab", name=module.TITLES.get(name, name), exact=True)
        if not tab.count() or not tab.first.is_visible():
            unreachable.append(name)
            continue
        tab.first.click()
        page.locator(f"#{name}_go").wait_for(state="visible")
        about = page.locator(f"#{name}_about")
        if not about.count() or not about.is_visible():
            missing.append((name, "no card summary"))
            continue
        page.locator(f"#{name}_citation").click()
        first = citation_of(name).splitlines()[0]
        try:
            page.locator(f"#{name}_citation").get_by_text(first, exact=False).first.wait_for(
                state="visible", timeout=15_000
            )
        except Exception:  # noqa: BLE001 - a Playwright timeout: the citation is not shown
            missing.append((name, "no citation"))
    shot(page, f"playground_last_tab_{viewport['width']}x{viewport['height']}", full_page=False)
    assert not unreachable and not missing, (unreachable, missing)


def test_playground_address_opens_and_follows_the_tab(page, served):
    """`?tab=ned` opens the 1 - NED tab; choosing another tab puts its name in the address."""
    module, url = served("playground")
    page.set_viewport_size(PHONE)
    page.goto(f"{url}?tab=ned")
    page.locator("#ned_go").wait_for(state="visible", timeout=15_000)
    assert (
        page.get_by_role("tab", name=module.TITLES["ned"], exact=True).get_attribute("aria-selected")
        == "true"
    )
    shot(page, "playground_tab_ned_390x844", full_page=False)
    page.get_by_role("tab", name=module.TITLES["codebleu"], exact=True).click()
    page.wait_for_function("() => location.search === '?tab=codebleu'", timeout=15_000)


def test_each_page_shows_only_its_own_warnings(browser, served, monkeypatch):
    """The playground in two pages at once: codebleu with weights that sum to 2 (a warning) computes
    while anls computes clean input (held so that the two overlap, codebleu's block opened first): the
    anls page shows no warning, the codebleu page its own (anls showed codebleu's warning before)."""
    import threading

    from multimodal_metrics.demo import loading

    module, url = served("playground")
    anls_started, codebleu_done = threading.Event(), threading.Event()
    real = loading.load_metric  # every page scores through it

    class Held:
        def __init__(self, metric, before, after):
            self.metric, self.before, self.after = metric, before, after

        def compute(self, **kwargs):
            self.before()
            try:
                return self.metric.compute(**kwargs)
            finally:
                self.after()

    def held_load(script, preset):
        metric = real(script, preset)
        if Path(script).stem == "codebleu":
            return Held(metric, lambda: anls_started.wait(60), codebleu_done.set)
        if Path(script).stem == "anls":
            return Held(metric, lambda: (anls_started.set(), codebleu_done.wait(60)), lambda: None)
        return metric

    monkeypatch.setattr(loading, "load_metric", held_load)
    pages = [browser.new_context(viewport=DESKTOP).new_page() for _ in range(2)]
    try:
        for tab, page in zip(("codebleu", "anls"), pages):
            page.set_default_timeout(ui.TIMEOUT_MS)
            page.goto(f"{url}?tab={tab}")
            page.get_by_role("tab", name=module.TITLES[tab], exact=True).click()
            page.locator(f"#{tab}_go").wait_for(state="visible")
        ui.set_text(pages[0], "codebleu_opt_weights", "0.5,0.5,0.5,0.5")
        for tab, page in zip(("codebleu", "anls"), pages):
            page.locator(f"#{tab}_go").click()
        for tab, page in zip(("codebleu", "anls"), pages):
            page.wait_for_function(
                f"() => /example\\(s\\)/.test(document.querySelector('#{tab}_headline').innerText)"
            )
        texts = [ui.headline_text(page, f"{tab}_") for tab, page in zip(("codebleu", "anls"), pages)]
        pages[1].screenshot(path=str(PAGE_SHOTS / "playground_anls_beside_codebleu.png"))
    finally:
        for page in pages:
            page.context.close()
    assert "sum to 2" in texts[0], texts[0]
    assert "Warnings" not in texts[1] and "sum to 2" not in texts[1], texts[1]
