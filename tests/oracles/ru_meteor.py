"""The AIJ 2022 Fusion Brain METEOR loops (ai-forever/fbc2_aij2022 ``rumeteor.py``, ``calc_meteor.py``,
``utils.postprocess``) and NLTK's ``meteor_score`` as the ``nltk`` preset's peer, transcribed, with the
generated captions and VQA answers they are run on and a small RuWordNet-schema database (the real one
is not on PyPI)."""

import os
import random
import re
import sqlite3
import string

from multimodal_metrics.resources import wordnet as mm_wordnet

from .fb2022_text import MANUAL_MAP_RU

# ------------------------------------------------------------------------------------------------
# inputs
# ------------------------------------------------------------------------------------------------
EN_WORDS = (
    "a an the a the a man men woman women boy boys girl girls kid child children person people dog dogs "
    "puppy cat cats horse horses car cars automobile truck bus train sofa couch bed table desk chair "
    "is are was sitting sits sat standing stands stood riding rides rode walking walks walked running "
    "runs ran playing plays played eating eats ate holding holds held looking looks jumping jumps "
    "on in at near with of by under over next to beside front behind top "
    "street road sidewalk park field grass beach ocean water wave snow mountain building city room kitchen "
    "red blue green white black yellow large big small little young old tall happy "
    "ball frisbee kite surfboard skateboard umbrella phone pizza plate food cake bicycle bike motorcycle "
    "two three several some many group "
).split()
RU_WORDS = (
    "мужчина мужчины женщина женщины мальчик мальчика девочка девочки ребёнок дети кошка кошки кот кота "
    "собака собаки собак птица птицы лошадь лошади машина машины автомобиль дом дома здание стол стола "
    "сидит сидят стоит стоят бежит бегут идёт идут летит летят летают летали играет играют ест едят держит "
    "на в у над под рядом с около перед за по "
    "улице улица дороге дорога парке парк поле траве пляже воде водой водою море горы снегу городе комнате кухне "
    "красный красная синий синяя зелёный белый белая чёрный чёрная жёлтый большой большая маленький "
    "маленькая молодой старый мяч мячом зонт телефон пицца тарелка торт велосипед велосипеде "
    "два две три несколько много группа котик two three"
).split()


def make_captions(n: int, words: list[str], seed: int = 0, refs_per: int = 5):
    """Captions of 5-14 words; predictions copy, perturb or replace a reference. Some end with a period."""
    rng = random.Random(seed)

    def caption():
        text = " ".join(rng.choice(words) for _ in range(rng.randint(5, 14)))
        return text + rng.choice(["", "", ".", " ."])

    refs = [[caption() for _ in range(refs_per)] for _ in range(n)]
    preds = []
    for group in refs:
        base = rng.choice(group).rstrip(" .").split()
        roll = rng.random()
        if roll < 0.4:  # a few words replaced, swapped or dropped
            for _ in range(rng.randint(1, 4)):
                k = rng.randrange(len(base))
                op = rng.random()
                if op < 0.5:
                    base[k] = rng.choice(words)
                elif op < 0.8 and len(base) > 1:
                    j = rng.randrange(len(base))
                    base[k], base[j] = base[j], base[k]
                elif len(base) > 1:
                    del base[k]
            preds.append(" ".join(base))
        elif roll < 0.5:
            preds.append(" ".join(base))
        else:
            preds.append(caption())
    return preds, refs


def make_vqa(n: int, seed: int = 0):
    """Short Russian answers (single words, phrases, digits, number words) with 1-3 accepted answers."""
    rng = random.Random(seed)
    pool = RU_WORDS[:60] + [
        "3",
        "2",
        "0",
        "5",
        "2.5",
        "-3",
        "три",
        "пять",
        "ноль",
        "three",
        "2 или 4",
        "много",
    ]

    def answer():
        return " ".join(rng.choice(pool) for _ in range(rng.choice([1, 1, 1, 2, 3])))

    refs = [[answer() for _ in range(rng.randint(1, 3))] for _ in range(n)]
    preds = [rng.choice(r) if rng.random() < 0.3 else answer() for r in refs]
    return preds, refs


# ------------------------------------------------------------------------------------------------
# a RuWordNet-schema database (the `ruwordnet` package's SQLite layout, ruwordnet/models.py)
# ------------------------------------------------------------------------------------------------
RUWORDNET_SCHEMA = """
CREATE TABLE synset (id VARCHAR NOT NULL, title VARCHAR, definition VARCHAR, part_of_speech VARCHAR, PRIMARY KEY (id));
CREATE INDEX ix_synset_id ON synset (id);
CREATE TABLE sense (id VARCHAR NOT NULL, name VARCHAR, lemma VARCHAR, synset_id VARCHAR, PRIMARY KEY (id),
                    FOREIGN KEY(synset_id) REFERENCES synset (id));
CREATE INDEX ix_sense_id ON sense (id);
CREATE INDEX ix_sense_name ON sense (name);
CREATE INDEX ix_sense_lemma ON sense (lemma);
CREATE TABLE hypernym_relation (hyponym_id VARCHAR NOT NULL, hypernym_id VARCHAR NOT NULL, PRIMARY KEY (hyponym_id, hypernym_id));
CREATE TABLE derivation_relation (source_id VARCHAR NOT NULL, derivative_id VARCHAR NOT NULL, PRIMARY KEY (source_id, derivative_id));
CREATE TABLE composition_relation (word_id VARCHAR NOT NULL, phrase_id VARCHAR NOT NULL, PRIMARY KEY (word_id, phrase_id));
CREATE TABLE domain_relation (domain_id VARCHAR NOT NULL, domain_item_id VARCHAR NOT NULL, PRIMARY KEY (domain_id, domain_item_id));
CREATE TABLE meronymy_relation (meronym_id VARCHAR NOT NULL, holonym_id VARCHAR NOT NULL, PRIMARY KEY (meronym_id, holonym_id));
CREATE TABLE instance_relation (instance_id VARCHAR NOT NULL, class_id VARCHAR NOT NULL, PRIMARY KEY (instance_id, class_id));
CREATE TABLE entailment_relation (premise_id VARCHAR NOT NULL, conclusion_id VARCHAR NOT NULL, PRIMARY KEY (premise_id, conclusion_id));
CREATE TABLE cause_relation (cause_id VARCHAR NOT NULL, effect_id VARCHAR NOT NULL, PRIMARY KEY (cause_id, effect_id));
CREATE TABLE pos_synonymy_relation (left_id VARCHAR NOT NULL, right_id VARCHAR NOT NULL, PRIMARY KEY (left_id, right_id));
CREATE TABLE antonymy_relation (left_id VARCHAR NOT NULL, right_id VARCHAR NOT NULL, PRIMARY KEY (left_id, right_id));
CREATE TABLE related_relation (left_id VARCHAR NOT NULL, right_id VARCHAR NOT NULL, PRIMARY KEY (left_id, right_id));
CREATE TABLE wn_synset (id VARCHAR NOT NULL, definition VARCHAR, PRIMARY KEY (id));
CREATE TABLE wn_sense (key VARCHAR NOT NULL, name VARCHAR, synset_id VARCHAR, PRIMARY KEY (key));
CREATE TABLE interlingual_index_relation (ruwn_id VARCHAR NOT NULL, wn_id VARCHAR NOT NULL, PRIMARY KEY (ruwn_id, wn_id));
"""

# (synset id, title, [(sense id, name, lemma), ...])
FIXTURE_SYNSETS = [
    ("1-N", "ЖИВОТНОЕ", [("1-N-1", "ЖИВОТНОЕ", "ЖИВОТНОЕ")]),
    ("2-N", "КОШКА", [("2-N-1", "КОШКА", "КОШКА"), ("2-N-2", "КИСКА", "КИСКА")]),
    ("3-A", "КОШАЧИЙ", [("3-A-1", "КОШАЧИЙ", "КОШАЧИЙ")]),
    (
        "4-N",
        "ДОМ",
        [("4-N-1", "ДОМ", "ДОМ"), ("4-N-2", "ЗДАНИЕ", "ЗДАНИЕ"), ("4-N-3", "ЖИЛОЙ ДОМ", "ЖИЛОЙ ДОМ")],
    ),
    ("5-N", "КОТ", [("5-N-1", "КОТ", "КОТ")]),
    ("6-N", "КОТИК", [("6-N-1", "КОТИК", "КОТИК")]),
    ("7-N", "МАШИНА", [("7-N-1", "МАШИНА", "МАШИНА"), ("7-N-2", "АВТОМОБИЛЬ", "АВТОМОБИЛЬ")]),
    ("8-N", "МЯЧ", [("8-N-1", "МЯЧ", "МЯЧ")]),
    ("9-N", "ИГРУШКА", [("9-N-1", "ИГРУШКА", "ИГРУШКА")]),
    ("10-N", "ПАРК", [("10-N-1", "ПАРК", "ПАРК")]),
    ("11-N", "САД", [("11-N-1", "САД", "САД")]),
]
# (hyponym synset, hypernym synset); (source sense, derivative sense)
FIXTURE_HYPERNYMS = [("2-N", "1-N"), ("5-N", "1-N"), ("8-N", "9-N"), ("10-N", "11-N"), ("4-N", "11-N")]
FIXTURE_DERIVATIONS = [("2-N-1", "3-A-1"), ("5-N-1", "6-N-1"), ("5-N-1", "3-A-1")]


def make_ruwordnet_db(
    path, synsets=FIXTURE_SYNSETS, hypernyms=FIXTURE_HYPERNYMS, derivations=FIXTURE_DERIVATIONS
) -> str:
    """Write a RuWordNet-schema SQLite file (the stub entries of seeds_reference.md 6.4/6.5 by default:
    КОШКА -> hypernym ЖИВОТНОЕ, derivation КОШАЧИЙ) and return its path."""
    path = str(path)
    if os.path.exists(path):
        os.remove(path)
    with sqlite3.connect(path) as db:
        db.executescript(RUWORDNET_SCHEMA)
        for synset_id, title, senses in synsets:
            db.execute("INSERT INTO synset VALUES (?, ?, '', ?)", (synset_id, title, synset_id[-1]))
            db.executemany(
                "INSERT INTO sense VALUES (?, ?, ?, ?)", [(s, n, lem, synset_id) for s, n, lem in senses]
            )
        db.executemany("INSERT INTO hypernym_relation VALUES (?, ?)", hypernyms)
        db.executemany("INSERT INTO derivation_relation VALUES (?, ?)", derivations)
    return path


class SqliteRuWordNet:
    """The slice of ``ruwordnet.RuWordNet`` the official code uses (``get_senses``; ``sense.synset.hypernyms``
    with ``.title``; ``sense.derivations`` with ``.name``), as plain objects read with sqlite3."""

    class _Obj:
        def __init__(self, **kw):
            self.__dict__.update(kw)

    def __init__(self, path):
        self.db = sqlite3.connect(path)

    def _synset(self, synset_id):
        title = self.db.execute("SELECT title FROM synset WHERE id = ?", (synset_id,)).fetchone()
        hyper_ids = [
            r[0]
            for r in self.db.execute(
                "SELECT hypernym_id FROM hypernym_relation WHERE hyponym_id = ?", (synset_id,)
            )
        ]
        hypers = [
            self._Obj(title=self.db.execute("SELECT title FROM synset WHERE id = ?", (h,)).fetchone()[0])
            for h in hyper_ids
        ]
        return self._Obj(title=title[0] if title else None, hypernyms=hypers)

    def get_senses(self, lemma):
        q = lemma.upper().strip()
        senses = []
        for sense_id, synset_id in self.db.execute(
            "SELECT id, synset_id FROM sense WHERE lemma = ?", (q,)
        ).fetchall():
            der_ids = [
                r[0]
                for r in self.db.execute(
                    "SELECT derivative_id FROM derivation_relation WHERE source_id = ?", (sense_id,)
                )
            ]
            ders = [
                self._Obj(name=self.db.execute("SELECT name FROM sense WHERE id = ?", (d,)).fetchone()[0])
                for d in der_ids
            ]
            senses.append(self._Obj(synset=self._synset(synset_id), derivations=ders))
        return senses


# ------------------------------------------------------------------------------------------------
# transcription of the official Fusion Brain 2022 code (rumeteor.py, calc_meteor.py, utils.py)
# ------------------------------------------------------------------------------------------------
def _fb_generate_enums(hypothesis, reference, preprocess=str.lower):
    return list(enumerate(map(preprocess, hypothesis))), list(enumerate(map(preprocess, reference)))


def _fb_match_enums(enum_hypothesis_list, enum_reference_list):
    word_match = []
    for i in range(len(enum_hypothesis_list))[::-1]:
        for j in range(len(enum_reference_list))[::-1]:
            if enum_hypothesis_list[i][1] == enum_reference_list[j][1]:
                word_match.append((enum_hypothesis_list[i][0], enum_reference_list[j][0]))
                enum_hypothesis_list.pop(i)
                enum_reference_list.pop(j)
                break
    return word_match, enum_hypothesis_list, enum_reference_list


def _fb_enum_stem_match(enum_hypothesis_list, enum_reference_list, stemmer):
    hyp = [(pair[0], stemmer.stem(pair[1])) for pair in enum_hypothesis_list]
    ref = [(pair[0], stemmer.stem(pair[1])) for pair in enum_reference_list]
    return _fb_match_enums(hyp, ref)


def _fb_enum_wordnetsyn_match(enum_hypothesis_list, enum_reference_list, wordnet):
    word_match = []
    for i in range(len(enum_hypothesis_list))[::-1]:
        word = wordnet.get_senses(enum_hypothesis_list[i][1])
        if word:
            syns = set(s.title.lower() for k in range(len(word)) for s in word[k].synset.hypernyms).union(
                {enum_hypothesis_list[i][1]}
            )
            syns = set(s.name.lower() for k in range(len(word)) for s in word[k].derivations).union(syns)
            for j in range(len(enum_reference_list))[::-1]:
                if enum_reference_list[j][1] in syns:
                    word_match.append((enum_hypothesis_list[i][0], enum_reference_list[j][0]))
                    enum_hypothesis_list.pop(i)
                    enum_reference_list.pop(j)
                    break
    return word_match, enum_hypothesis_list, enum_reference_list


def _fb_count_chunks(matches):
    i, chunks = 0, 1
    while i < len(matches) - 1:
        if matches[i + 1][0] == matches[i][0] + 1 and matches[i + 1][1] == matches[i][1] + 1:
            i += 1
            continue
        i += 1
        chunks += 1
    return chunks


def fb_single_meteor_score(reference, hypothesis, wordnet, stemmer, alpha=0.9, beta=3.0, gamma=0.5):
    enum_hypothesis, enum_reference = _fb_generate_enums(hypothesis, reference)
    translation_length, reference_length = len(enum_hypothesis), len(enum_reference)
    exact, hyp_left, ref_left = _fb_match_enums(enum_hypothesis, enum_reference)
    stem, hyp_left, ref_left = _fb_enum_stem_match(hyp_left, ref_left, stemmer)
    syn, hyp_left, ref_left = _fb_enum_wordnetsyn_match(hyp_left, ref_left, wordnet)
    matches = sorted(exact + stem + syn, key=lambda pair: pair[0])
    matches_count = len(matches)
    try:
        precision = float(matches_count) / translation_length
        recall = float(matches_count) / reference_length
        fmean = (precision * recall) / (alpha * precision + (1 - alpha) * recall)
        chunk_count = float(_fb_count_chunks(matches))
        frag_frac = chunk_count / matches_count
    except ZeroDivisionError:
        return 0.0
    penalty = gamma * frag_frac**beta
    return (1 - penalty) * fmean


def fb_meteor_score(references, hypothesis, wordnet, stemmer, alpha=0.9, beta=3.0, gamma=0.5):
    return max(
        fb_single_meteor_score(r, hypothesis, wordnet, stemmer, alpha, beta, gamma) for r in references
    )


def fb_punct_detokenize(text):
    text = text.strip()
    for ch in ",.!?:;%" + ")]}":
        text = text.replace(ch, "")
    for ch in "([}":
        text = text.replace(ch, "")
    for r in [r'"\s[^"]+\s"', r"'\s[^']+\s'"]:
        for f in re.findall(r, text, re.U):
            text = text.replace(f, f[0] + f[2:-2] + f[-1])
    return text.replace("' s", "'s").replace(" 's", "'s").strip()


def fb_postprocess(ref, hyp):
    import razdel

    ref, hyp = fb_punct_detokenize(ref.strip()), fb_punct_detokenize(hyp.strip())
    hyp = hyp.replace("@@UNKNOWN@@", "<unk>")
    hyp = " ".join(token.text for token in razdel.tokenize(hyp))
    ref = " ".join(token.text for token in razdel.tokenize(ref))
    return ref.lower(), hyp.lower()


def _word_tokenize(text):
    from nltk.tokenize import word_tokenize

    return word_tokenize(text, preserve_line=True)  # sent_tokenize = identity (no punkt offline)


def fb_captioning_scores(preds, refs, wordnet):
    """``calc_meteor`` of evaluation/captioning (max over references with `>`, starting from 0)."""
    import wordtodigits as w2d
    from nltk.stem.snowball import SnowballStemmer

    stemmer = SnowballStemmer("russian")
    scores = []
    for hyp, golds in zip(preds, refs):
        meteor = 0
        for ref in golds:
            ref_p, hyp_p = fb_postprocess(ref, hyp)
            new = fb_meteor_score(
                [_word_tokenize(ref_p)], _word_tokenize(w2d.convert(hyp_p)), wordnet, stemmer
            )
            if new > meteor:
                meteor = new
        scores.append(meteor)
    return scores


FB_MANUAL_MAP = dict(
    MANUAL_MAP_RU
)  # the same manualMap_ru as the AIJ 2022 TextQA script (a copy: setdefault)


def _pos_tag_stub(tokens):
    return [(t, "CD" if re.fullmatch(r"-?\d+(\.\d+)?", t) else "NN") for t in tokens]


def fb_vqa_scores(preds, refs, wordnet):
    """``calc_meteor`` of evaluation/vqa (pymorphy3 for pymorphy2, the POS stand-in for nltk.pos_tag)."""
    import pymorphy3
    import wordtodigits as w2d
    from nltk.stem.porter import PorterStemmer

    morph, stemmer = pymorphy3.MorphAnalyzer(lang="ru"), PorterStemmer()

    def get_lemma(word):
        lemma = morph.parse(word)[0].normal_form
        return FB_MANUAL_MAP.setdefault(lemma, lemma)

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude).lower()

    def distance(x, y):
        if x == 0 and y == 0:
            return 1.0
        if x > y:
            x, y = y, x
        return x / y

    def get_meteor(pred, true):
        hypothesis = _word_tokenize(w2d.convert(pred))
        reference = [_word_tokenize(t) for t in true]
        if len(reference) == 1 and len(reference[0]) == 1 and reference[0][0].isnumeric():
            for tok, pos in _pos_tag_stub(hypothesis):
                if pos == "CD":
                    try:
                        return distance(float(tok), float(reference[0][0]))
                    except Exception:
                        continue
            return 0
        return fb_meteor_score(reference, hypothesis, wordnet, stemmer, gamma=0)

    scores = []
    for hyp, golds in zip(preds, refs):
        meteor = 0
        hyp = get_lemma(remove_punc(hyp))
        for gold in golds:
            new = get_meteor(hyp, [get_lemma(remove_punc(gold))])
            if new > meteor:
                meteor = new
        scores.append(meteor)
    return scores


# ------------------------------------------------------------------------------------------------
# timing
# ------------------------------------------------------------------------------------------------
NLTK_OPTIONS = dict(
    preprocess="none",
    number_words="none",
    tokenizer="nltk",
    stemmer="porter",
    synonyms="wordnet",
    alpha=0.9,
    beta=3.0,
    gamma=0.5,
    numeric="none",
    reference_agg="max",
)


def nltk_options(**changes) -> dict:
    """NLTK_OPTIONS for the core, with the WordNet reader the metric finds (multimodal_metrics.resources.wordnet:
    NLTK's data path, else Debian's files), and ``changes``."""
    return dict(NLTK_OPTIONS, wordnet=mm_wordnet.load_wordnet(), **changes)


def nltk_peer(preds, refs):
    from nltk.translate.meteor_score import meteor_score

    return [meteor_score([_word_tokenize(r) for r in rs], _word_tokenize(p)) for p, rs in zip(preds, refs)]


def core_presets() -> dict:
    """The metric's PRESETS (the library's ``multimodal_metrics.ru_meteor.PRESETS``: the scoring options
    of every preset, the core's keyword arguments but ``corpus_score``)."""
    from multimodal_metrics.ru_meteor import PRESETS

    return {name: dict(values) for name, values in PRESETS.items()}
