"""The data-flow walk: one CodeXGLUE ``DFG_<lang>`` extraction over a flat tree, without recursion.

``Flow`` runs the rules of one language (``dataflow.RULES``) over a ``FlatTree`` and writes the edges
``(name, position, relation, parent names, parent positions)``; ``multimodal_metrics.codebleu.dataflow``
normalises them. ``DataflowLimit`` ends a walk past its work limit.

Pure standard-library code (a component of :mod:`multimodal_metrics.codebleu.corpus`).
"""

import itertools
import operator
import types

from .trees import FlatTree


class DataflowLimit(Exception):
    """Raised inside the extraction when a snippet exceeds its work limit."""


_MISSING = object()
_GENERATOR = types.GeneratorType


def _union(values):
    """Union of position sets. A position set is an int (one position), a tuple of position sets, or
    None (empty); unions are built lazily, as a DAG, and only flattened once (``collect_positions``)."""
    first = values[0]
    if len(values) == 1:
        return first
    ints, objects, unique = set(), set(), []
    for value in values:
        if value.__class__ is int:
            if value not in ints:
                ints.add(value)
                unique.append(value)
        elif id(value) not in objects:
            objects.add(id(value))
            unique.append(value)
    return unique[0] if len(unique) == 1 else tuple(unique)


def collect_positions(sets, into: set) -> None:
    """Add every position of the position sets ``sets`` to ``into`` (each shared set visited once)."""
    seen = set()
    stack = list(sets)
    while stack:
        item = stack.pop()
        if item.__class__ is int:
            into.add(item)
        elif item is not None and id(item) not in seen:
            seen.add(id(item))
            stack.extend(item)


def _merge_loop(entries):
    """Entries seen on both passes of a loop merged by (name, position, relation): the parent names
    of merged entries concatenated and de-duplicated (first seen order), parent positions united."""
    groups = {}  # key -> its only entry, or the list of its entries
    for entry in entries:
        key = entry[:3]
        group = groups.get(key)
        if group is None:
            groups[key] = entry
        elif group.__class__ is tuple:
            groups[key] = [group, entry]
        else:
            group.append(entry)
    if len(groups) == len(entries):
        return entries
    merged = []
    for group in groups.values():
        if group.__class__ is tuple:
            merged.append(group)
            continue
        names = []
        par_pos = None
        for entry in group:
            names.extend(entry[3])
            other = entry[4]
            par_pos = other if par_pos is None else par_pos if other is None else (par_pos, other)
        first = group[0]
        merged.append((first[0], first[1], first[2], tuple(dict.fromkeys(names)), par_pos))
    return merged


class Flow:
    """One data-flow extraction (CodeXGLUE DFG_<lang> semantics) over a flat tree, without recursion.

    The reference is a recursive function f(node, states) -> (edges, states) that copies the
    variable states (name -> positions of the last definitions) on entry, so states behave as values.
    Here one dict ``S`` is updated in place with an undo journal ``J``: an if-statement, the only rule
    that reuses its incoming states after a child has changed them, runs each branch, records what it
    changed, undoes it, and merges the changes; the merged states differ from the incoming ones only
    in the changed names, so no rule copies the whole state. Handlers are generators that yield a
    child with a rule to the driver (``run``) instead of calling it; edges are appended to one list
    ``out`` and sorted by position once at the end (the reference's stable sorts at every level give
    the same order). Position lists are lazy unions (``_union``). Rule-free subtrees are processed as
    a flat token run.
    """

    def __init__(self, rules, tree: FlatTree, budget: int):
        self.r = rules
        self.handlers = _handlers(rules)
        self.pos, self.text = tree.token_code()
        self.types = types = tree.types
        # the reference's variables: tokens whose text differs from their type (identifiers, literals)
        self.is_var = is_var = list(map(operator.ne, types, self.text))
        self.vars = list(itertools.compress(range(len(types)), is_var))  # their indices
        self.before = list(itertools.accumulate(is_var, initial=0))  # variables before each token
        do_first = rules["do_first"]
        if not do_first:
            self.firsts = None
        elif tree.first_parents is not None and frozenset(do_first).isdisjoint(types):
            self.firsts = tree.first_parents
        else:  # not collected by the flattening, or a token of such a type
            self.firsts = _first_parents(tree.root, types, do_first)
        self.S = {}
        self.J = []
        self.out = []
        self.folded = []  # (index in out, edges of the reference it stands for - 1), see add_merged
        self.left = budget

    def spend(self, units):
        self.left -= units
        if self.left < 0:
            raise DataflowLimit

    # -- helpers ---------------------------------------------------------------------------------
    def set(self, name, positions):
        S = self.S
        self.J.append((name, S.get(name, _MISSING)))
        S[name] = positions

    def var_tokens(self, node):  # the reference's tree_to_variable_index
        if node.__class__ is int:
            return [node] if self.is_var[node] else []
        lo, hi = node.lo, node.hi
        self.left -= hi - lo
        if self.left < 0:
            raise DataflowLimit
        before = self.before
        return self.vars[before[lo] : before[hi]]

    @staticmethod
    def kids(node):
        return () if node.__class__ is int else node.kids

    def kind(self, node) -> str:
        return self.types[node] if node.__class__ is int else node.type

    @staticmethod
    def field(node, name):
        fields = node.fields  # the first child with each field name
        return None if fields is None else fields.get(name)

    @staticmethod
    def field_pair(node, first, second) -> tuple:
        """``(field(node, first), field(node, second))``."""
        fields = node.fields
        if fields is None:
            return None, None
        return fields.get(first), fields.get(second)

    def flat(self, node) -> bool:
        """Process a token or a rule-free subtree in place and return True; False for a node with a
        rule (the caller yields it to the driver)."""
        if node.__class__ is int:
            self.tokens(node, node + 1)
            return True
        if not node.special:
            if node.lo < node.hi:
                self.tokens(node.lo, node.hi)
            return True
        return False

    def tokens(self, lo, hi):
        """The variables among tokens lo..hi-1, in order: each comes from the last definitions of its
        name, or (a new identifier) is one."""
        self.left -= hi - lo
        if self.left < 0:
            raise DataflowLimit
        before = self.before
        a = before[lo]
        b = before[hi]
        if a == b:
            return
        pos, texts, S, out = self.pos, self.text, self.S, self.out
        for i in self.vars[a:b]:
            text = texts[i]
            positions = S.get(text)
            if positions is not None:
                out.append((text, pos[i], "comesFrom", (text,), positions))
            else:
                idx = pos[i]
                if self.types[i] == "identifier":
                    self.J.append((text, _MISSING))
                    S[text] = idx
                out.append((text, idx, "comesFrom", (), None))

    def edges(self, sources):
        """(parent names, parent positions) of one edge standing for the reference's edges from a
        target to each of ``sources`` (one edge per source, at one position): the merge at the end
        concatenates their parents and de-duplicates them, so the names are de-duplicated here."""
        pos, texts = self.pos, self.text
        if len(sources) == 1:
            s = sources[0]
            return (texts[s],), pos[s]
        if len(sources) == 2:
            s, t = sources
            first, second = texts[s], texts[t]
            return ((first,) if first == second else (first, second)), (pos[s], pos[t])
        return tuple(dict.fromkeys(map(texts.__getitem__, sources))), tuple(map(pos.__getitem__, sources))

    def add_merged(self, edge, count):
        """Append an edge that stands for ``count`` edges of the reference (see ``edges``); the work
        counted for the loop merges stays that of ``count`` edges."""
        out = self.out
        out.append(edge)
        if count > 1:
            self.folded.append((len(out) - 1, count - 1))

    def cross(self, targets, sources, relation):
        # every target token comes from / is computed from every source token (the reference writes
        # one edge per source; they share the target's position and are written as one, see edges())
        pos, texts, S, J, out = self.pos, self.text, self.S, self.J, self.out
        k = len(sources)
        if k:
            names, parent_positions = self.edges(sources)
        for t in self.var_tokens(targets):
            idx1, code1 = pos[t], texts[t]
            self.left -= k + 1
            if self.left < 0:
                raise DataflowLimit
            if k:  # add_merged and set, inlined
                out.append((code1, idx1, relation, names, parent_positions))
                if k > 1:
                    self.folded.append((len(out) - 1, k - 1))
            J.append((code1, S.get(code1, _MISSING)))
            S[code1] = idx1

    def all_from(self, left_node, right_node):
        # python/ruby style: one edge per target token whose parents are all the source tokens
        pos, texts, S, J, out = self.pos, self.text, self.S, self.J, self.out
        rights = self.var_tokens(right_node)
        names = tuple(map(texts.__getitem__, rights))
        poses = tuple(map(pos.__getitem__, rights)) or None
        for t in self.var_tokens(left_node):
            idx1, code1 = pos[t], texts[t]
            self.left -= len(names) + 1
            if self.left < 0:
                raise DataflowLimit
            out.append((code1, idx1, "computedFrom", names, poses))
            J.append((code1, S.get(code1, _MISSING)))  # set, inlined
            S[code1] = idx1

    def capture(self, mark) -> dict:
        """name -> positions for every name changed since journal length ``mark``."""
        S, J = self.S, self.J
        self.spend(len(J) - mark)
        return {J[k][0]: S[J[k][0]] for k in range(mark, len(J))}

    def undo(self, mark):
        S, J = self.S, self.J
        self.spend(len(J) - mark)
        while len(J) > mark:
            name, old = J.pop()
            if old is _MISSING:
                del S[name]
            else:
                S[name] = old

    def merge_loop_since(self, start):
        out, folded = self.out, self.folded
        count = len(out) - start  # the reference's edges since ``start``
        while folded and folded[-1][0] >= start:
            count += folded.pop()[1]
        self.spend(count)
        out[start:] = _merge_loop(out[start:])

    # -- driver ----------------------------------------------------------------------------------
    def run(self, root):
        if self.flat(root):
            return
        handlers, generic = self.handlers, Flow.generic
        stack = []
        gen = handlers.get(root.type, generic)(self, root)
        while True:
            # rules never yield None; a finished one gives None (no exception), a rule done at once
            # returned None instead of a generator
            item = None if gen is None else next(gen, None)
            if item is None:
                if not stack:
                    return
                gen = stack.pop()
                continue
            stack.append(gen)
            if item.__class__ is _GENERATOR:  # a rule already started (by generic) that waits for a child
                gen = item
            else:
                gen = handlers.get(item.type, generic)(self, item)

    # -- rules: called with a node, they return None when done, or a generator that yields a child to
    # process here (or such a generator of a rule it started) and continues after it ----------------
    def define(self, node):
        """A definition of the "csharp" and "rust" styles (positional children; see define_fields)."""
        kids = node.kids
        if self.r["def_style"] == "csharp":
            name = kids[0]
            value = kids[1] if len(kids) == 2 else None
        else:  # rust: function_item
            name = kids[1]
            value = kids[2] if len(kids) >= 3 else None
        if value is None:
            return self.declare(name)
        sources = self.var_tokens(value)
        if not self.flat(value):
            return self.cross_after(value, name, sources, "comesFrom")
        self.cross(name, sources, "comesFrom")
        return None

    def declare(self, name):
        """A definition without a value: every variable of ``name`` comes from nothing."""
        pos, texts, out = self.pos, self.text, self.out
        for i in self.var_tokens(name):
            idx, text = pos[i], texts[i]
            out.append((text, idx, "comesFrom", (), None))
            self.set(text, idx)

    def define_fields(self, node):
        """A definition of the "fields" style (name and value fields; ``flat`` inlined)."""
        name, value = self.field_pair(node, *self.r["def_fields"])
        if value is None:
            return self.declare(name)
        sources = self.var_tokens(value)
        if value.__class__ is int:
            self.tokens(value, value + 1)
        elif value.special:
            return self.cross_after(value, name, sources, "comesFrom")
        elif value.lo < value.hi:
            self.tokens(value.lo, value.hi)
        self.cross(name, sources, "comesFrom")
        return None

    def assign_simple(self, node):
        """An assignment of the "simple" style (left and right fields; ``flat`` inlined)."""
        left, right = self.field_pair(node, "left", "right")
        if right.__class__ is int:
            self.tokens(right, right + 1)
            self.cross(left, [right] if self.is_var[right] else [], "computedFrom")
            return None
        if right.special:
            return self.assign_simple_after(left, right)
        lo, hi = right.lo, right.hi
        if lo < hi:
            self.tokens(lo, hi)
        self.cross(left, self.var_tokens(right), "computedFrom")
        return None

    def cross_after(self, child, targets, sources, relation):
        yield child
        self.cross(targets, sources, relation)

    def assign(self, node):
        """An assignment of the "python" and "ruby" styles (see assign_simple)."""
        style = self.r["assign_style"]
        kind = node.type
        if style == "python" and kind == "for_in_clause":
            lefts, rights = [self.field(node, "left")], [node.kids[-1]]
        else:
            if style == "python" and self.field(node, "right") is None:
                return None
            lefts, rights = self.pairs(node)
            if style == "ruby" and kind == "operator_assignment":
                lefts, rights = [node.kids[0]], [node.kids[-1]]
        for k, right in enumerate(rights):
            if not self.flat(right):
                return self.assign_after(lefts, rights, k)
        for left, right in zip(lefts, rights):
            self.all_from(left, right)
        return None

    def assign_simple_after(self, left, right):
        yield right
        self.cross(left, self.var_tokens(right), "computedFrom")

    def assign_after(self, lefts, rights, k):
        yield rights[k]
        for right in rights[k + 1 :]:
            if not self.flat(right):
                yield right
        for left, right in zip(lefts, rights):
            self.all_from(left, right)

    def increment(self, node):
        pos, texts = self.pos, self.text
        toks = self.var_tokens(node)
        k = len(toks)
        self.spend(k * (k + 1))
        if k:
            names, parent_positions = self.edges(toks)
        for t in toks:  # every variable computed from every one (the reference: one edge per pair)
            idx1, code1 = pos[t], texts[t]
            self.add_merged((code1, idx1, "computedFrom", names, parent_positions), k)
            self.set(code1, idx1)
        return None

    def while_loop(self, node):
        start = len(self.out)
        for _ in range(2):
            for child in node.kids:
                if not self.flat(child):
                    yield child
        self.merge_loop_since(start)

    def generic(self, node):
        """A node without a rule: its children in order (``do_first`` children first)."""
        firsts = self.firsts
        if firsts is not None and node in firsts:
            do_first = self.r["do_first"]
            kids = node.kids
            kids = [k for k in kids if self.kind(k) in do_first] + [
                k for k in kids if self.kind(k) not in do_first
            ]
            flat = self.flat
            for child in kids:
                if not flat(child):
                    yield child
            return
        # Children in order cover the node's tokens in order: the rule-free runs between children with
        # rules are processed as one token range each (a run without variables only counts its work,
        # unchecked: data_flow checks the total at the end, and every loop spends through checks). A child without a rule of its own is entered
        # here (its children the same way, depth first) rather than handed to the driver.
        tokens = self.tokens
        handlers = self.handlers
        before = self.before
        lo, hi = node.lo, node.hi
        kids = iter(node.skids or ())  # the children with rules in their subtrees (see _Node)
        outer = []  # (children left, next token, end) of the nodes entered
        while True:
            for child in kids:
                if lo < child.lo:
                    if before[lo] == before[child.lo]:  # no variables: only the work is counted
                        self.left -= child.lo - lo
                    else:
                        tokens(lo, child.lo)
                handler = handlers.get(child.type)
                if handler is not None:  # run here; a rule waiting for a child goes to the driver
                    started = handler(self, child)
                    if started is not None:
                        yield started
                    lo = child.hi
                elif firsts is not None and child in firsts:
                    yield child
                    lo = child.hi
                else:
                    outer.append((kids, child.hi, hi))
                    kids, lo, hi = iter(child.skids or ()), child.lo, child.hi
                    break
            else:
                if lo < hi:
                    if before[lo] == before[hi]:
                        self.left -= hi - lo
                    else:
                        tokens(lo, hi)
                if not outer:
                    return
                kids, lo, hi = outer.pop()

    def pairs(self, node):
        left_node = self.field(node, "left")
        right_node = self.field(node, "right")
        lefts = [x for x in self.kids(left_node) if self.kind(x) != ","]
        rights = [x for x in self.kids(right_node) if self.kind(x) != ","]
        if len(rights) != len(lefts):
            lefts, rights = [left_node], [right_node]
        if not lefts:
            lefts = [left_node]
        if not rights:
            rights = [right_node]
        return lefts, rights

    def if_statement(self, node):
        # Reference: every branch starts from the incoming states (the own branch, i.e. the condition
        # and consequence, threads its children; elif/else-like children each start afresh), and the
        # result maps every name to the union of its positions over the branches (+ the incoming
        # states when there is no else, and always for go/javascript/php).
        r = self.r
        mark = len(self.J)
        own_changes = {}  # own branch: name -> positions, relative to the incoming states
        in_own = False  # S currently holds the own branch (else: the incoming states)
        others = []
        tag = "else" in node.type
        flag = False
        style = r["if_style"]
        ifs = r["ifs"]
        for child in node.kids:
            kind = self.kind(child)
            if "else" in kind:
                tag = True
            if style == "python":
                own_branch = kind not in ("elif_clause", "else_clause")
            elif style == "plain":
                own_branch = kind not in ifs
            else:
                own_branch = kind not in ifs and not flag
            if own_branch:
                if not in_own:
                    for name, positions in own_changes.items():
                        self.set(name, positions)
                    in_own = True
                if not self.flat(child):
                    yield child
            else:
                flag = True
                if in_own:
                    own_changes = self.capture(mark)
                    self.undo(mark)
                    in_own = False
                if not self.flat(child):
                    yield child
                others.append(self.capture(mark))
                self.undo(mark)
        if in_own:
            own_changes = self.capture(mark)
            self.undo(mark)
        branches = others + [own_changes]
        with_incoming = (r["if_tag"] and not tag) or r["merge_incoming"]
        S = self.S
        changed = {}
        for branch in branches:
            changed.update(dict.fromkeys(branch))
        self.spend(len(changed) * (len(branches) + 1))
        for name in changed:
            incoming = S.get(name)
            values = []
            for branch in branches:
                value = branch.get(name, incoming)
                if value is not None:
                    values.append(value)
            if with_incoming and incoming is not None:
                values.append(incoming)
            self.set(name, _union(values))

    def for_loop(self, node):
        r = self.r
        start = len(self.out)
        style = r["for_style"]
        flat = self.flat
        if style in ("python", "ruby"):
            for _ in range(2):
                if style == "python":
                    lefts, rights = self.pairs(node)
                else:
                    lefts, rights = [self.field(node, "pattern")], [self.field(node, "value")]
                for right in rights:
                    if not flat(right):
                        yield right
                for left, right in zip(lefts, rights):
                    self.all_from(left, right)
                if style == "python":
                    if self.kind(node.kids[-1]) == "block":
                        if not flat(node.kids[-1]):
                            yield node.kids[-1]
                else:
                    body = self.field(node, "body")
                    if not flat(body):
                        yield body
            self.merge_loop_since(start)
            return
        for child in node.kids:
            if not flat(child):
                yield child
        found = False
        for child in node.kids:
            if found:
                if not flat(child):
                    yield child
            elif style == "go" and self.kind(child) == "for_clause":
                update = self.field(child, "update")
                if update is not None and not flat(update):
                    yield update
                found = True
            elif style == "c" and self.kind(child) == r["for_marker"]:
                found = True
        self.merge_loop_since(start)

    def enhanced_for(self, node):
        style = self.r["efor_style"]
        start = len(self.out)
        if style == "php":
            name = value = None
            for child in node.kids:
                if self.kind(child) == "variable_name" and value is None:
                    value = child
                elif self.kind(child) == "variable_name" and name is None:
                    name = child
                    break
            body = self.field(node, "body")
        else:
            name = self.field(node, style[0])
            value = self.field(node, style[1])
            body = self.field(node, style[2])
        for _ in range(2):
            if not self.flat(value):
                yield value
            self.cross(name, self.var_tokens(value), "computedFrom")
            if not self.flat(body):
                yield body
        self.merge_loop_since(start)


def _first_parents(root, types, do_first) -> set:
    """The nodes of a flat tree with a child of a ``do_first`` type (when the flattening did not collect
    them)."""
    found = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.__class__ is int:
            continue
        if any((types[k] if k.__class__ is int else k.type) in do_first for k in node.kids):
            found.add(node)
        stack.extend(node.kids)
    return found


_HANDLERS = {}


def _handlers(rules) -> dict:
    """node type -> Flow rule (a generator function), with the reference's precedence (def,
    assignment, increment, if, for, enhanced for, while), cached per rule table."""
    key = id(rules)
    table = _HANDLERS.get(key)
    if table is None:
        table = {}
        assign = Flow.assign_simple if rules["assign_style"] == "simple" else Flow.assign
        define = Flow.define_fields if rules["def_style"] == "fields" else Flow.define
        for name, func in (
            ("whiles", Flow.while_loop),
            ("efors", Flow.enhanced_for),
            ("fors", Flow.for_loop),
            ("ifs", Flow.if_statement),
            ("incs", Flow.increment),
            ("assigns", assign),
            ("defs", define),
        ):
            for kind in rules[name]:
                table[kind] = func
        _HANDLERS[key] = table
    return table
