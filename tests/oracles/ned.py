"""Test oracles: mmeval's and mmocr's 1 - NED, transcribed line by line (never imported by the library; the
packages pull in their frameworks). Both measure with rapidfuzz's ``Levenshtein.normalized_distance``
(distance / max(len), 0 for two empty strings), as the library does through rapidfuzz.

* mmeval (GitHub open-mmlab/mmeval; PyPI mmeval 0.2.1): ``mmeval/metrics/one_minus_norm_edit_distance.py``
  @ 3b2eef3, ``OneMinusNormEditDistance(letter_case="unchanged", valid_symbol="[^A-Z^a-z^0-9^\\u4e00-\\u9fa5]")``:
  ``add`` then ``compute_metric``.
* mmocr 1.x (GitHub open-mmlab/mmocr): ``mmocr/evaluation/metrics/recog_metric.py`` @ 27313b2,
  ``OneMinusNEDMetric(valid_symbol=...)``: ``process`` (always lower-cases) then ``compute_metrics``
  (the figure rounded to 4 decimals).

The default ``valid_symbol`` deletes every character outside A-Z, a-z, 0-9, ``^`` and CJK U+4E00..U+9FA5
(Cyrillic, punctuation and spaces included) before measuring.
"""

import re

from rapidfuzz.distance import Levenshtein

VALID_SYMBOL = "[^A-Z^a-z^0-9^\u4e00-\u9fa5]"


def mmeval_one_minus_ned(predictions, labels, letter_case="unchanged", valid_symbol=VALID_SYMBOL):
    """(per-pair ``norm_ed`` list, ``{"1-N.E.D": ...}``) of ``OneMinusNormEditDistance``."""
    valid = re.compile(valid_symbol)
    results = []
    for pred, label in zip(predictions, labels):  # add()
        if letter_case in ["upper", "lower"]:
            pred = getattr(pred, letter_case)()
            label = getattr(label, letter_case)()
        label = valid.sub("", label)
        pred = valid.sub("", pred)
        norm_ed = Levenshtein.normalized_distance(pred, label)
        results.append(norm_ed)
    gt_word_num = len(results)  # compute_metric()
    norm_ed_sum = sum(results)
    normalized_edit_distance = norm_ed_sum / max(1.0, gt_word_num)
    return results, {"1-N.E.D": 1.0 - normalized_edit_distance}


def mmocr_one_minus_ned(predictions, gts, valid_symbol=VALID_SYMBOL):
    """(per-pair ``norm_ed`` list, ``{"1-N.E.D": ...}``) of ``OneMinusNEDMetric``."""
    valid = re.compile(valid_symbol)
    results = []
    for pred_text, gt_text in zip(predictions, gts):  # process()
        gt_text_lower = gt_text.lower()
        pred_text_lower = pred_text.lower()
        gt_text_lower_ignore = valid.sub("", gt_text_lower)
        pred_text_lower_ignore = valid.sub("", pred_text_lower)
        norm_ed = Levenshtein.normalized_distance(pred_text_lower_ignore, gt_text_lower_ignore)
        results.append(dict(norm_ed=norm_ed))
    gt_word_num = len(results)  # compute_metrics()
    norm_ed = [result["norm_ed"] for result in results]
    norm_ed_sum = sum(norm_ed)
    normalized_edit_distance = norm_ed_sum / max(1, gt_word_num)
    eval_res = {"1-N.E.D": 1.0 - normalized_edit_distance}
    for key, value in eval_res.items():
        eval_res[key] = float(f"{value:.4f}")
    return norm_ed, eval_res


def official_calculate_ned(preds, refs):
    """The AIJ 2022 per-example loop: nltk.edit_distance, no normalisation, an empty side scores 0."""
    from nltk.metrics.distance import edit_distance

    scores = []
    for pred, gts in zip(preds, refs):
        best = 0.0
        for gt in gts:
            if len(gt) == 0 or len(pred) == 0:
                value = 0.0
            else:
                value = 1 - edit_distance(pred, gt) / max(len(gt), len(pred))
            best = max(best, value)
        scores.append(best)
    return scores
