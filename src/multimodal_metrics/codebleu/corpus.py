"""CodeBLEU (Ren et al., 2020) of a corpus: the formula, and the glue of its components (parse once per
snippet, n-gram, AST and data-flow counts per example, corpus scores, per-example scores, sufficient
statistics for the intervals).

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
the code here keeps first-seen order instead, so results never depend on PYTHONHASHSEED.

The components live by concern: :mod:`.keywords` (keyword lists, comment removal), :mod:`.trees`
(tree-sitter parsers, the flat tree, subtree ids), :mod:`.dataflow` and :mod:`.dataflow_walk` (data-flow
rules and extraction), :mod:`.ngrams` (BLEU and the weighted n-gram match). Pure standard-library code at
import.
"""

import functools
import gc
import itertools
from collections import Counter
from itertools import repeat

from .dataflow import RULES, SPECIAL_TYPES, data_flow
from .keywords import keywords_for, remove_comments
from .ngrams import clipped_overlap, corpus_bleu, ngram_counts, ngram_stats
from .trees import FlatTree, flatten_tree_sitter, get_parser, grammar_names, new_interner

MISSING_DATAFLOW = ("zero", "one", "zero_is_one")


class Snippet:
    """Everything CodeBLEU needs from one code string, computed once: one parse, one walk.

    ``subtrees``: subtree ids (see FlatTree); ``flow``: normalised data-flow items; ``parse_error``:
    the parse holds ERROR/MISSING nodes; ``dataflow_limited``: the data-flow extraction exceeded its
    work limit and ``flow`` is empty; ``unprinted``: subtrees over a hidden MISSING token nested too
    deep for tree-sitter's printer, compared without that token."""

    __slots__ = (
        "subtrees",
        "subtree_set",
        "subtree_counts",
        "flow",
        "flow_counts",
        "parse_error",
        "dataflow_limited",
        "unprinted",
    )

    def __init__(
        self,
        code: str,
        lang: str,
        comment_rule: str,
        strip: bool,
        intern,
        comment_passes: int = 1,
        trees=None,
    ):
        if strip:
            code = code.strip()
        clean = code
        for _ in range(comment_passes):
            clean = remove_comments(clean, lang, comment_rule)
        tree = parse_flat(clean, lang, intern, trees)
        self.parse_error = tree.has_error
        self.unprinted = tree.unprinted
        self.subtrees = tree.subtrees
        self.subtree_set = None
        self.subtree_counts = None
        done = getattr(tree, "dataflow", None)  # computed with the tree (the runtime of 2020's walker)
        self.flow, self.dataflow_limited = done if done is not None else data_flow(tree, lang)
        self.flow_counts = None


def parse_flat(code: str, lang: str, intern, trees=None) -> FlatTree:
    """Parse ``code`` with the pinned tree-sitter grammar of ``lang`` and flatten it.

    ``trees``: another tree source (codebleu's ``grammar_library``: the tree-sitter runtime of 2020), an
    object with ``parse(lang, data: bytes) -> root node`` (py-tree-sitter's node and cursor attributes)
    and ``subtree_ids(root, intern) -> (ids, exact)``: one id per subtree (the root and every node with
    children), equal exactly when the reference's ``node.sexp()`` strings are; ``exact`` False when
    some could not be printed (counted like ``unprinted``). Tokens and data flow come from the same
    flattening as for the wheels. A source with ``flatten(lang, code, intern)`` (the runtime of 2020 with its
    C walker, ``legacy_walk``) gives the flat tree with its subtree ids and its data flow (``dataflow``: items
    as ids of a table on ``intern``, and whether the work limit was passed) in one call, or None to take the
    path above."""
    if trees is None:
        parser = get_parser(lang)
        root = parser.parse(code.encode("utf8")).root_node
        return flatten_tree_sitter(
            root,
            code,
            SPECIAL_TYPES[lang],
            intern,
            grammar_names(lang, parser.language),
            RULES[lang]["do_first"],
        )
    flatten = getattr(trees, "flatten", None)
    if flatten is not None:  # the whole walk in one C call (legacy_walk), where the source has it
        tree = flatten(lang, code, intern)
        if tree is not None:
            return tree
    root = trees.parse(lang, code.encode("utf8"))
    tree = flatten_tree_sitter(root, code, SPECIAL_TYPES[lang], intern, first_types=RULES[lang]["do_first"])
    tree.subtrees, exact = trees.subtree_ids(root, intern)
    tree.unprinted = 0 if exact else max(1, tree.unprinted)
    return tree


# ----------------------------------------------------------------------------------------------
# AST and data-flow components
# ----------------------------------------------------------------------------------------------
def syntax_stats(hyp: Snippet, ref: Snippet, clipped: bool):
    """(matched reference subtrees, reference subtrees) for one candidate/reference pair."""
    if clipped:
        if hyp.subtree_counts is None:
            hyp.subtree_counts = Counter(hyp.subtrees)
        if ref.subtree_counts is None:
            ref.subtree_counts = Counter(ref.subtrees)
        return clipped_overlap(
            ref.subtree_counts, hyp.subtree_counts, len(ref.subtrees), len(hyp.subtrees)
        ), len(ref.subtrees)
    if hyp.subtree_set is None:
        hyp.subtree_set = frozenset(hyp.subtrees)
    return sum(map(hyp.subtree_set.__contains__, ref.subtrees)), len(ref.subtrees)


def dataflow_stats(hyp: Snippet, ref: Snippet):
    """(reference data-flow items found in the candidate, clipped; reference items)."""
    if not ref.flow:
        return 0, 0
    if hyp.flow_counts is None:
        hyp.flow_counts = Counter(hyp.flow)
    if ref.flow_counts is None:
        ref.flow_counts = Counter(ref.flow)
    return clipped_overlap(ref.flow_counts, hyp.flow_counts, len(ref.flow), len(hyp.flow)), len(ref.flow)


def _ratio(pairs):
    match = sum(m for m, _ in pairs)
    total = sum(t for _, t in pairs)
    return (match / total if total else 0.0), total


def combine(components, weights, missing_dataflow: str, dataflow_total: int) -> float:
    """a*ngram + b*weighted + c*syntax + d*dataflow with the ``missing_dataflow`` convention:
    "zero": as measured (0 when the references have no data flow; CodeXGLUE/AIJ);
    "one": 1 when the references have no data flow; "zero_is_one": any data-flow score of 0 counts as 1
    (PyPI codebleu's ``dataflow_match_score or 1``)."""
    ngram, weighted, syntax, dataflow = components
    if missing_dataflow == "one" and dataflow_total == 0:
        dataflow = 1.0
    elif missing_dataflow == "zero_is_one" and dataflow == 0:
        dataflow = 1.0
    a, b, c, d = weights
    return a * ngram + b * weighted + c * syntax + d * dataflow


KEYS = ("codebleu", "ngram_match", "weighted_ngram_match", "syntax_match", "dataflow_match")


def _cyclic_gc_paused(function):
    """``function`` run with the cyclic garbage collector paused: the work allocates many small acyclic
    objects, and pausing avoids repeated full scans of everything else the process holds (nothing here
    forms a cycle)."""

    @functools.wraps(function)
    def paused(*args, **kwargs):
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            return function(*args, **kwargs)
        finally:
            if gc_was_enabled:
                gc.enable()

    return paused


@_cyclic_gc_paused
def corpus_codebleu(
    predictions,
    references,
    lang="python",
    weights=(0.25, 0.25, 0.25, 0.25),
    keywords="pypi",
    remove_comments="lang",
    strip=True,
    missing_dataflow="zero",
    ast_clipping=False,
    per_example=False,
    trees=None,
):
    """CodeBLEU of a corpus: returns (scores dict with KEYS, per-example list of dicts or None, notes).

    ``references[i]`` is a list of reference strings. ``notes`` lists the indices of snippets that did
    not parse cleanly and whether the corpus has no reference data flow (the caller turns them into
    warnings). ``remove_comments``/``strip`` follow the PyPI package when "lang"/True; the candidate is
    cleaned once per reference (as the reference code re-cleans it in its reference loop). ``trees``: an
    optional tree source replacing the grammar wheels (see ``parse_flat``).
    """
    kw = keywords_for(lang, keywords)
    predictions = list(predictions)
    references = [list(refs) for refs in references]  # each iterated twice below
    # Each code string is tokenised and parsed once, and its entry kept only while a later example
    # still uses it (uses counted up front): memory is then reused while it is warm, and a corpus of
    # distinct strings never holds more than one example's entries.
    token_uses = Counter(predictions)
    token_uses.update(itertools.chain.from_iterable(references))
    token_cache = {}
    snippet_uses = Counter(zip(itertools.chain.from_iterable(references), repeat(1)))
    for pred, refs in zip(predictions, references):
        for j in range(len(refs)):
            snippet_uses[(pred, j + 1 if remove_comments != "none" else 1)] += 1
    cache = {}

    def tokens(code):  # (token count, n-gram counts) of a code string
        entry = token_cache.pop(code, None)
        if entry is None:
            toks = code.split()  # (stripping first, when ``strip``, gives the same tokens)
            entry = (len(toks), ngram_counts(toks))
        token_uses[code] -= 1
        if token_uses[code]:
            token_cache[code] = entry
        return entry

    intern = new_interner()

    def snippet(code, passes=1):
        key = (code, passes)
        snip = cache.pop(key, None)
        if snip is None:
            snip = Snippet(code, lang, remove_comments, strip, intern, passes, trees)
        snippet_uses[key] -= 1
        if snippet_uses[key]:
            cache[key] = snip
        return snip

    rows = []
    bad_predictions, bad_references = [], []
    limited_predictions, limited_references = [], []
    unprinted = []
    for i, (pred, refs) in enumerate(zip(predictions, references)):
        hyp_len, hyp_counts = tokens(pred)
        ref_lens, ref_counts = zip(*map(tokens, refs)) if refs else ((), ())
        b, w = ngram_stats(hyp_counts, ref_counts, hyp_len, ref_lens, kw)
        del hyp_counts, ref_counts  # freed now (when not cached), their memory reused by the parse
        syn, df = [], []
        limited = False
        for j, ref in enumerate(refs):
            hyp_snip = snippet(pred, j + 1 if remove_comments != "none" else 1)
            ref_snip = snippet(ref)
            if hyp_snip.parse_error and i not in bad_predictions[-1:]:
                bad_predictions.append(i)
            if ref_snip.parse_error and i not in bad_references[-1:]:
                bad_references.append(i)
            if (hyp_snip.unprinted or ref_snip.unprinted) and i not in unprinted[-1:]:
                unprinted.append(i)
            if hyp_snip.dataflow_limited or ref_snip.dataflow_limited:
                if hyp_snip.dataflow_limited and i not in limited_predictions[-1:]:
                    limited_predictions.append(i)
                if ref_snip.dataflow_limited and i not in limited_references[-1:]:
                    limited_references.append(i)
                limited = True
            syn.append(syntax_stats(hyp_snip, ref_snip, ast_clipping))
            df.append(dataflow_stats(hyp_snip, ref_snip))
        rows.append((b, w, syn, df, limited))
        hyp_snip = ref_snip = None  # freed now (when not cached), before the next example's work

    def score(subset):
        ngram = corpus_bleu([row[0] for row in subset])
        weighted = corpus_bleu([row[1] for row in subset])
        syntax, _ = _ratio([p for row in subset for p in row[2]])
        dataflow, df_total = _ratio([p for row in subset for p in row[3]])
        comps = (ngram, weighted, syntax, dataflow)
        total = combine(comps, weights, missing_dataflow, df_total)
        return dict(zip(KEYS, (float(total), *map(float, comps)))), df_total

    scores, df_total = score(rows)
    per = [dict(score([row])[0], dataflow_limited=row[4]) for row in rows] if per_example else None
    notes = {
        "bad_predictions": bad_predictions,
        "bad_references": bad_references,
        "no_dataflow": df_total == 0,
        "limited_predictions": limited_predictions,
        "limited_references": limited_references,
        "unprinted": unprinted,
    }
    notes["stats"] = sufficient_stats(rows)
    return scores, per, notes


STATS_COLUMNS = (
    *(f"ngram_num{k}" for k in range(1, 5)), *(f"ngram_den{k}" for k in range(1, 5)), "ngram_ref_len", "hyp_len",
    *(f"weighted_num{k}" for k in range(1, 5)), *(f"weighted_den{k}" for k in range(1, 5)), "weighted_ref_len",
    "weighted_hyp_len", "syntax_match", "syntax_total", "dataflow_match", "dataflow_total",
)  # fmt: skip


def sufficient_stats(rows) -> list[list[float]]:
    """One row of :data:`STATS_COLUMNS` per example: the counts whose column sums give the corpus
    scores (BLEU and weighted n-gram counts and lengths, syntax and data-flow matches over the
    example's references), for recomputing the scores on resampled examples."""
    out = []
    for bleu, weighted, syntax, dataflow, *_ in rows:
        row = []
        for nums, dens, ref_len, hyp_len in (bleu, weighted):
            row += [*nums, *dens, ref_len, hyp_len]
        row += [sum(m for m, _ in syntax), sum(t for _, t in syntax)]
        row += [sum(m for m, _ in dataflow), sum(t for _, t in dataflow)]
        out.append(row)
    return out


def corpus_scores(stats, weights, missing_dataflow: str) -> tuple[dict, float]:
    """(scores dict with KEYS, data-flow total) of per-example rows of :data:`STATS_COLUMNS` in example
    order: the pooled formulas of :func:`corpus_codebleu` (corpus BLEU of the pooled n-gram counts, pooled
    syntax and data-flow match ratios, combined with ``weights``), for rows kept apart and merged later."""
    ngram = corpus_bleu([(row[0:4], row[4:8], row[8], row[9]) for row in stats])
    weighted = corpus_bleu([(row[10:14], row[14:18], row[18], row[19]) for row in stats])
    syntax, _ = _ratio([(row[20], row[21]) for row in stats])
    dataflow, df_total = _ratio([(row[22], row[23]) for row in stats])
    comps = (ngram, weighted, syntax, dataflow)
    total = combine(comps, weights, missing_dataflow, df_total)
    return dict(zip(KEYS, (float(total), *map(float, comps)))), df_total
