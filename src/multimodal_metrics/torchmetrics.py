"""Every metric as a ``torchmetrics.Metric`` (Lightning's ``self.log``, ``MetricCollection``, sync across ranks).

    import lightning as L
    from multimodal_metrics.torchmetrics import ANLS

    class Model(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.val_anls = ANLS(preset="stvqa", total=len(val_set))    # the preset and options of anls.score

        def validation_step(self, batch, batch_idx):
            answers = self.answer(batch)                                  # one string per question
            self.val_anls.update(answers, batch["answers"], index=batch["id"])
            self.log("val/anls", self.val_anls)                           # at the epoch's end: every rank's examples

        def on_validation_epoch_end(self):
            r = self.val_anls.result           # after compute(): the whole Result (per-example list, interval, signature)

One class per metric (:data:`CLASSES`: ``ANLS``, ``CodeBLEU``, ``DetF1``, ``FIDCLIP``, ``NED``, ``RuMETEOR``,
``TextQA``, ``VQAAccuracy``; ``metric_class("anls")``), each holding the metric's mergeable state
(:mod:`multimodal_metrics.state`) and taking what its ``score`` takes: the preset and the options (checked when
the object is made), ``return_per_example`` (default True), ``confidence``, ``n_resamples``, ``seed``.

* ``update(preds, target, index=None, **per_example)``: ``preds`` and ``target`` are the metric's
  ``predictions`` and ``references``; its other per-example inputs by name (vqa_acc's ``question_types``); ``index``
  the examples' global indexes (a list or an integer tensor).
* ``compute()``: the headline as a float64 tensor (the result's first key, or ``key=``), the very float of
  ``score`` on every example held; the whole :class:`~multimodal_metrics.results.Result` is ``.result``.
* ``forward(...)`` (calling the object): adds the batch, returns the batch's own value (``.batch_result``);
  with ``dist_sync_on_step=True``, the value of the batches of every rank.
* ``reset()``: an empty state (Lightning calls it after each epoch's logging).
* Across ranks (an initialised ``torch.distributed``: DDP, torchrun, Lightning): ``compute`` merges every rank's
  state with :func:`multimodal_metrics.distributed.all_gather` (the states' bytes, on the CPU with gloo or on the
  current device with nccl), not with torchmetrics' reductions, so every rank's value equals ``score`` on all
  examples bit for bit; the rank's own state comes back after ``compute`` (torchmetrics' ``unsync``).
  ``sync_timeout`` (seconds) bounds the wait for the other ranks (default 30 minutes).
* ``.to(device)``: the value is a tensor on the metric's device; the state itself stays on the CPU.
* ``state_dict()``: after ``persistent(True)`` it holds ``state`` (the state's bytes as a uint8 tensor) and
  ``numbered``; ``load_state_dict`` reads them back (a state of another metric, preset or options is refused).
* ``merge_state(other)`` adds another object's examples (the library's merge).

**The index, and DistributedSampler's padding.** ``DistributedSampler`` gives rank r the examples r, r + W,
r + 2W, ... (W ranks; ``shuffle=False``, as Lightning's validation) and pads the end with the first
examples again, so that every rank has as many: with 1,001 examples on 2 ranks example 0 is scored twice.
With ``index=`` (the examples' own ids, e.g. a dataset column) a repeat has the same index and the same row and
the merge drops it: the value is ``score`` on the 1,001 examples. Without ``index``, the k-th example a rank
scores since the last reset is numbered r + W k (the sampler's order), so the repeats come after the last
example: with ``total=len(dataset)`` they are read as the examples they repeat (number modulo ``total``) and
dropped; without ``total`` they count as more examples (1,002 here: not ``score``'s value), and a warning
says so. So under DDP pass ``index`` or ``total``; with a shuffling or another sampler, pass ``index``.
``total`` is also the state's ``total`` (the whole job's size: ``compute`` refuses a result that lacks examples).

``MetricCollection`` works as with torchmetrics' own metrics (each metric keeps its own state: no compute
groups form). Importing this module imports torch and torchmetrics (``pip install
'multimodal-metrics[torch]'``, or ``[lightning]`` with Lightning); ``import multimodal_metrics`` does not.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np

try:
    import torch
    import torchmetrics
except ImportError as _err:  # pragma: no cover - the extra is missing
    raise ImportError(
        f"multimodal_metrics.torchmetrics needs torch and torchmetrics ({_err}): "
        "pip install 'multimodal-metrics[torch]' (or '[lightning]')"
    ) from None

from . import METRICS
from .engines import input_names, metric_module, new_state
from .options import Resampling, check_bool
from .results import directions_of, key_direction
from .state import MetricState
from .state import from_bytes as state_from_bytes
from .state_index import check_total

__all__ = [
    "ANLS",
    "CLASSES",
    "FIDCLIP",
    "NED",
    "CodeBLEU",
    "DetF1",
    "MergeableMetric",
    "RuMETEOR",
    "TextQA",
    "VQAAccuracy",
    "metric_class",
]

# torchmetrics.Metric's own keywords (the rest are the metric's options); dist_sync_fn is refused: the states
# merge through multimodal_metrics.distributed.all_gather, never through a reduction of tensors
_TORCHMETRICS_KWARGS = (
    "compute_on_cpu",
    "dist_sync_on_step",
    "process_group",
    "distributed_available_fn",
    "sync_on_compute",
    "compute_with_cache",
)


def _distributed():
    import torch.distributed as dist

    return dist if dist.is_available() and dist.is_initialized() else None


def _check_total(total):
    """``total`` as a state checks it, and at least 1 (the padded repeats are numbered modulo ``total``)."""
    total = check_total(total)
    if total == 0:
        raise ValueError("`total` must be the number of examples of the whole job (at least 1), got 0")
    return total


class MergeableMetric(torchmetrics.Metric):
    """A metric of the collection as a ``torchmetrics.Metric`` (see the module docstring); the subclasses of
    :data:`CLASSES` set ``metric`` (the library metric's name)."""

    metric: str = ""
    full_state_update = False
    is_differentiable = False
    higher_is_better = None

    def __init__(
        self,
        preset: str | None = None,
        *,
        key: str | None = None,
        total: int | None = None,
        return_per_example: bool = True,
        confidence=None,
        n_resamples=None,
        seed=None,
        sync_timeout=None,
        **options,
    ):
        if "dist_sync_fn" in options:
            raise TypeError(
                "`dist_sync_fn` is not used: the states merge exactly through multimodal_metrics.distributed.all_gather"
            )
        torchmetrics_kwargs = {k: options.pop(k) for k in _TORCHMETRICS_KWARGS if k in options}
        super().__init__(**torchmetrics_kwargs)
        module = self._library()
        self.preset = module.OPTIONS.default_preset if preset is None else preset
        self.options = dict(options)
        self.total = _check_total(total)
        check_bool(return_per_example, "return_per_example")
        Resampling(confidence, n_resamples, seed)  # checked now, used by compute
        self._result_kwargs = {
            "return_per_example": return_per_example,
            "confidence": confidence,
            "n_resamples": n_resamples,
            "seed": seed,
        }
        if key is not None:
            if not isinstance(key, str):
                raise TypeError(f"`key` must be a key of the metric's result (str), got {type(key).__name__}")
            try:
                direction = key_direction(directions_of(self.metric), key)
            except KeyError:
                raise ValueError(f"`key`: {self.metric} has no result key {key!r}") from None
            object.__setattr__(self, "higher_is_better", direction)  # torchmetrics keeps it constant
        self.key = key
        self.sync_timeout = sync_timeout
        self._mm_state = self._new_state()  # the preset and options checked here: the metric's own errors
        self._numbered = 0  # examples this rank numbered itself (no `index`) since the last reset
        self._warned = False
        self._persistent["state"] = False
        self.result = None  # the Result of the last compute()
        self.batch_result = None  # the Result of the last forward()'s batch

    # -- the library state ------------------------------------------------------------------------
    def _library(self):
        return metric_module(self.metric, "torchmetrics")

    def _new_state(self) -> MetricState:
        return new_state(self._library(), self.preset, self.options, self.total)

    @property
    def state(self) -> MetricState:
        """The library state this rank holds (during ``compute``: the merge of every rank's)."""
        return self._mm_state

    @property
    def metric_state(self) -> dict:
        return {"state": self._mm_state}

    def _rank_world(self) -> tuple[int, int]:
        dist = _distributed()
        if dist is None:
            return 0, 1
        group = self.process_group if self.process_group is not None else dist.group.WORLD
        return dist.get_rank(group), dist.get_world_size(group)

    def _index(self, n: int, index):
        """(the global indexes of a batch of ``n`` examples, how many this rank numbered itself)."""
        if index is not None:
            return index, 0
        rank, world = self._rank_world()
        if world > 1 and self.total is None and not self._warned:
            self._warned = True
            warnings.warn(
                f"{type(self).__name__}: no `index` and no `total` on {world} ranks: the examples that "
                "DistributedSampler repeats (so that every rank has as many) count twice; pass `index=` (the examples' "
                "ids) or `total=len(dataset)`",
                UserWarning,
                stacklevel=3,
            )
        positions = np.arange(self._numbered, self._numbered + n, dtype=np.int64)
        numbers_ = rank + world * positions
        if self.total is not None:
            numbers_ %= self.total  # a padded repeat: the example it repeats
        return numbers_, n

    def _score(self, state: MetricState, preds, target, index, per_example: dict) -> None:
        unknown = sorted(set(per_example) - set(self._per_example))
        if unknown:
            raise TypeError(
                f"{type(self).__name__}.update: unexpected argument(s) {unknown}; the per-example inputs of "
                f"{self.metric} besides `preds` and `target` are {self._per_example}"
            )
        sized = next((v for v in (preds, target, *per_example.values()) if v is not None), None)
        n = len(sized) if sized is not None else 0
        numbers_, counted = self._index(n, index)
        state.update(preds, target, index=numbers_, **per_example)
        self._numbered += counted

    def _headline(self, result) -> torch.Tensor:
        key = self.key if self.key is not None else next(iter(result))
        if key not in result:
            raise ValueError(f"`key`: this {self.metric} result has no {key!r} (its keys: {list(result)})")
        return torch.tensor(result[key], dtype=torch.float64, device=self.device)

    # -- torchmetrics ---------------------------------------------------------------------------
    _per_example: tuple = ()

    def update(self, preds, target, index=None, **per_example) -> None:
        """Add a batch: ``preds`` / ``target`` (the metric's ``predictions`` / ``references``), ``index`` (the
        examples' global indexes; see the module docstring without it), the metric's other per-example inputs
        by name. The checks and errors are the metric's own; a refused batch leaves the state as it was."""
        self._score(self._mm_state, preds, target, index, per_example)

    def forward(self, preds, target, index=None, **per_example):
        """Add the batch (as ``update``) and return the batch's own value (its ``Result`` is ``.batch_result``)."""
        if self._is_synced:
            raise torchmetrics.utilities.exceptions.TorchMetricsUserError(
                "The Metric shouldn't be synced when performing ``forward``. HINT: Did you forget to call ``unsync`` ?."
            )
        batch = new_state(self._library(), self.preset, self.options)  # a batch, not the job: no total
        self._score(batch, preds, target, index, per_example)
        self._computed = None
        self._update_count += 1
        self._mm_state.merge(batch)
        if self.dist_sync_on_step and _distributed() is not None:
            from .distributed import all_gather

            batch = all_gather(batch, group=self.process_group, timeout=self.sync_timeout)
        self.batch_result = batch.result(**self._result_kwargs)
        self._forward_cache = self._headline(self.batch_result)
        return self._forward_cache

    def compute(self) -> torch.Tensor:
        """The headline of the result of every example held (every rank's, merged): a float64 tensor; the whole
        Result is ``.result``."""
        self.result = self._mm_state.result(**self._result_kwargs)
        return self._headline(self.result)

    def reset(self) -> None:
        super().reset()
        self._mm_state = self._new_state()
        self._numbered = 0

    def _sync_dist(self, dist_sync_fn=None, process_group=None) -> None:
        from .distributed import all_gather

        group = process_group if process_group is not None else self.process_group
        self._mm_state = all_gather(self._mm_state, group=group, timeout=self.sync_timeout)

    def _copy_state_dict(self) -> dict:
        # what `sync` keeps to put back after `compute` (`unsync`): the rank's own state (the merge is a new one)
        return {"_mm_state": self._mm_state, "_numbered": self._numbered}

    def merge_state(self, incoming_state) -> None:
        """Add the examples of another object of this class (or a ``{"state": uint8 tensor}`` of
        ``state_dict``): the library's merge (a repeated index with the same row is dropped)."""
        if isinstance(incoming_state, MergeableMetric):
            if type(incoming_state) is not type(self):
                raise ValueError(
                    f"Expected incoming state to be an instance of {type(self).__name__} but got {type(incoming_state)}"
                )
            other = incoming_state._mm_state
        elif isinstance(incoming_state, dict) and "state" in incoming_state:
            other = self._from_tensor(incoming_state["state"])
        else:
            raise ValueError(
                f"Expected incoming state to be a {type(self).__name__} or a dict with 'state', got {type(incoming_state)}"
            )
        self._mm_state.merge(other)
        self._computed = None
        self._update_count = max(self._update_count, int(len(other) > 0))  # compute() then warns of nothing

    # -- state_dict --------------------------------------------------------------------------------
    def state_dict(self, destination=None, prefix: str = "", keep_vars: bool = False):
        destination = super().state_dict(destination=destination, prefix=prefix, keep_vars=keep_vars)
        if self._persistent.get("state"):
            blob = bytearray(self._mm_state.to_bytes())
            destination[prefix + "state"] = torch.frombuffer(blob, dtype=torch.uint8)
            destination[prefix + "numbered"] = torch.tensor(self._numbered, dtype=torch.int64)
        return destination

    def _from_tensor(self, tensor) -> MetricState:
        if not isinstance(tensor, torch.Tensor) or tensor.dtype != torch.uint8 or tensor.dim() != 1:
            raise TypeError("`state` must be a 1-d uint8 tensor of a state's bytes (from state_dict)")
        loaded = state_from_bytes(tensor.detach().cpu().numpy().tobytes())
        return self._new_state().merge(loaded)  # another metric, preset or options: the merge's ValueError

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ) -> None:
        if prefix + "state" in state_dict:
            self._mm_state = self._from_tensor(state_dict.pop(prefix + "state"))
            self._computed = None
            self._update_count = int(len(self._mm_state) > 0)
        if prefix + "numbered" in state_dict:
            self._numbered = int(state_dict.pop(prefix + "numbered"))
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(preset={self.preset!r}, examples={len(self._mm_state)})"


_CLASS_NAMES = {
    "anls": "ANLS",
    "codebleu": "CodeBLEU",
    "det_f1": "DetF1",
    "fid_clip": "FIDCLIP",
    "ned": "NED",
    "ru_meteor": "RuMETEOR",
    "text_qa": "TextQA",
    "vqa_acc": "VQAAccuracy",
}


def _make_class(metric: str) -> type[MergeableMetric]:
    """The class of ``metric``: its ``update`` signature names the metric's per-example inputs (what
    ``MetricCollection`` passes to each metric), ``higher_is_better`` the direction of its default headline."""
    module = metric_module(metric, "torchmetrics")
    others = input_names(module)[2:]
    directions = directions_of(metric)
    primary = next(iter(directions))

    def update(self, preds, target, index=None, **per_example):
        return MergeableMetric.update(self, preds, target, index, **per_example)

    params = [
        inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
        inspect.Parameter("preds", inspect.Parameter.POSITIONAL_OR_KEYWORD),
        inspect.Parameter("target", inspect.Parameter.POSITIONAL_OR_KEYWORD),
        inspect.Parameter("index", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None),
        *(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None) for name in others),
    ]
    update.__signature__ = inspect.Signature(params, return_annotation=None)
    update.__doc__ = MergeableMetric.update.__doc__
    name = _CLASS_NAMES[metric]
    namespace = {
        "__doc__": f"``multimodal_metrics.{metric}`` as a ``torchmetrics.Metric`` (see "
        f"``multimodal_metrics.torchmetrics``): ``{name}(preset, **options)`` as ``{metric}.score`` takes them.",
        "__module__": __name__,
        "metric": metric,
        "higher_is_better": directions[primary],
        "_per_example": tuple(others),
        "update": update,
    }
    return type(name, (MergeableMetric,), namespace)


CLASSES: dict[str, type[MergeableMetric]] = {m: _make_class(m) for m in METRICS}
ANLS = CLASSES["anls"]
CodeBLEU = CLASSES["codebleu"]
DetF1 = CLASSES["det_f1"]
FIDCLIP = CLASSES["fid_clip"]
NED = CLASSES["ned"]
RuMETEOR = CLASSES["ru_meteor"]
TextQA = CLASSES["text_qa"]
VQAAccuracy = CLASSES["vqa_acc"]


def metric_class(metric: str) -> type[MergeableMetric]:
    """The ``torchmetrics.Metric`` class of a metric of the collection, by name (``metric_class("anls")``)."""
    if metric not in CLASSES:
        raise ValueError(f"`metric` must be one of {list(CLASSES)}, got {metric!r}")
    return CLASSES[metric]
