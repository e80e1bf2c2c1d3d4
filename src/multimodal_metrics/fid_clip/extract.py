"""Feature extraction of fid_clip: FID statistics of one side (feature vectors as given, or images
through the FID Inception / a custom extractor, in batches) and CLIP cosines of (image, text) pairs.

Feature vectors need numpy only; torch (and tqdm) are imported only when images go through a model.
Loaded networks are kept in ``MODELS`` between calls (Trainer evaluations, the demo).

Images are decoded (and, for FID, converted to tensors) by ``num_workers`` threads while the network
runs on the batch before (``decoded_batches``): PIL's decoders and resizes and numpy's conversions
release the GIL, so decoding overlaps the forward pass without worker processes, pickling or a
``__main__`` guard. The batches, their order and the model calls are the same for every
``num_workers``: the features are identical (tested).
"""

import os
from collections import deque
from contextlib import closing

import numpy as np

from .clip import load_clip
from .core import FrechetStats
from .images import unpack
from .inception import check_extractor_output, load_fid_inception, preprocess

MODELS = {}  # loaded networks, kept between calls: ("inception", weights) / ("clip", folder) -> model


def _progress(total: int, opts: dict, desc: str):
    from tqdm.auto import tqdm

    show = opts["progress"] if opts["progress"] is not None else total > 5 * opts["batch_size"]
    return tqdm(total=total, desc=desc, unit="img", disable=not show)


def _extractor(opts: dict):
    import torch

    if opts["feature_extractor"] is not None:
        model = opts["feature_extractor"]
        if isinstance(model, torch.nn.Module):
            model.eval().to(opts["device"])
        return model
    key = ("inception", str(opts["inception_weights"]))
    if key not in MODELS:
        MODELS[key] = load_fid_inception(opts["inception_weights"])
    return MODELS[key].to(opts["device"])


def default_workers() -> int:
    """The CPUs this process may run on (the affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def decoded_batches(items: list, batch_size: int, convert, workers: int | None):
    """``(start, [convert(item) for item in items[start : start + batch_size]])`` for each batch, in order.

    ``workers`` 0: converted in the calling thread when the batch is asked for. Else a pool of that many
    threads (None: ``default_workers()``) converts the items of up to two batches ahead while the caller
    runs the model on the current one. An error raised by ``convert`` is raised here, for the first
    failing item in input order; on leaving early the queued conversions are cancelled."""
    starts = range(0, len(items), batch_size)
    workers = default_workers() if workers is None else workers
    if workers <= 0 or len(items) == 0:
        for start in starts:
            yield start, [convert(item) for item in items[start : start + batch_size]]
        return
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(max_workers=min(workers, len(items)), thread_name_prefix="fid_clip-decode")
    try:
        ahead = deque()
        queue = iter(starts)

        def submit():
            start = next(queue, None)
            if start is not None:
                ahead.append((start, [pool.submit(convert, item) for item in items[start : start + batch_size]]))

        submit()
        submit()
        while ahead:
            start, futures = ahead.popleft()
            submit()
            yield start, [f.result() for f in futures]
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def side_statistics(items: list, arg: str, opts: dict, keep: bool = False):
    """(FrechetStats, kind, features) of one side: feature vectors as given, or images through the
    extractor in batches. ``items`` are stored examples (``images.pack``); ``features`` is the (n, d)
    float64 array of every vector when ``keep`` (for the bootstrap), else None. The items come from
    evaluate (all batches, all processes; the cache file, or the in-memory table of a direct compute)
    or from the library's ``score``, so the vectors are read or computed here, once."""
    kinds = {item["kind"] for item in items}
    kept = None
    if kinds == {"features"}:  # numpy only
        dims = [len(item["data"]) // 8 for item in items]
        bad = next((i for i, d in enumerate(dims) if d != dims[0]), None)
        if bad is not None:
            raise ValueError(f"`{arg}[{bad}]` has a {dims[bad]}-d feature vector but `{arg}[0]` has {dims[0]}-d")
        stats = FrechetStats(dims[0])
        kept = np.empty((len(items), dims[0])) if keep else None
        for start in range(0, len(items), 4096):
            chunk = items[start : start + 4096]
            rows = np.frombuffer(b"".join(c["data"] for c in chunk), dtype=np.float64).reshape(len(chunk), -1)
            stats.update(rows, arg, start)
            if keep:
                kept[start : start + len(chunk)] = rows
        return stats, "features", kept
    if "features" in kinds:
        raise ValueError(f"`{arg}` mixes images and feature vectors: give one kind per side")
    import torch

    model = _extractor(opts)
    stats = None
    pre = opts["pre_resize"] or None
    indexed = list(enumerate(items))

    def tensor(pair):
        index, item = pair
        return preprocess(unpack(item, f"{arg}[{index}]", opts["max_pixels"])[1], pre)

    batches = closing(decoded_batches(indexed, opts["batch_size"], tensor, opts.get("num_workers")))
    with batches as batches, _progress(len(items), opts, f"fid_clip: {arg} features") as bar, torch.inference_mode():
        for start, tensors in batches:
            feats = _forward_grouped(model, tensors, opts["device"])
            if feats.ndim != 2:
                raise ValueError(f"`feature_extractor` must return (B, d) features, got shape {tuple(feats.shape)}")
            stats = stats or FrechetStats(feats.shape[1])
            stats.update(feats, arg, start)
            if keep:
                kept = np.empty((len(items), feats.shape[1])) if kept is None else kept
                kept[start : start + len(feats)] = feats
            bar.update(len(tensors))
    return stats, "images", kept


def _forward_grouped(model, tensors: list, device: str) -> np.ndarray:
    """Run the model on images grouped by size (a batch needs one size), outputs in input order."""
    import torch

    out = [None] * len(tensors)
    groups = {}
    for i, t in enumerate(tensors):
        groups.setdefault(tuple(t.shape), []).append(i)
    for idx in groups.values():
        batch = torch.stack([tensors[i] for i in idx]).to(device)
        feats = check_extractor_output(model(batch), len(idx))
        feats = feats.reshape(feats.shape[0], -1).double().cpu().numpy()
        for row, i in zip(feats, idx):
            out[i] = row
    return np.stack(out)


def clip_cosines(pairs: list, opts: dict) -> np.ndarray:
    """Cosine of image and text features for every (stored image, text) pair, in batches."""
    if opts["clip_model"] is None:
        raise ValueError(
            "`clip_model` is required for the CLIP score: the local folder of a transformers CLIP checkpoint or "
            "of ruCLIP (bpe.model, config.json, pytorch_model.bin; ai-forever/ruclip-vit-large-patch14-336 for "
            "fusion_brain_2022)"
        )
    key = ("clip", os.fspath(opts["clip_model"]))
    if key not in MODELS:
        MODELS[key] = load_clip(opts["clip_model"])
    scorer = MODELS[key].to(opts["device"])
    bs = opts["batch_size"]
    out = []
    batches = closing(decoded_batches(pairs, bs, lambda pair: unpack(pair[0], max_pixels=opts["max_pixels"])[1],
                                      opts.get("num_workers")))
    with batches as batches, _progress(len(pairs), opts, "fid_clip: CLIP score") as bar:
        for start, images in batches:
            chunk = pairs[start : start + bs]
            img = scorer.image_features(images, opts["clip_preprocess"])
            txt = scorer.text_features(
                [t for _, t in chunk], opts["clip_templates"], opts["clip_truncation"], opts["clip_lowercase"]
            )
            out.append((img * txt).sum(dim=-1).double().cpu().numpy())
            bar.update(len(chunk))
    return np.concatenate(out) if out else np.zeros(0)
