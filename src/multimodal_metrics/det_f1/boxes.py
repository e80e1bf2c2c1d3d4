"""Boxes, IoU and the whole-array coordinate checks of det_f1 (see :mod:`multimodal_metrics.det_f1.core`).

IoU with the same floating-point operations, in the same order, as the official AIJ 2021 Fusion
Brain zsOD script (so IoU = t ties decide alike), an exact power-of-two rescaling for coordinates
beyond 2**500 (or nonzero below 2**-500), and the tests that tell usual coordinates from those that
need the checked path.
"""

import numpy as np

# the choices of the options (``multimodal_metrics.det_f1.scoring.OPTIONS``)
MATCHINGS = ("any", "one_to_one")
BOUNDARIES = ("inclusive", "strict")
BOX_FORMATS = ("xywh", "xyxy")
MISSING_CLASS = ("error", "empty")


def to_xyxy(boxes, box_format: str = "xywh") -> np.ndarray:
    """(N, 4) float64 boxes as [x1, y1, x2, y2]; ``xywh`` -> [x, y, x + w, y + h]."""
    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    if box_format == "xyxy":
        return boxes
    if box_format == "xywh":
        out = boxes.copy()
        out[:, 2:] = boxes[:, :2] + boxes[:, 2:]
        return out
    raise ValueError(f"`box_format` must be one of {list(BOX_FORMATS)}, got {box_format!r}")


def paired_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of xyxy boxes ``a[..., :]`` vs ``b[..., :]`` (aligned rows, or any broadcastable shapes).

    Same operations, in the same order, as the official script: inter = clip(min x2 - max x1) *
    clip(min y2 - max y1), union = (area_a + area_b - inter), IoU = inter / union, 0 where union = 0.

    Coordinates beyond 2**500 in magnitude (or nonzero below 2**-500) would overflow (underflow) the
    areas: two identical [0, 0, 1e154, 1e154] boxes would get IoU inf/inf. Then every pair is first
    scaled by a power of two (exact in floating point) that brings its largest coordinate near 1;
    IoU is scale-invariant, so the result equals the exact IoU rounded once, and inputs in the usual
    range take the unscaled path bit for bit.
    """
    if not (in_safe_range(a) and in_safe_range(b)):
        _, exponent = np.frexp(np.maximum(np.abs(a).max(axis=-1), np.abs(b).max(axis=-1)))
        shift = -exponent[..., None]
        a, b = np.ldexp(a, shift), np.ldexp(b, shift)  # x * 2**shift, no intermediate overflow
    a, b = _columns(a), _columns(b)
    return column_iou(a, b, column_area(a), column_area(b))


def _columns(x: np.ndarray) -> tuple:
    """The 4 coordinates of xyxy boxes ``x[..., 4]`` as 4 arrays."""
    return x[..., 0], x[..., 1], x[..., 2], x[..., 3]


def column_area(c: tuple) -> np.ndarray:
    return (c[2] - c[0]) * (c[3] - c[1])


def column_iou(a: tuple, b: tuple, area_a: np.ndarray, area_b: np.ndarray) -> np.ndarray:
    """IoU of aligned xyxy boxes given as coordinate columns (:func:`_columns`) and their areas
    (:func:`paired_iou` without the scaling)."""
    wx = np.minimum(a[2], b[2]) - np.maximum(a[0], b[0])
    wy = np.minimum(a[3], b[3]) - np.maximum(a[1], b[1])
    inter = np.maximum(wx, 0.0) * np.maximum(wy, 0.0)
    union = area_a + area_b - inter
    return np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)


_SAFE_HIGH, _SAFE_LOW = 2.0**500, 2.0**-500


def in_safe_range(x: np.ndarray) -> bool:
    """True when no coordinate is beyond 2**500 in magnitude nor nonzero below 2**-500 (areas and
    their sums then neither overflow nor underflow)."""
    if not x.size:
        return True
    magnitude = np.abs(x)
    return bool(magnitude.max() <= _SAFE_HIGH) and not magnitude[magnitude < _SAFE_LOW].any()


def pairwise_iou(a, b, box_format: str = "xyxy") -> np.ndarray:
    """(N, M) IoU matrix between two box sets, by broadcasting (0 where the union is 0)."""
    a = to_xyxy(a, box_format)
    b = to_xyxy(b, box_format)
    return paired_iou(a[:, None, :], b[None, :, :])


def passes(iou: np.ndarray, iou_threshold: float = 0.5, iou_boundary: str = "inclusive") -> np.ndarray:
    """Boolean mask of the IoUs that count as a hit."""
    if iou_boundary == "inclusive":
        return iou >= iou_threshold
    if iou_boundary == "strict":
        return iou > iou_threshold
    raise ValueError(f"`iou_boundary` must be one of {list(BOUNDARIES)}, got {iou_boundary!r}")


def xyxy_columns(boxes: np.ndarray, box_format: str) -> tuple:
    """(x1, y1, x2, y2) contiguous columns of (N, 4) boxes (the arithmetic of :func:`to_xyxy`)."""
    x, y, c, d = (np.ascontiguousarray(boxes[:, k]) for k in range(4))
    return (x, y, x + c, y + d) if box_format == "xywh" else (x, y, c, d)


# ----------------------------------------------------------------------------------------------
# Coordinate values (whole-array tests)
# ----------------------------------------------------------------------------------------------
def coordinates_ok(boxes: np.ndarray, box_format: str) -> bool:
    """True when every coordinate is finite and every box has a nonnegative size that float64 keeps
    (xywh: a positive w or h must not vanish in x + w, y + h) (whole-array tests)."""
    if not len(boxes):
        return True
    with np.errstate(over="ignore", invalid="ignore"):
        if box_format == "xywh":
            ends = boxes[:, :2] + boxes[:, 2:]
            ends_ok = (
                np.isfinite(ends).all() and (boxes[:, 2:] >= 0).all() and not size_lost(boxes, ends).any()
            )
        else:
            ends_ok = (boxes[:, 2:] >= boxes[:, :2]).all()
        return bool(ends_ok and np.isfinite(boxes).all())


def size_lost(boxes: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Per xywh box: True when a positive width or height vanishes in x + w (or y + h) in float64
    (w below half the float64 spacing of x: [1e17, 0, 1, 1]); the box would have area 0 and IoU 0
    even with itself, so it is refused instead of scored."""
    return ((boxes[:, 2:] > 0) & (ends == boxes[:, :2])).any(axis=1)


def ordinary_values(boxes: np.ndarray, box_format: str) -> bool:
    """True when every block of ``boxes`` passes :func:`coordinates_ok` and :func:`in_safe_range` (with
    the xyxy coordinates), tested on the whole array with small temporaries (booleans): finite
    coordinates of magnitude at most 2**499 (then x + w, y + h stay within 2**500), nonnegative sizes
    (xywh) or x2 >= x1 and y2 >= y1 (xyxy), and no xyxy coordinate nonzero below 2**-500 in magnitude.
    False says nothing: the blocks are then checked one by one."""
    if not len(boxes):
        return True
    low, high = boxes.min(), boxes.max()  # NaN: both NaN, the test below is False
    if not (-_ORDINARY <= low and high <= _ORDINARY):
        return False
    if box_format == "xyxy":
        return bool((boxes[:, 2] >= boxes[:, 0]).all() and (boxes[:, 3] >= boxes[:, 1]).all()) and _no_tiny(
            boxes
        )
    if boxes[:, 2:].min() < 0 or not _no_tiny(boxes) or size_lost(boxes, boxes[:, :2] + boxes[:, 2:]).any():
        return False
    # x + w >= max(x, w) when both are >= 0: it can only be tiny in a row with a negative x or y
    rows = boxes[(boxes[:, 0] < 0) | (boxes[:, 1] < 0)] if low < 0 else boxes[:0]
    return _no_tiny(rows[:, :2] + rows[:, 2:])


def _no_tiny(x: np.ndarray) -> bool:
    """True when no value is nonzero below 2**-500 in magnitude."""
    near_zero = x > -_SAFE_LOW
    near_zero &= x < _SAFE_LOW
    return bool(np.count_nonzero(near_zero) == np.count_nonzero(x == 0))


_ORDINARY = 2.0**499
