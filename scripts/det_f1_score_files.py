"""Score AIJ 2021 Fusion Brain zero-shot detection files with the `det_f1` metric.

    python scripts/det_f1_score_files.py --ref_path true_zsOD.json --pred_path prediction_zsOD.json
    python scripts/det_f1_score_files.py --ref_path T.json --pred_path P.json --preset one_to_one --per-image

Format (both files, as the official ``evaluation/zsOD_F1/evaluate.py``): ``{image: {class_text:
[[x, y, w, h], ...]}}``. The ground-truth classes of an image are the requested ones (``[]``: the
class is absent, any predicted box for it is a false positive). As the official script asserts,
both files must hold the same images and the predictions must have every ground-truth class of
an image (``[]`` or ``[[]]`` for no box); prediction classes that are not requested are ignored.
Those problems are reported as one clear error line (exit status 2), not as an AssertionError.

Prints the result dict as JSON (``--per-image`` adds the per-image scores keyed by image name).
Options (``--matching``, ``--iou-threshold``, ``--iou-boundary``, ``--box-format``) override the
preset's values; the ``signature`` in the output records what was used.
"""

import argparse
import importlib.util
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
METRIC = ROOT / "metrics" / "det_f1"


def _core():
    spec = importlib.util.spec_from_file_location("det_f1_core_cli", METRIC / "_det_f1_core.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_json(path, what: str):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise ValueError(f"{what}: file not found: {path}") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"{what}: {path} is not valid JSON ({err})") from None


def score_files(ref_path, pred_path, preset: str = "default", per_image: bool = False, **options) -> dict:
    """The metric's result on two Fusion Brain 2021 zsOD files (options override the preset)."""
    import evaluate

    true_annot = read_json(ref_path, "ground truth (--ref_path)")
    predictions = read_json(pred_path, "predictions (--pred_path)")
    preds, refs, images = _core().from_fusion_brain(true_annot, predictions)
    metric = evaluate.load(str(METRIC), preset)
    result = metric.compute(
        predictions=preds, references=refs, return_per_example=per_image, **{k: v for k, v in options.items() if v is not None}
    )
    if per_image:
        result["per_example"] = dict(zip(images, result["per_example"]))
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref_path", default="./true_zsOD.json", help="the gold annotations")
    parser.add_argument("--pred_path", default="./prediction_zsOD.json", help="the predictions")
    parser.add_argument("--preset", default="default", help="default (= fusion_brain_2021) or one_to_one")
    parser.add_argument("--matching", choices=["any", "one_to_one"], default=None)
    parser.add_argument("--iou-threshold", type=float, default=None)
    parser.add_argument("--iou-boundary", choices=["inclusive", "strict"], default=None)
    parser.add_argument("--box-format", choices=["xywh", "xyxy"], default=None)
    parser.add_argument("--per-image", action="store_true", help="add per-image scores")
    args = parser.parse_args(argv)

    root = Path(__file__).resolve().parent.parent
    os.environ.setdefault("HF_HOME", str(root / ".build" / "hf_home"))
    for var in ("HF_EVALUATE_OFFLINE", "HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        os.environ.setdefault(var, "1")
    try:
        result = score_files(
            args.ref_path,
            args.pred_path,
            preset=args.preset,
            per_image=args.per_image,
            matching=args.matching,
            iou_threshold=args.iou_threshold,
            iou_boundary=args.iou_boundary,
            box_format=args.box_format,
        )
    except (ValueError, TypeError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
