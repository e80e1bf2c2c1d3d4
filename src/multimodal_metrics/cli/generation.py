"""`mm-score fid-clip`: the AIJ 2022 FusionBrain 2.0 image generation score from two image folders, the
prompts and the predictions (not a --gt / --pred pair): FID of the folders, the CLIP score of each
prompt's image (0 where it has none, as the official loop), the score and their intervals; with --shard /
--save-state a block of the examples into fid_clip's mergeable state."""

import argparse
import os
import sys

from ..stats import RESAMPLING
from . import arguments as mm_args
from . import formats as mm_formats
from . import paths as mm_paths
from . import state_commands as mm_state
from .formats import FormatError, Loaded
from .output import generation_result, print_result, write_per_example
from .scoring import score
from .words import locate

GENERATION_DOC = """Files (AIJ 2022 FusionBrain 2.0 image generation, split/generation/):
  --gt-images DIR    the real images (FID reference side: every bmp/jpg/jpeg/pgm/png/ppm/tif/tiff/webp file)
  --pred-images DIR  the generated images (FID generated side; same number of files)
  --input FILE       generation_input.json, the prompts:
                     {"0": [{"type": "text", "content": "Сгенерируй изображение."}, {"type": "text", "content": "Кот"}]}
                     (element 1 when the list has 2 elements, else element 0 without its first sentence)
  --pred FILE        generation_pred.json, the generated image of each prompt at element 1, relative to this file:
                     {"0": [{"type": "text", "content": ""}, {"type": "image", "content": "images/0.jpg"}]}
                     (no existing image there: that example's CLIP score is 0, as in the official loop;
                     an absolute path, or one resolving outside this file's folder or into --gt-images, is refused)
score = 0.5 * (CLIP + (200 - min(200, FID)) / 200). Preset fusion_brain_2022 (default here) reproduces the
contest script; it needs the FID Inception weights (--inception-weights, pt_inception-2015-12-05-6726825d.pth)
and the ruCLIP ViT-L/14-336 checkpoint folder (--clip-model), both local.
--confidence C adds fid_ci_*, clip_score_ci_* and score_ci_*, resampling the generated images with their
prompts (FID's reference images held fixed; FID's interval moved by the bootstrap bias estimate; 200
resamples by default, see the fid_clip card). score_ci_* needs every prompt's image to exist and be a
file of --pred-images (one joint resampling); otherwise fid and clip_score get separate intervals."""


def _aligned(loaded: Loaded, pred_images: list) -> bool:
    """Every prompt's generated image exists and the prompts' images are exactly the folder's files."""
    if any(image is None for image in loaded.predictions) or len(loaded.predictions) != len(pred_images):
        return False
    return sorted(os.path.realpath(p) for p in loaded.predictions) == sorted(
        os.path.realpath(p) for p in pred_images
    )


def run_generation(args) -> int:
    """`mm-score fid-clip`; an image PIL refuses as a decompression bomb is one error line naming the file."""
    from PIL import Image

    try:
        return _run_generation(args)
    except Image.DecompressionBombError as err:
        clip_images = mm_formats.fb2022_generation(
            args.input, args.pred, exclude=[args.gt_images]
        ).predictions
        images = [
            *mm_formats.image_folder(args.pred_images),
            *mm_formats.image_folder(args.gt_images),
            *(p for p in clip_images if p is not None),
        ]
        where = mm_paths.find_bomb(images) or f"an image of {args.pred_images} or {args.gt_images}"
        raise ValueError(f"{where}: refused: {err}") from None


def _run_generation(args) -> int:
    loaded = mm_formats.fb2022_generation(args.input, args.pred, exclude=[args.gt_images])
    for warning in loaded.warnings:
        print(f"mm-score fid-clip: warning: {warning}", file=sys.stderr)
    gt_images, pred_images = (
        mm_formats.image_folder(args.gt_images),
        mm_formats.image_folder(args.pred_images, contained=True),
    )
    if len(gt_images) != len(pred_images):
        raise FormatError(
            args.pred_images,
            f"holds {len(pred_images)} images but {args.gt_images} holds "
            f"{len(gt_images)}: one generated image per prompt (official assertion)",
        )
    options = {dest: getattr(args, dest) for dest in args.option_dests}
    resampling = {key: options.pop(key) for key in RESAMPLING.names}
    # the library's bar over the images follows --progress / --no-progress (None: its own default)
    options["progress"] = args.progress
    if options["clip_model"] is None:  # no CLIP model: FID alone (the CLIP and generation scores need one)
        return run_fid_alone(args, gt_images, pred_images, options, resampling)
    if args.shard or args.save_state:  # fid_clip's state of the (image, prompt) pairs and the real images
        if not _aligned(loaded, pred_images):
            raise ValueError(
                f"--shard / --save-state with --clip-model score the (image, prompt) pairs in one state: every "
                f"prompt's image must exist and be a file of {args.pred_images}"
            )
        return run_generation_jointly(args, loaded, gt_images, options, resampling)
    if resampling["confidence"] is not None:
        if _aligned(loaded, pred_images):
            return run_generation_jointly(args, loaded, gt_images, options, resampling)
        print(
            "mm-score fid-clip: warning: no score interval: it needs every prompt's image to exist and be a file "
            f"of {args.pred_images} (one joint resampling); fid and clip_score get separate intervals",
            file=sys.stderr,
        )
    fid = score(
        "fid_clip",
        args.preset,
        Loaded(
            [os.path.basename(p) for p in pred_images],
            pred_images,
            gt_images,
            gt_path=args.gt_images,
            pred_path=args.pred_images,
        ),
        {**options, **resampling, "clip_model": None},
        False,
        args.progress,
    )
    usable = [i for i, image in enumerate(loaded.predictions) if image is not None]
    per_example = [0.0] * len(loaded.ids)
    clip = {"signature": ""}
    if usable:
        pairs = Loaded(
            [loaded.ids[i] for i in usable],
            [loaded.predictions[i] for i in usable],
            [],
            {"texts": [loaded.columns["texts"][i] for i in usable]},
            args.input,
            args.pred,
        )
        clip = score_clip(args.preset, pairs, {**options, "inception_weights": None})
        for i, value in zip(usable, clip["per_example"]):
            per_example[i] = value
    import numpy as np

    from ..fid_clip import core

    # numpy's pairwise mean: the AIJ script's np.array(scores).mean(), and fid_clip's own CLIP score mean
    clip_score = float(np.mean(per_example))
    result = {
        "score": core.generation_score(clip_score, fid["fid"]),
        "fid": fid["fid"],
        "clip_score": clip_score,
    }
    if (
        resampling["confidence"] is not None
    ):  # the prompts resampled, a missing image counting 0 (as the score)
        from .. import stats

        checked = stats.Resampling(**resampling)
        if resampling["n_resamples"] is None:  # as many resamples as FID's (the module's default with FID)
            checked.n_resamples = fid.signature_fields["bs"]
        low, high = stats.bootstrap_interval(
            stats.mean_statistic({"clip_score": per_example}),
            checked.confidence,
            checked.n_resamples,
            checked.seed,
        )["clip_score"]
        result.update(
            fid_ci_low=fid["fid_ci_low"],
            fid_ci_high=fid["fid_ci_high"],
            clip_score_ci_low=low,
            clip_score_ci_high=high,
        )
        if clip["signature"]:
            clip["signature"] = clip.get_signature().with_fields(checked.signature_fields()).format()
    result.update(signature_fid=fid["signature"], signature_clip=clip["signature"], examples=len(loaded.ids))
    if args.per_example:
        write_per_example(args.per_example_out, loaded, {"clip_score": 0.0, "per_example": per_example})
    print_result(result, args.json)
    return 0


def run_fid_alone(args, gt_images: list, pred_images: list, options: dict, resampling: dict) -> int:
    """`mm-score fid-clip` without --clip-model: FID of the two folders (and its interval with --confidence);
    a warning says that the CLIP score and the generation score need --clip-model."""
    if args.per_example:
        raise ValueError("--per-example writes the CLIP score of every prompt: it needs --clip-model")
    folders = Loaded(
        [os.path.basename(p) for p in pred_images],
        pred_images,
        gt_images,
        gt_path=args.gt_images,
        pred_path=args.pred_images,
    )
    warning = (
        "mm-score fid-clip: warning: no --clip-model: FID alone (clip_score and score need a CLIP checkpoint "
        "folder, e.g. ruCLIP's for --preset fusion_brain_2022)"
    )
    return score_generation(args, folders, options, resampling, warning)


def run_generation_jointly(args, loaded: Loaded, gt_images: list, options: dict, resampling: dict) -> int:
    """--confidence (or --shard / --save-state) with one existing generated image per prompt: one fid_clip
    computation gives FID, the CLIP score, the score and their intervals from the same resamples of the
    (image, prompt) pairs."""
    pairs = Loaded(
        loaded.ids, loaded.predictions, gt_images, {"texts": loaded.columns["texts"]}, args.input, args.pred
    )
    return score_generation(args, pairs, options, resampling)


def score_generation(args, examples: Loaded, options: dict, resampling: dict, warning: str = "") -> int:
    """One fid_clip computation of ``examples`` (the two folders, or the pairs with the real images), or of
    --shard's block of them through fid_clip's state (--save-state), printed as ``generation_result``
    (``warning`` on stderr once it is computed)."""
    if args.shard or args.save_state:
        values, ids = score_generation_shard(args, examples, options, resampling)
    else:
        per_example = bool(args.per_example)
        values = score(
            "fid_clip", args.preset, examples, {**options, **resampling}, per_example, args.progress
        )
        ids = examples.ids
    if warning:
        print(warning, file=sys.stderr)
    if args.per_example:
        rows = {"clip_score": 0.0, "per_example": values["per_example"] if values else []}
        write_per_example(args.per_example_out, Loaded(ids, [], []), rows)
    print_result(generation_result(values, len(ids)) if values else {"examples": len(ids)}, args.json)
    return 0


def score_clip(preset: str, pairs: Loaded, options: dict):
    """fid_clip's CLIP score of (image, text) pairs, per example (images as `predictions`, no FID side)."""
    from .. import fid_clip

    options = {k: v for k, v in options.items() if v is not None}
    try:
        return fid_clip.score(pairs.predictions, None, preset, texts=pairs.columns["texts"],
                              return_per_example=True, **options)  # fmt: skip
    except (ValueError, TypeError) as err:
        raise ValueError(locate(err, pairs)) from None


def add_generation_parser(sub) -> None:
    from ..fid_clip.scoring import FID_RESAMPLES  # (a light module: torch is imported when scoring)

    summary = "FID, CLIP score and the Fusion Brain 2022 image generation score (fid_clip)"
    p = sub.add_parser(
        "fid-clip",
        aliases=["fid_clip"],
        help=summary,
        description=summary,
        epilog=GENERATION_DOC + "\n" + mm_args.COMMON_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--gt-images", required=True, metavar="DIR", help="folder of the real images")
    p.add_argument("--pred-images", required=True, metavar="DIR", help="folder of the generated images")
    p.add_argument("--input", required=True, metavar="FILE", help="generation_input.json (the prompts)")
    p.add_argument(
        "--pred", required=True, metavar="FILE", help="generation_pred.json (the generated image paths)"
    )
    preset = "fusion_brain_2022"
    mm_args.add_preset_argument(
        p, "fid_clip", "one of " + mm_args.presets_help("fid_clip", {preset: "default here"}), preset
    )
    # fid_clip's option table; the command's own --progress drives `progress`, and `meteor` (the captioning
    # score) has no place in the generation score
    before = mm_args.add_option_arguments(p, "fid_clip", skip=("progress", "meteor"))
    mm_args.add_resampling_arguments(
        p,
        "confidence interval (bootstrap over the generated images and their prompts)",
        f"bootstrap resamples (default {FID_RESAMPLES} with FID)",
    )
    p.set_defaults(option_dests=[a.dest for a in p._actions if a.dest not in before], run=run_generation)
    mm_args.add_output_arguments(
        p, "write the CLIP score of every prompt as JSON lines", "progress bar on stderr"
    )
    mm_state.add_arguments(
        p,
        "the examples (with --clip-model the prompts of --input, else the files of --pred-images; each with "
        "the file of --gt-images at its place)",
        "example",
    )


def score_generation_shard(args, examples, options: dict, resampling: dict) -> tuple[dict, list]:
    """`mm-score fid-clip --shard I/N --save-state FILE`: fid_clip's state of block I of ``examples`` (the
    ``Loaded`` one ``mm-score fid-clip`` scores in one go: the two image folders, or the (image, prompt)
    pairs with the real images), written to --save-state; returns the block's result and the ids of its
    examples. The feature vectors
    are kept (``keep_features``) when --confidence asks for FID's interval, which needs them."""
    from .. import fid_clip

    out = mm_paths.Output(args.save_state, "--save-state") if args.save_state else None
    start, stop = mm_state.block(args, len(examples.ids))
    kwargs = {k: v for k, v in options.items() if v is not None}
    state = fid_clip.state(args.preset, keep_features=resampling["confidence"] is not None, **kwargs)
    if stop > start:
        texts = {k: v[start:stop] for k, v in examples.columns.items()}  # texts: the CLIP side
        try:
            state.update(predictions=examples.predictions[start:stop], references=examples.references[start:stop],
                         index=args.state_index, reference_index=args.state_index, **texts)  # fmt: skip
        except (ValueError, TypeError) as err:
            raise ValueError(locate(err, examples, start)) from None
    if out is not None:
        out.write(state.to_bytes())
    ids = examples.ids[start:stop]
    if stop == start:
        print("mm-score fid-clip: note: no examples in this shard: saved an empty state", file=sys.stderr)
        return {}, ids
    try:
        return dict(state.result(return_per_example=bool(args.per_example), **resampling)), ids
    except ValueError as err:  # e.g. FID of a one-image block: the saved state still merges
        if not args.save_state:
            raise
        print(
            f"mm-score fid-clip: note: saved the state; this shard alone gives no score: {err}",
            file=sys.stderr,
        )
        return {}, ids
