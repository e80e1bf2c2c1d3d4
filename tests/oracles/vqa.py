"""Test oracles for vqa_acc, transcribed line by line (never imported by the library), and the generated
answers they are run on.

* VQA v2 (GitHub GT-Vision-Lab/VQA ``PythonEvaluationTools/vqaEvaluation/vqaEval.py`` @ a013f00):
  ``OfficialVQAEval`` (``evaluate``, ``processPunctuation``, ``processDigitArticle``; Python 2 ``re``);
  ``official_scores`` runs it on aligned lists, with the ``normalize`` variants of the library.
* lmms-eval 0.7.3 (PyPI wheel ``lmms_eval-0.7.3-py3-none-any.whl``):
  ``lmms_eval/tasks/vqav2/utils.py::vqav2_process_results`` and
  ``lmms_eval/tasks/_task_utils/vqa_eval_metric.py::EvalAIAnswerProcessor`` (``process_punctuation``,
  ``process_digit_article``; the tables are the official VQA tables, taken here from the library's copy of
  them, which the official-script tests hold).
* VLMEvalKit (GitHub open-compass/VLMEvalKit): ``vlmeval/dataset/utils/vqa_eval.py`` @ 0a04a1d
  (``process_answer``, ``_process_digit_article``, ``process_line(method='vqa_score')``, ``hit_calculate``:
  ``np.mean`` of the matches) and ``vlmeval/smp/misc.py`` @ 4e85dcd (``process_punctuation``).
  Both run under Python 3 (``\\d`` is any Unicode digit) and normalise every question.
* WUPS (Malinowski's ``calculate_wups.py``): ``MalinowskiWUPS``.
* TDIUC (Kafle's evaluation script): ``kafle_tdiuc``.
* ``VQA_V2``: the seed vectors of the official VQA v2 accuracy (10 GT answers, prediction, per-question score).
"""

import re
import statistics

import numpy as np

from multimodal_metrics.vqa_acc import core
from multimodal_metrics.vqa_acc.core import ARTICLES, CONTRACTIONS, MANUAL_MAP, PUNCT

# the official VQA v2 accuracy (GT-Vision-Lab, Python 2.7): (10 GT answers, prediction, per-question score)
VQA_V2 = {
    "A1": (["two"] * 3 + ["2"] * 3 + ["three"] * 4, "2", 1.0),
    "A2": (["red"] * 2 + ["blue"] * 3 + ["green"] * 4 + ["yellow"], "red", 0.6),
    "A3": (["red"] + ["blue"] * 9, "red", 0.3),
    "A4": (["2"] * 10, "two", 0.0),
    "A5": (["2"] * 9 + ["3"], "two", 1.0),
    "A6": (["dog"] * 5 + ["a dog"] * 5, "A dog.", 1.0),
    "A7": (["100978"] * 5 + ["100,978"] * 5, "100,978", 1.0),
    "A8": (["2.5"] * 5 + ["2.50"] * 5, "2.5", 1.0),
}

# ------------------------------------------------------------------------------------------------
# lmms-eval 0.7.3
# ------------------------------------------------------------------------------------------------


class LmmsEvalAIAnswerProcessor:
    """``EvalAIAnswerProcessor`` (the parts vqav2_process_results calls)."""

    CONTRACTIONS = dict(CONTRACTIONS)
    NUMBER_MAP = dict(MANUAL_MAP)
    ARTICLES = list(ARTICLES)
    PERIOD_STRIP = re.compile(r"(?!<=\d)(\.)(?!\d)")
    COMMA_STRIP = re.compile(r"(?<=\d)(\,)+(?=\d)")
    PUNCTUATIONS = list(PUNCT)

    def process_punctuation(self, in_text):
        out_text = in_text
        for p in self.PUNCTUATIONS:
            if (p + " " in in_text or " " + p in in_text) or (
                re.search(self.COMMA_STRIP, in_text) is not None
            ):
                out_text = out_text.replace(p, "")
            else:
                out_text = out_text.replace(p, " ")
        out_text = self.PERIOD_STRIP.sub("", out_text, re.UNICODE)
        return out_text

    def process_digit_article(self, in_text):
        out_text = []
        temp_text = in_text.lower().split()
        for word in temp_text:
            word = self.NUMBER_MAP.setdefault(word, word)
            if word not in self.ARTICLES:
                out_text.append(word)
        for word_id, word in enumerate(out_text):
            if word in self.CONTRACTIONS:
                out_text[word_id] = self.CONTRACTIONS[word]
        return " ".join(out_text)


def lmms_eval_vqav2(prediction: str, answers: list[str]) -> float:
    """``vqav2_process_results(doc, [prediction])["exact_match"]``; ``doc["answers"]`` are the dataset's
    answer dicts, which carry an ``answer_id`` (so ``item != gtAnsDatum`` excludes by position)."""
    eval_ai_processor = LmmsEvalAIAnswerProcessor()
    doc = {"answers": [{"answer": a, "answer_id": k + 1} for k, a in enumerate(answers)]}
    resAns = prediction  # noqa: N806 (the source's names)
    for ansDic in doc["answers"]:  # noqa: N806
        ansDic["answer"] = ansDic["answer"].replace("\n", " ")
        ansDic["answer"] = ansDic["answer"].replace("\t", " ")
        ansDic["answer"] = ansDic["answer"].strip()
    resAns = resAns.replace("\n", " ")  # noqa: N806
    resAns = resAns.replace("\t", " ")  # noqa: N806
    resAns = resAns.strip()  # noqa: N806
    gtAcc = []  # noqa: N806
    for ansDic in doc["answers"]:  # noqa: N806
        ansDic["answer"] = eval_ai_processor.process_punctuation(ansDic["answer"])
        ansDic["answer"] = eval_ai_processor.process_digit_article(ansDic["answer"])
    resAns = eval_ai_processor.process_punctuation(resAns)  # noqa: N806
    resAns = eval_ai_processor.process_digit_article(resAns)  # noqa: N806
    for gtAnsDatum in doc["answers"]:  # noqa: N806
        otherGTAns = [item for item in doc["answers"] if item != gtAnsDatum]  # noqa: N806
        matchingAns = [item for item in otherGTAns if item["answer"] == resAns]  # noqa: N806
        acc = min(1, float(len(matchingAns)) / 3)
        gtAcc.append(acc)
    return statistics.mean(gtAcc)


# ------------------------------------------------------------------------------------------------
# VLMEvalKit
# ------------------------------------------------------------------------------------------------


def vlmevalkit_process_punctuation(inText):  # noqa: N803
    outText = inText  # noqa: N806
    punct = list(PUNCT)
    commaStrip = re.compile(r"(\d)(,)(\d)")  # noqa: N806
    periodStrip = re.compile(r"(?<!\d)\.(?!\d)")  # noqa: N806
    for p in punct:
        if (p + " " in inText or " " + p in inText) or (re.search(commaStrip, inText) is not None):
            outText = outText.replace(p, "")  # noqa: N806
        else:
            outText = outText.replace(p, " ")  # noqa: N806
    outText = periodStrip.sub("", outText, re.UNICODE)  # noqa: N806
    return outText


def vlmevalkit_process_digit_article(inText):  # noqa: N803
    outText = []  # noqa: N806
    tempText = inText.lower().split()  # noqa: N806
    articles = ["a", "an", "the"]
    manualMap = dict(MANUAL_MAP)  # noqa: N806
    for word in tempText:
        word = manualMap.setdefault(word, word)
        if word not in articles:
            outText.append(word)
    for wordId, word in enumerate(outText):  # noqa: N806
        if word in CONTRACTIONS:
            outText[wordId] = CONTRACTIONS[word]
    return " ".join(outText)


def vlmevalkit_process_answer(answer):
    answer = answer.replace("\n", " ")
    answer = answer.replace("\t", " ")
    answer = answer.strip()
    answer = vlmevalkit_process_punctuation(answer)
    answer = vlmevalkit_process_digit_article(answer)
    return answer


def vlmevalkit_vqa_score(prediction: str, answers: list[str]) -> float:
    """``hit_calculate([process_line({"answer": answers, "prediction": prediction})], "TextVQA")[0]``."""
    gt = [vlmevalkit_process_answer(x) for x in answers]
    pred = vlmevalkit_process_answer(prediction)
    match = []
    for current_idx, _ in enumerate(gt):
        otherGTAns = [item for ret_gt_idx, item in enumerate(gt) if ret_gt_idx != current_idx]  # noqa: N806
        matchingAns = [item for item in otherGTAns if item == pred]  # noqa: N806
        acc = min(1, float(len(matchingAns)) / 3)
        match.append(acc)
    return float(np.mean(match))


# ------------------------------------------------------------------------------------------------
# VQA v2, the official script
# ------------------------------------------------------------------------------------------------
class OfficialVQAEval:
    """Transcription of the reference's normalisation and per-question loop (tables from
    multimodal_metrics.vqa_acc.core, which copies them verbatim). Python 2 `re` without the UNICODE flag:
    `\\d` is ASCII (re.ASCII)."""

    def __init__(self):
        self.contractions = dict(core.CONTRACTIONS)
        self.manualMap = dict(core.MANUAL_MAP)
        self.articles = list(core.ARTICLES)
        self.periodStrip = re.compile(r"(?!<=\d)(\.)(?!\d)", re.ASCII)
        self.commaStrip = re.compile(r"(\d)(\,)(\d)", re.ASCII)
        self.punct = list(core.PUNCT)

    def processPunctuation(self, inText):
        outText = inText
        for p in self.punct:
            if (p + " " in inText or " " + p in inText) or (re.search(self.commaStrip, inText) is not None):
                outText = outText.replace(p, "")
            else:
                outText = outText.replace(p, " ")
        outText = self.periodStrip.sub("", outText, 32)  # re.UNICODE (== 32) lands in `count`
        return outText

    def processDigitArticle(self, inText):
        outText = []
        tempText = inText.lower().split()
        for word in tempText:
            word = self.manualMap.setdefault(word, word)
            if word not in self.articles:
                outText.append(word)
        for wordId, word in enumerate(outText):
            if word in self.contractions:
                outText[wordId] = self.contractions[word]
        outText = " ".join(outText)
        return outText

    def evaluate(self, gts, res, quesIds, normalize="official"):
        """gts[qid] = {"answers": [{"answer", "answer_id"}]}, res[qid] = {"answer"}; returns acc per qid.
        ``normalize``: "official" (the script: only where the annotators disagree), or the library's
        variants "always" / "never" (the one line marked below)."""
        accQA = []
        for quesId in quesIds:
            for ansDic in gts[quesId]["answers"]:
                ansDic["answer"] = ansDic["answer"].replace("\n", " ")
                ansDic["answer"] = ansDic["answer"].replace("\t", " ")
                ansDic["answer"] = ansDic["answer"].strip()
            resAns = res[quesId]["answer"]
            resAns = resAns.replace("\n", " ")
            resAns = resAns.replace("\t", " ")
            resAns = resAns.strip()
            gtAcc = []
            gtAnswers = [ans["answer"] for ans in gts[quesId]["answers"]]
            if (normalize == "official" and len(set(gtAnswers)) > 1) or normalize == "always":  # variants
                for ansDic in gts[quesId]["answers"]:
                    ansDic["answer"] = self.processPunctuation(ansDic["answer"])
                    ansDic["answer"] = self.processDigitArticle(ansDic["answer"])
                resAns = self.processPunctuation(resAns)
                resAns = self.processDigitArticle(resAns)
            for gtAnsDatum in gts[quesId]["answers"]:
                otherGTAns = [item for item in gts[quesId]["answers"] if item != gtAnsDatum]
                matchingAns = [item for item in otherGTAns if item["answer"] == resAns]
                acc = min(1, float(len(matchingAns)) / 3)
                gtAcc.append(acc)
            avgGTAcc = float(sum(gtAcc)) / len(gtAcc)
            accQA.append(avgGTAcc)
        return accQA


def official_scores(predictions, references, normalize: str = "official") -> list[float]:
    """Run the transcription on aligned lists (builds the answer dicts the official API would)."""
    gts = {
        qid: {"answers": [{"answer": a, "answer_id": k + 1} for k, a in enumerate(refs)]}
        for qid, refs in enumerate(references)
    }
    res = {qid: {"answer": p} for qid, p in enumerate(predictions)}
    return OfficialVQAEval().evaluate(gts, res, list(range(len(predictions))), normalize)


# ------------------------------------------------------------------------------------------------
# generated inputs, WUPS, TDIUC
# ------------------------------------------------------------------------------------------------
VOCAB = [
    "yes", "Yes", "yes!", "no", "No.", "2", "two", "Two", "3", "three", "10", "ten", "red", "Red",
    "dark red", "dark-red", "a dog", "dog", "the dog", "dogs", "tennis", "playing tennis", "frisbee",
    "white", "black and white", "black, white", "100,978", "100978", "2.5", "2.50", "3.14", "dont",
    "don't", "U.S.A.", "usa", "none", "0", "kitchen", "living room", "left", "right", "blue", "green",
    "  yes ", "yes\n", "e-mail", "email", "skateboarding", "skateboard", "cat", "1:30", "50%",
]  # fmt: skip


def make_inputs(n: int, seed: int = 0, n_answers: int = 10):
    """Realistic VQA-like answers: a third unanimous, the rest 2-4 variants of a few vocabulary items."""
    rng = np.random.default_rng(seed)
    predictions, references = [], []
    for _ in range(n):
        if rng.random() < 1 / 3:
            refs = [VOCAB[rng.integers(len(VOCAB))]] * n_answers
        else:
            pool = [VOCAB[k] for k in rng.integers(len(VOCAB), size=int(rng.integers(2, 5)))]
            refs = [pool[k] for k in rng.integers(len(pool), size=n_answers)]
        pred = refs[rng.integers(n_answers)] if rng.random() < 0.6 else VOCAB[rng.integers(len(VOCAB))]
        predictions.append(pred)
        references.append(refs)
    return predictions, references


class MalinowskiWUPS:
    """Transcription of Malinowski's calculate_wups.py (05.09.2015 revision; seeds_reference.md 3.3):
    `items2list`, `fuzzy_set_membership_measure`, `score_it`, `wup_measure` with its nested
    `get_semantic_field` / `get_stem_word` and no caching; `wn` is a WordNet reader of its own."""

    def __init__(self, wn, thresh: float):
        self.wn = wn
        self.thresh = thresh

    @staticmethod
    def items2list(x):
        return [l.strip() for l in x.split(",")]  # noqa: E741 (the script's name)

    @staticmethod
    def fuzzy_set_membership_measure(x, A, m):
        return 0 if A == [] else max(map(lambda a: m(x, a), A))

    def score_it(self, A, T, m):
        if A == [] and T == []:
            return 1
        score_left = (
            0 if A == [] else np.prod(list(map(lambda a: self.fuzzy_set_membership_measure(a, T, m), A)))
        )
        score_right = (
            0 if T == [] else np.prod(list(map(lambda t: self.fuzzy_set_membership_measure(t, A, m), T)))
        )
        return min(score_left, score_right)

    def wup_measure(self, a, b, similarity_threshold=0.925):
        wn = self.wn

        def get_semantic_field(a):
            weight = 1.0
            semantic_field = wn.synsets(a, pos=wn.NOUN)
            return (semantic_field, weight)

        def get_stem_word(a):
            weight = 1.0
            return (a, weight)

        global_weight = 1.0
        (a, global_weight_a) = get_stem_word(a)
        (b, global_weight_b) = get_stem_word(b)
        global_weight = min(global_weight_a, global_weight_b)
        if a == b:
            return 1.0 * global_weight
        if a == [] or b == []:
            return 0
        interp_a, weight_a = get_semantic_field(a)
        interp_b, weight_b = get_semantic_field(b)
        if interp_a == [] or interp_b == []:
            return 0
        global_max = 0.0
        for x in interp_a:
            for y in interp_b:
                local_score = x.wup_similarity(y)
                if local_score > global_max:
                    global_max = local_score
        interp_weight = 0.1 if global_max < similarity_threshold else 1.0
        return global_max * weight_a * weight_b * interp_weight * global_weight

    def scores(self, gt_list, pred_list):
        thresh = self.thresh
        if thresh == -1:
            measure = lambda x, y: float(x == y)  # noqa: E731 (the script's dirac_measure)
        else:
            measure = lambda x, y: self.wup_measure(x, y, thresh)  # noqa: E731
        return [
            self.score_it(self.items2list(ta), self.items2list(pa), measure)
            for (ta, pa) in zip(gt_list, pred_list)
        ]


WUPS_WORDS = [
    "dog", "dogs", "Dog", "cat", "puppy", "animal", "horse", "cow", "sheep", "bird", "giraffe", "elephant",
    "zebra", "bear", "car", "bus", "truck", "train", "bicycle", "motorcycle", "airplane", "boat", "table",
    "chair", "sofa", "couch", "bed", "desk", "lamp", "television", "laptop", "computer", "phone", "book",
    "clock", "vase", "bottle", "cup", "glass", "plate", "bowl", "fork", "knife", "spoon", "pizza", "banana",
    "apple", "orange", "sandwich", "cake", "broccoli", "carrot", "kitchen", "bathroom", "bedroom", "room",
    "window", "door", "wall", "floor", "tree", "grass", "sky", "water", "beach", "snow", "man", "woman",
    "person", "child", "boy", "girl", "people", "red", "blue", "white", "black", "green", "yellow", "two",
    "three", "tennis", "baseball", "frisbee", "kite", "umbrella", "bag", "hat", "shirt", "shoe", "tie",
    "toilet", "sink", "refrigerator", "oven", "microwave", "living room", "traffic light", "xyzzy", "",
]  # fmt: skip


def make_wups_inputs(n: int, seed: int = 0):
    """WUPS-style pairs with repeated words: one GT and one prediction per question, a fifth of them
    comma-separated sets of 2-3 items, half the predictions equal to the GT or one of its items."""
    rng = np.random.default_rng(seed)

    def answer():
        k = 1 if rng.random() < 0.8 else int(rng.integers(2, 4))
        return ", ".join(WUPS_WORDS[j] for j in rng.integers(len(WUPS_WORDS), size=k))

    gts, preds = [], []
    for _ in range(n):
        gt = answer()
        pred = gt if rng.random() < 0.3 else (gt.split(",")[0] if rng.random() < 0.3 else answer())
        gts.append(gt)
        preds.append(pred)
    return preds, gts


def kafle_tdiuc(pred_answers, gt_answers, gt_types, ans_to_aid):
    """Transcription of Kafle's TDIUC evaluation (seeds_reference.md 3.2; the loop as in the
    block.bootstrap copy, with the normalised pass's list reset): answers become ids through the
    answer key, a GT outside it is id -1, per-type lists, then the accuracies on the 0-100 scale."""
    pred_aids, gt_aids, res_by_type = [], [], {}
    for pred, gt, tp in zip(pred_answers, gt_answers, gt_types):
        pred_aid = ans_to_aid[pred]
        pred_aids.append(pred_aid)
        res_by_type.setdefault(tp + "_pred", []).append(pred_aid)
        gt_aid = ans_to_aid.get(gt, -1)
        gt_aids.append(gt_aid)
        res_by_type.setdefault(tp + "_gt", []).append(gt_aid)
        res_by_type.setdefault(tp + ("_t" if gt_aid == pred_aid and gt_aid != -1 else "_f"), []).append(
            pred_aid
        )
    accuracy = float(100 * np.mean(np.array(pred_aids) == np.array(gt_aids)))
    from scipy import stats

    types = list(set(gt_types))
    eps = 1e-10
    sum_acc = []
    for tp in types:
        t, f = res_by_type.get(tp + "_t", []), res_by_type.get(tp + "_f", [])
        sum_acc.append(100 * (len(t) / len(t + f)) + eps)
    out = {"accuracy": accuracy, "arithmetic_mpt": float(np.mean(np.array(sum_acc))),
           "harmonic_mpt": float(stats.hmean(sum_acc))}  # fmt: skip
    sum_acc = []
    for tp in types:
        per_ans_stat: dict = {}
        for g, p in zip(res_by_type[tp + "_gt"], res_by_type[tp + "_pred"]):
            per_ans_stat[str(g) + "_gt"] = per_ans_stat.get(str(g) + "_gt", 0) + 1
            if g == p:
                per_ans_stat[str(g)] = per_ans_stat.get(str(g), 0) + 1
        unq_acc = 0
        for unq_ans in set(res_by_type[tp + "_gt"]):
            unq_acc += per_ans_stat.get(str(unq_ans), 0) / per_ans_stat[str(unq_ans) + "_gt"]
        sum_acc.append(100 * unq_acc / len(set(res_by_type[tp + "_gt"])) + eps)
    out["arithmetic_nmpt"] = float(np.mean(np.array(sum_acc)))
    out["harmonic_nmpt"] = float(stats.hmean(sum_acc))
    return out
