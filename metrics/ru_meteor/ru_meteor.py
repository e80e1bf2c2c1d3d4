"""METEOR for Russian captions and VQA answers (Fusion Brain 2022) and for English (NLTK), as an evaluate module."""

import evaluate
import numpy as np

from ._mm_common import (
    TextPairInputs,
    build_signature,
    check_bool,
    check_choice,
    check_number,
    check_preset,
    make_result,
    mean,
    resolve_options,
)
from ._mm_stats import PairedComparison, Resampling, Statistic, mean_statistic, ratio
from ._mm_wordnet import load_wordnet, open_wordnet
from ._ru_meteor_core import (
    NUMBER_WORDS,
    NUMERICS,
    PREPROCESSES,
    REFERENCE_AGGS,
    STEMMERS,
    SYNONYMS,
    TOKENIZERS,
    corpus_meteor,
    library_versions,
    meteor_per_example,
    resource_tag,
    synonym_source,
)

_CITATION = """\
@inproceedings{lavie2007meteor,
  title={METEOR: An Automatic Metric for MT Evaluation with High Levels of Correlation with Human Judgments},
  author={Lavie, Alon and Agarwal, Abhaya},
  booktitle={Proceedings of the Second Workshop on Statistical Machine Translation},
  pages={228--231},
  year={2007}
}
@misc{fbc2_aij2022,
  title={FusionBrain Challenge 2.0 (AI Journey 2022): evaluation code},
  author={{Sber AI}},
  year={2022},
  howpublished={\\url{https://github.com/ai-forever/fbc2_aij2022}}
}
@inproceedings{loukachevitch2016ruwordnet,
  title={Creating a General Russian Sentiment Lexicon},
  author={Loukachevitch, Natalia and Lashevich, German and Gerasimova, Anastasia and Ivanov, Vladimir and
          Dobrov, Boris},
  booktitle={RuWordNet: Proceedings of the 8th Global WordNet Conference},
  year={2016}
}
"""

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

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): one predicted caption / answer per example.
    references (`list` of `str` or `list` of `list` of `str`): the reference(s) of every example.
    preprocess (`str`, optional): text pipeline before tokenising: "fb_captioning" (official captioning
        post-processing), "fb_vqa" (official VQA punctuation removal + whole-answer lemma + number map),
        "ru" (lower-case, yo -> e), "none".
    number_words (`str`, optional): "wordtodigits" (English number words of the prediction to digits,
        official) or "none".
    tokenizer (`str`, optional): "nltk" (nltk.word_tokenize tokens, offline) or "razdel" (razdel word tokens).
    stemmer (`str`, optional): stage 2: "snowball_ru", "porter", "pymorphy3" (lemmas) or "none".
    synonyms (`str`, optional): stage 3: "ruwordnet_fb" (official: hypernym titles + derivations),
        "ruwordnet_synsets" (synset members), "wordnet" (English WordNet, NLTK) or "none" (no stage 3).
    alpha, beta, gamma (`float`, optional): METEOR parameters (alpha, gamma in [0, 1], beta >= 0).
    numeric (`str`, optional): "fusion_brain" (official VQA numeric branch for one-number references) or "none".
    reference_agg (`str`, optional): "max" (best reference, official and NLTK) or "mean" over references.
    corpus_score (`bool`, optional): also return `meteor_corpus`, METEOR of pooled statistics.
    wordnet_path (`str`, optional): "wordnet" synonyms: an NLTK data directory holding corpora/wordnet,
        that corpora/wordnet, or a WordNet 3.0 dict directory; default: NLTK's data path (NLTK_DATA),
        then Debian's wordnet-base files in /usr/share/wordnet. Nothing is downloaded; the folder is on
        NLTK's data path only while the computation runs.
    ruwordnet_path (`str`, optional): the RuWordNet SQLite file (default: $RUWORDNET_DB, then the
        `ruwordnet` package's static/ruwordnet-2021.db or static/ruwordnet.db).
    confidence (`float`, optional): e.g. 0.95: also return percentile bootstrap intervals of `meteor`
        (and `meteor_corpus`, recomputed from the resampled pooled counts), resampling examples.
        Default None (no interval).
    n_resamples (`int`, optional): bootstrap resamples of `confidence`. Default 1000.
    seed (`int`, optional): seed of the resampling (numpy default_rng). Default 12345.
    return_per_example (`bool`, optional): also return the score of every example. Default False.
Returns:
    meteor (`float`): mean over examples of the per-example METEOR, in [0, 1].
    meteor_corpus (`float`): with `corpus_score=True` (preset `ru`), METEOR of the pooled matches,
        lengths and chunks of every example's best reference.
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

PRESETS = {
    # Fusion Brain 2022 captioning scorer (seeds_reference.md 1.4).
    "captioning": {
        "preprocess": "fb_captioning",
        "number_words": "wordtodigits",
        "tokenizer": "nltk",
        "stemmer": "snowball_ru",
        "synonyms": "ruwordnet_fb",
        "alpha": 0.9,
        "beta": 3.0,
        "gamma": 0.5,
        "numeric": "none",
        "reference_agg": "max",
        "corpus_score": False,
    },
    # Fusion Brain 2022 VisualQA scorer (seeds_reference.md 1.5).
    "vqa": {
        "preprocess": "fb_vqa",
        "number_words": "wordtodigits",
        "tokenizer": "nltk",
        "stemmer": "porter",
        "synonyms": "ruwordnet_fb",
        "alpha": 0.9,
        "beta": 3.0,
        "gamma": 0.0,
        "numeric": "fusion_brain",
        "reference_agg": "max",
        "corpus_score": False,
    },
    # NLTK meteor_score on word_tokenize tokens (seed 003, seeds_reference.md 3.5).
    "nltk": {
        "preprocess": "none",
        "number_words": "none",
        "tokenizer": "nltk",
        "stemmer": "porter",
        "synonyms": "wordnet",
        "alpha": 0.9,
        "beta": 3.0,
        "gamma": 0.5,
        "numeric": "none",
        "reference_agg": "max",
        "corpus_score": False,
    },
    # A Russian METEOR: per-token lemmas, true synonyms, fragmentation penalty, corpus score.
    "ru": {
        "preprocess": "ru",
        "number_words": "none",
        "tokenizer": "razdel",
        "stemmer": "pymorphy3",
        "synonyms": "ruwordnet_synsets",
        "alpha": 0.9,
        "beta": 3.0,
        "gamma": 0.5,
        "numeric": "none",
        "reference_agg": "max",
        "corpus_score": True,
    },
}
PRESETS["default"] = dict(PRESETS["captioning"])

_RESOURCE_OPTIONS = ("wordnet_path", "ruwordnet_path")
_NO_WORDNET = '`synonyms="none"` runs without the synonym stage.'  # ends the missing-WordNet error


def check_options(opts: dict) -> dict:
    """Validate resolved options (ValueError/TypeError naming the option)."""
    check_choice(opts["preprocess"], PREPROCESSES, "preprocess")
    check_choice(opts["number_words"], NUMBER_WORDS, "number_words")
    check_choice(opts["tokenizer"], TOKENIZERS, "tokenizer")
    check_choice(opts["stemmer"], STEMMERS, "stemmer")
    check_choice(opts["synonyms"], SYNONYMS, "synonyms")
    check_choice(opts["numeric"], NUMERICS, "numeric")
    check_choice(opts["reference_agg"], REFERENCE_AGGS, "reference_agg")
    opts["alpha"] = check_number(opts["alpha"], "alpha", 0.0, 1.0)
    opts["beta"] = check_number(opts["beta"], "beta", 0.0, 100.0)
    opts["gamma"] = check_number(opts["gamma"], "gamma", 0.0, 1.0)
    check_bool(opts["corpus_score"], "corpus_score")
    if opts["corpus_score"] and opts["numeric"] != "none":
        raise ValueError("`corpus_score=True` needs `numeric=\"none\"`: the numeric branch has no statistics to pool")
    for key in _RESOURCE_OPTIONS:
        value = opts.get(key)
        if value is not None and not isinstance(value, str) and not hasattr(value, "__fspath__"):
            raise TypeError(f"`{key}` must be a path (str), got {type(value).__name__} ({value!r})")
    return opts


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class RuMeteor(TextPairInputs, PairedComparison, evaluate.Metric):
    def _info(self):
        check_preset("ru_meteor", self.config_name, PRESETS)
        info = evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=self.text_pair_features(),
            homepage="https://github.com/ai-forever/fbc2_aij2022",
            reference_urls=[
                "https://www.cs.cmu.edu/~alavie/METEOR/pdf/Lavie-Agarwal-2007-METEOR.pdf",
                "https://www.nltk.org/api/nltk.translate.meteor_score.html",
                "https://ruwordnet.ru/en",
            ],
        )
        # _compute reads the Arrow columns (strings decoded in C; see TextPairInputs.text_pair_lists).
        # Set after construction: MetricInfo refuses a format for non-Value features.
        info.format = "arrow"
        return info

    def _options(self, passed):
        passed = dict(passed)
        resources = {key: passed.pop(key, None) for key in _RESOURCE_OPTIONS}
        opts = resolve_options("ru_meteor", self.config_name, PRESETS, passed)
        opts.update(resources)
        opts = check_options(opts)
        # A missing or unreadable WordNet / RuWordNet is refused here with the other options, before evaluate
        # writes the batch to its cache (readers and sources are cached: _compute reuses them).
        if opts["synonyms"] == "wordnet":
            load_wordnet(opts["wordnet_path"], _NO_WORDNET)
        else:
            synonym_source(opts["synonyms"], ruwordnet_path=opts["ruwordnet_path"])
        return opts

    def _compute(
        self,
        predictions,
        references,
        preprocess=None,
        number_words=None,
        tokenizer=None,
        stemmer=None,
        synonyms=None,
        alpha=None,
        beta=None,
        gamma=None,
        numeric=None,
        reference_agg=None,
        corpus_score=None,
        wordnet_path=None,
        ruwordnet_path=None,
        confidence=None,
        n_resamples=None,
        seed=None,
        return_per_example=False,
    ):
        resampling = Resampling(confidence, n_resamples, seed)
        check_bool(return_per_example, "return_per_example")
        opts = self._options(
            {
                "preprocess": preprocess,
                "number_words": number_words,
                "tokenizer": tokenizer,
                "stemmer": stemmer,
                "synonyms": synonyms,
                "alpha": alpha,
                "beta": beta,
                "gamma": gamma,
                "numeric": numeric,
                "reference_agg": reference_agg,
                "corpus_score": corpus_score,
                "wordnet_path": wordnet_path,
                "ruwordnet_path": ruwordnet_path,
            }
        )
        corpus = opts.pop("corpus_score")
        predictions, references = self.text_pair_lists(predictions, references)
        # WordNet's folder is on NLTK's data path only while the scores are computed
        path, needed = opts.pop("wordnet_path"), opts["synonyms"] == "wordnet"
        with open_wordnet(path, _NO_WORDNET, needed=needed) as wordnet:
            resources = resource_tag(opts["synonyms"], wordnet, opts["ruwordnet_path"])
            scores, stats = meteor_per_example(predictions, references, return_stats=True, wordnet=wordnet, **opts)
        values = {"meteor": mean(scores)}
        if corpus:
            values["meteor_corpus"] = corpus_meteor(stats, opts["alpha"], opts["beta"], opts["gamma"])
        signature = build_signature(
            "ru_meteor",
            self.config_name,
            {
                "prep": opts["preprocess"],
                "num": opts["number_words"],
                "tok": opts["tokenizer"],
                "stem": opts["stemmer"],
                "syn": opts["synonyms"],
                "res": resources,
                "a": opts["alpha"],
                "b": opts["beta"],
                "g": opts["gamma"],
                "numeric": opts["numeric"],
                "refs": opts["reference_agg"],
                "corpus": corpus,
                "lib": library_versions(opts),
                **resampling.signature_fields(),
            },
        )
        statistic = _statistic(scores, stats if corpus else None, opts["alpha"], opts["beta"], opts["gamma"])
        values = self._with_intervals(values, statistic, resampling, signature)
        return make_result(values, signature, scores, return_per_example)


def _statistic(scores, stats, alpha: float, beta: float, gamma: float) -> Statistic:
    """Mean sentence METEOR, and (with the corpus score) METEOR of the pooled (matches, hyp_len,
    ref_len, chunks) of every example's best reference, 0 where the formula divides by zero."""
    n = len(scores)
    if stats is None:
        return mean_statistic({"meteor": scores})

    def fn(s):
        matches, hyp_len, ref_len, chunks = s[..., 1], s[..., 2], s[..., 3], s[..., 4]
        precision, recall = ratio(matches, hyp_len), ratio(matches, ref_len)
        fmean = ratio(precision * recall, alpha * precision + (1 - alpha) * recall)
        penalty = gamma * ratio(chunks, matches) ** beta
        defined = (hyp_len > 0) & (ref_len > 0) & (matches > 0)
        corpus = np.where(defined, (1 - penalty) * fmean, 0.0)
        return np.stack([s[..., 0] / max(n, 1), corpus], axis=-1)

    return Statistic(("meteor", "meteor_corpus"), np.column_stack([scores, np.asarray(stats, dtype=float)]), fn)
