"""det_f1's picture of a set of images: ground truth and predictions drawn as boxes coloured by what
:func:`~multimodal_metrics.det_f1.box_status` says of each (hit, missed, true / false positive, uncounted
duplicate), labels placed so that none covers another, and the note that explains the picture (the
demo shows both; PIL only, imported inside the functions).
"""

from .columns import normalize_example, unpack
from .matching import box_status

MAX_PANELS = 4  # the images drawn (the first ones; the note says so when there are more)
LABEL_PX = 18  # the box labels' font size in the picture (drawn at about 1:1 in the page: panels are stacked)

COLORS = {
    "gt": (0, 160, 0),
    "tp": (30, 90, 230),
    "fp": (220, 30, 30),
    "miss": (255, 140, 0),
    "dup": (150, 150, 150),
}


def _dashed_rectangle(draw, xy, color, width=3, dash=8):
    """A rectangle of dashes (a missed ground-truth box)."""
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
    """PIL's default font at LABEL_PX."""
    from PIL import ImageFont

    return ImageFont.load_default(size=LABEL_PX)


def overlap(a, b) -> bool:
    """Whether two boxes (x1, y1, x2, y2) overlap."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def place_label(x: float, y: float, width: float, placed: list) -> tuple:
    """Where a label of `width` wanted at (x, y) is drawn: the nearest free row at or below y (else above,
    never over the image's name) so that it covers no label already `placed`; its box is added to it."""
    height = LABEL_PX + 4
    for step in [*range(16), *range(-1, -16, -1)]:
        box = (x, y + step * height, x + width, y + (step + 1) * height)
        if box[1] >= LABEL_PX + 4 and not any(overlap(box, other) for other in placed):
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
        pred = unpack(normalize_example(pred, "predictions", len(panels)))
        ref = unpack(normalize_example(ref, "references", len(panels)))
        status = box_status(pred, ref, **options)
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


def _count(n: int, thing: str, plural: str | None = None) -> str:
    """ "1 prediction", "2 predictions" (`plural`: when not thing + "s")."""
    return f"{n} {thing if n == 1 else plural or thing + 's'}"


def picture_text(names, predictions, references, options) -> str:
    """What the picture draws, in words (its text alternative): for each image drawn and each class, the
    ground-truth boxes hit and missed and the predictions that hit, are false positives or uncounted
    duplicates, e.g. "street.jpg: cat: 3 ground-truth boxes (2 hit, 1 missed), 3 predictions (2 hits,
    1 false positive)"."""
    words = {"gt": {"hit": ("hit", "hit"), "miss": ("missed", "missed")},
             "pred": {"tp": ("hit", "hits"), "fp": ("false positive", None), "dup": ("uncounted duplicate", None)}}  # fmt: skip
    drawn = list(zip(names, predictions, references))[:MAX_PANELS]
    images = []
    for k, (name, pred, ref) in enumerate(drawn):
        pred = unpack(normalize_example(pred, "predictions", k))
        ref = unpack(normalize_example(ref, "references", k))
        status = box_status(pred, ref, **options)
        classes = []
        for c in ref:
            parts = []
            for side, thing, plural in (
                ("gt", "ground-truth box", "ground-truth boxes"),
                ("pred", "prediction", None),
            ):
                found = status[c][side]
                counts = [_count(found.count(st), *words[side][st]) for st in words[side] if st in found]
                parts.append(
                    _count(len(found), thing, plural) + (f" ({', '.join(counts)})" if counts else "")
                )
            classes.append(f"{c}: {', '.join(parts)}")
        images.append(f"{name}: {'; '.join(classes) or 'no class'}")
    more = f" (the first {len(drawn)} of {len(names)})" if len(names) > len(drawn) else ""
    return f"Boxes of {_count(len(drawn), 'image')}{more}. " + ". ".join(images) + "."


def picture_note(names, predictions, references, options, result) -> str:
    """Markdown under the picture: the colours, which images are drawn (the first MAX_PANELS), and why
    dashed (missed) boxes of the drawn images may leave recall untouched (matching "any" derives FN
    from box counts, as the official script does)."""
    missed = 0
    for pred, ref in list(zip(predictions, references))[:MAX_PANELS]:
        pred = unpack(normalize_example(pred, "predictions", 0))
        ref = unpack(normalize_example(ref, "references", 0))
        status = box_status(pred, ref, **options)
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
