"""Golden outputs of every metric: recorded before the library move, compared after it.

    .venv/bin/python tests/golden.py record [NAME ...]   # write tests/data/golden/<name>.json
    .venv/bin/python tests/golden.py check [NAME ...]    # exit 1 and print the first differences
    .venv/bin/python tests/golden.py library [NAME ...]  # the library's score() on the examples = compute's

Per metric, through ``evaluate.load`` of the folder (the way users load it, before and after the move):

* ``examples``: every run of ``examples/<name>.json`` with ``return_per_example=True`` and with a 0.9
  bootstrap interval: the whole result dict (numbers and signature);
* ``sweep``: the deterministic sweep of ``tests/test_fuzz.py`` (every hostile value in every option and
  input slot of one example, every preset): the result, or the error's type and message;
* ``fuzz``: ``FUZZ_CASES`` seeded scenarios drawn by the fuzz harness's own strategies (Hypothesis,
  derandomized): the result or the error.

Outcomes are JSON (floats round-trip exactly), so "unchanged" means byte-identical numbers,
signatures and messages, except the numbers of the metrics in ``BLAS_TOLERANCE`` (computed through
BLAS / LAPACK, whose last bits depend on the CPU): those are compared at the tolerance stated there. Memory addresses in messages (``<object object at 0x...>``) and the working
directory are masked. Hypothesis draws only its global constants here (not those of the modules loaded
so far), so the fuzz cases do not depend on what ran before in the process.
``tests/test_golden.py`` runs ``check`` for every metric.
"""

import json
import math
import os
import re
import sys
from pathlib import Path

from multimodal_metrics.examples import FOLDER as EXAMPLES

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
GOLDEN = HERE / "data" / "golden"
FUZZ_CASES = 40
sys.path.insert(0, str(HERE))
os.environ.setdefault("HF_HOME", str(ROOT / ".build" / "hf_home"))
for _var in ("HF_EVALUATE_OFFLINE", "HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
    os.environ[_var] = "1"
os.environ.setdefault("NLTK_DATA", str(ROOT / ".build" / "nltk_data"))

# Relative (and absolute) tolerance of the numbers of the metrics computed through BLAS / LAPACK; every
# other number, and every signature and message, is compared exactly. fid_clip's FID takes the means and
# covariances with numpy's matmul and the trace of the matrix square root with scipy's dtrmm and LAPACK's
# eigvalsh: OpenBLAS picks its kernels for the CPU it runs on (SkylakeX with AVX-512, Haswell on AVX2-only
# machines such as many AMD EPYC, Zen, ...), and each kernel sums in its own order, so the last bits of FID
# depend on the machine. Measured over every recorded fid_clip outcome with OPENBLAS_CORETYPE = SkylakeX
# (where the file was recorded), Haswell, Zen, Sandybridge, Nehalem and Prescott: at most 1.9e-14 relative
# (87 of the numbers differ under Prescott). 1e-9 leaves five orders of magnitude for other kernels and
# still fails for any change of the formula. The other metrics reduce in pure Python or with numpy's own
# loops, whose order does not depend on the CPU: exact. tests/test_blas_kernels.py runs the fid_clip
# outcomes under two OpenBLAS kernels.
BLAS_TOLERANCE = {"fid_clip": 1e-9}

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_LONG_RUN = re.compile(r"(.)\1{39,}")


def _plain(value):
    """JSON-able form of a result (numpy scalars and tuples as Python values)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, str):
        return value.item()
    if isinstance(value, float) and value != value:
        return "nan"
    return value


def _error(err: Exception) -> dict:
    """The error's type and message, memory addresses and the working directory masked."""
    message = _ADDRESS.sub(" at 0x?", str(err)).replace(os.getcwd(), "<cwd>")
    # a message that quotes a cut absolute path ("<cwd>/xxx...") cuts it at a fixed length: the number of
    # characters left after the working directory depends on its length, so long runs are not compared
    message = _LONG_RUN.sub(lambda m: f"<{m[1]}...>", message)
    return {"error": f"{type(err).__name__}: {message}"}


def outcome(metric, kwargs) -> dict:
    """``{"result": ...}`` or ``{"error": "TypeName: message"}`` of ``metric.compute(**kwargs)``."""
    try:
        return {"result": _plain(dict(metric.compute(**kwargs)))}
    except (ValueError, TypeError) as err:
        return _error(err)


def example_runs(name: str) -> list[dict]:
    """The keyword arguments of every run of ``examples/<name>.json`` (inputs, ``config_name`` and options)."""
    spec = json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))
    runs = []
    for run in spec["runs"]:
        inputs = {k: v for k, v in run.items() if k not in ("kwargs", "expected", "note")}
        runs.append({**inputs, **run.get("kwargs", {})})
    return runs


def example_calls(name: str) -> list[dict]:
    """The calls recorded as ``examples``: every run of :func:`example_runs` with ``return_per_example=True``,
    then with a 0.9 bootstrap interval."""
    calls = []
    for kwargs in example_runs(name):
        calls.append({**kwargs, "return_per_example": True})
        calls.append({**kwargs, "confidence": 0.9, "n_resamples": 200})
    return calls


def _examples(name, load) -> list:
    rows = []
    for kwargs in example_calls(name):
        kwargs = dict(kwargs)
        rows.append(outcome(load(name, kwargs.pop("config_name", "default")), kwargs))
    return rows


def _sweep(name, load) -> list:
    import test_fuzz as fz
    import test_fuzz_sweep as sw

    spec = fz.SPECS[name]
    rows = []
    for preset in spec.presets:
        metric = load(name, preset)
        example = sw.EXAMPLES.get(
            f"{name}:{preset}", sw.EXAMPLES.get(name, {"predictions": ["ab c"], "references": [["ab d"]]})
        )
        base = dict(fz.REQUIRED.get((name, preset), {}))
        for option in spec.options(preset):
            for value in fz.HOSTILE + spec.extra_hostile_options.get(option, []):
                options = {**base, option: value}
                if value is None:
                    options.pop(option)
                rows.append(outcome(metric, {**example, **options}))
        if preset != spec.presets[0]:
            continue
        for _slot, put, rule in sw.SLOTS.get(name, sw._text_slots)(example):
            for value in fz.HOSTILE:
                if rule(value) is None:
                    continue
                inputs, _named, _index = put(example, value)
                rows.append(outcome(metric, {**inputs, **base}))
    return rows


def _fuzz(name, load) -> list:
    import test_fuzz as fz
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from hypothesis.internal.conjecture import providers

    rows = []

    def call(metric, kwargs):  # the harness's own call, recorded
        rows.append(outcome(metric, kwargs))
        return fz.__dict__["_call_original"](metric, kwargs)

    # Hypothesis seeds a derandomized run from a digest of this function's source text (decorators
    # included): the recorded cases hold only while these lines stay exactly as they are.
    # fmt: off
    @settings(max_examples=FUZZ_CASES, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def run(data):
        try:
            fz._scenario(name, data, None)
        except AssertionError:
            pass  # the fuzz test judges; here only the outcome is recorded
    # fmt: on

    fz.__dict__.setdefault("_call_original", fz._call)
    fz._call, fz._metric = call, lambda n, preset, cache_dir: load(n, preset)
    # Hypothesis also draws constants found in every local module loaded so far (sys.modules): what it
    # draws would depend on what ran before. Only its global constants here, so the cases are the same
    # in any process and after any move of the code.
    local_constants = providers._get_local_constants
    providers._get_local_constants = lambda: providers.Constants(
        integers=providers.SortedSet(),
        floats=providers.SortedSet(key=providers.float_to_int),
        bytes=providers.SortedSet(),
        strings=providers.SortedSet(),
    )
    providers.CONSTANTS_CACHE.cache.clear()
    try:
        run()
    finally:
        fz._call = fz.__dict__["_call_original"]
        providers._get_local_constants = local_constants
        providers.CONSTANTS_CACHE.cache.clear()
    return rows


def collect(name: str) -> dict:
    import functools

    import evaluate

    @functools.cache
    def load(n, preset):
        return evaluate.load(str(ROOT / "metrics" / n), preset)

    return {"examples": _examples(name, load), "sweep": _sweep(name, load), "fuzz": _fuzz(name, load)}


def library_outcome(name: str, kwargs: dict, call: str = "score") -> dict:
    """``outcome`` of the library call ``multimodal_metrics.<name>.<call>(**kwargs)`` (``score`` or
    ``compare``; preset from ``config_name``), as a plain dict."""
    import importlib

    library = importlib.import_module(f"multimodal_metrics.{name}")
    kwargs = dict(kwargs)
    preset = kwargs.pop("config_name", "default")
    try:
        return {"result": _plain(dict(getattr(library, call)(**kwargs, preset=preset)))}
    except (ValueError, TypeError) as err:
        return _error(err)


def same(name: str, want, got) -> bool:
    """Whether the outcome ``got`` equals the recorded ``want`` of metric ``name``: exactly, except floats of
    the metrics in ``BLAS_TOLERANCE``, which agree within that relative (or absolute) tolerance."""
    tolerance = BLAS_TOLERANCE.get(name)
    if tolerance is None:
        return want == got

    def close(w, g) -> bool:
        if type(w) is float and type(g) is float:
            return math.isclose(w, g, rel_tol=tolerance, abs_tol=tolerance)
        if isinstance(w, dict):
            return isinstance(g, dict) and w.keys() == g.keys() and all(close(w[k], g[k]) for k in w)
        if isinstance(w, list):
            return isinstance(g, list) and len(w) == len(g) and all(map(close, w, g))
        return type(w) is type(g) and w == g

    return close(want, got)


def library_differences(name: str) -> list[str]:
    """Where the library's ``score`` differs from the recorded ``compute`` results of the bundled examples."""
    want = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))["examples"]
    got = [library_outcome(name, kwargs) for kwargs in example_calls(name)]
    got = json.loads(json.dumps(got, ensure_ascii=False))
    return [
        f"{name} examples[{i}]: compute {json.dumps(w)[:300]}\n    library {json.dumps(g)[:300]}"
        for i, (w, g) in enumerate(zip(want, got, strict=True))
        if not same(name, w, g)
    ]


def names(args) -> list[str]:
    return args or sorted(p.name for p in (ROOT / "metrics").iterdir() if (p / f"{p.name}.py").is_file())


def differences(name: str, limit: int = 5) -> list[str]:
    """The first ``limit`` differences between the recorded golden outputs of ``name`` and now."""
    want = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    got = json.loads(json.dumps(collect(name), ensure_ascii=False))
    out = []
    for part in want:
        if len(want[part]) != len(got[part]):
            out.append(f"{name} {part}: {len(want[part])} recorded outcomes, {len(got[part])} now")
        for i, (w, g) in enumerate(zip(want[part], got[part], strict=False)):
            if not same(name, w, g):
                out.append(
                    f"{name} {part}[{i}]: recorded {json.dumps(w)[:400]}\n    now {json.dumps(g)[:400]}"
                )
    return out[:limit]


def main(argv) -> int:
    command, args = argv[0], argv[1:]
    GOLDEN.mkdir(parents=True, exist_ok=True)
    status = 0
    for name in names(args):
        if command == "record":
            data = collect(name)
            (GOLDEN / f"{name}.json").write_text(
                json.dumps(data, ensure_ascii=False, indent=0) + "\n", encoding="utf-8"
            )
            print(name, {k: len(v) for k, v in data.items()})
        elif command == "library":
            diff = library_differences(name)
            print(name, "library equals compute" if not diff else "\n".join(diff[:5]))
            status |= bool(diff)
        else:
            diff = differences(name)
            print(name, "unchanged" if not diff else "\n".join(diff))
            status |= bool(diff)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
