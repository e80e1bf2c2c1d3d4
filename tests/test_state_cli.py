"""mm-score --shard / --save-state and mm-score merge: shards scored by separate commands, merged in any
order (an empty shard included), print what one command over all records prints, bit for bit (value,
seeded interval, signature, per-example list), for every metric with a mergeable state."""

import json
import random

import pytest
from _mm_score_cli import run, run_json
from engine_cases import CASES, case, stateful_metrics

METRICS = stateful_metrics()
N = 60


def per_example_values(path):
    return [{k: v for k, v in json.loads(line).items() if k not in ("id", "index")} for line in open(path)]


@pytest.mark.parametrize("metric", METRICS)
def test_merged_shards_print_the_one_command_result(metric, tmp_path, capsys):
    if CASES[metric].cli is None:
        pytest.skip(f"mm-score's {metric} command reads no --gt / --pred records")
    assert CASES[metric].cli, f"add the mm-score command of {metric} to tests/engine_cases.py"
    command, flags, write = CASES[metric].cli
    gt, pred = tmp_path / "gt.json", tmp_path / "pred.json"
    write(case(metric, N, seed=2).inputs, gt, pred)
    files = ["--gt", str(gt), "--pred", str(pred), *flags]
    stats = ["--confidence", "0.9", "--seed", "5", "--n-resamples", "300"]
    one = run_json(capsys, command, *files, *stats, "--per-example", str(tmp_path / "one.jsonl"))
    states = []
    for i, shard in enumerate(["0/3", "1/3", "2/3", "0/500"]):  # 0/500: an empty block
        states.append(str(tmp_path / f"s{i}.state"))
        code, _, err = run(capsys, command, *files, "--shard", shard, "--save-state", states[-1])
        assert code == 0, err
    random.Random(metric).shuffle(states)
    merged = run_json(capsys, "merge", *states, *stats, "--per-example", str(tmp_path / "merged.jsonl"))
    assert merged == one and merged["examples"] == N
    assert per_example_values(tmp_path / "merged.jsonl") == per_example_values(tmp_path / "one.jsonl")
    # the same file, byte for byte: the states carry the records' ids
    assert (tmp_path / "merged.jsonl").read_bytes() == (tmp_path / "one.jsonl").read_bytes()
    again = str(tmp_path / "all.state")
    assert run_json(capsys, "merge", *states, "--save-state", again) == run_json(capsys, "merge", again)


def test_merge_refusals_name_the_files(tmp_path, capsys):
    command, flags, write = CASES["anls"].cli
    gt, pred = tmp_path / "gt.json", tmp_path / "pred.json"
    write(case("anls", 20).inputs, gt, pred)
    files = ["--gt", str(gt), "--pred", str(pred)]
    a, b, c = (str(tmp_path / f"{x}.state") for x in "abc")
    assert run(capsys, command, *files, "--shard", "0/2", "--save-state", a)[0] == 0
    assert run(capsys, command, *files, "--save-state", b)[0] == 0  # all records, from index 0 again
    assert run(capsys, command, *files, "--preset", "stvqa", "--shard", "1/2", "--save-state", c)[0] == 0
    code, _, err = run(capsys, "merge", a, b)
    assert code == 2 and f"{a} and {b} both hold example index 0" in err and "--shard I/N" in err
    code, out, err = run(capsys, "merge", a, b, "--allow-duplicates", "--json")  # identical repeats dropped
    assert code == 0 and json.loads(out)["examples"] == 20
    code, _, err = run(capsys, "merge", a, c)
    assert code == 2 and "preset differs" in err
    d = str(tmp_path / "d.state")  # all records again, under another preset: what differs is the preset
    assert run(capsys, command, *files, "--preset", "stvqa", "--save-state", d)[0] == 0
    for extra in ([], ["--allow-duplicates"]):
        code, _, err = run(capsys, "merge", b, d, *extra)
        assert code == 2 and f"{b} and {d}: " in err and "preset differs ('default' vs 'stvqa')" in err, err
        assert "example index" not in err and "--allow-duplicates" not in err
    code, _, err = run(capsys, "merge", str(gt))
    assert code == 2 and f"{gt} is not a multimodal-metrics state" in err
    code, _, err = run(capsys, command, *files, "--shard", "2/2")
    assert code == 2 and "expected I/N with 0 <= I < N" in err
    code, _, err = run(capsys, command, *files, "--save-state", str(tmp_path / "no" / "x.state"))
    assert code == 2 and "--save-state" in err and "does not exist" in err
    code, _, err = run(capsys, command, *files, "--save-state", a, "--compare-pred", str(pred))
    assert code == 2 and "leave out --shard and --save-state" in err


def test_index_start_places_a_file_split_beforehand(tmp_path, capsys):
    """Two files split beforehand (records 0-11 and 12-19): --index-start 12 for the second."""
    command, _, write = CASES["anls"].cli
    inputs = case("anls", 20, seed=9).inputs
    paths = {}
    for name, part in (("all", slice(0, 20)), ("head", slice(0, 12)), ("tail", slice(12, 20))):
        paths[name] = (tmp_path / f"{name}_gt.json", tmp_path / f"{name}_pred.json")
        write({k: v[part] for k, v in inputs.items()}, *paths[name])
    one = run_json(capsys, command, "--gt", str(paths["all"][0]), "--pred", str(paths["all"][1]))
    for name, start in (("head", "0"), ("tail", "12")):
        gt, pred = paths[name]
        argv = [command, "--gt", str(gt), "--pred", str(pred), "--index-start", start]
        assert run(capsys, *argv, "--save-state", str(tmp_path / f"{name}.state"))[0] == 0
    merged = run_json(capsys, "merge", str(tmp_path / "tail.state"), str(tmp_path / "head.state"))
    assert merged == one
