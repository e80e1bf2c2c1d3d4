"""CodeBLEU (Ren et al., 2020) as pure functions: no evaluate, no state.

    CodeBLEU = a * BLEU + b * BLEU_weighted + c * Match_ast + d * Match_df      (default 0.25 each)

Reference implementation: microsoft/CodeXGLUE ``Code-Code/code-to-code-trans/evaluator/CodeBLEU``
(copied by the AIJ 2021 Fusion Brain kit and by the PyPI ``codebleu`` package, k4black/codebleu).
Everything is corpus-level (micro-averaged); a per-example score is the same formula on a corpus of one.

* BLEU: NLTK-style corpus BLEU-4 on ``str.split()`` tokens. Modified precision clipped by the max
  count over the references, per-sentence denominator ``max(1, #hyp n-grams)``, numerators and
  denominators summed over the corpus; BP = 1 if c > r, 0 if c = 0, else exp(1 - r/c) with r the sum
  of the closest reference lengths (ties -> shorter); 0 when no unigram matches; Chen & Cherry
  method 1 smoothing (a zero numerator becomes epsilon = 0.1).
* Weighted BLEU: same skeleton, but p_n is a *recall*: for every reference, sum over its n-grams of
  min(count_ref, count_hyp) over max(1, sum count_ref), summed over references; for n = 1 every
  count is weighted by 1 (keyword of the language) or 0.2 (any other token), keyed by reference tokens.
* Match_ast: s-expressions of the root and of every node with children (tree-sitter); reference
  subtrees whose s-expression occurs in the candidate (membership, unclipped, as in the reference
  code) or min(count_ref, count_cand) (``ast_clipping=True``, the paper's Count_clip) over the number
  of reference subtrees.
* Match_df: the CodeXGLUE data-flow graph of each snippet (per-language rules below), edges kept when
  they have parents or are parents, merged by position, variable names normalised to ``var_i`` by
  first appearance; reference items found in the candidate (multiset intersection) over the number of
  reference items. A corpus without reference data flow scores 0 (the reference code warns; the PyPI
  package crashes nothing but adds ``or 1`` in the combination, see ``missing_dataflow``).

Determinism: wherever the reference code builds ``list(set(names))`` (loop merging, position merging)
this module keeps first-seen order instead, so results never depend on PYTHONHASHSEED.

The code is split by concern: :mod:`.keywords` (keyword lists, comment removal), :mod:`.trees` (tree-sitter
parsers, the flat tree, subtree ids), :mod:`.dataflow` and :mod:`.dataflow_walk` (data-flow rules and
extraction), :mod:`.ngrams` (BLEU and the weighted n-gram match), :mod:`.corpus` (the glue:
``corpus_codebleu``). This module re-exports their names (it was ``metrics/codebleu/_codebleu_core.py``).
"""

from .corpus import (  # noqa: F401 (re-exported)
    KEYS,
    MISSING_DATAFLOW,
    STATS_COLUMNS,
    Snippet,
    _corpus_codebleu,
    _ratio,
    combine,
    corpus_codebleu,
    dataflow_stats,
    parse_flat,
    sufficient_stats,
    syntax_stats,
)
from .dataflow import (  # noqa: F401 (re-exported)
    _PARENT_POS,
    _POS,
    _RULES,
    _SPECIAL,
    DATAFLOW_WORK_FLOOR,
    DATAFLOW_WORK_PER_TOKEN,
    _items,
    _merge_positions,
    _special_types,
    data_flow,
)
from .dataflow_walk import (  # noqa: F401 (re-exported)
    _GENERATOR,
    _HANDLERS,
    _MISSING,
    DataflowLimit,
    _first_parents,
    _Flow,
    _handlers,
    _merge_loop,
    _positions,
    _union,
)
from .keywords import (  # noqa: F401 (re-exported)
    _C_OPENER,
    _PY_KEYWORDS_2020,
    _PY_TOKENIZE_SENSITIVE,
    _QUOTE_STOP,
    COMMENT_RULES,
    KEYWORD_SETS,
    KEYWORDS,
    LANGUAGES,
    _drop_blank_lines,
    _python_plain_tokenize_ok,
    _quoted_end,
    _strip_c_like,
    _strip_python,
    keywords_for,
    remove_comments,
)
from .ngrams import (  # noqa: F401 (re-exported)
    _POSITIVE,
    EPSILON,
    OTHER_TOKEN_WEIGHT,
    _brevity_penalty,
    _closest_ref_length,
    _combine,
    _corpus,
    _overlap,
    ngram_counts,
    ngram_stats,
)
from .trees import (  # noqa: F401 (re-exported)
    _GRAMMAR_MODULES,
    _NAMES,
    _PARSERS,
    _SEXP_TOKEN,
    _STRING_TYPES,
    MAX_PRINT_DEPTH,
    FlatTree,
    Interner,
    _dedupe,
    _flat_leaf_root,
    _grammar_names,
    _intern,
    _new_node,
    _Node,
    _printed_id,
    _span_text,
    flatten_tree_sitter,
    get_parser,
    new_interner,
)

__all__ = [
    "COMMENT_RULES",
    "DATAFLOW_WORK_FLOOR",
    "DATAFLOW_WORK_PER_TOKEN",
    "DataflowLimit",
    "EPSILON",
    "FlatTree",
    "Interner",
    "KEYS",
    "KEYWORDS",
    "KEYWORD_SETS",
    "LANGUAGES",
    "MAX_PRINT_DEPTH",
    "MISSING_DATAFLOW",
    "OTHER_TOKEN_WEIGHT",
    "STATS_COLUMNS",
    "Snippet",
    "combine",
    "corpus_codebleu",
    "data_flow",
    "dataflow_stats",
    "flatten_tree_sitter",
    "get_parser",
    "keywords_for",
    "new_interner",
    "ngram_counts",
    "ngram_stats",
    "parse_flat",
    "remove_comments",
    "sufficient_stats",
    "syntax_stats",
]
