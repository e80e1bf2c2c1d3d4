"""The signature as data: ``results.Signature`` formats ``name|preset:P|key:value|...|v:VERSION`` in one
place (version last), adds fields without string splicing, and every metric's ``Result`` (``score`` and
``State.result``) carries it with the options it resolved."""

import numpy as np
import pytest

from multimodal_metrics import anls, det_f1, fid_clip, ned, vqa_acc
from multimodal_metrics.results import Result, Signature, build_signature, make_result
from multimodal_metrics.stats import Resampling

VERSION = Signature("x", "p").version


def test_format_writes_the_fields_in_order_with_the_version_last():
    sig = Signature("anls", "stvqa", {"thr": 0.5, "bound": "strict", "w": [0.25, 1.0], "on": True})
    assert sig.format() == f"anls|preset:stvqa|thr:0.5|bound:strict|w:0.25,1|on:yes|v:{VERSION}"
    assert str(sig) == sig.format() == build_signature("anls", "stvqa", sig.fields)
    assert Signature("m", "p", {"x": 0.1 + 0.2}).format() == f"m|preset:p|x:0.30000000000000004|v:{VERSION}"
    assert Signature("m", "p", version="9.9").format() == "m|preset:p|v:9.9"
    assert sig.as_dict() == {
        "metric": "anls",
        "preset": "stvqa",
        "thr": 0.5,
        "bound": "strict",
        "w": [0.25, 1.0],
        "on": True,
        "v": VERSION,
    }
    assert list(sig.as_dict())[-1] == "v"


def test_with_fields_adds_before_the_version_and_leaves_the_original():
    sig = Signature("ned", "default", {"case": "none"})
    more = sig.with_fields({"ci": "bs-pct", "conf": 0.9}, bs=10, seed=1)
    assert more.format() == f"ned|preset:default|case:none|ci:bs-pct|conf:0.9|bs:10|seed:1|v:{VERSION}"
    assert sig.format() == f"ned|preset:default|case:none|v:{VERSION}"
    assert sig.with_fields() == sig and sig.with_fields() is not sig
    with pytest.raises(ValueError, match=r"already has the field\(s\) \['case'\]"):
        sig.with_fields(case="latin")


def test_fields_are_a_copy_and_equality_follows_the_data():
    sig = Signature("m", "p", {"a": 1})
    sig.fields["a"] = 2
    assert sig.fields == {"a": 1}
    assert sig == Signature("m", "p", {"a": 1}) and hash(sig) == hash(Signature("m", "p", {"a": 1}))
    assert sig != Signature("m", "p", {"a": 2}) and sig != Signature("m", "q", {"a": 1})
    assert Signature("m", "p", {"a": 1, "b": 2}) != Signature("m", "p", {"b": 2, "a": 1})  # order is data
    assert sig != sig.format() and repr(sig) == f"Signature('m|preset:p|a:1|v:{VERSION}')"


def test_make_result_writes_the_string_and_a_hand_made_result_has_no_signature():
    sig = Signature("m", "p", {"a": 1})
    assert make_result({"s": 1}, sig) == {"s": 1.0, "signature": sig.format()}
    bare = Result({"s": 1.0, "signature": "m|v:1"}, "m")
    assert bare.signature == "m|v:1" and bare.get_signature() is None
    assert bare.signature_fields == {} and bare.options == {} and bare.preset is None


TEXT = (["the cat", "a dog", "Bird", "fish"], [["the cat"], ["dog", "a dog!"], ["bird"], ["fishes"]])
DET = ([{"cat": [[0, 0, 10, 10]]}, {"dog": []}], [{"cat": [[1, 1, 10, 10]]}, {"dog": [[0, 0, 5, 5]]}])
VQA = (["yes", "2"], [["yes"] * 10, ["two"] * 10])


@pytest.mark.parametrize(
    "module,inputs,preset,passed",
    [
        (anls, TEXT, "stvqa", {"threshold": 0.25}),
        (anls, TEXT, "default", {}),
        (ned, TEXT, "icdar2019", {"cer_strip": True}),
        (det_f1, DET, "one_to_one", {"iou_threshold": 0.3}),
        (vqa_acc, VQA, "vqa_v2", {}),
    ],
)
def test_results_carry_the_signature_and_the_resolved_options(module, inputs, preset, passed):
    resolved = module.OPTIONS.resolve(preset, passed)
    for confidence in (None, 0.9):
        r = module.score(*inputs, preset, confidence=confidence, n_resamples=20, seed=3, **passed)
        sig = r.get_signature()
        assert isinstance(sig, Signature) and sig.format() == r["signature"] == r.signature
        assert (sig.metric, sig.preset, r.preset) == (module.OPTIONS.metric, preset, preset)
        assert r.signature_fields == sig.fields
        assert r.options == resolved and set(r.options) == set(module.PRESETS[preset])
        table_fields = module.OPTIONS.signature_fields(resolved)
        assert list(sig.fields)[: len(table_fields)] == list(table_fields)
        if confidence is None:
            assert "conf" not in sig.fields
        else:
            assert {k: sig.fields[k] for k in ("ci", "conf", "bs", "seed")} == Resampling(
                0.9, 20, 3
            ).signature_fields()
        st = module.state(preset, **passed).update(*inputs)
        merged = st.result(confidence=confidence, n_resamples=20, seed=3)
        assert merged.get_signature() == sig and merged.options == r.options


def test_the_options_replace_reading_the_signature_back():
    """What det_f1's demo reads from its result: the resolved options, not the signature's text."""
    r = det_f1.score(*DET, "one_to_one", iou_threshold=0.3)
    drawn = {k: r.options[k] for k in ("matching", "iou_threshold", "iou_boundary", "box_format")}
    assert drawn == {
        "matching": det_f1.PRESETS["one_to_one"]["matching"],
        "iou_threshold": 0.3,
        "iou_boundary": det_f1.PRESETS["one_to_one"]["iou_boundary"],
        "box_format": det_f1.PRESETS["one_to_one"]["box_format"],
    }
    r.options["iou_threshold"] = 0.9  # a copy: the next result is not changed
    assert det_f1.score(*DET, "one_to_one", iou_threshold=0.3).options["iou_threshold"] == 0.3


def test_resampling_fields_added_to_a_result_signature():
    """A score without an interval, then the interval's fields added: the signature a score with that
    interval writes (what the command line does for the CLIP score it resamples itself)."""
    plain = anls.score(*TEXT)
    added = plain.get_signature().with_fields(Resampling(0.9, 20, 3).signature_fields())
    assert added.format() == anls.score(*TEXT, confidence=0.9, n_resamples=20, seed=3)["signature"]
    assert added.format().endswith(f"|ci:bs-pct|conf:0.9|bs:20|seed:3|v:{VERSION}")


def test_compare_adds_the_test_fields_before_the_version():
    a, b = ["the cat", "a dog", "x", "fish"] * 2, ["the cat", "dog", "bird", "y"] * 2
    out = anls.compare(a, b, TEXT[1] * 2, n_resamples=50, seed=2)
    sig = anls.score(a, TEXT[1] * 2).get_signature()
    expected = sig.with_fields(test="paired-ar", n=50, conf=0.95, seed=2, p="ge")
    assert out["signature"] == expected.format()


def test_fid_clip_signature_and_options():
    rng = np.random.default_rng(0)
    r = fid_clip.score(rng.normal(size=(20, 4)), rng.normal(size=(30, 4)), confidence=0.9, n_resamples=20)
    assert r.signature_fields == {
        "feat": "given",
        "ci": "bs-pct",
        "fidci": "bias-shift",
        "conf": 0.9,
        "bs": 20,
        "seed": 12345,
    }
    assert r.get_signature().format() == r["signature"]
    assert r.options["clip_scale"] == fid_clip.PRESETS["default"]["clip_scale"]
    assert set(r.options) == set(fid_clip.PRESETS["default"])


def test_paired_comparison_takes_the_signature_as_data():
    from multimodal_metrics.stats import paired_comparison

    r = anls.score(*TEXT)
    args = (r.statistic, r.statistic)
    by_data = paired_comparison(*args, r.get_signature(), n_resamples=10)["signature"]
    with pytest.raises(TypeError, match="`signature` must be a Signature"):
        paired_comparison(*args, r.signature, n_resamples=10)  # a string is never parsed back
    assert by_data.endswith(f"|test:paired-ar|n:10|conf:0.95|seed:12345|p:ge|v:{VERSION}")
