"""ru_meteor's text pipelines and tokenisers: what turns a string into the lower-cased tokens METEOR aligns.

``prepare(text, is_hypothesis, preprocess, number_words, tokenizer)`` applies, in this order:

Text pipelines (``preprocess``), on every string:

* ``fb_captioning``: the official ``postprocess(ref, hyp, "ru", detokenize_after=True,
  tokenize_after=True, lower=True)`` of the Fusion Brain 2022 (AIJ) captioning scorer
  (``ai-forever/fbc2_aij2022``: ``evaluation/captioning/metrics/utils.py``): strip; delete
  ``, . ! ? : ; %`` and ``) ] }`` and ``( [ }`` (``{`` is kept: the official "opening" string is
  ``"([}"``); glue spaced quotes (``" x "`` -> ``"x"``); ``' s`` / `` 's`` -> ``'s``; (hypothesis only)
  ``@@UNKNOWN@@`` -> ``<unk>``; razdel tokens joined by spaces; lower-case.
* ``fb_vqa``: the official VisualQA ``get_lemma(remove_punc(text))`` (``evaluation/vqa/metric/
  calc_meteor.py``): delete the 32 ASCII punctuation characters, lower-case, then ONE pymorphy3 parse of
  the whole answer (``normal_form`` of the first parse: multi-word answers only get their tail
  lemmatised) and the Russian number-word map on the whole result (``"три"`` -> ``"3"``).
* ``ru``: lower-case and ``ё`` -> ``е``.   * ``none``: nothing.

Number words (``number_words="wordtodigits"``): the hypothesis (only) goes through
``wordtodigits.convert`` (English number words to digits, as the official code).

Tokenisers: ``nltk``: the tokens of ``nltk.word_tokenize`` with ``sent_tokenize`` replaced by identity
(punkt cannot be had offline; plain word strings take a split fast path that gives the same tokens,
anything else goes through NLTK's own ``NLTKWordTokenizer``); ``razdel``: razdel tokens that contain a
letter or a digit. Every token is then lower-cased (NLTK's ``preprocess=str.lower``).
"""

import functools
import re
import string

# RU_NUMBER_WORDS: manualMap_ru of AIJ 2022 VisualQA (seeds 000/001, evaluation/vqa/metric/calc_meteor.py;
# seeds_reference.md 1.5), the same 13 entries as the TextQA and VQA 2021 scripts' (one copy, shared with
# text_qa and vqa_acc); applied to the lemma of the whole answer (one key for the whole string).
from ..resources.russian import NUMBER_WORDS as RU_NUMBER_WORDS
from .dependencies import import_library
from .stemmers import lemma_of

PREPROCESSES = ("fb_captioning", "fb_vqa", "ru", "none")
NUMBER_WORDS = ("wordtodigits", "none")
TOKENIZERS = ("nltk", "razdel")

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
    razdel = import_library("razdel")
    text = punct_detokenize(text.strip())
    if is_hypothesis:
        text = text.replace("@@UNKNOWN@@", "<unk>")
    return " ".join(token.text for token in razdel.tokenize(text)).lower()


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
    return import_library("wordtodigits").convert(text)


# NLTK's word tokenizer leaves a string of plain words unchanged apart from these contractions and a final
# period (split off); anything else goes through NLTKWordTokenizer itself.
_PLAIN = re.compile(r"\s*[^\W_]+(?:\s+[^\W_]+)*(\s*\.)?\s*")
_SPLIT_WORDS = frozenset(("cannot", "gimme", "gonna", "gotta", "lemme", "wanna"))


@functools.lru_cache(maxsize=1)
def _nltk_word_tokenizer():
    return import_library("nltk.tokenize.destructive").NLTKWordTokenizer()


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
    razdel = import_library("razdel")
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
