"""NED's option table, presets and ``score``: the functional API the evaluate module calls too."""

import numpy as np

from ..options import Option, OptionTable, check_choice, check_number
from ..results import LazyRows, Result, mean
from ..state import text_pair_metric
from ..state_columns import Column
from ..stats import Statistic, interval_values
from .core import BOTH_EMPTY_SCORES, CASE_FOLDS, cer_per_example, corpus_cer, ned_per_example_flat

PRESETS = {
    # Official AIJ 2022 FusionBrain calculate_NED.py (seeds_reference.md section 1.6).
    "default": {"case_fold": "none", "fullwidth_to_halfwidth": False, "both_empty": 0.0, "cer_strip": False},
    # ICDAR 2019 ReCTS task rules: Latin case-insensitive, full-width = half-width, "" vs "" = 1.
    "icdar2019": {
        "case_fold": "latin",
        "fullwidth_to_halfwidth": True,
        "both_empty": 1.0,
        "cer_strip": False,
    },
    # Official AIJ 2022 except that two empty strings score 1 (mmocr OneMinusNormEditDistance).
    "empty_match": {
        "case_fold": "none",
        "fullwidth_to_halfwidth": False,
        "both_empty": 1.0,
        "cer_strip": False,
    },
}


def _check_both_empty(value, arg: str) -> float:
    """A number in [0, 1] (ints and numpy scalars accepted), then one of ``BOTH_EMPTY_SCORES``."""
    return check_choice(check_number(value, arg, 0.0, 1.0), BOTH_EMPTY_SCORES, arg)


# Whether a larger value of each result key is better (torchmetrics' higher_is_better; None: a raw
# count, left out of the Trainer form): see multimodal_metrics.results.key_direction.
HIGHER_IS_BETTER = {"one_minus_ned": True, "string_accuracy": True, "cer": False}

OPTIONS = OptionTable(
    "ned",
    [
        Option(
            "case_fold",
            "letter-case folding before comparing: 'none' (official, case-sensitive), 'latin' "
            "(ASCII A-Z folded to a-z, ICDAR 2019 ReCTS), 'all' (`str.lower()` on every script).",
            choices=CASE_FOLDS,
            sig="case",
        ),
        Option(
            "fullwidth_to_halfwidth",
            "treat full-width forms U+FF01..U+FF5E and U+3000 as their ASCII "
            "counterparts (ICDAR 2019 ReCTS).",
            kind="bool",
            sig="fw2hw",
        ),
        Option(
            "both_empty",
            "score of a pair of two empty strings, 0 (official AIJ 2022) or 1 (ICDAR / mmocr); "
            "a pair with one empty string always scores 0.",
            choices=BOTH_EMPTY_SCORES,
            check=_check_both_empty,
            cli=float,
            doc_type="float",
            sig="empty",
        ),
        # In the signature only when set (``cer:jiwer``), so the signatures recorded before it stay valid.
        Option(
            "cer_strip",
            "strip both strings before the CER's edit distance and length, as jiwer 4's default "
            "`cer` (False: no stripping, as torchmetrics' CharErrorRate); 1 - NED and string accuracy are "
            "unchanged.",
            kind="bool",
        ),
    ],
    PRESETS,
)


def _statistic(one_minus_ned, exact, edits, ref_chars) -> Statistic:
    """Per-example sufficient statistics: the two means, and ``cer`` = sum(edits) / max(1, sum(lengths))."""
    n = len(one_minus_ned)

    def scores(sums):
        return np.stack(
            [
                sums[..., 0] / max(n, 1),
                sums[..., 1] / max(n, 1),
                sums[..., 2] / np.maximum(sums[..., 3], 1.0),
            ],
            axis=-1,
        )

    stats = np.empty((n, 4), dtype=np.float64, order="F")  # the layout Statistic keeps: no copy there
    stats[:, 0], stats[:, 1], stats[:, 2], stats[:, 3] = one_minus_ned, exact, edits, ref_chars
    return Statistic(("one_minus_ned", "string_accuracy", "cer"), stats, scores)


def example_rows(predictions, flat_references, counts, preset, options) -> tuple[dict, dict]:
    """The per-example rows of checked inputs: ``one_minus_ned``, ``string_accuracy``, ``edits`` and
    ``ref_chars`` (the CER's numerator and denominator); no resources, so an empty context."""
    return dict(ned_per_example_flat(predictions, flat_references, counts, **options)), {}


def _per_example(ned_scores, exact, edits, ref_chars) -> list:
    """One dict per example: ``one_minus_ned``, ``string_accuracy``, ``cer`` (made when asked for)."""
    cers = cer_per_example(edits, ref_chars).tolist()
    return [{"one_minus_ned": s, "string_accuracy": e, "cer": c} for s, e, c in zip(ned_scores, exact, cers)]


def reduce_rows(columns, context, preset, options, resampling, return_per_example=False) -> Result:
    """1 - NED, string accuracy and CER from the per-example rows in example order (what ``score`` and a
    merged state both call)."""
    ned_scores = columns["one_minus_ned"].tolist()
    exact = columns["string_accuracy"].tolist()
    per_example = LazyRows(_per_example, ned_scores, exact, columns["edits"], columns["ref_chars"])
    if return_per_example is True:
        per_example = per_example()
    cer_field = {"cer": "jiwer"} if options.get("cer_strip") else {}
    signature = OPTIONS.signature(preset, options, resampling, cer_field)
    statistic = _statistic(
        columns["one_minus_ned"], columns["string_accuracy"], columns["edits"], columns["ref_chars"]
    )
    values = {
        "one_minus_ned": mean(columns["one_minus_ned"]),
        "string_accuracy": mean(columns["string_accuracy"]),
        "cer": corpus_cer(columns["edits"], columns["ref_chars"]),
        **interval_values(statistic, resampling),
    }
    return Result.from_values(values, signature, per_example, statistic, options, return_per_example)


score_checked, score, compare, State, state = text_pair_metric(
    OPTIONS,
    example_rows,
    reduce_rows,
    score_doc="""1 - NED, ``string_accuracy`` and the corpus ``cer`` of ``predictions`` (one recognised text per
    example) against ``references`` (one transcription, or a list of accepted transcriptions, per example).

    ``preset`` and ``options`` (``case_fold``, ``fullwidth_to_halfwidth``, ``both_empty``, ``cer_strip``: see
    ``OPTIONS``)
    set the convention; ``confidence`` adds the bootstrap intervals ``<key>_ci_low``/``_high`` of the three
    scores (``n_resamples`` resamples of the examples, ``seed``). ``per_example``: one dict per example
    (``one_minus_ned``, ``string_accuracy``, ``cer``). Returns a :class:`~multimodal_metrics.results.Result`
    equal to what the evaluate module's ``compute`` returns.
    """,
    state_doc="""NED's mergeable state (see :mod:`multimodal_metrics.state`): per example 1 - NED, exact match, the
    CER's edits and reference length (8 bytes each) and the global index (8 bytes); ``result`` equals
    ``score`` on all examples bit for bit.""",
    columns={
        "one_minus_ned": Column("<f8", low=0.0, high=1.0),
        "string_accuracy": Column("<f8", low=0.0, high=1.0),
        "edits": Column("<f8", low=0.0, whole=True),
        "ref_chars": Column("<f8", low=0.0, whole=True),
    },
    compare_doc="""Paired significance test of systems A and B on the same references (see ``stats.paired_comparison``),
    per score (``one_minus_ned``, ``string_accuracy``, ``cer``); ``kwargs``: ``preset`` and the options,
    the same for both.""",
)
