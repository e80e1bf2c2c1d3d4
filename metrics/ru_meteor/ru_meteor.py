"""METEOR for Russian captions and VQA answers (Fusion Brain 2022) and for English (NLTK), as an evaluate module."""

import evaluate

import multimodal_metrics  # From: "multimodal-metrics[hf,ru,text]==0.1.0"

ru_meteor = multimodal_metrics.require("0.1.0", "ru_meteor")
hf = multimodal_metrics.require("0.1.0", "hf")

_DESCRIPTION = """\
METEOR aligns the words of a prediction with those of a reference in three stages (exact, stem,
synonyms), then combines unigram precision P and recall R as Fmean = PR / (alpha P + (1 - alpha) R) with
a fragmentation penalty gamma (chunks / matches)^beta; several references: the best one.
Preset `captioning` (the default) reproduces the Fusion Brain 2022 (AIJ) image-captioning scorer exactly
(razdel post-processing, English number words to digits, Snowball-Russian stems, its RuWordNet stage of
hypernym titles and derivations, alpha 0.9, beta 3, gamma 0.5); `vqa` its VisualQA scorer (whole-answer
pymorphy lemma and number map, the numeric min/max branch, Porter stems, gamma 0); `nltk` is NLTK's
`meteor_score` for English (Porter stems, WordNet synonyms); `ru` is a Russian METEOR with per-token
pymorphy3 lemmas, RuWordNet synset members as synonyms and a corpus score from pooled statistics.
Everything runs offline: WordNet and RuWordNet come from local files; `synonyms="none"` runs any
preset without the synonym stage. Every choice is recorded in `signature`.
"""

_KWARGS_DESCRIPTION = (
    hf.text_pair_args(
        ru_meteor, "one predicted caption / answer per example", "the reference(s) of every example"
    )
    + """\
Returns:
    meteor (`float`): mean over examples of the per-example METEOR, in [0, 1].
    meteor_corpus (`float`): with `corpus_score=True` (preset `ru`), METEOR of the pooled matches,
        lengths and chunks of every example's best reference.
    meteor_ci_low, meteor_ci_high (`float`): with `confidence`, the bootstrap interval of `meteor` (and
        `meteor_corpus_ci_low`/`_high`, recomputed from the resampled pooled counts).
    signature (`str`): every option that changes the number, the resource and library versions.
    per_example (`list` of `float`): with `return_per_example=True`, one score per example.
Examples:
    >>> meteor = evaluate.load("metrics/ru_meteor", "nltk")
    >>> r = meteor.compute(predictions=["the cat sits on the mat", "dog"],
    ...                    references=[["the cat sat on the mat"], ["a dog", "dog"]])
    >>> round(r["meteor"], 4), r["signature"].split("|")[:4]
    (0.6533, ['ru_meteor', 'preset:nltk', 'prep:none', 'num:none'])
    >>> captioning = evaluate.load("metrics/ru_meteor")
    >>> round(captioning.compute(predictions=["Две птицы летают над водой"], references=[["Две птицы летают над водой."]],
    ...                          synonyms="none")["meteor"], 4)
    0.996
"""
)


@hf.documented(_DESCRIPTION, _KWARGS_DESCRIPTION)
class RuMeteor(hf.TextPairMetric, evaluate.Metric):
    library = ru_meteor
