"""The deterministic sweep of the fuzz suite: every hostile value of test_fuzz.py in every option and every
input slot of one valid example of every metric; the outcome is a score, or an error naming the argument
(and the example index) exactly when the value is invalid."""

import numpy as np
import pytest
from helpers import metric_names
from test_fuzz import (
    EITHER,
    HOSTILE,
    INVALID,
    REQUIRED,
    SPECS,
    VALID,
    _box_validity,
    _call,
    _check_outcome,
    _feature_validity,
    _is_real,
    _metric,
    _utf8,
    cache_dir,  # noqa: F401 (the fixture, shared with test_fuzz.py)
)


# ----------------------------------------------------------------------------------------------
# Deterministic sweep: every hostile value in every option and every input slot of one example
# ----------------------------------------------------------------------------------------------
def _list_like(v) -> bool:
    return isinstance(v, list | tuple) or (isinstance(v, np.ndarray) and v.ndim >= 1)


def _text_slots(example, single_reference=VALID):
    """(name, put(inputs, v) -> (inputs, argument, index), validity(v)) of text-pair inputs
    (``single_reference``: whether one string as the references of an example is valid: not when
    the preset needs a number of answers)."""

    def put(arg, i, inner=None):
        def f(inputs, v):
            inputs = {k: list(x) for k, x in inputs.items()}
            if inner is None:
                inputs[arg][i] = v
            else:  # item 1 of the reference list (same length: presets may need a number of answers)
                refs = list(inputs[arg][i]) if isinstance(inputs[arg][i], list) else [inputs[arg][i]]
                refs = refs if len(refs) > 1 else refs + ["ok"]
                refs[1] = v
                inputs[arg][i] = refs
            return inputs, arg, f"[{i}]" if inner is None else f"[{i}][1]"

        return f

    def whole(arg):
        def f(inputs, v):
            return {**inputs, arg: v}, arg, None

        return f

    text_or_list = lambda v: single_reference if _utf8(v) else (EITHER if _list_like(v) else INVALID)  # noqa: E731
    return [
        ("prediction", put("predictions", 0), lambda v: VALID if _utf8(v) else INVALID),
        ("reference", put("references", 0), text_or_list),
        ("reference item", put("references", 0, inner=True), lambda v: VALID if _utf8(v) else INVALID),
        ("predictions", whole("predictions"), lambda v: EITHER if _list_like(v) else INVALID),
        ("references", whole("references"), lambda v: EITHER if _list_like(v) else INVALID),
    ]


def _det_slots(example):
    def coord(arg):
        def f(inputs, v):
            inputs = {k: [dict(im) for im in x] for k, x in inputs.items()}
            inputs[arg][0]["cat"] = [[v, 1.0, 2.0, 2.0]]
            return inputs, arg, "[0]"

        return f

    def at(arg, key, make):
        def f(inputs, v):
            inputs = {k: [dict(im) for im in x] for k, x in inputs.items()}
            if key is None:
                inputs[arg][0] = make(v)
            else:
                inputs[arg][0][make(v) if key == "class" else key] = [] if key == "class" else make(v)
            return inputs, arg, "[0]"

        return f

    def whole(arg):
        return lambda inputs, v: ({**inputs, arg: v}, arg, None)

    hashable = lambda v: getattr(type(v), "__hash__", None) is not None  # noqa: E731
    return [
        ("coordinate", coord("predictions"), lambda v: _box_validity([v, 1.0, 2.0, 2.0], "xywh")),
        ("reference coordinate", coord("references"), lambda v: _box_validity([v, 1.0, 2.0, 2.0], "xywh")),
        ("box", at("predictions", "cat", lambda v: [v]), lambda v: EITHER if _list_like(v) else INVALID),
        ("boxes", at("predictions", "cat", lambda v: v), lambda v: EITHER if _list_like(v) else INVALID),
        (
            "class",
            at("predictions", "class", lambda v: v),
            lambda v: (VALID if _utf8(v) else INVALID) if hashable(v) else None,
        ),
        ("image", at("predictions", None, lambda v: v), lambda v: EITHER if isinstance(v, dict) else INVALID),
        ("predictions", whole("predictions"), lambda v: EITHER if _list_like(v) else INVALID),
    ]


_RNG = np.random.default_rng(0)
EXAMPLES = {
    "fid_clip": {
        "predictions": _RNG.normal(size=(6, 3)).tolist(),
        "references": _RNG.normal(size=(7, 3)).tolist(),
    },
    "det_f1": {
        "predictions": [{"cat": [[1.0, 1.0, 2.0, 2.0]], "dog": []}],
        "references": [{"cat": [[1.0, 1.0, 2.0, 2.0]]}],
    },
    "vqa_acc:default": {"predictions": ["two"], "references": [["2"] * 10]},
    "vqa_acc:tdiuc": {"predictions": ["two"], "references": [["2"]], "question_types": ["count"]},
    "vqa_acc:fusion_brain_2021": {"predictions": ["пять"], "references": [["5"]], "languages": ["ru"]},
}


def _feature_slots(example):
    def put(i, j=None):
        def f(inputs, v):
            rows = [list(r) for r in inputs["predictions"]]
            if j is None:
                rows[i] = v
            else:
                rows[i][j] = v
            return {**inputs, "predictions": rows}, "predictions", None

        return f

    return [
        ("feature", put(0, 0), _feature_validity),
        ("vector", put(0), lambda v: INVALID if v is None or _is_real(v) else EITHER),
    ]


SLOTS = {
    "fid_clip": _feature_slots,
    "det_f1": _det_slots,
    "vqa_acc": lambda example: _text_slots(example, single_reference=EITHER),
}


@pytest.mark.parametrize("name", metric_names())
def test_sweep(name, cache_dir):  # noqa: F811 (the fixture imported from test_fuzz)
    assert name in SPECS, f"add a SPECS entry for {name}"
    spec = SPECS[name]
    for preset in spec.presets:
        metric = _metric(name, preset, cache_dir)
        example = EXAMPLES.get(
            f"{name}:{preset}", EXAMPLES.get(name, {"predictions": ["ab c"], "references": [["ab d"]]})
        )
        base = dict(REQUIRED.get((name, preset), {}))
        kinds = spec.options(preset)
        for option, kind in kinds.items():
            for value in HOSTILE + spec.extra_hostile_options.get(option, []):
                options = {**base, option: value}
                validity = kind.validity(value)
                if value is None:
                    options.pop(option)
                    validity = INVALID if option in base and (name, preset) in REQUIRED else VALID
                result, err = _call(metric, {**example, **options})
                _check_outcome(
                    validity, result, err, option, None, f"{name}[{preset}] {option}={value!r:.60}"
                )
        if preset != spec.presets[0]:
            continue  # inputs are checked alike in every preset: sweep them once
        for slot, put, rule in SLOTS.get(name, _text_slots)(example):
            for value in HOSTILE:
                validity = rule(value)
                if validity is None:
                    continue
                inputs, named, index = put(example, value)
                result, err = _call(metric, {**inputs, **base})
                _check_outcome(validity, result, err, named, index, f"{name}[{preset}] {slot}={value!r:.60}")
    from test_cache_safety import _leftovers

    assert _leftovers(cache_dir) == [], "a call left an evaluate cache file or lock behind"
