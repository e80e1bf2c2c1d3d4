"""CodeBLEU's data flow: the per-language rule tables, the work limit and the normalised data-flow items.

``data_flow(tree, lang)`` runs the walk (``dataflow_walk.Flow``) with the rules of ``lang`` and
returns the items the data-flow match compares: edges kept when they have parents or are parents,
merged by position, variable names numbered by first appearance (the reference's ``var_i``).

Pure standard-library code (a component of :mod:`multimodal_metrics.codebleu.corpus`).
"""

import operator

from .dataflow_walk import DataflowLimit, Flow, collect_positions
from .trees import FlatTree, dedupe

# ----------------------------------------------------------------------------------------------
# Data-flow graphs (CodeXGLUE parser/DFG.py semantics, one rule table per language)
# ----------------------------------------------------------------------------------------------
# One rule table per language: RULES[lang] is _DEFAULT_RULES with the language's own entries.
# defs / assigns / incs / ifs / fors / efors / whiles: the node types of each construct; do_first: types
# whose node is walked before its siblings. def_style, assign_style, for_style, efor_style: how the walk
# reads those nodes (see dataflow_walk.Flow). if-style: "python" (elif/else clauses use the incoming
# states), "plain" (ruby: children whose type is an if-type use the incoming states), "flag" (from the
# first if-type child on, incoming states). merge_incoming: also merge the incoming states after the
# branches (go, javascript, php).
_DEFAULT_RULES = dict(
    copy_states=True,
    def_style="fields",
    def_fields=("name", "value"),
    assign_style="simple",
    incs=(),
    if_style="flag",
    if_tag=True,
    merge_incoming=False,
    fors=("for_statement",),
    for_style="c",
    for_marker=None,
    efors=(),
    efor_style=None,
    whiles=("while_statement",),
    do_first=(),
)
_LANGUAGE_RULES = {
    "python": dict(
        defs=("default_parameter",),
        assigns=("assignment", "augmented_assignment", "for_in_clause"),
        assign_style="python",
        ifs=("if_statement",),
        if_style="python",
        for_style="python",
        do_first=("for_in_clause",),
    ),
    "java": dict(
        defs=("variable_declarator",),
        assigns=("assignment_expression",),
        incs=("update_expression",),
        ifs=("if_statement", "else"),
        for_marker="local_variable_declaration",
        efors=("enhanced_for_statement",),
        efor_style=("name", "value", "body"),
    ),
    "ruby": dict(
        copy_states=False,
        defs=("keyword_parameter",),
        assigns=("assignment", "operator_assignment"),
        assign_style="ruby",
        ifs=("if", "elsif", "else", "unless", "when"),
        if_style="plain",
        fors=("for",),
        for_style="ruby",
        whiles=("while_modifier", "until"),
    ),
    "go": dict(
        defs=("var_spec",),
        assigns=("assignment_statement",),
        incs=("inc_statement",),
        ifs=("if_statement", "else"),
        merge_incoming=True,
        for_style="go",
        whiles=(),
    ),
    "php": dict(
        defs=("simple_parameter",),
        def_fields=("name", "default_value"),
        assigns=("assignment_expression", "augmented_assignment_expression"),
        incs=("update_expression",),
        ifs=("if_statement", "else_clause"),
        if_tag=False,
        merge_incoming=True,
        for_marker="assignment_expression",
        efors=("foreach_statement",),
        efor_style="php",
    ),
    "javascript": dict(
        defs=("variable_declarator",),
        assigns=("assignment_pattern", "augmented_assignment_expression"),
        incs=("update_expression",),
        ifs=("if_statement", "else"),
        merge_incoming=True,
        for_marker="variable_declaration",
    ),
    "rust": dict(
        defs=("function_item",),
        def_style="rust",
        def_fields=None,
        assigns=("assignment_expression", "compound_assignment_expr", "let_expression"),
        ifs=("if_expression", "if_let_expression", "match_expression", "else"),
        fors=("for_expression",),
        for_marker="local_variable_declaration",
        efors=("for_each_statement",),
        efor_style=("left", "right", "body"),
        whiles=("while_expression", "while_let_expression", "loop_expression"),
    ),
}
# C#: Java's rules (CodeXGLUE's DFG_csharp follows its DFG_java) but for these
_LANGUAGE_RULES["c_sharp"] = dict(
    _LANGUAGE_RULES["java"],
    def_style="csharp",
    def_fields=None,
    incs=("postfix_unary_expression",),
    efors=("for_each_statement",),
    efor_style=("left", "right", "body"),
)
RULES = {lang: {**_DEFAULT_RULES, **rules} for lang, rules in _LANGUAGE_RULES.items()}
# C and C++ use the C# rules on their own grammars (XLCoST convention, kept by PyPI codebleu).
RULES["c"] = RULES["c_sharp"]
RULES["cpp"] = RULES["c_sharp"]


def _special_types(rules) -> frozenset:
    return frozenset(
        t for key in ("defs", "assigns", "incs", "ifs", "fors", "efors", "whiles") for t in rules[key]
    )


SPECIAL_TYPES = {lang: _special_types(rules) for lang, rules in RULES.items()}
assert all(
    set(rules["do_first"]) <= SPECIAL_TYPES[lang] for lang, rules in RULES.items()
)  # see flatten_tree_sitter

# Data-flow cost limit: work units (tokens visited, edges and parent names written, variable-state
# updates) per token of the snippet, plus a floor. The reference's cost is not linear in the size of
# the code: each loop body is processed twice (nested loops: 2^depth), `a = b = c = ... = z` makes
# every target come from every later name, and an increment relates every variable to every other.
# Ordinary code stays far below the limit (measured: at most ~30 units per token on the test corpora);
# past it the snippet's data flow is left out (the reference's outcome when its recursion fails) and
# the caller warns.
DATAFLOW_WORK_PER_TOKEN = 200
DATAFLOW_WORK_FLOOR = 200_000

_POS = operator.itemgetter(1)  # an edge's position, and its parents' positions
_PARENT_POS = operator.itemgetter(4)


def data_flow(tree: FlatTree, lang: str, budget: int | None = None):
    """(normalised data-flow items ``(i, relation, (j, ...))``, limited) of a parsed snippet.

    Edges that neither have parents nor are parents are dropped; edges at the same position are
    merged; names become 0, 1, ... in order of first appearance (the reference's ``var_0, var_1, ...``:
    the numbers match exactly where those names do). Any failure of the
    extraction (e.g. a node without the expected fields in broken code) gives no data flow, as in the
    reference code. ``budget``: work units allowed (default: DATAFLOW_WORK_PER_TOKEN per token + the
    floor); past it, no data flow and ``limited`` is True.
    """
    if budget is None:
        budget = DATAFLOW_WORK_PER_TOKEN * len(tree.types) + DATAFLOW_WORK_FLOOR
    try:
        flow = Flow(RULES[lang], tree, budget)
    except Exception:
        return [], False
    try:
        flow.run(tree.root)
        entries = flow.out
    except DataflowLimit:
        return [], True
    except Exception:
        entries = []
    if flow.left < 0:  # past the limit in work counted without a check (see Flow.generic)
        return [], True
    return _items(entries), False


def _items(entries) -> list:
    """The normalised items of the extracted edges ``(name, position, relation, parent names, parent
    positions)`` (see ``data_flow``): sorted by position (stably), edges kept when they have parents or
    their position is a parent's, edges at one position merged, names numbered by first appearance."""
    entries.sort(key=_POS)
    parented = [entry for entry in entries if entry[4] is not None]
    if not parented:
        return []
    used = set(map(_POS, parented))
    collect_positions(map(_PARENT_POS, parented), used)
    kept = [entry for entry in entries if entry[1] in used]
    if len(set(map(_POS, kept))) < len(kept):
        kept = _merge_positions(kept)
    # names become 0, 1, ... (the reference's var_0, var_1, ...) in order of first appearance: an edge's
    # parents, then its own name
    names = {}
    number = names.setdefault
    items = []
    append = items.append
    for name, _, relation, parents, _ in kept:
        if parents:
            if len(parents) == 1:  # the usual case
                parents = (number(parents[0], len(names)),)
            else:
                parents = tuple([number(parent, len(names)) for parent in parents])
        append((number(name, len(names)), relation, parents))
    return items


def _merge_positions(entries) -> list:
    """Edges at one position (adjacent in ``entries``) merged into one: the last one's name and
    relation, the parents of all (de-duplicated, first seen order)."""
    merged = []
    at = None
    for entry in entries:
        if entry[1] != at:
            merged.append(entry)
            at = entry[1]
            continue
        last = merged[-1]
        parents = last[3] if len(last) == 6 else list(last[3])
        parents.extend(entry[3])
        merged[-1] = (entry[0], at, entry[2], parents, None, True)
    return [(e[0], e[1], e[2], tuple(dedupe(e[3])), None) if len(e) == 6 else e for e in merged]
