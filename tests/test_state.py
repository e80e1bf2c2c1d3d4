"""The mergeable state (multimodal_metrics.state): its rules on ANLS, and the bytes format's refusals.

Each metric's own state equality tests live beside it (tests/test_state_<metric>.py); they share the
checks of tests/state_checks.py.
"""

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from state_checks import (
    StateCase,
    assert_same_result,
    check_merges_equal_score,
    check_round_trip,
    with_edited_header,
)

from multimodal_metrics import anls
from multimodal_metrics import state as mmstate


def anls_case(n=301, seed=0, **options) -> StateCase:
    rng = random.Random(seed)
    words = ["receipt", "Paris", "total 12", "the bill", "", "N/A", "42", "dr. who"]
    predictions = [rng.choice(words) + rng.choice(["", "s", " ", "x"]) for _ in range(n)]
    references = [[rng.choice(words) or "x" for _ in range(rng.randint(1, 3))] for _ in range(n)]
    return StateCase(anls, {"predictions": predictions, "references": references}, options)


@pytest.mark.parametrize("preset", ["default", "stvqa", "layoutlmv2", "anls_star"])
def test_anls_merged_states_equal_score(preset):
    check_merges_equal_score(anls_case(preset=preset, threshold=0.4 if preset == "stvqa" else None))


def test_anls_round_trip():
    check_round_trip(anls_case())


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 60), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_any_split_any_merge_order(n, k, seed):
    case = anls_case(n, seed)
    check_merges_equal_score(case, seed=seed, splits=1)


def test_default_index_continues_and_padding_duplicates_drop():
    case = anls_case(10)
    state = anls.state()
    state.update(**case.take(range(6)))
    state.update(**case.take(range(6, 10)))  # indexes 6..9 follow on
    state.update(**case.take([0, 1]), index=[0, 1])  # DistributedSampler's padding: the same examples again
    assert state.index.tolist() == list(range(10))
    assert_same_result(
        state.result(return_per_example=True), anls.score(**case.inputs, return_per_example=True)
    )


def test_conflicting_duplicate_is_refused_and_state_kept():
    state = anls.state()
    state.update(["a", "b"], ["a", "b"], index=[3, 4])
    before = state.to_bytes()
    with pytest.raises(ValueError, match="index 4 was given to two different examples"):
        state.update(["zz"], ["b"], index=[4])
    assert state.to_bytes() == before
    with pytest.raises(ValueError, match="index 3 was given to two different examples"):
        state.merge(anls.State.from_bytes(anls.state().update(["q"], ["a"], index=[3]).to_bytes()))
    assert state.to_bytes() == before


@pytest.mark.parametrize(
    ("other", "what"),
    [
        (lambda: anls.state(preset="stvqa"), "preset differs"),
        (lambda: anls.state(threshold=0.6), "option 'threshold' differs"),
        (lambda: anls.state(text_norm="lower"), "option 'text_norm' differs"),
    ],
)
def test_other_options_are_refused_naming_them(other, what):
    with pytest.raises(ValueError, match=what):
        anls.state().update(["a"], ["a"]).merge(other().update(["b"], ["b"], index=[1]))


def test_other_metric_and_version_are_refused():
    from multimodal_metrics import ned

    with pytest.raises(ValueError, match="metric differs"):
        anls.state().merge(ned.state())
    with pytest.raises(ValueError, match="a ned state, not a state of anls"):
        anls.State.from_bytes(ned.state().to_bytes())
    old = anls.state().update(["a"], ["a"])
    old.version = "0.0.9"
    with pytest.raises(ValueError, match="library version differs"):
        anls.state().merge(old)
    with pytest.raises(ValueError, match="written by multimodal-metrics 0.0.9"):
        old.result()
    # the same through the bytes: a state another version wrote keeps its version when it is read back
    blob = with_edited_header(
        anls.state().update(["a"], ["a"]).to_bytes(), lambda h: h.update(version="0.0.9")
    )
    read = anls.State.from_bytes(blob)
    assert read.version == "0.0.9"
    with pytest.raises(ValueError, match="library version differs"):
        anls.state().update(["b"], ["b"], index=[1]).merge(read)
    with pytest.raises(ValueError, match="written by multimodal-metrics 0.0.9"):
        read.result()
    with pytest.raises(TypeError, match="can only merge a state"):
        anls.state().merge({"anls": 1.0})


def test_empty_state_merges_as_no_op_and_has_score_error():
    state = anls.state().update(["a", "b"], ["a", "c"])
    blob = state.to_bytes()
    assert state.merge(anls.state()).to_bytes() == blob
    empty = anls.state(preset="stvqa")
    with pytest.raises(ValueError) as state_error:
        empty.result()
    with pytest.raises(ValueError) as score_error:
        anls.score([], [], preset="stvqa")
    assert str(state_error.value) == str(score_error.value)
    assert len(anls.State.from_bytes(empty.to_bytes())) == 0


def test_update_errors_are_those_of_score():
    state = anls.state()
    with pytest.raises(TypeError, match=r"predictions\[1\]"):
        state.update(["a", None], ["a", "b"])
    with pytest.raises(ValueError, match="`index` has 1 entries but the batch has 2"):
        state.update(["a", "b"], ["a", "b"], index=[0])
    with pytest.raises(TypeError, match=r"`index\[1\]` must be a whole number"):
        state.update(["a", "b"], ["a", "b"], index=[0, 1.5])
    with pytest.raises(ValueError, match=r"`index\[0\]` must be in \[0, 2\*\*63 - 1\]"):
        state.update(["a"], ["a"], index=[-1])
    assert len(state) == 0
    state.update(["a", "b"], ["a", "b"], index=np.array([5, 2]))  # numpy integers are indexes too
    assert state.index.tolist() == [2, 5]


def test_options_are_checked_at_creation():
    with pytest.raises(ValueError, match="threshold"):
        anls.state(threshold=2.0)
    with pytest.raises(ValueError, match="unknown preset"):
        anls.state(preset="nope")


def test_from_bytes_of_any_metric_and_merge_all():
    a = anls.state().update(["a"], ["a"], index=[0])
    b = anls.state().update(["b"], ["c"], index=[1])
    merged = mmstate.merge_all([mmstate.from_bytes(a.to_bytes()), b])
    assert merged.index.tolist() == [0, 1] and len(a) == 1
    assert_same_result(merged.result(), anls.score(["a", "b"], ["a", "c"]))


@pytest.mark.parametrize(
    ("blob", "message"),
    [
        (b"", "not a multimodal-metrics state"),
        (b"\x80\x04pickle", "not a multimodal-metrics state"),
        (b"MMSTATE\x00\x02\x00\x00\x00\xff\xff\xff\x00" + bytes(8) + b"{}", "over the format"),
        (b"MMSTATE\x00\x02\x00\x00\x00\x02\x00\x00\x00" + bytes(8) + b"[]", "announces 58"),
        (b"MMSTATE\x00\x02\x00\x00\x00[]", "truncated"),
        (b"MMSTATE\x00\x05\x00\x00\x00\x02\x00\x00\x00" + bytes(8) + b"{}", "format 5 is not supported"),
        (b'MMSTATE\x00\x20\x00\x00\x00{"columns": []}', "format 1"),
    ],
)
def test_malformed_bytes_are_refused(blob, message):
    with pytest.raises(ValueError, match=message):
        anls.State.from_bytes(blob)


def test_tampered_headers_are_refused():
    blob = anls.state().update(["a", "b"], ["a", "b"]).to_bytes()
    cases = [
        (lambda h: h.update(format=99), "says format 99"),
        (lambda h: h.update(n=3), "truncated|after the last part|rows"),
        (lambda h: h["columns"][0].update(dtype="<O"), "malformed column"),
        (lambda h: h["columns"][0].update(shape=[2, 2]), "do not fit"),
        (lambda h: h["options"].update(threshold=7), "threshold"),
        (lambda h: h["options"].update(evil=1), "unknown option"),
        (lambda h: h.update(metric="os"), "unknown metric"),
    ]
    for edit, message in cases:
        with pytest.raises(ValueError, match=message):
            mmstate.from_bytes(with_edited_header(blob, edit))
    with pytest.raises(ValueError, match="followed by other bytes"):
        anls.State.from_bytes(blob + b"\x00")
    with pytest.raises(TypeError, match="must be bytes"):
        anls.State.from_bytes("MMSTATE")


def test_bytes_size_per_example():
    """ANLS keeps 32 bytes per question (its score, its index and the 16-byte digest of its inputs) plus a
    header of a few hundred bytes and the 32-byte checksum."""
    small, large = (len(anls_case(n).shard_state(range(n)).to_bytes()) for n in (100, 1100))
    assert 0 <= large - small - 1000 * 32 < 16  # the header's counts grow by a few digits
    assert small < 100 * 32 + 512


def text_case(module, n=203, seed=1, **options) -> StateCase:
    rng = random.Random(seed)
    words = ["сорок два", "Москва", "abc", "ABC", "", "a", "б", "пять", "the cat", "ＡＢ"]
    predictions = [rng.choice(words) for _ in range(n)]
    references = [[rng.choice(words) for _ in range(rng.randint(1, 3))] for _ in range(n)]
    return StateCase(module, {"predictions": predictions, "references": references}, options)


@pytest.mark.parametrize("preset", ["default", "icdar2019", "empty_match"])
def test_ned_merged_states_equal_score(preset):
    from multimodal_metrics import ned

    check_merges_equal_score(text_case(ned, preset=preset))
    check_round_trip(text_case(ned, preset=preset, cer_strip=True))


@pytest.mark.parametrize("preset", ["default", "mathqa", "plain"])
def test_text_qa_merged_states_equal_score(preset):
    from multimodal_metrics import text_qa

    check_merges_equal_score(text_case(text_qa, n=97, preset=preset), splits=2)
    check_round_trip(text_case(text_qa, n=20, preset=preset))


def test_text_qa_states_of_another_lemmatiser_are_refused():
    from multimodal_metrics import text_qa

    a = text_qa.state().update(["пять"], ["5"], index=[0])
    b = text_qa.state().update(["два"], ["2"], index=[1])
    b.context = {"lemma": "pymorphy3-0.0.1/ru-old"}
    with pytest.raises(ValueError, match="'lemma' is 'pymorphy3-0.0.1/ru-old' in one"):
        a.merge(b)


@pytest.mark.parametrize("name", ["anls", "ned", "text_qa", "ru_meteor", "codebleu", "det_f1", "vqa_acc"])
def test_each_metric_api_is_its_module_own(name):
    """``score``, ``compare``, ``State`` and ``state`` made by the shared factories are the scoring module's
    own names: pickled by reference, with the explicit call signature and the metric's docstring."""
    import importlib
    import inspect
    import pickle

    module = importlib.import_module(f"multimodal_metrics.{name}.scoring")
    for obj in (module.score, module.compare, module.State, module.state, module.score_checked):
        assert obj.__module__ == module.__name__ and pickle.loads(pickle.dumps(obj)) is obj
    assert module.State.metric == name and module.State.options is module.OPTIONS
    assert list(inspect.signature(module.score).parameters)[:3] == ["predictions", "references", "preset"]
    assert list(inspect.signature(module.state).parameters) == ["preset", "total", "options"]
    assert "p_value" in inspect.signature(module.compare).parameters
    assert module.score.__doc__ and module.State.__doc__ and module.compare.__doc__
    assert inspect.signature(module.state).parameters["preset"].default == module.OPTIONS.default_preset
