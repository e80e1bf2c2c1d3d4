"""FID, CLIP score and the AIJ 2022 Fusion Brain generation / captioning scores.

    from multimodal_metrics import fid_clip
    r = fid_clip.score(gen_features, real_features, confidence=0.95)        # (N, d) arrays: numpy + scipy only
    r["fid"], r["fid_ci_low"], r.signature
    r = fid_clip.score(generated, real, "fusion_brain_2022", texts=prompts,  # images: torch models
                       inception_weights="pt_inception-2015-12-05-6726825d.pth", clip_model="ruclip-vit-large-patch14-336/")
    r["fid"], r["clip_score"], r["score"], r.per_example

Presets: ``default`` (pytorch-fid's FID, raw-cosine CLIP score), ``fusion_brain_2022`` (the contest
script: 256x256 pre-resize, ruCLIP with six Russian templates), ``clipscore`` (CLIP-S). Modules:
:mod:`~multimodal_metrics.fid_clip.core` (Frechet distance from running statistics, the score
combinations; numpy and scipy), :mod:`~multimodal_metrics.fid_clip.resampling` (FID's bootstrap),
:mod:`~multimodal_metrics.fid_clip.images` (image and feature inputs), ``inception`` / ``clip`` /
``extract`` (the networks, in torch, imported only for images), ``scoring`` (options, ``score``) and
``mergeable`` (``state()`` / ``State``: shards scored anywhere, merged into one result).
Importing this package imports no torch, transformers or PIL.
"""

from .clip import RUCLIP_TEMPLATES, clip_scores
from .core import captioning_score, frechet_distance, generation_score
from .mergeable import State, state
from .moments import FrechetStats, load_stats
from .resampling import bootstrap_fid, bootstrap_fid_interval
from .scoring import FID_RESAMPLES, OPTIONS, PRESETS, compare, pack_batch, score, score_checked

__all__ = [
    "FID_RESAMPLES",
    "OPTIONS",
    "PRESETS",
    "RUCLIP_TEMPLATES",
    "FrechetStats",
    "State",
    "bootstrap_fid",
    "bootstrap_fid_interval",
    "captioning_score",
    "clip_scores",
    "compare",
    "frechet_distance",
    "generation_score",
    "load_stats",
    "pack_batch",
    "score",
    "score_checked",
    "state",
]
