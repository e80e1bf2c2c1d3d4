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
Cached (``lru_cache``): noun synsets per word, Wu-Palmer similarity per ordered synset pair, its maximum
per word pair, hypernym paths per synset, and the WordNet version NLTK would otherwise re-read in every
``wup_similarity``. WordNet 3.0 is read offline, nothing is
downloaded: from ``wordnet_path`` (an NLTK data directory holding ``corpora/wordnet``, that ``wordnet``
directory itself, or a WordNet dict directory such as Debian's), else from NLTK's standard data path
(``NLTK_DATA``, ``~/nltk_data``, ...), else from Debian's ``wordnet-base`` files in ``/usr/share/wordnet``
(what a Hugging Face Space installs from ``packages.txt``). A dict directory lacks NLTK's ``lexnames``
file (Debian ships it only as a man page): the reader then uses WordNet 3.0's fixed table ``LEXNAMES``.
"""

import warnings
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


def _locate(wordnet_path) -> tuple[str | None, str]:
    """(directory to add to ``nltk.data.path``, WordNet directory) for ``wordnet_path``: NLTK >= 3.10
    opens corpora only under ``nltk.data.path``."""
    path = Path(wordnet_path).expanduser().resolve()
    if (path / "corpora" / "wordnet").is_dir():
        return str(path), str(path / "corpora" / "wordnet")
    if path.name == "wordnet" and path.parent.name == "corpora" and path.is_dir():
        return str(path.parent.parent), str(path)
    if _is_dict_dir(path):
        return str(path), str(path)
    raise ValueError(MISSING_WORDNET.format(where=f" under `wordnet_path`={str(wordnet_path)!r}"))


def load_wordnet(wordnet_path: str | None = None):
    """A WordNetCorpusReader found offline (see the module docstring); a clear ValueError otherwise.
    Readers are cached per corpus directory (loading one takes seconds)."""
    import nltk

    if wordnet_path is not None:
        root, location = _locate(wordnet_path)
        where = f" under `wordnet_path`={str(wordnet_path)!r}"
    else:
        root, where = None, f" on NLTK's data path nor in {DEBIAN_WORDNET}"
        try:
            location = str(nltk.data.find("corpora/wordnet"))
        except LookupError:
            root = location = DEBIAN_WORDNET if _is_dict_dir(Path(DEBIAN_WORDNET)) else None
    if root is not None and root not in nltk.data.path:
        nltk.data.path.insert(0, root)
    try:
        if location is None:
            raise LookupError("no WordNet")
        return _reader(location)
    except (LookupError, OSError) as err:
        raise ValueError(MISSING_WORDNET.format(where=where)) from err


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


@lru_cache(maxsize=1 << 16)
def _noun_synsets(word: str, wordnet_path: str | None) -> tuple:
    """``wn.synsets(word, pos=NOUN)`` once per distinct word."""
    return tuple(load_wordnet(wordnet_path).synsets(word, pos="n"))


@lru_cache(maxsize=1 << 20)
def _synset_wup(x, y, wordnet_path: str | None):
    """``x.wup_similarity(y)`` once per distinct ordered synset pair (words share synsets: dog, dogs, Dog)."""
    _memoize_hypernym_paths(x)
    _memoize_hypernym_paths(y)
    return x.wup_similarity(y)


def _memoize_hypernym_paths(synset) -> None:
    """Give one Synset (shared through its reader's cache) a memo of ``_shortest_hypernym_paths``, which
    NLTK recomputes by a graph walk in every ``shortest_path_distance`` (twice per ``wup_similarity``).
    Its callers only read the returned dict, so the values are unchanged."""
    if "_shortest_hypernym_paths" in vars(synset):
        return
    compute = synset._shortest_hypernym_paths
    memo: dict = {}

    def paths(simulate_root):
        if simulate_root not in memo:
            memo[simulate_root] = compute(simulate_root)
        return memo[simulate_root]

    synset._shortest_hypernym_paths = paths


@lru_cache(maxsize=1 << 18)
def max_wup(a: str, b: str, wordnet_path: str | None = None) -> float:
    """max over NOUN synset pairs of ``wup_similarity`` (0.0 when either word has no noun synset)."""
    interp_a = _noun_synsets(a, wordnet_path)
    interp_b = _noun_synsets(b, wordnet_path)
    if not interp_a or not interp_b:
        return 0.0
    best = 0.0
    for x in interp_a:
        for y in interp_b:
            score = _synset_wup(x, y, wordnet_path)
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
