"""vqa_acc's option table, presets and ``score``: the functional API the evaluate module calls too.

Five scoring procedures (``SCORERS``), each fixed by its preset: ``vqa_v2`` (presets ``default`` and
``vqa_v2``), ``fusion_brain_2021``, ``tdiuc``, ``wups`` and ``bleu1``. Each preset takes only the options
of its procedure (``PRESETS``: another option is refused, naming the preset's options) and the
per-question inputs of its procedure (``EXTRA_INPUTS``: ``question_types``, ``answer_types``,
``languages``; passing one the preset does not use is refused too).

The checks run in the order of the evaluate module's ``compute``: the preset, the resampling options,
``return_per_example``, the per-question inputs a preset does not take, the options (``num_answers``
first, then the procedure's own, then WordNet's presence for ``wups``), then the inputs in the order of
its ``add_batch`` (predictions, references, their lengths, the per-question inputs), and last the number
of answers of every question.
"""

import functools
import hashlib
import itertools
import warnings

from ..arrow_inputs import reference_lists_to_arrow, strings_to_arrow
from ..digests import example_digests
from ..inputs import check_same_length, check_strings
from ..options import Option, OptionTable, check_bool, check_number
from ..resources.wordnet import load_wordnet, open_wordnet
from ..results import Result, mean
from ..state import MetricState, state_function
from ..state_columns import Column
from ..stats import Resampling, Statistic, bleu, compare_function, interval_values, mean_statistic
from .bleu import bleu1_scores, corpus_bleu1
from .core import (
    LANGUAGES,
    NORMALIZE_MODES,
    fusion_brain_per_question,
    group_means,
    group_means_from_ids,
    lemmatizer_version,
    vqa_v2_scores_from_ids,
)
from .tdiuc import tdiuc_correct, tdiuc_scores_from_ids, type_ranks
from .wups import wups_per_question

# Each preset sets the options of its procedure (``per_preset`` rows of the table below), ``num_answers``
# first: the key order is the order the options are checked in.
_OPTIONS_VQA = {"num_answers": 10, "normalize": "official"}
PRESETS = {
    # GT-Vision-Lab/VQA vqaEval.py @ a013f00 (seeds_reference.md 3.1); default = the same options.
    "default": dict(_OPTIONS_VQA),
    "vqa_v2": dict(_OPTIONS_VQA),
    # lmms-eval 0.7.3 vqav2_process_results (EvalAIAnswerProcessor) and VLMEvalKit process_line(method=
    # 'vqa_score'): every question normalised by that harness's answer processor, averaged as it does.
    "lmms_eval": {"num_answers": 10, "normalize": "lmms_eval"},
    "vlmevalkit": {"num_answers": 0, "normalize": "vlmevalkit"},
    # ai-forever/fusion_brain_aij2021 evaluation/VQA_accuracy (seeds_reference.md 2.4).
    "fusion_brain_2021": {"num_answers": 0},
    # Kafle & Kanan's TDIUC script (seeds_reference.md 3.2).
    "tdiuc": {"num_answers": 1, "epsilon": 1e-10, "answer_key": None},
    # Malinowski's calculate_wups.py, WUPS@0.9 (seeds_reference.md 3.3).
    "wups": {"num_answers": 0, "threshold": 0.9, "wordnet_path": None},
    # NLTK sentence_bleu / corpus_bleu with weights (1, 0, 0, 0) (seeds_reference.md 3.4).
    "bleu1": {"num_answers": 0, "lowercase": False},
}
# Which scoring procedure each preset runs (fixed by the preset: the inputs differ).
SCORERS = {
    "default": "vqa_v2",
    "vqa_v2": "vqa_v2",
    "lmms_eval": "vqa_v2",
    "vlmevalkit": "vqa_v2",
    "fusion_brain_2021": "fusion_brain_2021",
    "tdiuc": "tdiuc",
    "wups": "wups",
    "bleu1": "bleu1",
}
REQUIRED = object()  # an EXTRA_INPUTS default: the input must be given
# Per-question inputs besides predictions/references, with their default (stored as Arrow columns).
EXTRA_INPUTS = {
    "vqa_v2": {"question_types": "", "answer_types": ""},
    "fusion_brain_2021": {"languages": "en"},
    "tdiuc": {"question_types": REQUIRED},
    "wups": {},
    "bleu1": {},
}
INPUT_NAMES = ("question_types", "answer_types", "languages")  # every per-question input of some preset
NO_WORDNET = "`threshold=-1` (set accuracy) needs no WordNet."  # ends the missing-WordNet error
# The order of the option fields in a signature (every procedure writes its own subset in this order).
SIGNATURE_ORDER = ("norm", "thr", "tok", "answers", "eps", "key")


@functools.lru_cache(maxsize=8)
def answer_key_digest(key: tuple) -> str:
    """First 8 hex digits of the SHA-1 of the distinct answers of the key, sorted, one per line (the
    signature's ``key:`` field). Cached: an answer key is a fixed file, scored again at every
    evaluation, and sorting its ~1,000 answers costs more than scoring 1,000 questions."""
    return hashlib.sha1("\n".join(sorted(set(key))).encode()).hexdigest()[:8]


def _check_num_answers(value, arg: str) -> int:
    number = check_number(value, arg, 0, None)
    if number != int(number):
        raise ValueError(f"`num_answers` must be a whole number (0 = any), got {value!r}")
    return int(number)


def _check_threshold(value, arg: str) -> float:
    threshold = check_number(value, arg, -1.0, 1.0)
    if threshold != -1.0 and threshold < 0.0:
        raise ValueError(f"`threshold` must be -1 (set accuracy) or a number in [0, 1], got {threshold!r}")
    return threshold


def _wordnet_present(options: dict, preset: str) -> None:
    """``wups`` with a WordNet threshold: WordNet must be found, refused before evaluate's cache."""
    if SCORERS[preset] == "wups" and options["threshold"] != -1.0:
        load_wordnet(options["wordnet_path"], NO_WORDNET)


# Whether a larger value of each result key is better (torchmetrics' higher_is_better; None: a raw
# count, left out of the Trainer form): see multimodal_metrics.results.key_direction.
HIGHER_IS_BETTER = {
    "accuracy": True,
    "accuracy_*": True,  # accuracy_<answer_type|question_type|language>/<value>
    "normalized_accuracy_*": True,
    "arithmetic_mpt": True,
    "harmonic_mpt": True,
    "arithmetic_nmpt": True,
    "harmonic_nmpt": True,
    "wups": True,
    "bleu1": True,
    "bleu1_corpus": True,
}

OPTIONS = OptionTable(
    "vqa_acc",
    [
        Option(
            "num_answers",
            "exact number of GT answers each question must have (0 = any); a question with "
            "another number is an error naming it.",
            kind="integer",
            low=0,
            check=_check_num_answers,
            sig="answers",
            sig_value=lambda n: n or "any",
        ),
        Option(
            "normalize",
            "vqa_v2: one of 'official' (normalise only when the GT answers disagree), 'always' "
            "(the official normalisation on every question), 'never', 'lmms_eval' (lmms-eval 0.7.3's VQAv2 "
            "scoring, equal to it question by question), 'vlmevalkit' (VLMEvalKit's vqa_score, equal to it "
            "question by question).",
            choices=NORMALIZE_MODES,
            sig="norm",
            per_preset=True,
        ),
        Option(
            "epsilon",
            "tdiuc: added to every per-type accuracy on the 0-100 scale.",
            kind="number",
            low=0.0,
            high=1.0,
            sig="eps",
            demo=False,
            per_preset=True,
        ),
        Option(
            "answer_key",
            "tdiuc: the answers of the official script's answer key; a GT answer outside it is "
            "always wrong and all such GTs form one answer class in N-MPT (None: no key).",
            kind="custom",
            check=check_strings,
            sig="key",
            demo=False,
            doc_type="list of str",
            per_preset=True,
            sig_value=lambda key: "none" if key is None else answer_key_digest(tuple(key)),
        ),
        Option(
            "threshold",
            "wups: 0.9 (WUPS@0.9), 0.0 (WUPS@0.0), any value in [0, 1], or -1 (plain set "
            "accuracy, no WordNet).",
            kind="number",
            low=-1.0,
            high=1.0,
            check=_check_threshold,
            sig="thr",
            per_preset=True,
        ),
        Option(
            "wordnet_path",
            "wups: an NLTK data directory holding corpora/wordnet (WordNet 3.0), that "
            "corpora/wordnet, or a WordNet dict directory; None: NLTK's data path (NLTK_DATA), then Debian's "
            "wordnet-base files in /usr/share/wordnet. Nothing is downloaded; the folder is on NLTK's data "
            "path only while the computation runs.",
            kind="path",
            demo=False,
            per_preset=True,
        ),
        Option(
            "lowercase",
            "bleu1: lower-case before the whitespace split.",
            kind="bool",
            sig="tok",
            per_preset=True,
            sig_value=lambda lower: "lower+split" if lower else "split",
        ),
    ],
    PRESETS,
    open_resources=_wordnet_present,
    signature_order=SIGNATURE_ORDER,
)


def extra_inputs(preset: str) -> dict:
    """The per-question inputs of ``preset`` and their defaults (``REQUIRED``: must be given)."""
    return EXTRA_INPUTS[SCORERS[preset]]


def unknown_inputs(preset: str, names) -> None:
    """Refuse the per-question inputs among ``names`` that ``preset`` does not take."""
    extras = extra_inputs(preset)
    unknown = sorted(set(names) - set(extras))
    if unknown:
        raise ValueError(
            f"vqa_acc (preset {preset!r}): unknown input(s) {unknown}; "
            f"this preset accepts predictions, references{''.join(', ' + n for n in extras)}"
        )


def checked_options(preset: str, passed) -> dict:
    """The options of ``preset`` updated with ``passed`` (None = not passed), checked through ``OPTIONS``.
    ``passed`` is what ``compute`` sees besides its inputs: a per-question input that the preset does not
    take (``languages`` for ``vqa_v2``) is refused first."""
    unknown_inputs(preset, [k for k in INPUT_NAMES if passed.get(k) is not None])
    return OPTIONS.resolve(preset, {k: v for k, v in passed.items() if k not in INPUT_NAMES})


def check_extra_inputs(preset: str, predictions, given) -> dict:
    """The per-question inputs of ``preset`` (``given``: name -> values or None), checked and as lists of
    strings, one per prediction; one not given takes its default (``[""] * n`` for ``vqa_v2``'s types)."""
    columns = {}
    for name, default in extra_inputs(preset).items():
        values = given.get(name)
        if values is None:
            if default is REQUIRED:
                raise ValueError(f"`{name}` is required for preset {preset!r}: one string per question")
            values = [default] * len(predictions)
        else:
            values = check_strings(values, name)
            check_same_length("predictions", predictions, name, values)
        if default is REQUIRED and not all(values):
            i = values.index("")
            raise ValueError(f"`{name}[{i}]` is empty: every question needs a type")
        if name == "languages" and not set(values) <= set(LANGUAGES):
            i = next(i for i, value in enumerate(values) if value not in LANGUAGES)
            raise ValueError(f"`languages[{i}]` must be one of {list(LANGUAGES)}, got {values[i]!r}")
        columns[name] = values
    return columns


def example_rows(preset, predictions, references, columns, options) -> tuple[dict, dict]:
    """The per-question rows of checked inputs (as :func:`score_checked` takes them) and their context.

    Rows: ``score`` (the per-question score, float64) and what the preset's reduction reads besides it:
    ``question_types`` / ``answer_types`` (vqa_v2; None where not given), ``languages``
    (fusion_brain_2021), ``question_types`` and ``answers`` (tdiuc: the GT answer of each question),
    ``counts`` (bleu1: clipped matches, max(1, hyp_len), closest ref_len, hyp_len as int64). Text columns
    stay as they came (Arrow columns or lists). Context: the Russian lemmatiser (fusion_brain_2021) or
    the WordNet version (wups) that the scores depend on. The number of answers of every question is
    checked here."""
    import numpy as np

    from .arrow import answer_lists, string_column, string_ids

    scorer = SCORERS[preset]
    n_answers = options["num_answers"]
    # Answers stay in Arrow until a procedure needs lists.
    predictions = string_column(predictions)
    counts, answers = answer_lists(references)
    wrong = np.flatnonzero(counts != n_answers) if n_answers else ()
    if len(wrong):
        i = int(wrong[0])
        raise ValueError(
            f"`references[{i}]` has {counts[i]} answers but num_answers={n_answers} "
            f"(preset {preset!r}); pass num_answers=0 to accept any number"
        )
    context = {}
    if scorer == "vqa_v2" and len(counts) and counts.min() < 4:  # num_answers=0 lets such questions in
        few = np.flatnonzero(counts < 4)
        warnings.warn(
            f"vqa_acc: {len(few)} question(s) have fewer than 4 answers (`references[{few[0]}]`: "
            f"{counts[few[0]]}): VQA accuracy averages min(1, matches among the other answers / 3) over the "
            "answers, so such a question scores below 1 even when answered exactly (0 with one answer); the "
            "formula is made for 10 answers per question",
            UserWarning,
            stacklevel=3,
        )
    if scorer == "vqa_v2":
        (pred_ids, gt_ids), strings = string_ids(predictions, answers)
        scores = vqa_v2_scores_from_ids(pred_ids, gt_ids, counts, strings, normalize=options["normalize"])
        rows = {"score": scores, **{name: columns.get(name) for name in ("question_types", "answer_types")}}
    elif scorer == "tdiuc":  # num_answers=0: the script reads answers[0]
        gt = answers.take(np.cumsum(counts) - counts)
        (pred_ids, gt_ids), strings = string_ids(predictions, gt)
        correct = tdiuc_correct(pred_ids, gt_ids, strings, options["answer_key"])
        rows = {
            "score": correct.astype(np.float64),
            "question_types": columns["question_types"],
            "answers": gt,
        }
    else:
        predictions = predictions.to_pylist()
        flat = iter(answers.to_pylist())
        references = [list(itertools.islice(flat, k)) for k in counts.tolist()]
        if scorer == "fusion_brain_2021":
            languages = columns.get("languages")
            languages = (
                string_column(languages).to_pylist() if languages is not None else ["en"] * len(predictions)
            )
            scores = fusion_brain_per_question(predictions, references, languages)
            rows = {"score": scores, "languages": languages}
            context = {"ru": _lemmatizer()}
        elif scorer == "wups":
            thr, path = options["threshold"], options["wordnet_path"]
            with open_wordnet(path, NO_WORDNET, needed=thr != -1.0) as wordnet:
                scores = wups_per_question(predictions, references, threshold=thr, wordnet=wordnet)
            rows = {"score": scores}
            context = {"wn": "none" if wordnet is None else wordnet.get_version()}
        else:  # bleu1
            scores, _, bleu_counts = bleu1_scores(
                predictions, references, lowercase=options["lowercase"], return_counts=True
            )
            rows = {"score": scores, "counts": bleu_counts.astype(np.int64)}
    return rows, context


def reduce_rows(rows, context, preset, options, resampling, return_per_example=False) -> Result:
    """The result from the per-question rows of :func:`example_rows` in question order (what
    :func:`score_checked` and a merged state both call)."""
    import numpy as np

    from .arrow import string_column, string_ids

    scorer = SCORERS[preset]
    scores = rows["score"]
    extra = {}
    if scorer == "vqa_v2":
        # VLMEvalKit reports np.mean(hit) * 100 (vlmeval/dataset/image_vqa.py, ImageVQADataset.evaluate):
        # numpy's pairwise sum, which can differ from sum/len in the last bits; accuracy * 100 equals it
        harness_mean = options["normalize"] == "vlmevalkit"
        values = {"accuracy": float(np.mean(scores)) if harness_mean else mean(scores)}
        statistic = mean_statistic({"accuracy": scores})
        for kind in ("question_type", "answer_type"):
            groups = rows.get(f"{kind}s")
            if groups is not None:
                (group_ids,), labels = string_ids(string_column(groups))
                for t, v in group_means_from_ids(scores, group_ids, labels).items():
                    values[f"accuracy_{kind}/{t}"] = v
    elif scorer == "tdiuc":
        # A prediction matters only through its correctness: a right one takes the GT's id, a wrong one -1.
        (gt_ids,), strings = string_ids(string_column(rows["answers"]))
        (type_ids,), type_names = string_ids(string_column(rows["question_types"]))
        pred_ids = np.where(scores != 0, gt_ids, -1)
        eps, key = options["epsilon"], options["answer_key"]
        summary, scores, acc, nacc = tdiuc_scores_from_ids(
            pred_ids, gt_ids, strings, type_ids, type_names, epsilon=eps, answer_key=key
        )
        values = dict(summary)
        statistic = _tdiuc_statistic(scores, lambda: type_ranks(type_ids, type_names)[0], len(acc), eps)
        for t, v in acc.items():
            values[f"accuracy_question_type/{t}"] = v
        for t, v in nacc.items():
            values[f"normalized_accuracy_question_type/{t}"] = v
    elif scorer == "fusion_brain_2021":
        languages = list(rows["languages"])
        values = {"accuracy": mean(scores)}
        statistic = mean_statistic({"accuracy": scores})
        for lang, v in group_means(scores, languages).items():
            values[f"accuracy_language/{lang}"] = v
        extra = {"ru": context["ru"] if "ru" in languages else "none"}
    elif scorer == "wups":
        values = {"wups": mean(scores)}
        statistic = mean_statistic({"wups": scores})
        extra = {"wn": context["wn"]}
    else:  # bleu1
        values = {"bleu1": mean(scores), "bleu1_corpus": corpus_bleu1(rows["counts"])}
        statistic = _bleu1_statistic(scores, rows["counts"])
    signature = OPTIONS.signature(preset, options, resampling, extra)
    per_example = scores.tolist()
    values = {**values, **interval_values(statistic, resampling)}
    return Result.from_values(values, signature, per_example, statistic, options, return_per_example)


def score_checked(
    preset, predictions, references, columns, options, resampling, return_per_example=False
) -> Result:
    """The result of checked inputs: ``predictions`` and ``references`` as Arrow columns (what evaluate
    stores) or Python lists, ``columns`` the per-question inputs of the preset (name -> column or list;
    None or absent where not given), ``options`` from :func:`checked_options` and a checked ``Resampling``."""
    rows, context = example_rows(preset, predictions, references, columns, options)
    return reduce_rows(rows, context, preset, options, resampling, return_per_example)


@functools.lru_cache(maxsize=1)
def _lemmatizer() -> str:
    """:func:`~.core.lemmatizer_version`, read once per process (package metadata: about 5 ms a read)."""
    return lemmatizer_version()


def checked_inputs(preset, predictions, references, given) -> tuple:
    """``(predictions, references, columns)`` of ``score`` / ``State.update``: the answers checked by their
    conversion to Arrow (one C pass, as compute's add_batch checks them), the per-question inputs of
    ``preset`` (``given``: name -> values or None) by :func:`check_extra_inputs`."""
    predictions, prediction_array = strings_to_arrow(predictions, "predictions")
    _, counts, reference_array = reference_lists_to_arrow(references, "references")
    check_same_length("predictions", predictions, "references", counts)
    columns = check_extra_inputs(preset, predictions, given)
    return prediction_array, reference_array, columns


def score(
    predictions,
    references,
    preset="default",
    *,
    question_types=None,
    answer_types=None,
    languages=None,
    return_per_example=False,
    confidence=None,
    n_resamples=None,
    seed=None,
    **options,
) -> Result:
    """VQA accuracy of ``predictions`` (one answer per question) against ``references`` (per question the
    annotator answers, the accepted answers, or the single GT answer: see the presets).

    ``question_types``, ``answer_types``, ``languages``: the per-question inputs of the preset
    (``EXTRA_INPUTS``; one the preset does not take is an error). ``preset`` and ``options`` (see
    ``OPTIONS``) set the convention; ``confidence`` adds the bootstrap intervals of the main scores
    (``n_resamples`` resamples of the questions, ``seed``). Returns a :class:`~multimodal_metrics.results.Result`
    equal to what the evaluate module's ``compute`` returns; the checks run in its order (module docstring).
    """
    OPTIONS.check_preset(preset)
    resampling = Resampling(confidence, n_resamples, seed)
    check_bool(return_per_example, "return_per_example")
    given = {"question_types": question_types, "answer_types": answer_types, "languages": languages}
    takes = extra_inputs(preset)
    opts = checked_options(preset, {**{k: v for k, v in given.items() if k not in takes}, **options})
    prediction_array, reference_array, columns = checked_inputs(preset, predictions, references, given)
    return score_checked(
        preset, prediction_array, reference_array, columns, opts, resampling, return_per_example
    )


compare = compare_function(
    score,
    """Paired significance test of systems A and B on the same references (see ``stats.paired_comparison``);
    ``kwargs``: ``preset``, the per-question inputs and the options, the same for both.""",
)


_SCORE = Column("<f8", low=0.0, high=1.0)
STATE_COLUMNS = {  # what a state's row holds, by procedure (checked when bytes are read)
    "vqa_v2": {"score": _SCORE, "question_types": Column("str"), "answer_types": Column("str")},
    "fusion_brain_2021": {"score": _SCORE, "languages": Column("str", choices=LANGUAGES)},
    "tdiuc": {
        "score": Column("<f8", low=0.0, high=1.0, whole=True),
        "question_types": Column("str"),
        "answers": Column("str"),
    },
    "wups": {"score": _SCORE},
    "bleu1": {"score": _SCORE, "counts": Column("<i8", (4,), low=0)},
}


class State(MetricState):
    """vqa_acc's mergeable state (see :mod:`multimodal_metrics.state`): the rows of :func:`example_rows`
    kept with each question's global index; ``result`` equals ``score`` on all questions bit for bit.
    Bytes per question: 8 for its index and 8 for its score, plus, by procedure: vqa_v2 its question
    and answer types (each as JSON text: its UTF-8 length + 4 bytes, more where JSON escapes a
    character; 8 bytes when neither is given), fusion_brain_2021 its language (6 bytes), tdiuc its
    question type and GT answer (JSON text, length + 4 bytes each), bleu1 its four counts (32 bytes),
    wups nothing more; and a header of a few hundred bytes per state. Every merged state must share
    the library version, the preset, the options and the resource versions of the context (the Russian
    lemmatiser for fusion_brain_2021, even for shards without Russian questions; WordNet for wups)."""

    options = OPTIONS
    reduce_rows = staticmethod(reduce_rows)
    score = staticmethod(score)

    def _schema(self) -> dict:
        return STATE_COLUMNS[SCORERS[self.preset]]

    def update(
        self, predictions, references, question_types=None, answer_types=None, languages=None, index=None
    ) -> "State":
        """Score a batch: ``predictions`` (one answer per question), ``references`` (the answers of each
        question), the per-question inputs of the preset (as ``score`` takes them) and ``index`` (the
        global index of each question; default: after the last one held). The checks and errors are
        those of ``score``."""
        import pyarrow as pa

        preset = self.preset
        given = {"question_types": question_types, "answer_types": answer_types, "languages": languages}
        unknown_inputs(
            preset, [k for k, v in given.items() if v is not None and k not in extra_inputs(preset)]
        )
        predictions, references, columns = checked_inputs(preset, predictions, references, given)
        rows, context = example_rows(preset, predictions, references, columns, dict(self.options_resolved))
        rows = {
            k: v.to_pylist() if isinstance(v, (pa.Array, pa.ChunkedArray)) else v for k, v in rows.items()
        }
        digests = example_digests(predictions.to_pylist(), references.to_pylist(), *columns.values())
        return self._add(index, rows, context, digests)


state = state_function(State)


# ----------------------------------------------------------------------------------------------
# Sufficient statistics of the scores that are not plain means
# ----------------------------------------------------------------------------------------------
def _tdiuc_statistic(correct, type_rank, n_types: int, epsilon: float) -> Statistic:
    """Overall accuracy and the arithmetic / harmonic mean-per-type accuracies from per-type counts
    (``tdiuc.tdiuc_scores``: acc_t + eps on the 0-100 scale, the types present, capped at 1). A type
    absent from a resample is left out of that resample's means. Per question (``type_rank()``: its
    type's index among the ``n_types`` sorted types present): [correct, one-hot type, one-hot type x
    correct], built only when an interval or a comparison reads them (2 x #types + 1 numbers per question)."""
    import numpy as np

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
        return np.stack(
            [s[..., 0] / max(n, 1), np.minimum(arithmetic, 1.0), np.minimum(harmonic, 1.0)], axis=-1
        )

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
    import numpy as np

    n = len(sentence_scores)

    def scores(s):
        corpus = bleu(s[..., 1:2], s[..., 2:3], s[..., 3], s[..., 4])
        return np.stack([s[..., 0] / max(n, 1), corpus], axis=-1)

    return Statistic(("bleu1", "bleu1_corpus"), np.column_stack([sentence_scores, counts]), scores)
