"""Gradio demo of the `det_f1` metric: scores detections and draws them, so hits and misses are visible.

Run `python app.py` in this folder (or in the Space). `build_ui()` is reused by the playground Space.
"""

import json
from pathlib import Path

import gradio as gr

from multimodal_metrics import det_f1
from multimodal_metrics.demo import (
    CODE_LINES,
    CONFIDENCE,
    ResultPanel,
    card_body,
    connect,
    follow_preset,
    load_metric,
    option_value,
    option_widget,
    page_blocks,
    parse_json,
)

HERE = Path(__file__).resolve().parent

SCRIPT = HERE / "det_f1.py"
PRESETS = sorted(det_f1.PRESETS)
OPTIONS = [
    o for o in det_f1.OPTIONS if o.demo
]  # a widget per row of the library's option table (not missing_class)
MAX_PANELS = 4
LABEL_PX = 18  # the box labels' font size in the picture (drawn at about 1:1 in the page: panels are stacked)


def _one_image_per_line(value: dict) -> str:
    """JSON with one image per line (a person reads boxes at a glance; indent=1 spreads them over pages)."""
    lines = [f"  {json.dumps(name)}: {json.dumps(classes)}" for name, classes in value.items()]
    return "{\n" + ",\n".join(lines) + "\n}"


EXAMPLE_REFERENCES = _one_image_per_line(
    {
        "street.jpg": {"cat": [[20, 20, 100, 80], [200, 40, 60, 60], [300, 150, 80, 60]], "dog": []},
        "room.jpg": {"a red chair": [[40, 60, 120, 140]], "a lamp": [[250, 30, 40, 120]]},
    }
)
EXAMPLE_PREDICTIONS = _one_image_per_line(
    {
        "street.jpg": {
            "cat": [[22, 18, 100, 80], [25, 25, 95, 80], [18, 22, 100, 78]],
            "dog": [[200, 40, 60, 60]],
        },
        "room.jpg": {"a red chair": [[60, 90, 120, 140]], "a lamp": [[250, 30, 40, 120], [320, 200, 30, 30]]},
    }
)

COLORS = {
    "gt": (0, 160, 0),
    "tp": (30, 90, 230),
    "fp": (220, 30, 30),
    "miss": (255, 140, 0),
    "dup": (150, 150, 150),
}


EMPTY_HINT = (
    'paste JSON such as {"street.jpg": {"cat": [[x, y, w, h], ...], "dog": []}} (one entry per image)'
)


def parse_images(text: str, arg: str):
    """JSON: a Fusion Brain dict `{image: {class: boxes}}` (returned as is), a list of per-image dicts,
    or one image dict (both returned as a list). An empty box says what to paste."""
    value = parse_json(text, arg, EMPTY_HINT)
    if isinstance(value, list):
        return value
    if isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
        return value
    return [value]


def _dashed_rectangle(draw, xy, color, width=3, dash=8):
    x1, y1, x2, y2 = xy
    for a, b, horizontal, fixed in (
        (x1, x2, True, y1),
        (x1, x2, True, y2),
        (y1, y2, False, x1),
        (y1, y2, False, x2),
    ):
        pos = a
        while pos < b:
            end = min(pos + dash, b)
            seg = (pos, fixed, end, fixed) if horizontal else (fixed, pos, fixed, end)
            draw.line(seg, fill=color, width=width)
            pos += 2 * dash


def _font():
    from PIL import ImageFont

    return ImageFont.load_default(size=LABEL_PX)


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def place_label(x: float, y: float, width: float, placed: list) -> tuple:
    """Where a label of `width` wanted at (x, y) is drawn: the nearest free row at or below y (else above,
    never over the image's name) so that it covers no label already `placed`; its box is added to it."""
    height = LABEL_PX + 4
    for step in [*range(16), *range(-1, -16, -1)]:
        box = (x, y + step * height, x + width, y + (step + 1) * height)
        if box[1] >= LABEL_PX + 4 and not any(_overlap(box, other) for other in placed):
            break
    else:
        box = (x, y, x + width, y + height)
    placed.append(box)
    return box


def draw_images(names, predictions, references, options):
    """One panel per image (at most MAX_PANELS), stacked: GT green, missed GT dashed orange, TP blue, FP
    red; labels LABEL_PX tall, moved to a free row when they would cover another label (boxes of
    neighbouring objects). The labels' boxes in the picture: ``picture.info["labels"]``."""
    from PIL import Image, ImageDraw

    font = _font()
    panels, drawn_labels = [], []
    for name, pred, ref in list(zip(names, predictions, references))[:MAX_PANELS]:
        pred = det_f1.unpack(det_f1.normalize_example(pred, "predictions", len(panels)))
        ref = det_f1.unpack(det_f1.normalize_example(ref, "references", len(panels)))
        status = det_f1.box_status(pred, ref, **options)
        fmt = options["box_format"]

        def xyxy(b, fmt=fmt):
            return (b[0], b[1], b[0] + b[2], b[1] + b[3]) if fmt == "xywh" else tuple(b)

        boxes = [xyxy(b) for bs in ref.values() for b in bs]
        boxes += [xyxy(b) for c in ref for b in pred.get(c, [])]
        extent = max([b[2] for b in boxes] + [b[3] for b in boxes] + [100.0])
        scale = 420.0 / extent

        def sc(b, scale=scale):
            return tuple(20 + v * scale for v in b)

        shapes, labels, placed = (
            [],
            [],
            [],
        )  # (box, colour, dashed / width), (position, text, colour), label boxes
        for c, gboxes in ref.items():
            for b, st in zip(gboxes, status[c]["gt"]):
                shapes.append((sc(xyxy(b)), COLORS["gt"] if st == "hit" else COLORS["miss"], st != "hit"))
                x1, y1 = sc(xyxy(b))[:2]
                labels.append((place_label(x1 + 2, y1 + 1, font.getlength(c), placed)[:2], c, COLORS["gt"]))
            for b, st in zip(pred.get(c, []), status[c]["pred"]):
                shapes.append((sc(xyxy(b)), COLORS[st], None))
                x1, _, _, y2 = sc(xyxy(b))
                text = f"{c}: {st}"
                labels.append(
                    (
                        place_label(x1 + 2, y2 - LABEL_PX - 3, font.getlength(text), placed)[:2],
                        text,
                        COLORS[st],
                    )
                )
        # wide and tall enough for the boxes and the labels (written from the left edge of their box)
        width = int(max([b[2] for b in boxes] + [100.0]) * scale + 40)
        width = int(max([width, *(box[2] for box in placed)])) + 4
        height = int(
            max([int(max([b[3] for b in boxes] + [100.0]) * scale) + 40, *(box[3] + 4 for box in placed)])
        )
        img = Image.new("RGB", (width, height), (250, 250, 250))
        draw = ImageDraw.Draw(img)
        draw.text((4, 0), name, fill=(0, 0, 0), font=font)
        for box, colour, dashed in shapes:
            if dashed:
                _dashed_rectangle(draw, box, colour)
            else:
                draw.rectangle(box, outline=colour, width=2 if dashed is None else 3)
        for position, text, colour in labels:
            draw.text(position, text, fill=colour, font=font)
        panels.append(img)
        drawn_labels.append(placed)
    if not panels:
        return None
    height = sum(p.height for p in panels) + 10 * (len(panels) - 1)
    canvas = Image.new("RGB", (max(p.width for p in panels), height), (255, 255, 255))
    y, canvas.info["labels"] = 0, []
    for p, placed in zip(panels, drawn_labels):
        canvas.paste(p, (0, y))
        canvas.info["labels"] += [(x1, y1 + y, x2, y2 + y) for x1, y1, x2, y2 in placed]
        y += p.height + 10
    return canvas


def picture_note(names, predictions, references, options, result) -> str:
    """Markdown under the picture: the colours, which images are drawn (the first MAX_PANELS), and why
    dashed (missed) boxes of the drawn images may leave recall untouched (matching "any" derives FN
    from box counts, as the official script does)."""
    missed = 0
    for pred, ref in list(zip(predictions, references))[:MAX_PANELS]:
        pred = det_f1.unpack(det_f1.normalize_example(pred, "predictions", 0))
        ref = det_f1.unpack(det_f1.normalize_example(ref, "references", 0))
        status = det_f1.box_status(pred, ref, **options)
        missed += sum(st == "miss" for c in status for st in status[c]["gt"])
    note = (
        "Ground truth **green**, drawn **dashed orange** when no prediction of its class overlaps it enough "
        "(IoU test); predictions **blue** (hit), **red** (false positive), grey (uncounted duplicate)."
    )
    if len(names) > MAX_PANELS:
        note += (
            f"\n\n**The picture shows the first {MAX_PANELS} of the {len(names)} images** (the table and the "
            "numbers count every image)."
        )
    fn = int(result.get("fn", 0))
    if options["matching"] == "any" and missed > fn:
        drawn = "drawn" if len(names) <= MAX_PANELS else f"in the {MAX_PANELS} images drawn"
        note += (
            f"\n\n**{missed} dashed box(es) {drawn}, FN = {fn} over all images, recall = {result['recall']:.4g}**: "
            "under matching *any* "
            "(the official rule) a prediction is a true positive when it hits any ground-truth box of its class "
            "(several may hit the same box), and a class's FN is max(0, #ground truth - #predictions): a missed "
            "box lowers recall only when its class has fewer predictions than ground-truth boxes. Choose "
            "matching *one_to_one* to count every missed box as FN."
        )
    return note


def compute(references: str, predictions: str, preset: str, *options):
    """Score the detections and draw them: (result, table columns, picture, note under it). Options (matching,
    iou_threshold, iou_boundary, box_format) left on "preset" / empty use the preset's values."""
    refs = parse_images(references, "references")
    preds = parse_images(predictions, "predictions")
    if isinstance(refs, dict) and isinstance(preds, dict):  # Fusion Brain files: align by image key
        preds, refs, names = det_f1.from_fusion_brain(refs, preds)
    elif isinstance(refs, dict) or isinstance(preds, dict):
        raise ValueError("give both sides as {image: {class: boxes}} or both as lists of per-image dicts")
    else:
        names = [f"image {i}" for i in range(len(refs))]
    chosen = {o.name: option_value(o, sent) for o, sent in zip(OPTIONS, options, strict=True)}
    result = load_metric(SCRIPT, preset).compute(
        predictions=preds, references=refs, return_per_example=True, confidence=CONFIDENCE, **chosen
    )
    used = dict(part.split(":", 1) for part in result["signature"].split("|")[1:])  # the resolved options
    drawn = {
        "matching": used["match"],
        "iou_threshold": float(used["iou"]),
        "iou_boundary": used["bound"],
        "box_format": used["fmt"],
    }
    picture = draw_images(names, preds, refs, drawn)
    return result, {"image": names}, picture, picture_note(names, preds, refs, drawn, result)


def build_ui(api_prefix: str = "") -> None:
    """The demo's components and events, inside the caller's gr.Blocks context."""
    gr.Markdown(
        "**det_f1**: detection F1 at an IoU threshold (Fusion Brain 2021 zero-shot detection). Paste JSON "
        "`{image: {class: [[x, y, w, h], ...]}}` (or a list of per-image `{class: boxes}`); the ground-truth "
        "classes are the requested ones, `[]` = class absent. Picture: ground truth **green** (dashed "
        "**orange** when no prediction hits it), hits **blue**, false positives **red**, uncounted "
        "consecutive duplicates grey. Options left on *preset* (or empty) use the preset's value."
    )
    with gr.Row():
        with gr.Column():
            with gr.Row():
                # text boxes, not code editors: Tab moves on (an editor kept the focus and indented the JSON)
                references = gr.Textbox(
                    EXAMPLE_REFERENCES, lines=5, max_lines=CODE_LINES, label="references (ground truth)", elem_id=f"{api_prefix}refs",
                    elem_classes="mm-lines mm-code",
                )  # fmt: skip
                predictions = gr.Textbox(EXAMPLE_PREDICTIONS, lines=5, max_lines=CODE_LINES, label="predictions",
                                         elem_id=f"{api_prefix}preds", elem_classes="mm-lines mm-code")  # fmt: skip
            with gr.Row():
                preset = gr.Dropdown(PRESETS, value="default", label="preset", elem_id=f"{api_prefix}preset")
                widgets = [
                    option_widget(o, f"{api_prefix}opt_{o.name}", det_f1.OPTIONS, "default") for o in OPTIONS
                ]
            button = gr.Button("Compute", variant="primary", elem_id=f"{api_prefix}go")
            picture = gr.Image(label="boxes", show_label=False, type="pil", elem_id=f"{api_prefix}picture")
            note = gr.Markdown("", elem_id=f"{api_prefix}picture_note")
        with gr.Column():
            panel = ResultPanel(api_prefix, table_label="per image")
    connect(
        button,
        compute,
        [references, predictions, preset, *widgets],
        panel,
        f"{api_prefix}compute",
        extra_outputs=[picture, note],
    )
    follow_preset(preset, widgets, OPTIONS, det_f1.OPTIONS)


with page_blocks("det_f1") as demo:
    gr.Markdown("# det_f1: zero-shot detection F1 @ IoU")
    build_ui()
    with gr.Accordion("Metric card", open=False):
        gr.Markdown(card_body(HERE / "README.md"))

if __name__ == "__main__":
    demo.launch()
