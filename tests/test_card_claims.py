"""Card claims of equality held on generated inputs, each against an oracle that is a line-by-line
transcription of the source it names (in this file or tests/_*oracle*.py) or the peer's own code:

* anls ``layoutlmv2`` = the seed-004 snippet of ``herobd/layoutlmv2:eval_docvqa.py``;
* vqa_acc ``fusion_brain_2021`` = the AIJ 2021 ``evaluation/VQA_accuracy/vqaEval.py``, English and Russian;
* ned ``string_accuracy`` = the AIJ 2021 HTR comparison; ``empty_match`` = mmeval's 1 - NED without its
  symbol filter, and mmocr's / mmeval's defaults only where their filters change nothing (tests/oracles/ned.py);
* text_qa ``textqa`` / ``mathqa`` = the AIJ 2022 scripts (tests/oracles/fb2022_text.py);
* det_f1's default on the AIJ 2021 repository sample (the official F1 the card quotes);
* fid_clip's Frechet distance = pytorch-fid's formula on full-rank features;
* every card's "the library's ``score`` returns the dict ``compute`` returns".
"""

import random
import re

import pytest
from helpers import reference_levenshtein
from test_anls_star import _cases as anls_cases
from test_vqa_acc_harnesses import _cases as vqa_cases

from multimodal_metrics.anls import scoring as anls
from multimodal_metrics.vqa_acc import core as vqa_core
from multimodal_metrics.vqa_acc import scoring as vqa


def _layoutlmv2_snippet(pred: str, answers: list[str]) -> float:
    """editdistance on lower-cased strings, / max(len(ans), len(pred)), kept only when NL < 0.5."""
    best = 0.0
    for ans in answers:
        nl = reference_levenshtein(ans.lower(), pred.lower()) / max(len(ans), len(pred))  # two "" raise there
        best = max(best, 1 - nl if nl < 0.5 else 0.0)
    return best


def test_layoutlmv2_preset_equals_the_snippet_on_5000_generated_questions():
    cases = [
        (p, r) for p, r in anls_cases(5000, seed=7) if not (p == "" and "" in r)
    ]  # the snippet raises there
    got = anls.score(
        [p for p, _ in cases], [r for _, r in cases], preset="layoutlmv2", return_per_example=True
    )
    assert got.per_example == [_layoutlmv2_snippet(p, r) for p, r in cases]


_PERIOD = re.compile(r"(?!<=\d)(\.)(?!\d)")  # Python 3: Unicode \d
_COMMA = re.compile(r"(\d)(\,)(\d)")
_MANUAL_MAP = dict(vqa_core.MANUAL_MAP)  # a copy: the script's setdefault grows it


def _aij2021_punctuation(pred: str) -> str:
    """AIJ 2021 vqaEval.py processPunctuation (both languages): whitespace, punctuation, periods."""
    pred = pred.replace("\n", " ").replace("\t", " ").strip()
    out = pred
    for p in vqa_core.PUNCT:
        if (p + " " in pred or " " + p in pred) or (re.search(_COMMA, pred) is not None):
            out = out.replace(p, "")
        else:
            out = out.replace(p, " ")
    return _PERIOD.sub("", out, re.UNICODE)


def _aij2021_en(pred: str, gts: list[str]) -> float:
    """AIJ 2021 vqaEval.py, English: only the prediction is normalised, then `in` the GT list."""
    out = _aij2021_punctuation(pred)
    words = [_MANUAL_MAP.setdefault(w, w) for w in out.lower().split()]
    words = [vqa_core.CONTRACTIONS.get(w, w) for w in words if w not in vqa_core.ARTICLES]
    return 1.0 if " ".join(words) in gts else 0.0


def test_fusion_brain_2021_english_equals_the_aij_scoring_on_4000_generated_questions():
    preds, refs = vqa_cases(4000, seed=21, size=0)
    rng = random.Random(21)
    # the AIJ GT is used as given: add the normalised prediction as a GT now and then, so that hits occur
    refs = [
        r + [vqa_core.normalize_answer(p, ascii_digits=False)] if rng.random() < 0.3 else r
        for p, r in zip(preds, refs)
    ]
    got = vqa.score(preds, refs, preset="fusion_brain_2021", return_per_example=True)
    expected = [_aij2021_en(p, r) for p, r in zip(preds, refs)]
    assert got.per_example == expected
    assert 0.1 < sum(expected) / len(expected) < 0.9


# AIJ 2021 vqaEval.py, Russian branch (ai-forever/fusion_brain_aij2021:evaluation/VQA_accuracy/vqaEval.py @ 262c069,
# processDigitArticle, lang == 'ru'): every lower-cased token -> morph.parse(word)[0].normal_form -> manualMap_ru,
# no article removal, no contractions. The script's pymorphy2 no longer imports on Python >= 3.11; pymorphy3 (its
# maintained fork, the library's lemmatiser too) runs here with the same call.
_MANUAL_MAP_RU = {"ноль": "0", "нисколько": "0", "никакой": "0", "один": "1", "два": "2", "три": "3", "четыре": "4",
                  "пять": "5", "шесть": "6", "семь": "7", "восемь": "8", "девять": "9", "десять": "10"}  # fmt: skip
_RU_WORDS = (
    "два двух двум двумя две трёх трех три тремя четыре четырьмя пять пятью шести семь восьми девятью десять десяти "
    "один одна одного одной одну ноль нуля нолём никакой никакого никакие нисколько "
    "кошка кошки кошек кошку Кошки собака собаки собак мяч мячи мячей мячом стол столе столы дерево деревья деревьев "
    "красный красная красного красные синий синие синего тёмно-синий темно-синий зелёный зеленые большой большая "
    "летают летает сидит сидят стоит да нет возможно ДА Нет ёж ежи человек люди людей ребёнок дети "
    "на в под у около справа слева сверху и или не"
).split()
_RU_PIECES = [*_RU_WORDS, "dog", "Two", "the", "3", "10", "3,5", "1.5", "2.", "٣", "٣,٣", "١.٥", "٣.", ",", ".", "!", "?", "-", "(", ")", '"',
              "«", "»", "…", "'", ":", ";", "/", "\n", "\t", "  "]  # fmt: skip


def _aij2021_ru_normal_form(pred: str, morph) -> str:
    out = _aij2021_punctuation(pred)
    words = []
    for word in out.lower().split():
        lemma = morph.parse(word)[0].normal_form
        words.append(_MANUAL_MAP_RU.setdefault(lemma, lemma))
    return " ".join(words)


def _aij2021_ru(pred: str, gts: list[str], morph) -> float:
    """AIJ 2021 vqaEval.py, Russian: only the prediction is normalised, then `in` the GT list."""
    return 1.0 if _aij2021_ru_normal_form(pred, morph) in gts else 0.0


def _ru_answer(rng: random.Random) -> str:
    return "".join(rng.choice(_RU_PIECES) + rng.choice(["", " ", " ", ","]) for _ in range(rng.randint(0, 4)))


def test_fusion_brain_2021_russian_equals_the_aij_scoring_on_4000_generated_questions():
    """Russian (and, mixed in, English) answers: inflected number words, ё/е, capitals, hyphens, Latin words,
    Unicode digits, the VQA punctuation and periods, tabs and newlines, empty answers."""
    import pymorphy3

    morph = pymorphy3.MorphAnalyzer(lang="ru")
    rng = random.Random(2021)
    preds, refs, langs = [], [], []
    for _ in range(4000):
        pred, lang = _ru_answer(rng), rng.choice(["ru", "ru", "ru", "en"])
        gts = [_ru_answer(rng) for _ in range(rng.randint(0, 2))]
        if rng.random() < 0.4:  # the AIJ GT is used as given: the prediction's normal form now and then
            gts.append(_aij2021_ru_normal_form(pred, morph) if lang == "ru" else pred.lower())
        if rng.random() < 0.2:  # a near miss: the normal form of the prediction without its last character
            gts.append(_aij2021_ru_normal_form(pred[:-1], morph))
        preds.append(pred)
        refs.append(gts or [""])
        langs.append(lang)
    got = vqa.score(preds, refs, preset="fusion_brain_2021", languages=langs, return_per_example=True)
    expected = [
        _aij2021_ru(p, r, morph) if lang == "ru" else _aij2021_en(p, r)
        for p, r, lang in zip(preds, refs, langs)
    ]
    assert got.per_example == expected
    ru = [e for e, lang in zip(expected, langs) if lang == "ru"]
    assert 0.1 < sum(ru) / len(ru) < 0.9  # hits and misses in Russian
    assert got["accuracy_language/ru"] == sum(ru) / len(ru)


def test_ned_string_accuracy_equals_the_aij2021_htr_comparison_on_3000_generated_lines():
    from test_ned_jiwer import _lines

    from multimodal_metrics.ned import scoring as ned

    refs, hyps = _lines(3000, seed=24)
    got = ned.score(hyps, refs, return_per_example=True)
    assert [e["string_accuracy"] for e in got.per_example] == [float(h == r) for h, r in zip(hyps, refs)]


def test_bleu1_lowercase_gives_the_same_numbers_on_the_lower_case_vectors():
    preds, refs = (
        ["dog", "cat", "a dog", "dog", "dog"],
        [["dog"], ["dog"], ["dog"], ["black dog"], ["dog", "black dog"]],
    )
    plain = vqa.score(preds, refs, preset="bleu1", return_per_example=True)
    lower = vqa.score(preds, refs, preset="bleu1", lowercase=True, return_per_example=True)
    assert lower.per_example == plain.per_example and lower["bleu1_corpus"] == plain["bleu1_corpus"]


def test_vqa_v2_differs_from_python2_only_through_the_unicode_tables():
    import os

    import pytest
    from oracles import vqa_py2 as measure

    if not os.path.exists(measure.PYTHON2):
        pytest.skip(f"needs Python 2.7 at {measure.PYTHON2}")
    assert measure.count_differences(measure.PYTHON2, [], n=1000) == 0  # bit for bit without those letters
    assert measure.count_differences(measure.PYTHON2, ["\u180e"], n=1000) > 0  # U+180E: whitespace in 5.2
    assert measure.count_differences(measure.PYTHON2, ["Ꭰ", "ꭰ"], n=1000) > 0  # case pair of Unicode 8.0


def _text_pairs(n: int, seed: int, alphabet: list[str]) -> tuple[list[str], list[str]]:
    """(references, predictions): a reference of 0-6 pieces and a prediction 0-3 edits away from it (so
    that empty pairs, near misses and exact matches all occur)."""
    rng = random.Random(seed)
    refs, preds = [], []
    for _ in range(n):
        ref = [rng.choice(alphabet) for _ in range(rng.choice([0, 0, *range(1, 7)]))]
        pred = list(ref)
        for _ in range(rng.randint(0, 3)):
            k = rng.randint(0, len(pred))
            if rng.random() < 0.4:
                pred.insert(k, rng.choice(alphabet))
            elif pred:
                pred[min(k, len(pred) - 1)] = rng.choice(alphabet) if rng.random() < 0.5 else ""
        refs.append("".join(ref))
        preds.append("".join(pred))
    return refs, preds


_ANY = [*"abcXYZ019^ -.,!?'", "ab", "Хор", "хор", "ё", "Ё", "一", "丁", "龥", "Ａ", "\u3000", "é", "\t"]
_KEPT_BY_MMOCR = [*"abcxyz0189^", "ab", "一", "丁", "龥"]  # lower-case: what mmocr's filters leave unchanged


def test_ned_empty_match_equals_mmeval_without_its_symbol_filter_on_3000_generated_pairs():
    """empty_match = AIJ 2022 with two empty strings scoring 1: per pair, bit for bit, mmeval's
    OneMinusNormEditDistance with letter_case="unchanged" and a valid_symbol that deletes nothing; the
    default preset differs exactly on the pairs of two empty strings."""
    from oracles.ned import mmeval_one_minus_ned

    from multimodal_metrics.ned import scoring as ned

    refs, preds = _text_pairs(3000, seed=2201, alphabet=_ANY)
    norm_ed, corpus = mmeval_one_minus_ned(preds, refs, valid_symbol=r"(?!)")
    got = ned.score(preds, refs, preset="empty_match", return_per_example=True)
    assert [e["one_minus_ned"] for e in got.per_example] == [1.0 - x for x in norm_ed]
    assert abs(got["one_minus_ned"] - corpus["1-N.E.D"]) < 1e-12  # the same mean, summed in another order
    default = ned.score(preds, refs, return_per_example=True).per_example
    differ = [i for i, (a, b) in enumerate(zip(default, got.per_example)) if a != b]
    assert differ == [i for i, (p, r) in enumerate(zip(preds, refs)) if p == r == ""] and len(differ) > 100


def test_ned_empty_match_equals_mmeval_and_mmocr_defaults_only_where_their_filters_change_nothing():
    """With their default filters (mmocr also lower-cases; both delete every character outside A-Z a-z 0-9 ^
    and CJK U+4E00..U+9FA5) mmeval and mmocr equal empty_match on strings those filters leave unchanged, and
    differ from it on Cyrillic, punctuation, spaces, capitals (mmocr), full-width forms."""
    from oracles.ned import mmeval_one_minus_ned, mmocr_one_minus_ned

    from multimodal_metrics.ned import scoring as ned

    refs, preds = _text_pairs(3000, seed=2202, alphabet=_KEPT_BY_MMOCR)
    got = ned.score(preds, refs, preset="empty_match", return_per_example=True)
    mine = [e["one_minus_ned"] for e in got.per_example]
    for oracle in (mmeval_one_minus_ned, mmocr_one_minus_ned):
        norm_ed, corpus = oracle(preds, refs)
        assert mine == [1.0 - x for x in norm_ed]
    assert abs(got["one_minus_ned"] - mmeval_one_minus_ned(preds, refs)[1]["1-N.E.D"]) < 1e-12
    assert float(f"{got['one_minus_ned']:.4f}") == mmocr_one_minus_ned(preds, refs)[1]["1-N.E.D"]
    refs, preds = _text_pairs(3000, seed=2203, alphabet=_ANY)
    mine = [
        e["one_minus_ned"]
        for e in ned.score(preds, refs, preset="empty_match", return_per_example=True).per_example
    ]
    for oracle in (mmeval_one_minus_ned, mmocr_one_minus_ned):
        differ = sum(a != 1.0 - x for a, x in zip(mine, oracle(preds, refs)[0]))
        assert differ > 300, (oracle.__name__, differ)


# ------------------------------------------------------------------------------------------------
# text_qa: both presets = the AIJ 2022 scripts (tests/oracles/fb2022_text.py), bit for bit per question
# ------------------------------------------------------------------------------------------------
_QA_WORDS = (
    "кот кота коты котов Кошки кошка три трёх Три один одна одного ноль нисколько никакой десять десяти пять "
    "улица улицы Авиаконструктора Сухого жёлтый желтого ЖЁЛТЫЙ ответ вариант на в и лошади лошадь человек "
    "a b c d e A B E x y cat dog -3 3 03 0,3 0.3 2.5 25 d) b. «да» да — … “нет” -- ё"
).split()


def _qa_answer(rng: random.Random) -> str:
    words = [rng.choice(_QA_WORDS) for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 4, 5]))]
    text = rng.choice([" ", " ", "  ", ", ", "! "]).join(words)
    return text + rng.choice(["", "", "", ".", "?", " ", "!"])


def _qa_questions(n: int, seed: int):
    rng = random.Random(seed)
    preds, golds = [], []
    for _ in range(n):
        answers = [_qa_answer(rng) for _ in range(rng.randint(1, 3))]
        pred = _qa_answer(rng)
        if rng.random() < 0.4:  # the prediction shares words with an answer, or is a multiple-choice letter
            base = rng.choice(answers).split()
            pred = " ".join(base[: rng.randint(0, len(base))] + pred.split()[:2])
        if rng.random() < 0.1:
            answers.append(rng.choice("abcde"))
        preds.append(pred)
        golds.append(answers)
    return preds, golds


@pytest.mark.parametrize("preset, mathqa", [("textqa", False), ("mathqa", True)])
def test_text_qa_presets_equal_the_aij2022_scripts_on_3000_generated_questions(preset, mathqa):
    """TextQA's token F1 and MathQA's exact match, letter fallback included: per question bit for bit the
    official calculate_f1.py / calculate_exact_score.py; the task score is their sum / n to 1e-15."""
    import pymorphy3
    from oracles.fb2022_text import FusionBrain2022Text

    from multimodal_metrics import text_qa

    preds, golds = _qa_questions(3000, seed=2022 + mathqa)
    oracle = FusionBrain2022Text(pymorphy3.MorphAnalyzer(lang="ru"), mathqa=mathqa)
    got = text_qa.score(preds, golds, preset=preset, return_per_example=True)
    expected = [oracle.question(g, p) for p, g in zip(preds, golds)]
    assert got.per_example == expected
    assert abs(got["exact_match" if mathqa else "f1"] - oracle.task(golds, preds)) < 1e-15
    assert (
        set(expected) == {0, 1} if mathqa else len(set(expected)) > 20
    )  # hits and misses; partial F1 credit
    fallback = [i for i, (p, g) in enumerate(zip(preds, golds)) if 0 < expected[i] and re.search("[abcde]", p)
                and oracle.question(g, "") != expected[i]]  # fmt: skip
    assert fallback  # the letter fallback decided some questions


# ------------------------------------------------------------------------------------------------
# det_f1: the repository's sample files of AIJ 2021 zsOD (evaluation/zsOD_F1/{true,prediction}_zsOD.json
# @ 41667aa), whose official F1 the card quotes
# ------------------------------------------------------------------------------------------------
_ZSOD_TRUE = {
    "9.jpg": {"it's raining hard": [[582, 706, 851, 194], [53, 92, 670, 827]],
              "a blue t-shirt in a red basket": [[742, 659, 739, 98]], "plush ostrich on the shelf": [[772, 62, 892, 479]],
              "two green eyes": [], "it's killing moon": []},
    "22.jpg": {"a blue t-shirt in a red basket": [[371, 909, 867, 739]], "it's killing moon": [[168, 385, 750, 635]],
               "it's raining hard": [[724, 174, 997, 138]], "plush ostrich on the shelf": [], "two green eyes": []},
    "28.jpg": {"plush ostrich on the shelf": [[311, 656, 497, 775]], "it's raining hard": [[113, 332, 353, 556]],
               "it's killing moon": [[552, 433, 646, 598]], "a blue t-shirt in a red basket": [], "two green eyes": []},
    "36.jpg": {"plush ostrich on the shelf": [[36, 500, 516, 983]], "it's raining hard": [[566, 753, 387, 297]],
               "it's killing moon": [[183, 526, 118, 527]], "a blue t-shirt in a red basket": [], "two green eyes": []},
    "37.jpg": {"two green eyes": [[422, 2, 806, 777]], "it's killing moon": [[446, 94, 789, 453]],
               "it's raining hard": [[807, 532, 186, 440]], "a blue t-shirt in a red basket": [],
               "plush ostrich on the shelf": []},
}  # fmt: skip
_ZSOD_PRED = {
    "9.jpg": {"it's raining hard": [[878, 795, 386, 458]], "plush ostrich on the shelf": [[627, 944, 277, 788]],
              "it's killing moon": [[82, 21, 298, 646]], "a blue t-shirt in a red basket": [], "two green eyes": []},
    "22.jpg": {"it's killing moon": [[408, 285, 245, 808]], "a blue t-shirt in a red basket": [[625, 737, 751, 337]],
               "it's raining hard": [[122, 154, 5, 649]], "plush ostrich on the shelf": [], "two green eyes": []},
    "28.jpg": {"it's raining hard": [[989, 494, 787, 583]], "a blue t-shirt in a red basket": [[255, 730, 297, 667]],
               "plush ostrich on the shelf": [[328, 827, 593, 597]], "two green eyes": [], "it's killing moon": []},
    "36.jpg": {"it's raining hard": [[1, 686, 265, 41]], "plush ostrich on the shelf": [[448, 128, 707, 604]],
               "two green eyes": [[256, 253, 303, 369]], "a blue t-shirt in a red basket": [], "it's killing moon": []},
    "37.jpg": {"plush ostrich on the shelf": [[65, 434, 155, 844]], "it's killing moon": [[496, 320, 727, 740]],
               "it's raining hard": [[51, 362, 440, 301]], "a blue t-shirt in a red basket": [], "two green eyes": []},
}  # fmt: skip


def test_det_f1_default_gives_the_official_f1_of_the_repository_sample():

    from oracles import det_f1 as oracle  # the transcription of the official loop

    from multimodal_metrics import det_f1

    preds, refs, _ = det_f1.from_fusion_brain(_ZSOD_TRUE, _ZSOD_PRED)
    got = det_f1.score(preds, refs)
    counts = oracle.reference_counts(_ZSOD_TRUE, _ZSOD_PRED)
    assert (got["tp"], got["fp"], got["fn"]) == counts
    assert got["f1"] == oracle.reference_f1(*counts) == 0.09523809523809522


# ------------------------------------------------------------------------------------------------
# fid_clip: the Frechet distance = pytorch-fid's formula (scipy.linalg.sqrtm) on full-rank features
# ------------------------------------------------------------------------------------------------
def test_frechet_distance_equals_pytorch_fids_formula_on_200_generated_full_rank_sets():
    """Features with more samples than dimensions on both sides (d 4 to 64, Inception-like, shifted by 0 to
    1): within 1e-13 relative of pytorch-fid's calculate_frechet_distance (measured: at most 4.3e-15 on 300
    such sets up to d = 128). Rank-deficient features: tests/test_fid_clip_conditioning.py."""
    import warnings

    import numpy as np
    from oracles import fid as oracle  # pytorch_fid_distance: pytorch-fid 0.3.0's formula

    from multimodal_metrics.fid_clip import core as fid_core
    from multimodal_metrics.fid_clip import moments

    rng = random.Random(8)
    worst = 0.0
    for k in range(200):
        d = rng.choice([4, 8, 16, 32, 64])
        n1, n2 = rng.randint(d + 2, 4 * d + 10), rng.randint(d + 2, 4 * d + 10)
        a = oracle.features(n1, d, 2 * k)
        b = oracle.features(n2, d, 2 * k + 1, shift=rng.choice([0.0, 0.01, 0.05, 0.3, 1.0]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            ours = fid_core.frechet_distance(
                moments.FrechetStats.from_features(a), moments.FrechetStats.from_features(b)
            )
        theirs = oracle.pytorch_fid_distance(
            a.mean(0), np.cov(a, rowvar=False), b.mean(0), np.cov(b, rowvar=False)
        )
        worst = max(worst, abs(ours - theirs) / abs(theirs))
    assert worst < 1e-13, worst


# ------------------------------------------------------------------------------------------------
# every card: "the library's score returns the dict compute returns", on generated inputs
# ------------------------------------------------------------------------------------------------
def _generated_inputs(name: str) -> tuple[dict, dict]:
    """(inputs, options) of a few hundred generated examples for ``name``."""

    if name == "codebleu":
        from oracles import codebleu_pypi as cb

        from multimodal_metrics.codebleu import KEYWORDS

        preds, refs = cb.mutated_pairs("java", 200, 5, KEYWORDS["java"])
        return {"predictions": preds, "references": refs}, {"lang": "java"}
    if name == "det_f1":
        from oracles import det_f1 as det_f1_oracle

        from multimodal_metrics.det_f1 import from_fusion_brain

        preds, refs, _ = from_fusion_brain(*det_f1_oracle.generate(300, seed=6))
        return {"predictions": preds, "references": refs}, {}
    if name == "text_qa":
        preds, golds = _qa_questions(400, seed=7)
        return {"predictions": preds, "references": golds}, {}
    if name == "ru_meteor":
        from oracles import ru_meteor as oracle

        preds, refs = oracle.make_captions(300, oracle.RU_WORDS, seed=8, refs_per=3)
        return {"predictions": preds, "references": refs}, {"synonyms": "none"}
    if name == "fid_clip":
        from oracles import fid as oracle

        return {
            "predictions": oracle.features(300, 16, 9),
            "references": oracle.features(250, 16, 10, 0.1),
        }, {}
    if name == "ned":
        refs, preds = _text_pairs(500, seed=11, alphabet=_ANY)
        return {"predictions": preds, "references": refs}, {}
    preds, refs = vqa_cases(500, seed=12)
    return {"predictions": preds, "references": refs}, {}


@pytest.mark.parametrize("name", ["codebleu", "det_f1", "text_qa", "ru_meteor", "fid_clip", "ned", "vqa_acc"])
def test_library_score_returns_the_dict_compute_returns_on_generated_inputs(name):
    import importlib
    import warnings

    import numpy as np
    from helpers import load_metric

    inputs, options = _generated_inputs(name)
    per_example = {} if name == "fid_clip" else {"return_per_example": True}
    library = importlib.import_module(f"multimodal_metrics.{name}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # codebleu: unparsable mutations; fid_clip: few samples
        got = library.score(inputs["predictions"], inputs["references"], **options, **per_example)
        want = load_metric(name).compute(**inputs, **options, **per_example)
    assert dict(got) == want
    assert isinstance(got[next(iter(got))], float) and not np.isnan(got[next(iter(got))])


# ------------------------------------------------------------------------------------------------
# fid_clip: the presets' FID from image files = pytorch-fid's pipeline (and the contest's extra resize)
# ------------------------------------------------------------------------------------------------
def _pytorch_fid_features(net, paths, contest_resize: bool):
    """pytorch-fid 0.3.0 fid_score.py: ImagePathDataset (``Image.open(path).convert("RGB")``, then
    ``TF.ToTensor()``) -> InceptionV3 (resize_input, normalize_input) -> pool3, one image per batch (its
    DataLoader stacks same-size images only); the AIJ 2022 evaluate_fid_clip.py adds a PIL bilinear
    256 x 256 resize before ToTensor."""
    import numpy as np
    import torch
    from PIL import Image

    out = []
    with torch.inference_mode():
        for path in paths:
            img = Image.open(path).convert("RGB")
            if contest_resize:
                img = img.resize((256, 256), Image.BILINEAR)
            x = torch.from_numpy(np.asarray(img).transpose(2, 0, 1).copy()).float() / 255  # = TF.ToTensor()
            out.append(net(x[None])[0].double().numpy())
    return np.stack(out)


_FORMATS_OF_MODE = {"RGB": ["png", "jpg", "bmp", "webp", "tiff"], "L": ["png", "jpg", "bmp", "webp", "tiff"],
                    "P": ["png", "bmp", "tiff"], "RGBA": ["png", "webp", "tiff"], "LA": ["png"], "CMYK": ["jpg", "tiff"]}  # fmt: skip


def test_fid_presets_equal_pytorch_fids_pipeline_on_generated_image_files(tmp_path):
    """24 generated and 20 real image files of random sizes (8 to 89 px), modes (RGB, RGBA, L, LA, P, CMYK) and formats
    (PNG, JPEG, BMP, WebP, TIFF) through a small random-weight FIDInceptionV3: ``default`` equals pytorch-fid's
    pipeline, ``fusion_brain_2022`` the contest's (to 1e-4 relative: float32 network, other batches)."""
    import warnings

    import numpy as np
    from _fid_clip_fixtures import tiny_inception, tiny_inception_weights
    from oracles import fid as oracle
    from PIL import Image

    from multimodal_metrics import fid_clip
    from multimodal_metrics.fid_clip import inception

    rng = np.random.default_rng(22)
    files = {"gen": [], "real": []}
    for side, n in (("gen", 24), ("real", 20)):
        for i in range(n):
            w, h = int(rng.integers(8, 90)), int(rng.integers(8, 90))
            base = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
            base[: h // 2] //= 2 if side == "gen" else 1  # the two sides differ in distribution
            img = Image.fromarray(base).convert(str(rng.choice(["RGB", "RGBA", "L", "LA", "P", "CMYK"])))
            ext = str(rng.choice(_FORMATS_OF_MODE[img.mode]))
            path = tmp_path / f"{side}_{i}.{ext}"
            img.save(path)
            files[side].append(str(path))
    weights = str(tiny_inception_weights(inception, tmp_path))
    net = tiny_inception(inception)
    for preset, contest in (("default", False), ("fusion_brain_2022", True)):
        gen = _pytorch_fid_features(net, files["gen"], contest)
        real = _pytorch_fid_features(net, files["real"], contest)
        expected = oracle.pytorch_fid_distance(gen.mean(0), np.cov(gen, rowvar=False), real.mean(0),
                                              np.cov(real, rowvar=False))  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # fewer images than the 256 feature dimensions
            got = fid_clip.score(files["gen"], files["real"], preset=preset, inception_weights=weights,
                                 batch_size=7, progress=False)  # fmt: skip
        assert abs(got["fid"] - expected) <= 1e-4 * expected, (preset, got["fid"], expected)


# ----------------------------------------------------------------------------------------------
# "N bytes per example" of every card's state paragraph = len(state.to_bytes()) per example added
# ----------------------------------------------------------------------------------------------
_BYTES_CLAIM = re.compile(r"(\d+) bytes (?:per (?:question|example|pair|image)|of counts)")


def _bytes_per_example(make_state) -> int:
    """The bytes one more example adds to a state's ``to_bytes``: (size at 1,010 - size at 10) // 1,000
    (the header's counts gain a few digits, less than one byte per example)."""
    small, large = (len(make_state(n).to_bytes()) for n in (10, 1010))
    return (large - small) // 1000


def _engine_state(metric: str, **overrides):
    from engine_cases import case

    def make(n):
        c = case(metric, n)
        inputs = c.take(range(n))
        if "preset" in overrides:  # a preset that reduces by no text column: its inputs are the pairs
            inputs = {k: inputs[k] for k in ("predictions", "references")}
        return c.module.state(**{**c.options, **overrides}).update(**inputs, index=list(range(n)))

    return make


def _measured_bytes(metric: str) -> list[int]:
    """What the card's claims (in their order) measure: one figure per example (or per side of fid_clip)."""
    if metric == "vqa_acc":  # "16 bytes per question plus the text or 32 bytes of counts"
        score_only = _bytes_per_example(_engine_state(metric, preset="wups"))
        return [score_only, _bytes_per_example(_engine_state(metric, preset="bleu1")) - score_only]
    if metric == "fid_clip":  # per side (generated, reference) of each paired example, the moments aside
        return [_bytes_per_example(_engine_state(metric, keep_features=False)) // 2]
    return [_bytes_per_example(_engine_state(metric))]


def _stateful():
    from engine_cases import stateful_metrics

    return stateful_metrics()


@pytest.mark.parametrize("metric", _stateful())
def test_card_bytes_per_example_of_a_state_are_measured(metric):
    from pathlib import Path

    card = (Path(__file__).parents[1] / "metrics" / metric / "README.md").read_text(encoding="utf-8")
    claimed = [int(n) for n in _BYTES_CLAIM.findall(card)]
    assert claimed, f"metrics/{metric}/README.md states no bytes per example of its state"
    assert claimed == _measured_bytes(metric), f"metrics/{metric}/README.md: {claimed} bytes claimed"
    if metric == "anls":  # the README's figure
        readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
        assert f"about {claimed[0]} bytes per example for ANLS" in " ".join(readme.split())
