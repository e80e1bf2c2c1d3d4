"""fid_clip's bootstrap intervals (`confidence=`): FID resampling the generated images with the reference
held fixed, moved by the bootstrap bias estimate; the CLIP score and the generation score from the same
resamples. Brute-force loops re-run the metric on materialised resamples (same index matrix); evaluate's
cache, add_batch and distributed mode keep the generated features; `mm-score fid-clip --confidence`;
`save_stats` errors. Nothing is downloaded."""

import json

import numpy as np
import pytest
import torch
from _fid_clip_fixtures import generation_split, random_images, tiny_models
from helpers import ROOT, load_metric, run_two_ranks

from multimodal_metrics.fid_clip import core, moments

X1 = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
pytestmark = pytest.mark.filterwarnings("ignore:FID.*fewer samples than dimensions:UserWarning")


@pytest.fixture(scope="module")
def models():
    return tiny_models()  # built once per test process, shared with the other fid_clip test files


def _gaussian_features(n, d=8, seed=0, shift=0.3):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) / np.sqrt(d) + shift


def _resample_fids(gen, ref, indices):
    """FID of every materialised resample (copied rows), through the metric's own point-estimate code."""
    ref_stats = moments.FrechetStats.from_features(ref)
    return np.array(
        [core.frechet_distance(moments.FrechetStats.from_features(gen[row]), ref_stats) for row in indices]
    )


def test_fid_interval_is_seeded_recorded_and_a_brute_force_loop():
    """confidence= resamples the generated feature vectors (reference fixed): 200 resamples by default,
    recorded in the signature; the interval = percentile interval of the FIDs of the materialised
    resamples (sacrebleu's index matrix, the metric's own FID code) moved by mean(FID*) - FID."""
    gen, ref = _gaussian_features(120), _gaussian_features(150, seed=1, shift=0.0)
    m = load_metric("fid_clip")
    plain = m.compute(predictions=gen, references=ref)
    r = m.compute(predictions=gen, references=ref, confidence=0.9, seed=3)
    assert list(r) == ["fid", "fid_ci_low", "fid_ci_high", "signature"] and list(plain) == [
        "fid",
        "signature",
    ]
    assert (
        r["signature"]
        == "fid_clip|preset:default|feat:given|ci:bs-pct|fidci:bias-shift|conf:0.9|bs:200|seed:3|v:0.1.0"
    )
    assert r["fid"] == plain["fid"] and r["fid_ci_low"] < r["fid"] < r["fid_ci_high"]
    assert r == m.compute(predictions=gen, references=ref, confidence=0.9, seed=3)
    assert r["fid_ci_low"] != m.compute(predictions=gen, references=ref, confidence=0.9, seed=4)["fid_ci_low"]
    assert (
        "|bs:50|" in m.compute(predictions=gen, references=ref, confidence=0.9, n_resamples=50)["signature"]
    )
    values = _resample_fids(gen, ref, np.random.default_rng(3).integers(0, 120, size=(200, 120)))
    expected = np.quantile(values - (values.mean() - r["fid"]), [0.05, 0.95])
    assert [r["fid_ci_low"], r["fid_ci_high"]] == pytest.approx(expected, rel=1e-9)
    # the reference side is held fixed: the same interval from its features or from its statistics
    stats = {"mu": ref.mean(axis=0), "sigma": np.cov(ref, rowvar=False)}
    from_stats = m.compute(predictions=gen, reference_stats=stats, confidence=0.9, seed=3)
    assert [from_stats["fid_ci_low"], from_stats["fid_ci_high"]] == pytest.approx(expected, rel=1e-9)


def test_fid_interval_through_add_batch_and_evaluates_cache():
    """The generated vectors are read back from evaluate's cache in _compute: batches of any size (some
    with one side only) give the same interval as one call."""
    gen, ref = _gaussian_features(90), _gaussian_features(70, seed=1)
    m = load_metric("fid_clip")
    whole = m.compute(predictions=gen, references=ref, confidence=0.95, n_resamples=60)
    for cut in (1, 40):
        m.add_batch(predictions=gen[:cut], references=ref[:cut])
        m.add_batch(predictions=gen[cut:70], references=ref[cut:70])
        m.add_batch(predictions=gen[70:])
        assert m.compute(confidence=0.95, n_resamples=60) == whole
    for row in gen:
        m.add(prediction=row)
    assert m.compute(references=ref, confidence=0.95, n_resamples=60) == whole


def _distributed_worker(rank, cache_dir, queue):
    import evaluate

    gen, ref = _gaussian_features(90), _gaussian_features(70, seed=1)
    part = slice(0, 45) if rank == 0 else slice(45, None)
    metric = evaluate.load(str(ROOT / "metrics" / "fid_clip"), num_process=2, process_id=rank, experiment_id="fidci",
                           cache_dir=cache_dir)  # fmt: skip
    metric.add_batch(predictions=gen[part], references=ref[part])
    queue.put((rank, metric.compute(confidence=0.95, n_resamples=60)))


def test_fid_interval_in_distributed_mode(tmp_path):
    """evaluate's num_process=2 (two real processes, one cache): process 0 gathers every generated vector
    and returns the interval of one process holding everything."""
    gen, ref = _gaussian_features(90), _gaussian_features(70, seed=1)
    whole = load_metric("fid_clip").compute(predictions=gen, references=ref, confidence=0.95, n_resamples=60)
    results = run_two_ranks(_distributed_worker, str(tmp_path))
    assert results[1] is None and results[0] == whole


def test_generation_intervals_resample_images_with_their_prompts(models):
    """With texts, one resample of the generated images gives FID, the CLIP score and the score: each
    interval equals a brute-force loop that re-runs the metric on the materialised resample (images and
    prompts, reference images fixed); the CLIP score's interval is the one of the CLIP score alone."""
    images, real = random_images(6, seed=31, size=(32, 32)), random_images(5, seed=32, size=(32, 32))
    texts = ["a cat", "a dog", "dog", "cat", "a", "b"]
    m = load_metric("fid_clip")
    pool = torch.nn.Sequential(torch.nn.AdaptiveAvgPool2d(3), torch.nn.Flatten())  # 27-d features, fast
    opts = dict(feature_extractor=pool, clip_model=str(models["hf"]))
    r = m.compute(
        predictions=images, references=real, texts=texts, confidence=0.9, n_resamples=12, seed=5, **opts
    )
    assert list(r)[:3] == ["fid", "clip_score", "score"]
    assert list(r)[3:9] == [f"{k}_ci_{e}" for k in ("fid", "clip_score", "score") for e in ("low", "high")]
    assert "|comb:generation|ci:bs-pct|fidci:bias-shift|conf:0.9|bs:12|seed:5|" in r["signature"]
    fid, clip_ = [], []
    for row in np.random.default_rng(5).integers(0, 6, size=(12, 6)):
        again = m.compute(
            predictions=[images[i] for i in row], references=real, texts=[texts[i] for i in row], **opts
        )
        fid.append(again["fid"])
        clip_.append(again["clip_score"])
    fid = np.array(fid) - (np.mean(fid) - r["fid"])
    score = 0.5 * (np.array(clip_) + (200 - np.minimum(200, fid)) / 200)
    for key, values in (("fid", fid), ("clip_score", clip_), ("score", score)):
        assert [r[f"{key}_ci_low"], r[f"{key}_ci_high"]] == pytest.approx(
            np.quantile(values, [0.05, 0.95]), rel=1e-6
        )
    alone = m.compute(predictions=images, texts=texts, confidence=0.9, n_resamples=12, seed=5, **opts)
    assert (alone["clip_score_ci_low"], alone["clip_score_ci_high"]) == (
        r["clip_score_ci_low"],
        r["clip_score_ci_high"],
    )
    captioning = m.compute(references=images, texts=texts, meteor=0.3, confidence=0.9, **opts)
    assert (
        "score_ci_low" not in captioning and "clip_score_ci_low" in captioning
    )  # METEOR is one given number


def test_save_stats_errors_name_the_argument(tmp_path):
    m = load_metric("fid_clip")
    with pytest.raises(ValueError, match=r"`save_stats`: the folder name 'xxx.*is 300 bytes long"):
        m.compute(predictions=X1, references=X1, save_stats=str(tmp_path / ("x" * 300)))
    (tmp_path / "a_file").write_text("")
    with pytest.raises(ValueError, match=r"`save_stats`: cannot write the statistics into .*a_file"):
        m.compute(predictions=X1, references=X1, save_stats=str(tmp_path / "a_file"))
    assert m.compute(predictions=X1, references=X1, save_stats=str(tmp_path / "ok"))["fid"] == pytest.approx(
        0, abs=1e-12
    )
    assert (tmp_path / "ok" / "predictions.npz").is_file()


def test_mm_score_fid_clip_confidence(models, tmp_path, capsys):
    """`mm-score fid-clip --confidence`: with one existing generated image per prompt, FID, CLIP score
    and score come from one resampling (= the module's compute on the same pairs); otherwise FID and the
    CLIP score (missing images counted 0) get separate intervals and a warning says why score has none."""
    from multimodal_metrics.cli import main

    split = tmp_path / "generation"
    prompts, pred = generation_split(split, ["Кот", "Собака", "Дом", "Лес"])
    (split / "in.json").write_text(json.dumps(prompts, ensure_ascii=False), encoding="utf-8")
    (split / "pred.json").write_text(json.dumps(pred), encoding="utf-8")
    argv = ["fid-clip", "--gt-images", str(split / "gt_images"), "--pred-images", str(split / "images"),
            "--input", str(split / "in.json"), "--pred", str(split / "pred.json"), "--preset", "default",
            "--inception-weights", str(models["inception"]), "--clip-model", str(models["hf"]), "--no-progress",
            "--json", "--confidence", "0.9", "--seed", "2"]  # fmt: skip
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    files = [str(split / "images" / f"{i}.png") for i in range(4)]
    expected = load_metric("fid_clip").compute(
        predictions=files, references=[str(split / "gt_images" / f"{i}.png") for i in range(4)],
        texts=["Кот", "Собака", "Дом", "Лес"], inception_weights=str(models["inception"]),
        clip_model=str(models["hf"]), confidence=0.9, seed=2,
    )  # fmt: skip
    for key in ("score", "fid", "clip_score"):
        for end in ("", "_ci_low", "_ci_high"):
            assert out[key + end] == pytest.approx(expected[key + end], rel=1e-9), key + end
    assert out["signature_fid"] == expected["signature"] and "|bs:200|seed:2|" in expected["signature"]
    pred["3"] = [{"type": "image", "content": "images/3.png"}]  # not at element 1: CLIP 0 (official loop)
    (split / "pred.json").write_text(json.dumps(pred), encoding="utf-8")
    assert main(argv) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert "no score interval" in captured.err and "score_ci_low" not in out
    assert out["fid_ci_low"] == pytest.approx(expected["fid_ci_low"], rel=1e-9)
    assert out["clip_score_ci_low"] <= out["clip_score"] <= out["clip_score_ci_high"]
    assert "|ci:bs-pct|conf:0.9|bs:200|seed:2|" in out["signature_clip"]
    assert main([*argv[:-2], "--n-resamples", "0"]) == 2 and "--n-resamples must" in capsys.readouterr().err
