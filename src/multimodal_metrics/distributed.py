"""Merge scoring states across the ranks of torch.distributed (torchrun, accelerate, Lightning, Trainer).

Every rank scores its own examples in a mergeable state (:mod:`multimodal_metrics.state`), then every rank
calls :func:`all_gather` and gets the merged state of all ranks: no rank-0 gating, and ``result`` equals
``score`` on all examples bit for bit::

    import torch.distributed as dist
    from multimodal_metrics import anls
    from multimodal_metrics.distributed import all_gather, guard

    sampler = DistributedSampler(dataset, shuffle=False)    # pads the last batch with repeated examples
    st = anls.state(preset="stvqa")
    with guard():                                           # an exception in here reaches every rank
        for ids in batches(list(sampler)):                  # the examples' global indexes
            st.update([answer(i) for i in ids], [dataset[i]["answers"] for i in ids], index=ids)
    st = all_gather(st)                                     # every rank calls it, every rank gets all
    r = st.result(return_per_example=True, confidence=0.95, seed=1)

The states travel as their bytes (``to_bytes``, never pickle) in two ``torch.distributed.all_gather`` calls
of uint8 tensors (their sizes, then the bytes): on the CPU with gloo (or MPI), on the current CUDA device
with nccl. A rank with no data passes its empty state; the examples that ``DistributedSampler`` repeats to
pad the last batch are kept once by the merge (same index, same inputs: the digest of each example).

Before any collective, the ranks meet through the process group's key-value store (the one
``init_process_group`` made, as ``monitored_barrier`` and the store-based barrier of torch do): each rank
posts "ready" or its error and waits for the others, at most ``timeout``. So no rank is left waiting
in a collective that a failed rank never joins:

* a rank that failed (``all_gather(state, error=exc)``, any exception inside ``with guard():``,
  ``sys.exit()`` and ``KeyboardInterrupt`` included, or a state that cannot be sent) posts its error; every
  rank's ``all_gather`` raises :class:`RankFailed` naming that rank and its error, and the failed rank waits
  (at most ``timeout``) until every rank has read it, so that a launcher that stops all workers when one
  exits (torchrun) does not stop them before they know why. It does not wait for a rank that has left its
  ``guard()`` block and not entered another (past a ``_LEFT_GRACE`` of 2 s, time enough to reach an
  ``all_gather`` just after the block): after the last ``all_gather`` (an error while writing a report)
  the failed rank fails at once instead of waiting the timeout for ranks that are gone;
* a rank that does not call ``all_gather`` within ``timeout`` of the others: every rank raises
  :class:`GatherTimeout` naming the rank(s) that did not answer (the first rank to wait too long decides,
  atomically in the store, so all ranks raise the same error, a late rank included);
* a rank that dies during the exchange of the states (killed by the out-of-memory killer or a scheduler):
  the backend's error on the other ranks ("Connection reset by peer") becomes :class:`RankFailed` naming
  the rank(s) that did not report back through the store within a few seconds.

Without an initialised process group (one process), ``all_gather`` returns a copy of the state.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from datetime import timedelta

from .state import MetricState
from .state import from_bytes as _state_from_bytes

__all__ = ["DEFAULT_TIMEOUT", "GatherTimeout", "RankFailed", "all_gather", "guard"]

DEFAULT_TIMEOUT = timedelta(minutes=30)  # torch.distributed's default process-group timeout
_PREFIX = "multimodal_metrics/all_gather"
_LEFT_GRACE = 2.0  # seconds a failed rank still waits for a rank that left its guard() (see the docstring)
_EXCHANGE_GRACE = 5.0  # seconds the ranks report back after a failed exchange (at most the timeout)
_POLL = 0.05  # seconds between two looks at the store while a failed rank waits for its readers
_MAX_MESSAGE = 4000  # characters of a failed rank's error kept in the store
_calls: dict[str, int] = {}  # per process group: how many gathers this rank has entered
_guards: dict[str, int] = {}  # per process group: how many guard() blocks this rank is inside
_calls_lock = threading.Lock()


class RankFailed(RuntimeError):
    """A rank failed before the states could be gathered: raised on every rank by :func:`all_gather`.
    ``rank`` is the failed rank (in the group), ``error`` its exception's type and message."""

    def __init__(self, message: str, rank: int | None = None, error: str = ""):
        super().__init__(message)
        self.rank, self.error = rank, error


class GatherTimeout(RankFailed, TimeoutError):
    """Some rank(s) did not reach :func:`all_gather` within the timeout: raised on every rank that did;
    ``ranks`` lists those that did not answer."""

    def __init__(self, message: str, ranks: list[int]):
        RankFailed.__init__(self, message, ranks[0] if ranks else None, "timeout")
        self.ranks = ranks


def _mark(exc: BaseException) -> BaseException:
    """Flag an exception that every rank already knows of (so ``guard`` does not post it again)."""
    try:
        exc._mm_every_rank_knows = True
    except AttributeError:  # pragma: no cover - an exception without __dict__
        pass
    return exc


def _seconds(timeout) -> float:
    if timeout is None:
        return DEFAULT_TIMEOUT.total_seconds()
    if isinstance(timeout, timedelta):
        timeout = timeout.total_seconds()
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout < math.inf:
        raise ValueError(
            f"`timeout` must be a positive finite number of seconds or a timedelta, got {timeout!r}"
        )
    return float(timeout)


def _describe(exc: BaseException) -> str:
    """``Type: message`` of an exception (``SystemExit: 3``, ``KeyboardInterrupt``), cut for the store."""
    text = str(exc)
    return (f"{type(exc).__name__}: {text}" if text else type(exc).__name__)[:_MAX_MESSAGE]


# ----------------------------------------------------------------------------------------------
# The process group
# ----------------------------------------------------------------------------------------------
def _dist():
    import torch.distributed as dist

    return dist if dist.is_available() and dist.is_initialized() else None


class _Group:
    """One process group as this module meets in it: its rank, size, key-value store and name."""

    def __init__(self, dist, group):
        from torch.distributed import distributed_c10d as c10d

        self.dist = dist
        self.group = group if group is not None else dist.group.WORLD
        self.rank = dist.get_rank(self.group)
        self.world = dist.get_world_size(self.group)
        if self.rank < 0:
            raise ValueError("all_gather: this process is not a member of `group`")
        # the group's own key-value store (the one init_process_group / new_group set up)
        if group is None or group is dist.group.WORLD:
            self.store = c10d._get_default_store()
        else:
            self.store = c10d._get_process_group_store(self.group)
        self.name = getattr(self.group, "group_name", None) or ",".join(
            map(str, dist.get_process_group_ranks(self.group))
        )
        self.group_prefix = f"{_PREFIX}/{self.name}/"

    def post_guard(self, status: str) -> None:
        """This rank is ``"in"`` a guard() block or has ``"left"`` it (read by a failed rank's wait)."""
        with contextlib.suppress(RuntimeError):
            self.store.set(f"{self.group_prefix}guard/{self.rank}", status)


class _Meeting(_Group):
    """One gather of one process group: its rank, size, store and key prefix (the call's sequence number)."""

    def __init__(self, dist, group, timeout):
        self.timeout = _seconds(timeout)
        super().__init__(dist, group)
        with _calls_lock:
            seq = _calls.get(self.name, 0)
            _calls[self.name] = seq + 1
        self.prefix = f"{self.group_prefix}{seq}/"
        self.where = f"rank {self.rank} of {self.world}"

    def key(self, name: str) -> str:
        return self.prefix + name

    def _wait(self, key: str, seconds: float) -> bool:
        try:
            self.store.wait([self.key(key)], timedelta(seconds=seconds))
            return True
        except RuntimeError:  # DistStoreError (TCPStore, HashStore) or RuntimeError (FileStore): timed out
            return False

    def _decide(self, value: str) -> str:
        """The decision of this gather: ``value`` if no rank decided before, else the earlier decision."""
        try:
            return self.store.compare_set(self.key("decision"), "", value).decode("utf-8")
        except RuntimeError as err:
            raise RankFailed(
                f"all_gather ({self.where}): the process group's store stopped answering ({err}); the process "
                f"that holds it (rank 0 without a launcher's own store) may have exited"
            ) from None

    def _arrive(self, status: str) -> None:
        self.store.set(self.key(f"rank/{self.rank}"), status)
        if self.store.add(self.key("arrived"), 1) == self.world:
            self.store.set(self.key("all"), "1")
            self._decide("ok")

    def _missing(self) -> list[int]:
        return [r for r in range(self.world) if not self.store.check([self.key(f"rank/{r}")])]

    def fail(self, exc: BaseException) -> None:
        """Post this rank's failure, wait (at most the timeout) until every rank arrived to read it, except
        a rank that has left its guard() block for more than ``_LEFT_GRACE`` seconds."""
        self._decide(f"error {self.rank}\n{_describe(exc)}")
        self._arrive("error")
        deadline = time.monotonic() + self.timeout
        left_at: dict[int, float] = {}
        while not self._wait("all", min(_POLL, max(deadline - time.monotonic(), 0.001))):
            now = time.monotonic()
            if now >= deadline:
                return
            try:
                missing = self._missing()
                status = {r: self._guard_status(r) for r in missing}
            except RuntimeError:  # the store stopped answering: nobody can read the error any more
                return
            waiting = False
            for r in missing:
                if status[r] == "left":
                    waiting |= now - left_at.setdefault(r, now) < _LEFT_GRACE
                else:  # inside a guard(), or a rank that does not use guard(): on its way to all_gather
                    left_at.pop(r, None)
                    waiting = True
            if not waiting:
                return

    def _guard_status(self, rank: int) -> str | None:
        key = f"{self.group_prefix}guard/{rank}"
        return self.store.get(key).decode("utf-8") if self.store.check([key]) else None

    def agree(self) -> None:
        """Post "ready" and wait for the decision: return when every rank is ready, raise otherwise."""
        self._arrive("ready")
        if not self._wait("decision", self.timeout):
            try:
                missing = self._missing()
            except RuntimeError as err:
                raise RankFailed(
                    f"all_gather ({self.where}): the process group's store stopped answering ({err})"
                ) from None
            # every rank posted (the last one is deciding): all ready, since a failed rank decides first
            self._decide(f"timeout {','.join(map(str, missing))}" if missing else "ok")
        decision = self.store.get(self.key("decision")).decode("utf-8")
        if decision == "ok":
            return
        kind, _, rest = decision.partition(" ")
        if kind == "timeout":
            ranks = [int(r) for r in rest.split(",") if r]
            raise GatherTimeout(
                f"all_gather ({self.where}): rank(s) {ranks} of the group did not call all_gather within "
                f"{self.timeout:g} s of the others (a rank that failed without telling: an exception outside "
                f"`guard()`, or a rank still scoring: give a larger `timeout`)",
                ranks,
            )
        rank, _, message = rest.partition("\n")
        raise RankFailed(f"all_gather ({self.where}): rank {rank} failed: {message}", int(rank), message)

    def exchange_failed(self, err: Exception) -> RankFailed:
        """The error of every rank whose exchange of the states failed (a rank died in the middle: the
        backend says "Connection reset by peer" or times out): the ranks that did not report back through
        the store within ``_EXCHANGE_GRACE`` seconds (at most the timeout) are named, the same on every
        rank that reports (the first to decide decides)."""
        backend = " ".join(str(err).split())[:300]
        try:
            self.store.set(self.key(f"exchange/{self.rank}"), "failed")
            grace = min(self.timeout, _EXCHANGE_GRACE)
            reported = [self.key(f"exchange/{r}") for r in range(self.world)]
            if not self._wait_keys(reported, grace):
                silent = [r for r in range(self.world) if not self.store.check([reported[r]])]
            else:
                silent = []
            value = self.store.compare_set(self.key("exchange"), "", ",".join(map(str, silent)) or "-")
            decided = value.decode("utf-8")
        except RuntimeError as store_err:
            return RankFailed(
                f"all_gather ({self.where}): the exchange of the states failed ({backend}) and the process "
                f"group's store stopped answering ({store_err}): the process that holds it (rank 0 without "
                "a launcher's own store) may have died"
            )
        ranks = [int(r) for r in decided.split(",") if r not in ("", "-")]
        if not ranks:
            return RankFailed(f"all_gather ({self.where}): the exchange of the states failed: {backend}")
        return RankFailed(
            f"all_gather ({self.where}): rank(s) {ranks} stopped during the exchange of the states (killed, "
            f"out of memory, or exited; they did not report back within {grace:g} s); the backend said: "
            f"{backend}",
            ranks[0],
            "stopped during the exchange",
        )

    def _wait_keys(self, keys: list[str], seconds: float) -> bool:
        try:
            self.store.wait(keys, timedelta(seconds=seconds))
            return True
        except RuntimeError:
            return False

    def exchanged(self) -> None:
        with contextlib.suppress(RuntimeError):
            self.store.set(self.key(f"exchange/{self.rank}"), "ok")

    def done(self) -> None:
        """After the collectives (every rank has read the decision): drop this gather's keys."""
        with contextlib.suppress(RuntimeError, AttributeError):
            self.store.delete_key(self.key(f"rank/{self.rank}"))
            if self.rank == 0:
                for name in ("arrived", "all", "decision"):
                    self.store.delete_key(self.key(name))


def _device(dist, group):
    import torch

    backend = str(dist.get_backend(group)).lower()
    if "nccl" in backend and "gloo" not in backend:
        return torch.device("cuda", torch.cuda.current_device())
    return torch.device("cpu")


def _exchange(dist, group, blob: bytes) -> list[bytes]:
    """Every rank's ``blob``, in rank order: the sizes, then the bytes padded to the largest."""
    import torch

    device = _device(dist, group)
    world = dist.get_world_size(group)
    size = torch.tensor([len(blob)], dtype=torch.int64, device=device)
    sizes = [torch.zeros(1, dtype=torch.int64, device=device) for _ in range(world)]
    dist.all_gather(sizes, size, group=group)
    sizes = [int(s.item()) for s in sizes]
    longest = max(sizes)
    mine = torch.zeros(longest, dtype=torch.uint8)
    mine[: len(blob)] = torch.frombuffer(bytearray(blob), dtype=torch.uint8)
    mine = mine.to(device)
    gathered = [torch.empty(longest, dtype=torch.uint8, device=device) for _ in range(world)]
    dist.all_gather(gathered, mine, group=group)
    return [g[:n].cpu().numpy().tobytes() for g, n in zip(gathered, sizes, strict=True)]


def _merged(blobs: list[bytes]) -> MetricState:
    states = [_state_from_bytes(b) for b in blobs]
    return states[0].merge(*states[1:])


# ----------------------------------------------------------------------------------------------
# The public calls
# ----------------------------------------------------------------------------------------------
def all_gather(state: MetricState | None, group=None, timeout=None, *, error: BaseException | None = None):
    """The merge of every rank's ``state`` (a new state; every rank gets it). Every rank of ``group``
    (default: the whole world) must call it, once per gather, in the same order.

    ``timeout`` (seconds or a timedelta, default 30 minutes) bounds the wait for the other ranks.
    ``error``: this rank failed; it is told to every rank (their ``all_gather`` raises :class:`RankFailed`
    naming this rank), then raised here once every rank has read it (or the timeout passed). A rank that
    failed may pass ``state=None``.

    Without an initialised process group: ``error`` is raised, or a copy of ``state`` returned. A refused
    merge (states of different metrics or options, an index scored differently on two ranks) raises the
    same ValueError on every rank.
    """
    dist = _dist()
    if dist is None:
        if error is not None:
            raise error
        _check_state(state)
        return type(state).from_bytes(state.to_bytes())
    meeting = _Meeting(dist, group, timeout)
    try:
        if error is not None:
            raise error
        _check_state(state)
        blob = state.to_bytes()
    except Exception as exc:
        meeting.fail(exc)
        _mark(exc)
        raise
    try:
        meeting.agree()
        try:
            blobs = _exchange(dist, meeting.group, blob)
        except RuntimeError as err:  # the backend's error (DistBackendError): a rank died in the middle
            raise meeting.exchange_failed(err) from err
        meeting.exchanged()
        meeting.done()
        return _merged(blobs)
    except Exception as exc:  # the same on every rank: a decision of the store, or a refused merge
        _mark(exc)
        raise


def _check_state(state) -> None:
    if not isinstance(state, MetricState):
        raise TypeError(
            f"all_gather: `state` must be a metric's state (e.g. anls.state()), got {type(state).__name__}; "
            f"a rank with no data passes its empty state"
        )


@contextlib.contextmanager
def guard(group=None, timeout=None):
    """An exception raised inside the block (any: ``sys.exit()`` and ``KeyboardInterrupt`` too) is told to
    every rank of ``group`` (their next :func:`all_gather` raises :class:`RankFailed` naming this rank and
    the error), then propagates here once they have read it (at most ``timeout``; a rank that has left its
    own ``guard()`` block is not waited for, see the module docstring). Errors that :func:`all_gather`
    itself raised are known to every rank already and pass through unchanged. Outside a process group it
    does nothing."""
    _seconds(timeout)
    place = _enter_guard(group)
    try:
        yield
    except GeneratorExit:  # a generator holding the block was closed: not an error of this rank
        raise
    except BaseException as exc:
        dist = _dist()
        if dist is not None and not getattr(exc, "_mm_every_rank_knows", False):
            _Meeting(dist, group, timeout).fail(exc)
            _mark(exc)
        raise
    finally:
        _leave_guard(place)


def _enter_guard(group):
    """Post that this rank is inside a guard() block of ``group`` (the outermost one posts): its place."""
    dist = _dist()
    if dist is None:
        return None
    place = _Group(dist, group)
    with _calls_lock:
        depth = _guards.get(place.name, 0)
        _guards[place.name] = depth + 1
    if depth == 0:
        place.post_guard("in")
    return place


def _leave_guard(place) -> None:
    if place is None or _dist() is None:
        return
    with _calls_lock:
        depth = _guards.get(place.name, 1) - 1
        _guards[place.name] = depth
    if depth == 0:
        place.post_guard("left")
