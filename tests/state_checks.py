"""Checks every metric's mergeable state must pass (used by tests/test_state*.py).

A metric's case gives ``n`` generated examples as per-example inputs; the checks split them into
shards in several ways, score each shard in a state with the examples' global indexes, merge the states
(through ``to_bytes``/``from_bytes`` too) in random orders, and compare the merged ``result`` with the
library's ``score`` on all examples: value, per-example list, seeded interval and signature, bit for bit.
"""

import hashlib
import json
import random
import struct
from dataclasses import dataclass, field

from multimodal_metrics.state_format import CHECKSUM_SIZE, FORMAT, MAGIC, PREFIX_SIZE


@dataclass
class StateCase:
    """One metric's generated examples: ``inputs`` maps an argument name of ``update``/``score`` to its
    per-example list (all of length n); ``options`` (preset included) are given to both ``state`` and
    ``score``, but for those named in ``state_only`` (arguments of ``state`` alone: fid_clip's
    ``keep_features``); ``result_kwargs`` to both ``result`` and ``score``."""

    module: object
    inputs: dict
    options: dict = field(default_factory=dict)
    result_kwargs: dict = field(
        default_factory=lambda: {"return_per_example": True, "confidence": 0.95, "seed": 7}
    )
    state_only: tuple = ()

    @property
    def n(self) -> int:
        return len(next(iter(self.inputs.values())))

    def take(self, ids) -> dict:
        return {name: [values[i] for i in ids] for name, values in self.inputs.items()}

    def reference(self):
        options = {k: v for k, v in self.options.items() if k not in self.state_only}
        return self.module.score(**self.inputs, **options, **self.result_kwargs)

    def shard_state(self, ids):
        state = self.module.state(**self.options)
        if ids:
            state.update(**self.take(ids), index=list(ids))
        return state


def random_shards(n: int, k: int, rng: random.Random) -> list[list[int]]:
    """``k`` shards of ``range(n)`` in random sizes (one may be empty), each in random order."""
    ids = list(range(n))
    rng.shuffle(ids)
    cuts = sorted(rng.randint(0, n) for _ in range(k - 1))
    shards = [ids[a:b] for a, b in zip([0, *cuts], [*cuts, n])]
    for shard in shards:
        rng.shuffle(shard)
    return shards


def strided_with_padding(n: int, world: int) -> list[list[int]]:
    """The shards of torch's ``DistributedSampler(shuffle=False)``: rank r takes r, r + world, ... after the
    index list was padded by repeating its first examples up to a multiple of ``world``."""
    total = -(-n // world) * world
    ids = list(range(n)) + list(range(total - n))
    return [ids[r::world] for r in range(world)]


def assert_same_result(merged, reference) -> None:
    assert list(merged) == list(reference)  # the same keys in the same order (per-type keys included)
    assert dict(merged) == dict(reference)
    assert merged.signature == reference.signature
    assert merged.get_signature() == reference.get_signature()  # the signature as data, too
    assert_same_options(merged, reference)
    assert merged.per_example == reference.per_example


def assert_same_options(merged, reference) -> None:
    """The options a merged state's result reports are those ``score`` resolved; fid_clip's local ones
    (device, batch size, an extractor module, ...: how this process computes) and its reference statistics
    (kept as their digest) are this process's own after bytes, so only their names are compared."""
    skip = ()
    if reference.metric == "fid_clip":
        from multimodal_metrics.fid_clip.mergeable import LOCAL

        skip = (*LOCAL, "reference_stats")
    assert merged.options.keys() == reference.options.keys()
    assert {k: v for k, v in merged.options.items() if k not in skip} == {
        k: v for k, v in reference.options.items() if k not in skip
    }


def check_merges_equal_score(case: StateCase, seed: int = 0, splits: int = 3) -> None:
    """Random splits into 1 to 5 shards, merged in random orders (half of them through bytes), equal ``score``."""
    reference = case.reference()
    rng = random.Random(seed)
    layouts = [strided_with_padding(case.n, 2), [list(range(case.n))]]
    layouts += [random_shards(case.n, rng.randint(2, 5), rng) for _ in range(splits)]
    for shards in layouts:
        states = [case.shard_state(ids) for ids in shards]
        rng.shuffle(states)
        states = [type(s).from_bytes(s.to_bytes()) if rng.random() < 0.5 else s for s in states]
        merged = states[0]
        for other in states[1:]:
            merged = merged.merge(other)
        assert len(merged) == case.n
        assert_same_result(merged.result(**case.result_kwargs), reference)


def check_round_trip(case: StateCase) -> None:
    """``to_bytes`` then ``from_bytes`` keeps every row, the options and the result."""
    state = case.shard_state(range(case.n))
    blob = state.to_bytes()
    again = type(state).from_bytes(blob)
    assert again.to_bytes() == blob
    assert_same_result(again.result(**case.result_kwargs), state.result(**case.result_kwargs))


def check_case(case: StateCase, splits: int = 3) -> None:
    """:func:`check_merges_equal_score` and :func:`check_round_trip` of one case."""
    check_merges_equal_score(case, splits=splits)
    check_round_trip(case)


def case_id(options: dict) -> str:
    """A short test id of a case's options."""
    return "-".join(str(v)[:12] for v in options.values())


def assert_covers_presets(cases, module) -> None:
    """Every preset of ``module`` has a case."""
    assert {o["preset"] for o in cases} == set(module.PRESETS)


def error_of(call) -> tuple:
    """(type, message) of the ValueError / TypeError that ``call()`` raises (an AssertionError if none)."""
    try:
        call()
    except (ValueError, TypeError) as err:
        return type(err), str(err)
    raise AssertionError("no error")


def check_empty_states_raise_the_error_of_score(module, preset: str, **options) -> None:
    """An empty state, fresh or read back from its bytes, raises ``score([], [])``'s error from ``result()``."""
    expected = error_of(lambda: module.score([], [], preset=preset, **options))
    for empty in (
        module.state(preset, **options),
        module.State.from_bytes(module.state(preset, **options).to_bytes()),
    ):
        assert error_of(empty.result) == expected


def state_header(blob: bytes) -> tuple[dict, int]:
    """A state's header (after the framing ``MAGIC | format | header length | payload length``) and the
    offset where its payload starts."""
    _, size, _ = struct.unpack("<IIQ", blob[len(MAGIC) : PREFIX_SIZE])
    return json.loads(blob[PREFIX_SIZE : PREFIX_SIZE + size]), PREFIX_SIZE + size


def reframed(header: dict, payload: bytes) -> bytes:
    """The bytes of a state with this header and payload, framed and checksummed as the library does: a
    forged state whose checksum is right (only the library's own checks of the content can refuse it)."""
    head = json.dumps(header).encode()
    body = MAGIC + struct.pack("<IIQ", FORMAT, len(head), len(payload)) + head + payload
    return body + hashlib.sha256(body).digest()


def with_edited_header(blob: bytes, edit) -> bytes:
    """The bytes of a state whose header ``edit(header)`` changed in place (a tampered or foreign blob),
    with a correct checksum."""
    header, end = state_header(blob)
    edit(header)
    return reframed(header, blob[end:-CHECKSUM_SIZE])


def with_edited_payload(blob: bytes, edit) -> bytes:
    """The bytes of a state whose payload ``edit(bytearray)`` changed in place, with a correct checksum."""
    header, end = state_header(blob)
    payload = bytearray(blob[end:-CHECKSUM_SIZE])
    edit(payload)
    return reframed(header, bytes(payload))
