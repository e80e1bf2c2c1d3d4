"""ANLS's option table, presets and ``score``: the functional API the evaluate module calls too."""

from ..options import Option, OptionTable
from ..results import Result, mean
from ..state import text_pair_metric
from ..state_columns import Column
from ..stats import interval_values, mean_statistic
from .core import BOUNDARIES, LENGTH_NORMS, TEXT_NORMS, anls_per_question_flat

PRESETS = {
    # Official RRC DocVQA / InfographicVQA scoring script (seeds_reference.md section 4).
    "default": {
        "threshold": 0.5,
        "boundary": "inclusive",
        "text_norm": "ws+lower",
        "length_norm": "raw_upper",
    },
    # ST-VQA paper formula as implemented by the PyPI `anls` 0.0.2 package.
    "stvqa": {
        "threshold": 0.5,
        "boundary": "strict",
        "text_norm": "ws+lower",
        "length_norm": "normalized_upper",
    },
    # herobd/layoutlmv2 eval_docvqa.py, the snippet quoted in seed 004.
    "layoutlmv2": {"threshold": 0.5, "boundary": "strict", "text_norm": "lower", "length_norm": "raw"},
    # ANLS* (Peer et al. 2024), PyPI `anls_star` 1.0.1 `anls_score(tuple(answers), prediction)` on strings.
    "anls_star": {
        "threshold": 0.5,
        "boundary": "inclusive",
        "text_norm": "ws+lower",
        "length_norm": "normalized",
    },
}

# Whether a larger value of each result key is better (torchmetrics' higher_is_better; None: a raw
# count, left out of the Trainer form): see multimodal_metrics.results.key_direction.
HIGHER_IS_BETTER = {"anls": True}

OPTIONS = OptionTable(
    "anls",
    [
        Option(
            "threshold",
            "similarity threshold t in [0, 1]; a score that does not pass it becomes 0 "
            "(the paper's tau on the distance NL equals 1 - t).",
            kind="number",
            low=0.0,
            high=1.0,
            sig="thr",
        ),
        Option(
            "boundary",
            "'inclusive' keeps s >= t (official RRC), 'strict' keeps s > t (ST-VQA paper, "
            "PyPI `anls`, layoutlmv2 snippet).",
            choices=BOUNDARIES,
            sig="bound",
        ),
        Option(
            "text_norm",
            "what the distance sees: 'ws+lower' (strip, lower-case, collapse whitespace), "
            "'lower' (lower-case only), 'none' (raw strings).",
            choices=TEXT_NORMS,
            sig="norm",
        ),
        Option(
            "length_norm",
            "the length normaliser: 'raw_upper' (max len(x.upper()) over raw strings, official), "
            "'normalized_upper' (same over normalised strings, PyPI `anls`), 'raw' (max len over raw strings), "
            "'normalized' (max len over normalised strings, ANLS*).",
            choices=LENGTH_NORMS,
            sig="len",
        ),
    ],
    PRESETS,
)


def example_rows(predictions, flat_references, counts, preset, options) -> tuple[dict, dict]:
    """The per-question rows of checked inputs: ``({"anls": scores}, context)`` (no resources: empty context)."""
    return {"anls": anls_per_question_flat(predictions, flat_references, counts, **options)}, {}


def reduce_rows(columns, context, preset, options, resampling, return_per_example=False) -> Result:
    """ANLS from the per-question rows in example order (what ``score`` and a merged state both call)."""
    scores = columns["anls"].tolist()
    signature = OPTIONS.signature(preset, options, resampling)
    statistic = mean_statistic({"anls": scores})
    values = {"anls": mean(columns["anls"]), **interval_values(statistic, resampling)}
    return Result.from_values(values, signature, scores, statistic, options, return_per_example)


score_checked, score, compare, State, state = text_pair_metric(
    OPTIONS,
    example_rows,
    reduce_rows,
    score_doc="""ANLS of ``predictions`` (one answer per question) against ``references`` (one answer, or a list of
    accepted answers, per question).

    ``preset`` and ``options`` (``threshold``, ``boundary``, ``text_norm``, ``length_norm``: see
    ``OPTIONS``) set the convention; ``confidence`` adds the bootstrap interval ``anls_ci_low``/``_high``
    (``n_resamples`` resamples of the questions, ``seed``). Returns a :class:`~multimodal_metrics.results.Result`
    equal to what the evaluate module's ``compute`` returns.
    """,
    state_doc="""ANLS's mergeable state (see :mod:`multimodal_metrics.state`): per-question scores kept with their
    global index; ``result`` equals ``score`` on all questions bit for bit. 8 bytes per question plus
    8 for its index.""",
    columns={"anls": Column("<f8", low=0.0, high=1.0)},
)
