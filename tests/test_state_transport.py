"""What a state keeps when it travels: examples told apart by their inputs, the job's size, a checksum,
each metric's column checks, and index arithmetic that cannot wrap (multimodal_metrics.state).

The bit-flip sweep flips every bit of a small state of every metric: each flip is refused with a
ValueError, none changes a result silently and none escapes as another exception.
"""

import importlib
import os
import struct
import warnings

import numpy as np
import pytest
from state_checks import reframed, state_header, with_edited_header, with_edited_payload

from multimodal_metrics import anls, det_f1, ned, vqa_acc
from multimodal_metrics import state as mmstate
from multimodal_metrics.state_format import CHECKSUM_SIZE, MAX_DEPTH, MAX_HEADER, PREFIX_SIZE

ANSWERS = ["reciept", "Paris", "12", "the bill"]
REFERENCES = [["receipt"], ["paris"], ["12"], ["bill"]]


# ----------------------------------------------------------------------------------------------
# 1. examples are told apart by their inputs
# ----------------------------------------------------------------------------------------------
def test_two_examples_with_one_index_are_refused_even_when_they_score_alike():
    """Two different questions given index 2 both score 1.0: the old rule (same rows = padding) dropped
    one and scored 3 of 4 examples; the digest of the inputs tells them apart."""
    a = anls.state().update(ANSWERS[:3], REFERENCES[:3], index=[0, 1, 2])
    b = anls.state().update(["bill"], [["bill"]], index=[2])  # another question, also scoring 1.0
    assert a.result(return_per_example=True).per_example[2] == 1.0
    with pytest.raises(ValueError, match="index 2 was given to two different examples"):
        a.merge(b)
    assert len(a) == 3  # refused: nothing changed


def test_a_repeated_example_is_kept_once_and_its_digest_travels():
    a = anls.state().update(ANSWERS, REFERENCES)
    padded = anls.state().update(ANSWERS[:1], ["receipt"], index=[0])  # one reference, as a string
    merged = anls.State.from_bytes(a.to_bytes()).merge(anls.State.from_bytes(padded.to_bytes()))
    assert len(merged) == 4 and merged.digests.shape == (4, 16)
    assert np.array_equal(merged.digests, a.digests)
    assert merged.result() == anls.score(ANSWERS, REFERENCES)


@pytest.mark.parametrize(
    ("module", "first", "second", "kwargs"),
    [
        (vqa_acc, (["red"], [["red"] * 10]), (["red"], [["red"] * 10]), ({"answer_types": ["other"]}, {})),
        (det_f1, ([{"cat": [[0, 0, 2, 2]]}], [{"cat": [[0, 0, 2, 2]]}]), ([{}], [{}]), ({}, {})),
        (ned, (["ab"], ["ab"]), (["cd"], ["cd"]), ({}, {})),
    ],
)
def test_every_state_digests_all_its_inputs(module, first, second, kwargs):
    """Same score, other inputs (an extra per-question input, other boxes, other text): refused."""
    a = module.state().update(*first, index=[5], **kwargs[0])
    b = module.state().update(*second, index=[5], **kwargs[1])
    with pytest.raises(ValueError, match="index 5 was given to two different examples"):
        a.merge(b)


# ----------------------------------------------------------------------------------------------
# 2. the whole job's size
# ----------------------------------------------------------------------------------------------
def shard_states(total=4, shards=((0, 1), (2,), (3,))):
    return [
        anls.state(total=total).update(
            [ANSWERS[i % 4] for i in s], [REFERENCES[i % 4] for i in s], index=list(s)
        )
        for s in shards
    ]


def test_a_missing_shard_is_refused_naming_the_examples():
    merged = mmstate.merge_all(shard_states(total=10, shards=((0, 1), (2,), (3, 4, 5, 6))))
    with pytest.raises(
        ValueError, match=r"examples 7-9 are missing \(3 of the job's 10\).*allow_partial=True"
    ):
        merged.result()
    with pytest.warns(UserWarning, match="examples 7-9 are missing"):
        partial = merged.result(allow_partial=True)
    assert partial.signature_fields["partial"] == "7/10"
    assert partial.signature.endswith("|partial:7/10|v:" + partial.get_signature().version)
    assert partial["anls"] == anls.score(*_firsts(7))["anls"]


def _firsts(n):
    words = (ANSWERS * 3)[:n]
    refs = (REFERENCES * 3)[:n]
    return words, refs


def test_a_whole_job_scores_as_one_call_and_an_empty_rank_is_not_missing():
    states = shard_states()
    empty = anls.state(total=4)  # a rank that held no data: its total says so, nothing is missing
    merged = mmstate.merge_all([*states, empty])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert merged.result() == anls.score(ANSWERS, REFERENCES)
    assert "partial" not in merged.result().signature_fields


def test_totals_that_differ_are_refused_and_too_many_examples_too():
    with pytest.raises(ValueError, match="jobs of different sizes: `total` is 5 in one and 4"):
        anls.state(total=4).merge(anls.state(total=5))
    st = anls.state(total=2).update(ANSWERS[:3], REFERENCES[:3])
    with pytest.raises(ValueError, match="holds 3 examples where the job has 2"):
        st.result(allow_partial=True)
    again = anls.State.from_bytes(shard_states()[0].to_bytes())
    assert again.total == 4
    with pytest.raises(TypeError, match="`total` must be a whole number"):
        anls.state(total=4.0)
    with pytest.raises(ValueError, match=r"`total` must be in \[0, 2\*\*63 - 1\]"):
        anls.state(total=-1)


def test_ids_that_are_not_positions_are_counted():
    st = anls.state(total=3).update(ANSWERS[:2], REFERENCES[:2], index=[1000, 2000])
    with pytest.raises(ValueError, match="holds 2 of the job's 3 examples"):
        st.result()


# ----------------------------------------------------------------------------------------------
# 3. damaged or forged bytes
# ----------------------------------------------------------------------------------------------
def small_state(name):
    """A small state of ``name`` (every metric but fid_clip: tests/test_state_fid_clip.py sweeps its own)."""
    out = {
        "anls": lambda: anls.state().update(ANSWERS[:2], REFERENCES[:2]),
        "ned": lambda: ned.state().update(["ab", "c"], ["abc", "c"]),
        "vqa_acc": lambda: vqa_acc.state().update(
            ["2", "red"], [["2"] * 10, ["red"] * 9 + ["blue"]], answer_types=["number", "other"]
        ),
        "det_f1": lambda: det_f1.state().update(
            [{"cat": [[0, 0, 4, 4]]}, {"dog": []}], [{"cat": [[0, 0, 4, 5]]}, {"dog": [[1, 1, 2, 2]]}]
        ),
    }
    if name in out:
        return out[name]()
    module = importlib.import_module(f"multimodal_metrics.{name}")
    if name == "text_qa":
        return module.state(total=2).update(["пять"], ["5"])
    if name == "codebleu":
        return module.state(lang="python").update(["x = 1\n"], ["x = 2\n"])
    return module.state("nltk", synonyms="none").update(["a cat"], ["a cat sat"])


@pytest.mark.parametrize("name", ["anls", "ned", "vqa_acc", "det_f1", "text_qa", "codebleu", "ru_meteor"])
def test_every_single_bit_flip_is_a_value_error(name):
    state = small_state(name)
    blob, reader = state.to_bytes(), type(state)
    flips = 0
    for byte in range(len(blob)):
        for bit in range(8):
            damaged = bytearray(blob)
            damaged[byte] ^= 1 << bit
            try:
                reader.from_bytes(bytes(damaged))
            except ValueError:
                flips += 1
                continue
            raise AssertionError(f"a flip of bit {bit} of byte {byte} was read without an error")
    assert flips == 8 * len(blob)


def test_a_forged_column_with_a_correct_checksum_is_refused_naming_it():
    blob = anls.state().update(ANSWERS[:2], REFERENCES[:2]).to_bytes()
    header, _ = state_header(blob)
    n = header["n"]
    score_at = n * 8 + n * 16  # after the index and the digests
    for value, what in ((7.0, "row 0 holds 7.0"), (3.3e299, "row 0"), (float("nan"), "row 0 holds nan")):
        forged = with_edited_payload(
            blob, lambda p, v=value: p.__setitem__(slice(score_at, score_at + 8), struct.pack("<d", v))
        )
        with pytest.raises(
            ValueError, match=f"anls state column 'anls': {what}.*finite numbers in \\[0.0, 1.0\\]"
        ):
            anls.State.from_bytes(forged)
    with pytest.raises(ValueError, match="anls state column 'anls' has dtype int64"):
        anls.State.from_bytes(with_edited_header(blob, lambda h: h["columns"][0].update(dtype="<i8")))
    with pytest.raises(ValueError, match=r"holds the columns \['anls'\] here; these bytes hold \['evil'\]"):
        anls.State.from_bytes(with_edited_header(blob, lambda h: h["columns"][0].update(name="evil")))
    counts = det_f1.state().update([{"cat": [[0, 0, 4, 4]]}], [{"cat": [[0, 0, 4, 4]]}]).to_bytes()
    forged = with_edited_payload(counts, lambda p: p.__setitem__(slice(24, 32), struct.pack("<q", -3)))
    with pytest.raises(ValueError, match=r"det_f1 state column 'counts': row 0 holds \[-3, 0, 0\]"):
        det_f1.State.from_bytes(forged)


def test_an_unsorted_or_repeated_index_in_the_bytes_is_refused():
    blob = anls.state().update(ANSWERS[:2], REFERENCES[:2]).to_bytes()
    swapped = with_edited_payload(blob, lambda p: p.__setitem__(slice(0, 16), struct.pack("<qq", 1, 0)))
    with pytest.raises(ValueError, match="sorted, each once"):
        anls.State.from_bytes(swapped)


def test_headers_too_large_too_deep_or_with_odd_numbers_are_value_errors():
    blob = anls.state().update(ANSWERS[:1], REFERENCES[:1]).to_bytes()
    header, end = state_header(blob)
    payload = blob[end:-CHECKSUM_SIZE]
    deep = {**header, "context": {"x": None}}
    node = deep["context"]
    for _ in range(MAX_DEPTH + 2):
        node["x"] = {"x": None}
        node = node["x"]
    cases = [
        (deep, "nested deeper"),
        ({**header, "n": 2**70}, "'n' must be a whole number"),
        ({**header, "total": True}, "'total' must be null"),
        ({**header, "columns": [{**header["columns"][0], "shape": [1] * 40}]}, "malformed column"),
        ({**header, "evil": 1}, "unknown field"),
    ]
    for forged, message in cases:
        with pytest.raises(ValueError, match=message):
            anls.State.from_bytes(reframed(forged, payload))
    text = b'{"a": ' + b"1" * 5000 + b"}"  # an integer too long for Python's int parser
    body = b"MMSTATE\x00" + struct.pack("<IIQ", 2, len(text), 0) + text
    import hashlib

    with pytest.raises(ValueError, match="not valid JSON"):
        anls.State.from_bytes(body + hashlib.sha256(body).digest())
    huge = b"MMSTATE\x00" + struct.pack("<IIQ", 2, MAX_HEADER + 1, 0)
    with pytest.raises(ValueError, match="over the format's"):
        anls.State.from_bytes(huge + bytes(MAX_HEADER + 1 + CHECKSUM_SIZE))


def test_a_state_of_the_first_format_is_refused_with_a_clear_message():
    head = b'{"columns": [], "format": 1, "library": "multimodal-metrics"}'
    old = b"MMSTATE\x00" + struct.pack("<I", len(head)) + head
    with pytest.raises(ValueError, match="a state of format 1 .* score the examples again"):
        mmstate.from_bytes(old)


def test_a_file_is_refused_after_its_framing_is_read(tmp_path):
    """A 3 GB file (sparse: no disk used) that is not a state, and one whose framing announces another
    size, are refused after reading the first bytes, naming the file."""
    big = tmp_path / "big.state"
    with open(big, "wb") as handle:
        handle.write(b"x" * 64)
        handle.truncate(3 * 2**30)
    with pytest.raises(ValueError, match=f"{big} is not a multimodal-metrics state"):
        mmstate.read_state(big)
    blob = anls.state().update(ANSWERS, REFERENCES).to_bytes()
    lying = tmp_path / "lying.state"
    with open(lying, "wb") as handle:
        handle.write(blob[:PREFIX_SIZE])
        handle.truncate(3 * 2**30)
    with pytest.raises(ValueError, match=f"{lying}: 3221225472 bytes where the state's framing announces"):
        mmstate.read_state(lying)
    good = tmp_path / "good.state"
    good.write_bytes(blob)
    assert mmstate.read_state(good).result() == anls.score(ANSWERS, REFERENCES)
    assert os.path.getsize(big) == 3 * 2**30


# ----------------------------------------------------------------------------------------------
# 4. index arithmetic
# ----------------------------------------------------------------------------------------------
def test_index_arithmetic_that_would_wrap_is_refused_before_anything_changes():
    st = anls.state().update(ANSWERS[:2], REFERENCES[:2], index=[0, 1])
    before = st.to_bytes()
    with pytest.raises(ValueError, match=r"`offset` = -5 would move the anls state's indexes 0..1 out of"):
        st.shift_index(-5)
    with pytest.raises(ValueError, match="`offset`"):
        st.shift_index(2**64)
    with pytest.raises(TypeError, match="`offset` must be a whole number"):
        st.shift_index(1.5)
    assert st.to_bytes() == before
    top = anls.state().update(ANSWERS[:1], REFERENCES[:1], index=[2**62])
    with pytest.raises(ValueError, match="`offset`"):
        top.shift_index(2**62)
    last = anls.state().update(ANSWERS[:1], REFERENCES[:1], index=[2**63 - 1])
    with pytest.raises(ValueError, match="`index`: the 1 new example.* past the largest index"):
        last.update(ANSWERS[1:2], REFERENCES[1:2])
    assert len(last) == 1
    assert st.shift_index(3).index.tolist() == [3, 4]
    assert anls.State.from_bytes(st.to_bytes()).index.tolist() == [3, 4]


# ----------------------------------------------------------------------------------------------
# mm-score merge: a missing shard, metric before index
# ----------------------------------------------------------------------------------------------
def test_mm_score_merge_refuses_a_missing_shard_and_says_partial(tmp_path, capsys):
    from _mm_score_cli import run, run_json
    from engine_cases import CASES, case

    command, flags, write = CASES["anls"].cli
    gt, pred = tmp_path / "gt.json", tmp_path / "pred.json"
    write(case("anls", 100).inputs, gt, pred)
    files = ["--gt", str(gt), "--pred", str(pred), *flags]
    states = []
    for i in range(4):
        states.append(str(tmp_path / f"s{i}.state"))
        code, _, err = run(capsys, command, *files, "--shard", f"{i}/4", "--save-state", states[-1])
        assert code == 0 and "covers 25/100 of the job's examples" in err
    code, _, err = run(capsys, "merge", *states[:3])
    assert code == 2 and "examples 75-99 are missing (25 of the job's 100)" in err
    partial = run_json(capsys, "merge", *states[:3], "--allow-partial")
    assert partial["examples"] == 75 and "|partial:75/100|" in partial["signature"]
    whole = run_json(capsys, "merge", *states)
    assert whole == run_json(capsys, command, *files) and "partial" not in whole["signature"]
    other = str(tmp_path / "stvqa.state")
    assert run(capsys, command, *files, "--preset", "stvqa", "--shard", "0/4", "--save-state", other)[0] == 0
    code, _, err = run(
        capsys, "merge", states[0], other
    )  # the same indexes, another preset: the preset is named
    assert code == 2 and "preset differs" in err and "--allow-duplicates" not in err


def test_record_ids_travel_merge_and_are_checked():
    a = anls.state().update(ANSWERS[:2], REFERENCES[:2]).name_records([0, 1], ["q17", 18])
    b = anls.state().update(ANSWERS[2:], REFERENCES[2:], index=[2, 3]).name_records([2, 3], ["q19", "q20"])
    merged = anls.State.from_bytes(a.to_bytes()).merge(anls.State.from_bytes(b.to_bytes()))
    assert merged.record_ids == {0: "q17", 1: 18, 2: "q19", 3: "q20"}
    assert anls.State.from_bytes(merged.to_bytes()).record_ids == merged.record_ids
    with pytest.raises(ValueError, match="example index 1 has the record id 18 in one state and 'x'"):
        merged.merge(anls.state().update(ANSWERS[1:2], REFERENCES[1:2], index=[1]).name_records([1], ["x"]))
    with pytest.raises(TypeError, match=r"`ids\[0\]` must be a string or a whole number"):
        a.name_records([0], [1.5])
