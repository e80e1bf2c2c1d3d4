"""The library's fid_clip without evaluate: score on the seed vectors, Result, compare, the option table,
and FID from feature vectors or statistics with torch, transformers and PIL unimportable."""

import subprocess
import sys

import numpy as np
import pytest

from multimodal_metrics import fid_clip

X1 = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
pytestmark = pytest.mark.filterwarnings("ignore:FID.*fewer samples than dimensions:UserWarning")


@pytest.mark.parametrize(
    "other,expected",
    [([[a + 1, b] for a, b in X1], 1.0), ([[2 * a, 2 * b] for a, b in X1], 1.166667), (X1, 0.0)],
)
def test_score_seed_vectors(other, expected):
    """seeds_reference.md 6.6: FID of given feature vectors, and the Fusion Brain 2022 combinations."""
    r = fid_clip.score(other, X1)
    assert r["fid"] == pytest.approx(expected, abs=1e-6)
    assert list(r) == ["fid", "signature"] and r.signature == "fid_clip|preset:default|feat:given|v:0.1.0"
    assert fid_clip.score(np.array(other), np.array(X1))["fid"] == r["fid"]  # (N, d) arrays, as lists
    stats = {"mu": [0.5, 0.5], "sigma": [[1 / 3, 0], [0, 1 / 3]]}
    assert fid_clip.score(other, reference_stats=stats)["fid"] == pytest.approx(expected, abs=1e-6)
    assert (
        fid_clip.generation_score(0.3, 120.5) == pytest.approx(0.34875)
        and fid_clip.captioning_score(0.3, 0.5) == 0.4
    )


def test_result_forms():
    rng = np.random.default_rng(0)
    gen, ref = rng.normal(size=(40, 3)), rng.normal(size=(30, 3)) + 0.2
    r = fid_clip.score(gen, ref, return_per_example=True)
    assert r["per_example"] == [] and r.per_example is None and r.statistic is None  # FID is set-level
    assert type(r.to_dict()) is dict and r.for_trainer() == {"fid_clip_fid": r["fid"]}
    ci = fid_clip.score(gen, ref, confidence=0.9, seed=3)
    assert list(ci) == ["fid", "fid_ci_low", "fid_ci_high", "signature"]
    assert ci["fid"] == r["fid"] and ci["fid_ci_low"] < ci["fid"] < ci["fid_ci_high"]
    assert (
        ci.signature
        == "fid_clip|preset:default|feat:given|ci:bs-pct|fidci:bias-shift|conf:0.9|bs:200|seed:3|v:0.1.0"
    )
    # the interval = bootstrap_fid (reference fixed) moved by the bias estimate
    values = fid_clip.bootstrap_fid(gen, ref.mean(axis=0), np.cov(ref, rowvar=False), 200, 3)
    expected = np.quantile(values - (values.mean() - r["fid"]), [0.05, 0.95])
    assert [ci["fid_ci_low"], ci["fid_ci_high"]] == pytest.approx(expected, rel=1e-9)
    assert "|bs:50|" in fid_clip.score(gen, ref, confidence=0.9, n_resamples=50).signature
    for preset in fid_clip.PRESETS:  # FID of feature vectors does not depend on the preset
        assert fid_clip.score(gen, ref, preset)["fid"] == r["fid"]


def test_compare_pairs_clip_scores(tmp_path):
    """compare() runs the paired test on the CLIP scores of two image sets with the same texts (a tiny random
    transformers CLIP written to disk); FID alone has nothing to pair."""
    from _fid_clip_fixtures import random_images, tiny_hf_clip

    tiny_hf_clip(tmp_path / "clip")
    texts = ["a cat", "a dog", "dog", "cat", "a", "b"]
    a, b = random_images(6, seed=21), random_images(6, seed=22)
    r = fid_clip.score(a, texts=texts, clip_model=str(tmp_path / "clip"), return_per_example=True)
    assert list(r) == ["clip_score", "signature", "per_example"] and len(r.per_example) == 6
    assert r.statistic.value()[0] == pytest.approx(r["clip_score"]) and "|clip:clip|tmpl:none|" in r.signature
    out = fid_clip.compare(a, b, texts=texts, clip_model=str(tmp_path / "clip"), n_resamples=200)
    assert out["clip_score_a"] == pytest.approx(r["clip_score"])
    assert out["clip_score_difference"] == pytest.approx(out["clip_score_a"] - out["clip_score_b"])
    assert 0 < out["clip_score_p_value"] <= 1 and "test:paired-ar|n:200" in out["signature"]
    with pytest.raises(ValueError, match="`texts`: compare"):
        fid_clip.compare(X1, X1, X1)


def test_option_table_drives_the_checks():
    assert fid_clip.OPTIONS.names == list(fid_clip.PRESETS["default"])  # rows in the order they are checked
    assert set(fid_clip.PRESETS) == {"default", "fusion_brain_2022", "clipscore"}
    assert fid_clip.PRESETS["fusion_brain_2022"]["clip_templates"] == fid_clip.RUCLIP_TEMPLATES
    cases = [
        ({"pre_resize": -1}, ValueError, r"`pre_resize` must be a number in \[0, 4096\]"),
        ({"inception_weights": 3}, TypeError, r"`inception_weights` must be a path, got int"),
        ({"save_stats": "x" * 300}, ValueError, r"`save_stats`: the folder name .* 300 bytes long"),
        ({"feature_extractor": 3}, TypeError, r"`feature_extractor` must be a torch module"),
        (
            {"clip_templates": ["a"]},
            ValueError,
            r"`clip_templates\[0\]` must be a string with exactly one '\{\}'",
        ),
        ({"clip_lowercase": 1}, TypeError, r"`clip_lowercase` must be True or False"),
        ({"clip_preprocess": "crop"}, ValueError, r"`clip_preprocess` must be one of"),
        ({"clip_scale": 0}, ValueError, r"`clip_scale` must be > 0"),
        ({"meteor": 2}, ValueError, r"`meteor` must be a number in \[0.0, 1.0\]"),
        ({"device": "gpu"}, ValueError, r"`device` must be 'cpu', 'cuda' or 'cuda:N'"),
        ({"batch_size": 0}, ValueError, r"`batch_size` must be a positive integer"),
        ({"no_such_option": 1}, ValueError, r"fid_clip: unknown option 'no_such_option'"),
        ({"preset": "fb2022"}, ValueError, r"unknown preset \(config_name\) 'fb2022'"),
        ({"confidence": 1.5, "pre_resize": -1}, ValueError, r"`confidence`"),  # resampling, then options
        ({"return_per_example": 1, "pre_resize": -1}, TypeError, r"`return_per_example`"),
        ({"pre_resize": -1, "inception_weights": 3}, ValueError, r"`pre_resize`"),  # in the table's order
    ]
    for options, error, match in cases:
        with pytest.raises(error, match=match):
            fid_clip.score(X1, X1, **options)
    with pytest.raises(TypeError, match=r"`progress` must be True or False"):  # options before the inputs
        fid_clip.score([[0.0, 1.0], "no such file"], X1, progress="yes")
    with pytest.raises(
        ValueError, match=r"`predictions\[1\]` has a 1-d feature vector but `predictions\[0\]` has 2-d"
    ):
        fid_clip.score([[0.0, 1.0], [1.0], [2.0, 0.0]], X1)
    with pytest.raises(ValueError, match=r"`texts` has 2 entries but `predictions` has 4"):
        fid_clip.score(X1, X1, texts=["a", "b"])
    assert fid_clip.score(X1, X1, pre_resize=0).signature.endswith("feat:given|v:0.1.0")
    with pytest.raises(ValueError, match="`pre_resize` must be a whole number"):  # was truncated to 0
        fid_clip.score(X1, X1, pre_resize=0.5)
    doc = fid_clip.OPTIONS.describe()
    assert "clip_scale (`float`, optional)" in doc and "One of 'none', 'per_example', 'mean'" in doc


def test_fid_of_features_and_statistics_needs_numpy_and_scipy_only(tmp_path):
    """With torch, transformers, PIL (and evaluate) unimportable: FID of feature vectors, of statistics, its
    interval and saved statistics; images then ask for the missing library."""
    code = f"""
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("torch", "transformers", "PIL", "evaluate", "datasets", "torchvision"):
            raise ImportError(f"blocked: {{name}}")
sys.meta_path.insert(0, Block())
import numpy as np
from multimodal_metrics import fid_clip
rng = np.random.default_rng(0)
gen, ref = rng.normal(size=(50, 4)), rng.normal(size=(60, 4))
r = fid_clip.score(gen, ref, confidence=0.9, n_resamples=20, save_stats={str(tmp_path)!r})
s = fid_clip.score(list(gen), reference_stats={str(tmp_path / "references.npz")!r}, progress=False, batch_size=3)
assert abs(s["fid"] - r["fid"]) <= 1e-9 * r["fid"], (s, r)
try:
    fid_clip.score(np.zeros((2, 8, 8, 3), dtype=np.uint8), ref)
except ImportError as err:
    print("images:", err)
print(sorted(m for m in ("torch", "transformers", "PIL") if m in sys.modules), round(r["fid"], 6))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.strip().splitlines()
    # one error naming the extra that installs what images need
    assert (
        lines[0]
        == "images: fid_clip with images needs pillow, torch (not installed): pip install 'multimodal-metrics[vision]'"
    )
    assert lines[-1].startswith("[] ")
