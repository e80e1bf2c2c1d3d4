"""The use cases of every demo (tests/test_browser.py runs them): for each metric, what a person does
(leave the pre-filled example and press Compute, or type inputs, pick a preset, set an option and press
Compute) and the module call that must give the same numbers; garbage typed in and the message it must
give. Every demo asks for the 95% bootstrap interval (`multimodal_metrics.demo.RESAMPLING`): a headline
number with an interval reads `value [low, high]`, equal to the module's `compute(..., confidence=0.95,
n_resamples=1000, seed=12345)` (fid_clip: 200 resamples, the module's default with FID). Adding a metric
= one entry in CASES (test_every_app_has_a_case checks).
"""

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import _browser as ui
import pytest
from helpers import load_metric


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
    """Bad input typed in, and what the message shown must say (a regex, as the library writes it: its
    `names` are drawn as code on the page, never between literal backticks)."""

    typed: dict
    message: str
    options: dict = field(default_factory=dict)


@dataclass
class Case:
    # the first run: the pre-filled example under the default preset, untouched but for the files and the
    # model paths a person gives (tests/test_browser_presets.py computes it under every preset)
    runs: list
    garbage: list
    score: str | None = None  # the per-example score's name when it is not the primary key
    resources: Callable | None = None  # folder -> {key: path or paths}, formatted into typed/options as {key}
    ci: dict | None = None  # the resampling the demo asks for, when not CI (fid_clip: FID's 200 resamples)
    ci_signature: str | None = None  # its signature fields, when not CI_SIGNATURE


def fid_clip_resources(folder: Path) -> dict:
    """Tiny random FID Inception weights and CLIP checkpoint (the real loading code reads them), and
    three generated and three real images: everything offline."""
    from _fid_clip_fixtures import random_images, tiny_hf_clip, tiny_inception_weights
    from PIL import Image

    from multimodal_metrics.fid_clip import inception

    weights = tiny_inception_weights(inception, folder)
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
                options={"opt_lang": "java", "opt_weights": "0.1,0.1,0.4,0.4"},
                signature_has=("preset:pypi", "lang:java", "w:0.1,0.1,0.4,0.4"),
            ),
        ],
        garbage=[Garbage({}, r"`weights`", {"opt_weights": "1,2"})],
    ),
    "ru_meteor": Case(
        runs=[
            Run(  # the pre-filled example under the first preset (its RuWordNet synonyms: refused without it)
                "default",
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
                },
            ),
            Run(  # the same, synonyms none chosen: the exact and stem stages, on any machine
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
                options={"opt_synonyms": "none"},
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
                options={"opt_synonyms": "none"},
                signature_has=("preset:nltk", "syn:none"),
            ),
            Run(  # synonyms left on preset: nltk's WordNet (NLTK's corpus or Debian's wordnet-base, the Space's packages.txt)
                "nltk",
                {"predictions": ["a sofa", "the cat sat"], "references": ["a couch", "the cat sat"]},
                typed={"preds": "a sofa\nthe cat sat", "refs": "a couch\nthe cat sat"},
                signature_has=("preset:nltk", "syn:wordnet"),
            ),
        ],
        garbage=[  # synonyms none: the inputs are read after the preset's resources (RuWordNet may be missing)
            Garbage(
                {"preds": "a\nb", "refs": "a"},
                r"`predictions` has 2 examples but `references` has 1",
                {"opt_synonyms": "none"},
            ),
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


@pytest.fixture(scope="session")
def resources(tmp_path_factory):
    """name -> the case's resources (built once per session)."""
    built = {}

    def get(name):
        if name not in built:
            make = CASES[name].resources
            built[name] = make(tmp_path_factory.mktemp(name)) if make else {}
        return built[name]

    return get


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
    primary = CASES[name].score or next(iter(numbers))
    headers, rows = ui.read_table(page, prefix, header=primary)
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
    assert re.search(garbage.message.replace("`", ""), message) and "`" not in message, message
    return message
