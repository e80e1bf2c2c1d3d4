"""Benchmark: vqa_acc's vqa_v2 scoring vs a faithful transcription of the official per-question loop.

    python scripts/bench_vqa_acc.py            # 200,000 questions x 10 answers
    python scripts/bench_vqa_acc.py --quick    # 5,000 questions
    python scripts/bench_vqa_acc.py --n 50000 --seed 1

Times, on the same generated answers in the same run: (1) `OfficialVQAEval`, a line-by-line Python 3 port
of GT-Vision-Lab vqaEval.py @ a013f00 (its `evaluate` loop, `processPunctuation`, `processDigitArticle`,
answer dicts compared whole, Python 2 `re` semantics); (2) our pure `vqa_v2_per_question`; (3)
`evaluate.load("metrics/vqa_acc").compute(...)` (adds input checks and Arrow storage). Asserts that the
per-question scores are identical (==, not approximately) and prints the times and the ratios.
"""

import argparse
import re
import sys
import time

import numpy as np
from _bench import ROOT, load_core, offline_env

METRIC = ROOT / "metrics" / "vqa_acc"




core = load_core("vqa_acc", "_vqa_core")


class OfficialVQAEval:
    """Transcription of the reference's normalisation and per-question loop (tables from _vqa_core,
    which copies them verbatim). Python 2 `re` without the UNICODE flag: `\\d` is ASCII (re.ASCII)."""

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

    def evaluate(self, gts, res, quesIds):
        """gts[qid] = {"answers": [{"answer", "answer_id"}]}, res[qid] = {"answer"}; returns acc per qid."""
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
            if len(set(gtAnswers)) > 1:
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


def official_scores(predictions, references) -> list[float]:
    """Run the transcription on aligned lists (builds the answer dicts the official API would)."""
    gts = {
        qid: {"answers": [{"answer": a, "answer_id": k + 1} for k, a in enumerate(refs)]}
        for qid, refs in enumerate(references)
    }
    res = {qid: {"answer": p} for qid, p in enumerate(predictions)}
    return OfficialVQAEval().evaluate(gts, res, list(range(len(predictions))))


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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="5,000 questions")
    parser.add_argument("--n", type=int, default=None, help="number of questions (default 200,000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-evaluate", action="store_true", help="do not time evaluate.load(...).compute")
    args = parser.parse_args(argv)
    n = args.n or (5_000 if args.quick else 200_000)
    predictions, references = make_inputs(n, args.seed)
    print(f"vqa_v2 on {n:,} questions x 10 answers (seed {args.seed})")

    t0 = time.perf_counter()
    ref = official_scores(predictions, references)
    t_ref = time.perf_counter() - t0

    t0 = time.perf_counter()
    ours = core.vqa_v2_per_question(predictions, references)
    t_ours = time.perf_counter() - t0
    assert ours.tolist() == ref, "per-question scores differ from the official transcription"

    print(f"  official loop (transcription) : {t_ref:8.3f} s")
    print(f"  vqa_v2_per_question (ours)    : {t_ours:8.3f} s   speed-up x{t_ref / t_ours:.1f}")
    if not args.skip_evaluate:
        offline_env()
        import evaluate

        metric = evaluate.load(str(METRIC))
        t0 = time.perf_counter()
        result = metric.compute(predictions=predictions, references=references, return_per_example=True)
        t_eval = time.perf_counter() - t0
        assert result["per_example"] == ref, "evaluate.compute per-question scores differ"
        print(f"  evaluate.load(...).compute     : {t_eval:8.3f} s   speed-up x{t_ref / t_eval:.1f}")
    print(f"  identical per-question scores: yes (accuracy {float(np.mean(ref)):.6f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
