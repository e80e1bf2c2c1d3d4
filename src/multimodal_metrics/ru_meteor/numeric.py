"""ru_meteor's numeric branch (``numeric="fusion_brain"``, the Fusion Brain 2022 VisualQA scorer).

When a reference has exactly one token and ``token.isnumeric()`` (``numeric_applies``), the score of
the pair is not METEOR but

    min(x, y) / max(x, y)     (1 when both are 0)

between the reference number y and the FIRST hypothesis token x that is a number, 0 when there is none.
The official code (``evaluation/vqa/metric/calc_meteor.py``) asks NLTK's perceptron POS tagger for ``CD``
tokens that ``float()`` parses; the tagger's model cannot be had offline, so "is a number" here is
``-?\\d+(\\.\\d+)?`` (the tagger tags such tokens CD). Edge cases follow the official ``try``: a
reference that ``float()`` cannot parse (e.g. ``"½"``, numeric but not a float) skips every token
(score 0); a token whose division is by zero (0 against a negative number) is skipped. The branch
has no alignment statistics, so a corpus score cannot include it.
"""

import re

NUMERICS = ("fusion_brain", "none")

_NUMBER = re.compile(r"-?\d+(\.\d+)?")


def is_number(token: str) -> bool:
    """The stand-in for "the perceptron tagger says CD and float() parses it"."""
    return _NUMBER.fullmatch(token) is not None


def numeric_score(hyp_tokens: list[str], ref_number: str) -> tuple[float, int]:
    """(score, hypothesis position used or -1) of the official numeric branch."""
    y = float(ref_number) if _float_ok(ref_number) else None
    for i, token in enumerate(hyp_tokens):
        if not is_number(token) or y is None:
            continue  # a float(reference) failure inside the official try skips every token
        x = float(token)
        if x == 0 and y == 0:
            return 1.0, i
        low, high = (y, x) if x > y else (x, y)
        if high == 0:
            continue  # ZeroDivisionError inside the official try: next token
        return low / high, i
    return 0.0, -1


def _float_ok(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def numeric_applies(ref_tokens: list[str]) -> bool:
    """Whether the numeric branch scores a pair: the reference is one token and ``isnumeric()``."""
    return len(ref_tokens) == 1 and ref_tokens[0].isnumeric()
