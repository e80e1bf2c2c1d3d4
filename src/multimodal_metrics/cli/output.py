"""What `mm-score` prints and writes: the result dict as aligned text or JSON (``print_result``), the
per-example JSON lines (``write_per_example``) and the layout of fid-clip's result, which `mm-score merge`
prints for merged fid_clip states too (``generation_result``)."""

import json

from . import paths as mm_paths
from .formats import Loaded


def write_per_example(out, loaded: Loaded, result: dict) -> None:
    """One JSON line per example, in ground-truth order: {"id": ..., <primary key>: score} (or the
    example's dict of scores), into ``out`` (the ``paths.Output`` checked before scoring, or a path)."""
    out = out if isinstance(out, mm_paths.Output) else mm_paths.Output(out, "--per-example")
    primary = next(iter(result))
    lines = []
    for key, value in zip(loaded.ids, result["per_example"]):
        row = {"id": key, **value} if isinstance(value, dict) else {"id": key, primary: value}
        lines.append(json.dumps(row, ensure_ascii=False) + "\n")
    out.write("".join(lines))


def print_result(result: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return
    width = max(map(len, result))
    for key, value in result.items():
        print(f"{key:<{width}}  {value:.6f}" if isinstance(value, float) else f"{key:<{width}}  {value}")


def generation_result(values, examples: int) -> dict:
    """What `mm-score fid-clip` prints of fid_clip's result computed in one go (FID of the two folders alone,
    or FID, CLIP score and score of the (image, prompt) pairs): the scores, their intervals, the signature
    of each score and the number of examples. `mm-score merge` prints merged fid_clip states the same way."""
    keys = [key for key in ("score", "fid", "clip_score") if key in values]
    result = {key: values[key] for key in keys}
    ends = ("_ci_low", "_ci_high")
    result.update({key + end: values[key + end] for key in keys for end in ends if key + end in values})
    result["signature_fid"] = values["signature"]
    if "clip_score" in values:
        result["signature_clip"] = values["signature"]
    result["examples"] = examples
    return result
