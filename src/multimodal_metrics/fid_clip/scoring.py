"""fid_clip's option table, presets and ``score``: the functional API the evaluate module calls too.

``score`` checks its inputs the way the evaluate module's ``add_batch`` does (``pack_batch``: every
example checked and stored as ``{"kind", "text", "data"}``, the sides padded to one length) and scores
the stored examples with ``score_checked``, which the module's ``_compute`` calls on what evaluate read
back from its cache: FID (running statistics; ``extract`` reads feature vectors with numpy, and
imports torch only for images), the CLIP score, the Fusion Brain 2022 combinations and the bootstrap
intervals.
"""

import copy
import hashlib
import os
import re
import string
from pathlib import Path

import numpy as np

from ..extras import require
from ..inputs import as_list, check_string
from ..options import Option, OptionTable, check_bool, check_number
from ..results import Result, Signature, make_result
from ..stats import (
    Resampling,
    Statistic,
    bootstrap_sums,
    compare_function,
    interval_values,
    percentile_interval,
)
from .clip import RUCLIP_TEMPLATES, clip_scores
from .core import captioning_score, frechet_distance, generation_score
from .extract import clip_cosines, side_statistics
from .images import IMAGE_KINDS, MAX_PIXELS, NONE, check_pixels, image_batch, pack
from .inception import weights_tag
from .moments import FrechetStats, load_stats
from .resampling import bootstrap_fid

PREPROCESS = ("processor", "center_square_bilinear")
TRUNCATION = ("keep_end", "slice")
CLAMP = ("none", "per_example", "mean")

FID_RESAMPLES = 200  # default n_resamples when FID is resampled (see the card: cost and Monte Carlo error)
NAME_MAX = 255  # bytes per path component on Linux, macOS and Windows file systems


# ----------------------------------------------------------------------------------------------
# option checks (ValueError/TypeError naming the option; the value in canonical form)
# ----------------------------------------------------------------------------------------------
def check_folder_name(value, arg: str) -> None:
    """A path whose every component fits the file system's name limit (ValueError naming `arg`)."""
    text = os.fspath(value)
    if isinstance(text, bytes) or not text or "\0" in text:
        raise ValueError(
            f"`{arg}` must be a non-empty folder path (text without NUL characters), got {value!r}"
        )
    for part in Path(text).parts:
        try:
            size = len(os.fsencode(part))
        except UnicodeError:
            raise ValueError(
                f"`{arg}`: the folder name {part[:40]!r}... cannot be encoded for this file system"
            ) from None
        if size > NAME_MAX:
            raise ValueError(
                f"`{arg}`: the folder name {part[:40]!r}... is {size} bytes long; file systems allow at most "
                f"{NAME_MAX} bytes per name"
            )


def _path(value, arg: str):
    if not isinstance(value, str | os.PathLike):
        raise TypeError(f"`{arg}` must be a path, got {type(value).__name__}")
    text = os.fspath(value)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if not text.strip() or "\0" in text:
        raise ValueError(
            f"`{arg}` must be a non-empty path without NUL characters, got {value!r}; "
            "leave it out (None) for the default"
        )
    return value


def _folder(value, arg: str):
    _path(value, arg)
    check_folder_name(value, arg)
    return value


def _as_given(value, arg: str):
    return value  # reference_stats: read and checked by moments.load_stats when FID is computed


def _extractor(value, arg: str):
    if not callable(value):
        raise TypeError(f"`{arg}` must be a torch module (callable), got {type(value).__name__}")
    return value


def _one_field(template: str) -> bool:
    """``template.format(text)`` is valid and inserts the text exactly once: one replacement field ``{}``
    (no name, index, conversion or format spec); other braces doubled (``{{`` / ``}}``)."""
    try:
        fields = [
            (name, spec, conv)
            for _, name, spec, conv in string.Formatter().parse(template)
            if name is not None
        ]
    except ValueError:  # "Single '}' encountered", "unmatched '{'", ...
        return False
    return fields == [("", "", None)]


def _templates(templates, arg: str) -> tuple:
    if isinstance(templates, str) or not isinstance(templates, list | tuple) or not templates:
        raise TypeError(f"`{arg}` must be a non-empty list of strings containing '{{}}'")
    for i, t in enumerate(templates):
        if not isinstance(t, str):
            raise TypeError(f"`{arg}[{i}]` must be a string with exactly one '{{}}', got {type(t).__name__}")
        if not _one_field(t):
            raise ValueError(
                f"`{arg}[{i}]` must be a string with exactly one '{{}}' (other braces doubled: "
                f"'{{{{' and '}}}}'), got {t[:80]!r}"
            )
    return tuple(str(t) for t in templates)


def _scale(value, arg: str) -> float:
    value = check_number(value, arg, 0.0)
    if value == 0:
        raise ValueError(f"`{arg}` must be > 0")
    return value


def _device(device, arg: str):
    if not isinstance(device, str) or not re.fullmatch(r"cpu|cuda(:\d+)?", device):
        raise ValueError(f"`{arg}` must be 'cpu', 'cuda' or 'cuda:N', got {device!r}")
    if device.startswith("cuda"):
        try:
            import torch
        except ImportError:
            raise ValueError(f"`{arg}` is {device!r} but torch is not installed") from None
        if not torch.cuda.is_available():
            raise ValueError(f"`{arg}` is {device!r} but torch sees no CUDA device")
    return device


def _batch_size(value, arg: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"`{arg}` must be a positive integer, got {value!r}")
    return value


# ----------------------------------------------------------------------------------------------
# presets and the option table
# ----------------------------------------------------------------------------------------------
# The rows (and the presets' keys) are in the order the options are checked: when several options
# are wrong, the first error is the one the module has always raised.
PRESETS = {
    # pytorch-fid's FID (no pre-resize) and the seed's raw cosine with any transformers CLIP.
    "default": {
        "pre_resize": 0,
        "inception_weights": None,
        "clip_model": None,
        "save_stats": None,
        "reference_stats": None,
        "feature_extractor": None,
        "clip_templates": ("{}",),
        "clip_lowercase": False,
        "clip_preprocess": "processor",
        "clip_truncation": "keep_end",
        "clip_scale": 1.0,
        "clip_clamp": "none",
        "meteor": None,
        "device": "cpu",
        "batch_size": 20,
        "num_workers": None,
        "progress": None,
        "max_pixels": MAX_PIXELS,
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

# ``sig``: the signature field of the option. fid_clip writes its fields itself (``fid_fields``,
# ``clip_fields``): only for the scores computed, and derived values (the CLIP folder's name, a tag or a
# hash of the templates, "given" for feature vectors), so ``OPTIONS.signature_fields`` is not used.
# Whether a larger value of each result key is better (torchmetrics' higher_is_better; None: a raw
# count, left out of the Trainer form): see multimodal_metrics.results.key_direction.
HIGHER_IS_BETTER = {"fid": False, "clip_score": True, "score": True}

OPTIONS = OptionTable(
    "fid_clip",
    [
        Option(
            "pre_resize",
            "resize every image to this square size with PIL bilinear before the extractor "
            "(Fusion Brain 2022: 256); 0 = no resize (pytorch-fid).",
            kind="integer",
            low=0,
            high=4096,
            sig="pre",
        ),
        Option(
            "inception_weights",
            "path to pytorch-fid's `pt_inception-2015-12-05-6726825d.pth` (or .safetensors); "
            "None: the torch hub cache ($TORCH_HOME/hub/checkpoints/). Nothing is downloaded.",
            kind="path",
            check=_path,
        ),
        Option(
            "clip_model",
            "local folder of a transformers CLIP checkpoint, or of ruCLIP (bpe.model, "
            "config.json, pytorch_model.bin); required for the CLIP score.",
            kind="path",
            check=_path,
            sig="clip",
        ),
        Option(
            "save_stats",
            "a directory: writes `predictions.npz` / `references.npz` (mu, sigma, n) for the "
            "sides computed here (pytorch-fid format, reusable as `reference_stats`).",
            kind="path",
            check=_folder,
            demo=False,
        ),
        Option(
            "reference_stats",
            "a pytorch-fid `.npz` (keys mu, sigma) or a dict with mu and sigma, used as "
            "the reference side of FID instead of `references`; a list of them (each with its count n, as "
            "`save_stats` writes) is their merge.",
            kind="custom",
            check=_as_given,
            doc_type="str or dict",
            cli=False,
            demo=False,
        ),
        Option(
            "feature_extractor",
            "any torch module mapping (B, 3, H, W) images in [0, 1] to (B, d) features, "
            "used instead of the FID Inception network (set to eval mode, moved to `device`).",
            kind="custom",
            check=_extractor,
            sig="feat",
            doc_type="torch.nn.Module",
            cli=False,
            demo=False,
        ),
        Option(
            "clip_templates",
            'prompt templates containing "{}"; text embeddings are averaged over them '
            "(unnormalised) and L2-normalised.",
            kind="custom",
            check=_templates,
            sig="tmpl",
            doc_type="list of str",
            cli=False,
            demo=False,
        ),
        Option("clip_lowercase", "lower-case and strip the texts first.", kind="bool", sig="lower"),
        Option(
            "clip_preprocess",
            "'processor' (the checkpoint's CLIP image processor) or 'center_square_bilinear' "
            "(ruCLIP: centred max square, bilinear resize).",
            choices=PREPROCESS,
            sig="crop",
        ),
        Option(
            "clip_truncation",
            "'keep_end' (cut long texts, keep the end token) or 'slice' (cut the token ids, "
            "as torchmetrics: the end token is lost).",
            choices=TRUNCATION,
            sig="trunc",
        ),
        Option(
            "clip_scale",
            "multiply the cosine (1 raw, 2.5 CLIP-S, 100 torchmetrics); > 0.",
            kind="number",
            low=0.0,
            check=_scale,
            sig="scale",
        ),
        Option(
            "clip_clamp",
            "'none', 'per_example' (max(s, 0) per pair, CLIP-S) or 'mean' (max(mean, 0), torchmetrics).",
            choices=CLAMP,
            sig="clamp",
        ),
        Option(
            "meteor",
            "a METEOR value in [0, 1] (e.g. from the ru_meteor module): adds score = 0.5 * (METEOR "
            "+ CLIP) (Fusion Brain 2022 captioning).",
            kind="number",
            low=0.0,
            high=1.0,
        ),
        Option(
            "device",
            "'cpu', 'cuda' or 'cuda:N': where the networks run.",
            kind="custom",
            check=_device,
            doc_type="str",
            demo=False,  # the server's settings (device, batching, progress, image cap): not a visitor's
        ),
        Option(
            "batch_size", "images per forward pass.", kind="integer", low=1, check=_batch_size, demo=False
        ),
        Option(
            "num_workers",
            "workers that decode the next images while the network runs: forked worker "
            "processes for FID's image path on Linux when there is more than one batch, threads otherwise (0: "
            "decode in the calling thread; None: 0 when this process may use fewer than 4 CPUs, where workers "
            "slow it down, else those CPUs, at most 8); does not change the values.",
            kind="integer",
            low=0,
            high=1024,
            demo=False,
        ),
        Option(
            "progress", "show a tqdm bar (None: when there are more than 5 batches).", kind="bool", demo=False
        ),
        Option(
            "max_pixels",
            f"the largest image accepted, in pixels (width x height; default {MAX_PIXELS:,}, PIL's "
            "own decompression-bomb threshold): larger images and decompression bombs are refused from their "
            "header, before any pixel is decoded.",
            kind="integer",
            low=1,
            demo=False,
        ),
    ],
    PRESETS,
)


# ----------------------------------------------------------------------------------------------
# inputs
# ----------------------------------------------------------------------------------------------
def _examples(values, arg: str) -> list:
    """The examples of one side: a 4-D array / tensor is a batch of images; anything list-like
    (list, tuple, 2-D array of feature vectors, pandas Series, datasets column) its elements."""
    if values is None:
        return []
    batch = image_batch(values)
    return batch if batch is not None else as_list(values, arg)


def pack_batch(predictions, references, texts, max_pixels: int | None = None) -> tuple[list, list, list]:
    """Check a batch (errors name the argument and the index) and store it: ``(predictions, references,
    texts)`` rows of one length, the examples as ``images.pack`` stores them (``NONE`` where a side has no
    example), the texts as ``str`` or None. The sides may differ in length; ``texts`` go with the
    generated images, or without them with the references (captioning)."""
    preds = _examples(predictions, "predictions")
    refs = _examples(references, "references")
    if texts is not None:
        texts = [check_string(t, f"texts[{i}]") for i, t in enumerate(as_list(texts, "texts"))]
        side, name = (preds, "predictions") if preds else (refs, "references")
        if len(texts) != len(side):
            raise ValueError(
                f"`texts` has {len(texts)} entries but `{name}` has {len(side)}: one text per image"
            )
    if not preds and not refs:
        raise ValueError("`predictions` and `references` are both empty: give images or feature vectors")
    packed_p = [pack(x, f"predictions[{i}]", max_pixels) for i, x in enumerate(preds)]
    packed_r = [pack(x, f"references[{i}]", max_pixels) for i, x in enumerate(refs)]
    n = max(len(packed_p), len(packed_r))
    packed_p += [NONE] * (n - len(packed_p))
    packed_r += [NONE] * (n - len(packed_r))
    texts = list(texts or []) + [None] * (n - len(texts or []))
    return packed_p, packed_r, texts


# ----------------------------------------------------------------------------------------------
# scoring
# ----------------------------------------------------------------------------------------------
def score_checked(
    predictions,
    references,
    texts,
    preset,
    options,
    resampling,
    return_per_example=False,
    default_resamples=False,
    pixels_checked=False,
) -> Result:
    """FID / CLIP score / score of stored examples (rows of ``pack_batch``: ``NONE`` where a side has no
    example; ``texts`` with None where a row has no text) with resolved ``options`` (``OPTIONS.resolve``)
    and a checked ``Resampling``; ``default_resamples``: ``n_resamples`` was not given (FID then takes
    ``FID_RESAMPLES``); ``pixels_checked``: the images were stored with ``options["max_pixels"]`` (the
    library's ``score``), so their headers are not read again before the model runs."""
    opts = options
    preds = [p for p in predictions if p["kind"] != "none"]
    refs = [r for r in references if r["kind"] != "none"]
    has_texts = any(t is not None for t in texts)
    fid = None
    fields = {}

    # ---- FID --------------------------------------------------------------------------
    check_fid_sides(bool(preds), bool(refs or opts["reference_stats"] is not None), has_texts)
    if preds and (refs or opts["reference_stats"] is not None):
        require("fid_clip's FID", ["scipy"], ["scipy"])  # the trace of the matrix square root: scipy's BLAS
        if not pixels_checked:
            check_pixels(predictions, "predictions", opts["max_pixels"])
            check_pixels(references, "references", opts["max_pixels"])
        stats_p, kind_p, features_p = side_statistics(preds, "predictions", opts, keep=resampling.enabled)
        if opts["reference_stats"] is not None:
            stats_r, kind_r = load_stats(opts["reference_stats"]), "stats"
        else:
            stats_r, kind_r, _ = side_statistics(refs, "references", opts)
        fid = fid_value(stats_p, stats_r, opts["save_stats"], kind_r != "stats"), features_p, stats_r
        fields.update(fid_fields(opts, {kind_p, kind_r}))

    # ---- CLIP score ---------------------------------------------------------------------
    cos = None
    if has_texts:
        side, name = (predictions, "predictions") if preds else (references, "references")
        pairs = clip_pairs(side, texts, name)
        if not pixels_checked:
            check_pixels(side, name, opts["max_pixels"])
        cos = clip_cosines(pairs, opts)
        fields.update(clip_fields(opts))
    if any(item["kind"] in IMAGE_KINDS for item in (*preds, *refs)):  # images decoded and resized by Pillow
        fields["pil"] = pillow_version()
    return finish_scores(preset, opts, resampling, return_per_example, default_resamples, fields, fid, cos)


def pillow_version() -> str:
    """The Pillow that decoded and resized the images (a signature field: its resampling can change)."""
    from PIL import __version__

    return __version__


def check_fid_sides(preds: bool, refs: bool, texts: bool) -> None:
    """The errors of a set without a score: generated images without a reference side (or texts), a
    reference side alone without texts."""
    if preds and not refs and not texts:
        raise ValueError("FID needs `references` (or `reference_stats`) beside `predictions`")
    if refs and not preds and not texts:
        raise ValueError("FID needs `predictions` beside `references`; give `texts` for a CLIP score")


def fid_value(stats_p: FrechetStats, stats_r: FrechetStats, save_stats=None, save_references=True) -> float:
    """FID of two sides' statistics (checked: one feature size, a finite value); ``save_stats``: the
    folder where they are written first (``references.npz`` with ``save_references``)."""
    if stats_p.dims != stats_r.dims:
        raise ValueError(
            f"feature sizes differ: `predictions` give {stats_p.dims}-d features, `references` "
            f"{stats_r.dims}-d (use the same extractor, or statistics of the same features)"
        )
    if save_stats is not None:
        save_statistics(save_stats, stats_p, stats_r if save_references else None)
    value = frechet_distance(stats_p, stats_r)
    if not np.isfinite(value):
        raise ValueError("FID is not finite for these features (values too large for float64)")
    return value


def clip_pairs(side: list, texts: list, name: str) -> list:
    """The (stored image, text) pairs of one side's examples with their texts (one text per image; a feature
    vector has no CLIP score): errors name the side and the example index."""
    pairs = []
    for i, (item, text) in enumerate(zip(side, texts)):
        if (item["kind"] == "none") != (text is None):
            raise ValueError(
                f"`texts`: example {i} has {'no text' if text is None else 'a text but no image'}"
                f"; give one text per image of `{name}`"
            )
        if text is not None:
            if item["kind"] == "features":
                raise ValueError(f"`{name}` example {i} is a feature vector: the CLIP score needs images")
            pairs.append((item, text))
    return pairs


def finish_scores(
    preset, opts, resampling, return_per_example, default_resamples, fields, fid=None, cos=None
) -> Result:
    """The result from what was computed (``score_checked`` and a merged state both end here): ``fid``
    (the value, the generated images' features for the bootstrap or None, the reference statistics) or
    None; ``cos``: the CLIP cosines of the pairs in example order, or None; ``fields``: the signature
    fields of the scores computed. Adds the CLIP score, the Fusion Brain 2022 combinations, the bootstrap
    intervals and the signature."""
    resampling = copy.copy(resampling)
    scores = {}
    if fid is not None:
        scores["fid"] = fid[0]
        if default_resamples:
            resampling.n_resamples = FID_RESAMPLES
    per_example = None
    if cos is not None:
        per_example, scores["clip_score"] = clip_scores(cos, opts["clip_scale"], opts["clip_clamp"])
        per_example = per_example.tolist()
    fields = dict(fields)

    # ---- combinations -------------------------------------------------------------------
    if opts["meteor"] is not None:
        if "fid" in scores or "clip_score" not in scores:
            raise ValueError(
                "`meteor` combines with a CLIP score only (captioning): give `texts` and "
                "the captioned images as `references`, without `predictions`"
            )
        scores["score"] = captioning_score(opts["meteor"], scores["clip_score"])
        fields["comb"] = "captioning"
    elif "fid" in scores and "clip_score" in scores:
        scores["score"] = generation_score(scores["clip_score"], scores["fid"])
        fields["comb"] = "generation"
    clip_per_example = per_example
    if per_example is None:
        per_example = []  # FID is a set-level score: no per-example values without a CLIP score
    interval_fields = resampling.signature_fields()
    if interval_fields and "fid" in scores:  # FID's interval is moved by the bootstrap bias estimate
        interval_fields = {"ci": "bs-pct", "fidci": "bias-shift", **interval_fields}
    signature = Signature(OPTIONS.metric, preset, fields).with_fields(interval_fields)
    statistic = _clip_statistic(per_example, opts["clip_clamp"]) if "clip_score" in scores else None
    if resampling.enabled and "fid" in scores:
        if fid[1] is None:
            raise ValueError(
                "`confidence`: FID's interval resamples the generated images' feature vectors, "
                "which this state did not keep: create it with keep_features=True"
            )
        samples = fid_generation_samples(scores, fid[1], fid[2], statistic, resampling)
        scores = {**scores, **_intervals(samples, resampling.confidence)}
    elif statistic is not None:
        scores = {**scores, **interval_values(statistic, resampling)}
    values = make_result(scores, signature, per_example, return_per_example)
    return Result(  # compare() pairs CLIP scores
        values, "fid_clip", clip_per_example, statistic, signature=signature, options=opts
    )


def score(
    predictions=None,
    references=None,
    preset="default",
    *,
    texts=None,
    return_per_example=False,
    confidence=None,
    n_resamples=None,
    seed=None,
    **options,
) -> Result:
    """FID between ``predictions`` (generated images or feature vectors) and ``references`` (real images
    or feature vectors, any number; or ``reference_stats=``), the CLIP score of the images with their
    ``texts`` (one per generated image; without ``predictions``, one per reference image: captioning),
    and the Fusion Brain 2022 ``score`` when both are there (or with ``meteor=``).

    Images: file paths, encoded bytes, PIL images, numpy arrays, torch tensors (a 4-D array is a batch);
    feature vectors: a 2-D (N, d) array or 1-D vectors. FID from feature vectors or statistics needs
    numpy and scipy only; images go through the FID Inception (or ``feature_extractor``) and the CLIP
    model in torch. ``preset`` and ``options`` (see ``OPTIONS``) set the convention; ``confidence`` adds
    bootstrap intervals (resampling the generated images with their texts; ``n_resamples`` default 200
    with FID, else 1000; ``seed``). Returns a :class:`~multimodal_metrics.results.Result` equal to what
    the evaluate module's ``compute`` returns; ``per_example`` holds the CLIP score of every pair.
    """
    resampling = Resampling(confidence, n_resamples, seed)
    check_bool(return_per_example, "return_per_example")
    opts = OPTIONS.resolve(preset, options)
    predictions, references, texts = pack_batch(predictions, references, texts, opts["max_pixels"])
    return score_checked(
        predictions,
        references,
        texts,
        preset,
        opts,
        resampling,
        return_per_example,
        default_resamples=n_resamples is None,
        pixels_checked=True,
    )


def compare(
    predictions_a,
    predictions_b,
    references=None,
    test="approximate_randomization",
    *,
    texts=None,
    n_resamples=None,
    seed=None,
    confidence=0.95,
    **kwargs,
) -> dict:
    """Paired test of the CLIP scores of two image sets on the same ``texts`` (required; see
    ``stats.paired_comparison``): FID is a set-level score without per-example values, so it has no
    paired test. ``kwargs``: ``preset`` and the options, the same for both."""
    if texts is None:
        raise ValueError(
            "`texts`: compare() runs a paired test of CLIP scores (one per image-text pair); FID has no "
            "per-example values to pair (use `confidence=` for its bootstrap interval)"
        )
    resampling = {"n_resamples": n_resamples, "seed": seed, "confidence": confidence}
    return _compare_clip_scores(
        predictions_a, predictions_b, references, test, texts=texts, **resampling, **kwargs
    )


_compare_clip_scores = compare_function(score, check_system=None)  # the paired test, once `texts` is checked


# ----------------------------------------------------------------------------------------------
# signature fields, statistics, intervals, saved statistics
# ----------------------------------------------------------------------------------------------
def feature_tag(opts: dict) -> str:
    """The extractor the image features came from: the weights file read, named by its content (the file
    the features came from: loaded just before), or ``custom(<class name>)``."""
    extractor = opts["feature_extractor"]
    return (
        weights_tag(opts["inception_weights"]) if extractor is None else f"custom({type(extractor).__name__})"
    )


def fid_fields(opts: dict, kinds: set, tag: str | None = None) -> dict:
    """FID's signature fields; ``tag``: the extractor's (``feature_tag``), when it was recorded already."""
    if kinds <= {"features", "stats"}:
        return {"feat": "given"}
    return {"feat": feature_tag(opts) if tag is None else tag, "pre": opts["pre_resize"] or "none"}


def clip_name(opts: dict) -> str:
    """The CLIP model's name in the signature: its folder's name."""
    return Path(os.fspath(opts["clip_model"])).name or "clip"


def clip_fields(opts: dict, name: str | None = None) -> dict:
    templates = opts["clip_templates"]
    if templates == ("{}",):
        tmpl = "none"
    elif templates == RUCLIP_TEMPLATES:
        tmpl = "ruclip6"
    else:
        tmpl = hashlib.sha1("\n".join(templates).encode("utf-8")).hexdigest()[:8]
    return {
        "clip": clip_name(opts) if name is None else name,
        "tmpl": tmpl,
        "lower": opts["clip_lowercase"],
        "crop": opts["clip_preprocess"],
        "trunc": opts["clip_truncation"],
        "scale": opts["clip_scale"],
        "clamp": opts["clip_clamp"],
    }


def _rs(resampling: Resampling) -> tuple[int, int]:
    return resampling.n_resamples, resampling.seed


def fid_generation_samples(scores: dict, features, reference, statistic, resampling: Resampling) -> dict:
    """Bootstrap values of `fid` (and `clip_score`, `score` when there are texts), all from the same
    resamples of the generated images; the reference moments stay fixed. The FID values are moved by
    the bootstrap bias estimate ``mean(FID*) - FID`` (resamples hold ~63% distinct images, so their
    FID is biased upwards by about as much as FID at n is above FID at infinity)."""
    rows = (
        reference.centred_rows() if isinstance(reference, FrechetStats) else None
    )  # < d vectors: thin factor
    fid = bootstrap_fid(
        features,
        reference.mean,
        reference.covariance,
        *_rs(resampling),
        overwrite=True,
        ref_factor=None if rows is None else rows.T,
    )
    fid -= fid.mean() - scores["fid"]
    samples = {"fid": fid}
    if statistic is not None:
        if statistic.n != len(features):
            raise RuntimeError(
                f"{statistic.n} CLIP pairs for {len(features)} generated images: cannot pair resamples"
            )
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
        raise ValueError(
            f"`save_stats`: cannot write the statistics into {str(path)!r} ({err.strerror or err})"
        ) from None


def _clip_statistic(per_example, clamp: str) -> Statistic:
    """The mean CLIP score over pairs (clamped at 0 for ``clip_clamp="mean"``), for resampling pairs."""
    n = len(per_example)

    def scores(sums):
        mean = sums / max(n, 1)
        return np.maximum(mean, 0.0) if clamp == "mean" else mean

    return Statistic(("clip_score",), per_example, scores)
