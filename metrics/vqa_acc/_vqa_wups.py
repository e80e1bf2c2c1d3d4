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
its maximum per word pair, and the WordNet version. WordNet 3.0 is read offline, nothing is
downloaded: from ``wordnet_path`` (an NLTK data directory holding ``corpora/wordnet``, that ``wordnet``
directory itself, or a WordNet dict directory such as Debian's), else from NLTK's standard data path
(``NLTK_DATA``, ``~/nltk_data``, ...), else from Debian's ``wordnet-base`` files in ``/usr/share/wordnet``
(what a Hugging Face Space installs from ``packages.txt``). A dict directory lacks NLTK's ``lexnames``
file (Debian ships it only as a man page): the reader then uses WordNet 3.0's fixed table ``LEXNAMES``.
"""

import warnings
from collections import deque
from contextlib import contextmanager, suppress
from functools import lru_cache
from pathlib import Path

import numpy as np

DEBIAN_WORDNET = "/usr/share/wordnet"  # Debian's wordnet-base (apt-get, or packages.txt in a Space)
MISSING_WORDNET = (
    "WordNet 3.0 was not found{where}. It is read offline, never downloaded: install Debian's `wordnet-base` "
    "(in a Hugging Face Space: a line `wordnet-base` in packages.txt; on Debian/Ubuntu: `apt-get install "
    "wordnet-base`; read from /usr/share/wordnet), or pass `wordnet_path=` an NLTK data directory holding "
    "corpora/wordnet, or a WordNet 3.0 dict directory. `threshold=-1` (set accuracy) needs no WordNet."
)

# WordNet 3.0's lexicographer files in number order (lexnames(5WN)); NLTK reads them from a `lexnames`
# file that Debian's wordnet-base does not install.
LEXNAMES = (
    "adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute noun.body "
    "noun.cognition noun.communication noun.event noun.feeling noun.food noun.group noun.location noun.motive "
    "noun.object noun.person noun.phenomenon noun.plant noun.possession noun.process noun.quantity "
    "noun.relation noun.shape noun.state noun.substance noun.time verb.body verb.change verb.cognition "
    "verb.communication verb.competition verb.consumption verb.contact verb.creation verb.emotion verb.motion "
    "verb.perception verb.possession verb.social verb.stative verb.weather adj.ppl"
).split()
_POS_CODE = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}


def lexnames_text() -> str:
    """The `lexnames` file of WordNet 3.0 (``NN<TAB>name<TAB>pos``), as NLTK's reader expects it."""
    return "".join(f"{i:02d}\t{name}\t{_POS_CODE[name.split('.')[0]]}\n" for i, name in enumerate(LEXNAMES))


def items2list(answer: str) -> list[str]:
    """The reference's ``items2list``: comma-separated items, each stripped."""
    return [item.strip() for item in answer.split(",")]


def _is_dict_dir(path: Path) -> bool:
    return (path / "data.noun").is_file() and (path / "index.noun").is_file()


def _resolve(wordnet_path) -> tuple[str | None, str]:
    """(directory to put on ``nltk.data.path`` or None, WordNet corpus directory) for ``wordnet_path``;
    with no path: NLTK's data path, else Debian's dict directory. A clear ValueError when absent.
    NLTK >= 3.10 opens corpus files only under ``nltk.data.path``."""
    import nltk

    if wordnet_path is None:
        try:
            return None, str(nltk.data.find("corpora/wordnet"))
        except LookupError:
            if _is_dict_dir(Path(DEBIAN_WORDNET)):
                return DEBIAN_WORDNET, DEBIAN_WORDNET
            raise ValueError(MISSING_WORDNET.format(where=f" on NLTK's data path nor in {DEBIAN_WORDNET}")) from None
    where = f" under `wordnet_path`={str(wordnet_path)[:200]!r}"
    try:
        path = Path(wordnet_path).expanduser().resolve()
        if (path / "corpora" / "wordnet").is_dir():
            return str(path), str(path / "corpora" / "wordnet")
        if path.name == "wordnet" and path.parent.name == "corpora" and path.is_dir():
            return str(path.parent.parent), str(path)
        if _is_dict_dir(path):
            return str(path), str(path)
    except (OSError, ValueError) as err:  # a name too long, a NUL, ...: not a WordNet directory
        raise ValueError(MISSING_WORDNET.format(where=where) + f" ({type(err).__name__}: {str(err)[:200]})") from None
    raise ValueError(MISSING_WORDNET.format(where=where))


@contextmanager
def nltk_data_path(wordnet_path: str | None):
    """The WordNet directory of ``wordnet_path`` (or Debian's fallback) on ``nltk.data.path`` for the
    duration of the block only.

    NLTK >= 3.10 opens corpus files only under ``nltk.data.path`` (checked when a reader is built and
    on every file it opens); the directory is removed again afterwards, so a ``wordnet_path`` never
    changes what the rest of the process may read. With no path and no WordNet at all, nothing is added
    (the caller's own lookup gives the error).
    """
    import nltk

    try:
        root = _resolve(wordnet_path)[0]
    except ValueError:
        if wordnet_path is not None:
            raise
        root = None
    if root is None or root in nltk.data.path:
        yield root
        return
    nltk.data.path.insert(0, root)
    try:
        yield root
    finally:
        with suppress(ValueError):
            nltk.data.path.remove(root)


def load_wordnet(wordnet_path: str | None = None):
    """A WordNetCorpusReader found offline (see the module docstring); a clear ValueError otherwise.
    Readers are cached per corpus directory (loading one takes seconds). Use the reader inside
    :func:`nltk_data_path` when it comes from ``wordnet_path`` (NLTK checks the path on each read)."""
    location = _resolve(wordnet_path)[1]
    where = f" under `wordnet_path`={str(wordnet_path)[:200]!r}" if wordnet_path is not None else f" in {location}"
    with nltk_data_path(wordnet_path):
        try:
            return _reader(location)
        except (LookupError, OSError) as err:
            raise ValueError(MISSING_WORDNET.format(where=where)) from err


def wordnet_version(wordnet_path: str | None = None) -> str:
    """The version string of the WordNet in use (e.g. ``3.0``)."""
    with nltk_data_path(wordnet_path):
        return load_wordnet(wordnet_path).get_version()


@lru_cache(maxsize=8)
def _reader(location: str):
    import io

    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class DictDirReader(WordNetCorpusReader):
        """WordNetCorpusReader on a dict directory without `lexnames` (Debian's layout)."""

        def open(self, file):
            if file == "lexnames":
                return io.StringIO(lexnames_text())
            return super().open(file)

        def map_wn(self, version="wordnet"):
            # NLTK maps another corpus named `wordnet` onto this one (for OMW only); none here: identity.
            return None

    has_lexnames = (Path(location) / "lexnames").is_file()
    reader_class = WordNetCorpusReader if has_lexnames else DictDirReader
    with warnings.catch_warnings():  # "multilingual functions are not available": no OMW, by design
        warnings.simplefilter("ignore", UserWarning)
        reader = reader_class(location, None)
    # NLTK re-reads the data file's header for the version inside every wup_similarity (Synset._needs_root):
    # about 60% of a WUPS run. The version of an open corpus is constant, so it is read once.
    version = reader.get_version()
    reader.get_version = lambda: version
    return reader


def _location(wordnet_path: str | None) -> str:
    """The corpus directory of the WordNet reader (resolved once per computation)."""
    return _resolve(wordnet_path)[1]


@lru_cache(maxsize=1 << 18)
def _noun_synsets(location: str, word: str) -> tuple:
    return tuple(_reader(location).synsets(word, pos="n"))


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
def _taxonomy(location: str) -> _Taxonomy:
    return _Taxonomy()


@lru_cache(maxsize=1 << 18)
def _senses(location: str, word: str) -> tuple:
    """The :class:`_Sense` of every noun synset of ``word`` (NLTK's order)."""
    taxonomy = _taxonomy(location)
    return tuple(taxonomy.sense(synset) for synset in _noun_synsets(location, word))


def _nltk_wup_needed(location: str) -> bool:
    """WordNet 1.6 has no single noun root: NLTK then simulates one, which only its own code does."""
    return _reader(location).get_version() == "1.6"


@lru_cache(maxsize=1 << 18)
def _max_wup(location: str, a: str, b: str) -> float:
    if _nltk_wup_needed(location):
        return _max_wup_nltk(location, a, b)
    senses_a = _senses(location, a)
    if not senses_a:
        return 0.0
    senses_b = _senses(location, b)
    if not senses_b:
        return 0.0
    wup = _taxonomy(location).wup
    best = 0.0
    for x in senses_a:
        for y in senses_b:
            score = wup(x, y)
            if score is not None and score > best:
                best = score
    return best


def _max_wup_nltk(location: str, a: str, b: str) -> float:
    """:func:`_max_wup` through NLTK's own ``wup_similarity`` (WordNet 1.6)."""
    best = 0.0
    for x in _noun_synsets(location, a):
        for y in _noun_synsets(location, b):
            score = x.wup_similarity(y)
            if score is not None and score > best:
                best = score
    return best


def wup_similarity(x, y, wordnet_path: str | None = None):
    """Wu-Palmer similarity of two noun synsets of the reader of ``wordnet_path`` computed on the cached
    tables (what :func:`max_wup` uses): equal to NLTK's ``x.wup_similarity(y)`` (tests compare them)."""
    location = _location(wordnet_path)
    taxonomy = _taxonomy(location)
    with nltk_data_path(wordnet_path):
        return taxonomy.wup(taxonomy.sense(x), taxonomy.sense(y))


def max_wup(a: str, b: str, wordnet_path: str | None = None) -> float:
    """max over NOUN synset pairs of ``wup_similarity`` (0.0 when either word has no noun synset).
    Synsets are cached per word and maxima per word pair."""
    load_wordnet(wordnet_path)
    with nltk_data_path(wordnet_path):
        return _max_wup(_location(wordnet_path), a, b)


def _measure(a: str, b: str, threshold: float, location: str | None) -> float:
    if threshold == -1:
        return float(a == b)
    if a == b:
        return 1.0
    score = _max_wup(location, a, b)
    return score * 0.1 if score < threshold else score


def wup_measure(a: str, b: str, threshold: float = 0.9, wordnet_path: str | None = None) -> float:
    """The reference's element measure (``threshold=-1``: Dirac measure)."""
    if threshold == -1:
        return float(a == b)
    load_wordnet(wordnet_path)
    with nltk_data_path(wordnet_path):
        return _measure(a, b, threshold, _location(wordnet_path))


def _score(gt: str, pred: str, threshold: float, location: str | None) -> float:
    """``score_it`` with the same products in the same order as the reference, computed in
    distinct(A) x distinct(T) element measures, and the second product skipped when the first is 0
    (min(0, x) = 0 for x >= 0): the same number, at the cost of the distinct item pairs."""
    A, T = items2list(gt), items2list(pred)
    if not A and not T:  # unreachable from strings (items2list("") == [""]), kept as in the reference
        return 1.0
    distinct_a, distinct_t = list(dict.fromkeys(A)), list(dict.fromkeys(T))

    def member(x, S):
        return max(_measure(x, s, threshold, location) for s in S) if S else 0

    left_of = {a: member(a, distinct_t) for a in distinct_a}
    left = np.prod([left_of[a] for a in A]) if A else 0
    if left == 0:
        return 0.0
    right_of = {t: member(t, distinct_a) for t in distinct_t}
    right = np.prod([right_of[t] for t in T]) if T else 0
    return float(min(left, right))


def wups_score(gt: str, pred: str, threshold: float = 0.9, wordnet_path: str | None = None) -> float:
    """``score_it(items2list(gt), items2list(pred))`` of the reference."""
    if threshold == -1:
        return _score(gt, pred, threshold, None)
    load_wordnet(wordnet_path)
    with nltk_data_path(wordnet_path):
        return _score(gt, pred, threshold, _location(wordnet_path))


def wups_per_question(
    predictions: list[str], references: list[list[str]], threshold: float = 0.9, wordnet_path: str | None = None
) -> np.ndarray:
    """WUPS of every question; with several GT answers a question keeps the best one (an extension:
    the reference has one GT per question)."""
    location = None
    if threshold != -1:
        load_wordnet(wordnet_path)  # fail early and clearly
        location = _location(wordnet_path)
    with nltk_data_path(wordnet_path if threshold != -1 else None):
        return np.array(
            [max(_score(g, p, threshold, location) for g in refs) for p, refs in zip(predictions, references)],
            dtype=np.float64,
        )
