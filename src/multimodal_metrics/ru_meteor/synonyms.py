"""ru_meteor's synonym sources: the stage-3 candidates of a stage-2 key (a stem).

A source is a callable ``key -> frozenset`` of the reference keys that match ``key`` (the key itself
always included), with a ``tag`` naming the resource version for the signature:

* ``wordnet``: English WordNet via NLTK, the lemma names without ``_`` of every synset of the key
  (NLTK's rule); it reads the NLTK ``WordNetCorpusReader`` it is handed (``scoring`` finds it with
  :mod:`multimodal_metrics.resources.wordnet` and keeps it readable while it computes); tag
  ``wordnet-<version>``.
* ``ruwordnet_fb``: the official RuWordNet stage of the Fusion Brain 2022 scorers: the titles of the
  hypernym synsets of every sense whose lemma is ``key.upper()`` and the names of those senses'
  derivations, lower-cased; directional.
* ``ruwordnet_synsets``: the members of the key's synsets (true synonyms, one word, ``ё`` -> ``е``).
* ``none``: no stage 3 (``synonym_source`` returns None).

RuWordNet is read with sqlite3 (read-only) from the ``ruwordnet`` package's database file:
``ruwordnet_path``, else ``$RUWORDNET_DB``, else the package's ``static/`` folder; its tag is
``ruwordnet-`` and the first 12 hex digits of the file's SHA-256. A missing or unreadable file is a
ValueError that says how to provide it offline. Sources are cached per reader and per RuWordNet path.
"""

import functools
import os
from pathlib import Path

from ..digests import file_sha256
from ..options import short_repr

SYNONYMS = ("ruwordnet_fb", "ruwordnet_synsets", "wordnet", "none")

MISSING_RUWORDNET = (
    "The RuWordNet database was not found{where}. It is not on PyPI (the `ruwordnet` package downloads it): "
    "on a machine with access run `pip install ruwordnet && ruwordnet download` (or `python -m ruwordnet "
    "download`), then copy `ruwordnet/static/ruwordnet.db` (or ruwordnet-2021.db) and pass "
    '`ruwordnet_path=` its path, or set RUWORDNET_DB; or pass `synonyms="none"` to run the exact and stem '
    "stages only."
)


class WordNetSynonyms:
    """NLTK's stage-3 candidate set: the key and every lemma name without ``_`` of ``synsets(key)``."""

    def __init__(self, reader):
        self.reader = reader
        self.cache: dict[str, frozenset] = {}
        self.tag = f"wordnet-{reader.get_version()}"

    def __call__(self, key: str) -> frozenset:
        found = self.cache.get(key)
        if found is None:
            names = {lemma.name() for synset in self.reader.synsets(key) for lemma in synset.lemmas()}
            found = self.cache[key] = frozenset(n for n in names if "_" not in n) | {key}
        return found


def default_ruwordnet_path() -> str | None:
    """RUWORDNET_DB, else the ``ruwordnet`` package's own files (``static/ruwordnet-2021.db``, then
    ``static/ruwordnet.db``, where ``ruwordnet download`` puts it), found without importing the package."""
    env = os.environ.get("RUWORDNET_DB")
    if env:
        return env
    import importlib.util

    try:
        spec = importlib.util.find_spec("ruwordnet")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        for name in ("ruwordnet-2021.db", "ruwordnet.db"):
            candidate = Path(folder) / "static" / name
            if candidate.is_file():
                return str(candidate)
    return None


@functools.lru_cache(maxsize=8)
def _db_fingerprint(path: str, size: int, mtime: float) -> str:
    return file_sha256(path)[:12]


def _connect_ruwordnet(ruwordnet_path):
    import sqlite3

    path = ruwordnet_path if ruwordnet_path is not None else default_ruwordnet_path()
    where = (
        f" at `ruwordnet_path`={str(ruwordnet_path)!r}"
        if ruwordnet_path is not None
        else (
            f" at {path!r}" if path else " (no `ruwordnet_path`, no RUWORDNET_DB, no ruwordnet/static/*.db)"
        )
    )
    if path is None or not Path(path).is_file():
        raise ValueError(MISSING_RUWORDNET.format(where=where))
    path = str(Path(path).resolve())
    try:
        connection = sqlite3.connect(f"{Path(path).as_uri()}?mode=ro", uri=True, check_same_thread=False)
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as err:
        raise ValueError(
            MISSING_RUWORDNET.format(where=f"{where}: not a RuWordNet SQLite file ({err})")
        ) from err
    if not {"sense", "synset"} <= tables:
        raise ValueError(
            MISSING_RUWORDNET.format(where=f"{where}: no `sense`/`synset` tables (not a RuWordNet DB)")
        )
    stat = os.stat(path)
    return connection, tables, f"ruwordnet-{_db_fingerprint(path, stat.st_size, stat.st_mtime)}"


class RuWordNetFB:
    """The official RuWordNet stage: ``{key} | {hypernym titles} | {derivation names}``, lower-cased, of
    every sense whose lemma is ``key.upper().strip()`` (``ruwordnet.RuWordNet.get_senses``)."""

    def __init__(self, ruwordnet_path=None):
        self.connection, tables, self.tag = _connect_ruwordnet(ruwordnet_path)
        parts = []
        if "hypernym_relation" in tables:
            parts.append(
                "SELECT y.title FROM sense s JOIN hypernym_relation h ON h.hyponym_id = s.synset_id "
                "JOIN synset y ON y.id = h.hypernym_id WHERE s.lemma = ?1"
            )
        if "derivation_relation" in tables:
            parts.append(
                "SELECT d2.name FROM sense s JOIN derivation_relation d ON d.source_id = s.id "
                "JOIN sense d2 ON d2.id = d.derivative_id WHERE s.lemma = ?1"
            )
        self.query = " UNION ALL ".join(parts)
        self.cache: dict[str, frozenset] = {}

    def __call__(self, key: str) -> frozenset:
        found = self.cache.get(key)
        if found is None:
            rows = (
                self.connection.execute(self.query, (key.upper().strip(),)).fetchall() if self.query else []
            )
            found = self.cache[key] = frozenset(row[0].lower() for row in rows if row[0] is not None) | {key}
        return found


class RuWordNetSynsets:
    """True synonyms: the lemmas (lower-cased, ``ё`` -> ``е``, one word) of every sense that shares a
    synset with a sense whose lemma is the key; read once into memory."""

    def __init__(self, ruwordnet_path=None):
        connection, _, self.tag = _connect_ruwordnet(ruwordnet_path)
        members: dict[str, set] = {}
        by_lemma: dict[str, set] = {}
        for lemma, synset_id in connection.execute(
            "SELECT lemma, synset_id FROM sense WHERE synset_id IS NOT NULL"
        ):
            if not lemma:
                continue
            key = lemma.lower().replace("ё", "е").strip()
            by_lemma.setdefault(key, set()).add(synset_id)
            if " " not in key:
                members.setdefault(synset_id, set()).add(key)
        connection.close()
        self.synonyms = {
            key: frozenset().union(*(members.get(s, ()) for s in synsets)) | {key}
            for key, synsets in by_lemma.items()
        }

    def __call__(self, key: str) -> frozenset:
        found = self.synonyms.get(key)
        return found if found is not None else frozenset((key,))


@functools.lru_cache(maxsize=8)
def wordnet_source(wordnet) -> WordNetSynonyms:
    """The ``wordnet`` source over one reader (cached per reader)."""
    return WordNetSynonyms(wordnet)


@functools.lru_cache(maxsize=8)
def ruwordnet_source(synonyms: str, path):
    """The ``ruwordnet_fb`` or ``ruwordnet_synsets`` source over the database at ``path`` (a resolved
    path, or None for the default one; cached per path)."""
    if synonyms == "ruwordnet_fb":
        return RuWordNetFB(path)
    if synonyms == "ruwordnet_synsets":
        return RuWordNetSynsets(path)
    raise ValueError(f"`synonyms` must be one of {list(SYNONYMS)}, got {synonyms!r}")


def synonym_source(synonyms: str, wordnet=None, ruwordnet_path=None):
    """The stage-3 callable ``key -> frozenset of matching reference keys`` (None for ``"none"``); it
    has a ``tag`` naming the resource version. ``"wordnet"`` needs ``wordnet``, a WordNet reader
    (``multimodal_metrics.resources.wordnet.open_wordnet``). Sources are cached per reader or RuWordNet path."""
    if synonyms == "none":
        return None
    if synonyms == "wordnet":
        if wordnet is None or not hasattr(wordnet, "synsets"):
            raise TypeError(
                f'`synonyms="wordnet"` needs `wordnet`, a WordNet reader (resources.wordnet.open_wordnet), '
                f"got {type(wordnet).__name__}"
            )
        return wordnet_source(wordnet)
    path = ruwordnet_path if ruwordnet_path is not None else default_ruwordnet_path()
    try:
        resolved = None if path is None else str(Path(path).resolve())
        if resolved is not None:
            Path(resolved).is_file()  # a name no file system takes (too long) raises here
    except (OSError, ValueError) as err:  # a NUL byte, a name too long: no such file
        where = (
            f" at `ruwordnet_path`={short_repr(str(path))}"
            if ruwordnet_path is not None
            else f" at {short_repr(path)}"
        )
        raise ValueError(
            MISSING_RUWORDNET.format(where=f"{where} ({type(err).__name__}: {str(err)[:200]})")
        ) from None
    return ruwordnet_source(synonyms, resolved)


def resource_tag(synonyms: str, wordnet=None, ruwordnet_path=None) -> str:
    """The ``tag`` of the synonym source (``"none"`` for none): the signature's ``res`` field."""
    source = synonym_source(synonyms, wordnet, ruwordnet_path)
    return "none" if source is None else source.tag
