"""CPU time of the library's `score` and `evaluate.load(...).compute` against each metric's pure function, every metric.

    .venv/bin/python benchmarks/bench_compute.py                       # all 8 metrics, their bench workloads
    .venv/bin/python benchmarks/bench_compute.py --only ned,text_qa    # some of them
    .venv/bin/python benchmarks/bench_compute.py --scale 0.1           # every workload x 0.1
    .venv/bin/python benchmarks/bench_compute.py --skip-reference      # leave the reference loops out

One row per workload: the pure function (the module's core on Python lists), the library's
`multimodal_metrics.<name>.score` (input checks, scoring, the result), `compute` on the same
inputs (input checks, evaluate's Arrow round trip, result), their ratio, and the reference where
there is one (official loop transcription or PyPI peer) with reference / compute. The workloads are
those of the per-metric scripts (inputs imported from them):

    anls        20,000 questions x 2 references of ~20 and ~8 chars, stvqa  reference: PyPI anls (per question)
    ned         2,000 pairs of 200-character lines                  reference: AIJ 2022 loop, nltk.edit_distance
    text_qa     10,000 questions x 2 answers, textqa and mathqa     reference: AIJ 2022 loops (pymorphy per token)
    vqa_acc     200,000 questions x 10 answers, vqa_v2              reference: official vqaEval loop
    det_f1      5,000 images, from Fusion Brain dicts               reference: Fusion Brain 2021 loop
    ru_meteor   10,000 captions x 5 refs (nltk), 5,000 (captioning) reference: NLTK meteor_score / FB 2022 loop
    codebleu    1,000 java and python function pairs, preset pypi   reference: PyPI codebleu 0.7.0 (own venv)
    fid_clip    10,000 x 2,048-d features per side                  reference: pytorch-fid formula (sqrtm)

CPU time (`time.process_time`, all threads of this process) because the machine is shared: wall
time there measures the neighbours. Best of 3 runs per side (fid_clip: 1, it takes seconds per
run), so caches (lemmas, stems, synonyms) are warm on both sides alike. Slow references run on a
tenth of the inputs and are scaled up (they are linear); PyPI codebleu runs in its own venv, best
of 2 (its own thread time). Expect +-20 % run to run on a loaded machine; the ratios are taken in
the same run. A full run is about 4 minutes of CPU (8 minutes wall on the shared 2-core box at a
load of 6); pytorch-fid's sqrtm alone takes ~45 s, so `--skip-reference` saves about a third.
"""

import argparse
import functools
import importlib
import tempfile
import warnings
from pathlib import Path
from typing import NamedTuple

from timing import ROOT, cpu_on_a_tenth, measure, offline_env

offline_env()
warnings.simplefilter("ignore")


class Row(NamedTuple):
    """One workload's CPU seconds: the pure function, compute, the reference (None: not timed), the library's score."""

    name: str
    pure: float
    compute: float
    ref: float | None
    ref_name: str
    library: float | None


ROWS: list[Row] = []


def line(
    name: str, pure: float, compute: float, ref: float | None = None, ref_name: str = "", library=None
) -> None:
    """One row; ``library``: the CPU time of the library's ``score`` (checks, scoring, the result) on the same inputs."""
    ROWS.append(Row(name, pure, compute, ref, ref_name, library))
    out = f"{name:44s} pure {pure * 1000:9.1f} ms   "
    if library is not None:
        out += f"library score {library * 1000:9.1f} ms ({library / pure:4.2f}x pure)   "
    out += f"compute {compute * 1000:9.1f} ms   compute/pure {compute / pure:5.2f}x"
    if ref is not None:
        out += f"   {ref_name or 'reference'} {ref * 1000:10.1f} ms   reference/compute {ref / compute:6.1f}x"
    print(out, flush=True)


def load(name: str, config: str | None = None):
    import evaluate

    return evaluate.load(str(ROOT / "metrics" / name), config)


def warmed(name: str, preds, refs, config: str | None = None, **kwargs):
    """The evaluate-loaded metric after one small compute (imports, caches), ready to be timed."""
    metric = load(name, config)
    metric.compute(predictions=preds[:5], references=refs[:5], **kwargs)
    return metric


def timed(name: str, ref_name: str, ref: float | None, pure, compute, library, runs: int = 3) -> None:
    """One row from three callables on the same inputs, each timed best of ``runs``."""
    line(name, measure(pure, runs).cpu, measure(compute, runs).cpu, ref, ref_name, measure(library, runs).cpu)


def tenth(reference, n: int):
    """``reference`` timed on a tenth of the inputs and scaled up (it is linear)."""
    return lambda preds, refs: cpu_on_a_tenth(reference, (preds, refs), n)


def workload(name: str, label: str, made, pure, reference, ref_name: str, preset: str | None = None) -> None:
    """One row for a metric scored on (predictions, references) lists: ``pure(preds, refs)``, the
    evaluate module's compute and the library's ``score`` with ``preset`` (its default when None);
    ``reference(preds, refs)`` gives its CPU seconds, or is None (not timed)."""
    library = importlib.import_module(f"multimodal_metrics.{name}")
    preds, refs = made
    metric = warmed(name, preds, refs, preset)
    ref = None if reference is None else reference(preds, refs)
    kwargs = {} if preset is None else {"preset": preset}
    timed(
        label,
        ref_name,
        ref,
        pure=lambda: pure(preds, refs),
        compute=lambda: metric.compute(predictions=preds, references=refs),
        library=lambda: library.score(preds, refs, **kwargs),
    )


# ------------------------------------------------------------------------------------------------
# one function per metric: (scale, with_reference) -> prints its rows
# ------------------------------------------------------------------------------------------------
def bench_anls(scale: float, with_ref: bool) -> None:
    import bench_anls

    from multimodal_metrics.anls import core

    n = int(20_000 * scale)
    reference = None
    if with_ref:
        from anls import anls_score

        def reference(preds, refs):
            return measure(lambda: [anls_score(p, r, threshold=0.5) for p, r in zip(preds, refs)]).cpu

    opts = dict(threshold=0.5, boundary="strict", text_norm="ws+lower", length_norm="normalized_upper")
    pure = functools.partial(core.anls_per_question, **opts)
    # PyPI anls measures each pair in Python (length x length steps): the ratio grows with the answers' length
    for length, label in (((10, 30), "~20 chars"), ((3, 13), "~8 chars")):
        made = bench_anls.make_inputs(n, length=length)
        name = f"anls stvqa, {n:,} questions x 2 refs of {label}"
        workload("anls", name, made, pure, reference, "PyPI anls", "stvqa")


def bench_ned(scale: float, with_ref: bool) -> None:
    import bench_ned

    from multimodal_metrics.ned import core

    n = int(2_000 * scale)
    reference = tenth(bench_ned.official_calculate_ned, n) if with_ref else None
    made = bench_ned.make_inputs(n)
    workload("ned", f"ned, {n:,} pairs x 200 chars", made, core.ned_per_example, reference, "AIJ loop (1/10)")


def bench_text_qa(scale: float, with_ref: bool) -> None:
    import bench_text_qa

    from multimodal_metrics.text_qa import core

    n = int(10_000 * scale)
    made = bench_text_qa.make_inputs(n)
    for preset, exact, opts in (
        ("textqa", False, {"measure": "f1", "keep_hyphen": False}),
        ("mathqa", True, {"measure": "exact_match", "keep_hyphen": True}),
    ):
        official = functools.partial(bench_text_qa.official_scores, exact=exact)
        reference = tenth(official, n) if with_ref else None
        pure = functools.partial(core.text_qa_per_example, **opts)
        label = f"text_qa {preset}, {n:,} questions x 2 answers"
        workload("text_qa", label, made, pure, reference, "AIJ loop (1/10)", preset)


def bench_vqa_acc(scale: float, with_ref: bool) -> None:
    import bench_vqa_acc

    n = int(200_000 * scale)
    reference = tenth(bench_vqa_acc.official_scores, n) if with_ref else None
    pure = bench_vqa_acc.core.vqa_v2_per_question
    made = bench_vqa_acc.make_inputs(n)
    workload("vqa_acc", f"vqa_acc vqa_v2, {n:,} questions x 10", made, pure, reference, "official (1/10)")


def bench_det_f1(scale: float, with_ref: bool) -> None:
    import bench_det_f1

    n = int(5_000 * scale)
    from multimodal_metrics import det_f1
    from multimodal_metrics.det_f1 import core

    true_annot, predictions = bench_det_f1.generate(n)
    preds, refs, _ = det_f1.from_fusion_brain(true_annot, predictions)
    metric = warmed("det_f1", preds, refs)
    ref = measure(lambda: bench_det_f1.reference_counts(true_annot, predictions), 3).cpu if with_ref else None
    timed(
        f"det_f1, {n:,} images (from dicts)",
        "FB 2021 loop",
        ref,
        pure=lambda: core.det_f1(preds, refs),
        compute=lambda: metric.compute(predictions=preds, references=refs),
        library=lambda: det_f1.score(preds, refs),
    )


def bench_ru_meteor(scale: float, with_ref: bool) -> None:
    import bench_ru_meteor as bench

    from multimodal_metrics import ru_meteor
    from multimodal_metrics.ru_meteor import core

    n = int(10_000 * scale)
    preds, refs = bench.make_captions(n, bench.EN_WORDS)
    metric = warmed("ru_meteor", preds, refs, "nltk")
    bench.warm_wordnet(core)
    opts = bench.nltk_options()
    ref = cpu_on_a_tenth(bench.nltk_peer, (preds, refs), n) if with_ref else None
    timed(
        f"ru_meteor nltk, {n:,} captions x 5 refs",
        "NLTK (1/10)",
        ref,
        pure=lambda: core.meteor_per_example(preds, refs, **opts),
        compute=lambda: metric.compute(predictions=preds, references=refs),
        library=lambda: ru_meteor.score(preds, refs, preset="nltk"),
    )

    n = int(5_000 * scale)
    preds, refs = bench.make_captions(n, bench.RU_WORDS, seed=2)
    with tempfile.TemporaryDirectory() as tmp:
        db = bench.make_ruwordnet_db(Path(tmp) / "ruwordnet.db")
        metric = load("ru_meteor", "captioning")
        metric.compute(predictions=preds[:5], references=refs[:5], ruwordnet_path=db)
        opts = {k: v for k, v in bench.core_presets()["captioning"].items() if k != "corpus_score"}
        ref = None
        if with_ref:
            wordnet = bench.SqliteRuWordNet(db)
            bench.fb_captioning_scores(preds[:5], refs[:5], wordnet)  # imports outside the timing
            ref = cpu_on_a_tenth(lambda p, r: bench.fb_captioning_scores(p, r, wordnet), (preds, refs), n)
        timed(
            f"ru_meteor captioning, {n:,} captions x 5",
            "FB loop (1/10)",
            ref,
            pure=lambda: core.meteor_per_example(preds, refs, ruwordnet_path=db, **opts),
            compute=lambda: metric.compute(predictions=preds, references=refs, ruwordnet_path=db),
            library=lambda: ru_meteor.score(preds, refs, preset="captioning", ruwordnet_path=db),
        )


def bench_codebleu(scale: float, with_ref: bool) -> None:
    import bench_codebleu

    n = int(1_000 * scale)
    from multimodal_metrics import codebleu
    from multimodal_metrics.codebleu import corpus as core

    metric = load("codebleu", "pypi")
    opts = dict(keywords="pypi", remove_comments="lang", strip=True, missing_dataflow="zero_is_one")

    from multimodal_metrics.codebleu.scoring import tree_source

    def one_language(lang):
        preds, refs = bench_codebleu.make_pairs(lang, n)
        nested = [[r] for r in refs]
        opts["trees"] = tree_source("wheels", lang)[0]  # the C walker where it is built, as compute
        core.corpus_codebleu(preds, nested, lang, **opts)  # grammar load, heap grown to the working size
        metric.compute(predictions=preds, references=refs, lang=lang)
        ref = None
        if with_ref and bench_codebleu.ORACLE_PY.is_file():
            ref = bench_codebleu.run_oracle(lang, preds, refs, 2)["seconds"]
        timed(
            f"codebleu {lang}, {n:,} function pairs",
            "PyPI codebleu",
            ref,
            pure=lambda: core.corpus_codebleu(preds, nested, lang, **opts),
            compute=lambda: metric.compute(predictions=preds, references=refs, lang=lang),
            library=lambda: codebleu.score(preds, refs, preset="pypi", lang=lang),
        )

    for lang in ("java", "python"):
        one_language(lang)


def bench_fid_clip(scale: float, with_ref: bool) -> None:
    import bench_fid_clip

    n = int(10_000 * scale)
    from multimodal_metrics import fid_clip
    from multimodal_metrics.fid_clip import core, moments

    a, b = bench_fid_clip.features(n, 2048, 1), bench_fid_clip.features(n, 2048, 2, shift=0.01)
    metric = load("fid_clip")
    metric.compute(predictions=a[:50], references=b[:50])

    def pure():
        return core.frechet_distance(
            moments.FrechetStats.from_features(a), moments.FrechetStats.from_features(b)
        )

    ref = measure(lambda: bench_fid_clip.pytorch_fid_from_features(a, b)).cpu if with_ref else None
    timed(
        f"fid_clip, {n:,} x 2,048-d features per side",
        "pytorch-fid",
        ref,
        pure=pure,
        compute=lambda: metric.compute(predictions=a, references=b),
        library=lambda: fid_clip.score(a, b),
        runs=1,
    )


BENCHES = {
    "anls": bench_anls,
    "ned": bench_ned,
    "text_qa": bench_text_qa,
    "vqa_acc": bench_vqa_acc,
    "det_f1": bench_det_f1,
    "ru_meteor": bench_ru_meteor,
    "codebleu": bench_codebleu,
    "fid_clip": bench_fid_clip,
}


def main(argv=None) -> list[Row]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every workload size")
    parser.add_argument("--only", default=",".join(BENCHES), help="comma-separated metric names")
    parser.add_argument(
        "--skip-reference", action="store_true", help="time only the pure function and compute"
    )
    args = parser.parse_args(argv)
    names = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = sorted(set(names) - set(BENCHES))
    if unknown:
        parser.error(f"unknown metric(s) {unknown}; expected some of {list(BENCHES)}")
    print("CPU time, best of 3 (fid_clip: 1); machine shared with other jobs: expect +-20 %", flush=True)
    for name in names:
        BENCHES[name](args.scale, not args.skip_reference)
    worst = max(ROWS, key=lambda row: row.compute / row.pure)
    print(f"largest compute/pure: {worst.compute / worst.pure:.2f}x ({worst.name})")
    return ROWS


if __name__ == "__main__":
    main()
