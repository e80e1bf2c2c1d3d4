/*
 * codebleu's tree walker for the tree-sitter runtime of 2020, compiled in one unit with the runtime's C
 * core (the PyPI sdist tree_sitter==0.2.0: core/lib/src/lib.c) by multimodal_metrics.codebleu.build_runtime.
 *
 * One call, mm_walk(), parses a snippet and walks its tree twice in C, so that Python never touches a node:
 *
 *  1. the cursor walk of multimodal_metrics.codebleu.trees.flatten_tree_sitter (the same public cursor
 *     calls): the code tokens (leaves, string literals as one token, comments left out) with their byte
 *     spans, and the flat nodes the data-flow rules read (type, token range, whether a node with a rule is
 *     in the subtree, the nodes with a child of a `do_first` type, the children with their field ids);
 *  2. one walk of the tree's subtrees mirroring the core's printer, ts_subtree__write_to_string
 *     (what py-tree-sitter 0.2.0's node.sexp() prints, the strings CodeXGLUE's syntax match compares),
 *     which gives every subtree printout an id instead of a string: a printout is a group
 *     "(head item item ...)" whose items are "field: " prefixes and groups, and a group is interned as
 *     (head, items) with its items as ids, bottom-up, in a table shared by every snippet of a computation.
 *     The key scheme is that of multimodal_metrics.codebleu.legacy_runtime.printed_id, which reads a
 *     printout back: equal ids exactly when the printouts are equal. The ids returned are those of the
 *     root and of every node with children, in pre-order (CodeXGLUE's get_all_sub_trees).
 *
 * A tree deeper than the caller's limit (counted like legacy_runtime.subtree_ids) is not walked
 * (MM_TOO_DEEP): the caller then takes its Python path, whose keys it interns into the same table with
 * mm_table_key(). Only the C standard library is used.
 */
#include "./lib.c"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MM_OK 0
#define MM_TOO_DEEP 1
#define MM_MISMATCH 2
#define MM_NO_TREE (-1)
#define MM_NO_MEMORY (-2)

/* key tags (legacy_runtime.printed_id's heads) */
#define TAG_NORMAL 1     /* (type items...)                       head: name id */
#define TAG_MISSING 2    /* (MISSING name) / (MISSING "name")     head: name id * 2 + named */
#define TAG_UNEXPECTED 3 /* (UNEXPECTED 'c')                      head: the look-ahead character */
#define TAG_HIDDEN 4     /* ("name"), an invisible root           head: name id */
#define TAG_SEQ 5        /* several top-level items               head: 0 */

/* flags of a symbol, given by the caller (indexed like mm_walk's symbol indices) */
#define F_STRING 1
#define F_COMMENT 2
#define F_SPECIAL 4
#define F_DO_FIRST 8
/* flags of a flat node (output) */
#define N_SPECIAL 1
#define N_FIRST_PARENT 2

#define FIELD_ROOT 0xFFFFFFFFu /* the printer's ROOT_FIELD */
#define NONE 0xFFFFFFFFu

/* ------------------------------------------------------------------------------------------------ */
/* growable arrays                                                                                   */
/* ------------------------------------------------------------------------------------------------ */
typedef struct {
  uint32_t *a;
  size_t n, cap;
} MMU32s;

static int u32_reserve(MMU32s *b, size_t extra) {
  if (b->n + extra <= b->cap) return 1;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->n + extra) cap *= 2;
  uint32_t *a = realloc(b->a, cap * sizeof(uint32_t));
  if (!a) return 0;
  b->a = a;
  b->cap = cap;
  return 1;
}

static inline int u32_push(MMU32s *b, uint32_t v) {
  if (b->n == b->cap && !u32_reserve(b, 1)) return 0;
  b->a[b->n++] = v;
  return 1;
}

typedef struct {
  void *a;
  size_t n, cap, size;
} MMStack;

static void *stack_push(MMStack *s) {
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 64;
    void *a = realloc(s->a, cap * s->size);
    if (!a) return NULL;
    s->a = a;
    s->cap = cap;
  }
  return (char *)s->a + s->size * s->n++;
}

static inline void *stack_top(MMStack *s) { return (char *)s->a + s->size * (s->n - 1); }

/* ------------------------------------------------------------------------------------------------ */
/* the table of keys and strings (one per computation)                                               */
/* ------------------------------------------------------------------------------------------------ */
typedef struct {
  const TSLanguage *language;
  uint32_t *symbol_sid; /* symbol index -> string id (NONE: not looked up yet) */
  uint32_t nsym;
  uint32_t *field_sid; /* field id -> string id */
  uint32_t nfield;
} MMLangNames;

typedef struct {
  /* keys: arena of [tag, head, item count, items...]; key id -> offset; open addressing on id + 1 */
  MMU32s arena, offsets;
  uint64_t *hashes;
  size_t hashes_cap;
  uint32_t *slots;
  size_t nslots;
  /* strings */
  char *chars;
  size_t nchars, chars_cap;
  MMU32s str_offsets, str_lengths;
  uint64_t *str_hashes;
  size_t str_hashes_cap;
  uint32_t *str_slots;
  size_t nstr_slots;
  MMLangNames *langs;
  size_t nlangs;
} MMTable;

static inline uint64_t mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

static inline uint64_t hash_words(uint64_t h, const uint32_t *w, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ w[i]) * 0x100000001b3ULL;
  return h;
}

static int table_grow_keys(MMTable *t) {
  size_t nslots = t->nslots ? t->nslots * 2 : 1024;
  uint32_t *slots = calloc(nslots, sizeof(uint32_t));
  if (!slots) return 0;
  for (size_t id = 0; id < t->offsets.n; id++) {
    size_t j = (size_t)t->hashes[id] & (nslots - 1);
    while (slots[j]) j = (j + 1) & (nslots - 1);
    slots[j] = (uint32_t)id + 1;
  }
  free(t->slots);
  t->slots = slots;
  t->nslots = nslots;
  return 1;
}

/* The id of the key [tag, head, n, items[0 .. 2n)] (a new id when it is new); NONE when out of memory. */
static uint32_t table_key(MMTable *t, uint32_t tag, uint32_t head, const uint32_t *items, uint32_t n) {
  uint32_t header[3] = {tag, head, n};
  uint64_t h = mix(hash_words(hash_words(0xcbf29ce484222325ULL, header, 3), items, 2 * (size_t)n));
  if ((t->offsets.n + 1) * 2 > t->nslots && !table_grow_keys(t)) return NONE;
  size_t mask = t->nslots - 1;
  size_t j = (size_t)h & mask;
  uint32_t slot;
  while ((slot = t->slots[j])) {
    uint32_t id = slot - 1;
    if (t->hashes[id] == h) {
      const uint32_t *k = t->arena.a + t->offsets.a[id];
      if (k[0] == tag && k[1] == head && k[2] == n && !memcmp(k + 3, items, 2 * (size_t)n * sizeof(uint32_t)))
        return id;
    }
    j = (j + 1) & mask;
  }
  uint32_t id = (uint32_t)t->offsets.n;
  if (id == NONE - 1) return NONE;
  if (t->offsets.n == t->hashes_cap) {
    size_t cap = t->hashes_cap ? t->hashes_cap * 2 : 1024;
    uint64_t *hashes = realloc(t->hashes, cap * sizeof(uint64_t));
    if (!hashes) return NONE;
    t->hashes = hashes;
    t->hashes_cap = cap;
  }
  if (!u32_reserve(&t->arena, 3 + 2 * (size_t)n) || !u32_push(&t->offsets, (uint32_t)t->arena.n)) return NONE;
  memcpy(t->arena.a + t->arena.n, header, sizeof header);
  memcpy(t->arena.a + t->arena.n + 3, items, 2 * (size_t)n * sizeof(uint32_t));
  t->arena.n += 3 + 2 * (size_t)n;
  t->hashes[id] = h;
  t->slots[j] = id + 1;
  return id;
}

static int table_grow_strings(MMTable *t) {
  size_t nslots = t->nstr_slots ? t->nstr_slots * 2 : 256;
  uint32_t *slots = calloc(nslots, sizeof(uint32_t));
  if (!slots) return 0;
  for (size_t id = 0; id < t->str_offsets.n; id++) {
    size_t j = (size_t)t->str_hashes[id] & (nslots - 1);
    while (slots[j]) j = (j + 1) & (nslots - 1);
    slots[j] = (uint32_t)id + 1;
  }
  free(t->str_slots);
  t->str_slots = slots;
  t->nstr_slots = nslots;
  return 1;
}

/* The id of a string (bytes s[0 .. len)); NONE when out of memory. */
static uint32_t table_string(MMTable *t, const char *s, size_t len) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
  h = mix(h ^ len);
  if ((t->str_offsets.n + 1) * 2 > t->nstr_slots && !table_grow_strings(t)) return NONE;
  size_t mask = t->nstr_slots - 1;
  size_t j = (size_t)h & mask;
  uint32_t slot;
  while ((slot = t->str_slots[j])) {
    uint32_t id = slot - 1;
    if (t->str_hashes[id] == h && t->str_lengths.a[id] == len && !memcmp(t->chars + t->str_offsets.a[id], s, len))
      return id;
    j = (j + 1) & mask;
  }
  uint32_t id = (uint32_t)t->str_offsets.n;
  if (t->str_offsets.n == t->str_hashes_cap) {
    size_t cap = t->str_hashes_cap ? t->str_hashes_cap * 2 : 256;
    uint64_t *hashes = realloc(t->str_hashes, cap * sizeof(uint64_t));
    if (!hashes) return NONE;
    t->str_hashes = hashes;
    t->str_hashes_cap = cap;
  }
  if (t->nchars + len > t->chars_cap) {
    size_t cap = t->chars_cap ? t->chars_cap : 4096;
    while (cap < t->nchars + len) cap *= 2;
    char *chars = realloc(t->chars, cap);
    if (!chars) return NONE;
    t->chars = chars;
    t->chars_cap = cap;
  }
  if (!u32_push(&t->str_offsets, (uint32_t)t->nchars) || !u32_push(&t->str_lengths, (uint32_t)len)) return NONE;
  memcpy(t->chars + t->nchars, s, len);
  t->nchars += len;
  t->str_hashes[id] = h;
  t->str_slots[j] = id + 1;
  return id;
}

static uint32_t table_cstring(MMTable *t, const char *s) {
  if (!s) s = "(null)"; /* what the printer's snprintf("%s", NULL) writes with glibc */
  return table_string(t, s, strlen(s));
}

static MMLangNames *table_language(MMTable *t, const TSLanguage *language) {
  for (size_t i = 0; i < t->nlangs; i++)
    if (t->langs[i].language == language) return &t->langs[i];
  MMLangNames *langs = realloc(t->langs, (t->nlangs + 1) * sizeof(MMLangNames));
  if (!langs) return NULL;
  t->langs = langs;
  MMLangNames *l = &langs[t->nlangs];
  l->language = language;
  l->nsym = ts_language_symbol_count(language) + 2;
  l->nfield = language->field_count + 1;
  l->symbol_sid = malloc(l->nsym * sizeof(uint32_t));
  l->field_sid = malloc(l->nfield * sizeof(uint32_t));
  if (!l->symbol_sid || !l->field_sid) {
    free(l->symbol_sid);
    free(l->field_sid);
    return NULL;
  }
  memset(l->symbol_sid, 0xFF, l->nsym * sizeof(uint32_t));
  memset(l->field_sid, 0xFF, l->nfield * sizeof(uint32_t));
  t->nlangs++;
  return l;
}

/* symbol -> its index in [0, ts_language_symbol_count + 2): ERROR and _ERROR after the grammar's symbols */
static inline uint32_t symbol_index(const TSLanguage *language, TSSymbol symbol) {
  uint32_t count = language->symbol_count + language->alias_count; /* ts_language_symbol_count */
  if (symbol < count) return symbol;
  return symbol == ts_builtin_sym_error ? count : count + 1;
}

static inline uint32_t name_sid(MMTable *t, MMLangNames *l, TSSymbol symbol) {
  uint32_t i = symbol_index(l->language, symbol);
  if (l->symbol_sid[i] == NONE) l->symbol_sid[i] = table_cstring(t, ts_language_symbol_name(l->language, symbol));
  return l->symbol_sid[i];
}

/* item field code: 0 = no field (or the printer's root field), else string id + 1 */
static inline uint32_t field_code(MMTable *t, MMLangNames *l, TSFieldId field) {
  if (field >= l->nfield) return table_cstring(t, NULL) + 1;
  if (l->field_sid[field] == NONE) l->field_sid[field] = table_cstring(t, l->language->field_names[field]);
  return l->field_sid[field] + 1;
}

/* ------------------------------------------------------------------------------------------------ */
/* the walker's state: the table, the outputs and the scratch stacks (reused call after call)         */
/* ------------------------------------------------------------------------------------------------ */
typedef struct {
  uint32_t ntok, nnode, nkid, nids;
  uint32_t *tok_sym, *tok_start, *tok_end;
  uint32_t *node_sym, *node_lo, *node_hi, *node_flags;
  uint32_t *kid_ptr;    /* the children of flat node i: kid_code[kid_ptr[i] .. kid_ptr[i + 1]) */
  int32_t *kid_code;    /* a token's index, or ~(flat node index) */
  uint32_t *kid_field;  /* field id of the child (0: none) */
  uint32_t *ids;        /* subtree ids, pre-order */
  int32_t root_code;    /* the root: a token's index or ~(flat node index) */
  uint32_t has_error;
  uint32_t leaf_root;   /* the root has no children (the flat arrays are then empty) */
  uint32_t root_sym;    /* symbol index of the root */
  uint32_t root_named;
  uint32_t root_start, root_end;
  uint32_t max_depth;   /* depth of the tree, counted like legacy_runtime.subtree_ids */
} MMOut;

typedef struct {
  MMTable table;
  MMOut out;
  MMU32s tok_sym, tok_start, tok_end, node_sym, node_lo, node_hi, node_flags, kid_parent, kid_code, kid_field,
      kid_ptr, kid_sorted_code, kid_sorted_field, ids, wanted_cursor, wanted_walk, items, rbuf, gids, sizes;
  MMStack cframes, dframes, rframes;
} MMState;

MMState *mm_state_new(void) {
  MMState *st = calloc(1, sizeof(MMState));
  if (!st) return NULL;
  st->cframes.size = 2 * sizeof(uint32_t);
  return st;
}

static void u32_free(MMU32s *b) { free(b->a); }

void mm_state_free(MMState *st) {
  if (!st) return;
  MMTable *t = &st->table;
  u32_free(&t->arena);
  u32_free(&t->offsets);
  free(t->hashes);
  free(t->slots);
  free(t->chars);
  u32_free(&t->str_offsets);
  u32_free(&t->str_lengths);
  free(t->str_hashes);
  free(t->str_slots);
  for (size_t i = 0; i < t->nlangs; i++) {
    free(t->langs[i].symbol_sid);
    free(t->langs[i].field_sid);
  }
  free(t->langs);
  MMU32s *bufs[] = {&st->tok_sym, &st->tok_start, &st->tok_end, &st->node_sym, &st->node_lo, &st->node_hi,
                  &st->node_flags, &st->kid_parent, &st->kid_code, &st->kid_field, &st->kid_ptr,
                  &st->kid_sorted_code, &st->kid_sorted_field, &st->ids, &st->wanted_cursor, &st->wanted_walk,
                  &st->items, &st->rbuf, &st->gids, &st->sizes};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) u32_free(bufs[i]);
  free(st->cframes.a);
  free(st->dframes.a);
  free(st->rframes.a);
  free(st);
}

MMOut *mm_state_out(MMState *st) { return &st->out; }

uint32_t mm_table_size(MMState *st) { return (uint32_t)st->table.offsets.n; }

/* For the caller's Python path: the id of a string, and of a key (NONE when out of memory). */
uint32_t mm_table_string(MMState *st, const char *s, uint32_t len) { return table_string(&st->table, s, len); }

uint32_t mm_table_key(MMState *st, uint32_t tag, uint32_t head, const uint32_t *items, uint32_t n) {
  return table_key(&st->table, tag, head, items, n);
}

/* ------------------------------------------------------------------------------------------------ */
/* 1. the cursor walk (trees.flatten_tree_sitter without the subtree ids)                             */
/* ------------------------------------------------------------------------------------------------ */
#define HOLDER 0xFFFFFFFEu /* the stand-in parent of the root */

static int add_kid(MMState *st, uint32_t owner, int32_t code, uint32_t field) {
  if (owner == HOLDER) {
    if (st->out.root_code == INT32_MIN) st->out.root_code = code;
    return 1;
  }
  return u32_push(&st->kid_parent, owner) && u32_push(&st->kid_code, (uint32_t)code) &&
         u32_push(&st->kid_field, field);
}

static int new_flat_node(MMState *st, uint32_t sym, uint32_t lo, uint32_t flags) {
  return u32_push(&st->node_sym, sym) && u32_push(&st->node_lo, lo) && u32_push(&st->node_hi, lo) &&
         u32_push(&st->node_flags, flags);
}

static int new_token(MMState *st, uint32_t sym, TSNode node) {
  return u32_push(&st->tok_sym, sym) && u32_push(&st->tok_start, ts_node_start_byte(node)) &&
         u32_push(&st->tok_end, ts_node_end_byte(node));
}

static int cursor_walk(MMState *st, TSNode root, const uint8_t *flags, uint32_t nflags, uint32_t depth_limit) {
  const TSLanguage *language = root.tree->language;
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  MMStack *frames = &st->cframes; /* [flow node or NONE/HOLDER, is_token << 8 | symbol flags] */
  frames->n = 0;
  uint32_t *f = stack_push(frames);
  int ok = f != NULL;
  if (ok) f[0] = HOLDER, f[1] = 0;
  uint32_t in_token = 0, depth = 0;
  while (ok) {
    TSNode node = ts_tree_cursor_current_node(&cursor);
    TSSymbol symbol = ts_node__alias(&node);
    if (!symbol) symbol = ts_subtree_symbol(ts_node__subtree(node));
    uint32_t sym = symbol_index(language, symbol);
    uint8_t fl = sym < nflags ? flags[sym] : 0;
    uint32_t field = ts_tree_cursor_current_field_id(&cursor);
    uint32_t owner = ((uint32_t *)stack_top(frames))[0];
    if (!ts_tree_cursor_goto_first_child(&cursor)) { /* a leaf */
      if (in_token == 0) {
        if (fl & F_COMMENT) { /* an empty node (no tokens) */
          ok = new_flat_node(st, sym, (uint32_t)st->tok_sym.n, 0) &&
               add_kid(st, owner, ~(int32_t)(st->node_sym.n - 1), field);
        } else {
          ok = new_token(st, sym, node) && add_kid(st, owner, (int32_t)(st->tok_sym.n - 1), field);
        }
      }
    } else { /* a node with children; the cursor is on its first child */
      if (!u32_push(&st->wanted_cursor, (uint32_t)(uintptr_t)node.id) ||
          !u32_push(&st->wanted_cursor, (uint32_t)((uint64_t)(uintptr_t)node.id >> 32))) {
        ok = 0;
        break;
      }
      if (++depth > st->out.max_depth) st->out.max_depth = depth;
      if (depth > depth_limit) break;
      uint32_t flow = NONE, is_token = 0;
      if (in_token == 0) {
        if (fl & F_STRING) { /* a string literal with children is still one token */
          ok = new_token(st, sym, node) && add_kid(st, owner, (int32_t)(st->tok_sym.n - 1), field);
          is_token = 1;
          in_token = 1;
        } else {
          ok = new_flat_node(st, sym, (uint32_t)st->tok_sym.n, (fl & F_SPECIAL) ? N_SPECIAL : 0) &&
               add_kid(st, owner, ~(int32_t)(st->node_sym.n - 1), field);
          flow = (uint32_t)st->node_sym.n - 1;
        }
      } else if (fl & F_STRING) {
        in_token++;
        is_token = 1;
      }
      f = ok ? stack_push(frames) : NULL;
      if (!f) {
        ok = 0;
        break;
      }
      f[0] = flow;
      f[1] = is_token << 8 | fl;
      continue;
    }
    /* climb to the next sibling, closing every finished node on the way */
    int done = 0;
    while (ok && !ts_tree_cursor_goto_next_sibling(&cursor)) {
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        done = 1;
        break;
      }
      uint32_t *closed = stack_top(frames);
      uint32_t flow = closed[0], info = closed[1];
      frames->n--;
      depth--;
      uint32_t up = ((uint32_t *)stack_top(frames))[0];
      if (flow != NONE) {
        st->node_hi.a[flow] = (uint32_t)st->tok_sym.n;
        if ((st->node_flags.a[flow] & N_SPECIAL) && up != NONE && up != HOLDER) {
          st->node_flags.a[up] |= N_SPECIAL;
          if (info & F_DO_FIRST) st->node_flags.a[up] |= N_FIRST_PARENT;
        }
      }
      if (info >> 8) in_token--;
    }
    if (done) break;
  }
  ts_tree_cursor_delete(&cursor);
  if (!ok) return MM_NO_MEMORY;
  return st->out.max_depth > depth_limit ? MM_TOO_DEEP : MM_OK;
}

/* the children lists of the flat nodes, grouped by parent (a stable counting sort) */
static int group_kids(MMState *st) {
  size_t nnode = st->node_sym.n, nkid = st->kid_code.n;
  st->kid_ptr.n = 0;
  if (!u32_reserve(&st->kid_ptr, nnode + 1) || !u32_reserve(&st->kid_sorted_code, nkid) ||
      !u32_reserve(&st->kid_sorted_field, nkid))
    return 0;
  uint32_t *ptr = st->kid_ptr.a;
  memset(ptr, 0, (nnode + 1) * sizeof(uint32_t));
  for (size_t k = 0; k < nkid; k++) ptr[st->kid_parent.a[k] + 1]++;
  for (size_t i = 0; i < nnode; i++) ptr[i + 1] += ptr[i];
  for (size_t k = 0; k < nkid; k++) {
    uint32_t at = ptr[st->kid_parent.a[k]]++;
    st->kid_sorted_code.a[at] = st->kid_code.a[k];
    st->kid_sorted_field.a[at] = st->kid_field.a[k];
  }
  for (size_t i = nnode; i > 0; i--) ptr[i] = ptr[i - 1];
  ptr[0] = 0;
  st->kid_ptr.n = nnode + 1;
  st->kid_sorted_code.n = st->kid_sorted_field.n = nkid;
  return 1;
}

/* ------------------------------------------------------------------------------------------------ */
/* 2. the subtree ids: ts_subtree__write_to_string (include_all false) with ids instead of text        */
/* ------------------------------------------------------------------------------------------------ */
typedef struct {
  Subtree s;
  const TSSymbol *alias_sequence;
  const TSFieldMapEntry *field_map, *field_map_end;
  uint32_t child, structural; /* next child, and its structural index */
  uint32_t field;             /* field this node is printed with: 0 none, FIELD_ROOT, else field code */
  uint32_t visible;           /* printed as a group in its context */
  uint32_t head_tag, head;    /* its group's head (visible nodes) */
  uint32_t items_start;       /* its group's items on the item stack (visible nodes) */
  uint32_t pre;               /* pre-order index among all subtrees */
  uint32_t next;              /* pre-order index of its next child (print_alone) */
  uint32_t wanted;            /* index in the wanted list (a node with children of the node API), or NONE */
  uint32_t rewalk;            /* its own printout differs from its group in its parent: printed on its own */
  const Subtree *slot;
} MMFrame;

/* The context of child i of a node, as the printer computes it. */
typedef struct {
  TSSymbol alias;
  bool alias_is_named;
  uint32_t field;
  bool visible;
} MMChildContext;

static inline MMChildContext child_context(MMTable *t, MMLangNames *l, MMFrame *parent, Subtree child) {
  MMChildContext c = {0, false, 0, false};
  if (ts_subtree_extra(child)) {
    c.field = 0;
  } else {
    c.alias = parent->alias_sequence ? parent->alias_sequence[parent->structural] : 0;
    c.alias_is_named = c.alias ? ts_language_symbol_metadata(l->language, c.alias).named : false;
    c.field = parent->visible ? 0 : parent->field;
    for (const TSFieldMapEntry *e = parent->field_map; e < parent->field_map_end; e++) {
      if (!e->inherited && e->child_index == parent->structural) {
        c.field = field_code(t, l, e->field_id);
        break;
      }
    }
    parent->structural++;
  }
  c.visible = ts_subtree_missing(child) ||
              (c.alias ? c.alias_is_named : ts_subtree_visible(child) && ts_subtree_named(child));
  return c;
}

/* the head of a node printed as a group with this alias */
static inline void group_head(MMTable *t, MMLangNames *l, Subtree s, TSSymbol alias, bool alias_is_named,
                              uint32_t *tag, uint32_t *head) {
  if (ts_subtree_is_error(s) && ts_subtree_child_count(s) == 0 && !s.data.is_inline && s.ptr->size.bytes > 0) {
    *tag = TAG_UNEXPECTED;
    *head = (uint32_t)s.ptr->lookahead_char;
    return;
  }
  uint32_t sid = name_sid(t, l, alias ? alias : ts_subtree_symbol(s));
  if (ts_subtree_missing(s)) {
    *tag = TAG_MISSING;
    *head = sid * 2 + (alias_is_named || ts_subtree_named(s));
  } else {
    *tag = TAG_NORMAL;
    *head = sid;
  }
}

static inline void frame_children(MMLangNames *l, MMFrame *f) {
  f->child = f->structural = 0;
  f->alias_sequence = NULL;
  f->field_map = f->field_map_end = NULL;
  if (ts_subtree_child_count(f->s)) {
    f->alias_sequence = ts_language_alias_sequence(l->language, f->s.ptr->production_id);
    ts_language_field_map(l->language, f->s.ptr->production_id, &f->field_map, &f->field_map_end);
  }
}

static inline uint32_t hidden_id(MMTable *t, MMLangNames *l, Subtree s) {
  return table_key(t, TAG_HIDDEN, name_sid(t, l, ts_subtree_symbol(s)), NULL, 0);
}

/* the id of a top-level item sequence: its only item when that has no field, else a SEQ */
static inline uint32_t top_id(MMTable *t, const uint32_t *items, uint32_t n) {
  if (n == 1 && items[0] == 0) return items[1];
  return table_key(t, TAG_SEQ, 0, items, n);
}

/* The printout of the node at `slot` on its own (node.sexp()), whose descendants' groups are known
   (st->gids by pre-order index, st->sizes the subtree sizes): only the invisible nodes below it are
   walked again. */
static uint32_t print_alone(MMState *st, MMLangNames *l, const Subtree *slot, uint32_t pre) {
  MMTable *t = &st->table;
  Subtree s = *slot;
  st->rbuf.n = 0;
  MMStack *frames = &st->rframes;
  frames->size = sizeof(MMFrame);
  frames->n = 0;
  MMFrame *f = stack_push(frames);
  if (!f) return NONE;
  memset(f, 0, sizeof *f);
  f->s = s;
  f->pre = pre;
  f->field = FIELD_ROOT;
  f->visible = ts_subtree_missing(s) || (ts_subtree_visible(s) && ts_subtree_named(s));
  uint32_t tag = 0, head = 0;
  if (f->visible) {
    group_head(t, l, s, 0, false, &tag, &head);
  } else {
    uint32_t hid = hidden_id(t, l, s);
    if (hid == NONE || !u32_push(&st->rbuf, 0) || !u32_push(&st->rbuf, hid)) return NONE;
  }
  frame_children(l, f);
  f->next = pre + 1;
  while (frames->n) {
    f = stack_top(frames);
    if (f->child == ts_subtree_child_count(f->s)) {
      frames->n--;
      continue;
    }
    Subtree child = f->s.ptr->children[f->child++];
    uint32_t child_pre = f->next;
    f->next += st->sizes.a[child_pre];
    MMChildContext c = child_context(t, l, f, child);
    if (c.visible) {
      if (!u32_push(&st->rbuf, c.field == FIELD_ROOT ? 0 : c.field) || !u32_push(&st->rbuf, st->gids.a[child_pre]))
        return NONE;
      continue;
    }
    if (c.field == FIELD_ROOT) {
      uint32_t hid = hidden_id(t, l, child);
      if (hid == NONE || !u32_push(&st->rbuf, 0) || !u32_push(&st->rbuf, hid)) return NONE;
    }
    if (!ts_subtree_child_count(child)) continue;
    MMFrame *g = stack_push(frames);
    if (!g) return NONE;
    memset(g, 0, sizeof *g);
    g->s = child;
    g->pre = child_pre;
    g->next = child_pre + 1;
    g->field = c.field;
    g->visible = 0;
    frame_children(l, g);
  }
  uint32_t n = (uint32_t)(st->rbuf.n / 2);
  if (tag) return table_key(t, tag, head, st->rbuf.a, n);
  return top_id(t, st->rbuf.a, n);
}

static int subtree_walk(MMState *st, const TSTree *tree, MMLangNames *l) {
  MMTable *t = &st->table;
  MMStack *frames = &st->dframes;
  frames->size = sizeof(MMFrame);
  frames->n = 0;
  st->items.n = st->gids.n = st->sizes.n = st->wanted_walk.n = st->ids.n = 0;
  uint32_t pre = 0;
  /* the root: printed with the root field and no alias */
  MMFrame *f = stack_push(frames);
  if (!f) return 0;
  memset(f, 0, sizeof *f);
  f->slot = &tree->root;
  f->s = tree->root;
  f->field = FIELD_ROOT;
  f->visible = ts_subtree_missing(f->s) || (ts_subtree_visible(f->s) && ts_subtree_named(f->s));
  f->pre = pre++;
  if (!u32_push(&st->gids, NONE) || !u32_push(&st->sizes, 0)) return 0;
  if (f->visible) {
    group_head(t, l, f->s, 0, false, &f->head_tag, &f->head);
    f->items_start = 0;
  } else {
    uint32_t hid = hidden_id(t, l, f->s);
    if (hid == NONE || !u32_push(&st->items, 0) || !u32_push(&st->items, hid)) return 0;
  }
  f->wanted = NONE;
  f->rewalk = 0;
  if (ts_subtree_visible_child_count(f->s)) { /* the root's id is the whole printout, set at the end */
    f->wanted = (uint32_t)st->ids.n;
    if (!u32_push(&st->ids, NONE) || !u32_push(&st->wanted_walk, (uint32_t)(uintptr_t)f->slot) ||
        !u32_push(&st->wanted_walk, (uint32_t)((uint64_t)(uintptr_t)f->slot >> 32)))
      return 0;
  }
  frame_children(l, f);
  while (frames->n) {
    f = stack_top(frames);
    if (f->child < ts_subtree_child_count(f->s)) {
      const Subtree *slot = &f->s.ptr->children[f->child++];
      Subtree child = *slot;
      bool extra = ts_subtree_extra(child);
      MMChildContext c = child_context(t, l, f, child);
      bool api_visible = ts_subtree_visible(child) || (!extra && c.alias);
      MMFrame *g = stack_push(frames);
      if (!g || !u32_push(&st->gids, NONE) || !u32_push(&st->sizes, 0)) return 0;
      f = NULL; /* the push may have moved the frames */
      memset(g, 0, sizeof *g);
      g->slot = slot;
      g->s = child;
      g->field = c.field;
      g->visible = c.visible;
      g->pre = pre++;
      g->wanted = NONE;
      if (c.visible) {
        group_head(t, l, child, c.alias, c.alias_is_named, &g->head_tag, &g->head);
        g->items_start = (uint32_t)st->items.n;
      } else if (c.field == FIELD_ROOT) {
        uint32_t hid = hidden_id(t, l, child);
        if (hid == NONE || !u32_push(&st->items, 0) || !u32_push(&st->items, hid)) return 0;
      }
      if (api_visible && ts_subtree_visible_child_count(child)) {
        g->wanted = (uint32_t)st->ids.n;
        /* its own printout is its group here when it is printed alike: visible, without an alias */
        g->rewalk = !(c.visible && !c.alias);
        if (!u32_push(&st->ids, NONE) || !u32_push(&st->wanted_walk, (uint32_t)(uintptr_t)slot) ||
            !u32_push(&st->wanted_walk, (uint32_t)((uint64_t)(uintptr_t)slot >> 32)))
          return 0;
      }
      frame_children(l, g);
      continue;
    }
    /* close the node */
    st->sizes.a[f->pre] = pre - f->pre;
    uint32_t gid = NONE;
    if (f->visible) {
      uint32_t n = (uint32_t)((st->items.n - f->items_start) / 2);
      gid = table_key(t, f->head_tag, f->head, st->items.a + f->items_start, n);
      if (gid == NONE) return 0;
      st->items.n = f->items_start;
      st->gids.a[f->pre] = gid;
      if (frames->n > 1 && (!u32_push(&st->items, f->field == FIELD_ROOT ? 0 : f->field) || !u32_push(&st->items, gid)))
        return 0;
    }
    if (f->wanted != NONE && frames->n > 1) {
      uint32_t id = f->rewalk ? print_alone(st, l, f->slot, f->pre) : gid;
      if (id == NONE) return 0;
      st->ids.a[f->wanted] = id;
    }
    frames->n--;
  }
  /* the root: its group, or (invisible) its item sequence */
  uint32_t whole = st->gids.a[0];
  if (whole == NONE) {
    whole = top_id(t, st->items.a, (uint32_t)(st->items.n / 2));
    if (whole == NONE) return 0;
  }
  if (st->ids.n) {
    st->ids.a[0] = whole;
  } else if (!u32_push(&st->ids, whole)) {
    return 0;
  }
  return 1;
}

/* ------------------------------------------------------------------------------------------------ */
/* the entry point                                                                                   */
/* ------------------------------------------------------------------------------------------------ */
/* Parse `source` with `parser` and walk the tree (see the top of this file); the results are in
   mm_state_out(st) until the next call. `flags`: F_* bits per symbol index (symbol_index: the grammar's
   symbols, then ERROR and _ERROR). Returns MM_OK, MM_TOO_DEEP (deeper than depth_limit: nothing else is
   filled in), MM_MISMATCH (the two walks disagree on the nodes with children: not expected), MM_NO_TREE
   or MM_NO_MEMORY. */
int mm_walk(MMState *st, TSParser *parser, const char *source, uint32_t length, const uint8_t *flags,
            uint32_t nflags, uint32_t depth_limit) {
  MMOut *out = &st->out;
  memset(out, 0, sizeof *out);
  out->root_code = INT32_MIN;
  MMU32s *bufs[] = {&st->tok_sym, &st->tok_start, &st->tok_end, &st->node_sym, &st->node_lo, &st->node_hi,
                  &st->node_flags, &st->kid_parent, &st->kid_code, &st->kid_field, &st->wanted_cursor,
                  &st->kid_ptr, &st->kid_sorted_code, &st->kid_sorted_field, &st->ids};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) bufs[i]->n = 0;
  TSTree *tree = ts_parser_parse_string(parser, NULL, source, length);
  if (!tree) return MM_NO_TREE;
  MMLangNames *l = table_language(&st->table, tree->language);
  int rc = MM_NO_MEMORY;
  if (!l) goto done;
  TSNode root = ts_tree_root_node(tree);
  out->has_error = ts_node_has_error(root);
  if (ts_node_child_count(root) == 0) {
    TSSymbol symbol = ts_node__alias(&root);
    if (!symbol) symbol = ts_subtree_symbol(ts_node__subtree(root));
    out->leaf_root = 1;
    out->root_sym = symbol_index(tree->language, symbol);
    out->root_named = ts_node_is_named(root);
    out->root_start = ts_node_start_byte(root);
    out->root_end = ts_node_end_byte(root);
  } else {
    rc = cursor_walk(st, root, flags, nflags, depth_limit);
    if (rc != MM_OK) goto done;
    rc = MM_NO_MEMORY;
    if (!group_kids(st)) goto done;
  }
  if (!subtree_walk(st, tree, l)) goto done;
  rc = MM_MISMATCH;
  if (st->wanted_walk.n != st->wanted_cursor.n ||
      memcmp(st->wanted_walk.a, st->wanted_cursor.a, st->wanted_cursor.n * sizeof(uint32_t)))
    goto done;
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
  rc = MM_OK;
done:
  ts_tree_delete(tree);
  return rc;
}
