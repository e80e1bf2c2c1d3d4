"""FID, CLIP score and the AIJ 2022 Fusion Brain generation / captioning scores, as an evaluate module."""

import hashlib
import os
import re
from pathlib import Path

import datasets
import evaluate
import numpy as np

from ._clip import RUCLIP_TEMPLATES, clip_scores, load_clip
from ._fid_core import FrechetStats, captioning_score, frechet_distance, generation_score, load_stats
from ._images import NONE, image_batch, pack, unpack
from ._inception import load_fid_inception, preprocess
from ._mm_common import (
    OptionsCheckedFirst,
    TrainerResults,
    as_list,
    build_signature,
    check_bool,
    check_choice,
    check_number,
    check_preset,
    check_string,
    checked_features,
    make_result,
    resolve_options,
)
from ._mm_stats import (
    PairedComparison,
    Resampling,
    Statistic,
    bootstrap_fid,
    bootstrap_sums,
    percentile_interval,
)

_CITATION = """\
@inproceedings{heusel2017gans,
  title={GANs Trained by a Two Time-Scale Update Rule Converge to a Local Nash Equilibrium},
  author={Heusel, Martin and Ramsauer, Hubert and Unterthiner, Thomas and Nessler, Bernhard and Hochreiter, Sepp},
  booktitle={NeurIPS},
  year={2017}
}
@inproceedings{hessel2021clipscore,
  title={CLIPScore: A Reference-free Evaluation Metric for Image Captioning},
  author={Hessel, Jack and Holtzman, Ari and Forbes, Maxwell and Le Bras, Ronan and Choi, Yejin},
  booktitle={EMNLP},
  year={2021}
}
@misc{fusionbrain2022,
  title={FusionBrain Challenge 2.0 (AI Journey 2022)},
  author={{Sber AI}},
  year={2022},
  howpublished={\\url{https://github.com/ai-forever/fbc2_aij2022}}
}
"""

_DESCRIPTION = """\
FID (Frechet Inception Distance) between generated and real images, CLIP score of (image, text)
pairs, and the AIJ 2022 Fusion Brain combinations: image generation
score = 0.5 * (CLIP + (200 - min(200, FID)) / 200), image captioning score = 0.5 * (METEOR + CLIP).
FID statistics are running float64 sums (memory independent of the number of images, mergeable);
the Frechet distance uses a symmetric eigenvalue route instead of scipy.linalg.sqrtm (same value,
no imaginary parts, several times faster). The Inception network is pytorch-fid's FID Inception
(TF 2015-12-05 weights) written in torch here. The default preset equals pytorch-fid's FID and a
raw-cosine CLIP score with any transformers CLIP checkpoint; `fusion_brain_2022` reproduces the
contest script (256x256 resize before Inception; ruCLIP ViT-L/14-336 with six Russian prompt
templates, lower-cased text, centre-square crop); `clipscore` gives CLIP-S (2.5 * max(cos, 0),
"A photo depicts" prefix). Every choice is an option and is recorded in `signature`.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: generated images (file paths, encoded bytes, PIL images, numpy arrays, torch tensors; a
        4-D array is a batch of images) or precomputed feature vectors (a 2-D (N, d) array). The
        generated side of FID and the image side of the CLIP score.
    references: real images or feature vectors, the reference side of FID (may differ in number from
        `predictions`). Without `predictions`, the image side of the CLIP score (captioning: the
        captioned images).
    texts (`list` of `str`, optional): one text per CLIP image: the prompt (generation) or the
        generated caption (captioning). Without texts no CLIP score is computed.
    inception_weights (`str`, optional): path to pytorch-fid's `pt_inception-2015-12-05-6726825d.pth`.
        Default: the torch hub cache ($TORCH_HOME/hub/checkpoints/), downloaded there when online.
    feature_extractor (`torch.nn.Module`, optional): any module mapping (B, 3, H, W) images in [0, 1]
        to (B, d) features, used instead of the FID Inception network (set to eval mode, moved to `device`).
    pre_resize (`int`, optional): resize every image to this square size with PIL bilinear before
        the extractor (Fusion Brain 2022: 256); 0 = no resize (pytorch-fid).
    reference_stats (`str` or `dict`, optional): a pytorch-fid `.npz` (keys mu, sigma) or a dict with
        mu and sigma, used as the reference side of FID instead of `references`.
    save_stats (`str`, optional): a directory; writes `predictions.npz` / `references.npz` (mu, sigma, n)
        for the sides computed here (pytorch-fid format, reusable as `reference_stats`).
    clip_model (`str`, optional): local folder of a transformers CLIP checkpoint, or of ruCLIP
        (bpe.model, config.json, pytorch_model.bin).
    clip_templates (`list` of `str`, optional): prompt templates containing "{}"; text embeddings are
        averaged over them (unnormalised) and L2-normalised.
    clip_lowercase (`bool`, optional): lower-case and strip the texts first.
    clip_preprocess (`str`, optional): "processor" (the checkpoint's CLIP image processor) or
        "center_square_bilinear" (ruCLIP: centred max square, bilinear resize).
    clip_truncation (`str`, optional): "keep_end" (cut long texts, keep the end token) or "slice"
        (cut the token ids, as torchmetrics: the end token is lost).
    clip_scale (`float`, optional): multiply the cosine (1 raw, 2.5 CLIP-S, 100 torchmetrics).
    clip_clamp (`str`, optional): "none", "per_example" (max(s, 0) per pair, CLIP-S) or "mean"
        (max(mean, 0), torchmetrics).
    meteor (`float`, optional): a METEOR value in [0, 1] (e.g. from the ru_meteor module): adds
        score = 0.5 * (METEOR + CLIP) (Fusion Brain 2022 captioning).
    device (`str`, optional): "cpu" (default), "cuda" or "cuda:N".
    batch_size (`int`, optional): images per forward pass. Default 20.
    progress (`bool`, optional): show a tqdm bar (default: when there are more than 5 batches).
    confidence (`float`, optional): e.g. 0.95: also return bootstrap intervals `<key>_ci_low`/`_high`
        of `fid`, `clip_score` and the generation `score`, resampling the generated images (with
        their texts); the reference side of FID is held fixed. `clip_score`: percentile interval;
        `fid` (and `score`): percentile interval moved by the bootstrap bias estimate (resampled FIDs
        are biased upwards, see the card). Keeps the generated features in memory (n x d float64).
        Default None (no interval).
    n_resamples (`int`, optional): bootstrap resamples of `confidence`. Default 200 when FID is
        computed (one eigendecomposition each: ~0.2-1.3 s of CPU at d = 2048), else 1000.
    seed (`int`, optional): seed of the resampling (numpy default_rng). Default 12345.
    return_per_example (`bool`, optional): also return the CLIP score of every pair (an empty list
        when only FID is computed: FID has no per-example value).
Returns:
    fid (`float`): the Frechet distance (when both FID sides are given; >= 0 up to round-off).
    clip_score (`float`): mean CLIP score over the pairs (when `texts` are given).
    score (`float`): the Fusion Brain generation score (FID and CLIP) or captioning score (`meteor`).
    <key>_ci_low, <key>_ci_high (`float`): with `confidence`, the interval of each score above (not of
        the captioning `score`: METEOR is given as one number and cannot be resampled here).
    signature (`str`): every option that changes the number.
    per_example (`list` of `float`): with `return_per_example=True`, the CLIP score of every pair.
Examples:
    >>> fid_clip = evaluate.load("metrics/fid_clip")
    >>> x1 = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    >>> r = fid_clip.compute(predictions=[[a + 1, b] for a, b in x1], references=x1)
    >>> round(r["fid"], 6), r["signature"]
    (1.0, 'fid_clip|preset:default|feat:given|v:0.1.0')
    >>> round(fid_clip.compute(predictions=[[2 * a, 2 * b] for a, b in x1], references=x1)["fid"], 6)
    1.166667
    >>> fid_clip.compute(predictions=x1, references=x1, reference_stats={"mu": [0.5, 0.5], "sigma": [[1 / 3, 0], [0, 1 / 3]]})["fid"]
    0.0
"""

PRESETS = {
    # pytorch-fid's FID (no pre-resize) and the seed's raw cosine with any transformers CLIP.
    "default": {
        "inception_weights": None,
        "feature_extractor": None,
        "pre_resize": 0,
        "reference_stats": None,
        "save_stats": None,
        "clip_model": None,
        "clip_templates": ("{}",),
        "clip_lowercase": False,
        "clip_preprocess": "processor",
        "clip_truncation": "keep_end",
        "clip_scale": 1.0,
        "clip_clamp": "none",
        "meteor": None,
        "device": "cpu",
        "batch_size": 20,
        "progress": None,
    },
}
# AIJ 2022 FusionBrain Challenge 2.0 evaluate_fid_clip.py / evaluate_ruclip_meteor.py (seeds_reference 1.3, 1.4)
PRESETS["fusion_brain_2022"] = dict(
    PRESETS["default"],
    pre_resize=256,
    clip_templates=RUCLIP_TEMPLATES,
    clip_lowercase=True,
    clip_preprocess="center_square_bilinear",
)
# CLIP-S of Hessel et al. 2021 (jmhessel/clipscore): 2.5 * max(cos, 0), "A photo depicts" prefix
PRESETS["clipscore"] = dict(
    PRESETS["default"], clip_templates=("A photo depicts {}",), clip_scale=2.5, clip_clamp="per_example"
)

PREPROCESS = ("processor", "center_square_bilinear")
TRUNCATION = ("keep_end", "slice")
CLAMP = ("none", "per_example", "mean")

FID_RESAMPLES = 200  # default n_resamples when FID is resampled (see the card: cost and Monte Carlo error)
NAME_MAX = 255  # bytes per path component on Linux, macOS and Windows file systems
_ITEM = {"kind": datasets.Value("string"), "text": datasets.Value("string"), "data": datasets.Value("binary")}
_MODELS = {}  # loaded networks, kept between compute calls (Trainer evaluations, the demo)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class FidClip(TrainerResults, PairedComparison, OptionsCheckedFirst, evaluate.Metric):
    def _info(self):
        check_preset("fid_clip", self.config_name, PRESETS)
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            # add_batch checks every example and packs it to the stored Python types (str, bytes, None):
            # evaluate's per-value encoding is skipped
            features=checked_features(
                datasets.Features(
                    {"predictions": dict(_ITEM), "references": dict(_ITEM), "texts": datasets.Sequence(datasets.Value("string"))}
                )
            ),
            homepage="https://github.com/ai-forever/fbc2_aij2022",
            reference_urls=[
                "https://github.com/mseitzer/pytorch-fid",
                "https://github.com/ai-forever/ru-clip",
                "https://arxiv.org/abs/2104.08718",
            ],
        )

    def compute(self, *, predictions=None, references=None, texts=None, **kwargs):
        """Compute FID / CLIP score / score on the given and the already added examples."""
        return super().compute(predictions=predictions, references=references, texts=texts, **kwargs)

    def add_batch(self, *, predictions=None, references=None, texts=None, **kwargs):
        """Check and pack a batch (errors name the argument and the index); the sides may differ in length."""
        preds = _examples(predictions, "predictions")
        refs = _examples(references, "references")
        if texts is not None:
            texts = [check_string(t, f"texts[{i}]") for i, t in enumerate(as_list(texts, "texts"))]
            side, name = (preds, "predictions") if preds else (refs, "references")
            if len(texts) != len(side):
                raise ValueError(f"`texts` has {len(texts)} entries but `{name}` has {len(side)}: one text per image")
        if not preds and not refs:
            raise ValueError("`predictions` and `references` are both empty: give images or feature vectors")
        packed_p = [pack(x, f"predictions[{i}]") for i, x in enumerate(preds)]
        packed_r = [pack(x, f"references[{i}]") for i, x in enumerate(refs)]
        n = max(len(packed_p), len(packed_r))
        packed_p += [NONE] * (n - len(packed_p))
        packed_r += [NONE] * (n - len(packed_r))
        texts = [[t] for t in texts or []] + [[]] * (n - len(texts or []))  # [] = no text (Arrow-safe null)
        return super().add_batch(predictions=packed_p, references=packed_r, texts=texts, **kwargs)

    def add(self, *, prediction=None, reference=None, text=None, **kwargs):
        """Add one example (a generated and/or a real image, and optionally its text)."""
        return self.add_batch(
            predictions=None if prediction is None else [prediction],
            references=None if reference is None else [reference],
            texts=None if text is None else [text],
            **kwargs,
        )

    def _options(self, passed: dict) -> dict:
        """The preset's options updated with the passed ones (None = not passed), all checked."""
        return check_options(resolve_options("fid_clip", self.config_name, PRESETS, passed))

    def _compute(
        self,
        predictions,
        references,
        texts,
        inception_weights=None,
        feature_extractor=None,
        pre_resize=None,
        reference_stats=None,
        save_stats=None,
        clip_model=None,
        clip_templates=None,
        clip_lowercase=None,
        clip_preprocess=None,
        clip_truncation=None,
        clip_scale=None,
        clip_clamp=None,
        meteor=None,
        device=None,
        batch_size=None,
        progress=None,
        confidence=None,
        n_resamples=None,
        seed=None,
        return_per_example=False,
    ):
        resampling = Resampling(confidence, n_resamples, seed)
        opts = self._options(
            {
                "inception_weights": inception_weights,
                "feature_extractor": feature_extractor,
                "pre_resize": pre_resize,
                "reference_stats": reference_stats,
                "save_stats": save_stats,
                "clip_model": clip_model,
                "clip_templates": clip_templates,
                "clip_lowercase": clip_lowercase,
                "clip_preprocess": clip_preprocess,
                "clip_truncation": clip_truncation,
                "clip_scale": clip_scale,
                "clip_clamp": clip_clamp,
                "meteor": meteor,
                "device": device,
                "batch_size": batch_size,
                "progress": progress,
            }
        )
        check_bool(return_per_example, "return_per_example")
        texts = [t[0] if t else None for t in texts]
        preds = [p for p in predictions if p["kind"] != "none"]
        refs = [r for r in references if r["kind"] != "none"]
        scores, fields = {}, {}
        features_p = stats_r = None

        # ---- FID --------------------------------------------------------------------------
        ref_side = refs or opts["reference_stats"] is not None
        if preds and ref_side:
            if n_resamples is None:
                resampling.n_resamples = FID_RESAMPLES
            stats_p, kind_p, features_p = side_statistics(preds, "predictions", opts, keep=resampling.enabled)
            if opts["reference_stats"] is not None:
                stats_r, kind_r = load_stats(opts["reference_stats"]), "stats"
            else:
                stats_r, kind_r, _ = side_statistics(refs, "references", opts)
            if stats_p.dims != stats_r.dims:
                raise ValueError(
                    f"feature sizes differ: `predictions` give {stats_p.dims}-d features, `references` "
                    f"{stats_r.dims}-d (use the same extractor, or statistics of the same features)"
                )
            if opts["save_stats"] is not None:
                save_statistics(opts["save_stats"], stats_p, None if kind_r == "stats" else stats_r)
            scores["fid"] = frechet_distance(stats_p, stats_r)
            fields.update(fid_fields(opts, {kind_p, kind_r}))
        elif preds and not any(t is not None for t in texts):
            raise ValueError("FID needs `references` (or `reference_stats`) beside `predictions`")
        elif refs and not preds and not any(t is not None for t in texts):
            raise ValueError("FID needs `predictions` beside `references`; give `texts` for a CLIP score")

        # ---- CLIP score ---------------------------------------------------------------------
        per_example = None
        if any(t is not None for t in texts):
            side, name = (predictions, "predictions") if preds else (references, "references")
            pairs = []
            for i, (item, text) in enumerate(zip(side, texts)):
                if (item["kind"] == "none") != (text is None):
                    raise ValueError(f"`texts`: example {i} has {'no text' if text is None else 'a text but no image'}"
                                     f"; give one text per image of `{name}`")
                if text is not None:
                    if item["kind"] == "features":
                        raise ValueError(f"`{name}` example {i} is a feature vector: the CLIP score needs images")
                    pairs.append((item, text))
            cos = clip_cosines(pairs, opts)
            per_example, scores["clip_score"] = clip_scores(cos, opts["clip_scale"], opts["clip_clamp"])
            per_example = per_example.tolist()
            fields.update(clip_fields(opts))

        # ---- combinations -------------------------------------------------------------------
        if opts["meteor"] is not None:
            if "fid" in scores or "clip_score" not in scores:
                raise ValueError("`meteor` combines with a CLIP score only (captioning): give `texts` and "
                                 "the captioned images as `references`, without `predictions`")
            scores["score"] = captioning_score(opts["meteor"], scores["clip_score"])
            fields["comb"] = "captioning"
        elif "fid" in scores and "clip_score" in scores:
            scores["score"] = generation_score(scores["clip_score"], scores["fid"])
            fields["comb"] = "generation"
        if per_example is None:
            per_example = []  # FID is a set-level score: no per-example values without a CLIP score
        interval_fields = resampling.signature_fields()
        if interval_fields and "fid" in scores:  # FID's interval is moved by the bootstrap bias estimate
            interval_fields = {"ci": "bs-pct", "fidci": "bias-shift", **interval_fields}
        signature = build_signature("fid_clip", self.config_name, {**fields, **interval_fields})
        statistic = _clip_statistic(per_example, opts["clip_clamp"]) if "clip_score" in scores else None
        self._last_statistic = None if statistic is None else (statistic, signature)  # compare() pairs CLIP scores
        if resampling.enabled and "fid" in scores:
            samples = fid_generation_samples(scores, features_p, stats_r, statistic, resampling)
            scores = {**scores, **_intervals(samples, resampling.confidence)}
        elif statistic is not None:
            scores = self._with_intervals(scores, statistic, resampling, signature)
        return make_result(scores, signature, per_example, return_per_example)

    def compare(self, **kwargs):
        """Paired test of the CLIP scores of two image sets on the same texts (``texts`` required):
        FID is a set-level score without per-example values, so it has no paired test here."""
        if kwargs.get("texts") is None:
            raise ValueError(
                "`texts`: compare() runs a paired test of CLIP scores (one per image-text pair); FID has no "
                "per-example values to pair (use `confidence=` for its bootstrap interval)"
            )
        return super().compare(**kwargs)


def _rs(resampling: Resampling) -> tuple[int, int]:
    return resampling.n_resamples, resampling.seed


def fid_generation_samples(scores: dict, features, reference, statistic, resampling: Resampling) -> dict:
    """Bootstrap values of `fid` (and `clip_score`, `score` when there are texts), all from the same
    resamples of the generated images; the reference moments stay fixed. The FID values are moved by
    the bootstrap bias estimate ``mean(FID*) - FID`` (resamples hold ~63% distinct images, so their
    FID is biased upwards by about as much as FID at n is above FID at infinity)."""
    fid = bootstrap_fid(features, reference.mean, reference.covariance, *_rs(resampling), overwrite=True)
    fid -= fid.mean() - scores["fid"]
    samples = {"fid": fid}
    if statistic is not None:
        if statistic.n != len(features):
            raise RuntimeError(f"{statistic.n} CLIP pairs for {len(features)} generated images: cannot pair resamples")
        (sums,) = bootstrap_sums([statistic.stats], *_rs(resampling))  # the same row indices as bootstrap_fid
        samples["clip_score"] = statistic.scores(sums)[:, 0]
        if "score" in scores:
            samples["score"] = generation_score(samples["clip_score"], fid)
    return samples


def _intervals(samples: dict, confidence: float) -> dict:
    """``<key>_ci_low`` / ``<key>_ci_high`` of each ``(R,)`` array of bootstrap values (percentile)."""
    out = {}
    for key, values in samples.items():
        low, high = percentile_interval(values[:, None], confidence)
        out[f"{key}_ci_low"], out[f"{key}_ci_high"] = float(low[0]), float(high[0])
    return out


def save_statistics(folder, predictions: FrechetStats, references: FrechetStats | None) -> None:
    """Write ``predictions.npz`` (and ``references.npz``) into ``folder``; an OS error names `save_stats`."""
    path = Path(os.fspath(folder))
    try:
        path.mkdir(parents=True, exist_ok=True)
        predictions.save(path / "predictions.npz")
        if references is not None:
            references.save(path / "references.npz")
    except OSError as err:
        raise ValueError(f"`save_stats`: cannot write the statistics into {str(path)!r} ({err.strerror or err})") from None


def _clip_statistic(per_example, clamp: str) -> Statistic:
    """The mean CLIP score over pairs (clamped at 0 for ``clip_clamp="mean"``), for resampling pairs."""
    n = len(per_example)

    def scores(sums):
        mean = sums / max(n, 1)
        return np.maximum(mean, 0.0) if clamp == "mean" else mean

    return Statistic(("clip_score",), per_example, scores)


def _examples(values, arg: str) -> list:
    """The examples of one side: a 4-D array / tensor is a batch of images; anything list-like
    (list, tuple, 2-D array of feature vectors, pandas Series, datasets column) its elements."""
    if values is None:
        return []
    batch = image_batch(values)
    return batch if batch is not None else as_list(values, arg)


# ----------------------------------------------------------------------------------------------
# options
# ----------------------------------------------------------------------------------------------
def check_options(opts: dict) -> dict:
    """Validate every option (ValueError/TypeError naming it) and normalise its form."""
    opts["pre_resize"] = int(check_number(opts["pre_resize"], "pre_resize", 0, 4096))
    for key in ("inception_weights", "clip_model", "save_stats"):
        value = opts[key]
        if value is not None and not isinstance(value, str | os.PathLike):
            raise TypeError(f"`{key}` must be a path, got {type(value).__name__}")
    if opts["save_stats"] is not None:
        check_folder_name(opts["save_stats"], "save_stats")
    extractor = opts["feature_extractor"]
    if extractor is not None and not callable(extractor):
        raise TypeError(f"`feature_extractor` must be a torch module (callable), got {type(extractor).__name__}")
    templates = opts["clip_templates"]
    if isinstance(templates, str) or not isinstance(templates, list | tuple) or not templates:
        raise TypeError("`clip_templates` must be a non-empty list of strings containing '{}'")
    for i, t in enumerate(templates):
        if not isinstance(t, str) or t.count("{}") != 1 or re.search(r"\{[^}]", t.replace("{}", "")):
            raise ValueError(f"`clip_templates[{i}]` must be a string with exactly one '{{}}', got {t!r}")
    opts["clip_templates"] = tuple(templates)
    check_bool(opts["clip_lowercase"], "clip_lowercase")
    check_choice(opts["clip_preprocess"], PREPROCESS, "clip_preprocess")
    check_choice(opts["clip_truncation"], TRUNCATION, "clip_truncation")
    opts["clip_scale"] = check_number(opts["clip_scale"], "clip_scale", 0.0)
    if opts["clip_scale"] == 0:
        raise ValueError("`clip_scale` must be > 0")
    check_choice(opts["clip_clamp"], CLAMP, "clip_clamp")
    if opts["meteor"] is not None:
        opts["meteor"] = check_number(opts["meteor"], "meteor", 0.0, 1.0)
    device = opts["device"]
    if not isinstance(device, str) or not re.fullmatch(r"cpu|cuda(:\d+)?", device):
        raise ValueError(f"`device` must be 'cpu', 'cuda' or 'cuda:N', got {device!r}")
    if device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            raise ValueError(f"`device` is {device!r} but torch sees no CUDA device")
    if isinstance(opts["batch_size"], bool) or not isinstance(opts["batch_size"], int) or opts["batch_size"] < 1:
        raise ValueError(f"`batch_size` must be a positive integer, got {opts['batch_size']!r}")
    if opts["progress"] is not None:
        check_bool(opts["progress"], "progress")
    return opts


def check_folder_name(value, arg: str) -> None:
    """A path whose every component fits the file system's name limit (ValueError naming `arg`)."""
    text = os.fspath(value)
    if isinstance(text, bytes) or not text or "\0" in text:
        raise ValueError(f"`{arg}` must be a non-empty folder path (text without NUL characters), got {value!r}")
    for part in Path(text).parts:
        try:
            size = len(os.fsencode(part))
        except UnicodeError:
            raise ValueError(f"`{arg}`: the folder name {part[:40]!r}... cannot be encoded for this file system") from None
        if size > NAME_MAX:
            raise ValueError(
                f"`{arg}`: the folder name {part[:40]!r}... is {size} bytes long; file systems allow at most "
                f"{NAME_MAX} bytes per name"
            )


def fid_fields(opts: dict, kinds: set) -> dict:
    if kinds <= {"features", "stats"}:
        return {"feat": "given"}
    extractor = opts["feature_extractor"]
    name = "inception-2015-12-05" if extractor is None else f"custom({type(extractor).__name__})"
    return {"feat": name, "pre": opts["pre_resize"] or "none"}


def clip_fields(opts: dict) -> dict:
    templates = opts["clip_templates"]
    if templates == ("{}",):
        tmpl = "none"
    elif templates == RUCLIP_TEMPLATES:
        tmpl = "ruclip6"
    else:
        tmpl = hashlib.sha1("\n".join(templates).encode("utf-8")).hexdigest()[:8]
    return {
        "clip": Path(os.fspath(opts["clip_model"])).name or "clip",
        "tmpl": tmpl,
        "lower": opts["clip_lowercase"],
        "crop": opts["clip_preprocess"],
        "trunc": opts["clip_truncation"],
        "scale": opts["clip_scale"],
        "clamp": opts["clip_clamp"],
    }


# ----------------------------------------------------------------------------------------------
# feature extraction (batched, running statistics, progress bar)
# ----------------------------------------------------------------------------------------------
def _progress(total: int, opts: dict, desc: str):
    from tqdm.auto import tqdm

    show = opts["progress"] if opts["progress"] is not None else total > 5 * opts["batch_size"]
    return tqdm(total=total, desc=desc, unit="img", disable=not show)


def _extractor(opts: dict):
    import torch

    if opts["feature_extractor"] is not None:
        model = opts["feature_extractor"]
        if isinstance(model, torch.nn.Module):
            model.eval().to(opts["device"])
        return model
    key = ("inception", str(opts["inception_weights"]))
    if key not in _MODELS:
        _MODELS[key] = load_fid_inception(opts["inception_weights"])
    return _MODELS[key].to(opts["device"])


def side_statistics(items: list, arg: str, opts: dict, keep: bool = False):
    """(FrechetStats, kind, features) of one side: feature vectors as given, or images through the
    extractor in batches. ``features`` is the (n, d) float64 array of every vector when ``keep`` (for
    the bootstrap), else None: the items come from evaluate (all batches, all processes; the cache
    file, or the in-memory table of a direct compute), so the vectors are read or computed here, once."""
    import torch

    kinds = {item["kind"] for item in items}
    kept = None
    if kinds == {"features"}:
        dims = [len(item["data"]) // 8 for item in items]
        bad = next((i for i, d in enumerate(dims) if d != dims[0]), None)
        if bad is not None:
            raise ValueError(f"`{arg}[{bad}]` has a {dims[bad]}-d feature vector but `{arg}[0]` has {dims[0]}-d")
        stats = FrechetStats(dims[0])
        kept = np.empty((len(items), dims[0])) if keep else None
        for start in range(0, len(items), 4096):
            chunk = items[start : start + 4096]
            rows = np.frombuffer(b"".join(c["data"] for c in chunk), dtype=np.float64).reshape(len(chunk), -1)
            stats.update(rows, arg, start)
            if keep:
                kept[start : start + len(chunk)] = rows
        return stats, "features", kept
    if "features" in kinds:
        raise ValueError(f"`{arg}` mixes images and feature vectors: give one kind per side")
    model = _extractor(opts)
    stats = None
    bs = opts["batch_size"]
    with _progress(len(items), opts, f"fid_clip: {arg} features") as bar, torch.inference_mode():
        for start in range(0, len(items), bs):
            images = [unpack(item)[1] for item in items[start : start + bs]]
            tensors = [preprocess(img, opts["pre_resize"] or None) for img in images]
            feats = _forward_grouped(model, tensors, opts["device"])
            if feats.ndim != 2:
                raise ValueError(f"`feature_extractor` must return (B, d) features, got shape {tuple(feats.shape)}")
            stats = stats or FrechetStats(feats.shape[1])
            stats.update(feats, arg, start)
            if keep:
                kept = np.empty((len(items), feats.shape[1])) if kept is None else kept
                kept[start : start + len(feats)] = feats
            bar.update(len(images))
    return stats, "images", kept


def _forward_grouped(model, tensors: list, device: str) -> np.ndarray:
    """Run the model on images grouped by size (a batch needs one size), outputs in input order."""
    import torch

    out = [None] * len(tensors)
    groups = {}
    for i, t in enumerate(tensors):
        groups.setdefault(tuple(t.shape), []).append(i)
    for idx in groups.values():
        batch = torch.stack([tensors[i] for i in idx]).to(device)
        feats = model(batch)
        feats = feats.reshape(feats.shape[0], -1).double().cpu().numpy()
        for row, i in zip(feats, idx):
            out[i] = row
    return np.stack(out)


def clip_cosines(pairs: list, opts: dict) -> np.ndarray:
    """Cosine of image and text features for every (stored image, text) pair, in batches."""
    if opts["clip_model"] is None:
        raise ValueError(
            "`clip_model` is required for the CLIP score: the local folder of a transformers CLIP checkpoint or "
            "of ruCLIP (bpe.model, config.json, pytorch_model.bin; ai-forever/ruclip-vit-large-patch14-336 for "
            "fusion_brain_2022)"
        )
    key = ("clip", os.fspath(opts["clip_model"]))
    if key not in _MODELS:
        _MODELS[key] = load_clip(opts["clip_model"])
    scorer = _MODELS[key].to(opts["device"])
    bs = opts["batch_size"]
    out = []
    with _progress(len(pairs), opts, "fid_clip: CLIP score") as bar:
        for start in range(0, len(pairs), bs):
            chunk = pairs[start : start + bs]
            images = [unpack(item)[1] for item, _ in chunk]
            img = scorer.image_features(images, opts["clip_preprocess"])
            txt = scorer.text_features(
                [t for _, t in chunk], opts["clip_templates"], opts["clip_truncation"], opts["clip_lowercase"]
            )
            out.append((img * txt).sum(dim=-1).double().cpu().numpy())
            bar.update(len(chunk))
    return np.concatenate(out) if out else np.zeros(0)

