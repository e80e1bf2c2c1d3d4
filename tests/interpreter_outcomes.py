"""The library's outcomes on the interpreter that runs this file, for tests/test_other_pythons.py:

    <python> tests/interpreter_outcomes.py CASES.json [--compensated-sum] > OUTCOMES.json

CASES.json holds a list of ``{"metric": name, "call": ..., "kwargs": {...}}``: ``call`` ``"score"`` or
``"compare"`` is that function of ``multimodal_metrics.<metric>`` (the preset in ``config_name``), another
(``"core.anls"``, ``"integral.combine_2021"``) the function of that module of ``multimodal_metrics.<metric>``
called with ``kwargs``. The output is one outcome per case, in order: :func:`golden.library_outcome`'s
``{"result": ...}`` or ``{"error": "Type: message"}`` (floats as JSON numbers, which read back exactly), or
``{"missing": "..."}`` where the metric needs a module this interpreter lacks (an extra that does not install
there). Needs only the library's src/ on ``PYTHONPATH`` and its dependencies: no pytest, no evaluate.

``--compensated-sum`` replaces the built-in ``sum`` by CPython 3.12's compensated (Neumaier) sum of floats
(:func:`compensated_sum`) before anything runs, so a float ``sum()`` anywhere on a path shows on any
interpreter.
"""

import builtins
import importlib
import json
import math
import sys

import golden

_builtin_sum = builtins.sum


def compensated_sum(iterable, /, start=0):
    """``sum()`` as CPython 3.12 and 3.13 add floats (Python/bltinmodule.c, builtin_sum_impl): leading ints
    added as ints, then the floats by Neumaier's compensated sum (an improved Kahan-Babuska), ints among
    them added plainly, the compensation added last when finite; a start and items that are not all plain
    ints and floats, or hold no float, as the built-in ``sum``."""
    items = list(iterable)
    numbers = [start, *items]
    if not all(type(x) in (int, float) for x in numbers) or not any(type(x) is float for x in numbers):
        return _builtin_sum(items, start)
    total, k = start, 0
    if type(total) is int:
        while type(items[k]) is int:
            total, k = total + items[k], k + 1
        total, k = total + items[k], k + 1
    compensation = 0.0
    for x in items[k:]:
        if type(x) is int:
            total += float(x)
            continue
        t = total + x
        if abs(total) >= abs(x):
            compensation += (total - t) + x
        else:
            compensation += (x - t) + total
        total = t
    if compensation and math.isfinite(compensation):
        total += compensation
    return total


def outcome(case: dict) -> dict:
    try:
        if case["call"] in ("score", "compare"):
            return golden.library_outcome(case["metric"], case["kwargs"], case["call"])
        module, function = case["call"].rsplit(".", 1)
        module = importlib.import_module(f"multimodal_metrics.{case['metric']}.{module}")
        try:
            return {"result": golden._plain(getattr(module, function)(**case["kwargs"]))}
        except (ValueError, TypeError) as err:
            return golden._error(err)
    except ImportError as err:
        return {"missing": f"{type(err).__name__}: {err}"}


def main(args: list[str]) -> int:
    if "--compensated-sum" in args:
        builtins.sum = compensated_sum
    with open(args[0], encoding="utf-8") as f:
        cases = json.load(f)
    json.dump([outcome(case) for case in cases], sys.stdout, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
