"""What a careful user needs to be told: a paired test on too few examples, VQA accuracy on questions with
fewer than 4 answers, a grammar library that is code which runs; and fid_clip's memory with a large
``pre_resize``."""

import shutil
import subprocess
import warnings

import numpy as np
import pytest
from helpers import METRICS


# ----------------------------------------------------------------------------------------------
# compare on too few examples
# ----------------------------------------------------------------------------------------------
def test_paired_bootstrap_on_one_example_warns():
    """On 1 example the paired bootstrap gives p = 1/1001 for any difference (the randomisation test: 1.0);
    it warned of nothing."""
    from multimodal_metrics import anls

    with pytest.warns(
        UserWarning, match=r"paired_bootstrap on 1 example\(s\): with fewer than 30 its p-value"
    ):
        result = anls.compare(["a"], ["b"], [["a"]], test="paired_bootstrap")
    assert result["anls_p_value"] == pytest.approx(1 / 1001)


@pytest.mark.parametrize(
    ("n", "test", "warned"),
    [
        (29, "paired_bootstrap", True),
        (30, "paired_bootstrap", False),
        (5, "approximate_randomization", True),
        (6, "approximate_randomization", False),
    ],
)
def test_paired_tests_warn_below_the_size_they_need(n, test, warned):
    from multimodal_metrics import anls

    preds_a, preds_b, refs = ["a"] * n, ["a"] * (n - 1) + ["b"], [["a"]] * n
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        anls.compare(preds_a, preds_b, refs, test=test, n_resamples=200)
    assert any(test in str(w.message) for w in caught) == warned


def test_the_evaluate_compare_warns_too(tmp_path):
    import evaluate

    metric = evaluate.load(str(METRICS / "det_f1"), cache_dir=str(tmp_path))
    boxes = [{"cat": [[0, 0, 1, 1]]}] * 3
    with pytest.warns(UserWarning, match=r"paired_bootstrap on 3 example\(s\)"):
        metric.compare(predictions_a=boxes, predictions_b=boxes, references=boxes, test="paired_bootstrap")


def test_the_paired_bootstrap_rejects_a_true_null_too_often_on_few_examples():
    """Why 30: two systems with the same distribution of per-example scores (uniform in [0, 1]); the share of
    p < 0.05 from the paired bootstrap is about 0.12 on 8 examples, 0.075 on 20, 0.059 on 30 and 0.054 on 50
    (2,000 trials each). Here 500 trials of 300 resamples, fixed seeds: well above 0.05 on 8 examples,
    near it on 50."""
    from multimodal_metrics import stats

    rng = np.random.default_rng(11)

    def rejected(n, trials=500):
        count = 0
        for trial in range(trials):
            a, b = (stats.mean_statistic({"s": rng.random(n)}) for _ in range(2))
            count += stats.paired_bootstrap(a, b, 300, trial)["s"]["p_value"] < 0.05
        return count / trials

    assert rejected(8) > 0.09
    assert rejected(50) < 0.075


# ----------------------------------------------------------------------------------------------
# vqa_acc with fewer than 4 answers per question
# ----------------------------------------------------------------------------------------------
def test_vqa_accuracy_with_fewer_than_4_answers_warns():
    """``vqa_acc.score(["cat"], [["cat"]], num_answers=0)`` is 0.0 for an exact answer (the official
    leave-one-out formula) and said nothing."""
    from multimodal_metrics import vqa_acc

    with pytest.warns(
        UserWarning, match=r"1 question\(s\) have fewer than 4 answers \(`references\[0\]`: 1\)"
    ):
        assert vqa_acc.score(["cat"], [["cat"]], num_answers=0)["accuracy"] == 0.0
    with pytest.warns(
        UserWarning, match=r"2 question\(s\) have fewer than 4 answers \(`references\[1\]`: 3\)"
    ):
        vqa_acc.score(["a", "b", "c"], [["a"] * 4, ["b"] * 3, ["c", "c"]], num_answers=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert vqa_acc.score(["cat"], [["cat"] * 4], num_answers=0)["accuracy"] == 1.0
        assert vqa_acc.score(["cat"], [["cat"] * 10])["accuracy"] == 1.0


# ----------------------------------------------------------------------------------------------
# codebleu: a grammar library is code that runs
# ----------------------------------------------------------------------------------------------
def test_a_grammar_library_runs_before_it_is_checked_and_the_card_says_so(tmp_path):
    """A shared library given as ``grammar_library`` is loaded (its constructor runs) before anything checks
    what it exports: the card says so in the option's description."""
    card = (METRICS / "codebleu" / "README.md").read_text(encoding="utf-8")
    option = card[card.index("- **grammar_library**") : card.index("- **return_per_example**")]
    assert "native code that runs in the scoring process" in " ".join(option.split())
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler")
    marker = tmp_path / "constructor-ran"
    source = tmp_path / "lib.c"
    source.write_text(
        "#include <stdio.h>\n"
        "__attribute__((constructor)) static void ran(void) {\n"
        f'  FILE *f = fopen("{marker}", "w"); if (f) fclose(f);\n'
        "}\n"
    )
    library = tmp_path / "not-grammars.so"
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(library), str(source)], check=True)
    from multimodal_metrics import codebleu

    with pytest.raises(ValueError, match="grammar_library"):
        codebleu.score(["x = 1"], [["x = 1"]], lang="python", grammar_library=str(library))
    if not marker.exists():
        pytest.skip("no runtime of 2020 here: the library was refused before it was loaded")


# ----------------------------------------------------------------------------------------------
# fid_clip: a large pre_resize goes through in smaller batches
# ----------------------------------------------------------------------------------------------
def _batches(pre_resize, n=3, **options):
    import torch

    from multimodal_metrics import fid_clip

    rng = np.random.default_rng(0)
    images = [rng.integers(0, 255, (16, 16, 3), dtype=np.uint8) for _ in range(n)]
    shapes = []

    def means(batch):
        shapes.append(tuple(batch.shape))
        return batch.mean(dim=(2, 3)).to(torch.float64)

    fid = fid_clip.score(
        predictions=images,
        references=images[::-1],
        feature_extractor=means,
        pre_resize=pre_resize,
        num_workers=0,
        batch_size=64,
        **options,
    )["fid"]
    return fid, shapes


def test_a_large_pre_resize_is_batched_by_size(monkeypatch):
    """The batch tensor of pre_resize'd images stays under ``extract.BATCH_BYTES``: at 512 x 512 (3 MiB an image)
    and a 4 MiB budget, one image per batch instead of all of them; the score is the same."""
    from multimodal_metrics.fid_clip import extract

    whole, shapes = _batches(512)
    assert shapes == [(3, 3, 512, 512)] * 2
    monkeypatch.setattr(extract, "BATCH_BYTES", 4 << 20)
    split, shapes = _batches(512)
    assert shapes == [(1, 3, 512, 512)] * 6
    assert split == whole


def test_pre_resize_4096_holds_one_image_per_batch():
    """The largest pre_resize the option table allows: 201 MiB an image, one per batch (64 images asked for
    4 GB and more per batch and failed with RuntimeError/MemoryError)."""
    from multimodal_metrics.fid_clip import extract

    _, shapes = _batches(4096, n=2)
    assert shapes == [(1, 3, 4096, 4096)] * 4
    assert 3 * 4 * 4096 * 4096 <= extract.BATCH_BYTES
