"""1 - NED (normalised edit distance), string accuracy and CER for text recognition, as an evaluate module."""

import evaluate

import multimodal_metrics  # From: "multimodal-metrics[hf]==0.1.0"

ned = multimodal_metrics.require("0.1.0", "ned")
hf = multimodal_metrics.require("0.1.0", "hf")

_DESCRIPTION = """\
1 - NED scores a recognised text line against its accepted transcriptions with 1 - Levenshtein /
max(len), keeps the best transcription and averages over examples. The default preset reproduces the
official AIJ 2022 FusionBrain "Text Recognition in the Wild" scoring (calculate_NED.py): no
normalisation at all, and a pair where either string is empty scores 0 (two empty strings too).
The result also holds the AIJ 2021 handwritten-text `string_accuracy` (exact string match) and the
corpus character error rate `cer`. Presets `icdar2019` (ReCTS: Latin case-insensitive, full-width =
half-width, two empty strings score 1) and `empty_match` (only the two-empty-strings rule changed)
cover the other conventions; every choice is an option and is recorded in `signature`.
"""

_KWARGS_DESCRIPTION = (
    hf.text_pair_args(ned, "one recognised text per example", "the accepted transcription(s) per example")
    + """\
Returns:
    one_minus_ned (`float`): mean over examples of the best 1 - NED, in [0, 1].
    string_accuracy (`float`): fraction of examples whose prediction equals a reference exactly
        (after the same normalisation), in [0, 1].
    cer (`float`): corpus character error rate, sum of edit distances to the chosen references over
        the sum of their lengths (at least 1); it can exceed 1.
    one_minus_ned_ci_low, one_minus_ned_ci_high, string_accuracy_ci_low, ..., cer_ci_high (`float`):
        with `confidence`, the bootstrap interval of each score (resampling examples; `cer` recomputed
        from the resampled edit and length sums).
    signature (`str`): every option that changes the numbers.
    per_example (`list` of `dict`): with `return_per_example=True`, per example a dict with
        `one_minus_ned`, `string_accuracy` and `cer` (edits / max(1, reference length)).
Examples:
    >>> ned = evaluate.load("metrics/ned")
    >>> r = ned.compute(predictions=["хоп", "abce", "abc"], references=[["хор"], ["abcd", "abce"], ["ABC"]])
    >>> round(r["one_minus_ned"], 4), round(r["string_accuracy"], 4), round(r["cer"], 4)
    (0.5556, 0.3333, 0.4)
    >>> r["signature"]
    'ned|preset:default|case:none|fw2hw:no|empty:0|v:0.1.0'
    >>> ned.compute(predictions=["abc"], references=["ABC"], case_fold="latin")["one_minus_ned"]
    1.0
    >>> ned.compute(predictions=["", "a"], references=["", "b"], return_per_example=True)["per_example"][0]
    {'one_minus_ned': 0.0, 'string_accuracy': 1.0, 'cer': 0.0}
"""
)


@hf.documented(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Ned(hf.TextPairMetric, evaluate.Metric):
    library = ned
