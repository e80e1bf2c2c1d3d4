"""VQA accuracy (VQA v2 official, Fusion Brain 2021, TDIUC MPT, WUPS, BLEU-1), as an evaluate module."""

import functools
import hashlib
import itertools

import datasets
import evaluate
import numpy as np
import pyarrow as pa

from ._mm_common import (
    ArrowColumn,
    OptionsCheckedFirst,
    TrainerResults,
    build_signature,
    check_bool,
    check_choice,
    check_number,
    check_path,
    check_preset,
    check_same_length,
    check_strings,
    checked_features,
    make_result,
    mean,
    reference_lists_to_arrow,
    resolve_options,
    strings_to_arrow,
)
from ._mm_stats import PairedComparison, Resampling, Statistic, bleu, mean_statistic
from ._mm_wordnet import load_wordnet, open_wordnet
from ._vqa_arrow import answer_lists, string_column, string_ids
from ._vqa_bleu import bleu1_scores
from ._vqa_core import (
    LANGUAGES,
    NORMALIZE_MODES,
    fusion_brain_per_question,
    group_means,
    group_means_from_ids,
    lemmatizer_version,
    vqa_v2_scores_from_ids,
)
from ._vqa_tdiuc import tdiuc_scores_from_ids, type_ranks
from ._vqa_wups import wups_per_question

_CITATION = """\
@inproceedings{goyal2017making,
  title={Making the {V} in {VQA} Matter: Elevating the Role of Image Understanding in Visual Question Answering},
  author={Goyal, Yash and Khot, Tejas and Summers-Stay, Douglas and Batra, Dhruv and Parikh, Devi},
  booktitle={CVPR},
  year={2017}
}
@inproceedings{kafle2017analysis,
  title={An Analysis of Visual Question Answering Algorithms},
  author={Kafle, Kushal and Kanan, Christopher},
  booktitle={ICCV},
  year={2017}
}
@inproceedings{malinowski2014multi,
  title={A Multi-World Approach to Question Answering about Real-World Scenes based on Uncertain Input},
  author={Malinowski, Mateusz and Fritz, Mario},
  booktitle={NeurIPS},
  year={2014}
}
@inproceedings{papineni2002bleu,
  title={{BLEU}: a Method for Automatic Evaluation of Machine Translation},
  author={Papineni, Kishore and Roukos, Salim and Ward, Todd and Zhu, Wei-Jing},
  booktitle={ACL},
  year={2002}
}
"""

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

_KWARGS_DESCRIPTION = """
Args:
    predictions (`list` of `str`): one predicted answer per question.
    references (`list` of `list` of `str`, or `list` of `str`): per question the annotator answers
        (vqa_v2: the 10 answers, by position), the accepted answers (fusion_brain_2021, bleu1; wups: the
        best one counts), or the single GT answer (tdiuc).
    question_types (`list` of `str`): vqa_v2: optional, adds `accuracy_question_type/<t>` keys ("" = no
        type); tdiuc: required, the TDIUC question type of every question (free-form labels).
    answer_types (`list` of `str`, optional): vqa_v2 only; adds `accuracy_answer_type/<t>` keys.
    languages (`list` of `str`, optional): fusion_brain_2021 only; "en" (default) or "ru" per question.
    normalize (`str`, optional): vqa_v2: "official" (only when the GT answers disagree), "always"
        (lmms-eval/VLMEvalKit convention), "never".
    num_answers (`int`, optional): exact number of GT answers each question must have (0 = any).
        vqa_v2: 10, tdiuc: 1, others: 0.
    epsilon (`float`, optional): tdiuc: added to every per-type accuracy on the 0-100 scale (1e-10).
    answer_key (`list` of `str`, optional): tdiuc: the answer key of the official script; a GT answer
        outside it is always wrong and all such GTs form one answer class in N-MPT. Default: none.
    threshold (`float`, optional): wups: 0.9 (WUPS@0.9), 0.0 (WUPS@0.0), any value in [0, 1], or -1
        (plain set accuracy, no WordNet).
    wordnet_path (`str`, optional): wups: an NLTK data directory holding corpora/wordnet (WordNet 3.0),
        that corpora/wordnet, or a WordNet dict directory; default: NLTK's data path (NLTK_DATA), then
        Debian's wordnet-base files in /usr/share/wordnet. Nothing is downloaded; the folder is on NLTK's
        data path only while the computation runs.
    lowercase (`bool`, optional): bleu1: lower-case before the whitespace split. Default False.
    confidence (`float`, optional): e.g. 0.95: also return percentile bootstrap intervals of the main
        scores (accuracy; tdiuc: accuracy, arithmetic_mpt, harmonic_mpt; wups; bleu1 and bleu1_corpus),
        resampling questions (corpus and per-type scores recomputed from resampled counts). No interval
        for the per-type / per-language breakdowns nor the N-MPTs. Default None (no interval).
    n_resamples (`int`, optional): bootstrap resamples of `confidence`. Default 1000.
    seed (`int`, optional): seed of the resampling (numpy default_rng). Default 12345.
    return_per_example (`bool`, optional): also return the score of every question. Default False.
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

_OPTIONS_VQA = {"normalize": "official", "num_answers": 10}
PRESETS = {
    # GT-Vision-Lab/VQA vqaEval.py @ a013f00 (seeds_reference.md 3.1); default = the same options.
    "default": dict(_OPTIONS_VQA),
    "vqa_v2": dict(_OPTIONS_VQA),
    # ai-forever/fusion_brain_aij2021 evaluation/VQA_accuracy (seeds_reference.md 2.4).
    "fusion_brain_2021": {"num_answers": 0},
    # Kafle & Kanan's TDIUC script (seeds_reference.md 3.2).
    "tdiuc": {"num_answers": 1, "epsilon": 1e-10, "answer_key": None},
    # Malinowski's calculate_wups.py, WUPS@0.9 (seeds_reference.md 3.3).
    "wups": {"threshold": 0.9, "wordnet_path": None, "num_answers": 0},
    # NLTK sentence_bleu / corpus_bleu with weights (1, 0, 0, 0) (seeds_reference.md 3.4).
    "bleu1": {"lowercase": False, "num_answers": 0},
}
# Which scoring procedure each preset runs (fixed by the preset: the inputs differ).
SCORERS = {
    "default": "vqa_v2",
    "vqa_v2": "vqa_v2",
    "fusion_brain_2021": "fusion_brain_2021",
    "tdiuc": "tdiuc",
    "wups": "wups",
    "bleu1": "bleu1",
}
_NO_WORDNET = "`threshold=-1` (set accuracy) needs no WordNet."  # ends the missing-WordNet error
_REQUIRED = object()
# Per-question inputs besides predictions/references, with their default (stored as Arrow columns).
EXTRA_INPUTS = {
    "vqa_v2": {"question_types": "", "answer_types": ""},
    "fusion_brain_2021": {"languages": "en"},
    "tdiuc": {"question_types": _REQUIRED},
    "wups": {},
    "bleu1": {},
}


def _features(scorer: str) -> list:
    extra = {name: datasets.Value("string") for name in EXTRA_INPUTS[scorer]}
    # add_batch checks every value while converting it to Arrow (ArrowColumn): stored as it is
    return checked_features([
        datasets.Features(
            {"predictions": datasets.Value("string"), "references": datasets.Sequence(datasets.Value("string")), **extra}
        ),
        datasets.Features(
            {"predictions": datasets.Value("string"), "references": datasets.Value("string"), **extra}
        ),
    ])


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class VqaAcc(TrainerResults, PairedComparison, OptionsCheckedFirst, evaluate.Metric):
    def _info(self):
        check_preset("vqa_acc", self.config_name, PRESETS)
        info = evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=_features(SCORERS[self.config_name]),
            homepage="https://visualqa.org/evaluation.html",
            reference_urls=[
                "https://github.com/GT-Vision-Lab/VQA",
                "https://github.com/ai-forever/fusion_brain_aij2021",
                "https://kushalkafle.com/projects/tdiuc.html",
                "https://arxiv.org/abs/1410.0210",
                "https://flageval.baai.ac.cn/docs/en/multimodal/Visual-Question-Answering/metrics.html",
            ],
        )
        # _compute reads the stored columns as Arrow (answers as ids of a dictionary built in C, no Python
        # object per answer). Set after construction: MetricInfo refuses a format for non-Value features.
        info.format = "arrow"
        return info

    @property
    def _scorer(self) -> str:
        return SCORERS[self.config_name]

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Like `evaluate.Metric.compute`; the optional per-question inputs (question_types, answer_types,
        languages) may be left out and then take their defaults."""
        if predictions is not None or references is not None:
            for name in EXTRA_INPUTS[self._scorer]:
                kwargs.setdefault(name, None)
        return super().compute(predictions=predictions, references=references, **kwargs)

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Check the batch (errors name the argument and example index) while converting it to the
        Arrow arrays evaluate's writer stores as they are (``ArrowColumn``)."""
        predictions, pred_array = strings_to_arrow(predictions, "predictions")
        _, counts, ref_array = reference_lists_to_arrow(references, "references")
        check_same_length("predictions", predictions, "references", counts)
        extras = EXTRA_INPUTS[self._scorer]
        unknown = sorted(set(kwargs) - set(extras))
        if unknown:
            raise ValueError(
                f"vqa_acc (preset {self.config_name!r}): unknown input(s) {unknown}; "
                f"this preset accepts predictions, references{''.join(', ' + n for n in extras)}"
            )
        columns = {}
        for name, default in extras.items():
            values = kwargs.get(name)
            if values is None:
                if default is _REQUIRED:
                    raise ValueError(
                        f"`{name}` is required for preset {self.config_name!r}: one string per question"
                    )
                values = [default] * len(predictions)
            else:
                values = check_strings(values, name)
                check_same_length("predictions", predictions, name, values)
            if default is _REQUIRED and not all(values):
                i = values.index("")
                raise ValueError(f"`{name}[{i}]` is empty: every question needs a type")
            if name == "languages" and not set(values) <= set(LANGUAGES):
                i = next(i for i, value in enumerate(values) if value not in LANGUAGES)
                raise ValueError(f"`languages[{i}]` must be one of {list(LANGUAGES)}, got {values[i]!r}")
            columns[name] = ArrowColumn(pa.array(values, type=pa.string()))
        return super().add_batch(predictions=ArrowColumn(pred_array), references=ArrowColumn(ref_array), **columns)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one example (checked like a batch of one)."""
        return self.add_batch(
            predictions=[prediction], references=[reference], **{k: [v] for k, v in kwargs.items() if v is not None}
        )

    def _options(self, passed):
        scorer = self._scorer
        extras = ("question_types", "answer_types", "languages")
        unknown = sorted(k for k in extras if passed.get(k) is not None and k not in EXTRA_INPUTS[scorer])
        if unknown:
            raise ValueError(
                f"vqa_acc (preset {self.config_name!r}): unknown input(s) {unknown}; this preset accepts "
                f"predictions, references{''.join(', ' + n for n in EXTRA_INPUTS[scorer])}"
            )
        passed = {k: v for k, v in passed.items() if v is not None and k not in extras}
        opts = resolve_options("vqa_acc", self.config_name, PRESETS, passed)
        n_answers = check_number(opts["num_answers"], "num_answers", 0, None)
        if n_answers != int(n_answers):
            raise ValueError(f"`num_answers` must be a whole number (0 = any), got {opts['num_answers']!r}")
        opts["num_answers"] = int(n_answers)
        if scorer == "vqa_v2":
            opts["normalize"] = check_choice(opts["normalize"], NORMALIZE_MODES, "normalize")
        elif scorer == "tdiuc":
            opts["epsilon"] = check_number(opts["epsilon"], "epsilon", 0.0, 1.0)
            if opts["answer_key"] is not None:
                opts["answer_key"] = check_strings(opts["answer_key"], "answer_key")
        elif scorer == "wups":
            thr = opts["threshold"] = check_number(opts["threshold"], "threshold", -1.0, 1.0)
            if thr != -1.0 and thr < 0.0:
                raise ValueError(f"`threshold` must be -1 (set accuracy) or a number in [0, 1], got {thr!r}")
            if opts["wordnet_path"] is not None:
                opts["wordnet_path"] = check_path(opts["wordnet_path"], "wordnet_path")
            if thr != -1.0:
                load_wordnet(opts["wordnet_path"], _NO_WORDNET)  # refused before evaluate's cache
        elif scorer == "bleu1":
            check_bool(opts["lowercase"], "lowercase")
        return opts

    def _compute(
        self,
        predictions,
        references,
        question_types=None,
        answer_types=None,
        languages=None,
        normalize=None,
        num_answers=None,
        epsilon=None,
        answer_key=None,
        threshold=None,
        wordnet_path=None,
        lowercase=None,
        confidence=None,
        n_resamples=None,
        seed=None,
        return_per_example=False,
    ):
        resampling = Resampling(confidence, n_resamples, seed)
        scorer = self._scorer
        opts = self._options(
            {
                "normalize": normalize,
                "num_answers": num_answers,
                "epsilon": epsilon,
                "answer_key": answer_key,
                "threshold": threshold,
                "wordnet_path": wordnet_path,
                "lowercase": lowercase,
            }
        )
        n_answers = opts["num_answers"]
        # The stored columns come as Arrow (info.format); answers stay in Arrow until a preset needs lists.
        predictions = string_column(predictions)
        counts, answers = answer_lists(references)
        wrong = np.flatnonzero(counts != n_answers) if n_answers else ()
        if len(wrong):
            i = int(wrong[0])
            raise ValueError(
                f"`references[{i}]` has {counts[i]} answers but num_answers={n_answers} "
                f"(preset {self.config_name!r}); pass num_answers=0 to accept any number"
            )
        if scorer == "vqa_v2":
            (pred_ids, gt_ids), strings = string_ids(predictions, answers)
            scores = vqa_v2_scores_from_ids(pred_ids, gt_ids, counts, strings, normalize=opts["normalize"])
            values = {"accuracy": mean(scores.tolist())}
            statistic = mean_statistic({"accuracy": scores})
            for kind, groups in (("question_type", question_types), ("answer_type", answer_types)):
                if groups is not None:
                    (group_ids,), labels = string_ids(string_column(groups))
                    for t, v in group_means_from_ids(scores, group_ids, labels).items():
                        values[f"accuracy_{kind}/{t}"] = v
            fields = {"norm": opts["normalize"], "answers": n_answers or "any"}
            return self._result(values, statistic, fields, resampling, scores, return_per_example)
        if scorer == "tdiuc":  # num_answers=0: the script reads answers[0]
            (pred_ids, gt_ids), strings = string_ids(predictions, answers.take(np.cumsum(counts) - counts))
            (type_ids,), type_names = string_ids(string_column(question_types))
            eps, key = opts["epsilon"], opts["answer_key"]
            summary, scores, acc, nacc = tdiuc_scores_from_ids(
                pred_ids, gt_ids, strings, type_ids, type_names, epsilon=eps, answer_key=key
            )
            values = dict(summary)
            statistic = _tdiuc_statistic(scores, lambda: type_ranks(type_ids, type_names)[0], len(acc), eps)
            for t, v in acc.items():
                values[f"accuracy_question_type/{t}"] = v
            for t, v in nacc.items():
                values[f"normalized_accuracy_question_type/{t}"] = v
            digest = "none" if key is None else answer_key_digest(tuple(key))
            fields = {"answers": n_answers or "any", "eps": eps, "key": digest}
            return self._result(values, statistic, fields, resampling, scores, return_per_example)
        predictions = predictions.to_pylist()
        flat = iter(answers.to_pylist())
        references = [list(itertools.islice(flat, k)) for k in counts.tolist()]
        if scorer == "fusion_brain_2021":
            languages = string_column(languages).to_pylist() if languages is not None else ["en"] * len(predictions)
            scores = fusion_brain_per_question(predictions, references, languages)
            values = {"accuracy": mean(scores.tolist())}
            statistic = mean_statistic({"accuracy": scores})
            for lang, v in group_means(scores, languages).items():
                values[f"accuracy_language/{lang}"] = v
            fields = {"answers": n_answers or "any", "ru": lemmatizer_version() if "ru" in languages else "none"}
        elif scorer == "wups":
            thr, path = opts["threshold"], opts["wordnet_path"]
            with open_wordnet(path, _NO_WORDNET, needed=thr != -1.0) as wordnet:
                scores = wups_per_question(predictions, references, threshold=thr, wordnet=wordnet)
            values = {"wups": mean(scores.tolist())}
            statistic = mean_statistic({"wups": scores})
            wn_version = "none" if wordnet is None else wordnet.get_version()
            fields = {"thr": thr, "answers": n_answers or "any", "wn": wn_version}
        else:  # bleu1
            if not isinstance(opts["lowercase"], bool):
                raise TypeError(f"`lowercase` must be a bool, got {type(opts['lowercase']).__name__}")
            scores, corpus, counts = bleu1_scores(
                predictions, references, lowercase=opts["lowercase"], return_counts=True
            )
            values = {"bleu1": mean(scores.tolist()), "bleu1_corpus": corpus}
            statistic = _bleu1_statistic(scores, counts)
            fields = {"tok": "lower+split" if opts["lowercase"] else "split", "answers": n_answers or "any"}
        return self._result(values, statistic, fields, resampling, scores, return_per_example)

    def _result(self, values, statistic, fields, resampling, scores, return_per_example):
        signature = build_signature("vqa_acc", self.config_name, {**fields, **resampling.signature_fields()})
        values = self._with_intervals(values, statistic, resampling, signature)
        return make_result(values, signature, scores.tolist(), return_per_example)


@functools.lru_cache(maxsize=8)
def answer_key_digest(key: tuple) -> str:
    """First 8 hex digits of the SHA-1 of the distinct answers of the key, sorted, one per line (the
    signature's ``key:`` field). Cached: an answer key is a fixed file, scored again at every
    evaluation, and sorting its ~1,000 answers costs more than scoring 1,000 questions."""
    return hashlib.sha1("\n".join(sorted(set(key))).encode()).hexdigest()[:8]


def _tdiuc_statistic(correct, type_rank, n_types: int, epsilon: float) -> Statistic:
    """Overall accuracy and the arithmetic / harmonic mean-per-type accuracies from per-type counts
    (`_vqa_tdiuc.tdiuc_scores`: acc_t + eps on the 0-100 scale, the types present, capped at 1). A type
    absent from a resample is left out of that resample's means. Per question (``type_rank()``: its
    type's index among the ``n_types`` sorted types present): [correct, one-hot type, one-hot type x
    correct], built only when an interval or a comparison reads them (2 x #types + 1 numbers per question)."""
    n = len(correct)

    def rows():
        rank = type_rank()
        stats = np.zeros((n, 1 + 2 * n_types), order="F")
        stats[:, 0] = correct
        index = np.arange(n)
        stats[index, 1 + rank] = 1.0
        stats[index, 1 + n_types + rank] = correct
        return stats

    def scores(s):
        count, hits = s[..., 1 : 1 + n_types], s[..., 1 + n_types :]
        present = count > 0
        acc = 100 * np.divide(hits, count, out=np.zeros_like(hits), where=present) + epsilon
        k = present.sum(axis=-1)
        arithmetic = np.where(present, acc, 0.0).sum(axis=-1) / np.maximum(k, 1) / 100
        harmonic = k / np.where(present, 1.0 / acc, 0.0).sum(axis=-1) / 100
        return np.stack([s[..., 0] / max(n, 1), np.minimum(arithmetic, 1.0), np.minimum(harmonic, 1.0)], axis=-1)

    return _StatisticOnDemand(("accuracy", "arithmetic_mpt", "harmonic_mpt"), rows, scores)


class _StatisticOnDemand(Statistic):
    """A :class:`Statistic` whose per-question rows are built by ``build()`` the first time they are
    read (resampling, ``compare``): a plain ``compute`` never pays for them."""

    def __init__(self, keys, build, fn):
        self.keys = tuple(keys)
        self.fn = fn
        self._build = build
        self._stats = None

    @property
    def stats(self):
        if self._stats is None:
            self._stats = Statistic(self.keys, self._build(), self.fn).stats
        return self._stats


def _bleu1_statistic(sentence_scores, counts) -> Statistic:
    """Mean sentence BLEU-1, and corpus BLEU-1 from the pooled (matches, max(1, hyp_len), ref_len, hyp_len)."""
    n = len(sentence_scores)

    def scores(s):
        corpus = bleu(s[..., 1:2], s[..., 2:3], s[..., 3], s[..., 4])
        return np.stack([s[..., 0] / max(n, 1), corpus], axis=-1)

    return Statistic(("bleu1", "bleu1_corpus"), np.column_stack([sentence_scores, counts]), scores)
