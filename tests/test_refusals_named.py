"""Refusals that name the argument at fault: compare's two systems, a preset that is not a string, statistics
with an impossible count, box lists nested too deeply to print, resource paths that are no file, image file
names that are not UTF-8."""

import importlib
import os

import numpy as np
import pytest
from helpers import METRICS, ROOT

# metric -> (two good predictions, their references, options)
_PAIRS = {
    "anls": (["a", "b"], [["a"], ["b"]], {}),
    "ned": (["a", "b"], [["a"], ["b"]], {}),
    "text_qa": (["a", "b"], [["a"], ["b"]], {}),
    "vqa_acc": (["a", "b"], [["a"] * 10, ["b"] * 10], {}),
    "codebleu": (["x = 1", "y = 2"], [["x = 1"], ["y = 2"]], {"lang": "python"}),
    "ru_meteor": (["кот", "пёс"], [["кот"], ["пёс"]], {"synonyms": "none"}),
    "det_f1": ([{"cat": [[0, 0, 1, 1]]}] * 2, [{"cat": [[0, 0, 1, 1]]}] * 2, {}),
}


def _bad_systems(preds):
    """(label, predictions_a, predictions_b, the argument and index the error must name)."""
    holed = [preds[0], None]
    return [
        ("None in B", preds, holed, r"`predictions_b\[1\]`"),
        ("short B", preds, preds[:1], r"`predictions_b` has 1"),
        ("None in A", holed, preds, r"`predictions_a\[1\]`"),
        ("a string as B", preds, "ab", r"`predictions_b` must be a list"),
    ]


@pytest.mark.parametrize("name", sorted(_PAIRS))
def test_library_compare_names_the_system_and_scores_neither_when_one_is_bad(name, monkeypatch):
    """``compare(["a", "b"], ["a", None], refs)`` names ``predictions_b[1]`` (was ``predictions[1]``), and
    system A is not scored when B is refused (was: A scored in full, then B checked)."""
    from multimodal_metrics import stats

    module = importlib.import_module(f"multimodal_metrics.{name}")
    preds, refs, options = _PAIRS[name]
    scored = []
    naming_system = stats.naming_system

    def spy(arg):  # compare scores each system inside naming_system(arg)
        scored.append(1)
        return naming_system(arg)

    monkeypatch.setattr(stats, "naming_system", spy)
    for label, a, b, named in _bad_systems(preds):
        with pytest.raises((ValueError, TypeError), match=named):
            module.compare(a, b, refs, n_resamples=10, **options)
        assert scored == [], label
    module.compare(preds, preds, refs, n_resamples=10, **options)
    assert scored == [1, 1]


def test_library_compare_names_the_system_in_errors_found_when_scoring():
    """A coordinate of system B that is refused when scoring (det_f1 checks values by box format) names
    ``predictions_b``."""
    from multimodal_metrics import det_f1

    refs = [{"cat": [[0, 0, 1, 1]]}] * 2
    with pytest.raises(ValueError, match=r"`predictions_b\[1\]` class 'cat', box 0: NaN"):
        det_f1.compare(refs, [refs[0], {"cat": [[0, 0, float("nan"), 1]]}], refs, n_resamples=10)


@pytest.mark.parametrize("name", ["anls", "det_f1", "vqa_acc"])
def test_evaluate_compare_names_the_system_and_scores_neither_when_one_is_bad(name, tmp_path):
    import evaluate

    preds, refs, options = _PAIRS[name]
    metric = evaluate.load(str(METRICS / name), cache_dir=str(tmp_path))
    computed = []
    compute = metric.compute

    def spy(**kwargs):
        computed.append(1)
        return compute(**kwargs)

    metric.compute = spy
    for label, a, b, named in _bad_systems(preds):
        with pytest.raises((ValueError, TypeError), match=named):
            metric.compare(predictions_a=a, predictions_b=b, references=refs, n_resamples=10, **options)
        assert computed == [], label
    assert metric.compare(predictions_a=preds, predictions_b=preds, references=refs, n_resamples=10)
    assert computed == [1, 1]


# ----------------------------------------------------------------------------------------------
# preset
# ----------------------------------------------------------------------------------------------
_SCORE_INPUTS = {
    **{name: (preds, refs) for name, (preds, refs, _) in _PAIRS.items()},
    "fid_clip": ([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]], [[0.0, 1.0], [1.0, 0.0], [0.2, 0.5]]),
}


@pytest.mark.parametrize("name", sorted(_SCORE_INPUTS))
@pytest.mark.parametrize("preset", [["default"], {"default": 1}, 3, None])
def test_a_preset_that_is_not_a_string_is_named(name, preset):
    """``score(..., preset=["default"])`` was ``TypeError: unhashable type: 'list'``."""
    module = importlib.import_module(f"multimodal_metrics.{name}")
    preds, refs = _SCORE_INPUTS[name]
    with pytest.raises(TypeError, match=r"`preset` \(config_name\) must be a preset name .*'default'"):
        module.score(preds, refs, preset=preset)


# ----------------------------------------------------------------------------------------------
# fid_clip statistics with a count beyond any float
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "n", [10**400, 10**5000, 2**63, np.uint64(2**64 - 1)], ids=["1e400", "1e5000", "2^63", "u64"]
)
def test_reference_stats_with_an_impossible_count_are_refused(n):
    """``reference_stats={"mu", "sigma", "n": 10**400}`` was an OverflowError (and 10**5000 could not even
    be printed)."""
    from multimodal_metrics import fid_clip

    x = np.random.default_rng(0).normal(size=(20, 4))
    stats = {"mu": x.mean(0), "sigma": np.cov(x, rowvar=False), "n": n}
    with pytest.raises(ValueError, match=r"`reference_stats`: n must be a whole number below 2\*\*63"):
        fid_clip.score(predictions=list(x), reference_stats=stats)
    stats["n"] = 2**63 - 1
    assert fid_clip.score(predictions=list(x), reference_stats=stats)["fid"] == pytest.approx(0.0, abs=1e-9)


# ----------------------------------------------------------------------------------------------
# det_f1 box lists nested 100,000 deep
# ----------------------------------------------------------------------------------------------
def _nested(value, depth, kind=list):
    for _ in range(depth):
        value = kind([value])
    return value


_DEEP = _nested([0, 0, 1, 1], 100_000)
_DEEP_CASES = {
    "class box list": {"cat": _DEEP},
    "one box": {"cat": [_DEEP]},
    "a coordinate": {"cat": [[_DEEP, 0, 1, 1]]},
    "record": {"classes": ["cat"], "boxes": [_DEEP]},
    "class name": {_nested("cat", 100_000, tuple): [[0, 0, 1, 1]]},
}


@pytest.mark.parametrize("case", sorted(_DEEP_CASES))
@pytest.mark.parametrize("side", ["predictions", "references"])
def test_det_f1_box_lists_nested_100000_deep_are_refused_by_name(case, side):
    """A RecursionError while building the message before; now the message shows a few levels."""
    from multimodal_metrics import det_f1

    good = [{"cat": [[0, 0, 1, 1]]}]
    bad = [_DEEP_CASES[case]]
    inputs = {"predictions": good, "references": good, side: bad}
    with pytest.raises((ValueError, TypeError), match=rf"`{side}\[0\]`.*\.\.\."):
        det_f1.score(inputs["predictions"], inputs["references"])


# ----------------------------------------------------------------------------------------------
# resource paths
# ----------------------------------------------------------------------------------------------
NLTK_WORDNET = ROOT / ".build" / "nltk_data" / "corpora" / "wordnet"


@pytest.mark.parametrize("lexnames", [b"garbage\x00\xff\n", b"no tabs here\n", b"05\tnoun.Tops\t1\n"])
def test_a_wordnet_path_with_a_garbage_lexnames_file_is_named(tmp_path, lexnames):
    """A WordNet directory whose `lexnames` is not WordNet's (undecodable, wrong fields, wrong numbering) was a
    raw UnicodeDecodeError / ValueError / AssertionError from NLTK's reader."""
    from multimodal_metrics import ru_meteor, vqa_acc

    if not NLTK_WORDNET.is_dir():
        pytest.skip("NLTK's WordNet corpus comes with the test set-up")
    corpus = tmp_path / "corpora" / "wordnet"
    corpus.mkdir(parents=True)
    for f in NLTK_WORDNET.iterdir():
        if f.name != "lexnames":
            (corpus / f.name).symlink_to(f)
    (corpus / "lexnames").write_bytes(lexnames)
    for call in (
        lambda: ru_meteor.score(["a cat"], [["a cat"]], preset="nltk", wordnet_path=str(tmp_path)),
        lambda: vqa_acc.score(["cat"], [["cat"]], preset="wups", wordnet_path=str(tmp_path)),
    ):
        with pytest.raises(ValueError, match=r"under `wordnet_path`="):
            call()


@pytest.mark.parametrize("path", ["/tmp/ru\x00wordnet.db", "x" * 5000])
def test_a_ruwordnet_path_that_no_file_system_takes_is_named(path):
    """A NUL byte in ``ruwordnet_path`` was "ValueError: embedded null byte", a name too long a bare OSError."""
    from multimodal_metrics import ru_meteor

    with pytest.raises(ValueError, match=r"RuWordNet database was not found at `ruwordnet_path`="):
        ru_meteor.score(["кот"], [["кот"]], preset="ru", ruwordnet_path=path)


# ----------------------------------------------------------------------------------------------
# fid_clip image files whose names are not UTF-8
# ----------------------------------------------------------------------------------------------
def test_fid_clip_scores_image_files_whose_names_are_not_utf8(tmp_path):
    """Python holds such names with surrogate escapes, which Arrow cannot store as strings: evaluate's fid_clip
    raised UnicodeEncodeError from pyarrow while the library scored the same files. Now both paths (one
    compute, add_batch then compute) score them, as the library does."""
    import evaluate
    import torch
    from PIL import Image

    from multimodal_metrics import fid_clip

    rng = np.random.default_rng(0)
    paths = []
    for i in range(4):
        path = os.fsdecode(os.fsencode(str(tmp_path)) + b"/image-\xff\xfe-%d.png" % i)
        Image.fromarray(rng.integers(0, 255, (16, 16, 3), dtype=np.uint8)).save(path)
        paths.append(path)
    generated, real = paths[:2] + paths[:1], paths[2:] + paths[3:]

    def features(batch):
        return torch.as_tensor(np.asarray(batch, dtype=np.float64).reshape(len(batch), -1)[:, :2])

    wanted = fid_clip.score(predictions=generated, references=real, feature_extractor=features)["fid"]
    metric = evaluate.load(str(METRICS / "fid_clip"), cache_dir=str(tmp_path / "cache"))
    assert metric.compute(predictions=generated, references=real, feature_extractor=features)["fid"] == wanted
    metric.add_batch(predictions=generated, references=real)
    assert metric.compute(feature_extractor=features)["fid"] == wanted
