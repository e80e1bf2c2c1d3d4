"""Russian resources shared by text_qa, vqa_acc and ru_meteor: the number-word map and pymorphy3 lemmas.

* ``NUMBER_WORDS``: ``manualMap_ru`` of the Fusion Brain scripts (AIJ 2022 TextQA
  ``evaluation/textqa/metric/calculate_f1.py``, AIJ 2022 VisualQA ``evaluation/vqa/metric/calc_meteor.py``,
  AIJ 2021 VQA ``evaluation/VQA_accuracy/vqaEval.py``; seeds_reference.md 1.1, 1.5, 2.4): the same 13
  entries in all three, applied to a lemma (each metric says to which: every token, or the whole answer).
* ``first_lemma(analyzer, word)``: ``normal_form`` of pymorphy3's most probable parse, with the
  unnamed-letter workaround (:func:`mark_unnamed_letters`).

Each metric keeps its own analyzer getter (its own install message); pymorphy3 is imported only
when a Russian word is lemmatised.
"""

NUMBER_WORDS = {
    "ноль": "0", "нисколько": "0", "никакой": "0", "один": "1", "два": "2", "три": "3", "четыре": "4",
    "пять": "5", "шесть": "6", "семь": "7", "восемь": "8", "девять": "9", "десять": "10",
}  # fmt: skip


def mark_unnamed_letters(word: str) -> None:
    """pymorphy3's Latin-shape test calls ``unicodedata.name(ch)`` on every letter, which raises
    ``ValueError('no such name')`` for the letters Python's Unicode database leaves unnamed (Tangut
    ideographs U+17000..U+187F7 and U+18D00..U+18D08 on Python 3.11). They are not Latin letters:
    record that answer in pymorphy3's own per-letter cache, so the parse goes on exactly as for any
    other non-Latin letter (a ValueError-free run of the official code would give the same)."""
    import unicodedata

    from pymorphy3 import shapes

    for ch in set(word):
        if ch.isalpha() and unicodedata.name(ch, None) is None:
            shapes._latin_letters_cache[ch] = False


def first_lemma(analyzer, word: str) -> str:
    """``normal_form`` of ``analyzer``'s most probable parse of ``word`` (letters without a Unicode name
    are marked first when the parse trips on them: :func:`mark_unnamed_letters`)."""
    try:
        return analyzer.parse(word)[0].normal_form
    except ValueError:  # "no such name": a letter without a Unicode name
        mark_unnamed_letters(word)
        return analyzer.parse(word)[0].normal_form
