"""`mm-score fid-clip` (AIJ 2022 image generation: two image folders, prompts and predictions) with tiny
random Inception / ruCLIP models built here: one command, and the same files scored in shards
(`--shard I/N --save-state FILE`) merged by `mm-score merge` into what one command prints."""

import json
import random

import pytest
from _fid_clip_fixtures import random_images, tiny_inception_weights, tiny_ruclip
from _mm_score_cli import run, run_json, write_json
from PIL import Image

from multimodal_metrics import fid_clip
from multimodal_metrics.fid_clip import inception

PROMPTS = ["Кот", "Собака в парке", "Дом", "Лес", "Река", "Гора", "Море"]


def generation_split(tmp_path, n: int) -> tuple:
    """The generation split of ``n`` examples (one existing generated image per prompt, in order) and the
    tiny model files: (split folder, the fid-clip arguments of its files, --inception-weights, --clip-model)."""
    weights = tiny_inception_weights(inception, tmp_path)
    tiny_ruclip(tmp_path / "ruclip")
    split = tmp_path / "generation"
    for folder, seed in (("gt_images", 1), ("images", 2)):
        (split / folder).mkdir(parents=True)
        for i, array in enumerate(random_images(n, seed=seed, size=(40, 32))):
            Image.fromarray(array).save(split / folder / f"{i}.png")
    prompts = {str(i): [{"type": "text", "content": "Сгенерируй."}, {"type": "text", "content": PROMPTS[i % 7]}]
               for i in range(n)}  # fmt: skip
    pred = {
        str(i): [{"type": "text", "content": ""}, {"type": "image", "content": f"images/{i}.png"}]
        for i in range(n)
    }
    files = ["--gt-images", str(split / "gt_images"), "--pred-images", str(split / "images"),
             "--input", write_json(split, "generation_input.json", prompts),
             "--pred", write_json(split, "generation_pred.json", pred)]  # fmt: skip
    return split, files, ["--inception-weights", str(weights)], ["--clip-model", str(tmp_path / "ruclip")]


def test_fid_clip_fusion_brain_2022_generation(tmp_path, capsys):
    """Image folders + prompts + predictions, one prediction without an image at element 1 (CLIP 0)."""
    split, files, weights, clip_model = generation_split(tmp_path, 4)
    pred = json.loads((split / "generation_pred.json").read_text())
    pred["3"] = [{"type": "image", "content": "images/3.png"}]  # image not at element 1: CLIP 0 (official)
    write_json(split, "generation_pred.json", pred)
    argv = ["fid-clip", *files, *weights, *clip_model]
    code, out, err = run(capsys, *argv, "--json", "--per-example", str(tmp_path / "per.jsonl"))
    assert code == 0 and "1 example(s) have no existing image" in err, err
    out = json.loads(out)
    images = [str(split / d / f"{i}.png") for d in ("images", "gt_images") for i in range(4)]
    fid = fid_clip.score(images[:4], images[4:], "fusion_brain_2022", inception_weights=weights[1])["fid"]
    clip = fid_clip.score(images[:3], None, "fusion_brain_2022", texts=PROMPTS[:3], clip_model=clip_model[1],
                          return_per_example=True)["per_example"]  # fmt: skip
    assert out["fid"] == pytest.approx(fid, rel=1e-9)
    assert out["clip_score"] == pytest.approx(sum(clip) / 4, abs=1e-9)
    assert out["score"] == pytest.approx(0.5 * (sum(clip) / 4 + (200 - min(200, fid)) / 200), abs=1e-9)
    assert "fusion_brain_2022" in out["signature_fid"] and "clip:ruclip" in out["signature_clip"]
    rows = [json.loads(line) for line in (tmp_path / "per.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == ["0", "1", "2", "3"] and rows[3]["clip_score"] == 0.0
    code, _, err = run(capsys, *argv, "--shard", "0/2", "--save-state", str(tmp_path / "s.state"))
    assert code == 2 and "every prompt's image must exist" in err.strip().splitlines()[-1]
    Image.fromarray(random_images(1, seed=5)[0]).save(split / "images" / "extra.png")
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and "Traceback" not in err
    assert "images: holds 5 images but" in err.strip().splitlines()[-1] and "holds 4" in err


def _shards(capsys, tmp_path, argv, shards, tag) -> list:
    states = []
    for i, shard in enumerate(shards):
        states.append(str(tmp_path / f"{tag}{i}.state"))
        code, out, err = run(capsys, *argv, "--shard", shard, "--save-state", states[-1], "--json")
        assert code == 0, err
        start, stop = shard_bounds(shard, 7)
        assert json.loads(out)["examples"] == stop - start
    random.Random(tag).shuffle(states)
    return states


def shard_bounds(shard: str, n: int) -> tuple:
    i, parts = map(int, shard.split("/"))
    return n * i // parts, n * (i + 1) // parts


@pytest.mark.parametrize("with_clip", [False, True], ids=["fid-alone", "fid-and-clip"])
def test_merged_shards_print_the_one_command_result(with_clip, tmp_path, capsys):
    """7 examples in 3 contiguous shards and an empty one, merged in a shuffled order: the merged result is
    what one fid-clip command prints, bit for bit (value, seeded interval, signature, per-example list). With
    --clip-model that is the joint computation of the (image, prompt) pairs that --confidence selects.
    --batch-size 1: a float32 network gives an image the same values in every batch only when it runs alone."""
    _, files, weights, clip_model = generation_split(tmp_path, 7)
    argv = ["fid-clip", *files, *weights, *(clip_model if with_clip else []), "--batch-size", "1"]
    stats = ["--confidence", "0.9", "--seed", "5", "--n-resamples", "30"]
    per = ["--per-example", str(tmp_path / "one.jsonl")] if with_clip else []
    one = run_json(capsys, *argv, *stats, *per)
    states = _shards(capsys, tmp_path, [*argv, *stats], ["0/3", "1/3", "2/3", "0/50"], "s")
    merged = run_json(capsys, "merge", *states, *stats, *[p.replace("one", "merged") for p in per])
    assert merged == one and merged["examples"] == 7
    assert (
        set(merged) >= {"fid", "fid_ci_low", "signature_fid"}
        and ("clip_score_ci_high" in merged) == with_clip
    )
    if with_clip:
        rows = [[json.loads(line) for line in open(tmp_path / f"{name}.jsonl")] for name in ("one", "merged")]
        assert [r["clip_score"] for r in rows[0]] == [r["clip_score"] for r in rows[1]]
        assert [r["index"] for r in rows[1]] == list(range(7))
    else:  # FID alone: the same without --confidence (states without the feature vectors)
        one = run_json(capsys, *argv)
        merged = run_json(capsys, "merge", *_shards(capsys, tmp_path, argv, ["0/2", "1/2"], "m"))
        assert merged == one and set(one) == {"fid", "signature_fid", "examples"}
        code, _, err = run(capsys, "merge", *states, "--per-example", str(tmp_path / "p.jsonl"))
        assert code == 2 and "FID alone" in err


def test_index_start_places_folders_split_beforehand(tmp_path, capsys):
    """Examples 3-4 of the split scored from their own files with --index-start 3 merge with 0-1 and 2."""
    split, files, weights, clip_model = generation_split(tmp_path, 5)
    argv = ["fid-clip", *files, *weights, *clip_model, "--confidence", "0.9", "--n-resamples", "20"]
    argv += ["--batch-size", "1"]
    one = run_json(capsys, *argv)
    tail = tmp_path / "tail"
    for folder in ("gt_images", "images"):
        (tail / folder).mkdir(parents=True)
        for i in (3, 4):
            (tail / folder / f"{i}.png").write_bytes((split / folder / f"{i}.png").read_bytes())
    prompts = json.loads((split / "generation_input.json").read_text())
    pred = json.loads((split / "generation_pred.json").read_text())
    tail_files = ["--gt-images", str(tail / "gt_images"), "--pred-images", str(tail / "images"),
                  "--input", write_json(tail, "in.json", {k: prompts[k] for k in "34"}),
                  "--pred", write_json(tail, "pred.json", {k: pred[k] for k in "34"})]  # fmt: skip
    head, middle, rest = (str(tmp_path / f"{name}.state") for name in ("head", "middle", "tail"))
    assert run(capsys, *argv, "--shard", "0/2", "--save-state", head)[0] == 0  # examples 0-1
    code, out, err = run(capsys, *argv, "--shard", "2/5", "--save-state", middle, "--json")  # example 2 alone
    assert code == 0 and json.loads(out) == {"examples": 1} and "this shard alone gives no score" in err, err
    tail_argv = ["fid-clip", *tail_files, *weights, *clip_model, "--confidence", "0.9", "--batch-size", "1"]
    code, _, err = run(capsys, *tail_argv, "--index-start", "3", "--save-state", rest)
    assert code == 0, err
    merged = run_json(capsys, "merge", rest, middle, head, "--confidence", "0.9", "--n-resamples", "20")
    assert merged == one
