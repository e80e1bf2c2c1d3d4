"""codebleu's mergeable state: merged shards equal ``score`` on every preset bit for bit (corpus BLEU of
pooled counts, pooled syntax and data-flow ratios, per-example dicts, intervals, signature with the
grammars); the corpus-level warning comes from ``result``, the parse warnings from ``update``."""

import random
import warnings

import pytest
from state_checks import StateCase, check_merges_equal_score, check_round_trip

from multimodal_metrics import codebleu

PYTHON = [
    "def add(a, b):\n    return a + b",
    "def f(x):\n    y = x * 2\n    return y",
    "for i in range(10):\n    print(i)",
    "x = 1\ny = x + 2",
    "class A:\n    def m(self):\n        return self.v",
    "def broken(:\n    pass",
    "import os\nprint(os.getcwd())",
]
JAVA = [
    "int add(int a, int b) { return a + b; }",
    "int f(int x) { int y = x * 2; return y; }",
    "for (int i = 0; i < 10; i++) { System.out.println(i); }",
    'String s = "a"; // comment',
    "void g() { }",
]


def code_case(snippets, n=40, seed=5, **options) -> StateCase:
    rng = random.Random(seed)
    predictions = [rng.choice(snippets) for _ in range(n)]
    references = [[rng.choice(snippets) for _ in range(rng.randint(1, 2))] for _ in range(n)]
    return StateCase(codebleu, {"predictions": predictions, "references": references}, options)


@pytest.mark.parametrize(
    "options",
    [
        {"preset": "default", "lang": "python"},
        {"preset": "default", "lang": "java"},
        {"preset": "paper", "lang": "java"},
        {"preset": "pypi", "lang": "python"},
        {"preset": "fusion_brain_2021"},
        {"preset": "default", "lang": "python", "ast_clipping": True, "missing_dataflow": "one"},
    ],
    ids=lambda o: "-".join(map(str, o.values())),
)
def test_merged_states_equal_score(options):
    case = code_case(JAVA if options.get("lang") == "java" else PYTHON, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # parse warnings of the broken snippet, in every shard
        check_merges_equal_score(case, splits=2)
        check_round_trip(case)


def test_no_dataflow_warning_comes_once_from_result():
    case = code_case(["x", "print(x)"], n=6, lang="python")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        st = codebleu.state(lang="python").update(**case.take(range(3)), index=[0, 1, 2])
        st.update(**case.take(range(3, 6)), index=[3, 4, 5])
    assert not [w for w in caught if "no data flow" in str(w.message)]
    with pytest.warns(UserWarning, match="no data flow was extracted") as record:
        st.result()
    assert record[0].filename == __file__  # points at the caller of result()


def test_states_with_other_grammars_are_refused():
    a = codebleu.state(lang="python").update(["x = 1"], ["x = 1"], index=[0])
    b = codebleu.state(lang="python").update(["y = 2"], ["y = 2"], index=[1])
    b.context = {**a.context, "grammar": "other.so@000000"}
    with pytest.raises(ValueError, match="'grammar' is 'other.so@000000' in one"):
        a.merge(b)
    with pytest.raises(ValueError, match="lang"):
        codebleu.state()
