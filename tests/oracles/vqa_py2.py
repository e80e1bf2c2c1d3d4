"""vqa_acc ``vqa_v2`` against the official script's per-question loop run under Python 2.7.

    .venv/bin/python tests/oracles/vqa_py2.py [PYTHON2]   # default /root/.pyenv/versions/2.7.18/bin/python

Generates 4,034 questions (10 answers each, from the adversarial pieces of tests/test_vqa_acc_harnesses.py)
without, then with, each family of characters whose Unicode tables changed after Python 2's Unicode 5.2
(case pairs added later: Cherokee, Georgian Mtavruli, Latin Ꞵ; U+180E, whitespace in 5.2; İ, whose
lower case is one character in Python 2, two in Python 3), runs the transcription of vqaEval.py @ a013f00
below under Python 2 and ``vqa_v2_per_question`` here, and prints how many questions differ.
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/, run as a script
import test_vqa_acc_harnesses as harness  # noqa: E402

from multimodal_metrics.vqa_acc import core  # noqa: E402

OFFICIAL_PY2 = r"""# -*- coding: utf-8 -*-
import json, re, sys
t = json.load(open(sys.argv[1]))
contractions, manualMap, articles, punct = t["contractions"], t["manual"], t["articles"], t["punct"]
periodStrip = re.compile("(?!<=\d)(\.)(?!\d)")
commaStrip = re.compile("(\d)(\,)(\d)")
def processPunctuation(inText):
    outText = inText
    for p in punct:
        if (p + ' ' in inText or ' ' + p in inText) or (re.search(commaStrip, inText) != None):
            outText = outText.replace(p, '')
        else:
            outText = outText.replace(p, ' ')
    return periodStrip.sub("", outText, re.UNICODE)
def processDigitArticle(inText):
    outText = []
    for word in inText.lower().split():
        word = manualMap.setdefault(word, word)
        if word not in articles:
            outText.append(word)
    for wordId, word in enumerate(outText):
        if word in contractions:
            outText[wordId] = contractions[word]
    return ' '.join(outText)
out = []
for pred, refs in t["cases"]:
    answers = [{"answer": a.replace('\n', ' ').replace('\t', ' ').strip(), "answer_id": k + 1} for k, a in enumerate(refs)]
    resAns = pred.replace('\n', ' ').replace('\t', ' ').strip()
    if len(set([a["answer"] for a in answers])) > 1:
        for a in answers:
            a["answer"] = processDigitArticle(processPunctuation(a["answer"]))
        resAns = processDigitArticle(processPunctuation(resAns))
    gtAcc = []
    for d in answers:
        other = [item for item in answers if item != d]
        gtAcc.append(min(1, float(len([i for i in other if i["answer"] == resAns])) / 3))
    out.append(repr(float(sum(gtAcc)) / len(gtAcc)))
json.dump(out, sys.stdout)
"""
FAMILIES = {"none": [], "Cherokee Ꭰ/ꭰ": ["Ꭰ", "ꭰ"], "Georgian Ა/ა": ["Ა", "ა"], "Latin Ꞵ/ꞵ": ["Ꞵ", "ꞵ"],
            "U+180E": ["\u180e"], "İ/i": ["İ", "i"]}  # fmt: skip


PYTHON2 = "/root/.pyenv/versions/2.7.18/bin/python"


def count_differences(python2: str, chars: list[str], n: int = 4034) -> int:
    """Questions (of ``n`` generated with ``chars`` added to the pieces) where ``vqa_v2`` and the official
    loop under ``python2`` differ."""
    special = [c for family in FAMILIES.values() for c in family]
    base = [p for p in harness.PIECES if not any(c in p for c in special)]
    saved = list(harness.PIECES)
    try:
        harness.PIECES[:] = base + chars
        preds, refs = harness._cases(n, seed=2, size=10)
    finally:
        harness.PIECES[:] = saved
    with tempfile.TemporaryDirectory() as tmp:
        script, data = Path(tmp) / "official_py2.py", Path(tmp) / "cases.json"
        script.write_text(OFFICIAL_PY2)
        tables = {"contractions": core.CONTRACTIONS, "manual": core.MANUAL_MAP, "articles": list(core.ARTICLES),
                  "punct": list(core.PUNCT), "cases": list(zip(preds, refs))}  # fmt: skip
        data.write_text(json.dumps(tables))
        out = subprocess.run([python2, str(script), str(data)], capture_output=True, text=True, check=True)
    theirs = [float(x) for x in json.loads(out.stdout)]
    ours = core.vqa_v2_per_question(preds, refs).tolist()
    return sum(a != b for a, b in zip(ours, theirs))


def main(python2: str) -> None:
    for name, chars in FAMILIES.items():
        print(f"{name}: {count_differences(python2, chars)} of 4034 questions differ")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else PYTHON2)
