"""Test oracle: the AIJ 2022 FusionBrain TextQA and MathQA scoring, transcribed line by line (never imported
by the library) from ai-forever/fbc2_aij2022 @ ec99261:

* ``evaluation/textqa/metric/calculate_f1.py``: ``get_lemma``, ``normalize_answer``, ``get_tokens``,
  ``compute_f1`` and the per-question body of ``get_f1`` (max over the gold answers, then the letter
  fallback when the score is <= 0.5);
* ``evaluation/mathqa/metric/calculate_exact_score.py``: the same with ``exclude.discard('-')`` and
  ``compute_exact``.

The scripts' ``pymorphy2.MorphAnalyzer()`` does not import on Python >= 3.11: the analyzer is passed in
(pymorphy3's, the maintained fork, with the same ``parse(word)[0].normal_form`` call).
"""

import collections
import functools
import re
import string

MANUAL_MAP_RU = {"ноль": "0", "нисколько": "0", "никакой": "0", "один": "1", "два": "2", "три": "3",
                 "четыре": "4", "пять": "5", "шесть": "6", "семь": "7", "восемь": "8", "девять": "9",
                 "десять": "10"}  # fmt: skip


class FusionBrain2022Text:
    def __init__(self, morph, mathqa: bool):
        self.morph, self.mathqa = morph, mathqa
        self.manual_map_ru = dict(MANUAL_MAP_RU)

    def get_lemma(self, word):
        word_parsed = self.morph.parse(word)[0]
        lemma = word_parsed.normal_form
        lemma = self.manual_map_ru.setdefault(lemma, lemma)
        return lemma

    def normalize_answer(self, s):
        def white_space_fix(text):
            return " ".join(text.split())

        def normalize(text):
            return " ".join(self.get_lemma(word) for word in text.split())

        def remove_punc(text):
            exclude = set(string.punctuation)
            if self.mathqa:
                exclude.discard("-")
            return "".join(ch for ch in text if ch not in exclude)

        def lower(text):
            return text.lower()

        return white_space_fix(normalize(remove_punc(lower(s))))

    def get_tokens(self, s):
        if not s:
            return []
        return self.normalize_answer(s).split()

    def compute_f1(self, a_gold, a_pred):
        gold_toks = self.get_tokens(a_gold)
        pred_toks = self.get_tokens(a_pred)
        common = collections.Counter(gold_toks) & collections.Counter(pred_toks)
        num_same = sum(common.values())
        if len(gold_toks) == 0 or len(pred_toks) == 0:
            return int(gold_toks == pred_toks)
        if num_same == 0:
            return 0
        precision = 1.0 * num_same / len(pred_toks)
        recall = 1.0 * num_same / len(gold_toks)
        f1 = (2 * precision * recall) / (precision + recall)
        return f1

    def compute_exact(self, a_gold, a_pred):
        return int(self.normalize_answer(a_gold) == self.normalize_answer(a_pred))

    def question(self, gold_answers, prediction):
        """The body of get_f1 / get_exact for one key."""
        compute = self.compute_exact if self.mathqa else self.compute_f1
        score = max(compute(a, prediction) for a in gold_answers)
        if score <= 0.5:
            label = re.search("[abcde]", prediction)
            if label is not None:
                prediction = prediction[label.span()[0]]
                score = max(compute(a, prediction) for a in gold_answers)
        return score

    def task(self, golds, preds):
        """get_f1 / get_exact over aligned lists: sum of the per-question scores / number of questions."""
        scores = {str(k): self.question(g, p) for k, (g, p) in enumerate(zip(golds, preds))}
        return sum(scores.values()) / len(golds)


@functools.cache
def _morph():
    import pymorphy3

    return pymorphy3.MorphAnalyzer(lang="ru")


def official_scores(predictions, references, exact: bool) -> list[float]:
    """The per-question scores of ``calculate_f1.py`` (``exact``: ``calculate_exact_score.py``) on aligned
    lists, with pymorphy3's analyzer (one per process, built on the first call)."""
    oracle = FusionBrain2022Text(_morph(), mathqa=exact)
    return [oracle.question(golds, pred) for pred, golds in zip(predictions, references)]
