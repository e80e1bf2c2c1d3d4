"""text_qa's option table, presets and ``score``: the functional API the evaluate module calls too."""

import numpy as np

from ..inputs import nest
from ..options import Option, OptionTable
from ..results import Result, mean
from ..state import text_pair_metric
from ..state_columns import Column
from ..stats import interval_values, mean_statistic
from .core import MEASURES, lemmatizer_version, text_qa_per_example

PRESETS = {
    # Official AIJ 2022 TextQA calculate_f1.py (seeds_reference.md 1.1).
    "default": {"measure": "f1", "keep_hyphen": False, "letter_fallback": True},
    "textqa": {"measure": "f1", "keep_hyphen": False, "letter_fallback": True},
    # Official AIJ 2022 MathQA calculate_exact_score.py (seeds_reference.md 1.2).
    "mathqa": {"measure": "exact_match", "keep_hyphen": True, "letter_fallback": True},
    # TextQA normalisation and token F1 without the [abcde] letter fallback.
    "plain": {"measure": "f1", "keep_hyphen": False, "letter_fallback": False},
}

# Whether a larger value of each result key is better (torchmetrics' higher_is_better; None: a raw
# count, left out of the Trainer form): see multimodal_metrics.results.key_direction.
HIGHER_IS_BETTER = {"exact_match": True, "f1": True}

OPTIONS = OptionTable(
    "text_qa",
    [
        Option(
            "measure",
            "'f1' (SQuAD-style token F1, AIJ 2022 TextQA) or 'exact_match' (AIJ 2022 MathQA); "
            "it names the result key.",
            choices=MEASURES,
            sig="measure",
        ),
        Option(
            "keep_hyphen",
            "keep `-` when deleting ASCII punctuation (MathQA: negative numbers).",
            kind="bool",
            sig="hyphen",
        ),
        Option(
            "letter_fallback",
            "the official [abcde] fallback: when an example scores <= 0.5 and the raw "
            "prediction holds one of the Latin letters a-e, the first such letter is scored instead.",
            kind="bool",
            sig="fallback",
        ),
    ],
    PRESETS,
)


def example_rows(predictions, flat_references, counts, preset, options) -> tuple[dict, dict]:
    """The per-question rows of checked inputs (the score under ``options["measure"]``) and the context:
    the lemmatiser the scores depend on (ImportError naming the pip command when pymorphy3 is missing)."""
    lemmatizer = lemmatizer_version()
    scores = text_qa_per_example(predictions, nest(flat_references, counts), **options)
    return {options["measure"]: np.asarray(scores, dtype=np.float64)}, {"lemma": lemmatizer}


def reduce_rows(columns, context, preset, options, resampling, return_per_example=False) -> Result:
    """Token F1 or exact match from the per-question rows in example order (what ``score`` and a merged
    state both call); the signature records the lemmatiser of ``context``."""
    key = options["measure"]
    scores = columns[key].tolist()
    signature = OPTIONS.signature(preset, options, resampling, {"lemma": context["lemma"]})
    statistic = mean_statistic({key: scores})
    values = {key: mean(columns[key]), **interval_values(statistic, resampling)}
    return Result.from_values(values, signature, scores, statistic, options, return_per_example)


score_checked, score, compare, State, state = text_pair_metric(
    OPTIONS,
    example_rows,
    reduce_rows,
    score_doc="""Token F1 (``f1``) or exact match (``exact_match``) of ``predictions`` (one answer per question)
    against ``references`` (one answer, or a list of accepted answers, per question), after the AIJ 2022
    normalisation (lower-case, ASCII punctuation deleted, pymorphy3 lemmas, Russian number words as digits).

    ``preset`` and ``options`` (``measure``, ``keep_hyphen``, ``letter_fallback``: see ``OPTIONS``) set
    the convention; ``confidence`` adds the bootstrap interval ``<key>_ci_low``/``_high`` (``n_resamples``
    resamples of the questions, ``seed``). Returns a :class:`~multimodal_metrics.results.Result` equal to
    what the evaluate module's ``compute`` returns.
    """,
    state_doc="""text_qa's mergeable state (see :mod:`multimodal_metrics.state`): per question its score (8 bytes)
    and global index (8 bytes), and the lemmatiser's version, which every merged state must share;
    ``result`` equals ``score`` on all questions bit for bit.""",
    columns=lambda options: {options["measure"]: Column("<f8", low=0.0, high=1.0)},
)
