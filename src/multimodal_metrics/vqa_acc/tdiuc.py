"""Pure functions behind the `tdiuc` preset: TDIUC mean-per-type accuracies (no evaluate, no state).

Kafle & Kanan, "An Analysis of Visual Question Answering Algorithms" (ICCV 2017); the official script
ships with the TDIUC dataset. With one GT answer per question and its question type t:

    acc_t       = 100 * #correct_t / #questions_t
    MPT         = mean_t(acc_t + eps)             harmonic MPT = hmean_t(acc_t + eps)
    nacc_t      = 100 * mean over the unique GT answers a of type t of (#correct with GT a / #GT a)
    N-MPT       = mean_t(nacc_t + eps)            harmonic N-MPT = hmean_t(nacc_t + eps)
    overall     = 100 * mean(pred == gt)        (returned as mean(pred == gt), without the 100x)

eps = 1e-10 is added on the 0-100 scale, as in the script (the means are clipped at 1.0, so a perfect
model reports 1.0 rather than 1.000000000001: scores stay fractions in [0, 1]) (a type with 0 accuracy gives a harmonic
mean of about 0 instead of an error); the results are then divided by 100 (fractions). The types are
the types present. The normalised pass starts from an empty list (the Cadene/block.bootstrap copy
forgets to reset it and averages 2 x #types values: not reproduced).

Answers are compared as exact strings, so free-form generated answers work. The script maps answers
to ids through an answer-key CSV; ``answer_key`` reproduces that: a GT answer outside the key gets
id -1 (always wrong; all such GTs of a type form ONE unique answer in N-MPT). A prediction outside the
key, a KeyError in the script, is simply wrong here.
"""

import numpy as np


def tdiuc_scores(
    predictions: list[str],
    references: list[str],
    question_types: list[str],
    epsilon: float = 1e-10,
    answer_key=None,
) -> tuple[dict, np.ndarray, dict, dict]:
    """Returns (summary, per-question correctness, acc per type, normalised acc per type), fractions.

    ``summary`` holds ``accuracy`` (overall), ``arithmetic_mpt``, ``harmonic_mpt``, ``arithmetic_nmpt``,
    ``harmonic_nmpt``. ``references[i]`` is the single GT answer string of question i. Strings become
    ids, then :func:`tdiuc_scores_from_ids` counts.
    """
    answers: dict = {}
    pred_ids = _first_seen_ids(predictions, answers)
    gt_ids = _first_seen_ids(references, answers)
    types: dict = {}
    type_ids = _first_seen_ids(question_types, types)
    return tdiuc_scores_from_ids(pred_ids, gt_ids, list(answers), type_ids, list(types), epsilon, answer_key)


def _first_seen_ids(strings, index: dict) -> np.ndarray:
    """Id of every string in ``index`` (new strings get the next ids, ``index`` is updated)."""
    return np.fromiter((index.setdefault(s, len(index)) for s in strings), dtype=np.int64, count=len(strings))


def type_ranks(type_ids, type_names: list[str]) -> tuple[np.ndarray, list[str]]:
    """(rank of every question's type among the sorted type names present, those sorted names)."""
    type_ids = np.asarray(type_ids, dtype=np.int64)
    present = np.unique(type_ids)
    names = sorted(type_names[i] for i in present.tolist())
    rank = {name: k for k, name in enumerate(names)}
    rank_of_id = np.full(len(type_names), -1, dtype=np.int64)
    for i in present.tolist():
        rank_of_id[i] = rank[type_names[i]]
    return rank_of_id[type_ids], names


def hmean(values: list[float]) -> float:
    """``scipy.stats.hmean`` of positive finite numbers, bit for bit: ``1 / mean(1 / x)`` with numpy's
    mean (what scipy computes once its argument checks pass), without scipy's wrapper (about 0.1 ms
    a call, as much as the rest of a 1,000-question run)."""
    with np.errstate(divide="ignore"):
        return float(1.0 / np.mean(1.0 / np.asarray(values, dtype=np.float64)))


def _in_key(answers: list[str], answer_key) -> np.ndarray:
    """Per distinct answer: it is in ``answer_key`` (every answer when there is no key)."""
    if answer_key is None:
        return np.ones(len(answers), dtype=bool)
    key = set(answer_key)
    return np.fromiter(map(key.__contains__, answers), dtype=bool, count=len(answers))


def tdiuc_correct(pred_ids, gt_ids, answers: list[str], answer_key=None) -> np.ndarray:
    """Per question (ids as :func:`tdiuc_scores_from_ids` takes them): the prediction is the GT answer
    and the GT answer is in the key (bool)."""
    pred_ids = np.asarray(pred_ids, dtype=np.int64)
    gt_ids = np.asarray(gt_ids, dtype=np.int64)
    return _in_key(answers, answer_key)[gt_ids] & (pred_ids == gt_ids)


def tdiuc_scores_from_ids(
    pred_ids,
    gt_ids,
    answers: list[str],
    type_ids,
    type_names: list[str],
    epsilon: float = 1e-10,
    answer_key=None,
) -> tuple[dict, np.ndarray, dict, dict]:
    """:func:`tdiuc_scores` on ids: ``answers[pred_ids[i]]`` / ``answers[gt_ids[i]]`` are the prediction
    and the GT of question i (distinct strings: a prediction is right iff its id is the GT's),
    ``type_names[type_ids[i]]`` its type (distinct names).

    Counts per type and per (type, GT answer) with numpy; the normalised accuracy of a type adds the
    per-answer accuracies in the order of first occurrence of the answer in that type (the script
    iterates a set there: the same sum up to the last bit).
    """
    pred_ids = np.asarray(pred_ids, dtype=np.int64)
    gt_ids = np.asarray(gt_ids, dtype=np.int64)
    n = len(gt_ids)
    known = _in_key(answers, answer_key)[gt_ids]
    correct = known & (pred_ids == gt_ids)
    rank, types = type_ranks(type_ids, type_names)
    n_types = len(types)
    totals = np.bincount(rank, minlength=n_types).tolist()
    hits = np.bincount(rank[correct], minlength=n_types).tolist()
    acc = {t: 100 * (hits[k] / totals[k]) for k, t in enumerate(types)}
    # one answer class per (type, GT answer); every GT outside the key of a type is one class (id -1)
    missing = len(answers)
    pair = rank * (missing + 1) + np.where(known, gt_ids, missing)
    uniq, first, inverse, class_totals = np.unique(
        pair, return_index=True, return_inverse=True, return_counts=True
    )
    class_hits = np.bincount(inverse.reshape(-1), weights=correct, minlength=len(uniq)).astype(np.int64)
    order = np.lexsort((first, uniq // (missing + 1)))
    unq_acc = [0] * n_types
    n_classes = [0] * n_types
    class_type = (uniq // (missing + 1)).tolist()
    class_hits, class_totals = class_hits.tolist(), class_totals.tolist()
    for c in order.tolist():
        t = class_type[c]
        unq_acc[t] += class_hits[c] / class_totals[c]
        n_classes[t] += 1
    nacc = {t: 100 * unq_acc[k] / n_classes[k] for k, t in enumerate(types)}
    mpt = [acc[t] + epsilon for t in types]
    nmpt = [nacc[t] + epsilon for t in types]
    summary = {
        "arithmetic_mpt": float(np.mean(np.array(mpt))) if types else 0.0,
        "harmonic_mpt": hmean(mpt) if types else 0.0,
        "arithmetic_nmpt": float(np.mean(np.array(nmpt))) if types else 0.0,
        "harmonic_nmpt": hmean(nmpt) if types else 0.0,
    }
    summary = {"accuracy": float(np.mean(correct)) if n else 0.0} | {
        k: min(v / 100, 1.0)
        for k, v in summary.items()  # 100 + eps of a perfect model is reported as 1.0
    }
    return (
        summary,
        correct.astype(np.float64),
        {t: v / 100 for t, v in acc.items()},
        {t: v / 100 for t, v in nacc.items()},
    )
