"""The demos in a real browser (Debian's chromium through Playwright), used as a person uses them.

Every per-metric app (metrics/*/app.py) and the playground (spaces/playground/app.py) is served on
127.0.0.1 once per module; one Chromium serves the session. For each metric the table CASES says
what a person does: leave the pre-filled example and press Compute, or type inputs, pick a preset,
set an option and press Compute; the numbers shown (headline, per-example table) must equal the
module's own `compute` on the same inputs and preset, rounded as shown, and the signature shown must
be the module's. Every demo asks for the 95% bootstrap interval (`_mm_demo.CONFIDENCE`): a headline
number with an interval reads `value [low, high]`, equal to the module's `compute(...,
confidence=0.95, n_resamples=1000, seed=12345)` (fid_clip: 200 resamples, the module's default with FID). Garbage typed in (invalid JSON, wrong lengths, a bad option) must show a message
naming what is wrong. Screenshots go to .build/screenshots/. A browser that cannot start fails the
test: it is never skipped. Adding a metric = one entry in CASES (test_every_app_has_a_case checks).

    MM_DOCS_SCREENSHOT=1 bash scripts/test.sh tests/test_browser.py   # also refresh docs/playground.png
"""

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import _browser as ui
import pytest
from helpers import ROOT, load_metric, metric_names

SHOTS = ROOT / ".build" / "screenshots"
APPS = [name for name in metric_names() if (ROOT / "metrics" / name / "app.py").is_file()]


@dataclass
class Run:
    """One use of a demo: what the person does, and the module call that must give the same numbers."""

    config: str  # the preset picked in the page (evaluate.load's config_name)
    compute: dict | Callable  # the module's own compute(**compute) on the same inputs (or resources -> dict)
    typed: dict = field(default_factory=dict)  # elem_id suffix -> text typed (none: the pre-filled example)
    options: dict = field(default_factory=dict)  # elem_id suffix -> choice picked / text typed
    signature_has: tuple = ()  # parts the signature shown must hold (what "left on preset" resolved to)
    files: dict = field(default_factory=dict)  # elem_id suffix -> resource key of the files uploaded
    intervals: tuple = ()  # headline keys that must show their bootstrap interval `value [low, high]`
    clicks: tuple = ()  # elem_id suffixes of buttons clicked after the preset is picked


@dataclass
class Garbage:
    """Bad input typed in, and what the message shown must say (a regex)."""

    typed: dict
    message: str
    options: dict = field(default_factory=dict)


@dataclass
class Case:
    runs: list  # the first run is the pre-filled example, untouched (where the demo has one)
    garbage: list
    score: str | None = None  # the per-example score's name when it is not the primary key
    resources: Callable | None = None  # folder -> {key: path or paths}, formatted into typed/options as {key}
    ci: dict | None = None  # the resampling the demo asks for, when not CI (fid_clip: FID's 200 resamples)
    ci_signature: str | None = None  # its signature fields, when not CI_SIGNATURE


def fid_clip_resources(folder: Path) -> dict:
    """Tiny random FID Inception weights and CLIP checkpoint (the real loading code reads them), and
    three generated and three real images: everything offline."""
    from _fid_clip_fixtures import random_images, tiny_hf_clip, tiny_inception_weights
    from helpers import load_core
    from PIL import Image

    weights = tiny_inception_weights(load_core("fid_clip", "_inception"), folder)
    tiny_hf_clip(folder / "clip-tiny")
    images = {}
    for side, seed, size in (("gen", 20, (32, 32)), ("real", 21, (30, 30))):
        images[side] = []
        for i, pixels in enumerate(random_images(3, seed=seed, size=size)):
            path = folder / f"{side}{i}.png"
            Image.fromarray(pixels).save(path)
            images[side].append(str(path))
    return {"inception": str(weights), "clip": str(folder / "clip-tiny"), **images}


NOT_JSON = '["a", "b"'
# codebleu's pre-filled example: four pairs (a single pair has a point interval and a one-bar histogram)
CODEBLEU_PAIRS = (
    [
        "def add(a, b):\n    return a + b\n",
        "def is_even(n):\n    return n % 2 == 0\n",
        "def maximum(xs):\n    best = xs[0]\n    for x in xs:\n        if x > best:\n            best = x\n    return best\n",
        'def greet(name):\n    print("Hello " + name)\n',
    ],
    [
        "def sum(first, second):\n    return second + first\n",
        "def even(x):\n    return x % 2 == 0\n",
        "def largest(values):\n    result = values[0]\n    for v in values[1:]:\n        if v > result:\n"
        "            result = v\n    return result\n",
        'def greet(name):\n    return f"Hello, {name}!"\n',
    ],
)
CI = {"confidence": 0.95, "n_resamples": 1000, "seed": 12345}  # what the demos ask (the module's defaults)
CI_SIGNATURE = "|ci:bs-pct|conf:0.95|bs:1000|seed:12345|"
CASES = {
    "anls": Case(
        runs=[
            Run(
                "default",
                {
                    "predictions": ["hello world", "reciept", "ac", "12.0", " new york "],
                    "references": ["Hello World", "receipt", "ab", ["$12.00", "12"], "new  york"],
                },
                signature_has=("thr:0.5", "bound:inclusive", "len:raw_upper"),
                intervals=("anls",),
            ),
            Run(
                "stvqa",
                {"predictions": ["ac", "hello"], "references": ["ab", ["hallo", "hello"]], "threshold": 0.4},
                typed={"preds": "ac\nhello", "refs": "ab\nhallo | hello"},
                options={"opt_threshold": "0.4"},
                signature_has=("preset:stvqa", "thr:0.4"),
                intervals=("anls",),
            ),
        ],
        garbage=[
            Garbage({"preds": NOT_JSON}, r"`predictions` is not valid JSON"),
            Garbage({"preds": "a\nb", "refs": "a"}, r"`predictions` has 2 examples but `references` has 1"),
            Garbage(
                {"preds": "a", "refs": "a"}, r"`threshold` must be a number.*'abc'", {"opt_threshold": "abc"}
            ),
        ],
    ),
    "ned": Case(
        runs=[
            Run(
                "default",
                {
                    "predictions": ["хоп", "abce", "Hello", "ＡＢＣ"],
                    "references": ["хор", ["abcd", "abce"], "hello", "ABC"],
                },
                signature_has=("case:none", "fw2hw:no"),
                intervals=("one_minus_ned",),
            ),
            Run(
                "icdar2019",
                {"predictions": ["ABC", "Straße"], "references": ["abc", "STRASSE"], "case_fold": "none"},
                typed={"preds": "ABC\nStraße", "refs": "abc\nSTRASSE"},
                options={"opt_case_fold": "none"},
                signature_has=("preset:icdar2019", "case:none"),
            ),
        ],
        garbage=[
            Garbage({"refs": NOT_JSON}, r"`references` is not valid JSON"),
            Garbage(
                {"preds": "a\nb\nc", "refs": "a"}, r"`predictions` has 3 examples but `references` has 1"
            ),
        ],
    ),
    "text_qa": Case(
        runs=[
            Run(
                "default",
                {
                    "predictions": [
                        "На 0.3 секунды",
                        "улица Авиаконструктора Сухого",
                        "три кота",
                        "ответ: b",
                        "жёлтого",
                    ],
                    "references": [
                        "на 0,3 секунды",
                        "Авиаконструктора Сухого",
                        "3 кота",
                        ["a", "b на лошади"],
                        "желтый",
                    ],
                },
                signature_has=("measure:f1", "hyphen:no", "fallback:yes"),
            ),
            Run(
                "mathqa",
                {"predictions": ["d) -3", "3"], "references": ["d -3", "-3"]},
                typed={"preds": "d) -3\n3", "refs": "d -3\n-3"},
                signature_has=("preset:mathqa", "measure:exact_match"),
            ),
        ],
        garbage=[
            Garbage({"preds": NOT_JSON}, r"`predictions` is not valid JSON"),
            Garbage({"preds": "a", "refs": "a\nb"}, r"`predictions` has 1 examples but `references` has 2"),
        ],
    ),
    "vqa_acc": Case(
        runs=[
            Run(
                "default",
                {
                    "predictions": ["2", "red", "two", "A dog."],
                    "references": [
                        ["two", "two", "two", "2", "2", "2", "three", "three", "three", "three"],
                        ["red"] + ["blue"] * 9,
                        ["2"] * 10,
                        ["dog"] * 5 + ["a dog"] * 5,
                    ],
                    "question_types": ["how many", "what color is the", "how many", "what animal is"],
                    "answer_types": ["number", "other", "number", "other"],
                },
                signature_has=("norm:official", "answers:10"),
            ),
            Run(
                "wups",
                {
                    "predictions": ["cat", "table, chair"],
                    "references": ["dog", "chair,table"],
                    "threshold": 0.0,
                },
                typed={"preds": "cat\ntable, chair", "refs": "dog\nchair,table"},
                options={"opt_threshold": "0"},
                signature_has=("preset:wups", "thr:0", "wn:3.0"),
            ),
            Run(  # the preset's example, loaded by its button
                "tdiuc",
                {
                    "predictions": ["red", "red", "red", "red", "2", "2"],
                    "references": ["red", "red", "red", "blue", "2", "3"],
                    "question_types": ["color"] * 4 + ["counting"] * 2,
                },
                signature_has=("preset:tdiuc",),
                clicks=("load_example",),
            ),
        ],
        garbage=[
            Garbage(
                {"preds": "a", "refs": "a"},
                r"`num_answers` must be a whole number.*'2\.5'",
                {"opt_num_answers": "2.5"},
            ),
            Garbage({"preds": NOT_JSON}, r"`predictions` is not valid JSON"),
        ],
    ),
    "det_f1": Case(
        runs=[
            Run(
                "default",
                {
                    "references": [
                        {"cat": [[20, 20, 100, 80], [200, 40, 60, 60], [300, 150, 80, 60]], "dog": []},
                        {"a red chair": [[40, 60, 120, 140]], "a lamp": [[250, 30, 40, 120]]},
                    ],
                    "predictions": [
                        {
                            "cat": [[22, 18, 100, 80], [25, 25, 95, 80], [18, 22, 100, 78]],
                            "dog": [[200, 40, 60, 60]],
                        },
                        {
                            "a red chair": [[60, 90, 120, 140]],
                            "a lamp": [[250, 30, 40, 120], [320, 200, 30, 30]],
                        },
                    ],
                },
                signature_has=("match:any", "iou:0.5", "fmt:xywh"),
                intervals=("f1", "precision", "recall"),
            ),
            Run(
                "one_to_one",
                {
                    "references": [{"cat": [[0, 0, 10, 10]]}, {"cat": [[0, 0, 10, 10]], "dog": []}],
                    "predictions": [
                        {"cat": [[1, 1, 10, 10], [0, 0, 10, 10]]},
                        {"cat": [[4, 4, 10, 10]], "dog": []},
                    ],
                    "iou_threshold": 0.3,
                },
                typed={
                    "refs": '[{"cat": [[0, 0, 10, 10]]}, {"cat": [[0, 0, 10, 10]], "dog": []}]',
                    "preds": '[{"cat": [[1, 1, 10, 10], [0, 0, 10, 10]]}, {"cat": [[4, 4, 10, 10]], "dog": []}]',
                },
                options={"opt_iou_threshold": "0.3"},
                signature_has=("preset:one_to_one", "match:one_to_one", "iou:0.3"),
                intervals=("f1",),
            ),
        ],
        garbage=[
            Garbage({"refs": ""}, r"`references` is empty: paste"),
            Garbage({"preds": '{"a.jpg": {"cat": [[0, 0, 1, 1]]'}, r"`predictions` is not valid JSON"),
            Garbage(
                {"refs": '[{"cat": [[0, 0, 5, 5]]}]', "preds": '[{"cat": [[0, 0, -1, 5]]}]'},
                r"predictions.*0",
            ),
        ],
    ),
    "codebleu": Case(
        runs=[
            Run(
                "default",
                {"predictions": CODEBLEU_PAIRS[0], "references": CODEBLEU_PAIRS[1], "lang": "python"},
                signature_has=("lang:python", "w:0.25,0.25,0.25,0.25"),
            ),
            Run(
                "pypi",
                {
                    "predictions": ["int f(int x) { return x + 1; }"],
                    "references": ["int g(int y) { return y + 1; }"],
                    "lang": "java",
                    "weights": [0.1, 0.1, 0.4, 0.4],
                },
                typed={"preds": "int f(int x) { return x + 1; }", "refs": "int g(int y) { return y + 1; }"},
                options={"lang": "java", "opt_weights": "0.1,0.1,0.4,0.4"},
                signature_has=("preset:pypi", "lang:java", "w:0.1,0.1,0.4,0.4"),
            ),
        ],
        garbage=[Garbage({}, r"`weights`", {"opt_weights": "1,2"})],
    ),
    "ru_meteor": Case(
        runs=[
            Run(
                "captioning",
                {
                    "predictions": [
                        "две птицы летали над водою",
                        "над водой летают две птицы",
                        "кошка спит на диване",
                    ],
                    "references": [
                        ["две птицы летают над водой", "птицы над озером"],
                        "две птицы летают над водой",
                        "кот спит на диване",
                    ],
                    "synonyms": "none",
                },
                signature_has=("preset:captioning", "syn:none"),
            ),
            Run(
                "nltk",
                {
                    "predictions": ["a sofa", "the cat sat"],
                    "references": ["a couch", "the cat sat"],
                    "synonyms": "none",
                },
                typed={"preds": "a sofa\nthe cat sat", "refs": "a couch\nthe cat sat"},
                signature_has=("preset:nltk", "syn:none"),
            ),
            Run(  # WordNet synonyms in the page: NLTK's corpus or Debian's wordnet-base (the Space's packages.txt)
                "nltk",
                {
                    "predictions": ["a sofa", "the cat sat"],
                    "references": ["a couch", "the cat sat"],
                    "synonyms": "wordnet",
                },
                typed={"preds": "a sofa\nthe cat sat", "refs": "a couch\nthe cat sat"},
                options={"opt_synonyms": "wordnet"},
                signature_has=("preset:nltk", "syn:wordnet"),
            ),
        ],
        garbage=[
            Garbage({"preds": "a\nb", "refs": "a"}, r"`predictions` has 2 examples but `references` has 1"),
            Garbage({"preds": NOT_JSON}, r"`predictions` is not valid JSON"),
        ],
    ),
    "fid_clip": Case(
        runs=[
            Run(
                "default",
                lambda res: {
                    "predictions": res["gen"],
                    "references": res["real"],
                    "texts": ["a cat", "a dog", "cat dog"],
                    "inception_weights": res["inception"],
                    "clip_model": res["clip"],
                },
                files={"gen": "gen", "real": "real"},
                typed={"prompts": "a cat\na dog\ncat dog"},
                options={"opt_inception_weights": "{inception}", "opt_clip_model": "{clip}"},
            ),
        ],
        garbage=[
            Garbage(
                {"prompts": "a cat"}, r"`pre_resize` must be a whole number.*'1.5'", {"opt_pre_resize": "1.5"}
            ),
            Garbage({"prompts": "a cat"}, r"upload the generated images", {"opt_pre_resize": ""}),
        ],
        score="clip_score",
        resources=fid_clip_resources,
        ci={**CI, "n_resamples": 200},  # the module's default when FID is resampled
        ci_signature="|ci:bs-pct|fidci:bias-shift|conf:0.95|bs:200|seed:12345|",
    ),
}


# ------------------------------------------------------------------------------------------------
# Fixtures: one browser per session, each app served once per module
# ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    try:
        browser = ui.launch_browser(playwright)  # no skip: a browser that cannot start fails the tests
    except Exception:
        playwright.stop()
        raise
    yield browser
    browser.close()
    playwright.stop()


@pytest.fixture(scope="module")
def served():
    """name -> (app module, url); apps start on first use and stop when the module's tests end."""
    apps = {}

    def serve(name):
        if name not in apps:
            path = (
                ROOT / "spaces" / "playground" / "app.py"
                if name == "playground"
                else ROOT / "metrics" / name / "app.py"
            )
            apps[name] = ui.start_app(path)
        return apps[name]

    yield serve
    for module, _ in apps.values():
        module.demo.close()


@pytest.fixture(scope="module")
def resources(tmp_path_factory):
    """name -> the case's resources (built once per module)."""
    built = {}

    def get(name):
        if name not in built:
            make = CASES[name].resources
            built[name] = make(tmp_path_factory.mktemp(name)) if make else {}
        return built[name]

    return get


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1360, "height": 900})
    page = context.new_page()
    page.set_default_timeout(ui.TIMEOUT_MS)
    yield page
    context.close()


# ------------------------------------------------------------------------------------------------
# What a person does, and what they must see
# ------------------------------------------------------------------------------------------------
def do_run(page, run: Run, prefix: str = "", res: dict | None = None) -> None:
    res = res or {}
    if ui.get_text(page, f"{prefix}preset") != run.config:
        ui.pick(page, f"{prefix}preset", run.config)
    for suffix in run.clicks:
        before = ui.get_text(page, f"{prefix}preds")
        page.locator(f"#{prefix}{suffix}").click()
        page.wait_for_function(
            "([sel, before]) => document.querySelector(sel).value !== before",
            arg=[f"#{prefix}preds textarea", before],
        )
    for suffix, key in run.files.items():
        ui.upload(page, f"{prefix}{suffix}", res[key])
    for suffix, text in run.typed.items():
        ui.set_text(page, f"{prefix}{suffix}", text.format(**res) if res else text)
    for suffix, value in run.options.items():
        ui.set_option(page, f"{prefix}{suffix}", value.format(**res) if res else value)
    ui.compute(page, prefix)


def check_shown(page, name: str, run: Run, prefix: str = "", res: dict | None = None) -> None:
    """The page shows the module's own numbers (rounded to 4 decimals) and its full signature."""
    kwargs = run.compute(res) if callable(run.compute) else run.compute
    case = CASES[name]
    expected = load_metric(name, run.config).compute(**kwargs, **(case.ci or CI), return_per_example=True)
    bounds = ("_ci_low", "_ci_high")
    numbers = {k: v for k, v in expected.items() if isinstance(v, float) and not k.endswith(bounds)}
    shown = ui.read_headline(page, prefix)
    assert list(shown) == list(numbers), (shown, numbers)
    for key, value in numbers.items():
        parts = re.fullmatch(r"(\S+)(?: \[(\S+), (\S+)\])?", shown[key])
        assert parts, (key, shown[key])
        assert float(parts[1]) == round(value, 4), (key, shown[key], value)
        if f"{key}_ci_low" in expected:  # the module's own interval, rounded as shown
            interval = [round(expected[f"{key}{b}"], 4) for b in bounds]
            assert parts[2] is not None and [float(parts[2]), float(parts[3])] == interval, (
                key,
                shown[key],
                interval,
            )
        else:  # no interval for this number (FID): just the value
            assert parts[2] is None, (key, shown[key])
    for key in run.intervals:
        assert f"{key}_ci_low" in expected and "[" in shown[key], (key, shown)
    signature = ui.get_text(page, f"{prefix}signature")
    assert signature == expected["signature"]
    assert (case.ci_signature or CI_SIGNATURE) in signature, signature
    for part in run.signature_has:
        assert f"|{part}|" in signature, (part, signature)
    headers, rows = ui.read_table(page, prefix)
    primary = CASES[name].score or next(iter(numbers))
    per = [p[primary] if isinstance(p, dict) else p for p in expected["per_example"]]
    assert len(rows) == len(per), (headers, rows)
    column = headers.index(primary)
    assert [float(row[column]) for row in rows] == [round(p, 4) for p in per]
    assert ui.histogram_drawn(page, prefix)


def check_garbage(page, garbage: Garbage, prefix: str = "") -> str:
    for suffix, text in garbage.typed.items():
        ui.set_text(page, f"{prefix}{suffix}", text)
    for suffix, value in garbage.options.items():
        ui.set_option(page, f"{prefix}{suffix}", value)
    message = ui.error_after_compute(page, prefix)
    assert re.search(garbage.message, message), message
    return message


# ------------------------------------------------------------------------------------------------
# Tests
# ------------------------------------------------------------------------------------------------
def test_every_app_has_a_case():
    assert sorted(CASES) == sorted(APPS), "add the new metric's demo to CASES"


@pytest.mark.parametrize("name", APPS)
def test_metric_app_gives_the_module_numbers(page, served, resources, name):
    _, url = served(name)
    res = resources(name)
    SHOTS.mkdir(parents=True, exist_ok=True)
    for i, run in enumerate(CASES[name].runs):
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
    module, url = served("playground")
    page.goto(url)
    SHOTS.mkdir(parents=True, exist_ok=True)
    for name in module.NAMES:
        prefix = f"{name}_"
        page.get_by_role("tab", name=module.TITLES.get(name, name), exact=True).click()
        run = CASES[name].runs[0]
        do_run(page, run, prefix, resources(name))
        check_shown(page, name, run, prefix, resources(name))
        if name == module.NAMES[0]:
            page.screenshot(path=str(SHOTS / "playground.png"))
            if os.environ.get("MM_DOCS_SCREENSHOT"):
                save_docs_screenshot(SHOTS / "playground.png")
        check_garbage(page, CASES[name].garbage[0], prefix)
    page.screenshot(path=str(SHOTS / "playground_last_tab.png"), full_page=True)


def save_docs_screenshot(shot) -> None:
    """docs/playground.png: the screenshot, scaled to 1000 px wide and palette-quantised (small)."""
    from PIL import Image

    image = Image.open(shot).convert("RGB")
    image = image.resize((1000, round(image.height * 1000 / image.width)), Image.LANCZOS)
    image.quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(
        ROOT / "docs" / "playground.png", optimize=True
    )


# ------------------------------------------------------------------------------------------------
# The page itself after each action (issue 20): what is drawn, not what the server sent
# ------------------------------------------------------------------------------------------------
from multimodal_metrics.demo import fmt  # noqa: E402 - the rounding the page shows

PAGE_SHOTS = SHOTS / os.environ.get("MM_SHOTS_TAG", "page")  # MM_SHOTS_TAG=before: the same states on main
DESKTOP, PHONE = {"width": 1280, "height": 800}, {"width": 390, "height": 844}


def shot(page, name: str, full_page: bool = True) -> None:
    """A screenshot of the page once it has finished computing and drawing (ui.settled)."""
    ui.settled(page)
    PAGE_SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(PAGE_SHOTS / f"{name}.png"), full_page=full_page)


def test_page_shows_the_current_run_and_keeps_the_message(page, served):
    """anls: the example (5 bars' worth), then two examples: the bars drawn add up to 2, not to the
    previous run's 5; then unequal line counts: the message is still on the page 15 s later and the
    previous headline and bars are gone."""
    _, url = served("anls")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
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
    message = page.get_by_text(re.compile(r"`predictions` has 3 examples but `references` has 2")).first
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
    _, url = served("codebleu")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
    ui.pick(page, "lang", "java")
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


def test_fid_clip_gives_a_number_without_weights(page, served):
    """fid_clip: the example feature files load with a button and give FID (numpy/scipy only, no weights)."""
    import numpy as np

    module, url = served("fid_clip")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
    page.locator("#features_example").click()
    page.locator("#feat_gen td.filename").first.wait_for(state="attached")
    ui.compute(page, "", button="go_features")
    shot(page, "fid_clip_features")
    gen, real = module.example_feature_files()
    expected = load_metric("fid_clip", "default").compute(
        predictions=np.load(gen), references=np.load(real), **CASES["fid_clip"].ci
    )
    assert fmt(expected["fid"]) in ui.headline_text(page, ""), (expected, ui.headline_text(page, ""))
    # FID is one number for the whole set: no empty table and empty plot, a line that says why
    headers, rows = ui.read_table(page, "")
    note = page.locator("#histogram").inner_text()
    assert not rows and "clip_score" not in headers and "one number for the whole set" in note, (
        headers,
        note,
    )


# ------------------------------------------------------------------------------------------------
# Second round (issue 20): what the first round left, each read from the page
# ------------------------------------------------------------------------------------------------
VIEWPORTS = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x800", "390x844"])


@VIEWPORTS
@pytest.mark.parametrize("name", ["vqa_acc", "ru_meteor", "codebleu"])
def test_score_column_is_on_screen(page, served, name, viewport):
    """The example computed: the per-example score column is drawn inside the table's visible box and
    inside the window (not behind a horizontal scroll of long input columns)."""
    _, url = served(name)
    page.set_viewport_size(viewport)
    page.goto(url)
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


def test_det_f1_picture_explains_its_boxes(page, served):
    """det_f1's example: dashed "missed" boxes while recall reads 1: a note beside the picture says why,
    and the box labels are drawn at least 12 px tall in the page."""
    module, url = served("det_f1")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
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
    label_px = getattr(module, "LABEL_PX", 10) * shown / natural  # Pillow's default font is 10 px
    assert label_px >= 12, (label_px, shown, natural)


def test_det_f1_empty_box_says_what_to_put(page, served):
    _, url = served("det_f1")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
    ui.set_text(page, "refs", "")
    message = ui.error_after_compute(page, "")
    shot(page, "det_f1_empty_box", full_page=False)
    assert "Expecting value" not in message and re.search(r"`references` is empty.*\{", message), message


def test_bar_without_spaces_is_explained(page, served):
    """anls: `a|b` (no spaces) is one reference; the page says so (the numbers stay those of one reference)."""
    _, url = served("anls")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
    page.locator("#go").wait_for(state="visible")
    assert re.search(r"without spaces", page.locator("body").inner_text()), "the help text does not say it"
    ui.set_text(page, "preds", "b")
    ui.set_text(page, "refs", "a|b")
    ui.compute(page, "")
    shot(page, "anls_bar_without_spaces", full_page=False)
    text = ui.headline_text(page, "")
    assert text.startswith("anls: 0 ") and re.search(r"references.*example 0.*\|.*one reference", text), text


def test_ru_meteor_alignment_picker_counts_like_the_table(page, served):
    """The alignment shown for example #1 is the table's row 1 (both count from 0)."""
    _, url = served("ru_meteor")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
    ui.set_text(page, "example", "1")
    ui.compute(page, "")
    page.locator("#alignment").scroll_into_view_if_needed()
    shot(page, "ru_meteor_alignment_1")
    headers, rows = ui.read_table(page, "")
    row = next(r for r in rows if r[0] == "1")
    shown = re.search(r"prediction\s*:\s*(.+)", page.locator("#alignment").inner_text())[1].strip()
    assert shown == row[headers.index("prediction")].strip(), (shown, rows)


def test_ru_meteor_offers_only_what_runs(page, served):
    """Every synonyms choice offered computes here (this machine has no RuWordNet, like the Space), and
    one line says why the RuWordNet sources are not offered."""
    _, url = served("ru_meteor")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
    page.locator("#opt_synonyms input").click()
    offered = [
        t.strip().splitlines()[-1].strip() for t in page.get_by_role("option").all_inner_texts()
    ]  # no "✓"
    shot(page, "ru_meteor_synonyms", full_page=False)
    failed = {}
    for choice in offered:
        page.goto(url)
        ui.pick(page, "opt_synonyms", choice)
        ui.compute(page, "")
        if "Not computed" in ui.headline_text(page, ""):
            failed[choice] = ui.headline_text(page, "")[:200]
    assert not failed, (offered, failed)
    why = page.get_by_text(re.compile(r"RuWordNet.*not (offered|installed)")).first
    assert why.count() and why.is_visible()


def test_codebleu_example_has_several_pairs(page, served):
    """codebleu's pre-filled example: several pairs, so the interval is not a point and the histogram has
    more than one bar's worth of examples."""
    _, url = served("codebleu")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
    ui.compute(page, "")
    shot(page, "codebleu_example")
    shown = ui.read_headline(page, "")
    value = shown["codebleu"]
    low, high = re.fullmatch(r"\S+ \[(\S+), (\S+)\]", value).groups()
    assert float(low) < float(high), value
    headers, rows = ui.read_table(page, "")
    assert len(rows) >= 3 and sum(ui.wait_for_bars(page, "", len(rows))) == len(rows), rows


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


def test_fid_clip_signature_names_the_weights_file(page, served, resources):
    """fid_clip with tiny random Inception weights (same layer names as pytorch-fid's file): the signature
    shown does not call them inception-2015-12-05; it holds the file's content hash."""
    import hashlib

    _, url = served("fid_clip")
    res = resources("fid_clip")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
    ui.upload(page, "gen", res["gen"])
    ui.upload(page, "real", res["real"])
    ui.set_text(page, "prompts", "")
    ui.set_option(page, "opt_inception_weights", res["inception"])
    ui.compute(page, "")
    shot(page, "fid_clip_signature")
    signature = ui.get_text(page, "signature")
    digest = hashlib.sha256(Path(res["inception"]).read_bytes()).hexdigest()
    assert "inception-2015-12-05" not in signature and f"sha256-{digest[:12]}" in signature, signature


def test_fid_clip_duplicate_upload_is_said(page, served, resources, tmp_path):
    """The same image uploaded twice (two names, same bytes): the page scores it once and says so."""
    import shutil

    _, url = served("fid_clip")
    res = resources("fid_clip")
    copy = tmp_path / "copy_of_gen0.png"
    shutil.copy(res["gen"][0], copy)
    page.set_viewport_size(DESKTOP)
    page.goto(url)
    ui.upload(page, "gen", [*res["gen"], str(copy)])
    ui.upload(page, "real", res["real"])
    ui.set_text(page, "prompts", "")
    ui.set_option(page, "opt_inception_weights", res["inception"])
    ui.compute(page, "")
    shot(page, "fid_clip_duplicate")
    expected = load_metric("fid_clip", "default").compute(
        predictions=res["gen"],
        references=res["real"],
        inception_weights=res["inception"],
        **CASES["fid_clip"].ci,
    )
    text = ui.headline_text(page, "")
    assert fmt(expected["fid"]) in text and re.search(r"copy_of_gen0\.png.*same content.*gen0\.png", text), (
        text
    )


# ------------------------------------------------------------------------------------------------
# Third round: presets that broke the page, dropped presses, widget checks, keyboard, long inputs
# ------------------------------------------------------------------------------------------------
def test_codebleu_preset_change_keeps_the_weights_box_usable(page, served):
    """codebleu: another preset picked; the weights box stays empty (its help names the new preset's
    weights) and Compute scores with that preset (a Gradio update object landed in the box before)."""
    _, url = served("codebleu")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
    ui.pick(page, "preset", "pypi")
    page.locator("#opt_weights").get_by_text("[preset pypi:").wait_for(state="visible")
    shot(page, "codebleu_preset_pypi", full_page=False)
    assert ui.get_text(page, "opt_weights") == "", ui.get_text(page, "opt_weights")
    ui.compute(page, "")
    assert "Not computed" not in ui.headline_text(page, ""), ui.headline_text(page, "")
    assert "|preset:pypi|" in ui.get_text(page, "signature")


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
    _, url = served("vqa_acc")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
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


def error_badges(page) -> int:
    """How many Gradio status trackers show their bare "Error" (a failure the page did not explain)."""
    return page.locator("[data-testid=status-tracker]").get_by_text(re.compile(r"^\s*Error\s*$")).count()


def test_ru_meteor_negative_example_gives_a_fresh_result_not_error_badges(page, served):
    """ru_meteor: a result, then example # -1 and Compute: no "Error" badges over the outputs (Gradio's own
    range check fired before, the old result stayed under them); the new result is shown and the
    alignment says that -1 is not an example and which one it shows."""
    _, url = served("ru_meteor")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
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
    _, url = served("ru_meteor")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
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


def test_deeply_nested_json_is_a_message(page, served):
    """The playground's anls tab given JSON nested 100,000 deep: a message saying so (a bare "Error" before)."""
    _, url = served("playground")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
    ui.set_text(page, "anls_preds", "[" * 100_000 + "]" * 100_000)
    message = ui.error_after_compute(page, "anls_")
    shot(page, "playground_deep_json", full_page=False)
    assert re.search(r"`predictions` is nested too deeply", message), message
    assert not error_badges(page)


def test_a_second_compute_while_one_runs_scores_the_new_inputs(page, served):
    """anls: Compute on 60,000 lines, then at once two lines typed and Compute again: the page ends on the
    two lines' result and never shows the 60,000 lines' result beside them (the second press was
    dropped: "60000 example(s)" stayed beside boxes holding two lines)."""
    _, url = served("anls")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
    lines = "\n".join(f"answer {i}" for i in range(60_000))
    ui.set_text(page, "preds", lines)
    ui.set_text(page, "refs", lines)
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


def test_each_page_shows_only_its_own_warnings(browser, served, monkeypatch):
    """The playground in two pages at once: codebleu with weights that sum to 2 (a warning) computes
    while anls computes clean input (held so that the two overlap, codebleu's block opened first): the
    anls page shows no warning, the codebleu page its own (anls showed codebleu's warning before)."""
    import threading

    from multimodal_metrics import demo

    module, url = served("playground")
    anls_started, codebleu_done = threading.Event(), threading.Event()
    real = demo.load_metric

    class Held:
        def __init__(self, metric, before, after):
            self.metric, self.before, self.after = metric, before, after

        def compute(self, **kwargs):
            self.before()
            try:
                return self.metric.compute(**kwargs)
            finally:
                self.after()

    def codebleu_load(script, preset):
        return Held(real(script, preset), lambda: anls_started.wait(60), codebleu_done.set)

    def anls_load(script, preset):
        metric = real(script, preset)
        if Path(script).stem != "anls":
            return metric
        return Held(metric, lambda: (anls_started.set(), codebleu_done.wait(60)), lambda: None)

    monkeypatch.setattr(module.APPS["codebleu"], "load_metric", codebleu_load)
    monkeypatch.setattr(demo, "load_metric", anls_load)
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


def test_sixty_thousand_lines_keep_the_page_responsive(page, served):
    """anls on 60,000 lines: the table shows the first 1,000 rows and says so, a CSV file holds every row,
    the histogram counts all 60,000, and no task blocks the page for 3 s while the result is drawn (it
    was 8.4 s: the whole table rendered)."""
    import csv

    _, url = served("anls")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
    lines = "\n".join(f"answer {i}" for i in range(60_000))
    ui.set_text(page, "preds", lines)
    ui.set_text(page, "refs", lines)
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
    _, url = served("anls")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
    ui.set_text(page, "preds", "\n".join("x" * 100 for _ in range(110_000)))
    message = ui.error_after_compute(page, "")
    assert re.search(r"holds 11,\d{3},\d{3} characters; one Compute reads at most 10,000,000", message), (
        message
    )


def test_det_f1_says_which_images_are_drawn(page, served):
    """det_f1 with six images, the missed boxes in images 4 and 5 (not drawn): the note says the picture
    shows the first 4 of the 6 images and counts only the dashed boxes drawn (it counted undrawn ones)."""
    import json

    _, url = served("det_f1")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
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


def test_fid_clip_upload_buttons_have_their_own_names(page, served):
    """fid_clip's upload buttons are named after their boxes (all were "Click to upload or drop files")."""
    _, url = served("fid_clip")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
    page.locator("#go").wait_for(state="visible")
    page.wait_for_timeout(500)
    names = page.locator("button.upload-container").evaluate_all(
        "bs => bs.map(b => b.getAttribute('aria-label'))"
    )
    assert len(names) == 5 and len(set(names)) == 5 and all(n.startswith("upload ") for n in names), names
    assert page.get_by_role("button", name="upload generated images", exact=True).count() == 1


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


def test_fid_clip_missing_weights_message_a_visitor_can_follow(
    page, served, resources, tmp_path, monkeypatch
):
    """fid_clip with images and no Inception weights on the server: the message links the weights file
    (a working address: it held `%5C` before) and says to upload it or use feature files, not what a
    browser cannot do (HF_HUB_OFFLINE, feature_extractor, a server path)."""
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "empty_torch_home"))
    _, url = served("fid_clip")
    res = resources("fid_clip")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
    ui.upload(page, "gen", res["gen"])
    ui.upload(page, "real", res["real"])
    ui.set_text(page, "prompts", "")
    message = ui.error_after_compute(page, "")
    shot(page, "fid_clip_no_weights", full_page=False)
    link = page.locator("#headline a").first.get_attribute("href")
    assert link.startswith(
        "https://github.com/mseitzer/pytorch-fid/releases/download/fid_weights/pt_inception-2015-12-05-6726825d.pth"
    ), link
    assert "%5C" not in link and "upload it" in message and "feature" in message, message
    assert not re.search(r"HF_HUB_OFFLINE|feature_extractor|/root|/home|\.cache", message), message


def test_fid_clip_features_result_is_in_view_and_bad_files_read_plainly(page, served, tmp_path):
    """fid_clip: "Compute FID from files" brings its result into view (it was 520 px above the window);
    an .npy of Python objects and a damaged .npz are named by their file name with a plain reason (not
    numpy's advice to load unsafely, not the server's temporary path)."""
    import numpy as np

    _, url = served("fid_clip")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
    page.locator("#features_example").click()
    page.locator("#feat_gen td.filename").first.wait_for(state="attached")
    page.locator("#go_features").scroll_into_view_if_needed()
    ui.compute(page, "", button="go_features")
    ui.settled(page)
    box = page.locator("#headline").bounding_box()
    shot(page, "fid_clip_features_in_view", full_page=False)
    assert -2 <= box["y"] < DESKTOP["height"] - 40, box
    objects, broken = tmp_path / "objects.npy", tmp_path / "broken.npz"
    np.save(objects, np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    for gen, real, expected in (
        (objects, None, r"objects\.npy holds Python objects"),
        (None, broken, r"broken\.npz is not a \.npy / \.npz file"),
    ):
        page.goto(url)
        page.locator("#features_example").click()
        page.locator("#feat_gen td.filename").first.wait_for(state="attached")
        for box_id, path in (("feat_gen", gen), ("feat_real", real)):
            if path is not None:
                page.locator(
                    f"#{box_id} button[aria-label='Clear'], #{box_id} button[title='Clear']"
                ).first.click()
                ui.upload(page, box_id, [str(path)])
        message = ui.error_after_compute(page, "", button="go_features")
        assert re.search(expected, message), message
        assert (
            "unsafely" not in message
            and "allow_pickle" not in message
            and "/tmp" not in message
            and "gradio" not in message
        ), message


def test_fid_clip_caps_pre_resize_and_keeps_server_files_to_itself(page, served, resources, monkeypatch):
    """fid_clip: pre_resize above 1024 is refused (4096 took 4 GB); on a Space a typed weights path outside
    the operator's folders is refused by one message whether the file exists or not (/etc/shadow was
    "cannot read as a torch state dict", a missing file "does not exist"), and the uploaded weights file
    is used instead."""
    monkeypatch.setenv("SPACE_ID", "multimodal-metrics/fid_clip")
    monkeypatch.delenv("MM_DEMO_PATHS", raising=False)
    _, url = served("fid_clip")
    res = resources("fid_clip")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
    ui.upload(page, "gen", res["gen"])
    ui.upload(page, "real", res["real"])
    ui.set_text(page, "prompts", "")
    ui.set_option(page, "opt_pre_resize", "4096")
    assert "`pre_resize` is at most 1024 here" in ui.error_after_compute(page, "")
    ui.set_option(page, "opt_pre_resize", "")
    said = []
    for path in ("/etc/shadow", "/etc/no_such_file.pth", res["inception"]):
        ui.set_option(page, "opt_inception_weights", path)
        said.append(ui.error_after_compute(page, "").replace(repr(path), "PATH").replace(path, "PATH"))
    shot(page, "fid_clip_space_path_refused", full_page=False)
    assert said[0] == said[1] == said[2] and "not in a folder this Space reads" in said[0], said
    ui.set_option(page, "opt_inception_weights", "")
    ui.upload(page, "weights_file", [res["inception"]])
    ui.compute(page, "")
    assert "fid" in ui.read_headline(page, ""), ui.headline_text(page, "")[:500]
