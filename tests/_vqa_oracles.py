"""Test oracles: the VQA answer scoring of lmms-eval and VLMEvalKit, transcribed line by line (never imported
by the library; the harnesses are too large to install in a test venv).

* lmms-eval 0.7.3 (PyPI wheel ``lmms_eval-0.7.3-py3-none-any.whl``):
  ``lmms_eval/tasks/vqav2/utils.py::vqav2_process_results`` and
  ``lmms_eval/tasks/_task_utils/vqa_eval_metric.py::EvalAIAnswerProcessor`` (``process_punctuation``,
  ``process_digit_article``; the tables are the official VQA tables, taken here from the library's copy of
  them, which the official-script tests hold).
* VLMEvalKit (GitHub open-compass/VLMEvalKit): ``vlmeval/dataset/utils/vqa_eval.py`` @ 0a04a1d
  (``process_answer``, ``_process_digit_article``, ``process_line(method='vqa_score')``, ``hit_calculate``:
  ``np.mean`` of the matches) and ``vlmeval/smp/misc.py`` @ 4e85dcd (``process_punctuation``).

Both run under Python 3 (``\\d`` is any Unicode digit) and normalise every question.
"""

import re
import statistics

import numpy as np

from multimodal_metrics.vqa_acc.core import ARTICLES, CONTRACTIONS, MANUAL_MAP, PUNCT

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
