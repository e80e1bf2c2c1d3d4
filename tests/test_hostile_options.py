"""Options refused by type and range: arrays and containers, numpy scalars, integers beyond a range
(resampling options, seeds), the paired test's name; each error names the argument."""

import numpy as np
import pytest
from helpers import load_metric
from hypothesis import given, settings
from hypothesis import strategies as st
from test_hostile_text import _library

from multimodal_metrics import stats

BOX = [[0, 0, 2, 2]]


# ----------------------------------------------------------------------------------------------
# Options: strict types
# ----------------------------------------------------------------------------------------------
TEXT = {"predictions": ["ac"], "references": [["ab"]]}


@pytest.mark.parametrize(
    "name, option, value",
    [
        ("anls", "length_norm", np.array(["raw_upper"])),
        ("anls", "length_norm", np.array(["raw_upper", "raw"])),
        ("anls", "boundary", ["strict"]),
        ("anls", "boundary", b"strict"),
        ("text_qa", "measure", np.array(["f1"])),
        ("text_qa", "measure", {"f1"}),
        ("ned", "case_fold", np.array("none")),
        ("ned", "both_empty", np.array([1.0])),
        ("anls", "threshold", np.array([0.5])),
        ("anls", "threshold", 10**400),
        ("anls", "threshold", np.bool_(True)),
        ("codebleu", "lang", np.array(["python"])),
        ("codebleu", "lang", ["python"]),
    ],
)
def test_array_and_container_options_are_refused(name, option, value):
    with pytest.raises((TypeError, ValueError), match=f"`{option}`"):
        load_metric(name).compute(**TEXT, **{option: value})


def test_numpy_string_scalar_option_gives_the_plain_signature():
    r = load_metric("anls").compute(**TEXT, length_norm=np.str_("raw_upper"), boundary=np.str_("inclusive"))
    assert r == load_metric("anls").compute(**TEXT)
    assert "numpy" not in r["signature"] and "[" not in r["signature"]


@pytest.mark.parametrize("path", ["a\x00b", "", b"/tmp", "\ud800", 3])
def test_wups_wordnet_path_is_checked(path):
    with pytest.raises((TypeError, ValueError), match="`wordnet_path`"):
        load_metric("vqa_acc", "wups").compute(predictions=["dog"], references=["cat"], wordnet_path=path)


def test_check_number_overflowing_integer_is_a_value_error():
    from multimodal_metrics import options as common

    with pytest.raises(ValueError, match="`x` must be a number"):
        common.check_number(10**400, "x", 0, 1)
    with pytest.raises(ValueError, match="`x` must be one of"):
        common.check_choice("z" * 10**6, ["a"], "x")
    assert len(str(pytest.raises(ValueError, common.check_choice, "z" * 10**6, ["a"], "x").value)) < 300


# ----------------------------------------------------------------------------------------------
# Family 2: resampling options and the paired test name the argument
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value", [10**400, -(10**400), 2**1100])
@pytest.mark.parametrize("arg", ["confidence", "n_resamples", "seed"])
def test_huge_integer_resampling_option_is_a_value_error_naming_it(arg, value):
    kwargs = {"confidence": 0.9, arg: value}
    with pytest.raises(ValueError, match=rf"`{arg}`"):
        stats.Resampling(**kwargs)
    with pytest.raises(ValueError, match=rf"`{arg}`"):
        _library("anls").score(["a"], ["a"], **kwargs)
    with pytest.raises(ValueError, match=rf"`{arg}`"):
        load_metric("anls").compute(predictions=["a"], references=["a"], **kwargs)
    with pytest.raises(ValueError, match=rf"`{arg}`"):
        _library("anls").compare(["a"], ["b"], ["a"], **kwargs)


@given(st.integers(min_value=2**64))
@settings(max_examples=30, deadline=None)
def test_every_integer_beyond_the_seed_range_is_refused(seed):
    with pytest.raises(ValueError, match="`seed`"):
        stats.Resampling(0.9, 10, seed)
    assert stats.Resampling(0.9, 10, 2**64 - 1).seed == 2**64 - 1


@pytest.mark.parametrize(
    "test",
    [
        np.array(["paired_bootstrap"]),
        np.array(["a", "b"]),
        np.array("paired_bootstrap"),
        ["x"],
        {"a": 1},
        1,
        None,
    ],
)
def test_compare_test_that_is_not_a_string_names_test(test):
    with pytest.raises((TypeError, ValueError), match="`test`"):
        _library("anls").compare(["a"], ["b"], ["a"], test=test)
    with pytest.raises((TypeError, ValueError), match="`test`"):
        load_metric("anls").compare(predictions_a=["a"], predictions_b=["b"], references=["a"], test=test)
    with pytest.raises((TypeError, ValueError), match="`test`"):
        load_metric("det_f1").compare(
            predictions_a=[{"cat": BOX}], predictions_b=[{"cat": []}], references=[{"cat": BOX}], test=test
        )


def test_compare_test_as_numpy_str_is_the_plain_name():
    out = _library("anls").compare(["a"], ["b"], ["a"], test=np.str_("paired_bootstrap"), n_resamples=10)
    assert "test:paired-bs" in out["signature"]
