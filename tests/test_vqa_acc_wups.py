"""vqa_acc `wups`: our Wu-Palmer similarity on cached per-synset tables equals NLTK's `wup_similarity`
(sampled noun synset pairs, ancestors, instances, a synset with itself), and WUPS per question equals
the transcription of Malinowski's calculate_wups.py exactly (==)."""

import random

import pytest
from oracles import vqa as oracle

from multimodal_metrics.resources import wordnet as wn
from multimodal_metrics.vqa_acc import wups


@pytest.fixture(scope="module")
def wordnet():
    reader = wn.load_wordnet()
    assert reader.get_version() == "3.0"
    return reader


def _pairs(reader, n: int, seed: int) -> list:
    """Random noun synset pairs, each synset with one of its ancestors (both orders) and itself, and
    synsets with instance hypernyms (Einstein-like: the case NLTK's walk has a second relation for)."""
    rng = random.Random(seed)
    lemmas = rng.sample(sorted(reader.all_lemma_names("n")), n)  # from the index: no walk over every synset
    lemmas += ["einstein", "paris", "mississippi", "shakespeare", "mars"]  # instances of a class
    nouns = sorted({s for lemma in lemmas for s in reader.synsets(lemma, pos="n")})
    pairs = [(rng.choice(nouns), rng.choice(nouns)) for _ in range(n)]
    for synset in rng.sample(nouns, min(len(nouns), n // 4)):
        ancestor = rng.choice(rng.choice(synset.hypernym_paths()))
        pairs += [(synset, ancestor), (ancestor, synset), (synset, synset)]
    instances = [s for s in nouns if s.instance_hypernyms()]
    for synset in rng.sample(instances, min(len(instances), n // 4)):
        pairs += [(synset, rng.choice(nouns)), (rng.choice(instances), synset)]
    return pairs


def test_wup_similarity_equals_nltk(wordnet):
    pairs = _pairs(wordnet, 1200, seed=7)
    pairs += [(x, y) for x in wordnet.synsets("dog", pos="n") for y in wordnet.synsets("chair", pos="n")]
    for x, y in pairs:
        expected = x.wup_similarity(y)
        got = wups.wup_similarity(x, y, wordnet)
        assert got == expected and type(got) is type(expected), (x, y, got, expected)


def test_max_wup_equals_nltk_over_every_sense_pair(wordnet):
    words = [
        "dog",
        "dogs",
        "Dog",
        "cat",
        "person",
        "people",
        "table",
        "living room",
        "xyzzy",
        "",
        "bank",
        "Einstein",
    ]
    for a in words:
        for b in words:
            scores = [
                x.wup_similarity(y) for x in wordnet.synsets(a, pos="n") for y in wordnet.synsets(b, pos="n")
            ]
            assert wups.max_wup(a, b, wordnet) == max([s for s in scores if s is not None], default=0.0), (
                a,
                b,
            )


@pytest.mark.parametrize("threshold, n", [(0.9, 300), (0.0, 100), (-1, 300)])
def test_wups_equals_the_malinowski_transcription(wordnet, threshold, n):
    predictions, gts = oracle.make_wups_inputs(n, seed=11)
    expected = oracle.MalinowskiWUPS(wordnet, threshold).scores(gts, predictions)
    got = wups.wups_per_question(predictions, [[g] for g in gts], threshold=threshold, wordnet=wordnet)
    assert got.tolist() == [float(x) for x in expected]
