"""Image and feature inputs of fid_clip: checked, packed for evaluate's Arrow cache, decoded back.

Accepted per example (errors name the argument and the example index):
* an image file path (``str`` / ``os.PathLike``) or the encoded bytes of an image file;
* a ``PIL.Image.Image`` (any mode; converted to RGB as the official scripts do, alpha dropped);
* a numpy array / torch tensor image: (H, W) grey, (H, W, C) or (C, H, W) with C in {1, 3, 4}
  (channels-last is tried first; a torch tensor is taken as channels-first unless its last axis
  alone is 1, 3 or 4); uint8 (or integers) in [0, 255], or floats in [0, 1] rounded to uint8
  (``round(255 * x)``, what saving the image as PNG does);
* a feature vector: a 1-D array / tensor / list of numbers (FID from precomputed features);
A batch may also be a single array: 2-D (N, d) = feature vectors, 4-D = N images. The two sides
may differ in size: the shorter one is padded with ``NONE`` rows in the Arrow cache.

Stored form: ``{"kind": "none"|"path"|"image"|"features", "text": path, "data": bytes}`` (images in
memory as PNG, features as float64 bytes), so Arrow never sees pixels as nested lists.
"""

import io
import os

import numpy as np

KINDS = ("none", "path", "image", "features")
NONE = {"kind": "none", "text": "", "data": None}  # padding: no example on this side of the row


def _is_tensor(x) -> bool:
    return type(x).__module__.startswith("torch") and hasattr(x, "detach")


def _decode_file(source, where: str):
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(source) as img:
            img.load()
            return img.convert("RGB")
    except FileNotFoundError:
        raise ValueError(f"`{where}`: no such image file {str(source)!r}") from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as err:
        what = repr(str(source)) if not isinstance(source, io.BytesIO) else "the given bytes"
        raise ValueError(f"`{where}`: {what} is not a decodable image ({type(err).__name__}: {err})") from None


def _array_to_pil(x: np.ndarray, where: str, channels_first: bool):
    from PIL import Image

    if x.dtype == bool:
        raise TypeError(f"`{where}`: boolean arrays are not images")
    if x.ndim == 3:
        first_ok, last_ok = x.shape[0] in (1, 3, 4), x.shape[2] in (1, 3, 4)
        if not (first_ok or last_ok):
            raise ValueError(f"`{where}`: image array of shape {x.shape} has no channel axis of size 1, 3 or 4")
        if (channels_first and first_ok) or not last_ok:
            x = x.transpose(1, 2, 0)
        if x.shape[2] == 1:
            x = x[:, :, 0]
    if x.ndim != 2 and x.ndim != 3:
        raise ValueError(f"`{where}`: an image array must be 2-D or 3-D, got shape {x.shape}")
    if min(x.shape[:2]) < 1:
        raise ValueError(f"`{where}`: empty image of shape {x.shape}")
    if np.issubdtype(x.dtype, np.floating):
        if not np.isfinite(x).all():
            raise ValueError(f"`{where}`: image contains NaN or infinite values")
        if x.min() < 0 or x.max() > 1:
            raise ValueError(f"`{where}`: float images must be in [0, 1], got values in [{x.min()}, {x.max()}]")
        x = np.rint(x * 255.0).astype(np.uint8)
    elif np.issubdtype(x.dtype, np.integer):
        if x.min() < 0 or x.max() > 255:
            raise ValueError(f"`{where}`: integer images must be in [0, 255], got values in [{x.min()}, {x.max()}]")
        x = x.astype(np.uint8)
    else:
        raise TypeError(f"`{where}`: unsupported array dtype {x.dtype}")
    return Image.fromarray(np.ascontiguousarray(x)).convert("RGB")


MAX_FEATURE = 1e150  # squares and sums of ~1e4 squares stay finite in float64


def _features(x, where: str) -> dict:
    if isinstance(x, np.ndarray) and x.dtype.kind not in "iuf" and not (
        x.dtype == object and all(isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool) for v in x)
    ):
        raise TypeError(f"`{where}`: a feature vector must contain real numbers, got dtype {x.dtype}")
    try:
        v = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise TypeError(f"`{where}`: a feature vector must contain real numbers only") from None
    if v.ndim != 1 or v.size == 0:
        raise ValueError(f"`{where}`: a feature vector must be 1-D and non-empty, got shape {v.shape}")
    if not np.isfinite(v).all():
        raise ValueError(f"`{where}` contains NaN or infinite values")
    if np.abs(v).max() > MAX_FEATURE:
        raise ValueError(
            f"`{where}`: feature values beyond ±{MAX_FEATURE:g} would overflow the covariance (products of two values)"
        )
    return {"kind": "features", "text": "", "data": v.tobytes()}


def _png(img) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


def pack(item, where: str) -> dict:
    """Check one example and return its stored form (raises ValueError/TypeError naming `where`)."""
    if item is None:
        raise TypeError(f"`{where}` is None: expected an image or a feature vector")
    if isinstance(item, str) or isinstance(item, os.PathLike):
        path = os.fspath(item)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        _decode_file(path, where)
        return {"kind": "path", "text": path, "data": None}
    if isinstance(item, bytes | bytearray | memoryview):
        _decode_file(io.BytesIO(bytes(item)), where)
        return {"kind": "image", "text": "", "data": bytes(item)}
    if type(item).__module__.startswith("PIL.") and hasattr(item, "convert"):
        if min(item.size) < 1:
            raise ValueError(f"`{where}`: empty PIL image of size {item.size}")
        try:
            img = item.convert("RGB")
        except (OSError, ValueError) as err:
            raise ValueError(f"`{where}`: the PIL image cannot be converted to RGB ({err})") from None
        return {"kind": "image", "text": "", "data": _png(img)}
    if _is_tensor(item):
        item_np = item.detach().cpu().numpy()
        if item_np.ndim == 1:
            return _features(item_np, where)
        return {"kind": "image", "text": "", "data": _png(_array_to_pil(item_np, where, channels_first=True))}
    if isinstance(item, np.ndarray):
        if item.ndim == 1:
            return _features(item, where)
        return {"kind": "image", "text": "", "data": _png(_array_to_pil(item, where, channels_first=False))}
    if isinstance(item, list | tuple):
        if not all(isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool | np.bool_)
                   for v in item):
            raise TypeError(f"`{where}`: a feature vector must be a list of real numbers")
        return _features(item, where)
    raise TypeError(
        f"`{where}` must be an image (file path, bytes, PIL image, numpy array or torch tensor) or a feature "
        f"vector, got {type(item).__name__}"
    )


def image_batch(values):
    """A 4-D numpy array / torch tensor as a list of N images, a 2-D one as a list of N feature
    vectors (rows kept as arrays: no Python floats); None for anything else."""
    if (_is_tensor(values) or isinstance(values, np.ndarray)) and values.ndim in (2, 4):
        if isinstance(values, np.ndarray) and values.dtype == object:
            return None
        return list(values)
    return None


def unpack(stored: dict):
    """(kind, value): ("image", PIL RGB image), ("features", 1-D float64 array) or ("none", None)."""
    kind = stored["kind"]
    if kind == "path":
        return "image", _decode_file(stored["text"], stored["text"])
    if kind == "image":
        return "image", _decode_file(io.BytesIO(stored["data"]), "image")
    if kind == "features":
        return "features", np.frombuffer(stored["data"], dtype=np.float64)
    return "none", None
