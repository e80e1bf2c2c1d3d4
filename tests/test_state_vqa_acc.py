"""vqa_acc's mergeable state: merged shards equal ``score`` bit for bit on every preset (per-type,
per-language and corpus keys included), with its per-question text inputs (question / answer types,
languages) kept as text rows; update's errors are score's; other options and resources are refused."""

import random

import pytest
from state_checks import (
    StateCase,
    assert_covers_presets,
    assert_same_result,
    case_id,
    check_case,
    check_empty_states_raise_the_error_of_score,
    error_of,
    with_edited_header,
)

from multimodal_metrics import det_f1, vqa_acc
from multimodal_metrics import state as mmstate

WORDS = [
    "red",
    "Red.",
    "two",
    "2",
    "yes",
    "no",
    "a dog",
    "the dog",
    "dog",
    "cat",
    "chair",
    "table",
    "1,000",
    "t-shirt",
]
WUPS_WORDS = ["dog", "cat", "chair", "table", "animal", "furniture", "dog, cat", "red", "kitchen table"]
RU_WORDS = ["два", "кошки", "Кошка", "красный", "2", "собаки"]


def vqa_case(preset, n=240, seed=0, **options) -> StateCase:
    """``n`` generated questions for ``preset``: answers drawn so that some match, some match after
    normalisation, some never; the preset's per-question inputs with repeats and (vqa_v2) empty labels."""
    rng = random.Random(seed)
    scorer = vqa_acc.SCORERS[preset]
    words = {"wups": WUPS_WORDS, "fusion_brain_2021": WORDS + RU_WORDS}.get(scorer, WORDS)
    pick = lambda: rng.choice(words)  # noqa: E731
    num_answers = options.get("num_answers", vqa_acc.PRESETS[preset]["num_answers"])
    sizes = (lambda: num_answers) if num_answers else (lambda: rng.randint(1, 5))
    references = []
    for _ in range(n):
        common, agree = pick(), rng.random() < 0.2  # unanimous answers: the official rule does not normalise
        references.append([common if agree or rng.random() < 0.5 else pick() for _ in range(sizes())])
    variant = lambda text: rng.choice([text, text.upper(), text + ".", f" {text}\t"])  # noqa: E731
    predictions = [variant(rng.choice(refs)) if rng.random() < 0.6 else pick() for refs in references]
    if scorer == "bleu1":
        predictions = [" ".join(variant(pick()) for _ in range(rng.randint(0, 4))) for _ in range(n)]
    inputs = {"predictions": predictions, "references": references}
    if scorer == "vqa_v2":
        inputs["question_types"] = [rng.choice(["what color", "how many", "is the", ""]) for _ in range(n)]
        inputs["answer_types"] = [rng.choice(["other", "number", "yes/no", 'ünïcode "q"']) for _ in range(n)]
    elif scorer == "tdiuc":
        inputs["question_types"] = [
            rng.choice(["color", "counting", "sport_recognition", "absurd"]) for _ in range(n)
        ]
    elif scorer == "fusion_brain_2021":
        inputs["languages"] = [rng.choice(["en", "ru"]) for _ in range(n)]
    return StateCase(vqa_acc, inputs, {"preset": preset, **options})


CASES = [
    {"preset": "default"},
    {"preset": "vqa_v2", "normalize": "always"},
    {"preset": "lmms_eval"},
    {"preset": "vlmevalkit"},
    {"preset": "fusion_brain_2021"},
    {"preset": "tdiuc"},
    {"preset": "tdiuc", "answer_key": ["red", "2", "yes", "no", "dog", "cat"], "epsilon": 1e-6},
    {"preset": "wups"},
    {"preset": "wups", "threshold": -1.0},
    {"preset": "bleu1"},
    {"preset": "bleu1", "lowercase": True},
]


@pytest.mark.parametrize("options", CASES, ids=case_id)
def test_merged_states_equal_score(options):
    check_case(vqa_case(**options), splits=2)


def test_every_preset_is_covered():
    assert_covers_presets(CASES, vqa_acc)


def test_keys_of_the_merged_result():
    """The equality above holds on results that carry their per-type keys (a test that cannot pass vacuously)."""
    case = vqa_case("default", n=50)
    result = case.shard_state(range(50)).result(**case.result_kwargs)
    assert {"accuracy_question_type/how many", 'accuracy_answer_type/ünïcode "q"', "accuracy_ci_low"} <= set(
        result
    )
    assert "accuracy_question_type/" not in result  # the empty label is left out, as score leaves it out
    tdiuc = vqa_case("tdiuc", n=50)
    assert "normalized_accuracy_question_type/absurd" in tdiuc.shard_state(range(50)).result()
    bleu = vqa_case("bleu1", n=50).shard_state(range(50)).result()
    assert 0 < bleu["bleu1_corpus"] < 1


def test_a_shard_without_data_and_padding_duplicates():
    case = vqa_case("fusion_brain_2021", n=30)
    empty = vqa_acc.state(preset="fusion_brain_2021")
    state = vqa_acc.state(preset="fusion_brain_2021").update(**case.take(range(20)))
    state.update(**case.take(range(20, 30)))  # indexes 20..29 follow on
    state.update(**case.take([0, 1, 2]), index=[0, 1, 2])  # DistributedSampler's padding
    merged = vqa_acc.State.from_bytes(empty.to_bytes()).merge(state, empty)
    assert merged.index.tolist() == list(range(30))
    assert_same_result(
        merged.result(return_per_example=True, confidence=0.9, seed=2),
        vqa_acc.score(
            **case.inputs, preset="fusion_brain_2021", return_per_example=True, confidence=0.9, seed=2
        ),
    )


def test_conflicting_duplicate_is_refused_and_state_kept():
    state = vqa_acc.state(preset="tdiuc").update(
        ["red", "2"], ["red", "3"], question_types=["color", "counting"]
    )
    before = state.to_bytes()
    with pytest.raises(ValueError, match="index 1 was given to two different examples"):
        state.update(["3"], ["3"], question_types=["counting"], index=[1])
    with pytest.raises(
        ValueError, match="index 0 was given to two different examples"
    ):  # same answer, another question type
        state.update(["red"], ["red"], question_types=["colour"], index=[0])
    assert state.to_bytes() == before
    state.update(["red"], ["red"], question_types=["color"], index=[0])  # the same question again: dropped
    assert state.to_bytes() == before


@pytest.mark.parametrize(
    ("mine", "other", "what"),
    [
        ({}, {"preset": "vqa_v2"}, "preset differs"),
        ({}, {"normalize": "never"}, "option 'normalize' differs"),
        (
            {"preset": "vlmevalkit"},
            {"preset": "vlmevalkit", "num_answers": 10},
            "option 'num_answers' differs",
        ),
        ({"preset": "tdiuc"}, {"preset": "tdiuc", "answer_key": ["red"]}, "option 'answer_key' differs"),
        ({"preset": "tdiuc"}, {"preset": "tdiuc", "epsilon": 0.0}, "option 'epsilon' differs"),
        ({"preset": "wups"}, {"preset": "wups", "threshold": 0.0}, "option 'threshold' differs"),
        ({"preset": "bleu1"}, {"preset": "bleu1", "lowercase": True}, "option 'lowercase' differs"),
    ],
)
def test_other_options_are_refused_naming_them(mine, other, what):
    a, b = vqa_acc.state(**mine), vqa_acc.state(**other)
    extra = {"question_types": ["color"]} if mine.get("preset") == "tdiuc" else {}
    a.update(["red"], [["red"] * (10 if a.options_resolved["num_answers"] == 10 else 1)], **extra)
    with pytest.raises(ValueError, match=what):
        a.merge(b)
    with pytest.raises(ValueError, match=what):
        vqa_acc.State.from_bytes(b.to_bytes()).merge(a)


def test_other_metric_and_resources_are_refused():
    with pytest.raises(ValueError, match="metric differs"):
        vqa_acc.state().merge(det_f1.state())
    with pytest.raises(ValueError, match="a det_f1 state, not a state of vqa_acc"):
        vqa_acc.State.from_bytes(det_f1.state().to_bytes())
    a = vqa_acc.state(preset="wups").update(["dog"], ["cat"], index=[0])
    b = vqa_acc.state(preset="wups").update(["cat"], ["cat"], index=[1])
    b.context = {"wn": "1.6"}
    with pytest.raises(ValueError, match="'wn' is '1.6' in one and '3.0' in the other"):
        a.merge(b)
    c = vqa_acc.state(preset="fusion_brain_2021").update(["two"], ["2"], index=[0])
    d = vqa_acc.state(preset="fusion_brain_2021").update(["два"], ["2"], languages=["ru"], index=[1])
    d.context = {"ru": "pymorphy3-0.0.1/ru-old"}
    with pytest.raises(ValueError, match="'ru' is 'pymorphy3-0.0.1/ru-old' in one"):
        c.merge(d)


@pytest.mark.parametrize("preset", list(vqa_acc.PRESETS))
def test_empty_state_has_the_error_of_score(preset):
    options = {"threshold": -1.0} if preset == "wups" else {}
    check_empty_states_raise_the_error_of_score(vqa_acc, preset, **options)


@pytest.mark.parametrize(
    ("preset", "inputs"),
    [
        ("default", {"predictions": ["a", None], "references": [["a"] * 10] * 2}),
        ("default", {"predictions": ["a"], "references": [["a"] * 9]}),  # num_answers=10
        ("default", {"predictions": ["a"], "references": [["a"] * 10, ["b"] * 10]}),
        ("default", {"predictions": ["a"], "references": [["a"] * 10], "languages": ["en"]}),
        ("default", {"predictions": ["a"], "references": [["a"] * 10], "question_types": ["x", "y"]}),
        ("fusion_brain_2021", {"predictions": ["a"], "references": [["a"]], "languages": ["de"]}),
        ("fusion_brain_2021", {"predictions": ["a"], "references": [["a"]], "answer_types": ["x"]}),
        ("tdiuc", {"predictions": ["a"], "references": ["a"]}),
        ("tdiuc", {"predictions": ["a"], "references": ["a"], "question_types": [""]}),
        ("tdiuc", {"predictions": ["a"], "references": [["a", "b"]], "question_types": ["t"]}),
        ("bleu1", {"predictions": ["a"], "references": [[]]}),
        ("bleu1", {"predictions": "a", "references": ["a"]}),
    ],
)
def test_update_errors_are_those_of_score(preset, inputs):
    state = vqa_acc.state(preset)
    assert error_of(lambda: state.update(**inputs)) == error_of(
        lambda: vqa_acc.score(**inputs, preset=preset)
    )
    assert len(state) == 0


def test_update_index_errors():
    state = vqa_acc.state(preset="bleu1")
    with pytest.raises(ValueError, match="`index` has 1 entries but the batch has 2"):
        state.update(["a", "b"], ["a", "b"], index=[0])
    with pytest.raises(TypeError, match=r"`index\[0\]` must be a whole number"):
        state.update(["a"], ["a"], index=["0"])
    assert len(state) == 0


def test_options_are_checked_at_creation():
    with pytest.raises(ValueError, match="unknown option 'answer_key'.*preset 'tdiuc' does"):
        vqa_acc.state(answer_key=["a"])
    with pytest.raises(ValueError, match="normalize"):
        vqa_acc.state(normalize="sometimes")
    with pytest.raises(ValueError, match="unknown preset"):
        vqa_acc.state(preset="gqa")
    assert vqa_acc.state(preset="bleu1").options_resolved == {"lowercase": False, "num_answers": 0}


def _bytes(preset, n, **inputs_of):
    case = vqa_case(preset, n=n)
    inputs = {**case.inputs, **{k: f(n) for k, f in inputs_of.items()}}
    state = vqa_acc.state(preset)
    state.update(**inputs)
    return len(state.to_bytes())


@pytest.mark.parametrize(
    ("preset", "inputs", "per_question"),
    [
        ("default", {"question_types": lambda n: [""] * n, "answer_types": lambda n: [""] * n}, 40),
        ("default", {"question_types": lambda n: ["what"] * n, "answer_types": lambda n: ["other"] * n}, 49),
        ("fusion_brain_2021", {"languages": lambda n: ["en"] * n}, 38),
        ("tdiuc", {"question_types": lambda n: ["color"] * n, "references": lambda n: ["red"] * n}, 48),
        ("wups", {}, 32),
        ("bleu1", {}, 64),
    ],
)
def test_bytes_per_question(preset, inputs, per_question):
    """The sizes the State docstring states: 32 bytes (index, digest and score), plus the text of the inputs as
    JSON (UTF-8 length + 4 bytes each) or bleu1's four counts; the header is a few hundred bytes."""
    small, large = _bytes(preset, 100, **inputs), _bytes(preset, 1100, **inputs)
    assert 0 <= large - small - 1000 * per_question < 16  # the header's counts grow by a few digits
    assert small < 100 * per_question + 1024


def test_bytes_hold_the_options_of_their_preset_only():
    """A preset takes only the options of its procedure: the bytes hold those, checked when read."""
    state = vqa_acc.state(preset="tdiuc", answer_key=["red"]).update(
        ["red"], ["red"], question_types=["color"]
    )
    blob = state.to_bytes()
    again = mmstate.from_bytes(blob)
    assert type(again) is vqa_acc.State and again.options_resolved == state.options_resolved
    cases = [
        (
            lambda h: h.update(preset="bleu1"),
            r"unknown option\(s\) \['answer_key', 'epsilon'\] / missing option\(s\) \['lowercase'\]",
        ),
        (lambda h: h["options"].update(normalize="never"), r"unknown option\(s\) \['normalize'\]"),
        (lambda h: h["options"].pop("epsilon"), r"missing option\(s\) \['epsilon'\]"),
        (lambda h: h["options"].update(answer_key="red"), "answer_key"),
    ]
    for edit, message in cases:
        with pytest.raises((ValueError, TypeError), match=message):
            vqa_acc.State.from_bytes(with_edited_header(blob, edit))
