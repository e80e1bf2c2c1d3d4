"""CodeBLEU's option table, presets and ``score``: the functional API the evaluate module calls too."""

import functools
import math
import os
import warnings

import numpy as np

from ..inputs import nest
from ..options import Option, OptionTable, check_number
from ..results import Result, sequential_sum
from ..state import text_pair_metric
from ..state_columns import Column
from ..stats import Statistic, bleu, interval_values, ratio
from .corpus import KEYS, MISSING_DATAFLOW, STATS_COLUMNS, corpus_codebleu, corpus_scores
from .dataflow import DATAFLOW_WORK_PER_TOKEN
from .keywords import COMMENT_RULES, KEYWORD_SETS, LANGUAGES
from .legacy_runtime import BUILD_COMMAND
from .ngrams import EPSILON
from .trees import MAX_PRINT_DEPTH

# The key order of a preset is the order in which compute has always checked the options (`lang` first,
# `missing_dataflow` before `strip`): with several bad options, the same one is reported. The option
# table below has the signature's order.
PRESETS = {
    # microsoft/CodeXGLUE Code-Code/code-to-code-trans/evaluator/CodeBLEU (calc_code_bleu.py).
    "default": {
        "lang": None,
        "weights": [0.25, 0.25, 0.25, 0.25],
        "keywords": "codexglue",
        "remove_comments": "java",
        "missing_dataflow": "zero",
        "strip": True,
        "ast_clipping": False,
        "grammar_library": "2020",
    },
    # Same code, the paper's recommended weights (Ren et al. 2020, section 4).
    "paper": {
        "lang": None,
        "weights": [0.1, 0.1, 0.4, 0.4],
        "keywords": "codexglue",
        "remove_comments": "java",
        "missing_dataflow": "zero",
        "strip": True,
        "ast_clipping": False,
        "grammar_library": "2020",
    },
    # PyPI `codebleu` 0.7.0 (k4black/codebleu): calc_codebleu(references, predictions, lang).
    "pypi": {
        "lang": None,
        "weights": [0.25, 0.25, 0.25, 0.25],
        "keywords": "pypi",
        "remove_comments": "lang",
        "missing_dataflow": "zero_is_one",
        "strip": True,
        "ast_clipping": False,
        "grammar_library": "wheels",
    },
    # ai-forever/fusion_brain_aij2021 evaluation/C2C_codeBLEU (python target, pseudo-code tokens).
    "fusion_brain_2021": {
        "lang": "python",
        "weights": [0.25, 0.25, 0.25, 0.25],
        "keywords": "codexglue",
        "remove_comments": "none",
        "missing_dataflow": "zero",
        "strip": False,
        "ast_clipping": False,
        "grammar_library": "2020",
    },
}
PRESETS["k4black"] = dict(PRESETS["pypi"])


def _check_weights(weights, arg: str = "weights") -> list:
    """4 finite weights >= 0, not all 0, whose sum is finite (the score is at most their sum); a
    list, tuple or 1-D numpy array."""
    if type(weights).__module__ == "numpy" and getattr(weights, "ndim", None) == 1:
        weights = weights.tolist()
    if isinstance(weights, str | bytes) or not isinstance(weights, list | tuple) or len(weights) != 4:
        raise TypeError(
            f"`{arg}` must be a list of 4 numbers (ngram, weighted, syntax, dataflow), got {weights!r:.80}"
        )
    values = [check_number(w, f"{arg}[{i}]", 0.0, None) for i, w in enumerate(weights)]
    total = sequential_sum(values)
    if total == 0:
        raise ValueError(f"`{arg}` must not all be 0 (the score would be 0 whatever the code)")
    if math.isinf(total):
        raise ValueError(
            f"`{arg}` must sum to a finite number (the score is at most their sum), got {weights!r:.80}"
        )
    if abs(total - 1.0) > 1e-9:
        import warnings

        warnings.warn(
            f"codebleu: `{arg}` sum to {total:g}, not 1: the score is on a 0 to {total:g} scale and is not comparable "
            "with scores whose weights sum to 1 (every published CodeBLEU uses 0.25 each, or 0.1/0.1/0.4/0.4)",
            UserWarning,
            stacklevel=2,
        )
    return values


def _parse_weights(text: str) -> list:
    """``0.25,0.25,0.25,0.25`` (a command-line flag, a demo text box) as a list of numbers."""
    try:
        return [float(x) for x in text.replace(" ", "").split(",")]
    except ValueError:
        raise ValueError("`weights` must be 4 comma-separated numbers, e.g. 0.25,0.25,0.25,0.25") from None


GRAMMAR_CHOICES = ("2020", "wheels")


def _check_grammar_library(library, arg: str = "grammar_library"):
    """ "2020", "wheels", or a path (str or os.PathLike), kept as given: the file is opened at scoring time."""
    if not isinstance(library, str | os.PathLike):
        raise TypeError(
            f"`{arg}` must be '2020', 'wheels' or a path to a tree-sitter shared library, got {library!r}"
        )
    return library


def _wheel_fields(lang: str) -> dict:
    """``{"grammar": "<wheel>@<version>", "ts": "<tree-sitter version>"}`` of the grammar wheels."""
    return dict(_wheel_versions(lang))


@functools.cache
def _wheel_versions(lang: str) -> tuple:
    """The items of ``_wheel_fields`` (the package metadata is read once per process and language)."""
    from importlib.metadata import PackageNotFoundError, version

    from .trees import GRAMMAR_MODULES

    def installed(dist):
        try:
            return version(dist)
        except PackageNotFoundError:
            return "missing"

    dist = GRAMMAR_MODULES[lang][0].replace("_", "-")
    return (("grammar", f"{dist}@{installed(dist)}"), ("ts", installed("tree-sitter")))


def _not_2020_warning(preset, lang: str, why: str) -> None:
    warnings.warn(
        f"codebleu: the `{preset}` preset scores with the 2020 grammars of CodeXGLUE / Fusion Brain 2021 "
        f"(grammar_library='2020'), but {why}: scored with the grammar wheels of tree-sitter 0.26 instead, whose "
        "AST and data-flow matches differ from the official numbers (Fusion Brain 2021's C2C sample: 0.3018 "
        "instead of 0.0859). Build the runtime of 2020 and its grammars with "
        f"`{BUILD_COMMAND}`, or pass grammar_library='wheels' (or a path to my-languages.so) to choose.",
        stacklevel=5,
    )


def tree_source(grammar_library, lang: str, preset="default"):
    """``(trees, signature fields)`` for ``grammar_library``: a path (that library on the runtime of 2020),
    ``"2020"`` (the 2020 grammar library built beside the runtime, ``legacy_runtime.find_grammars``; where it
    is not built, or lacks ``lang``, the grammar wheels with a loud warning naming the build command, or one
    ``MissingExtra`` and no warning when the wheels are not installed either) or
    ``"wheels"`` (tree-sitter 0.26 and the grammar wheels: ``trees`` the C walker of ``wheels_runtime`` where it
    is built, else None, the Python walk; the same numbers). The fields record the grammar
    (file name and sha256 prefix, or wheel and version) and the runtime version (``ts:0.2.0`` / ``ts:0.26.x``)."""
    from . import legacy_runtime
    from .trees import require_wheels

    if isinstance(grammar_library, str) and grammar_library == "wheels":
        from .wheels_runtime import walker

        return walker(), _wheel_fields(lang)  # the C walker where it is built (the same numbers), else Python
    if isinstance(grammar_library, str) and grammar_library == "2020":
        path = legacy_runtime.find_grammars()
        if path is None:  # the wheels instead: one error first when they are not installed either
            require_wheels(lang, f"codebleu without the 2020 grammars (not built here: `{BUILD_COMMAND}`)")
            _not_2020_warning(
                preset,
                lang,
                "the tree-sitter runtime of 2020 and its grammar library "
                f"({legacy_runtime.GRAMMAR_FILE}) are not built here",
            )
            return None, _wheel_fields(lang)
        trees = legacy_runtime.open_library(path, LANGUAGES)
        if lang not in trees.languages:
            require_wheels(
                lang, f"codebleu with lang={lang!r} (the 2020 grammar library has no {lang} grammar)"
            )
            _not_2020_warning(
                preset,
                lang,
                f"the 2020 grammar library has no {lang} grammar "
                f"(it holds {', '.join(sorted(trees.languages))})",
            )
            return None, _wheel_fields(lang)
    else:
        trees = legacy_runtime.open_library(grammar_library, LANGUAGES)
        trees.parser(lang)  # a library without this language: ValueError before any work
    return trees, {"grammar": trees.label(), "ts": legacy_runtime.RUNTIME_VERSION}


# Whether a larger value of each result key is better (torchmetrics' higher_is_better; None: a raw
# count, left out of the Trainer form): see multimodal_metrics.results.key_direction.
HIGHER_IS_BETTER = {key: True for key in KEYS}

OPTIONS = OptionTable(
    "codebleu",
    [
        Option(
            "lang",
            "programming language. Required (no default) except in the `fusion_brain_2021` preset (python).",
            choices=LANGUAGES,
            sig="lang",
            required=True,
        ),
        Option(
            "weights",
            "weights of ngram_match, weighted_ngram_match, syntax_match, dataflow_match (`paper` "
            "preset: 0.1, 0.1, 0.4, 0.4). Finite, >= 0, not all 0, with a finite sum; a 1-D numpy array is "
            "accepted.",
            kind="custom",
            check=_check_weights,
            cli=_parse_weights,
            sig="w",
            doc_type="list of 4 float",
        ),
        Option(
            "keywords",
            "keyword lists of the weighted n-gram match: 'codexglue' (python: the 35 keywords of "
            "2020) or 'pypi' (python: 38, adds match/case/type). Other languages: same lists.",
            choices=KEYWORD_SETS,
            sig="kw",
            demo=False,
        ),
        Option(
            "remove_comments",
            "comment removal before the AST and data-flow matches: 'java' (CodeXGLUE: "
            "C-style comments removed whatever the language), 'lang' (PyPI codebleu: per language, python "
            "docstrings too), 'none' (AIJ 2021).",
            choices=COMMENT_RULES,
            sig="cmt",
            demo=False,
        ),
        Option(
            "strip",
            "strip leading/trailing whitespace of every snippet first (CodeXGLUE reads one stripped "
            "line per example; PyPI strips; AIJ does not).",
            kind="bool",
            sig="strip",
            demo=False,
        ),
        Option(
            "missing_dataflow",
            "'zero' (CodeXGLUE/AIJ: a corpus without reference data flow scores 0 on that "
            "component, with a warning), 'one' (it counts as 1 in the combination), 'zero_is_one' (PyPI `or "
            "1`: any data-flow score of 0 counts as 1 in the combination). The `dataflow_match` key always "
            "shows the measured value.",
            choices=MISSING_DATAFLOW,
            sig="df0",
            demo=False,
        ),
        Option(
            "ast_clipping",
            "False (reference code: a reference subtree counts when it occurs anywhere in the "
            "candidate), True (the paper's clipped count min(count_ref, count_cand)).",
            kind="bool",
            sig="astclip",
            demo=False,
        ),
        Option(
            "grammar_library",
            "the grammars of the AST and data-flow matches: '2020' (`default`, `paper`, "
            "`fusion_brain_2021`: the 2020 grammars, python and java, that "
            "`python -m multimodal_metrics.codebleu.build_runtime` builds beside the tree-sitter runtime of 2020; "
            "where they are not built, or for another language, the wheels with a warning), 'wheels' "
            "(`pypi`: tree-sitter 0.26 and the grammar wheels), or a path to a tree-sitter grammar library "
            "(shared object exporting `tree_sitter_<lang>`, language ABI 9 to 12, e.g. the `my-languages.so` "
            "that CodeXGLUE and Fusion Brain 2021 ship) parsed with the runtime of 2020. Recorded in the "
            "signature as `grammar:<file name>@<sha256 prefix>|ts:0.2.0` or `grammar:<wheel>@<version>|ts:<"
            "tree-sitter version>`.",
            kind="custom",
            check=_check_grammar_library,
            cli=str,
            doc_type="str or path",
            demo=False,
        ),
    ],
    PRESETS,
)


def _statistic(stats, weights, missing_dataflow: str) -> Statistic:
    """CodeBLEU and its four components from pooled per-example counts (columns of
    ``core.STATS_COLUMNS``): corpus BLEU with CodeXGLUE's 0.1 floor for the two n-gram components,
    pooled match ratios for syntax and data flow, combined like ``core.combine``."""
    a, b, c, d = weights

    def scores(s):
        ngram = bleu(s[..., 0:4], s[..., 4:8], s[..., 8], s[..., 9], zero_floor=EPSILON)
        weighted = bleu(s[..., 10:14], s[..., 14:18], s[..., 18], s[..., 19], zero_floor=EPSILON)
        syntax = ratio(s[..., 20], s[..., 21])
        dataflow = ratio(s[..., 22], s[..., 23])
        counted = dataflow
        if missing_dataflow == "one":
            counted = np.where(s[..., 23] == 0, 1.0, dataflow)
        elif missing_dataflow == "zero_is_one":
            counted = np.where(dataflow == 0, 1.0, dataflow)
        total = a * ngram + b * weighted + c * syntax + d * counted
        return np.stack([total, ngram, weighted, syntax, dataflow], axis=-1)

    return Statistic(KEYS, stats, scores)


def _rows(predictions, flat_references, counts, preset, options):
    """(columns, context, notes) of checked inputs: per example the :data:`~.corpus.STATS_COLUMNS` counts
    (``stats``) and ``dataflow_limited``; the grammars as context; the parse notes of the batch."""
    opts = dict(options)
    trees, grammar_fields = tree_source(opts.pop("grammar_library"), opts["lang"], preset)
    references = nest(flat_references, counts)
    _, _, notes = corpus_codebleu(list(predictions), references, per_example=False, trees=trees, **opts)
    limited = np.zeros(len(predictions), dtype=bool)
    limited[[*notes["limited_predictions"], *notes["limited_references"]]] = True
    columns = {
        "stats": np.asarray(notes["stats"], dtype=np.float64).reshape(-1, len(STATS_COLUMNS)),
        "dataflow_limited": limited,
    }
    return columns, grammar_fields, notes


def example_rows(predictions, flat_references, counts, preset, options) -> tuple[dict, dict]:
    """The per-example rows of checked inputs (see :func:`_rows`), warning about snippets that do not parse
    cleanly (indices within the batch)."""
    columns, context, notes = _rows(predictions, flat_references, counts, preset, options)
    _warn(notes, options["lang"], corpus=False)
    return columns, context


def reduce_rows(columns, context, preset, options, resampling, return_per_example=False) -> Result:
    """CodeBLEU and its four components from the per-example rows in example order (what ``score`` and a
    merged state both call): :func:`~.corpus.corpus_scores` of the pooled counts; the per-example dicts
    are the same formulas on each row. Warns when no reference has data flow."""
    opts = {key: value for key, value in options.items() if key != "grammar_library"}
    stats = columns["stats"].tolist()
    scores, df_total = corpus_scores(stats, opts["weights"], opts["missing_dataflow"])
    if df_total == 0:
        _warn_no_dataflow(stacklevel=5)
    per_example = None
    if return_per_example:
        per_example = [
            dict(corpus_scores([row], opts["weights"], opts["missing_dataflow"])[0], dataflow_limited=flag)
            for row, flag in zip(stats, columns["dataflow_limited"].tolist())
        ]
    signature = OPTIONS.signature(preset, opts, resampling, {"tok": "split", **context})
    statistic = _statistic(columns["stats"], opts["weights"], opts["missing_dataflow"])
    values = {**{key: scores[key] for key in KEYS}, **interval_values(statistic, resampling)}
    return Result.from_values(values, signature, per_example, statistic, options, return_per_example)


def score_checked(
    predictions, flat_references, counts, preset, options, resampling, return_per_example=False
) -> Result:
    """CodeBLEU of checked inputs (``predictions``, every reference in order, references per example)
    with resolved ``options`` (``OPTIONS.resolve``) and a checked ``Resampling``. The ``grammar_library`` is
    resolved here (:func:`tree_source`; a missing file: ValueError; a path without the runtime of 2020:
    RuntimeError; "2020" without it: the wheels and a warning)."""
    columns, context, notes = _rows(predictions, flat_references, counts, preset, options)
    _warn(notes, options["lang"], corpus=False)
    return reduce_rows(columns, context, preset, options, resampling, return_per_example)


def _list(idx) -> str:
    return ", ".join(str(i) for i in idx[:10]) + (", ..." if len(idx) > 10 else "")


def _warn(notes: dict, lang: str, stacklevel: int = 4, corpus: bool = True) -> None:
    """The warnings of a computation (``stacklevel`` 4: the caller of ``score``, or evaluate's ``compute``)."""
    for key, arg in (("bad_predictions", "predictions"), ("bad_references", "references")):
        idx = notes[key]
        if idx:
            warnings.warn(
                f"codebleu: {len(idx)} of the `{arg}` do not parse cleanly as {lang} (indices {_list(idx)}); "
                "tree-sitter recovered with ERROR/MISSING nodes and they were scored as parsed",
                stacklevel=stacklevel,
            )
    for key, arg in (("limited_predictions", "predictions"), ("limited_references", "references")):
        idx = notes[key]
        if idx:
            warnings.warn(
                f"codebleu: the data flow of {len(idx)} of the `{arg}` (indices {_list(idx)}) was left out: "
                f"extracting it would exceed the work limit ({DATAFLOW_WORK_PER_TOKEN} units per token; deeply "
                "nested loops cost 2^depth, chained assignments quadratic); they count as code without data "
                "flow, and their per-example results say dataflow_limited=True",
                stacklevel=stacklevel,
            )
    if notes["unprinted"]:
        idx = notes["unprinted"]
        warnings.warn(
            f"codebleu: examples {', '.join(str(i) for i in idx[:10])}{', ...' if len(idx) > 10 else ''} hold a "
            f"tree-sitter error-recovery subtree nested more than {MAX_PRINT_DEPTH} levels deep over a hidden "
            "MISSING token; it is compared without that token (the reference's printer would crash there)",
            stacklevel=stacklevel,
        )
    if corpus and notes["no_dataflow"]:
        _warn_no_dataflow(stacklevel + 1)


def _warn_no_dataflow(stacklevel: int) -> None:
    """The corpus-level warning: no reference of the whole corpus has data flow."""
    warnings.warn(
        "codebleu: no data flow was extracted from any reference; dataflow_match is 0 "
        "(see the `missing_dataflow` option)",
        stacklevel=stacklevel,
    )


score_checked, score, compare, State, state = text_pair_metric(
    OPTIONS,
    example_rows,
    reduce_rows,
    score_doc="""CodeBLEU of ``predictions`` (one code snippet per example) against ``references`` (one snippet,
    or a list of snippets, per example).

    ``preset`` and ``options`` (``lang``, required outside ``fusion_brain_2021``; ``weights``,
    ``keywords``, ``remove_comments``, ``strip``, ``missing_dataflow``, ``ast_clipping``,
    ``grammar_library``: see ``OPTIONS``) set the convention; ``confidence`` adds the bootstrap
    intervals ``<key>_ci_low``/``_high`` of the 5 scores (``n_resamples`` resamples of the code pairs,
    ``seed``). Returns a :class:`~multimodal_metrics.results.Result` equal to what the evaluate module's
    ``compute`` returns; ``.per_example`` holds the per-example dicts with ``return_per_example=True``
    (else None).
    """,
    state_doc="""CodeBLEU's mergeable state (see :mod:`multimodal_metrics.state`): per example its 24 pooled counts
    (:data:`~.corpus.STATS_COLUMNS`, 192 bytes), its data-flow-limited flag (1 byte) and its global index
    (8 bytes); every merged state must share the grammars (the context). ``result`` equals ``score`` on
    all examples bit for bit; the parse warnings of ``update`` name indices within the batch.""",
    columns={"stats": Column("<f8", (len(STATS_COLUMNS),), low=0.0), "dataflow_limited": Column("|b1")},
    compare_doc="""Paired significance test of systems A and B on the same references (see ``stats.paired_comparison``);
    ``kwargs``: ``preset`` and the options (``lang``), the same for both.""",
    score_checked=score_checked,
    state_note="``lang`` is required outside ``fusion_brain_2021``.",
)
