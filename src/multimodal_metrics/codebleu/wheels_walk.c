/*
 * codebleu's tree walker for the grammar wheels (the `pypi` preset's trees), compiled in one unit with the C
 * core of tree-sitter 0.26 (the PyPI sdist tree-sitter==0.26.1: tree_sitter/core/lib/src/lib.c), the version
 * of the Python binding whose parses the Python path flattens, by multimodal_metrics.codebleu.build_runtime.
 *
 * One call, mm_walk(), parses a snippet with a language of a grammar wheel and walks its tree in C:
 *
 *  1. the cursor walk of legacy_walk.c (shared: this file includes it with MM_WHEELS defined): the code
 *     tokens and the flat nodes of the data-flow rules, as multimodal_metrics.codebleu.trees.flatten_tree_sitter;
 *  2. the subtree ids of trees.flatten_tree_sitter: a named node is (type, field, child id, field, child id,
 *     ...) over its printed children, an anonymous node with children stands for its printed children (and
 *     has an id of its own), a named leaf is (type); an ERROR or MISSING leaf, and a node holding an error
 *     that none of its visible children holds (a hidden MISSING token), is read back from the core's
 *     ts_node_string (trees._printed_id), a node deeper than MM_PRINT_DEPTH counted in `unprinted` instead.
 *     Keys are interned in the table of legacy_walk.c (shared by the snippets of a computation): equal ids
 *     exactly when the Python path's keys are equal;
 *  3. the data flow of legacy_walk.c (shared; python and java rule styles, ASCII code).
 *
 * Only the C standard library is used.
 */
#define MM_WHEELS 1
#include "./legacy_walk.c"

/* key tags of the wheels' ids (trees.flatten_tree_sitter's key shapes) */
#define W_NORMAL 1     /* (type, pieces)                     head: type string id */
#define W_MISSING 2    /* ("MISSING", name, named)           head: name id * 2 + named */
#define W_UNEXPECTED 3 /* ("UNEXPECTED", text)               head: text string id */
#define W_ANONYMOUS 6  /* ("ANONYMOUS", type, pieces)        head: type string id */
#define W_UNCLOSED 9   /* ("UNCLOSED", type, pieces)         head: type string id */
#define W_ROOT 10      /* ("ROOT", type): an anonymous leaf root head: type string id */

#define MM_PRINT_DEPTH 2000 /* trees.MAX_PRINT_DEPTH: the deepest subtree handed to the core's printer */

/* The string id of a symbol's name as trees.grammar_names holds it ("" for a symbol without a name). */
static inline uint32_t w_name(MMTable *t, MMLangNames *l, TSSymbol symbol) {
  uint32_t i = symbol_index(l->language, symbol);
  if (l->symbol_sid[i] == NONE) {
    const char *name = ts_language_symbol_name(l->language, symbol);
    l->symbol_sid[i] = table_cstring(t, name ? name : "");
  }
  return l->symbol_sid[i];
}

/* item field code of a cursor field id: 0 none, else the field name's string id + 1 */
static inline uint32_t w_field(MMTable *t, MMLangNames *l, TSFieldId field) {
  if (!field) return 0;
  if (field >= l->nfield) return table_cstring(t, "") + 1;
  if (l->field_sid[field] == NONE) {
    const char *name = ts_language_field_name_for_id(l->language, field);
    l->field_sid[field] = table_cstring(t, name ? name : "");
  }
  return l->field_sid[field] + 1;
}

/* ---- trees._printed_id: a printed subtree read back into the same keys ---- */
typedef struct {
  const char *s;
  size_t n;
} WTok;

/* the tokens of trees._SEXP_TOKEN: ( ) "..." '...' and runs of anything but whitespace and parentheses */
static int w_tokens(const char *text, MMStack *toks) {
  toks->n = 0;
  const char *p = text;
  while (*p) {
    char c = *p;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      p++;
      continue;
    }
    WTok *tok = stack_push(toks);
    if (!tok) return 0;
    tok->s = p;
    if (c == '(' || c == ')') {
      p++;
    } else if (c == '"' || c == '\'') {
      const char *q = p + 1;
      while (*q && *q != c) q += (*q == '\\' && q[1]) ? 2 : 1;
      if (*q == c) {
        p = q + 1;
      } else { /* unterminated: the regex takes the run of non-space, non-parenthesis characters instead */
        q = p;
        while (*q && !strchr(" \t\n\r\f\v()", *q)) q++;
        p = q;
      }
    } else {
      while (*p && !strchr(" \t\n\r\f\v()", *p)) p++;
    }
    tok->n = (size_t)(p - tok->s);
  }
  return 1;
}

static inline int w_tok_is(const WTok *t, const char *word) {
  size_t n = strlen(word);
  return t->n == n && !memcmp(t->s, word, n);
}

/* Close the innermost open group of w_printed_id (frames: st->gids, 3 words each: head, field, items start)
   under `tag`, its id added to its parent's items or returned in *result. 0: out of memory. */
static int w_close(MMState *st, uint32_t tag, uint32_t *result) {
  MMU32s *frames = &st->gids, *items = &st->rbuf;
  uint32_t head = frames->a[frames->n - 3], own_field = frames->a[frames->n - 2], start = frames->a[frames->n - 1];
  uint32_t ident = table_key(&st->table, tag, head, items->a + start, (uint32_t)(items->n - start) / 2);
  if (ident == NONE) return 0;
  items->n = start;
  frames->n -= 3;
  if (frames->n) return u32_push(items, own_field) && u32_push(items, ident);
  *result = ident;
  return 1;
}

/* The id of the subtree ts_node_string printed as `text` (trees._printed_id); NONE when out of memory. */
static uint32_t w_printed_id(MMState *st, const char *text) {
  MMTable *t = &st->table;
  MMStack *toks = &st->rframes;
  toks->size = sizeof(WTok);
  if (!w_tokens(text, toks)) return NONE;
  MMU32s *frames = &st->gids, *items = &st->rbuf;
  frames->n = items->n = 0;
  uint32_t field = 0, result = NONE;
  const WTok *tk = toks->a;
  size_t n = toks->n, i = 0;
  while (i < n) {
    const WTok *tok = &tk[i];
    if (tok->n == 1 && tok->s[0] == '(') {
      if (i + 1 >= n) break; /* not expected from the printer */
      const WTok *head = &tk[i + 1];
      if ((w_tok_is(head, "MISSING") || w_tok_is(head, "UNEXPECTED")) && i + 3 < n && w_tok_is(&tk[i + 3], ")")) {
        const WTok *arg = &tk[i + 2];
        uint32_t ident;
        if (w_tok_is(head, "MISSING")) {
          int quoted = arg->n > 0 && arg->s[0] == '"';
          const char *name = quoted ? arg->s + 1 : arg->s;
          size_t len = quoted ? (arg->n >= 2 ? arg->n - 2 : 0) : arg->n;
          uint32_t sid = table_string(t, name, len);
          if (sid == NONE) return NONE;
          ident = table_key(t, W_MISSING, sid * 2 + !quoted, NULL, 0);
        } else {
          uint32_t sid = table_string(t, arg->s, arg->n);
          if (sid == NONE) return NONE;
          ident = table_key(t, W_UNEXPECTED, sid, NULL, 0);
        }
        if (ident == NONE) return NONE;
        if (frames->n) {
          if (!u32_push(items, field) || !u32_push(items, ident)) return NONE;
        } else {
          result = ident;
        }
        field = 0;
        i += 4;
        continue;
      }
      uint32_t sid = table_string(t, head->s, head->n);
      if (sid == NONE || !u32_push(frames, sid) || !u32_push(frames, field) || !u32_push(frames, (uint32_t)items->n))
        return NONE;
      field = 0;
      i += 2;
      continue;
    }
    if (tok->n == 1 && tok->s[0] == ')') {
      if (frames->n && !w_close(st, W_NORMAL, &result)) return NONE;
      i++;
      continue;
    }
    if (tok->n && tok->s[tok->n - 1] == ':') {
      uint32_t sid = table_string(t, tok->s, tok->n - 1);
      if (sid == NONE) return NONE;
      field = sid + 1;
    }
    i++;
  }
  while (frames->n) /* an unclosed s-expression: closed here */
    if (!w_close(st, W_UNCLOSED, &result)) return NONE;
  return result;
}

static uint32_t w_node_id(MMState *st, TSNode node) {
  char *text = ts_node_string(node);
  if (!text) return NONE;
  uint32_t ident = w_printed_id(st, text);
  ts_free(text);
  return ident;
}

/* ---- 2. the subtree ids of trees.flatten_tree_sitter ---- */
typedef struct {
  uint32_t items_start; /* its pieces on st->items */
  uint32_t piece_field; /* its field in its parent (inherited through anonymous parents) */
  uint32_t named, kind, is_error_kind;
  uint32_t inherit;     /* field its children inherit: its piece_field when anonymous, else 0 */
  uint32_t error_here, error_below, depth;
} WFrame;

/* the type name (string id), named flag and ERROR-ness of the cursor's node, as trees.flatten_tree_sitter
   reads them with grammar_names: by kind id, or from the node where the id is beyond the grammar's symbols */
static inline void w_kind(MMTable *t, MMLangNames *l, TSNode node, uint32_t *kind, uint32_t *named,
                          uint32_t *is_error) {
  TSSymbol symbol = ts_node_symbol(node);
  if (symbol < ts_language_symbol_count(l->language)) {
    *kind = w_name(t, l, symbol);
    *named = ts_language_symbol_type(l->language, symbol) == TSSymbolTypeRegular;
    const char *name = ts_language_symbol_name(l->language, symbol);
    *is_error = name && !strcmp(name, "ERROR");
  } else {
    const char *name = ts_node_type(node);
    *kind = table_cstring(t, name ? name : "");
    *named = ts_node_is_named(node);
    *is_error = name && !strcmp(name, "ERROR");
  }
}

/* The ids of the root and of every node with children (post-order), into st->ids. 0: out of memory. */
static int wheels_ids(MMState *st, TSNode root, MMLangNames *l) {
  MMTable *t = &st->table;
  MMStack *frames = &st->dframes; /* unused by the shared sections in this build */
  frames->size = sizeof(WFrame);
  frames->n = 0;
  MMU32s *items = &st->items;
  items->n = 0;
  int any_error = ts_node_has_error(root);
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  int ok = 1;
  WFrame *holder = stack_push(frames); /* the stand-in parent of the root */
  if (!holder) return 0;
  memset(holder, 0, sizeof *holder);
  while (ok) {
    TSNode node = ts_tree_cursor_current_node(&cursor);
    uint32_t kind, named, is_error;
    w_kind(t, l, node, &kind, &named, &is_error);
    uint32_t field = w_field(t, l, ts_tree_cursor_current_field_id(&cursor));
    WFrame *up = stack_top(frames);
    if (!ts_tree_cursor_goto_first_child(&cursor)) { /* a leaf */
      if (any_error && (is_error || ts_node_has_error(node))) {
        up->error_below = 1;
        uint32_t ident = w_node_id(st, node);
        ok = ident != NONE && u32_push(items, field ? field : up->inherit) && u32_push(items, ident);
      } else if (named) {
        uint32_t ident = table_key(t, W_NORMAL, kind, NULL, 0);
        ok = ident != NONE && u32_push(items, field ? field : up->inherit) && u32_push(items, ident);
      }
    } else { /* a node with children; the cursor is on its first child */
      uint32_t piece_field = field ? field : up->inherit;
      uint32_t error_here = any_error && ts_node_has_error(node);
      if (error_here) up->error_below = 1;
      WFrame *f = stack_push(frames);
      if (!f) {
        ok = 0;
        break;
      }
      f->items_start = (uint32_t)items->n;
      f->piece_field = piece_field;
      f->named = named;
      f->kind = kind;
      f->is_error_kind = is_error;
      f->inherit = named ? 0 : piece_field;
      f->error_here = error_here;
      f->error_below = 0;
      f->depth = 0;
      continue;
    }
    /* climb to the next sibling, closing every finished node on the way */
    int done = 0;
    while (ok && !ts_tree_cursor_goto_next_sibling(&cursor)) {
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        done = 1;
        break;
      }
      WFrame closed = *(WFrame *)stack_top(frames);
      frames->n--;
      WFrame *parent = stack_top(frames);
      uint32_t count = (uint32_t)(items->n - closed.items_start) / 2;
      if (any_error) {
        if (parent->depth <= closed.depth) parent->depth = closed.depth + 1;
        if (closed.error_here && !closed.error_below && !closed.is_error_kind) {
          /* a MISSING token of a hidden rule: printed by the core, which the cursor never shows */
          if (closed.depth <= MM_PRINT_DEPTH) {
            uint32_t ident = w_node_id(st, ts_tree_cursor_current_node(&cursor));
            items->n = closed.items_start;
            ok = ident != NONE && u32_push(&st->ids, ident) && u32_push(items, closed.piece_field) &&
                 u32_push(items, ident);
            continue;
          }
          st->out.unprinted++;
        }
      }
      if (closed.named) {
        uint32_t ident = table_key(t, W_NORMAL, closed.kind, items->a + closed.items_start, count);
        items->n = closed.items_start;
        ok = ident != NONE && u32_push(&st->ids, ident) && u32_push(items, closed.piece_field) &&
             u32_push(items, ident);
      } else { /* not printed: its printed children stand in the parent's s-expression */
        uint32_t ident = table_key(t, W_ANONYMOUS, closed.kind, items->a + closed.items_start, count);
        ok = ident != NONE && u32_push(&st->ids, ident); /* its pieces stay on the stack: the parent's */
      }
    }
    if (done) break;
  }
  ts_tree_cursor_delete(&cursor);
  return ok;
}

/* trees._flat_leaf_root's id of a root without children. NONE: out of memory. */
static uint32_t wheels_leaf_root_id(MMState *st, TSNode root) {
  MMTable *t = &st->table;
  const char *name = ts_node_type(root);
  uint32_t kind = table_cstring(t, name ? name : "");
  if (kind == NONE) return NONE;
  if (ts_node_has_error(root) && ((name && !strcmp(name, "ERROR")) || ts_node_has_error(root)))
    return w_node_id(st, root);
  if (ts_node_is_named(root)) return table_key(t, W_NORMAL, kind, NULL, 0);
  return table_key(t, W_ROOT, kind, NULL, 0);
}

/* ------------------------------------------------------------------------------------------------ */
/* the entry point                                                                                   */
/* ------------------------------------------------------------------------------------------------ */
/* Parse `source` with `parser` (set to a grammar wheel's language by the caller) and walk the tree (see the
   top of this file); the results are in mm_state_out(st) until the next call, `unprinted` included. `flags`,
   `nflags`, `rules`: as legacy_walk.c's mm_walk; `depth_limit` is not used (every walk here is iterative; the
   data flow has its own limit, rules->max_depth). Returns MM_OK, MM_NO_TREE or MM_NO_MEMORY. */
int mm_walk(MMState *st, TSParser *parser, const char *source, uint32_t length, const uint8_t *flags,
            uint32_t nflags, uint32_t depth_limit, const MMRules *rules) {
  (void)depth_limit;
  MMOut *out = &st->out;
  memset(out, 0, sizeof *out);
  out->root_code = INT32_MIN;
  out->flow_status = FLOW_PYTHON;
  MMU32s *bufs[] = {&st->tok_sym, &st->tok_start, &st->tok_end, &st->node_sym, &st->node_lo, &st->node_hi,
                  &st->node_flags, &st->kid_parent, &st->kid_code, &st->kid_field, &st->wanted_cursor,
                  &st->kid_ptr, &st->kid_sorted_code, &st->kid_sorted_field, &st->ids};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) bufs[i]->n = 0;
  TSTree *tree = ts_parser_parse_string(parser, NULL, source, length);
  if (!tree) return MM_NO_TREE;
  const TSLanguage *language = ts_tree_language(tree);
  MMLangNames *l = table_language(&st->table, language);
  int rc = MM_NO_MEMORY;
  if (!l) goto done;
  TSNode root = ts_tree_root_node(tree);
  out->has_error = ts_node_has_error(root);
  if (ts_node_child_count(root) == 0) {
    TSSymbol symbol = ts_node__alias(&root);
    if (!symbol) symbol = ts_subtree_symbol(ts_node__subtree(root));
    out->leaf_root = 1;
    out->root_sym = symbol_index(language, symbol);
    out->root_named = ts_node_is_named(root);
    out->root_start = ts_node_start_byte(root);
    out->root_end = ts_node_end_byte(root);
    uint32_t ident = wheels_leaf_root_id(st, root);
    if (ident == NONE || !u32_push(&st->ids, ident)) goto done;
  } else {
    rc = cursor_walk(st, root, flags, nflags, NONE);
    if (rc != MM_OK) goto done;
    rc = MM_NO_MEMORY;
    if (!group_kids(st) || !wheels_ids(st, root, l)) goto done;
  }
  out->ntok = (uint32_t)st->tok_sym.n;
  out->nnode = (uint32_t)st->node_sym.n;
  out->nkid = (uint32_t)st->kid_sorted_code.n;
  out->nids = (uint32_t)st->ids.n;
  out->tok_sym = st->tok_sym.a;
  out->tok_start = st->tok_start.a;
  out->tok_end = st->tok_end.a;
  out->node_sym = st->node_sym.a;
  out->node_lo = st->node_lo.a;
  out->node_hi = st->node_hi.a;
  out->node_flags = st->node_flags.a;
  out->kid_ptr = st->kid_ptr.a;
  out->kid_code = (int32_t *)st->kid_sorted_code.a;
  out->kid_field = st->kid_sorted_field.a;
  out->ids = st->ids.a;
  if (rules) {
    if (!st->fs && !(st->fs = calloc(1, sizeof(FlowState)))) goto done;
    int status = run_flow(st, st->fs, language, source, length, rules);
    if (status < 0) goto done;
    out->flow_status = (uint32_t)status;
    out->nflow = (uint32_t)st->fs->flow.n;
    out->flow = st->fs->flow.a;
  }
  rc = MM_OK;
done:
  ts_tree_delete(tree);
  return rc;
}
