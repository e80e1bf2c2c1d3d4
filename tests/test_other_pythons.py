"""One signature, one number: every metric gives the same bits on CPython 3.11, 3.12 and 3.13.

CPython 3.12 made the built-in ``sum()`` of floats compensated (Neumaier): a mean taken with it changes in
the last bits between 3.11 and 3.12 (the anls card example: 0.699404761904762 on 3.11,
0.6994047619047619 on 3.12 and 3.13). The library sums as each reference did when its numbers were
published (``results.sequential_sum``: a left-to-right loop; numpy's pairwise ``np.mean`` where the
reference used it), so the interpreter must not matter.

The cases (:func:`cases`), by group (a metric, or ``functions``):

* every run of the bundled examples (``golden.example_calls``: the calls recorded in tests/data/golden),
  plus the presets no example runs (:data:`BORROWED`, on another run's inputs);
* per run, 997 examples drawn from it with replacement (fewer for the slow metrics: SIZES), half of the text predictions edited at random
  (seeded), scored with a 0.9 bootstrap interval, and compared (approximate randomisation) with the
  unedited predictions;
* ``functions``: the dataset functions of the core modules and the contests' integral scores.

One subprocess per interpreter computes every case (tests/interpreter_outcomes.py), side by side: this
interpreter, this interpreter with the built-in ``sum`` replaced by CPython 3.12's compensated sum
(``--compensated-sum``: catches a float ``sum()`` on any path without other interpreters), and the venvs
of 3.12 and 3.13. Their outcomes must equal this interpreter's, float for float.

Set-up: scripts/setup.d/test/other_pythons.sh makes .build/venv-py3.12 and .build/venv-py3.13 with the
extras that install there (a few minutes, once); a missing venv skips with that command, an extra that does
not install there (vision: torch has no wheel for them on this machine) is named by a skip. Time: about
5 s of CPU per interpreter (most of it loading WordNet and pymorphy3's dictionaries), four processes side
by side: about 10 s on 2 idle cores (measured: `/usr/bin/time` of tests/interpreter_outcomes.py).
"""

import json
import math
import os
import random
import subprocess
import sys
from pathlib import Path

import golden
import pytest
from helpers import metric_names

ROOT = Path(__file__).resolve().parent.parent
OTHERS = ("3.12", "3.13")
SIZE = 997
# fewer drawn examples where scoring is slow and the sums are of counts (codebleu), of numpy (fid_clip) or
# few examples already tell the sums apart (ru_meteor)
SIZES = {"codebleu": 97, "fid_clip": 97, "ru_meteor": 297}
SETUP = "bash scripts/setup.d/test/other_pythons.sh"
# presets no bundled example runs, scored on the inputs of run k of their metric's examples
BORROWED = {
    "anls": {"layoutlmv2": 0, "anls_star": 0},
    "vqa_acc": {"lmms_eval": 0, "vlmevalkit": 0},
    "det_f1": {"fusion_brain_2021": 0},
}
# what the extras that may not install on another interpreter score
EXTRA_USES = {
    "vision": "fid_clip's image features and CLIP scores (torch)",
    "text": "vqa_acc's wups and ru_meteor's NLTK tokenizer",
    "ru": "text_qa, ru_meteor and the Russian answers of vqa_acc",
    "code": "codebleu's tree-sitter grammars",
    "scipy": "fid_clip's matrix square root",
}


def _edited(text: str, rng: random.Random) -> str:
    """``text`` with one character deleted, doubled or replaced by another of its own (or unchanged)."""
    if not text or rng.random() < 0.5:
        return text
    i = rng.randrange(len(text))
    edits = [text[:i] + text[i + 1 :], text[: i + 1] + text[i:], text[:i] + rng.choice(text) + text[i + 1 :]]
    return edits[rng.randrange(3)]


def _drawn(kwargs: dict, seed: int, size: int = SIZE) -> tuple[dict, list]:
    """(the run's examples drawn ``size`` times with replacement, every per-example input with the same rows
    and half of the text predictions edited; the same predictions unedited)."""
    rng = random.Random(seed)
    n = len(kwargs["predictions"])
    rows = [rng.randrange(n) for _ in range(size)]
    drawn = {
        key: [value[i] for i in rows] if isinstance(value, list) and len(value) == n else value
        for key, value in kwargs.items()
    }
    plain = drawn["predictions"]
    drawn["predictions"] = [_edited(p, rng) if isinstance(p, str) else p for p in plain]
    return drawn, plain


def _runs(name: str) -> list[dict]:
    runs = golden.example_runs(name)
    return runs + [{**runs[k], "config_name": preset} for preset, k in BORROWED.get(name, {}).items()]


def cases() -> list[dict]:
    """``{"group", "metric", "call", "kwargs"}`` of every case (see the module's docstring)."""
    out = []
    for name in metric_names():
        calls = golden.example_calls(name)
        calls += [
            {**run, "return_per_example": True} for run in _runs(name)[len(golden.example_runs(name)) :]
        ]
        out += [{"group": name, "metric": name, "call": "score", "kwargs": kwargs} for kwargs in calls]
        for k, kwargs in enumerate(_runs(name)):
            drawn, plain = _drawn(kwargs, seed=k, size=SIZES.get(name, SIZE))
            scored = {**drawn, "confidence": 0.9, "n_resamples": 100}
            pair = {key: value for key, value in drawn.items() if key != "predictions"}
            pair |= {"predictions_a": drawn["predictions"], "predictions_b": plain, "n_resamples": 100}
            out.append({"group": name, "metric": name, "call": "score", "kwargs": scored})
            out.append({"group": name, "metric": name, "call": "compare", "kwargs": pair})
    for name in ("anls", "ned", "text_qa"):  # the dataset functions of the core modules, default options
        drawn, _ = _drawn(golden.example_runs(name)[0], seed=0)
        inputs = {"predictions": drawn["predictions"], "references": drawn["references"]}
        out.append({"group": "functions", "metric": name, "call": f"core.{name}", "kwargs": inputs})
    sub_tasks_2021 = {"C2C": 0.08587211336633069, "zsOD": 0.09523809523809522, "HTR": 0.5, "VQA": 0.167}
    sub_tasks_2022 = dict(zip("abcdef", [0.013, 0.837, 0.259, 0.234, 0.996, 0.47]))
    for call, scores in (("combine_2021", sub_tasks_2021), ("combine_2022", sub_tasks_2022)):
        out.append(
            {"group": "functions", "metric": "cli", "call": f"integral.{call}", "kwargs": {"scores": scores}}
        )
    return out


def _venv_python(version: str) -> Path:
    return ROOT / ".build" / f"venv-py{version}" / "bin" / "python"


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    """``(cases, {run: outcomes}, {version: extras installed})`` for this interpreter (``"this"``), this
    interpreter with the compensated ``sum`` (``"compensated"``) and each of OTHERS that has a venv."""
    all_cases = cases()
    path = tmp_path_factory.mktemp("interpreters") / "cases.json"
    path.write_text(json.dumps(all_cases, ensure_ascii=False), encoding="utf-8")
    script = str(ROOT / "tests" / "interpreter_outcomes.py")
    commands = {
        "this": [sys.executable, script, str(path)],
        "compensated": [sys.executable, script, str(path), "--compensated-sum"],
    }
    commands |= {v: [str(_venv_python(v)), script, str(path)] for v in OTHERS if _venv_python(v).exists()}
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    procs = {
        run: subprocess.Popen(
            command,
            env=env,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
        for run, command in commands.items()
    }
    results, extras = {}, {}
    for run, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"{run}: {stderr[-3000:]}"
        results[run] = json.loads(stdout)
    for version in OTHERS:
        listed = _venv_python(version).parent.parent / "extras.txt"
        extras[version] = listed.read_text().split() if listed.exists() else []
    return all_cases, results, extras


GROUPS = [*metric_names(), "functions"]


def _differences(all_cases, group, want, got, label) -> list[str]:
    return [
        f"{case['metric']} {case['call']} case {i} ({case['kwargs'].get('config_name', 'default')}):\n"
        f"    this Python: {json.dumps(want[i])[:400]}\n    {label}: {json.dumps(got[i])[:400]}"
        for i, case in enumerate(all_cases)
        if case["group"] == group and want[i] != got[i]
    ]


@pytest.mark.parametrize("group", GROUPS)
def test_same_bits_with_the_compensated_sum(outcomes, group):
    """No float ``sum()`` on any path: the built-in replaced by CPython 3.12's compensated sum changes nothing."""
    all_cases, results, _ = outcomes
    differences = _differences(all_cases, group, results["this"], results["compensated"], "compensated sum()")
    assert not differences, "\n".join(differences[:3])


@pytest.mark.parametrize("group", GROUPS)
@pytest.mark.parametrize("version", OTHERS)
def test_same_bits_on_other_pythons(outcomes, version, group):
    all_cases, results, extras = outcomes
    if version not in results:
        pytest.skip(f"no venv for Python {version}: run `{SETUP}`")
    other = results[version]
    mine = [i for i, case in enumerate(all_cases) if case["group"] == group]
    missing = {other[i]["missing"] for i in mine if "missing" in other[i]}
    if missing:
        installed = ", ".join(extras[version])
        pytest.skip(
            f"{group} not covered on Python {version} (extras installed there: {installed}): {missing}"
        )
    differences = _differences(all_cases, group, results["this"], other, f"Python {version}")
    assert not differences, "\n".join(differences[:3])


@pytest.mark.parametrize("version", OTHERS)
def test_every_extra_installs_on_other_pythons_or_is_named(outcomes, version):
    """Which parts of the library the comparison cannot reach on ``version``: its venv holds the core
    dependencies, and an extra that did not install there is named (a skip, shown by ``-ra``)."""
    _, results, extras = outcomes
    if version not in results:
        pytest.skip(f"no venv for Python {version}: run `{SETUP}`")
    assert "core" in extras[version]
    absent = [extra for extra in EXTRA_USES if extra not in extras[version]]
    if absent:
        uncovered = "; ".join(f"{extra}: {EXTRA_USES[extra]}" for extra in absent)
        pytest.skip(f"not covered on Python {version}, its extras do not install there: {uncovered}")


def test_the_cases_reach_where_the_sums_differ():
    """The cases can tell the sums apart: the drawn anls scores sum differently left to right and with
    compensation, and so do the contests' sub-task scores; every metric has cases."""
    from interpreter_outcomes import compensated_sum

    from multimodal_metrics import anls

    drawn, _ = _drawn(golden.example_runs("anls")[0], seed=0)
    scores = anls.score(drawn["predictions"], drawn["references"], return_per_example=True).per_example
    integral = [case for case in cases() if case["call"] == "integral.combine_2021"][0]["kwargs"]["scores"]
    for values in (scores, [round(v, 3) for v in integral.values()]):
        plain = 0.0
        for value in values:
            plain += value
        assert plain != compensated_sum(values)
    assert {case["group"] for case in cases()} == set(GROUPS)


def _plain_loop(values) -> float:
    total = 0.0
    for value in values:
        total += value
    return total


def test_sequential_sum_is_the_plain_loop_bit_for_bit():
    """``results.sequential_sum`` of a list or an array is ``total = 0.0; total += x`` (on 3.11 also the
    built-in ``sum()``): every bit, the sign of a zero and infinities (a NaN as a NaN: its sign bit is not
    kept); the mean divides it by n."""
    import struct

    import numpy as np

    from multimodal_metrics.results import mean, sequential_sum

    def bits(x):
        return b"nan" if math.isnan(x) else struct.pack("<d", x)

    rng = random.Random(7)
    pool = [0.1, 1e16, -1e16, 1e-300, -0.0, 0.0, 3, math.inf, -math.inf, math.nan]
    for _ in range(3000):
        values = [rng.choice([rng.random(), -rng.random() * 1e8, *pool]) for _ in range(rng.randrange(40))]
        want = _plain_loop(values)
        for got in (sequential_sum(values), sequential_sum(np.array(values, dtype=np.float64))):
            assert type(got) is float and bits(got) == bits(want), (values, got, want)
        if sys.version_info < (3, 12):
            assert bits(sequential_sum(values)) == bits(float(sum(values)))
        if values:
            assert bits(mean(values)) == bits(want / len(values))
    assert sequential_sum([]) == sequential_sum(np.zeros(0)) == mean([]) == 0.0
    assert bits(sequential_sum([-0.0, -0.0])) == bits(sequential_sum(np.array([-0.0]))) == bits(0.0)


def test_each_mean_is_its_references_arithmetic():
    """Where a left-to-right sum and numpy's pairwise sum differ (these drawn scores), each mean follows
    its reference: ru_meteor's numpy's (AIJ 2022 calc_meteor and evaluate's meteor: ``np.mean``), the core
    modules' dataset functions left to right, as the preset's ``score`` (RRC ``totalScore +=``, AIJ
    ``sum(...) / len(...)``)."""
    import numpy as np

    from multimodal_metrics import anls, ned, ru_meteor
    from multimodal_metrics.anls import core as anls_core
    from multimodal_metrics.ned import core as ned_core

    for k, run in enumerate(golden.example_runs("ru_meteor")):
        drawn, _ = _drawn(run, seed=k, size=SIZES["ru_meteor"])
        drawn.pop("config_name")
        result = ru_meteor.score(**drawn, preset=run["config_name"], return_per_example=True)
        per = np.array(result.per_example)
        assert result["meteor"] == float(np.mean(per)), run["config_name"]
    assert float(np.mean(per)) != _plain_loop(per.tolist()) / len(per)  # the two sums differ here
    drawn, _ = _drawn(golden.example_runs("anls")[0], seed=3)
    result = anls.score(drawn["predictions"], drawn["references"], return_per_example=True)
    assert anls_core.anls(drawn["predictions"], drawn["references"]) == result["anls"]
    assert result["anls"] == _plain_loop(result.per_example) / SIZE != float(np.mean(result.per_example))
    drawn, _ = _drawn(golden.example_runs("ned")[0], seed=3)
    result = ned.score(drawn["predictions"], drawn["references"], return_per_example=True)
    per = [row["one_minus_ned"] for row in result.per_example]
    assert ned_core.ned(drawn["predictions"], drawn["references"])["one_minus_ned"] == result["one_minus_ned"]
    assert result["one_minus_ned"] == _plain_loop(per) / SIZE != float(np.mean(per))
