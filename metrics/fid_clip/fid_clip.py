"""FID, CLIP score and the AIJ 2022 Fusion Brain generation / captioning scores, as an evaluate module."""

import evaluate

import multimodal_metrics  # From: "multimodal-metrics[hf,vision]==0.1.0"

fid_clip = multimodal_metrics.require("0.1.0", "fid_clip")
hf = multimodal_metrics.require("0.1.0", "hf")
hf_fid_clip = multimodal_metrics.require("0.1.0", "hf.fid_clip")

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

_ARGS = """
Args:
    predictions: generated images (file paths, encoded bytes, PIL images, numpy arrays, torch tensors; a
        4-D array is a batch of images) or precomputed feature vectors (a 2-D (N, d) array). The
        generated side of FID and the image side of the CLIP score.
    references: real images or feature vectors, the reference side of FID (may differ in number from
        `predictions`). Without `predictions`, the image side of the CLIP score (captioning: the
        captioned images).
    texts (`list` of `str`, optional): one text per CLIP image: the prompt (generation) or the
        generated caption (captioning). Without texts no CLIP score is computed.
"""

_RESAMPLING_HELP = {
    "confidence": "e.g. 0.95: also return bootstrap intervals `<key>_ci_low`/`_high` of `fid`, `clip_score` "
    "and the generation `score`, resampling the generated images (with their texts); the reference side of "
    "FID is held fixed. `clip_score`: percentile interval; `fid` (and `score`): percentile interval moved by "
    "the bootstrap bias estimate (resampled FIDs are biased upwards, see the card). Keeps the generated "
    "features in memory (n x d float64). Default None (no interval).",
    "n_resamples": f"bootstrap resamples of `confidence`: {fid_clip.FID_RESAMPLES} when FID is computed (one "
    "eigendecomposition each: ~0.2-1.3 s of CPU at d = 2048), else the default.",
}

_PER_EXAMPLE = (
    "also return the CLIP score of every pair (an empty list\n        when only FID is computed: FID has no "
    "per-example value)."
)

_RETURNS_AND_EXAMPLES = """
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


_KWARGS_DESCRIPTION = (
    _ARGS + hf.options_doc(fid_clip, help=_RESAMPLING_HELP, per_example=_PER_EXAMPLE) + _RETURNS_AND_EXAMPLES
)


@hf.documented(_DESCRIPTION, _KWARGS_DESCRIPTION)
class FidClip(hf_fid_clip.FidClipMetric, evaluate.Metric):
    library = fid_clip
