"""Seeded fuzz test of every metric, loaded as users load it.

One harness for the whole collection: ``SPECS`` holds, per metric, a generator of valid inputs and the
kind of each option (its validity rule). Hypothesis (derandomized: the same cases on every run)
draws a scenario per call:

* valid inputs made of hostile-but-valid text (combining marks, NUL, Tangut, zero-width, long
  strings; numpy arrays of strings) with valid options -> a result must come back: a dict of finite
  floats plus ``signature``;
* one option replaced by a hostile value (None, NaN, inf, 10**400, bools, bytes, numpy arrays and
  scalars, lone surrogates, containers, ...) -> a result if the value is valid for that option (the
  option kind's rule, written here independently of the module), else a ValueError/TypeError
  naming the option;
* one input element replaced by a hostile value, wrong nesting, an empty or mismatched input ->
  a ValueError/TypeError naming the argument and, where there is one, the example index.

Nothing else may escape (no OverflowError, UnicodeEncodeError, numpy or Arrow errors), and after
all the calls no evaluate cache file or lock is left behind. A new metric joins with one ``SPECS``
entry; ``test_every_metric_has_a_spec`` fails until it has one.
"""

import math
import numbers
import os
from dataclasses import dataclass, field

import numpy as np
import pytest
from helpers import METRICS, metric_names
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

MAX_EXAMPLES = int(os.environ.get("MM_FUZZ_EXAMPLES", "60"))
VALID, INVALID, EITHER = "valid", "invalid", "either"

# ----------------------------------------------------------------------------------------------
# Hostile values
# ----------------------------------------------------------------------------------------------
LONG = "ab " * 1500 + "\u0301" * 500  # 5 KB of repeated tokens and combining marks (kept cheap)
VALID_TEXT = [
    "",
    " ",
    "a",
    "e\u0301\u0301",  # combining marks
    "a\x00b",  # NUL
    "\U00017d3b",  # Tangut (no Unicode name)
    "\u200b\u200d",  # zero-width
    "ß İ ﬁ",  # case mappings that change length
    "Ответ: пять",
    "x = 1\n",
    "\r\n\t",
    "🙂" * 3,
    LONG,
]
HOSTILE = [
    None,
    float("nan"),
    float("inf"),
    -float("inf"),
    10**400,
    -(10**400),
    2**64,
    -1,
    0,
    1,
    0.5,
    1e308,
    5e-324,
    True,
    False,
    np.bool_(True),
    np.float32(0.25),
    np.float64(float("nan")),
    np.int64(3),
    np.str_("a"),
    np.array("a"),
    np.array(["a"]),
    np.array([0.5]),
    np.array(["a", "b"]),
    b"bytes",
    "",
    "\ud800",
    "a\x00b",
    "\U00017d3b",
    "x" * 10_000,
    [],
    [[]],
    ["a"],
    ("a",),
    {},
    {"a": 1},
    {"a"},
    object(),
]
hostile = st.sampled_from(HOSTILE)
valid_text = st.sampled_from(VALID_TEXT) | st.text(max_size=12)


def _is_real(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool | np.bool_)


def _finite_float(v) -> float | None:
    if not _is_real(v):
        return None
    try:
        f = float(v)
    except OverflowError:
        return None
    return f if math.isfinite(f) else None


def _utf8(s) -> bool:
    if not isinstance(s, str):
        return False
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# ----------------------------------------------------------------------------------------------
# Option kinds: each says whether a value is valid (independently of the module's own checks)
# ----------------------------------------------------------------------------------------------
@dataclass
class Number:
    low: float | None = None
    high: float | None = None
    whole: bool = False
    values: tuple = ()  # the only accepted values, when the option is a number with a fixed set

    def validity(self, v) -> str:
        f = _finite_float(v)
        if f is None or (self.low is not None and f < self.low) or (self.high is not None and f > self.high):
            return INVALID
        if self.whole and f != int(f):
            return INVALID
        if self.values and f not in self.values:
            return INVALID
        return VALID

    def draw(self, data):
        if self.values:
            return data.draw(st.sampled_from(self.values))
        lo = -1e6 if self.low is None else self.low
        hi = 1e6 if self.high is None else self.high
        if self.whole:
            return data.draw(st.integers(int(lo), int(min(hi, 12))))
        return data.draw(st.floats(lo, hi, allow_nan=False))


@dataclass
class Choice:
    values: tuple

    def validity(self, v) -> str:
        for c in self.values:
            if isinstance(c, str) and isinstance(v, str):
                if v == c:
                    return VALID
            elif type(v) is type(c) and v == c:
                return VALID
        return INVALID

    def draw(self, data):
        return data.draw(st.sampled_from(self.values))


@dataclass
class Bool:
    def validity(self, v) -> str:
        return VALID if type(v) is bool else INVALID

    def draw(self, data):
        return data.draw(st.booleans())


@dataclass
class NoValidValue:
    """An option whose valid values the fuzzer does not generate (a WordNet path): hostile values
    must all be refused (a missing resource names the option too)."""

    def validity(self, v) -> str:
        return INVALID

    def draw(self, data):
        return None


@dataclass
class Weights:
    """A list/tuple of 4 non-negative numbers (codebleu); astronomically large ones may be refused."""

    def validity(self, v) -> str:
        if isinstance(v, np.ndarray) and v.ndim == 1:
            v = v.tolist()
        if isinstance(v, str | bytes) or not isinstance(v, list | tuple) or len(v) != 4:
            return INVALID
        fs = [_finite_float(w) for w in v]
        if any(f is None or f < 0 for f in fs):
            return INVALID
        return VALID if 0 < sum(fs) < 1e300 and all(f < 1e300 for f in fs) else EITHER

    def draw(self, data):
        return data.draw(
            st.lists(st.floats(0, 10, allow_nan=False), min_size=4, max_size=4).filter(lambda w: sum(w) > 0)
        )


@dataclass
class PositiveInt:
    def validity(self, v) -> str:
        return VALID if type(v) is int and v >= 1 else INVALID

    def draw(self, data):
        return data.draw(st.integers(1, 64))


@dataclass
class Positive(Number):
    def validity(self, v) -> str:
        return VALID if super().validity(v) == VALID and float(v) > 0 else INVALID

    def draw(self, data):
        return data.draw(st.floats(0.01, 100))


@dataclass
class UnusedPath:
    """A resource path the fuzzed calls do not use (ru_meteor runs with synonyms='none'): a text path
    may be accepted or refused, anything else is refused."""

    def validity(self, v) -> str:
        return EITHER if isinstance(v, str | os.PathLike) else INVALID

    def draw(self, data):
        return None


HOSTILE_WEIGHTS = [
    [1e308] * 4,
    [0, 0, 0, 0],
    [-1, 1, 1, 1],
    [float("nan"), 1, 1, 1],
    [1, 1, 1],
    (1, 1, 1, 1),
    np.ones(4),
]


# ----------------------------------------------------------------------------------------------
# Input generators (valid) and where a hostile value can go
# ----------------------------------------------------------------------------------------------
@st.composite
def text_pairs(draw, n_refs=None, max_examples=3):
    """predictions: one string each; references: one string or a list of strings each."""
    n = draw(st.integers(1, max_examples))
    preds = [draw(valid_text) for _ in range(n)]
    refs = []
    for _ in range(n):
        k = n_refs if n_refs is not None else draw(st.integers(1, 3))
        if n_refs is None and k == 1 and draw(st.booleans()):
            refs.append(draw(valid_text))
        else:
            refs.append([draw(valid_text) for _ in range(k)])
    if draw(st.booleans()):
        preds = np.array(preds, dtype=object) if draw(st.booleans()) else tuple(preds)
    return {"predictions": preds, "references": refs}


def _mutate_text(data, inputs: dict, options: dict) -> tuple[dict, str, str | None]:
    """One hostile change to text-pair inputs: (inputs, argument named, index named or None)."""
    inputs = {k: list(v) if not isinstance(v, str) else v for k, v in inputs.items()}
    n = len(inputs["predictions"])
    kind = data.draw(st.sampled_from(["pred", "ref", "ref_item", "whole", "length", "empty_refs"]))
    i = data.draw(st.integers(0, n - 1))
    if kind == "pred":
        v = data.draw(hostile.filter(lambda v: not _utf8(v)))
        inputs["predictions"][i] = v
        return inputs, "predictions", f"[{i}]"
    if kind == "ref":
        v = data.draw(hostile.filter(lambda v: not _utf8(v) and not isinstance(v, list | tuple | np.ndarray)))
        inputs["references"][i] = v
        return inputs, "references", f"[{i}]"
    if kind == "ref_item":
        v = data.draw(hostile.filter(lambda v: not _utf8(v)))
        inputs["references"][i] = ["ok", v]
        return inputs, "references", f"[{i}][1]"
    if kind == "whole":
        arg = data.draw(st.sampled_from(["predictions", "references"]))
        inputs[arg] = data.draw(st.sampled_from([None, "a string", b"bytes", {"a": 1}, 3, [], np.array("a")]))
        return inputs, arg, None
    if kind == "length":
        inputs["predictions"] = inputs["predictions"] + ["extra"]
        return inputs, "references", None
    inputs["references"][i] = []
    return inputs, "references", f"[{i}]"


@st.composite
def det_images(draw, max_images=2):
    classes = ["cat", "dog", "e\u0301", "\U00017d3b", ""]
    # [x, y, x + dx, y + dy]: valid both as xywh and as xyxy
    box = st.tuples(st.floats(0, 100), st.floats(0, 100), st.floats(0, 50), st.floats(0, 50)).map(
        lambda b: [b[0], b[1], b[0] + b[2], b[1] + b[3]]
    )
    n = draw(st.integers(1, max_images))
    preds, refs = [], []
    for _ in range(n):
        requested = draw(st.lists(st.sampled_from(classes), min_size=1, max_size=3, unique=True))
        ref = {c: draw(st.lists(box, max_size=3)) for c in requested}
        pred_classes = requested + draw(st.lists(st.sampled_from(classes), max_size=2, unique=True))
        pred = {c: draw(st.lists(box, max_size=3)) for c in pred_classes}
        refs.append(ref)
        preds.append(pred)
    return {"predictions": preds, "references": refs}


def _box_validity(box, box_format: str) -> str:
    """4 finite numbers, integers exact in float64; xywh: w, h >= 0, x + w, y + h finite and a positive
    w or h not lost in the sum; xyxy: x2 >= x1, y2 >= y1."""
    if isinstance(box, str | bytes) or not isinstance(box, list | tuple) or len(box) != 4:
        return INVALID
    fs = [_finite_float(v) for v in box]
    if any(f is None for f in fs):
        return INVALID
    if any(_is_real(v) and isinstance(v, int | np.integer) and int(v) != int(f) for v, f in zip(box, fs)):
        return INVALID
    if box_format == "xyxy":
        return VALID if fs[2] >= fs[0] and fs[3] >= fs[1] else INVALID
    if fs[2] < 0 or fs[3] < 0 or not (math.isfinite(fs[0] + fs[2]) and math.isfinite(fs[1] + fs[3])):
        return INVALID
    if (fs[2] > 0 and fs[0] + fs[2] == fs[0]) or (fs[3] > 0 and fs[1] + fs[3] == fs[1]):
        return INVALID
    return VALID


def _mutate_det(data, inputs: dict, options: dict) -> tuple[dict, str, str | None, str]:
    """One hostile change to det_f1 inputs: (inputs, argument, index, validity)."""
    arg = data.draw(st.sampled_from(["predictions", "references"]))
    images = [dict(im) for im in inputs[arg]]
    inputs = {**inputs, arg: images}
    i = data.draw(st.integers(0, len(images) - 1))
    image = images[i]
    kind = data.draw(st.sampled_from(["coord", "coord", "box", "boxes", "class", "image", "whole"]))
    cls = data.draw(st.sampled_from(sorted(image)))
    if kind == "coord":
        boxes = [list(b) for b in image[cls]] or [[1.0, 1.0, 2.0, 2.0]]
        j, k = data.draw(st.integers(0, len(boxes) - 1)), data.draw(st.integers(0, 3))
        boxes[j][k] = data.draw(hostile)
        image[cls] = boxes
        fmt = options.get("box_format", "xywh")
        fmt = fmt if Choice(("xywh", "xyxy")).validity(fmt) == VALID else "xywh"
        return inputs, arg, f"[{i}]", _box_validity(boxes[j], fmt)
    if kind == "box":
        image[cls] = list(image[cls]) + [data.draw(hostile)]
        return inputs, arg, f"[{i}]", INVALID
    if kind == "boxes":
        v = data.draw(hostile.filter(lambda v: not (type(v) is list and (len(v) == 0 or v == [[]]))))
        image[cls] = v
        return inputs, arg, f"[{i}]", INVALID
    if kind == "class":
        key = data.draw(st.sampled_from([None, 1, b"cat", "\ud800", ("t",), 1.5]))
        image[key] = []
        return inputs, arg, f"[{i}]", INVALID
    if kind == "image":
        images[i] = data.draw(hostile.filter(lambda v: not isinstance(v, dict) or v == {"a": 1}))
        return inputs, arg, f"[{i}]", INVALID
    inputs[arg] = data.draw(st.sampled_from([None, {"cat": []}, "x", 3, [], np.array(1)]))
    return inputs, arg, None, INVALID


@dataclass
class Spec:
    """How to fuzz one metric: its presets, valid inputs per preset, option kinds per preset."""

    presets: list
    inputs: object  # preset -> hypothesis strategy of valid input dicts
    options: object  # preset -> {option: kind}
    mutate: object = _mutate_text
    extra_hostile_options: dict = field(default_factory=dict)  # option -> more hostile values


TEXT_PRESETS = {
    "anls": ["default", "stvqa", "layoutlmv2"],
    "ned": ["default", "icdar2019", "empty_match"],
    "text_qa": ["default", "textqa", "mathqa", "plain"],
}
VQA_PRESETS = ["default", "fusion_brain_2021", "tdiuc", "wups", "bleu1"]


@st.composite
def vqa_inputs(draw, preset):
    n_refs = {"default": 10, "vqa_v2": 10, "tdiuc": 1}.get(preset)
    inputs = draw(text_pairs(n_refs=n_refs, max_examples=2))
    n = len(inputs["predictions"])
    if preset == "fusion_brain_2021":
        inputs["languages"] = draw(st.lists(st.sampled_from(["en", "ru"]), min_size=n, max_size=n))
    if preset == "tdiuc":
        inputs["question_types"] = draw(
            st.lists(st.sampled_from(["color", "count", "\U00017d3b"]), min_size=n, max_size=n)
        )
    if preset in ("default", "vqa_v2") and draw(st.booleans()):
        inputs["question_types"] = draw(st.lists(st.sampled_from(["", "what"]), min_size=n, max_size=n))
    return inputs


@dataclass
class Answers(Number):
    """num_answers: a whole number >= 0; whether it fits the references depends on them (either a
    result or an error naming num_answers)."""

    def validity(self, v) -> str:
        return EITHER if Number(0, None, whole=True).validity(v) == VALID else INVALID

    def draw(self, data):
        return 0


@dataclass
class WupsThreshold(Number):
    """-1 (set accuracy) or a number in [0, 1]."""

    def validity(self, v) -> str:
        return VALID if _finite_float(v) == -1.0 else super().validity(v)


def _vqa_options(preset):
    answers = Answers()
    opts = {"num_answers": answers}
    if preset == "default":
        opts["normalize"] = Choice(("official", "always", "never"))
    if preset == "tdiuc":
        opts["epsilon"] = Number(0.0, 1.0)
    if preset == "wups":
        opts["threshold"] = WupsThreshold(0.0, 1.0)
        opts["wordnet_path"] = NoValidValue()
    if preset == "bleu1":
        opts["lowercase"] = Bool()
    return opts


def _feature_validity(v) -> str:
    """A feature value: a finite real within ±1e50 (beyond, the distance overflows: moments.MAX_FEATURE)."""
    f = _finite_float(v)
    return VALID if f is not None and abs(f) <= 1e50 else INVALID


@st.composite
def feature_sets(draw, dims=3):
    """fid_clip on given feature vectors (no network): two sets of `dims`-d vectors."""
    vec = st.lists(st.floats(-1e3, 1e3), min_size=dims, max_size=dims)
    return {
        "predictions": draw(st.lists(vec, min_size=dims + 2, max_size=dims + 4)),
        "references": draw(st.lists(vec, min_size=dims + 2, max_size=dims + 4)),
    }


def _mutate_features(data, inputs: dict, options: dict):
    arg = data.draw(st.sampled_from(["predictions", "references"]))
    rows = [list(r) for r in inputs[arg]]
    i = data.draw(st.integers(0, len(rows) - 1))
    v = data.draw(hostile)
    if data.draw(st.booleans()):
        rows[i][0] = v
        validity = _feature_validity(v)
    else:
        rows[i] = v
        validity = INVALID if v is None or _is_real(v) else EITHER
    return {**inputs, arg: rows}, arg, None, validity


SPECS = {
    "anls": Spec(
        TEXT_PRESETS["anls"],
        lambda p: text_pairs(),
        lambda p: {
            "threshold": Number(0.0, 1.0),
            "boundary": Choice(("inclusive", "strict")),
            "text_norm": Choice(("ws+lower", "lower", "none")),
            "length_norm": Choice(("raw_upper", "normalized_upper", "raw")),
        },
    ),
    "ned": Spec(
        TEXT_PRESETS["ned"],
        lambda p: text_pairs(),
        lambda p: {
            "case_fold": Choice(("none", "latin", "all")),
            "fullwidth_to_halfwidth": Bool(),
            "both_empty": Number(0.0, 1.0, values=(0.0, 1.0)),
        },
    ),
    "text_qa": Spec(
        TEXT_PRESETS["text_qa"],
        lambda p: text_pairs(),
        lambda p: {
            "measure": Choice(("f1", "exact_match")),
            "keep_hyphen": Bool(),
            "letter_fallback": Bool(),
        },
    ),
    "codebleu": Spec(
        ["default", "paper", "pypi", "fusion_brain_2021"],
        lambda p: text_pairs(max_examples=2),
        lambda p: {
            "lang": Choice(
                ("python", "java", "javascript", "c_sharp", "php", "c", "cpp", "go", "ruby", "rust")
            ),
            "weights": Weights(),
            "keywords": Choice(("pypi", "codexglue")),
            "remove_comments": Choice(("none", "java", "lang")),
            "strip": Bool(),
            "missing_dataflow": Choice(("zero", "one", "zero_is_one")),
            "ast_clipping": Bool(),
        },
        extra_hostile_options={"weights": HOSTILE_WEIGHTS},
    ),
    "det_f1": Spec(
        ["default", "one_to_one", "fusion_brain_2021"],
        lambda p: det_images(),
        lambda p: {
            "matching": Choice(("any", "one_to_one")),
            "iou_threshold": Number(0.0, 1.0),
            "iou_boundary": Choice(("inclusive", "strict")),
            "box_format": Choice(("xywh", "xyxy")),
            "missing_class": Choice(("error", "empty")),
        },
        mutate=_mutate_det,
    ),
    "vqa_acc": Spec(VQA_PRESETS, vqa_inputs, _vqa_options),
    "ru_meteor": Spec(
        ["default", "captioning", "vqa", "nltk", "ru"],
        lambda p: text_pairs(),
        lambda p: {
            "preprocess": Choice(("fb_captioning", "fb_vqa", "ru", "none")),
            "number_words": Choice(("wordtodigits", "none")),
            "tokenizer": Choice(("nltk", "razdel")),
            "stemmer": Choice(("snowball_ru", "porter", "pymorphy3", "none")),
            "reference_agg": Choice(("max", "mean")),
            "alpha": Number(0.0, 1.0),
            "beta": Number(0.0, 100.0),
            "gamma": Number(0.0, 1.0),
            "wordnet_path": UnusedPath(),
        },
    ),
    # feature vectors only (no network); the path and model options are covered by test_fid_clip.py
    "fid_clip": Spec(
        ["default", "fusion_brain_2022", "clipscore"],
        lambda p: feature_sets(),
        lambda p: {
            "pre_resize": Number(0, 4096, whole=True),
            "clip_lowercase": Bool(),
            "clip_preprocess": Choice(("processor", "center_square_bilinear")),
            "clip_truncation": Choice(("keep_end", "slice")),
            "clip_clamp": Choice(("none", "per_example", "mean")),
            "clip_scale": Positive(),
            "batch_size": PositiveInt(),
            "device": Choice(("cpu",)),
        },
        mutate=_mutate_features,
    ),
}
# options every module must have valid by default (codebleu: `lang` is required unless the preset sets it)
REQUIRED = {
    ("codebleu", "default"): {"lang": "python"},
    ("codebleu", "paper"): {"lang": "java"},
    ("codebleu", "pypi"): {"lang": "go"},
}
# ru_meteor: the test set-up has no RuWordNet database (it is not on PyPI): exact and stem stages only
REQUIRED.update(
    {("ru_meteor", p): {"synonyms": "none"} for p in ("default", "captioning", "vqa", "nltk", "ru")}
)


def test_every_metric_has_a_spec():
    assert set(SPECS) >= set(metric_names()), (
        f"add a SPECS entry for {sorted(set(metric_names()) - set(SPECS))}"
    )


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    """One evaluate cache folder for the session (test_fuzz.py and test_fuzz_sweep.py share the metrics
    loaded into it, see `_metric`, and each checks that nothing is left behind in it)."""
    path = tmp_path_factory.getbasetemp() / "fuzz_cache"
    path.mkdir(exist_ok=True)
    return path


_LOADED = {}


def _metric(name, preset, cache_dir):
    import evaluate

    key = (name, preset)
    if key not in _LOADED:
        _LOADED[key] = evaluate.load(str(METRICS / name), preset, cache_dir=str(cache_dir))
    return _LOADED[key]


def _check_result(result, where):
    assert isinstance(result, dict), where
    assert isinstance(result.get("signature"), str), where
    for key, value in result.items():
        if key in ("signature", "per_example"):
            continue
        assert type(value) is float and math.isfinite(value), f"{where}: {key} = {value!r}"
    for row in result.get("per_example", []):
        values = row.values() if isinstance(row, dict) else [row]
        # floats, and flags (codebleu's dataflow_limited) as bools
        assert all(type(v) is bool or (type(v) is float and math.isfinite(v)) for v in values), (
            f"{where}: {row!r}"
        )


def _call(metric, kwargs):
    try:
        return metric.compute(**kwargs), None
    except (ValueError, TypeError) as err:
        return None, err


def _scenario(name, data, cache_dir):
    spec = SPECS[name]
    preset = data.draw(st.sampled_from(spec.presets), label="preset")
    metric = _metric(name, preset, cache_dir)
    inputs = data.draw(spec.inputs(preset), label="inputs")
    kinds = spec.options(preset)
    options = dict(REQUIRED.get((name, preset), {}))
    for opt in data.draw(
        st.lists(st.sampled_from(sorted(kinds)), max_size=2, unique=True), label="valid options"
    ):
        options[opt] = kinds[opt].draw(data)
    options["return_per_example"] = data.draw(st.booleans())
    what = data.draw(st.sampled_from(["valid", "option", "option", "input", "input"]), label="scenario")
    named, index, validity = None, None, VALID
    if what == "option" and kinds:
        named = data.draw(st.sampled_from(sorted(kinds)), label="hostile option")
        value = data.draw(st.sampled_from(HOSTILE + spec.extra_hostile_options.get(named, [])), label="value")
        if value is None:
            options.pop(named, None)  # None = not passed
            if (name, preset) in REQUIRED and named in REQUIRED[(name, preset)]:
                validity = INVALID
        else:
            options[named] = value
            validity = kinds[named].validity(value)
    elif what == "input":
        mutated = spec.mutate(data, inputs, options)
        inputs, named, index = mutated[:3]
        validity = mutated[3] if len(mutated) > 3 else INVALID
    elif what == "option":  # a metric without options: pass an unknown one
        named, validity = "no_such_option", INVALID
        options[named] = 1
    result, err = _call(metric, {**inputs, **options})
    _check_outcome(validity, result, err, named, index, f"{name}[{preset}] {what} {named!r}")


def _check_outcome(validity, result, err, named, index, where):
    """A call's (result, err) against what ``validity`` expects: VALID scores, INVALID is refused, EITHER may
    do both; a result is well formed, an error names the argument ``named`` (and ``index``, where given)."""
    where = f"{where} ({validity}): {str(err)[:300] if err else 'result'}"
    if validity == VALID:
        assert err is None, f"valid input refused: {where}"
    elif validity == INVALID:
        assert err is not None, f"invalid input accepted: {where}"
    if err is None:
        _check_result(result, where)
    else:
        message = str(err)
        assert named is not None and named in message, f"error does not name the argument: {where}"
        if index is not None:
            assert index in message, f"error does not name the index {index}: {where}"


@pytest.mark.parametrize("name", metric_names())
def test_fuzz(name, cache_dir):
    assert name in SPECS, f"add a SPECS entry for {name}"

    @settings(
        max_examples=MAX_EXAMPLES,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.data())
    def run(data):
        _scenario(name, data, cache_dir)

    run()
    from test_cache_safety import _leftovers

    assert _leftovers(cache_dir) == [], "a call left an evaluate cache file or lock behind"
