"""Feature extraction of fid_clip: FID statistics of one side (feature vectors as given, or images
through the FID Inception / a custom extractor, in batches) and CLIP cosines of (image, text) pairs.

Feature vectors need numpy only; torch (and tqdm) are imported only when images go through a model.
Loaded networks are kept in ``MODELS`` between calls (Trainer evaluations, the demo).

Images are decoded while the network runs on the batch before, by ``num_workers`` workers:
* FID (``side_statistics``), more than one batch, where processes can be forked (Linux): a torch
  DataLoader with ``num_workers`` worker processes (``process_batches``), each decoding, resizing and
  converting whole batches to one stacked tensor in shared memory, as pytorch-fid and torchmetrics
  do; the tensor conversion and part of the resize hold the GIL, so threads alone stop scaling at
  about one core (measured: 262-371 images/s with 8 threads on an H200 where the peers' processes
  reach about 1,000);
* otherwise (one batch, the CLIP score, platforms without ``fork``): a pool of ``num_workers``
  threads (``decoded_batches``) that decodes up to two batches ahead.
``num_workers`` 0 decodes in the calling thread. The batches, their order, their collation and the
model calls are the same for every ``num_workers`` and either kind of worker: the features are
identical (tested). An error names the first failing image in input order whichever worker met it.
"""

import os
import sys
from collections import deque
from contextlib import closing

import numpy as np

from .clip import load_clip
from .images import unpack, unpack_rgb
from .inception import check_extractor_output, load_fid_inception, preprocess
from .moments import FrechetStats

MODELS = {}  # loaded networks, kept between calls: ("inception", weights) / ("clip", folder) -> model
BATCH_BYTES = 256 << 20  # the most one batch of pre_resize'd images (float32 RGB) may hold: 1 at 4096 x 4096


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


MAX_DEFAULT_WORKERS = 8  # pytorch-fid's default too: min(CPUs, 8)
# Below this many CPUs decoding workers cost more than they give (measured on 2 CPUs: see the card's
# Speed section): the workers, the scoring process and the network share the same cores.
MIN_CPUS_FOR_WORKERS = 4


def usable_cpus() -> int:
    """The CPUs this process may run on (the affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def default_workers() -> int:
    """``num_workers`` when it is None: 0 below MIN_CPUS_FOR_WORKERS CPUs, else the CPUs, at most 8."""
    cpus = usable_cpus()
    return 0 if cpus < MIN_CPUS_FOR_WORKERS else min(cpus, MAX_DEFAULT_WORKERS)


def can_fork() -> bool:
    """Worker processes are forked (they inherit the items and the conversion, nothing is pickled but
    the results): Linux only; macOS's fork is unsafe with system frameworks, Windows has none."""
    import multiprocessing

    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def stack_if_same_size(tensors: list):
    """One (B, C, H, W) tensor when every image has the same size (a batch for the network as it is),
    else the list (``_forward_grouped`` groups it by size)."""
    import torch

    if tensors and all(t.shape == tensors[0].shape for t in tensors):
        return torch.stack(tensors)
    return tensors


class _BatchDataset:
    """Batch ``k`` of ``items`` converted and collated (a torch map-style dataset for the DataLoader's
    workers). A conversion error is returned, not raised, so that the main process raises the first
    failing item's own exception, with its own message, in input order."""

    def __init__(self, items: list, batch_size: int, convert, collate):
        self.items, self.batch_size, self.convert, self.collate = items, batch_size, convert, collate

    def __len__(self) -> int:
        return -(-len(self.items) // self.batch_size)

    def __getitem__(self, k: int):
        start = k * self.batch_size
        try:
            converted = [self.convert(item) for item in self.items[start : start + self.batch_size]]
        except Exception as err:  # noqa: BLE001 - re-raised in the main process, in input order
            return start, err
        return start, self.collate(converted)


def process_batches(items: list, batch_size: int, convert, collate, workers: int, pin_memory: bool = False):
    """``(start, collate([convert(item) for item in batch]))`` for each batch, in order, converted by a
    torch DataLoader with ``workers`` forked worker processes (two batches ahead per worker); results
    travel back in shared memory. The first failing item's exception is raised here."""
    from torch.utils.data import DataLoader

    dataset = _BatchDataset(items, batch_size, convert, collate)
    loader = DataLoader(
        dataset,
        batch_size=None,
        shuffle=False,
        num_workers=min(workers, len(dataset)),
        multiprocessing_context="fork",
        pin_memory=pin_memory,
        prefetch_factor=2,
    )
    for start, batch in loader:
        if isinstance(batch, BaseException):
            raise batch
        yield start, batch


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
                ahead.append(
                    (start, [pool.submit(convert, item) for item in items[start : start + batch_size]])
                )

        submit()
        submit()
        while ahead:
            start, futures = ahead.popleft()
            submit()
            yield start, [f.result() for f in futures]
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def feature_batches(items: list, arg: str, opts: dict):
    """``(kind, batches)`` of one side: ``kind`` "features" (vectors as given, numpy only) or "images"
    (through the extractor, torch); ``batches`` yields ``(start, (b, d) float64 features)`` in input order.
    ``items`` are stored examples (``images.pack``); errors name `arg` and the example index."""
    kinds = {item["kind"] for item in items}
    if kinds == {"features"}:  # numpy only
        dims = [len(item["data"]) // 8 for item in items]
        bad = next((i for i, d in enumerate(dims) if d != dims[0]), None)
        if bad is not None:
            raise ValueError(
                f"`{arg}[{bad}]` has a {dims[bad]}-d feature vector but `{arg}[0]` has {dims[0]}-d"
            )

        def chunks():
            for start in range(0, len(items), 4096):
                chunk = items[start : start + 4096]
                yield (
                    start,
                    np.frombuffer(b"".join(c["data"] for c in chunk), dtype=np.float64).reshape(
                        len(chunk), -1
                    ),
                )

        return "features", chunks()
    if "features" in kinds:
        raise ValueError(f"`{arg}` mixes images and feature vectors: give one kind per side")
    return "images", _image_batches(items, arg, opts)


def _image_batches(items: list, arg: str, opts: dict):
    """``(start, features)`` of the images of one side, through the extractor in batches (see the module
    docstring: decoding workers)."""
    import torch

    model = _extractor(opts)
    pre = opts["pre_resize"] or None
    indexed = list(enumerate(items))

    def tensor(pair):
        index, item = pair
        return preprocess(unpack(item, f"{arg}[{index}]", opts["max_pixels"])[1], pre)

    batch_size = opts["batch_size"]
    if pre:  # a large pre_resize: fewer images per batch, so that a batch tensor stays under BATCH_BYTES
        batch_size = max(1, min(batch_size, BATCH_BYTES // (3 * 4 * pre * pre)))
    workers = default_workers() if opts.get("num_workers") is None else opts["num_workers"]
    if workers > 0 and len(items) > batch_size and can_fork():
        batches = process_batches(
            indexed,
            batch_size,
            tensor,
            stack_if_same_size,
            workers,
            pin_memory=str(opts["device"]).startswith("cuda"),
        )
    else:
        batches = (
            (start, stack_if_same_size(tensors))
            for start, tensors in decoded_batches(indexed, batch_size, tensor, workers)
        )
    batches = closing(batches)
    with (
        batches as batches,
        _progress(len(items), opts, f"fid_clip: {arg} features") as bar,
        torch.inference_mode(),
    ):
        for start, tensors in batches:
            feats = _forward_grouped(model, tensors, opts["device"])
            if feats.ndim != 2:
                raise ValueError(
                    f"`feature_extractor` must return (B, d) features, got shape {tuple(feats.shape)}"
                )
            yield start, feats
            bar.update(len(tensors))


def side_features(items: list, arg: str, opts: dict) -> tuple[str, np.ndarray]:
    """``(kind, (n, d) float64 features)`` of one side (``feature_batches``, every batch in one array)."""
    kind, batches = feature_batches(items, arg, opts)
    with closing(batches) as batches:
        parts = [feats for _, feats in batches]
    return kind, np.concatenate(parts) if len(parts) > 1 else np.array(parts[0], dtype=np.float64)


def side_statistics(items: list, arg: str, opts: dict, keep: bool = False):
    """(FrechetStats, kind, features) of one side: feature vectors as given, or images through the
    extractor in batches. ``items`` are stored examples (``images.pack``); ``features`` is the (n, d)
    float64 array of every vector when ``keep`` (for the bootstrap), else None. The items come from
    evaluate (all batches, all processes; the cache file, or the in-memory table of a direct compute)
    or from the library's ``score``, so the vectors are read or computed here, once; the statistics are
    running sums (memory O(d^2), the vectors of one block of the index at a time)."""
    kind, batches = feature_batches(items, arg, opts)
    stats = kept = None
    with closing(batches) as batches:  # an error here closes the workers at once
        for start, feats in batches:
            stats = stats or FrechetStats(feats.shape[1])
            stats.update(feats, arg, start, copy=False)  # a new array per batch
            if keep:
                kept = np.empty((len(items), feats.shape[1])) if kept is None else kept
                kept[start : start + len(feats)] = feats
    return stats, kind, kept


def _forward_grouped(model, tensors, device: str) -> np.ndarray:
    """Run the model on a stacked batch, or on a list of images grouped by size (a batch needs one
    size), outputs in input order."""
    import torch

    if isinstance(tensors, torch.Tensor):
        feats = check_extractor_output(model(tensors.to(device, non_blocking=True)), len(tensors))
        return feats.reshape(feats.shape[0], -1).double().cpu().numpy()
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
    if opts["clip_preprocess"] == "processor":  # the processor takes the RGB pixels as an array

        def decode(pair):
            return unpack_rgb(pair[0], max_pixels=opts["max_pixels"])

    else:

        def decode(pair):
            return unpack(pair[0], max_pixels=opts["max_pixels"])[1]

    # pixels kept in memory need no decoding: no worker threads for them
    workers = 0 if all(item["kind"] == "pixels" for item, _ in pairs) else opts.get("num_workers")
    batches = closing(decoded_batches(pairs, bs, decode, workers))
    texts = closing(
        scorer.text_feature_batches(
            [t for _, t in pairs], opts["clip_templates"], opts["clip_truncation"], opts["clip_lowercase"], bs
        )
    )
    with batches as batches, texts as texts, _progress(len(pairs), opts, "fid_clip: CLIP score") as bar:
        for (_, images), txt in zip(batches, texts):
            img = scorer.image_features(images, opts["clip_preprocess"])
            out.append((img * txt).sum(dim=-1).double().cpu().numpy())
            bar.update(len(images))
    return np.concatenate(out) if out else np.zeros(0)
