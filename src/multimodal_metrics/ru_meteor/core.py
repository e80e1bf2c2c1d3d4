"""The METEOR formula of ru_meteor and its application to examples (no evaluate, no state beyond caches).

METEOR as NLTK implements it (``nltk.translate.meteor_score``, Lavie & Agarwal 2007), with the text
pipelines of the Fusion Brain 2022 (AIJ) captioning and VisualQA scorers (``ai-forever/fbc2_aij2022``:
``evaluation/captioning/metrics/{calc_meteor,rumeteor,utils}.py``, ``evaluation/vqa/metric/
{calc_meteor,rumeteor}.py``; seeds_reference.md 1.4, 1.5, 3.5).

Score of one hypothesis h (n tokens) against one reference r (l tokens), tokens lower-cased:

    m          number of aligned pairs (exact, stem, synonym stages: ``alignment``);
    chunks     runs of pairs adjacent in both h and r (pairs sorted by hypothesis position)
    P = m/n,  R = m/l,  Fmean = P*R / (alpha*P + (1-alpha)*R)
    penalty = gamma * (chunks/m)**beta,   score = (1 - penalty) * Fmean

Edge cases: 0 when m = 0, n = 0 or l = 0 (where NLTK's arithmetic would divide by zero); with
``numeric="fusion_brain"`` a reference of one numeric token is scored by the numeric branch instead
(``numeric``: no alignment statistics). The arithmetic is written exactly as NLTK writes it, so the
floats are identical.

Several references: the max of the single-reference scores (``reference_agg="max"``; ``"mean"`` is an
option); the statistics kept are those of the best reference (the first of the highest). The corpus
score pools (m, n, l, chunks) of each example's best reference before applying the formula (as
METEOR 1.5 does for its aggregate score).

The steps before the formula each have a module: ``text`` (text pipelines and tokenisers),
``stemmers`` (stage-2 keys), ``synonyms`` (stage-3 sources: WordNet, RuWordNet), ``alignment``
(stages and chunks), ``numeric`` (the VisualQA numeric branch) and ``dependencies`` (the libraries the
options use). The options, presets and ``score`` are in ``ru_meteor.scoring``.
"""

import dataclasses

from .alignment import NUMERIC, STAGE_NAMES, align, alignment_stats
from .numeric import numeric_applies, numeric_score
from .stemmers import stem_tokens
from .synonyms import synonym_source
from .text import prepare

REFERENCE_AGGS = ("max", "mean")


def meteor_formula(
    matches: int, hyp_len: int, ref_len: int, chunks: int, alpha: float, beta: float, gamma: float
) -> float:
    """NLTK's ``single_meteor_score`` arithmetic, operation for operation (0.0 where it divides by zero)."""
    try:
        precision = float(matches) / hyp_len
        recall = float(matches) / ref_len
        fmean = (precision * recall) / (alpha * precision + (1 - alpha) * recall)
        frag_frac = float(chunks) / matches
    except ZeroDivisionError:
        return 0.0
    penalty = gamma * frag_frac**beta
    return (1 - penalty) * fmean


@dataclasses.dataclass(frozen=True)
class Pipeline:
    """The options that turn a prediction and its references into scores (those of
    :func:`meteor_per_example` and :func:`explain`); the defaults are NLTK's ``meteor_score`` on
    ``word_tokenize`` tokens. ``wordnet``: the WordNet reader of ``synonyms="wordnet"``;
    ``ruwordnet_path``: the RuWordNet file of the RuWordNet sources (see :func:`synonym_source`)."""

    preprocess: str = "none"
    number_words: str = "none"
    tokenizer: str = "nltk"
    stemmer: str = "porter"
    synonyms: str = "wordnet"
    alpha: float = 0.9
    beta: float = 3.0
    gamma: float = 0.5
    numeric: str = "none"
    wordnet: object = None
    ruwordnet_path: object = None

    def source(self):
        """The stage-3 synonym source of these options (None for ``synonyms="none"``)."""
        return synonym_source(self.synonyms, self.wordnet, self.ruwordnet_path)

    def rows(self, prediction: str, references: list[str], source) -> tuple[list, list]:
        """(hypothesis tokens, one ``(reference tokens, score, stats, alignment)`` per reference): stats
        = (matches, hyp_len, ref_len, chunks), None where the numeric branch gave the score."""
        hyp = prepare(prediction, True, self.preprocess, self.number_words, self.tokenizer)
        hyp_keys = stem_tokens(hyp, self.stemmer)
        rows = []
        for reference in references:
            ref = prepare(reference, False, self.preprocess, self.number_words, self.tokenizer)
            rows.append((ref, *self._pair(hyp, hyp_keys, ref, stem_tokens(ref, self.stemmer), source)))
        return hyp, rows

    def _pair(self, hyp, hyp_keys, ref, ref_keys, source):
        """(score, (matches, hyp_len, ref_len, chunks) or None for the numeric branch, alignment)."""
        if self.numeric == "fusion_brain" and numeric_applies(ref):
            score, used = numeric_score(hyp, ref[0])
            alignment = [(-1, 0)] * len(hyp)
            if used >= 0:
                alignment[used] = (0, NUMERIC)
            return score, None, alignment
        alignment = align(hyp, ref, hyp_keys, ref_keys, source)
        matches, chunks = alignment_stats(alignment)
        score = meteor_formula(matches, len(hyp), len(ref), chunks, self.alpha, self.beta, self.gamma)
        return score, (matches, len(hyp), len(ref), chunks), alignment


_PIPELINE_OPTIONS = frozenset(field.name for field in dataclasses.fields(Pipeline))


def meteor_per_example(
    predictions: list[str],
    references: list[list[str]],
    reference_agg: str = "max",
    return_stats: bool = False,
    **options,
):
    """METEOR of every example; ``options``: the fields of :class:`Pipeline` (defaults: NLTK's
    ``meteor_score`` on ``word_tokenize`` tokens).

    ``references[i]`` is the non-empty list of references of example i. With ``return_stats=True``
    returns ``(scores, stats)`` where ``stats[i]`` = (matches, hyp_len, ref_len, chunks) of the best
    reference (None when that score came from the numeric branch). ``synonyms="wordnet"`` reads
    ``wordnet``, a WordNet reader (see :func:`synonym_source`)."""
    if reference_agg not in REFERENCE_AGGS:
        raise ValueError(f"`reference_agg` must be one of {list(REFERENCE_AGGS)}, got {reference_agg!r}")
    pipeline = Pipeline(**options)
    source = pipeline.source()
    scores, stats = [], []
    for prediction, refs in zip(predictions, references):
        best, best_stats, total = -1.0, None, 0.0
        for _, score, pair_stats, _ in pipeline.rows(prediction, refs, source)[1]:
            total += score
            if score > best:
                best, best_stats = score, pair_stats
        scores.append(best if reference_agg == "max" else total / len(refs))
        stats.append(best_stats)
    return (scores, stats) if return_stats else scores


def corpus_meteor(stats: list, alpha: float = 0.9, beta: float = 3.0, gamma: float = 0.5) -> float:
    """METEOR of pooled statistics: sums of matches, hypothesis and reference lengths and chunks over
    the examples (each example's best reference), then the sentence formula."""
    if any(s is None for s in stats):
        raise ValueError("the corpus score needs alignment statistics: the numeric branch has none")
    matches = sum(s[0] for s in stats)
    return meteor_formula(
        matches,
        sum(s[1] for s in stats),
        sum(s[2] for s in stats),
        sum(s[3] for s in stats),
        alpha,
        beta,
        gamma,
    )


def explain(prediction: str, references: list[str], **options) -> dict:
    """The alignment behind one example's score, for display: the hypothesis tokens, every reference's
    tokens and score, the best reference (first of the highest) and its aligned pairs with their stage.
    ``options``: the fields of :class:`Pipeline`; other keys (a resolved option table's
    ``reference_agg``, ``corpus_score``, ``wordnet_path``) are ignored."""
    pipeline = Pipeline(**{name: value for name, value in options.items() if name in _PIPELINE_OPTIONS})
    hyp, rows = pipeline.rows(prediction, references, pipeline.source())
    best = max(range(len(rows)), key=lambda k: (rows[k][1], -k))
    pairs = [
        {"hyp": i, "ref": j, "stage": STAGE_NAMES[stage]}
        for i, (j, stage) in enumerate(rows[best][3])
        if j >= 0
    ]
    return {
        "hypothesis": hyp,
        "references": [{"tokens": tokens, "score": score} for tokens, score, _, _ in rows],
        "best": best,
        "pairs": pairs,
    }
