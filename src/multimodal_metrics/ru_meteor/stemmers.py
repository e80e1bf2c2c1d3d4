"""ru_meteor's stemmers: the stage-2 keys of the tokens (the alignment matches equal keys).

* ``porter``: NLTK's ``PorterStemmer`` (the NLTK and Fusion Brain VisualQA default; a no-op on Cyrillic);
* ``snowball_ru``: NLTK's ``SnowballStemmer("russian")`` (the official captioning scorer);
* ``pymorphy3``: the lemma of pymorphy3's most probable parse, ``ё`` -> ``е``;
* ``none``: the token itself.

Stems are cached per stemmer and token (``STEM_CACHES``; a cache is emptied when it passes 2**20
tokens). The lemmatiser (``lemma_of``) also serves the VisualQA text pipeline (``text.fb_vqa_normalize``).
"""

import functools

from ..resources.russian import first_lemma
from .dependencies import import_library

STEMMERS = ("snowball_ru", "porter", "pymorphy3", "none")

STEM_CACHES: dict = {}  # stemmer -> {token: stem}


@functools.lru_cache(maxsize=1)
def morph_analyzer():
    """pymorphy3's Russian ``MorphAnalyzer`` (one per process)."""
    return import_library("pymorphy3").MorphAnalyzer(lang="ru")


def lemma_of(text: str) -> str:
    """``normal_form`` of pymorphy3's most probable parse (``resources.russian.first_lemma``: letters
    without a Unicode name, e.g. Tangut, are parsed as the non-Latin letters they are, as the official
    pymorphy2 call would if it did not crash on them)."""
    return first_lemma(morph_analyzer(), text)


@functools.cache
def stem_function(stemmer: str):
    """The ``token -> stem`` function of ``stemmer`` (its library imported now)."""
    if stemmer == "porter":
        return import_library("nltk.stem.porter").PorterStemmer().stem
    if stemmer == "snowball_ru":
        return import_library("nltk.stem.snowball").SnowballStemmer("russian").stem
    if stemmer == "pymorphy3":
        morph_analyzer()
        return lambda token: lemma_of(token).replace("ё", "е")
    if stemmer == "none":
        return str
    raise ValueError(f"`stemmer` must be one of {list(STEMMERS)}, got {stemmer!r}")


def stem_tokens(tokens: list[str], stemmer: str) -> list[str]:
    """Stage-2 keys of ``tokens`` (the cache is per stemmer and emptied when it passes 2**20 tokens)."""
    if stemmer == "none":
        return tokens
    cache = STEM_CACHES.setdefault(stemmer, {})
    if len(cache) > 1 << 20:
        cache.clear()
    out = []
    for token in tokens:
        stem = cache.get(token)
        if stem is None:
            stem = cache[token] = stem_function(stemmer)(token)
        out.append(stem)
    return out
