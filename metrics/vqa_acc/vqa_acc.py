"""VQA accuracy (VQA v2 official, Fusion Brain 2021, TDIUC MPT, WUPS, BLEU-1), as an evaluate module."""

import evaluate

import multimodal_metrics  # From: "multimodal-metrics[hf,ru,text]==0.1.0"

vqa_acc = multimodal_metrics.require("0.1.0", "vqa_acc")
hf = multimodal_metrics.require("0.1.0", "hf")
hf_vqa_acc = multimodal_metrics.require("0.1.0", "hf.vqa_acc")

_DESCRIPTION = """\
Accuracy metrics for visual question answering, one preset per reference. `default`/`vqa_v2`: the
official VQA v2 / VQA-CP evaluation (GT-Vision-Lab vqaEval.py): leave-one-out min(#matches/3, 1) over
the 10 annotator answers, with the official normalisation (punctuation, number words, articles,
contractions) applied only when the annotators disagree, quirks included, and optional per-question-type
and per-answer-type breakdowns. `fusion_brain_2021`: AIJ 2021 Fusion Brain VQA (exact match after
normalising the prediction only, English or Russian). `tdiuc`: TDIUC arithmetic/harmonic mean-per-type
accuracy and its answer-normalised form. `wups`: Wu-Palmer set similarity on WordNet 3.0 (threshold 0.9,
0.0, or -1 for set accuracy). `bleu1`: unigram BLEU (NLTK semantics), sentence mean and corpus form.
Scores are fractions; every option that changes the number is recorded in `signature`.
"""

_CONFIDENCE = (
    "e.g. 0.95: also return percentile bootstrap intervals of the main scores (accuracy; tdiuc: accuracy, "
    "arithmetic_mpt, harmonic_mpt; wups; bleu1 and bleu1_corpus), resampling questions (corpus and per-type "
    "scores recomputed from resampled counts). No interval for the per-type / per-language breakdowns nor the "
    "N-MPTs. Default None (no interval)."
)

_PER_EXAMPLE = "also return the score of every question. Default False."

_KWARGS_DESCRIPTION = f"""
Args:
    predictions (`list` of `str`): one predicted answer per question.
    references (`list` of `list` of `str`, or `list` of `str`): per question the annotator answers
        (vqa_v2: the 10 answers, by position), the accepted answers (fusion_brain_2021, bleu1; wups: the
        best one counts), or the single GT answer (tdiuc).
    question_types (`list` of `str`): vqa_v2: optional, adds `accuracy_question_type/<t>` keys ("" = no
        type); tdiuc: required, the TDIUC question type of every question (free-form labels).
    answer_types (`list` of `str`, optional): vqa_v2 only; adds `accuracy_answer_type/<t>` keys.
    languages (`list` of `str`, optional): fusion_brain_2021 only; "en" (default) or "ru" per question.
{hf.options_doc(vqa_acc, help={"confidence": _CONFIDENCE}, per_example=_PER_EXAMPLE)}
Returns:
    accuracy (`float`): vqa_v2, fusion_brain_2021, tdiuc (overall exact-match accuracy): mean over
        questions, in [0, 1]. vqa_v2 may add `accuracy_question_type/<t>` and `accuracy_answer_type/<t>`;
        fusion_brain_2021 adds `accuracy_language/<lang>`.
    arithmetic_mpt, harmonic_mpt, arithmetic_nmpt, harmonic_nmpt (`float`): tdiuc, fractions, plus
        `accuracy_question_type/<t>` and `normalized_accuracy_question_type/<t>`.
    wups (`float`): wups: mean WUPS over questions.
    bleu1 (`float`), bleu1_corpus (`float`): bleu1: mean sentence BLEU-1, and the corpus BLEU-1.
    <key>_ci_low, <key>_ci_high (`float`): with `confidence`, the bootstrap interval of each main score.
    signature (`str`): every option that changes the number.
    per_example (`list` of `float`): with `return_per_example=True`, one score per question.
Examples:
    >>> vqa = evaluate.load("metrics/vqa_acc")
    >>> r = vqa.compute(predictions=["2", "red"],
    ...                 references=[["two"] * 3 + ["2"] * 3 + ["three"] * 4, ["red"] + ["blue"] * 9],
    ...                 answer_types=["number", "other"])
    >>> round(r["accuracy"], 4), round(r["accuracy_answer_type/other"], 4)
    (0.65, 0.3)
    >>> r["signature"]
    'vqa_acc|preset:default|norm:official|answers:10|v:0.1.0'
    >>> bleu = evaluate.load("metrics/vqa_acc", "bleu1")
    >>> r = bleu.compute(predictions=["dog", "dog"], references=[["dog"], ["black dog"]])
    >>> round(r["bleu1"], 6), round(r["bleu1_corpus"], 6)
    (0.68394, 0.606531)
"""


@hf.documented(_DESCRIPTION, _KWARGS_DESCRIPTION)
class VqaAcc(hf_vqa_acc.VqaAccMetric, evaluate.Metric):
    library = vqa_acc
