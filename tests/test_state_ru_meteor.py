"""ru_meteor's mergeable state: merged shards equal ``score`` on every preset, bit for bit; the resource
paths are where a resource lies (not part of a state's identity), its content is (the ``res`` context)."""

import random
import shutil

import pytest
from oracles import ru_meteor as oracle
from state_checks import StateCase, check_merges_equal_score, check_round_trip

from multimodal_metrics import ru_meteor


@pytest.fixture(scope="module")
def rwn(tmp_path_factory):
    return str(oracle.make_ruwordnet_db(tmp_path_factory.mktemp("rwn") / "ruwordnet.db"))


def meteor_case(n=60, seed=3, **options) -> StateCase:
    rng = random.Random(seed)
    words = [
        "кошка",
        "кот",
        "сидит",
        "на",
        "ковре",
        "животное",
        "два",
        "2",
        "the",
        "cat",
        "sat",
        "mat",
        "dogs",
    ]
    sentence = lambda: " ".join(rng.choice(words) for _ in range(rng.randint(1, 6)))  # noqa: E731
    predictions = [rng.choice([sentence(), "2", "два"]) for _ in range(n)]
    references = [[rng.choice([sentence(), "2"]) for _ in range(rng.randint(1, 3))] for _ in range(n)]
    return StateCase(ru_meteor, {"predictions": predictions, "references": references}, options)


@pytest.mark.parametrize(
    "options",
    [
        {"preset": "captioning"},
        {"preset": "vqa"},
        {"preset": "ru"},
        {"preset": "nltk"},
        {"preset": "nltk", "corpus_score": True, "alpha": 0.8},
    ],
    ids=lambda o: "-".join(map(str, o.values())),
)
def test_merged_states_equal_score(options, rwn):
    if options["preset"] != "nltk":
        options = {**options, "ruwordnet_path": rwn}
    case = meteor_case(**options)
    check_merges_equal_score(case, splits=2)
    check_round_trip(case)


def test_resource_paths_are_not_identity_but_content_is(rwn, tmp_path):
    copy = str(tmp_path / "copy.db")
    shutil.copy(rwn, copy)
    case = meteor_case(20)
    a = ru_meteor.state(ruwordnet_path=rwn).update(**case.take(range(10)), index=list(range(10)))
    b = ru_meteor.state(ruwordnet_path=copy).update(**case.take(range(10, 20)), index=list(range(10, 20)))
    merged = ru_meteor.State.from_bytes(a.to_bytes()).merge(b)  # the same RuWordNet in another file
    expected = ru_meteor.score(**case.inputs, ruwordnet_path=rwn, return_per_example=True)
    assert dict(merged.result(return_per_example=True)) == dict(expected)
    b.context = {**b.context, "res": "ruwordnet-sha256-000000000000"}
    with pytest.raises(ValueError, match="'res' is 'ruwordnet-sha256-000000000000' in one"):
        ru_meteor.state(ruwordnet_path=rwn).merge(a, b)


def test_bytes_read_where_the_resource_is_missing(rwn, tmp_path):
    gone = str(tmp_path / "gone.db")
    shutil.copy(rwn, gone)
    case = meteor_case(12)
    blob = ru_meteor.state(ruwordnet_path=gone).update(**case.take(range(12))).to_bytes()
    (tmp_path / "gone.db").unlink()
    again = ru_meteor.State.from_bytes(blob)  # no RuWordNet is opened to read rows
    expected = ru_meteor.score(**case.inputs, ruwordnet_path=rwn)
    assert dict(again.result()) == dict(expected)
