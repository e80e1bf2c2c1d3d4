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

_MISSING = object()  # id -1 of the script


def tdiuc_scores(
    predictions: list[str],
    references: list[str],
    question_types: list[str],
    epsilon: float = 1e-10,
    answer_key=None,
) -> tuple[dict, np.ndarray, dict, dict]:
    """Returns (summary, per-question correctness, acc per type, normalised acc per type), fractions.

    ``summary`` holds ``accuracy`` (overall), ``arithmetic_mpt``, ``harmonic_mpt``, ``arithmetic_nmpt``,
    ``harmonic_nmpt``. ``references[i]`` is the single GT answer string of question i.
    """
    from scipy import stats

    key = None if answer_key is None else set(answer_key)
    gts = [g if key is None or g in key else _MISSING for g in references]
    correct = np.fromiter((g is not _MISSING and p == g for p, g in zip(predictions, gts)), dtype=bool,
                          count=len(predictions))  # fmt: skip
    types = sorted(set(question_types))
    by_type: dict = {t: [] for t in types}
    for i, t in enumerate(question_types):
        by_type[t].append(i)
    acc, nacc = {}, {}
    for t in types:
        rows = by_type[t]
        acc[t] = 100 * (int(correct[rows].sum()) / len(rows))
        per_answer: dict = {}
        for i in rows:
            hits_total = per_answer.setdefault(gts[i], [0, 0])
            hits_total[0] += int(correct[i])
            hits_total[1] += 1
        unq_acc = 0
        for hits, total in per_answer.values():
            unq_acc += hits / total
        nacc[t] = 100 * unq_acc / len(per_answer)
    mpt = [acc[t] + epsilon for t in types]
    nmpt = [nacc[t] + epsilon for t in types]
    summary = {
        "arithmetic_mpt": float(np.mean(np.array(mpt))) if types else 0.0,
        "harmonic_mpt": float(stats.hmean(mpt)) if types else 0.0,
        "arithmetic_nmpt": float(np.mean(np.array(nmpt))) if types else 0.0,
        "harmonic_nmpt": float(stats.hmean(nmpt)) if types else 0.0,
    }
    summary = {"accuracy": float(np.mean(correct)) if len(correct) else 0.0} | {
        k: min(v / 100, 1.0) for k, v in summary.items()  # 100 + eps of a perfect model is reported as 1.0
    }
    return (
        summary,
        correct.astype(np.float64),
        {t: v / 100 for t, v in acc.items()},
        {t: v / 100 for t, v in nacc.items()},
    )
