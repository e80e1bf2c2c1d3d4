"""The library's vqa_acc without evaluate: score on the seed vectors of every preset, Result, compare, the
option table, the per-question inputs, the check order."""

import pytest
from oracles.vqa import VQA_V2  # the seed vectors of the official VQA v2 accuracy

from multimodal_metrics import vqa_acc

TEN = ["yes"] * 10


def test_vqa_v2_seed_vectors():
    cases = sorted(VQA_V2)
    r = vqa_acc.score([VQA_V2[c][1] for c in cases], [VQA_V2[c][0] for c in cases], preset="vqa_v2",
                      return_per_example=True)  # fmt: skip
    assert r.per_example == [VQA_V2[c][2] for c in cases] == r["per_example"]
    assert r["accuracy"] == pytest.approx(sum(VQA_V2[c][2] for c in cases) / len(cases))
    assert r.signature == "vqa_acc|preset:vqa_v2|norm:official|answers:10|v:0.1.0"
    assert vqa_acc.score(["two"], [["2"] * 10], normalize="always")["accuracy"] == 1.0


def test_vqa_v2_breakdowns_by_question_and_answer_type():
    cases = ["A1", "A3", "A4", "A6"]
    r = vqa_acc.score(
        [VQA_V2[c][1] for c in cases],
        [VQA_V2[c][0] for c in cases],
        question_types=["how many", "what color", "how many", "what"],
        answer_types=["number", "other", "number", ""],
    )
    assert r["accuracy"] == pytest.approx((1 + 0.3 + 0 + 1) / 4)
    assert r["accuracy_question_type/how many"] == pytest.approx(0.5)
    assert r["accuracy_answer_type/number"] == pytest.approx(0.5)
    assert r["accuracy_answer_type/other"] == pytest.approx(0.3)
    assert "accuracy_answer_type/" not in r  # "" = no type


def test_other_presets_seed_vectors():
    r = vqa_acc.score(["Two.", "A dog!", "Кошки", "три"], ["2", "dog", "кошка", "3"], preset="fusion_brain_2021",
                      languages=["en", "en", "ru", "ru"])  # fmt: skip
    assert r["accuracy"] == 1.0 and r["accuracy_language/en"] == 1.0 and r["accuracy_language/ru"] == 1.0
    assert "ru:pymorphy3-" in r.signature
    assert vqa_acc.score(["dog"], ["Dog"], preset="fusion_brain_2021")["accuracy"] == 0.0  # GT not normalised
    r = vqa_acc.score(["red", "red", "red", "red", "2", "2"], ["red", "red", "red", "blue", "2", "3"], preset="tdiuc",
                      question_types=["color"] * 4 + ["counting"] * 2)  # fmt: skip
    assert r["accuracy"] == pytest.approx(2 / 3) and r["arithmetic_mpt"] == pytest.approx(0.625)
    assert r["harmonic_mpt"] == pytest.approx(0.6) and r["arithmetic_nmpt"] == pytest.approx(0.5)
    assert r["normalized_accuracy_question_type/color"] == 0.5
    assert r.signature == "vqa_acc|preset:tdiuc|answers:1|eps:1e-10|key:none|v:0.1.0"
    r = vqa_acc.score(["cat", "table,chair", "couch"], ["dog", "chair,table", "sofa"], preset="wups")
    assert r["wups"] == pytest.approx(0.695238, abs=1e-6)
    assert r.signature == "vqa_acc|preset:wups|thr:0.9|answers:any|wn:3.0|v:0.1.0"
    r = vqa_acc.score(["dog", "table, chair"], ["dog", "chair,table"], preset="wups", threshold=-1)
    assert r["wups"] == 1.0 and "wn:none" in r.signature
    r = vqa_acc.score(["dog", "dog"], [["dog"], ["black dog"]], preset="bleu1")
    assert (round(r["bleu1"], 6), round(r["bleu1_corpus"], 6)) == (0.68394, 0.606531)
    assert r.signature == "vqa_acc|preset:bleu1|tok:split|answers:any|v:0.1.0"
    assert vqa_acc.score(["Dog"], ["dog"], preset="bleu1", lowercase=True)["bleu1"] == 1.0


def test_result_forms():
    r = vqa_acc.score(["w", "x", "y", "z"], ["w", "x", "y", "q"], preset="fusion_brain_2021", confidence=0.9)
    assert (r["accuracy"], r["accuracy_ci_low"], r["accuracy_ci_high"]) == (0.75, 0.25, 1.0)
    assert r.signature.endswith("|ci:bs-pct|conf:0.9|bs:1000|seed:12345|v:0.1.0")
    assert type(r.to_dict()) is dict and "per_example" not in r and r.per_example == [1.0, 1.0, 1.0, 0.0]
    trainer = r.for_trainer()
    assert trainer["vqa_acc_accuracy"] == 0.75 and trainer["vqa_acc_accuracy_language/en"] == 0.75
    assert set(r.for_trainer("val")) == {"val_accuracy", "val_accuracy_ci_low", "val_accuracy_ci_high",
                                         "val_accuracy_language/en"}  # fmt: skip
    r = vqa_acc.score(
        ["red", "2", "2"], ["red", "2", "3"], preset="tdiuc", question_types=["c", "n", "n"], confidence=0.9
    )
    assert {"arithmetic_mpt_ci_low", "harmonic_mpt_ci_high"} <= set(r) and r.statistic.keys[
        1
    ] == "arithmetic_mpt"


def test_compare():
    refs = [TEN, ["no"] * 10, ["2"] * 10]
    out = vqa_acc.compare(
        ["yes", "no", "2"], ["yes", "no", "3"], refs, test="paired_bootstrap", n_resamples=100
    )
    assert out["accuracy_a"] == 1.0 and out["accuracy_b"] == pytest.approx(2 / 3)
    assert "test:paired-bs|n:100" in out["signature"]
    out = vqa_acc.compare(["a", "b"], ["a", "c"], ["a", "b"], preset="bleu1", n_resamples=100)
    assert set(out) >= {"bleu1_p_value", "bleu1_corpus_difference"}
    with pytest.raises(ValueError, match="predictions_b"):
        vqa_acc.compare(["a"], None, [TEN])


def test_option_table_drives_the_checks():
    assert vqa_acc.OPTIONS.names == [
        "num_answers", "normalize", "epsilon", "answer_key", "threshold", "wordnet_path", "lowercase",
    ]  # fmt: skip
    assert set(vqa_acc.PRESETS) == {
        "default",
        "vqa_v2",
        "lmms_eval",
        "vlmevalkit",
        "fusion_brain_2021",
        "tdiuc",
        "wups",
        "bleu1",
    }
    assert all(set(values) <= set(vqa_acc.OPTIONS.names) for values in vqa_acc.PRESETS.values())
    assert vqa_acc.OPTIONS.takes("tdiuc") == ["num_answers", "epsilon", "answer_key"]
    with pytest.raises(
        ValueError,
        match=r"`normalize` must be one of \['official', 'always', 'never', 'lmms_eval', 'vlmevalkit'\]",
    ):
        vqa_acc.score(["a"], [TEN], normalize="sometimes")
    with pytest.raises(
        ValueError, match=r"unknown option 'threshold'; expected one of \['normalize', 'num_answers'\]"
    ):
        vqa_acc.score(["a"], [TEN], threshold=0.5)
    assert vqa_acc.score(["a"], [TEN], threshold=None)["accuracy"] == 0.0  # None = not passed
    with pytest.raises(ValueError, match=r"vqa_acc: unknown preset \(config_name\) 'vqa_v3'"):
        vqa_acc.score(["a"], [TEN], preset="vqa_v3")
    with pytest.raises(ValueError, match=r"`num_answers` must be a finite number >= 0, got -1"):
        vqa_acc.score(["a"], [TEN], num_answers=-1)
    with pytest.raises(ValueError, match=r"`num_answers` must be a whole number \(0 = any\), got 2.5"):
        vqa_acc.score(["a"], [TEN], num_answers=2.5)
    with pytest.raises(ValueError, match=r"`threshold` must be -1 \(set accuracy\) or a number in \[0, 1\]"):
        vqa_acc.score(["a"], ["a"], preset="wups", threshold=-0.5)
    with pytest.raises(TypeError, match=r"`answer_key\[1\]` must be a string"):
        vqa_acc.score(["a"], ["a"], preset="tdiuc", question_types=["c"], answer_key=["a", 1])
    with pytest.raises(TypeError, match=r"`lowercase` must be True or False"):
        vqa_acc.score(["a"], ["a"], preset="bleu1", lowercase="yes")
    with pytest.raises(ValueError, match=r"WordNet 3.0 was not found under `wordnet_path`.*threshold=-1"):
        vqa_acc.score(["a"], ["b"], preset="wups", wordnet_path="/nonexistent/wordnet")
    text = vqa_acc.OPTIONS.describe()
    assert (
        "num_answers (`int`, optional)" in text
        and "Presets: default 10, vqa_v2 10, lmms_eval 10, vlmevalkit 0, fusion_brain_2021 0" in text
    )
    assert "epsilon (`float`, optional)" in text and "Presets: tdiuc 1e-10." in text


def test_per_question_inputs():
    with pytest.raises(ValueError, match=r"unknown input\(s\) \['languages'\]; this preset accepts predictions, "
                       r"references, question_types, answer_types"):  # fmt: skip
        vqa_acc.score(["a"], [TEN], languages=["en"])
    with pytest.raises(ValueError, match=r"`question_types` is required for preset 'tdiuc'"):
        vqa_acc.score(["a"], ["a"], preset="tdiuc")
    with pytest.raises(ValueError, match=r"`question_types\[1\]` is empty"):
        vqa_acc.score(["a", "b"], ["a", "b"], preset="tdiuc", question_types=["color", ""])
    with pytest.raises(ValueError, match=r"`languages\[1\]` must be one of \['en', 'ru'\], got 'fr'"):
        vqa_acc.score(["a", "b"], ["a", "b"], preset="fusion_brain_2021", languages=["en", "fr"])
    with pytest.raises(ValueError, match=r"`predictions` has 1 examples but `answer_types` has 2"):
        vqa_acc.score(["a"], [TEN], answer_types=["x", "y"])
    with pytest.raises(ValueError, match=r"`references\[1\]` has 9 answers but num_answers=10"):
        vqa_acc.score(["a", "b"], [TEN, ["yes"] * 9])
    with pytest.raises(ValueError, match=r"`references\[0\]` has 2 answers but num_answers=1"):
        vqa_acc.score(["a"], [["a", "b"]], preset="tdiuc", question_types=["color"])
    assert vqa_acc.score(["yes"], [["yes"] * 9], num_answers=0)["accuracy"] == 1.0


def test_checks_run_in_computes_order():
    """The preset, the resampling options, return_per_example, the inputs a preset does not take, the
    options, then predictions, references and the per-question inputs: the first failing one is reported."""
    with pytest.raises(ValueError, match="unknown preset"):
        vqa_acc.score(None, None, preset="x", confidence=2)
    with pytest.raises(ValueError, match="`confidence`"):
        vqa_acc.score(None, None, confidence=2, return_per_example="no")
    with pytest.raises(TypeError, match="`return_per_example`"):
        vqa_acc.score(None, None, return_per_example="no", languages=["en"])
    with pytest.raises(ValueError, match=r"unknown input\(s\)"):
        vqa_acc.score(None, None, languages=["en"], normalize="x")
    with pytest.raises(ValueError, match="`normalize`"):
        vqa_acc.score(None, None, normalize="x")
    with pytest.raises(ValueError, match="`predictions` is required"):
        vqa_acc.score(None, None, answer_types=[1])
    with pytest.raises(TypeError, match=r"`answer_types\[0\]` must be a string"):
        vqa_acc.score(["a"], [["a"] * 9], answer_types=[1])  # before the number of answers


def test_an_option_of_another_preset_names_the_preset_that_takes_it():
    """answer_key belongs to tdiuc: under the default preset the error says so (the command line's --answer-key too)."""
    with pytest.raises(
        ValueError,
        match=r"unknown option 'answer_key'; .*preset 'default' does not take it; "
        r"preset 'tdiuc' does\)$",
    ):
        vqa_acc.score(["yes"], [["yes"] * 10], answer_key=["yes"])
