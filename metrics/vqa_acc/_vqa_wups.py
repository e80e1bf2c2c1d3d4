"""Pure functions behind the `wups` preset: WUPS (Malinowski & Fritz 2014) on WordNet 3.0 via NLTK.

Reference: Malinowski's ``calculate_wups.py`` (05.09.2015 revision, e.g. bupt-cist/vqa-playground-pytorch):

* ``items2list``: an answer is a comma-separated set, each item stripped (``"chair, table"``).
* element measure ``wup_measure(a, b, thr)``: 1 if ``a == b``; else the max Wu-Palmer similarity over all
  pairs of NOUN synsets of a and b (NLTK ``wn.synsets(x, pos=NOUN)`` applies morphy, so ``"Dog"`` finds
  ``dog``; a phrase with spaces finds nothing), 0 if either has no synset; a max below ``thr`` is
  multiplied by 0.1. ``thr = -1`` uses the Dirac measure (plain set accuracy).
* set score ``score_it(A=gt, T=pred)``: ``min(prod_a max_t m(a, t), prod_t max_a m(t, a))``.
* dataset score: mean over questions (the script prints it x100; fractions here).

The script's default threshold is 0.925; the published conventions are WUPS@0.9 and WUPS@0.0.
Wu-Palmer maxima are cached per word pair (``lru_cache``). WordNet is read offline: from ``wordnet_path``
(an NLTK data directory holding ``corpora/wordnet``, or that ``wordnet`` directory itself) or from
NLTK's standard data path (``NLTK_DATA``, ``~/nltk_data``, ...); nothing is downloaded.
"""

import warnings
from functools import lru_cache
from pathlib import Path

import numpy as np

MISSING_WORDNET = (
    "WordNet 3.0 for NLTK was not found{where}. Provide it offline: `apt-get install wordnet-base "
    "wordnet-sense-index` then `bash scripts/setup_env.sh` (builds .build/nltk_data; set NLTK_DATA to it), "
    "or pass `wordnet_path=` an NLTK data directory that holds corpora/wordnet (or that wordnet directory)."
)


def items2list(answer: str) -> list[str]:
    """The reference's ``items2list``: comma-separated items, each stripped."""
    return [item.strip() for item in answer.split(",")]


def _nltk_root(wordnet_path) -> str | None:
    """The NLTK data directory to add to ``nltk.data.path`` for ``wordnet_path`` (None = standard path)."""
    if wordnet_path is None:
        return None
    path = Path(wordnet_path).expanduser().resolve()
    if (path / "corpora" / "wordnet").is_dir():
        return str(path)
    if path.name == "wordnet" and path.parent.name == "corpora" and path.is_dir():
        return str(path.parent.parent)
    raise ValueError(MISSING_WORDNET.format(where=f" under `wordnet_path`={str(wordnet_path)!r}"))


def load_wordnet(wordnet_path: str | None = None):
    """A WordNetCorpusReader found offline (see the module docstring); a clear ValueError otherwise.
    Readers are cached per corpus directory (loading one takes seconds)."""
    import nltk

    root = _nltk_root(wordnet_path)
    if root is not None and root not in nltk.data.path:
        nltk.data.path.insert(0, root)  # NLTK >= 3.10 only opens corpora under nltk.data.path
    where = f" under `wordnet_path`={str(wordnet_path)!r}" if root else " on NLTK's data path"
    try:
        location = str(Path(root) / "corpora" / "wordnet") if root else str(nltk.data.find("corpora/wordnet"))
        return _reader(location)
    except (LookupError, OSError) as err:
        raise ValueError(MISSING_WORDNET.format(where=where)) from err


@lru_cache(maxsize=8)
def _reader(location: str):
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    with warnings.catch_warnings():  # "multilingual functions are not available": no OMW, by design
        warnings.simplefilter("ignore", UserWarning)
        return WordNetCorpusReader(location, None)


@lru_cache(maxsize=1 << 18)
def max_wup(a: str, b: str, wordnet_path: str | None = None) -> float:
    """max over NOUN synset pairs of ``wup_similarity`` (0.0 when either word has no noun synset)."""
    wn = load_wordnet(wordnet_path)
    interp_a = wn.synsets(a, pos="n")
    interp_b = wn.synsets(b, pos="n")
    if not interp_a or not interp_b:
        return 0.0
    best = 0.0
    for x in interp_a:
        for y in interp_b:
            score = x.wup_similarity(y)
            if score is not None and score > best:
                best = score
    return best


def wup_measure(a: str, b: str, threshold: float = 0.9, wordnet_path: str | None = None) -> float:
    """The reference's element measure (``threshold=-1``: Dirac measure)."""
    if threshold == -1:
        return float(a == b)
    if a == b:
        return 1.0
    score = max_wup(a, b, wordnet_path)
    return score * 0.1 if score < threshold else score


def wups_score(gt: str, pred: str, threshold: float = 0.9, wordnet_path: str | None = None) -> float:
    """``score_it(items2list(gt), items2list(pred))`` of the reference."""
    A, T = items2list(gt), items2list(pred)
    if not A and not T:  # unreachable from strings (items2list("") == [""]), kept as in the reference
        return 1.0

    def member(x, S):
        return max(wup_measure(x, s, threshold, wordnet_path) for s in S) if S else 0

    left = np.prod([member(a, T) for a in A]) if A else 0
    right = np.prod([member(t, A) for t in T]) if T else 0
    return float(min(left, right))


def wups_per_question(
    predictions: list[str], references: list[list[str]], threshold: float = 0.9, wordnet_path: str | None = None
) -> np.ndarray:
    """WUPS of every question; with several GT answers a question keeps the best one (an extension:
    the reference has one GT per question)."""
    if threshold != -1:
        load_wordnet(wordnet_path)  # fail early and clearly
    return np.array(
        [max(wups_score(g, p, threshold, wordnet_path) for g in refs) for p, refs in zip(predictions, references)],
        dtype=np.float64,
    )
