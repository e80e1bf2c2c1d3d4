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

Stored form: ``{"kind": "none"|"path"|"image"|"pixels"|"features", "text": path, "data": bytes}`` (the
encoded bytes of an image file as given; images in memory as their RGB pixels, ``pixels``: the H x W x 3
uint8 values with "W H" as the text, no codec; features as float64 bytes; a file name that is not UTF-8 as
its bytes: ``stored_path``), so Arrow never sees pixels as nested lists. An
image in memory reaches the network as the same RGB pixels a lossless file of it decodes to (PNG), so
its scores equal those of that file.
"""

import contextlib
import io
import math
import os
import re
import stat
import struct
import threading
import zlib

import numpy as np

from ..extras import require
from .moments import MAX_FEATURE

KINDS = ("none", "path", "image", "pixels", "features")
IMAGE_KINDS = ("path", "image", "pixels")  # the kinds decoded / resized by Pillow
NONE = {"kind": "none", "text": "", "data": None}  # padding: no example on this side of the row


def _is_tensor(x) -> bool:
    return type(x).__module__.startswith("torch") and hasattr(x, "detach")


# The pixel limit (option ``max_pixels``): PIL's own refusal threshold (2 x Image.MAX_IMAGE_PIXELS at
# PIL's default, 178,956,970 pixels, e.g. 13,377 x 13,377; 512 MiB once decoded to RGB). Images above
# the limit are refused from their header, before any pixel is decoded: decompression bombs (a small
# file claiming 20,000 x 20,000) cost nothing. A larger limit accepts larger valid images (15,000 x
# 15,000 needs max_pixels >= 225,000,000); PIL's global limit is then raised, under a lock, to the
# checked size of that one image while it is opened.
MAX_PIXELS = 178_956_970
_PIL_LIMIT = threading.Lock()


def _describe(source) -> str:
    return "the given bytes" if isinstance(source, io.BytesIO) else repr(str(source))


def _bomb_pixels(err) -> int | None:
    match = re.search(r"\((\d+) pixels\)", str(err))
    return int(match.group(1)) if match else None


@contextlib.contextmanager
def _opened(source, where: str, max_pixels: int | None, decode: bool = False):
    """``(image, pixels)`` of a file / bytes: the header read and checked (a regular file or bytes, an
    image format PIL reads, size >= 1, pixels <= max_pixels), the pixels decoded only with ``decode``.
    ``max_pixels`` None: no limit for a header check (``image`` is then None when the image is over PIL's
    own limit), ``MAX_PIXELS`` for a decode. Every failure is a ValueError naming `where`."""
    import warnings

    from PIL import Image, UnidentifiedImageError

    if max_pixels is None and decode:
        max_pixels = MAX_PIXELS
    limit = math.inf if max_pixels is None else max_pixels

    def too_big(pixels, size=None) -> ValueError:
        dims = f"{size[0]} x {size[1]} = " if size else ""
        return ValueError(
            f"`{where}`: {_describe(source)} is {dims}{pixels:,} pixels, over the limit of {limit:,} "
            "(option `max_pixels`; a decompression bomb is refused from its header)"
        )

    try:
        if not isinstance(source, io.BytesIO) and not stat.S_ISREG(os.stat(source).st_mode):
            raise ValueError(
                f"`{where}`: {_describe(source)} is not a regular file (a FIFO, device or folder)"
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            try:
                img = Image.open(source)
            except Image.DecompressionBombError as err:  # over PIL's own limit: PIL read the header only
                pixels = _bomb_pixels(err)
                if pixels is None or pixels > limit:
                    raise too_big(pixels or 0) from None
                if not decode:
                    yield None, pixels
                    return
                with (
                    _PIL_LIMIT
                ):  # within our limit, above PIL's: lift PIL's to this image's size to decode it
                    saved = Image.MAX_IMAGE_PIXELS
                    Image.MAX_IMAGE_PIXELS = pixels
                    try:
                        img = Image.open(source)
                        img.load()
                    finally:
                        Image.MAX_IMAGE_PIXELS = saved
            with img:
                w, h = img.size
                if w < 1 or h < 1:
                    raise ValueError(f"`{where}`: {_describe(source)} is an empty image of size {img.size}")
                if w * h > limit:
                    raise too_big(w * h, img.size)
                if decode:
                    img.load()
                yield img, w * h
    except FileNotFoundError:
        raise ValueError(f"`{where}`: no such image file {str(source)!r}") from None
    except ValueError as err:
        if str(err).startswith(f"`{where}`"):
            raise
        raise ValueError(
            f"`{where}`: {_describe(source)} is not a decodable image ({type(err).__name__}: {err})"
        ) from None
    except (
        UnidentifiedImageError,
        OSError,
        SyntaxError,
        EOFError,
        MemoryError,
        Image.DecompressionBombError,
        IndexError,
        KeyError,
        TypeError,
        struct.error,
        zlib.error,
    ) as err:
        raise ValueError(
            f"`{where}`: {_describe(source)} is not a decodable image ({type(err).__name__}: {err})"
        ) from None


def check_header(source, where: str, max_pixels: int | None = None) -> int:
    """The pixel count (width x height) of an image file / bytes from its header alone (no pixel decoded);
    errors (not a regular file, not an image, empty, over ``max_pixels``; None: no limit) are ValueErrors
    naming `where`."""
    with _opened(source, where, max_pixels) as (_, pixels):
        return pixels


def _decode_file(source, where: str, max_pixels: int | None = MAX_PIXELS, as_array: bool = False):
    """The RGB PIL image of a file / bytes, decoded once, the header checked first (``_opened``);
    ``as_array``: its (H, W, 3) uint8 pixels instead (one copy of an RGB image's pixels)."""
    with _opened(source, where, max_pixels, decode=True) as (img, _):
        if as_array:
            return np.asarray(img if img.mode == "RGB" else img.convert("RGB"))
        return img.convert("RGB")


def _array_to_rgb(x: np.ndarray, where: str, channels_first: bool) -> np.ndarray:
    """The (H, W, 3) uint8 RGB pixels of an image array, as ``PIL.Image.fromarray(...).convert("RGB")``
    gives them: grey (L) repeated in the three channels, the alpha of RGBA dropped."""
    kind = x.dtype.kind
    if kind == "b":
        raise TypeError(f"`{where}`: boolean arrays are not images")
    if x.ndim == 3:
        first_ok, last_ok = x.shape[0] in (1, 3, 4), x.shape[2] in (1, 3, 4)
        if not (first_ok or last_ok):
            raise ValueError(
                f"`{where}`: image array of shape {x.shape} has no channel axis of size 1, 3 or 4"
            )
        if (channels_first and first_ok) or not last_ok:
            x = x.transpose(1, 2, 0)
        if x.shape[2] == 1:
            x = x[:, :, 0]
    if x.ndim != 2 and x.ndim != 3:
        raise ValueError(f"`{where}`: an image array must be 2-D or 3-D, got shape {x.shape}")
    if min(x.shape[:2]) < 1:
        raise ValueError(f"`{where}`: empty image of shape {x.shape}")
    if kind == "f":
        if not np.isfinite(x).all():
            raise ValueError(f"`{where}`: image contains NaN or infinite values")
        if x.min() < 0 or x.max() > 1:
            raise ValueError(
                f"`{where}`: float images must be in [0, 1], got values in [{x.min()}, {x.max()}]"
            )
        x = np.rint(x * 255.0).astype(np.uint8)
    elif kind in "iu":
        if x.dtype != np.uint8 and (x.min() < 0 or x.max() > 255):
            raise ValueError(
                f"`{where}`: integer images must be in [0, 255], got values in [{x.min()}, {x.max()}]"
            )
        x = x.astype(np.uint8, copy=False)
    else:
        raise TypeError(f"`{where}`: unsupported array dtype {x.dtype}")
    if x.ndim == 2:
        return np.repeat(x[:, :, None], 3, axis=2)
    return x[:, :, :3] if x.shape[2] == 4 else x


def _array_to_pil(x: np.ndarray, where: str, channels_first: bool):
    """The RGB PIL image of an image array (:func:`_array_to_rgb`)."""
    from PIL import Image

    return Image.fromarray(np.ascontiguousarray(_array_to_rgb(x, where, channels_first)))


def _features(x, where: str) -> dict:
    if (
        isinstance(x, np.ndarray)
        and x.dtype.kind not in "iuf"
        and not (
            x.dtype == object
            and all(
                isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool) for v in x
            )
        )
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
            f"`{where}`: feature values beyond ±{MAX_FEATURE:g} would overflow the distance (see moments.MAX_FEATURE)"
        )
    return {"kind": "features", "text": "", "data": v.tobytes()}


def _pixels(rgb, where: str, max_pixels: int | None) -> dict:
    """The stored form of RGB pixels: an (H, W, 3) uint8 array, or an RGB PIL image (its raw bytes are
    the same values in the same order)."""
    w, h = (rgb.shape[1], rgb.shape[0]) if isinstance(rgb, np.ndarray) else rgb.size
    if max_pixels is not None and w * h > max_pixels:
        raise ValueError(
            f"`{where}`: the image is {w} x {h} pixels, over the limit of {max_pixels:,} (option `max_pixels`)"
        )
    raw = rgb.tobytes()  # C order (one copy, also of a transposed array); a PIL image's RGB bytes
    return {"kind": "pixels", "text": f"{w} {h}", "data": raw}


def _pixels_size(stored: dict) -> tuple[int, int]:
    """(width, height) of stored pixels, checked against the length of the data."""
    try:
        w, h = (int(v) for v in stored["text"].split())
    except ValueError:
        raise ValueError(f"stored pixels have no size ({stored['text']!r:.40})") from None
    if w < 1 or h < 1 or len(stored["data"]) != 3 * w * h:
        raise ValueError(f"stored pixels of {w} x {h} do not match their {len(stored['data']):,} bytes")
    return w, h


def _pixels_checked(stored: dict, where: str, max_pixels: int | None) -> tuple[int, int]:
    """(width, height) of stored pixels within ``max_pixels`` (else a ValueError naming `where`)."""
    w, h = _pixels_size(stored)
    if max_pixels is not None and w * h > max_pixels:
        raise ValueError(
            f"`{where}`: the image is {w} x {h} = {w * h:,} pixels, over the limit of {max_pixels:,} "
            "(option `max_pixels`)"
        )
    return w, h


def _from_pixels(stored: dict, where: str, max_pixels: int | None):
    """The RGB PIL image of stored pixels (no decoding: the values are copied), the size checked."""
    from PIL import Image

    return Image.frombytes("RGB", _pixels_checked(stored, where, max_pixels), stored["data"])


_VISION = []  # [True] once Pillow and torch were found importable (checked once per process)


def pack(item, where: str, max_pixels: int | None = None) -> dict:
    """Check one example and return its stored form (raises ValueError/TypeError naming `where`). Image
    files and bytes are checked from their header only (``check_header``: a regular file, format, size,
    ``max_pixels``; None: no limit here, ``score_checked`` checks it) and decoded once, when scored
    (``unpack``)."""
    if item is None:
        raise TypeError(f"`{where}` is None: expected an image or a feature vector")
    is_array = isinstance(item, np.ndarray) or _is_tensor(item)
    is_image = isinstance(item, str | os.PathLike | bytes | bytearray | memoryview) or type(
        item
    ).__module__.startswith("PIL.")
    if (is_image or (is_array and item.ndim > 1)) and not _VISION:
        require("fid_clip with images", ["PIL", "torch"], ["vision"])  # decoded by Pillow, scored in torch
        _VISION.append(True)
    if isinstance(item, str) or isinstance(item, os.PathLike):
        path = os.fspath(item)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        check_header(path, where, max_pixels)
        if not path.isascii() and not _utf8(path):  # a file name that is not UTF-8: kept as its bytes (Arrow)
            return {"kind": "path", "text": "", "data": os.fsencode(path)}
        return {"kind": "path", "text": path, "data": None}
    if isinstance(item, bytes | bytearray | memoryview):
        check_header(io.BytesIO(bytes(item)), where, max_pixels)
        return {"kind": "image", "text": "", "data": bytes(item)}
    if type(item).__module__.startswith("PIL.") and hasattr(item, "convert"):
        if min(item.size) < 1:
            raise ValueError(f"`{where}`: empty PIL image of size {item.size}")
        try:
            img = item if item.mode == "RGB" else item.convert("RGB")
        except (OSError, ValueError) as err:
            raise ValueError(f"`{where}`: the PIL image cannot be converted to RGB ({err})") from None
        return _pixels(img, where, max_pixels)
    tensor = _is_tensor(item)
    if tensor or isinstance(
        item, np.ndarray
    ):  # a torch tensor is channels-first, a numpy array channels-last
        array = item.detach().cpu().numpy() if tensor else item
        if array.ndim == 1:
            return _features(array, where)
        return _pixels(_array_to_rgb(array, where, channels_first=tensor), where, max_pixels)
    if isinstance(item, list | tuple):
        if not all(
            isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool | np.bool_)
            for v in item
        ):
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


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def stored_path(stored: dict) -> str:
    """The file path of a stored ``"path"`` example: ``text``, or for a file name that is not UTF-8 (which
    Python holds with surrogate escapes and Arrow cannot store as a string) its bytes in ``data``."""
    return stored["text"] if stored.get("data") is None else os.fsdecode(stored["data"])


def unpack(stored: dict, where: str | None = None, max_pixels: int = MAX_PIXELS):
    """(kind, value): ("image", PIL RGB image), ("features", 1-D float64 array) or ("none", None).
    Images are decoded here (once), their header checked again against ``max_pixels``; errors name
    `where` (the argument and index; by default the file path, or "image"). Stored pixels are copied
    into the image as they are."""
    kind = stored["kind"]
    if kind == "pixels":
        return "image", _from_pixels(stored, where or "image", max_pixels)
    if kind == "path":
        path = stored_path(stored)
        return "image", _decode_file(path, where or path, max_pixels)
    if kind == "image":
        return "image", _decode_file(io.BytesIO(stored["data"]), where or "image", max_pixels)
    if kind == "features":
        return "features", np.frombuffer(stored["data"], dtype=np.float64)
    return "none", None


def unpack_rgb(stored: dict, where: str | None = None, max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """The (H, W, 3) uint8 RGB pixels of a stored image (``unpack``'s image as an array): stored pixels
    are read in place (a read-only view of the data), files and encoded bytes decoded."""
    if stored["kind"] == "pixels":
        w, h = _pixels_checked(stored, where or "image", max_pixels)
        return np.frombuffer(stored["data"], dtype=np.uint8).reshape(h, w, 3)
    if stored["kind"] == "path":
        path = stored_path(stored)
        return _decode_file(path, where or path, max_pixels, as_array=True)
    if stored["kind"] == "image":
        return _decode_file(io.BytesIO(stored["data"]), where or "image", max_pixels, as_array=True)
    raise ValueError(f"`{where or 'image'}` is not an image (a {stored['kind']} example)")


def check_pixels(items: list, arg: str, max_pixels: int) -> None:
    """Check every stored image of one side against ``max_pixels`` from its header (no pixel decoded),
    before any model runs: errors name `arg` and the index."""
    for i, item in enumerate(items):
        if item["kind"] == "path":
            check_header(stored_path(item), f"{arg}[{i}]", max_pixels)
        elif item["kind"] == "image":
            check_header(io.BytesIO(item["data"]), f"{arg}[{i}]", max_pixels)
        elif item["kind"] == "pixels":
            _pixels_checked(item, f"{arg}[{i}]", max_pixels)
