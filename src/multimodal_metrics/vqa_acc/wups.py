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
The Wu-Palmer similarity is our own (:class:`_Taxonomy`), on tables computed once per synset (every
ancestor with its fewest edges, min and max depths), with NLTK's conventions: equal to NLTK's
``wup_similarity`` for nouns (tests/test_vqa_acc_wups.py); WordNet 1.6, where NLTK simulates a root,
uses NLTK's own. Cached: noun synsets per word (``lru_cache``), the similarity per ordered synset pair,
its maximum per word pair, all per WordNet reader.

``wordnet`` is an NLTK ``WordNetCorpusReader``: the scoring (``multimodal_metrics.vqa_acc.scoring``) finds
it offline with the shared ``multimodal_metrics.resources.wordnet`` (``wordnet_path``, NLTK's data path, then
Debian's ``wordnet-base`` files) and calls these functions inside ``open_wordnet``, which keeps its folder
on NLTK's data path while they read.
With ``threshold=-1`` no WordNet is read (``wordnet`` may be None).
"""

from collections import deque
from functools import lru_cache

import numpy as np


def items2list(answer: str) -> list[str]:
    """The reference's ``items2list``: comma-separated items, each stripped."""
    return [item.strip() for item in answer.split(",")]


@lru_cache(maxsize=1 << 18)
def _noun_synsets(wordnet, word: str) -> tuple:
    return tuple(wordnet.synsets(word, pos="n"))


class _Sense:
    """One noun synset as the Wu-Palmer computation reads it: its name, and ``paths`` = every synset
    reachable through hypernyms and instance hypernyms (itself included) -> the fewest edges to it
    (NLTK's ``_shortest_hypernym_paths(simulate_root=False)``, with names for synsets)."""

    __slots__ = ("name", "paths")

    def __init__(self, name: str, paths: dict):
        self.name = name
        self.paths = paths


class _Taxonomy:
    """Per WordNet reader: the :class:`_Sense` of every synset met (computed once each), the min and
    max depth of every synset met (NLTK's ``min_depth`` / ``max_depth``: fewest / most edges to a
    root through hypernyms and instance hypernyms), and the Wu-Palmer similarity of every ordered
    pair of synset names already compared."""

    def __init__(self):
        self.senses: dict = {}
        self.min_depth: dict = {}
        self.max_depth: dict = {}
        self.objects: dict = {}
        self.pairs: dict = {}

    def sense(self, synset) -> _Sense:
        name = synset._name
        found = self.senses.get(name)
        if found is None:
            paths: dict = {}
            queue = deque([(synset, 0)])
            while queue:  # breadth first: the first visit of a synset is at its fewest edges
                node, depth = queue.popleft()
                node_name = node._name
                if node_name in paths:
                    continue
                paths[node_name] = depth
                if node_name not in self.objects:
                    self.objects[node_name] = node
                    self.min_depth[node_name] = node.min_depth()
                    self.max_depth[node_name] = node.max_depth()
                queue.extend((parent, depth + 1) for parent in node.hypernyms() + node.instance_hypernyms())
            found = self.senses[name] = _Sense(name, paths)
        return found

    def wup(self, a: _Sense, b: _Sense):
        """``x.wup_similarity(y)`` of NLTK for two noun synsets of a WordNet other than 1.6 (no
        simulated root), None when they share no ancestor. As NLTK: the subsumer is, among the common
        ancestors (both synsets included) of the greatest min depth, ``x`` itself if it is one, else
        the first by name; depth = its max depth + 1; len_i = depth + the shortest path between
        synset i and the subsumer through their common ancestors; similarity = 2 depth / (len1 + len2)."""
        key = (a.name, b.name)
        score = self.pairs.get(key, _UNSET)
        if score is _UNSET:
            if len(self.pairs) >= _MAX_PAIRS:  # bounded memory: start again
                self.pairs.clear()
            score = self.pairs[key] = self._wup(a, b)
        return score

    def _wup(self, a: _Sense, b: _Sense):
        common = a.paths.keys() & b.paths.keys()
        if not common:
            return None
        min_depth = self.min_depth
        deepest = max(min_depth[s] for s in common)
        lowest = sorted(s for s in common if min_depth[s] == deepest)
        subsumer = a.name if a.name in lowest else lowest[0]
        depth = self.max_depth[subsumer] + 1
        to_subsumer = self.sense(self.objects[subsumer]).paths
        len1 = self._distance(a, subsumer, to_subsumer)
        len2 = self._distance(b, subsumer, to_subsumer)
        if len1 is None or len2 is None:
            return None
        return (2.0 * depth) / ((len1 + depth) + (len2 + depth))

    @staticmethod
    def _distance(a: _Sense, other: str, other_paths: dict):
        """NLTK's ``shortest_path_distance`` (no simulated root): 0 for the synset itself, else the
        fewest edges up from both to a common ancestor, None without one."""
        if a.name == other:
            return 0
        paths = a.paths
        common = paths.keys() & other_paths.keys()
        return min(paths[s] + other_paths[s] for s in common) if common else None


_UNSET = object()
_MAX_PAIRS = 1 << 20


@lru_cache(maxsize=8)
def _taxonomy(wordnet) -> _Taxonomy:
    return _Taxonomy()


@lru_cache(maxsize=1 << 18)
def _senses(wordnet, word: str) -> tuple:
    """The :class:`_Sense` of every noun synset of ``word`` (NLTK's order)."""
    taxonomy = _taxonomy(wordnet)
    return tuple(taxonomy.sense(synset) for synset in _noun_synsets(wordnet, word))


def _nltk_wup_needed(wordnet) -> bool:
    """WordNet 1.6 has no single noun root: NLTK then simulates one, which only its own code does."""
    return wordnet.get_version() == "1.6"


@lru_cache(maxsize=1 << 18)
def _max_wup(wordnet, a: str, b: str) -> float:
    if _nltk_wup_needed(wordnet):
        return _max_wup_nltk(wordnet, a, b)
    senses_a = _senses(wordnet, a)
    if not senses_a:
        return 0.0
    senses_b = _senses(wordnet, b)
    if not senses_b:
        return 0.0
    wup = _taxonomy(wordnet).wup
    best = 0.0
    for x in senses_a:
        for y in senses_b:
            score = wup(x, y)
            if score is not None and score > best:
                best = score
    return best


def _max_wup_nltk(wordnet, a: str, b: str) -> float:
    """:func:`_max_wup` through NLTK's own ``wup_similarity`` (WordNet 1.6)."""
    best = 0.0
    for x in _noun_synsets(wordnet, a):
        for y in _noun_synsets(wordnet, b):
            score = x.wup_similarity(y)
            if score is not None and score > best:
                best = score
    return best


def _require(wordnet):
    if wordnet is None or not hasattr(wordnet, "synsets"):
        got = type(wordnet).__name__
        raise TypeError(
            f"`wordnet` must be a WordNet reader (multimodal_metrics.resources.wordnet.open_wordnet), got {got}"
        )
    return wordnet


def wup_similarity(x, y, wordnet):
    """Wu-Palmer similarity of two noun synsets of the reader ``wordnet``, computed on the cached tables
    (what :func:`max_wup` uses): equal to NLTK's ``x.wup_similarity(y)`` (tests compare them)."""
    taxonomy = _taxonomy(_require(wordnet))
    return taxonomy.wup(taxonomy.sense(x), taxonomy.sense(y))


def max_wup(a: str, b: str, wordnet) -> float:
    """max over NOUN synset pairs of ``wup_similarity`` (0.0 when either word has no noun synset).
    Synsets are cached per word and maxima per word pair."""
    return _max_wup(_require(wordnet), a, b)


def _measure(a: str, b: str, threshold: float, wordnet) -> float:
    if threshold == -1:
        return float(a == b)
    if a == b:
        return 1.0
    score = _max_wup(wordnet, a, b)
    return score * 0.1 if score < threshold else score


def wup_measure(a: str, b: str, threshold: float = 0.9, wordnet=None) -> float:
    """The reference's element measure (``threshold=-1``: Dirac measure, no WordNet)."""
    return _measure(a, b, threshold, wordnet if threshold == -1 else _require(wordnet))


def _score(gt: str, pred: str, threshold: float, wordnet) -> float:
    """``score_it`` with the same products in the same order as the reference, computed in
    distinct(A) x distinct(T) element measures, and the second product skipped when the first is 0
    (min(0, x) = 0 for x >= 0): the same number, at the cost of the distinct item pairs."""
    A, T = items2list(gt), items2list(pred)
    if not A and not T:  # unreachable from strings (items2list("") == [""]), kept as in the reference
        return 1.0
    distinct_a, distinct_t = list(dict.fromkeys(A)), list(dict.fromkeys(T))

    def member(x, S):
        return max(_measure(x, s, threshold, wordnet) for s in S) if S else 0

    left_of = {a: member(a, distinct_t) for a in distinct_a}
    left = np.prod([left_of[a] for a in A]) if A else 0
    if left == 0:
        return 0.0
    right_of = {t: member(t, distinct_a) for t in distinct_t}
    right = np.prod([right_of[t] for t in T]) if T else 0
    return float(min(left, right))


def wups_score(gt: str, pred: str, threshold: float = 0.9, wordnet=None) -> float:
    """``score_it(items2list(gt), items2list(pred))`` of the reference."""
    return _score(gt, pred, threshold, wordnet if threshold == -1 else _require(wordnet))


def wups_per_question(
    predictions: list[str], references: list[list[str]], threshold: float = 0.9, wordnet=None
) -> np.ndarray:
    """WUPS of every question; with several GT answers a question keeps the best one (an extension:
    the reference has one GT per question)."""
    if threshold != -1:
        _require(wordnet)
    return np.array(
        [max(_score(g, p, threshold, wordnet) for g in refs) for p, refs in zip(predictions, references)],
        dtype=np.float64,
    )
