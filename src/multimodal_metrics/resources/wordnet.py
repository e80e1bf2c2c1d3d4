"""English WordNet 3.0 for NLTK, found and read offline: one copy for every metric that reads it.

Used by vqa_acc (`wups`: Wu-Palmer similarity) and ru_meteor (`nltk`: METEOR's synonym stage). The main
script finds the WordNet, hands the reader to its core (helpers cannot import each other), and keeps the
WordNet's folder on ``nltk.data.path`` only while it computes::

    load_wordnet(wordnet_path, alternative=...)   # in the option checks: refused before evaluate's cache
    with open_wordnet(wordnet_path, alternative=..., needed=...) as wordnet:
        scores = core_function(..., wordnet=wordnet)

Where it is looked for (nothing is ever downloaded), first found wins:

1. ``wordnet_path``: an NLTK data directory holding ``corpora/wordnet`` (or NLTK's ``corpora/wordnet.zip``),
   that ``corpora/wordnet`` directory itself, or a WordNet dict directory (``data.noun``, ``index.noun``, ...)
   such as Debian's;
2. NLTK's data path (``NLTK_DATA``, ``~/nltk_data``, ...), in the order ``nltk.corpus.wordnet`` uses:
   ``corpora/wordnet``, then ``corpora/wordnet.zip``;
3. Debian's ``wordnet-base`` files in ``/usr/share/wordnet`` (``apt-get install wordnet-base``; in a Hugging
   Face Space a line ``wordnet-base`` in ``packages.txt``).

A dict directory lacks NLTK's ``lexnames`` file (Debian ships it only as the man page lexnames(5WN)): the
reader then uses WordNet 3.0's fixed table :data:`LEXNAMES`. Readers are NLTK's ``WordNetCorpusReader``,
one per corpus location (loading one takes seconds), without OMW (multilingual) data and without the
sense-key map to another WordNet that NLTK builds for OMW: synsets, lemmas and relations are NLTK's own.

NLTK >= 3.10 opens corpus files only under a folder of ``nltk.data.path`` (when a reader is built and
on every file it opens later): :func:`open_wordnet` puts the folder there for the block only, so a
``wordnet_path`` never changes what the rest of the process may read.
"""

import io
import warnings
from contextlib import contextmanager, suppress
from functools import lru_cache
from pathlib import Path

DEBIAN_WORDNET = "/usr/share/wordnet"  # Debian's wordnet-base (apt-get, or packages.txt in a Space)
MISSING_WORDNET = (
    "WordNet 3.0 was not found{where}. It is read offline, never downloaded: install Debian's `wordnet-base` "
    "(in a Hugging Face Space: a line `wordnet-base` in packages.txt; on Debian/Ubuntu: `apt-get install "
    "wordnet-base`; read from /usr/share/wordnet), or pass `wordnet_path=` an NLTK data directory holding "
    "corpora/wordnet, or a WordNet 3.0 dict directory."
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
_IN_NLTK_DATA = ("corpora/wordnet", "corpora/wordnet.zip/wordnet/")  # nltk.corpus.wordnet's order


def lexnames_text() -> str:
    """The `lexnames` file of WordNet 3.0 (``NN<TAB>name<TAB>pos``), as NLTK's reader expects it."""
    return "".join(f"{i:02d}\t{name}\t{_POS_CODE[name.split('.')[0]]}\n" for i, name in enumerate(LEXNAMES))


def _missing(where: str, alternative: str) -> ValueError:
    return ValueError(MISSING_WORDNET.format(where=where) + (f" {alternative}" if alternative else ""))


def _is_dict_dir(path: Path) -> bool:
    return (path / "data.noun").is_file() and (path / "index.noun").is_file()


def _nltk():
    from ..extras import require

    require("WordNet (read through NLTK; no download at run time)", ["nltk"], ["text"])
    import nltk

    return nltk


def _in_nltk_data(paths=None) -> str | None:
    """The corpus location NLTK finds (a directory, or ``.../wordnet.zip/wordnet/``), or None."""
    nltk = _nltk()
    for resource in _IN_NLTK_DATA:
        try:
            found = nltk.data.find(resource, paths=paths)
        except LookupError:
            continue
        zip_file = getattr(found, "zipfile", None)
        return f"{zip_file.filename}/{found.entry}" if zip_file is not None else str(found)
    return None


@contextmanager
def _on_nltk_data_path(root: str | None):
    """``root`` on ``nltk.data.path`` (first) for the block only; nothing when None or already there."""
    nltk = _nltk()
    if root is None or root in nltk.data.path:
        yield
        return
    nltk.data.path.insert(0, root)
    try:
        yield
    finally:
        with suppress(ValueError):
            nltk.data.path.remove(root)


def locate_wordnet(wordnet_path=None, alternative: str = "") -> tuple[str | None, str]:
    """``(folder to put on nltk.data.path or None, corpus location)`` of ``wordnet_path``, else of NLTK's
    data path, else of Debian's dict directory (see the module docstring). A ValueError naming
    ``wordnet_path`` when it holds no WordNet, or saying how to install one when none is found;
    ``alternative`` (how to run without WordNet) is appended to the message."""
    if wordnet_path is None:
        location = _in_nltk_data()
        if location is not None:
            return None, location
        if _is_dict_dir(Path(DEBIAN_WORDNET)):
            return DEBIAN_WORDNET, DEBIAN_WORDNET
        raise _missing(f" on NLTK's data path nor in {DEBIAN_WORDNET}", alternative)
    where = f" under `wordnet_path`={str(wordnet_path)[:200]!r}"
    try:
        path = Path(wordnet_path).expanduser().resolve()
        if path.name == "wordnet" and path.parent.name == "corpora" and path.is_dir():
            return str(path.parent.parent), str(path)
        if (path / "corpora").is_dir():
            with _on_nltk_data_path(str(path)):  # NLTK reads a zip only under nltk.data.path
                location = _in_nltk_data(paths=[str(path)])
            if location is not None:
                return str(path), location
        if _is_dict_dir(path):
            return str(path), str(path)
    except (OSError, ValueError) as err:  # a name too long, a NUL, ...: not a WordNet directory
        raise _missing(f"{where} ({type(err).__name__}: {str(err)[:200]})", alternative) from None
    raise _missing(where, alternative)


@contextmanager
def open_wordnet(wordnet_path=None, alternative: str = "", needed: bool = True):
    """The WordNet reader (see :func:`locate_wordnet`), with its folder on ``nltk.data.path`` for the
    duration of the block only (removed afterwards even if the block raises). ``needed=False`` yields
    None and looks for nothing (an option that needs no WordNet). A ValueError when it is missing."""
    if not needed:
        yield None
        return
    root, location = locate_wordnet(wordnet_path, alternative)
    with _on_nltk_data_path(root):
        try:
            reader = _reader(location)
        except (LookupError, OSError, ValueError, AssertionError, IndexError, KeyError) as err:
            # files missing, unreadable or not WordNet's format (a garbage `lexnames`) in a directory that looked right
            where = (
                f" in {location}"
                if wordnet_path is None
                else f" under `wordnet_path`={str(wordnet_path)[:200]!r}"
            )
            raise _missing(f"{where} ({type(err).__name__}: {str(err)[:200]})", alternative) from err
        yield reader


def load_wordnet(wordnet_path=None, alternative: str = ""):
    """The WordNet reader, built (or taken from the cache) now: the check an option check makes, so a
    missing WordNet is refused before evaluate writes anything. Read it inside :func:`open_wordnet`."""
    with open_wordnet(wordnet_path, alternative) as reader:
        return reader


@lru_cache(maxsize=8)
def _reader(location: str):
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class Reader(WordNetCorpusReader):
        """WordNetCorpusReader that reads :data:`LEXNAMES` when the corpus has no `lexnames` file
        (Debian's layout), and maps no other WordNet onto this one (NLTK does that for OMW only)."""

        def open(self, file):
            try:
                return super().open(file)
            except OSError:
                if file != "lexnames":
                    raise
                return io.StringIO(lexnames_text())

        def map_wn(self, version="wordnet"):
            return None

    with warnings.catch_warnings():  # "multilingual functions are not available": no OMW, by design
        warnings.simplefilter("ignore", UserWarning)
        reader = Reader(location, None)
    # NLTK re-reads the data file's header for the version inside every wup_similarity (Synset._needs_root):
    # about 60% of a WUPS run. The version of an open corpus is constant, so it is read once.
    version = reader.get_version()
    reader.get_version = lambda: version
    return reader
