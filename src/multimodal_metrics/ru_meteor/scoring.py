"""ru_meteor's option table, presets and ``score``: the functional API the evaluate module calls too.

The resources are read from local files only: English WordNet 3.0 (``wordnet_path``, else NLTK's data
path, else Debian's ``/usr/share/wordnet``: :mod:`multimodal_metrics.resources.wordnet`) and the
RuWordNet SQLite file (``ruwordnet_path``, else ``$RUWORDNET_DB``, else the ``ruwordnet`` package's
``static/`` folder). Resolving the options (``OPTIONS.resolve``) opens them, so a missing resource is
refused with the other options, before anything is scored (or cached by evaluate).
"""

import numpy as np

from ..inputs import nest
from ..options import Option, OptionTable
from ..resources.wordnet import load_wordnet, open_wordnet
from ..results import Result, Signature
from ..state import text_pair_metric
from ..state_columns import Column
from ..stats import Resampling, Statistic, interval_values, mean_statistic, ratio
from .core import REFERENCE_AGGS, corpus_meteor, meteor_per_example, synonym_source
from .dependencies import library_versions, require_libraries
from .numeric import NUMERICS
from .stemmers import STEMMERS
from .synonyms import SYNONYMS, resource_tag
from .text import NUMBER_WORDS, PREPROCESSES, TOKENIZERS

# The key order of a preset is the order the options are checked in (with several bad options, the first
# one is reported); the option table below has the signature's order.
PRESETS = {
    # Fusion Brain 2022 captioning scorer (seeds_reference.md 1.4).
    "captioning": {
        "preprocess": "fb_captioning",
        "number_words": "wordtodigits",
        "tokenizer": "nltk",
        "stemmer": "snowball_ru",
        "synonyms": "ruwordnet_fb",
        "numeric": "none",
        "reference_agg": "max",
        "alpha": 0.9,
        "beta": 3.0,
        "gamma": 0.5,
        "corpus_score": False,
    },
    # Fusion Brain 2022 VisualQA scorer (seeds_reference.md 1.5).
    "vqa": {
        "preprocess": "fb_vqa",
        "number_words": "wordtodigits",
        "tokenizer": "nltk",
        "stemmer": "porter",
        "synonyms": "ruwordnet_fb",
        "numeric": "fusion_brain",
        "reference_agg": "max",
        "alpha": 0.9,
        "beta": 3.0,
        "gamma": 0.0,
        "corpus_score": False,
    },
    # NLTK meteor_score on word_tokenize tokens (seed 003, seeds_reference.md 3.5).
    "nltk": {
        "preprocess": "none",
        "number_words": "none",
        "tokenizer": "nltk",
        "stemmer": "porter",
        "synonyms": "wordnet",
        "numeric": "none",
        "reference_agg": "max",
        "alpha": 0.9,
        "beta": 3.0,
        "gamma": 0.5,
        "corpus_score": False,
    },
    # A Russian METEOR: per-token lemmas, true synonyms, fragmentation penalty, corpus score.
    "ru": {
        "preprocess": "ru",
        "number_words": "none",
        "tokenizer": "razdel",
        "stemmer": "pymorphy3",
        "synonyms": "ruwordnet_synsets",
        "numeric": "none",
        "reference_agg": "max",
        "alpha": 0.9,
        "beta": 3.0,
        "gamma": 0.5,
        "corpus_score": True,
    },
}
PRESETS["default"] = dict(PRESETS["captioning"])

# Where the resources are: options of every preset (None = found by default), not part of the presets'
# conventions; checked after the scoring options, then opened.
RESOURCE_OPTIONS = ("wordnet_path", "ruwordnet_path")
_NO_WORDNET = '`synonyms="none"` runs without the synonym stage.'  # ends the missing-WordNet error


def _check_resource_path(value, arg: str):
    """A path to a local resource: a ``str`` or an ``os.PathLike`` (kept as given)."""
    if not isinstance(value, str) and not hasattr(value, "__fspath__"):
        raise TypeError(f"`{arg}` must be a path (str), got {type(value).__name__} ({value!r})")
    return value


def _corpus_needs_no_numeric(options: dict, preset: str) -> dict:
    """The rule between options (the corpus score pools alignment statistics, which the numeric branch lacks),
    then the libraries the options need: one error naming every missing library and the extras."""
    if options["corpus_score"] and options["numeric"] != "none":
        raise ValueError(
            '`corpus_score=True` needs `numeric="none"`: the numeric branch has no statistics to pool'
        )
    require_libraries(options)
    return options


def _open_synonyms(options: dict, preset: str) -> None:
    """Open the resource the ``synonyms`` stage reads (cached), so a missing WordNet or RuWordNet is refused
    with the options, before anything is scored (or cached by evaluate)."""
    if options["synonyms"] == "wordnet":
        load_wordnet(options["wordnet_path"], _NO_WORDNET)
    else:
        synonym_source(options["synonyms"], ruwordnet_path=options["ruwordnet_path"])


# Whether a larger value of each result key is better (torchmetrics' higher_is_better; None: a raw
# count, left out of the Trainer form): see multimodal_metrics.results.key_direction.
HIGHER_IS_BETTER = {"meteor": True, "meteor_corpus": True}

OPTIONS = OptionTable(
    "ru_meteor",
    [
        Option(
            "preprocess",
            "the text pipeline before tokenising, one of 'fb_captioning' (the official captioning "
            "post-processing), 'fb_vqa' (the official VQA punctuation removal, whole-answer lemma and number "
            "map), 'ru' (lower-case, yo -> e) or 'none'.",
            choices=PREPROCESSES,
            sig="prep",
        ),
        Option(
            "number_words",
            "one of 'wordtodigits' (English number words of the prediction to digits, official) or 'none'.",
            choices=NUMBER_WORDS,
            sig="num",
        ),
        Option(
            "tokenizer",
            "one of 'nltk' (the tokens of nltk.word_tokenize, offline) or 'razdel' (razdel word tokens).",
            choices=TOKENIZERS,
            sig="tok",
        ),
        Option(
            "stemmer",
            "stage 2, one of 'snowball_ru', 'porter', 'pymorphy3' (lemmas) or 'none'.",
            choices=STEMMERS,
            sig="stem",
        ),
        Option(
            "synonyms",
            "stage 3, one of 'ruwordnet_fb' (official: hypernym titles and derivations), "
            "'ruwordnet_synsets' (synset members), 'wordnet' (English WordNet, NLTK) or 'none' (no stage 3).",
            choices=SYNONYMS,
            sig="syn",
        ),
        Option(
            "alpha",
            "METEOR's alpha, the weight of precision against recall in Fmean, in [0, 1].",
            kind="number",
            low=0.0,
            high=1.0,
            sig="a",
        ),
        Option(
            "beta",
            "METEOR's beta, the exponent of the fragmentation penalty, in [0, 100].",
            kind="number",
            low=0.0,
            high=100.0,
            sig="b",
        ),
        Option(
            "gamma",
            "METEOR's gamma, the weight of the fragmentation penalty, in [0, 1].",
            kind="number",
            low=0.0,
            high=1.0,
            sig="g",
        ),
        Option(
            "numeric",
            "one of 'fusion_brain' (the official VQA numeric branch for one-number references) or 'none'.",
            choices=NUMERICS,
            sig="numeric",
        ),
        Option(
            "reference_agg",
            "one of 'max' (the best reference, official and NLTK) or 'mean' over the references.",
            choices=REFERENCE_AGGS,
            sig="refs",
        ),
        Option(
            "corpus_score",
            "also return `meteor_corpus`, METEOR of the pooled statistics (needs numeric='none').",
            kind="bool",
            sig="corpus",
        ),
        Option(
            "wordnet_path",
            "'wordnet' synonyms: an NLTK data directory holding corpora/wordnet, that "
            "corpora/wordnet, or a WordNet 3.0 dict directory (default: NLTK's data path, then Debian's "
            "wordnet-base files in /usr/share/wordnet; nothing is downloaded).",
            kind="path",
            check=_check_resource_path,
            demo=False,
        ),
        Option(
            "ruwordnet_path",
            "the RuWordNet SQLite file (default: $RUWORDNET_DB, then the `ruwordnet` "
            "package's static/ruwordnet-2021.db or static/ruwordnet.db).",
            kind="path",
            check=_check_resource_path,
            demo=False,
        ),
    ],
    {name: {**values, **dict.fromkeys(RESOURCE_OPTIONS)} for name, values in PRESETS.items()},
    after_check=_corpus_needs_no_numeric,
    open_resources=_open_synonyms,
)


def _signature(
    preset: str, options: dict, resources: str, libraries: str, resampling: Resampling
) -> Signature:
    """``ru_meteor|preset:P|prep:..|...|syn:..|res:<resource>|a:..|...|corpus:..|lib:<versions>|...``."""
    fields = {}
    for key, value in OPTIONS.signature_fields(options).items():
        fields[key] = value
        if key == "syn":
            fields["res"] = resources
    fields["lib"] = libraries
    return Signature(OPTIONS.metric, preset, fields).with_fields(resampling.signature_fields())


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

    return Statistic(
        ("meteor", "meteor_corpus"), np.column_stack([scores, np.asarray(stats, dtype=float)]), fn
    )


def example_rows(predictions, flat_references, counts, preset, options) -> tuple[dict, dict]:
    """The per-example rows of checked inputs: ``meteor`` (the sentence score), ``alignment`` (matches,
    hypothesis length, reference length, chunks of the best reference) and ``numeric`` (True where the
    score came from the numeric branch, which has no alignment); the context names the synonym resource
    (``res``) and the library versions (``lib``) the scores depend on."""
    opts = dict(options)
    opts.pop("corpus_score")
    references = nest(flat_references, counts)
    # WordNet's folder is on NLTK's data path only while the scores are computed
    path, needed = opts.pop("wordnet_path"), opts["synonyms"] == "wordnet"
    with open_wordnet(path, _NO_WORDNET, needed=needed) as wordnet:
        resources = resource_tag(opts["synonyms"], wordnet, opts["ruwordnet_path"])
        scores, stats = meteor_per_example(
            predictions, references, return_stats=True, wordnet=wordnet, **opts
        )
    numeric = np.fromiter((s is None for s in stats), dtype=bool, count=len(stats))
    alignment = np.array([(0, 0, 0, 0) if s is None else s for s in stats], dtype=np.int64).reshape(-1, 4)
    columns = {"meteor": np.asarray(scores, dtype=np.float64), "alignment": alignment, "numeric": numeric}
    return columns, {"res": resources, "lib": library_versions(options)}


def reduce_rows(columns, context, preset, options, resampling, return_per_example=False) -> Result:
    """METEOR from the per-example rows in example order (what ``score`` and a merged state both call)."""
    opts = dict(options)
    corpus = opts.pop("corpus_score")
    opts.pop("wordnet_path")
    scores = columns["meteor"].tolist()
    stats = [
        None if numeric else tuple(row)
        for numeric, row in zip(columns["numeric"].tolist(), columns["alignment"].tolist())
    ]
    # numpy's pairwise mean, as the references: AIJ 2022's calc_meteor (np.mean(np.array(scores))) and
    # evaluate's meteor (np.mean of the sentence scores)
    values = {"meteor": float(np.mean(columns["meteor"])) if len(scores) else 0.0}
    if corpus:
        values["meteor_corpus"] = corpus_meteor(stats, opts["alpha"], opts["beta"], opts["gamma"])
    signature = _signature(
        preset, {**opts, "corpus_score": corpus}, context["res"], context["lib"], resampling
    )
    statistic = _statistic(scores, stats if corpus else None, opts["alpha"], opts["beta"], opts["gamma"])
    values = {**values, **interval_values(statistic, resampling)}
    return Result.from_values(values, signature, scores, statistic, options, return_per_example)


score_checked, score, compare, State, state = text_pair_metric(
    OPTIONS,
    example_rows,
    reduce_rows,
    score_doc="""METEOR of ``predictions`` (one caption or answer per example) against ``references`` (one
    reference, or a list of references, per example).

    ``preset`` (``captioning`` = ``default``, ``vqa``, ``nltk``, ``ru``) and ``options`` (see
    ``OPTIONS``: the text pipeline, stemmer, synonym source, alpha / beta / gamma, ...; ``wordnet_path``
    and ``ruwordnet_path`` say where the local resources are) set the convention; ``confidence`` adds the
    bootstrap interval ``meteor_ci_low``/``_high`` (and ``meteor_corpus_ci_low``/``_high`` with the corpus
    score; ``n_resamples`` resamples of the examples, ``seed``). Returns a
    :class:`~multimodal_metrics.results.Result` equal to what the evaluate module's ``compute`` returns.
    """,
    state_doc="""METEOR's mergeable state (see :mod:`multimodal_metrics.state`): per example its score, the alignment
    counts of its best reference and the numeric-branch flag (49 bytes) and its global index (8 bytes);
    every merged state must share the synonym resource and library versions. ``result`` equals ``score``
    on all examples bit for bit.""",
    columns={
        "meteor": Column("<f8", low=0.0, high=1.0),
        "alignment": Column("<i8", (4,), low=0),
        "numeric": Column("|b1"),
    },
)
