"""Pure functions behind the ru_meteor metric (no evaluate, no state beyond caches): usable on their own.

(``multimodal_metrics.ru_meteor.core``; the options, presets and ``score`` are in ``ru_meteor.scoring``.)

METEOR as NLTK implements it (``nltk.translate.meteor_score``, Lavie & Agarwal 2007), with the text
pipelines of the Fusion Brain 2022 (AIJ) captioning and VisualQA scorers (``ai-forever/fbc2_aij2022``:
``evaluation/captioning/metrics/{calc_meteor,rumeteor,utils}.py``, ``evaluation/vqa/metric/
{calc_meteor,rumeteor}.py``; seeds_reference.md 1.4, 1.5, 3.5).

Score of one hypothesis h (n tokens) against one reference r (l tokens), tokens lower-cased:

    alignment  stage 1 exact, stage 2 stem, stage 3 synonyms, each on what the previous stage left;
               within a stage the hypothesis tokens are visited from the LAST to the first and each
               takes the LAST still-free reference token that it matches (NLTK's enumeration order).
               Stage 3 compares the stage-2 keys (stems): a reference key matches a hypothesis key k
               when it is in synonyms(k) or equals k.
    m          number of aligned pairs;  chunks = runs of pairs adjacent in both h and r (pairs
               sorted by hypothesis position)
    P = m/n,  R = m/l,  Fmean = P*R / (alpha*P + (1-alpha)*R)
    penalty = gamma * (chunks/m)**beta,   score = (1 - penalty) * Fmean,   0 when m = 0 or n = 0

Several references: the max of the single-reference scores (``reference_agg="max"``; ``"mean"`` is an
option). The arithmetic is written exactly as NLTK writes it, so the floats are identical.
The corpus score pools (m, n, l, chunks) of each example's best reference before applying the formula
(as METEOR 1.5 does for its aggregate score).

Text pipelines (``preprocess``), applied to every string before tokenisation:

* ``fb_captioning``: the official ``postprocess(ref, hyp, "ru", detokenize_after=True,
  tokenize_after=True, lower=True)``: strip; delete ``, . ! ? : ; %`` and ``) ] }`` and ``( [ }``
  (``{`` is kept: the official "opening" string is ``"([}"``); glue spaced quotes (``" x "`` ->
  ``"x"``); ``' s`` / `` 's`` -> ``'s``; (hypothesis only) ``@@UNKNOWN@@`` -> ``<unk>``; razdel tokens
  joined by spaces; lower-case.
* ``fb_vqa``: delete the 32 ASCII punctuation characters, lower-case, then ONE pymorphy3 parse of the
  whole answer (``normal_form`` of the first parse: multi-word answers only get their tail
  lemmatised) and the Russian number-word map on the whole result (``"три"`` -> ``"3"``).
* ``ru``: lower-case and ``ё`` -> ``е``.   * ``none``: nothing.

``number_words="wordtodigits"``: the hypothesis (only) goes through ``wordtodigits.convert`` (English
number words to digits, as the official code). ``tokenizer="nltk"``: the tokens of ``nltk.word_tokenize``
with ``sent_tokenize`` replaced by identity (punkt cannot be had offline; plain word strings take a
split fast path that gives the same tokens, anything else goes through NLTK's own ``NLTKWordTokenizer``);
``tokenizer="razdel"``: razdel tokens that contain a letter or a digit.

Stemmers (stage 2): ``porter`` (NLTK ``PorterStemmer``, the NLTK and VQA default; a no-op on Cyrillic),
``snowball_ru`` (NLTK ``SnowballStemmer("russian")``, official captioning), ``pymorphy3`` (lemma of the
most probable parse, ``ё`` -> ``е``), ``none``. Stems are cached per token.

Synonyms (stage 3): ``wordnet`` (English WordNet via NLTK: lemma names without ``_`` of every synset
of the key, NLTK's rule; ``wordnet`` is the NLTK ``WordNetCorpusReader`` that ``scoring`` finds with
:mod:`multimodal_metrics.resources.wordnet` and keeps readable while it computes), ``ruwordnet_fb`` (the
official RuWordNet stage: titles of the hypernym
synsets of every sense whose lemma is ``key.upper()`` and the names of those senses' derivations,
lower-cased; directional), ``ruwordnet_synsets`` (members of the key's synsets: true synonyms), ``none``.
RuWordNet is read with sqlite3 from the ``ruwordnet`` package's database file.

Numeric branch (``numeric="fusion_brain"``, official VisualQA): when a reference has exactly one token
and ``token.isnumeric()``, the score is ``min(x, y)/max(x, y)`` (both 0 -> 1) between the reference
number and the FIRST hypothesis token that is a number, 0 when there is none. The official code asks
NLTK's perceptron POS tagger for ``CD`` tokens that ``float()`` parses; the tagger's model cannot be had
offline, so "is a number" here is ``-?\\d+(\\.\\d+)?`` (the tagger tags such tokens CD).
"""

import functools
import os
import re
import string
from pathlib import Path

# RU_NUMBER_WORDS: manualMap_ru of AIJ 2022 VisualQA (seeds 000/001, evaluation/vqa/metric/calc_meteor.py;
# seeds_reference.md 1.5), the same 13 entries as the TextQA and VQA 2021 scripts' (one copy, shared with
# text_qa and vqa_acc); applied to the lemma of the whole answer (one key for the whole string).
from ..digests import file_sha256
from ..options import short_repr
from ..resources.russian import NUMBER_WORDS as RU_NUMBER_WORDS
from ..resources.russian import first_lemma

PREPROCESSES = ("fb_captioning", "fb_vqa", "ru", "none")
NUMBER_WORDS = ("wordtodigits", "none")
TOKENIZERS = ("nltk", "razdel")
STEMMERS = ("snowball_ru", "porter", "pymorphy3", "none")
SYNONYMS = ("ruwordnet_fb", "ruwordnet_synsets", "wordnet", "none")
NUMERICS = ("fusion_brain", "none")
REFERENCE_AGGS = ("max", "mean")

EXACT, STEM, SYNONYM, NUMERIC = 1, 2, 3, 4
STAGE_NAMES = {EXACT: "exact", STEM: "stem", SYNONYM: "synonym", NUMERIC: "numeric"}

MISSING_RUWORDNET = (
    "The RuWordNet database was not found{where}. It is not on PyPI (the `ruwordnet` package downloads it): "
    "on a machine with access run `pip install ruwordnet && ruwordnet download` (or `python -m ruwordnet "
    "download`), then copy `ruwordnet/static/ruwordnet.db` (or ruwordnet-2021.db) and pass "
    '`ruwordnet_path=` its path, or set RUWORDNET_DB; or pass `synonyms="none"` to run the exact and stem '
    "stages only."
)


def _require(module: str, what: str, pins: str):
    """``module``, or one ImportError naming the extras of ru_meteor (`require_libraries` checks them all
    before scoring; this is the net for a direct call of the pure functions)."""
    from ..extras import import_or_explain

    return import_or_explain(module, "ru_meteor", ["ru", "text"])


# ------------------------------------------------------------------------------------------------
# text pipelines
# ------------------------------------------------------------------------------------------------
_FB_DELETE = str.maketrans("", "", ",.!?:;%" + ")]}" + "([}")
_FB_QUOTES = (re.compile(r'"\s[^"]+\s"'), re.compile(r"'\s[^']+\s'"))
_ASCII_PUNCT = str.maketrans("", "", string.punctuation)


def punct_detokenize(text: str) -> str:
    """The official ``punct_detokenize`` (captioning ``metrics/utils.py``)."""
    text = text.strip().translate(_FB_DELETE)
    for pattern in _FB_QUOTES:
        for found in pattern.findall(text):
            text = text.replace(found, found[0] + found[2:-2] + found[-1])
    return text.replace("' s", "'s").replace(" 's", "'s").strip()


def fb_caption_postprocess(text: str, is_hypothesis: bool) -> str:
    """The official ``postprocess(..., language="ru", detokenize_after=True, tokenize_after=True, lower=True)``
    for one side."""
    razdel = _require("razdel", "razdel", "razdel==0.5.0")
    text = punct_detokenize(text.strip())
    if is_hypothesis:
        text = text.replace("@@UNKNOWN@@", "<unk>")
    return " ".join(token.text for token in razdel.tokenize(text)).lower()


@functools.lru_cache(maxsize=1)
def _morph():
    pymorphy3 = _require(
        "pymorphy3", "pymorphy3 and its Russian dictionary", "pymorphy3==2.0.6 pymorphy3-dicts-ru"
    )
    return pymorphy3.MorphAnalyzer(lang="ru")


def lemma_of(text: str) -> str:
    """``normal_form`` of pymorphy3's most probable parse (``resources.russian.first_lemma``: letters
    without a Unicode name, e.g. Tangut, are parsed as the non-Latin letters they are, as the official
    pymorphy2 call would if it did not crash on them)."""
    return first_lemma(_morph(), text)


@functools.lru_cache(maxsize=1 << 16)
def fb_vqa_normalize(text: str) -> str:
    """The official VisualQA ``get_lemma(remove_punc(text))``: one parse of the whole string."""
    text = text.translate(_ASCII_PUNCT).lower()
    lemma = lemma_of(text)
    return RU_NUMBER_WORDS.get(lemma, lemma)


def preprocess_text(text: str, preprocess: str, is_hypothesis: bool) -> str:
    if preprocess == "fb_captioning":
        return fb_caption_postprocess(text, is_hypothesis)
    if preprocess == "fb_vqa":
        return fb_vqa_normalize(text)
    if preprocess == "ru":
        return text.lower().replace("ё", "е")
    if preprocess == "none":
        return text
    raise ValueError(f"`preprocess` must be one of {list(PREPROCESSES)}, got {preprocess!r}")


def words_to_digits(text: str) -> str:
    """``wordtodigits.convert`` (English number words -> digits; it also re-joins tokens with one space)."""
    return _require("wordtodigits", "wordtodigits", "wordtodigits==1.0.2").convert(text)


# NLTK's word tokenizer leaves a string of plain words unchanged apart from these contractions and a final
# period (split off); anything else goes through NLTKWordTokenizer itself.
_PLAIN = re.compile(r"\s*[^\W_]+(?:\s+[^\W_]+)*(\s*\.)?\s*")
_SPLIT_WORDS = frozenset(("cannot", "gimme", "gonna", "gotta", "lemme", "wanna"))


@functools.lru_cache(maxsize=1)
def _nltk_word_tokenizer():
    destructive = _require("nltk.tokenize.destructive", "nltk", "nltk==3.10.4")
    return destructive.NLTKWordTokenizer()


def nltk_tokenize(text: str) -> list[str]:
    """``nltk.word_tokenize(text)`` with ``sent_tokenize`` replaced by identity (= ``preserve_line=True``)."""
    match = _PLAIN.fullmatch(text)
    if match is not None:
        if match.group(1) is None:
            tokens = text.split()
        else:
            tokens = text[: match.start(1)].split() + ["."]
        if not any(token.lower() in _SPLIT_WORDS for token in tokens):
            return tokens
    return _nltk_word_tokenizer().tokenize(text)


_HAS_ALNUM = re.compile(r"[^\W_]")


def razdel_tokenize(text: str) -> list[str]:
    """razdel tokens that hold a letter or a digit (punctuation tokens dropped)."""
    razdel = _require("razdel", "razdel", "razdel==0.5.0")
    return [t.text for t in razdel.tokenize(text) if _HAS_ALNUM.search(t.text)]


def tokenize(text: str, tokenizer: str) -> list[str]:
    if tokenizer == "nltk":
        return nltk_tokenize(text)
    if tokenizer == "razdel":
        return razdel_tokenize(text)
    raise ValueError(f"`tokenizer` must be one of {list(TOKENIZERS)}, got {tokenizer!r}")


def prepare(text: str, is_hypothesis: bool, preprocess: str, number_words: str, tokenizer: str) -> list[str]:
    """The lower-cased tokens METEOR aligns (NLTK's ``preprocess=str.lower`` included)."""
    text = preprocess_text(text, preprocess, is_hypothesis)
    if is_hypothesis and number_words == "wordtodigits":
        text = words_to_digits(text)
    return [token.lower() for token in tokenize(text, tokenizer)]


# ------------------------------------------------------------------------------------------------
# stemmers (stage 2), cached per token
# ------------------------------------------------------------------------------------------------
_STEM_CACHES: dict = {}


@functools.cache
def _stem_function(stemmer: str):
    if stemmer == "porter":
        porter = _require("nltk.stem.porter", "nltk", "nltk==3.10.4")
        return porter.PorterStemmer().stem
    if stemmer == "snowball_ru":
        snowball = _require("nltk.stem.snowball", "nltk", "nltk==3.10.4")
        return snowball.SnowballStemmer("russian").stem
    if stemmer == "pymorphy3":
        _morph()
        return lambda token: lemma_of(token).replace("ё", "е")
    if stemmer == "none":
        return str
    raise ValueError(f"`stemmer` must be one of {list(STEMMERS)}, got {stemmer!r}")


def stem_tokens(tokens: list[str], stemmer: str) -> list[str]:
    """Stage-2 keys of ``tokens`` (the cache is per stemmer and emptied when it passes 2**20 tokens)."""
    if stemmer == "none":
        return tokens
    cache = _STEM_CACHES.setdefault(stemmer, {})
    if len(cache) > 1 << 20:
        cache.clear()
    out = []
    for token in tokens:
        stem = cache.get(token)
        if stem is None:
            stem = cache[token] = _stem_function(stemmer)(token)
        out.append(stem)
    return out


# ------------------------------------------------------------------------------------------------
# synonym sources (stage 3)
# ------------------------------------------------------------------------------------------------
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
def _wordnet_synonyms(wordnet) -> WordNetSynonyms:
    return WordNetSynonyms(wordnet)


@functools.lru_cache(maxsize=8)
def _synonym_source(synonyms: str, path):
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
        return _wordnet_synonyms(wordnet)
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
    return _synonym_source(synonyms, resolved)


def resource_tag(synonyms: str, wordnet=None, ruwordnet_path=None) -> str:
    source = synonym_source(synonyms, wordnet, ruwordnet_path)
    return "none" if source is None else source.tag


def libraries(opts: dict) -> list[str]:
    """The distributions these options use (nltk, razdel, wordtodigits, pymorphy3 and its dictionary)."""
    used = []
    if (
        opts["tokenizer"] == "nltk"
        or opts["stemmer"] in ("porter", "snowball_ru")
        or opts["synonyms"] == "wordnet"
    ):
        used.append("nltk")
    if opts["preprocess"] == "fb_captioning" or opts["tokenizer"] == "razdel":
        used.append("razdel")
    if opts["number_words"] == "wordtodigits":
        used.append("wordtodigits")
    if opts["preprocess"] == "fb_vqa" or opts["stemmer"] == "pymorphy3":
        used += ["pymorphy3", "pymorphy3-dicts-ru"]
    return used


def require_libraries(opts: dict) -> None:
    """One ImportError naming every library these options use that is missing and the extras of ru_meteor
    (``pip install 'multimodal-metrics[ru,text]'``), before anything is scored."""
    from ..extras import require

    require("ru_meteor", [name.replace("-", "_") for name in libraries(opts)], ["ru", "text"])


def library_versions(opts: dict) -> str:
    """``nltk-3.10.4+razdel-0.5.0+...``: the versions of the libraries these options use."""
    from importlib.metadata import PackageNotFoundError, version

    parts = []
    for name in libraries(opts):
        try:
            parts.append(f"{name}-{version(name)}")
        except PackageNotFoundError as err:
            from ..extras import MissingExtra

            raise MissingExtra("ru_meteor", [name.replace("-", "_")], ["ru", "text"]) from err
    return "+".join(parts) or "none"


# ------------------------------------------------------------------------------------------------
# alignment and score (NLTK semantics)
# ------------------------------------------------------------------------------------------------
def align(hyp: list, ref: list, hyp_keys: list, ref_keys: list, synonyms=None) -> list:
    """Which reference position each hypothesis token is aligned to (-1: none) and by which stage.

    Returns ``[(ref_position, stage), ...]`` per hypothesis token, NLTK's exact / stem / synonym
    enumeration order (see the module docstring)."""
    n, m = len(hyp), len(ref)
    out = [(-1, 0)] * n
    if not n or not m:
        return out
    free = [True] * m
    positions: dict = {}
    for j in range(m):
        found = positions.get(ref[j])
        if found is None:
            positions[ref[j]] = [j]
        else:
            found.append(j)
    left = []
    for i in range(n - 1, -1, -1):
        found = positions.get(hyp[i])
        if found:
            j = found.pop()
            free[j] = False
            out[i] = (j, EXACT)
        else:
            left.append(i)
    if not left:
        return out
    positions = {}
    for j in range(m):
        if free[j]:
            found = positions.get(ref_keys[j])
            if found is None:
                positions[ref_keys[j]] = [j]
            else:
                found.append(j)
    if not positions:
        return out
    still = []
    for i in left:
        found = positions.get(hyp_keys[i])
        if found:
            j = found.pop()
            free[j] = False
            out[i] = (j, STEM)
        else:
            still.append(i)
    if synonyms is None or not still:
        return out
    rest = [j for j in range(m - 1, -1, -1) if free[j]]
    for i in still:
        if not rest:
            break
        candidates = synonyms(hyp_keys[i])
        for k, j in enumerate(rest):
            if ref_keys[j] in candidates:
                out[i] = (j, SYNONYM)
                del rest[k]
                break
    return out


def alignment_stats(alignment: list) -> tuple[int, int]:
    """(matches, chunks): chunks = runs of aligned pairs adjacent in both sentences (NLTK ``_count_chunks``;
    0 chunks for 0 matches, where NLTK's 1 never reaches the score)."""
    matches = chunks = 0
    prev_i = prev_j = -2
    for i, (j, _) in enumerate(alignment):
        if j < 0:
            continue
        matches += 1
        if not (i == prev_i + 1 and j == prev_j + 1):
            chunks += 1
        prev_i, prev_j = i, j
    return matches, chunks


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


# ------------------------------------------------------------------------------------------------
# numeric branch (official VisualQA)
# ------------------------------------------------------------------------------------------------
_NUMBER = re.compile(r"-?\d+(\.\d+)?")


def is_number(token: str) -> bool:
    """The stand-in for "the perceptron tagger says CD and float() parses it"."""
    return _NUMBER.fullmatch(token) is not None


def numeric_score(hyp_tokens: list[str], ref_number: str) -> tuple[float, int]:
    """(score, hypothesis position used or -1) of the official numeric branch."""
    y = float(ref_number) if _float_ok(ref_number) else None
    for i, token in enumerate(hyp_tokens):
        if not is_number(token) or y is None:
            continue  # a float(reference) failure inside the official try skips every token
        x = float(token)
        if x == 0 and y == 0:
            return 1.0, i
        low, high = (y, x) if x > y else (x, y)
        if high == 0:
            continue  # ZeroDivisionError inside the official try: next token
        return low / high, i
    return 0.0, -1


def _float_ok(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def numeric_applies(ref_tokens: list[str]) -> bool:
    return len(ref_tokens) == 1 and ref_tokens[0].isnumeric()


# ------------------------------------------------------------------------------------------------
# the metric
# ------------------------------------------------------------------------------------------------
def _pair(hyp, hyp_keys, ref, ref_keys, synonyms, numeric, alpha, beta, gamma):
    """(score, (matches, hyp_len, ref_len, chunks) or None for the numeric branch, alignment)."""
    if numeric == "fusion_brain" and numeric_applies(ref):
        score, used = numeric_score(hyp, ref[0])
        alignment = [(-1, 0)] * len(hyp)
        if used >= 0:
            alignment[used] = (0, NUMERIC)
        return score, None, alignment
    alignment = align(hyp, ref, hyp_keys, ref_keys, synonyms)
    matches, chunks = alignment_stats(alignment)
    score = meteor_formula(matches, len(hyp), len(ref), chunks, alpha, beta, gamma)
    return score, (matches, len(hyp), len(ref), chunks), alignment


def meteor_per_example(
    predictions: list[str],
    references: list[list[str]],
    preprocess: str = "none",
    number_words: str = "none",
    tokenizer: str = "nltk",
    stemmer: str = "porter",
    synonyms: str = "wordnet",
    alpha: float = 0.9,
    beta: float = 3.0,
    gamma: float = 0.5,
    numeric: str = "none",
    reference_agg: str = "max",
    wordnet=None,
    ruwordnet_path=None,
    return_stats: bool = False,
):
    """METEOR of every example (defaults: NLTK's ``meteor_score`` on ``word_tokenize`` tokens).

    ``references[i]`` is the non-empty list of references of example i. With ``return_stats=True``
    returns ``(scores, stats)`` where ``stats[i]`` = (matches, hyp_len, ref_len, chunks) of the best
    reference (None when that score came from the numeric branch). ``synonyms="wordnet"`` reads
    ``wordnet``, a WordNet reader (see :func:`synonym_source`)."""
    if reference_agg not in REFERENCE_AGGS:
        raise ValueError(f"`reference_agg` must be one of {list(REFERENCE_AGGS)}, got {reference_agg!r}")
    source = synonym_source(synonyms, wordnet, ruwordnet_path)
    scores, stats = [], []
    for prediction, refs in zip(predictions, references):
        hyp = prepare(prediction, True, preprocess, number_words, tokenizer)
        hyp_keys = stem_tokens(hyp, stemmer)
        best, best_stats, total = -1.0, None, 0.0
        for reference in refs:
            ref = prepare(reference, False, preprocess, number_words, tokenizer)
            score, pair_stats, _ = _pair(
                hyp, hyp_keys, ref, stem_tokens(ref, stemmer), source, numeric, alpha, beta, gamma
            )
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


def explain(
    prediction: str,
    references: list[str],
    preprocess: str = "none",
    number_words: str = "none",
    tokenizer: str = "nltk",
    stemmer: str = "porter",
    synonyms: str = "wordnet",
    alpha: float = 0.9,
    beta: float = 3.0,
    gamma: float = 0.5,
    numeric: str = "none",
    wordnet=None,
    ruwordnet_path=None,
    **_unused,
) -> dict:
    """The alignment behind one example's score, for display: the hypothesis tokens, every reference's
    tokens and score, the best reference (first of the highest) and its aligned pairs with their stage."""
    source = synonym_source(synonyms, wordnet, ruwordnet_path)
    hyp = prepare(prediction, True, preprocess, number_words, tokenizer)
    hyp_keys = stem_tokens(hyp, stemmer)
    rows = []
    for reference in references:
        ref = prepare(reference, False, preprocess, number_words, tokenizer)
        score, _, alignment = _pair(
            hyp, hyp_keys, ref, stem_tokens(ref, stemmer), source, numeric, alpha, beta, gamma
        )
        rows.append({"tokens": ref, "score": score, "alignment": alignment})
    best = max(range(len(rows)), key=lambda k: (rows[k]["score"], -k))
    pairs = [
        {"hyp": i, "ref": j, "stage": STAGE_NAMES[stage]}
        for i, (j, stage) in enumerate(rows[best]["alignment"])
        if j >= 0
    ]
    return {
        "hypothesis": hyp,
        "references": [{"tokens": r["tokens"], "score": r["score"]} for r in rows],
        "best": best,
        "pairs": pairs,
    }
