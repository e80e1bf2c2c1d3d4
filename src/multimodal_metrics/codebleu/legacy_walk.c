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
 *     root and of every node with children, in pre-order (CodeXGLUE's get_all_sub_trees);
 *  3. the data flow of the snippet (multimodal_metrics.codebleu.dataflow_walk._Flow and dataflow._items,
 *     ported for the rule styles of python and java), its normalised items interned in the same table,
 *     where the code is ASCII (else the caller runs the Python data flow on the flat nodes).
 *
 * A tree deeper than the caller's limit (counted like legacy_runtime.subtree_ids) is not walked
 * (MM_TOO_DEEP): the caller then takes its Python path, whose keys it interns into the same table with
 * mm_table_key(). Only the C standard library is used. wheels_walk.c includes this file with MM_WHEELS defined
 * (the runtime of tree-sitter 0.26 and the grammar wheels): sections 1 and 3 are shared, section 2 and the entry
 * point are its own.
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
  uint32_t flow_status; /* the data flow: 0 done, 1 over the work limit (no items), 2 left to the caller */
  uint32_t nflow;
  uint32_t *flow;       /* its normalised items, as ids of the table */
  int64_t flow_left;    /* the work left of the data flow's budget when it ended (its tests compare it) */
  uint32_t unprinted;   /* wheels_walk.c: subtrees over a hidden MISSING token too deep to print */
} MMOut;

typedef struct {
  MMTable table;
  MMOut out;
  MMU32s tok_sym, tok_start, tok_end, node_sym, node_lo, node_hi, node_flags, kid_parent, kid_code, kid_field,
      kid_ptr, kid_sorted_code, kid_sorted_field, ids, wanted_cursor, wanted_walk, items, rbuf, gids, sizes;
  MMStack cframes, dframes, rframes;
  struct FlowState *fs;
} MMState;

static void flow_free(struct FlowState *fs);

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
  flow_free(st->fs);
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

#ifndef MM_WHEELS /* the printer of the runtime of 2020 (wheels_walk.c has its own ids) */
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

#endif /* MM_WHEELS */

/* ------------------------------------------------------------------------------------------------ */
/* 3. the data flow: multimodal_metrics.codebleu.dataflow_walk._Flow and dataflow._items, ported       */
/* ------------------------------------------------------------------------------------------------ */
/* The rule styles of python and java (dataflow._RULES); other languages take the Python data flow. */
#define H_NONE 0
#define H_DEF 1    /* "fields" definitions */
#define H_ASSIGN 2 /* assignments (assign_style) */
#define H_INC 3
#define H_IF 4
#define H_FOR 5
#define H_EFOR 6 /* enhanced for, fields style */
#define H_WHILE 7
/* symbol flags of the rules (MMRules.symflags) */
#define R_IDENT 1       /* "identifier" */
#define R_ELSE 2        /* "else" in the type name */
#define R_PY_ELSE 4     /* elif_clause, else_clause */
#define R_IFS 8         /* one of the rules' if types */
#define R_COMMA 16      /* "," */
#define R_BLOCK 32      /* "block" */
#define R_FOR_MARKER 64 /* the rules' for_marker */
#define R_DO_FIRST 128  /* one of the rules' do_first types */
#define R_FOR_IN 256    /* "for_in_clause" */

typedef struct {
  const uint8_t *handler;   /* per symbol index: H_* */
  const uint16_t *symflags; /* per symbol index: R_* */
  uint32_t nsym;
  uint32_t assign_python; /* assign_style "python" (else "simple") */
  uint32_t if_python;     /* if_style "python" (else "flag") */
  uint32_t for_python;    /* for_style "python" (else "c") */
  uint32_t with_incoming_untagged, merge_incoming; /* if_tag, merge_incoming */
  uint32_t def_name, def_value, left, right, efor_name, efor_value, efor_body; /* field ids (NONE: absent) */
  int64_t work_per_token, work_floor;
  uint32_t max_depth; /* deeper rule nesting: the Python data flow (C recursion) */
} MMRules;

#define NIL INT32_MIN     /* None where a node is expected */
#define PS_NONE (-1)      /* an empty position set (None) */
#define S_MISSING INT32_MIN
#define REL_COMES 0
#define REL_COMPUTED 1
#define TAG_FLOW 8

#define E_OK 0
#define E_LIMIT 1 /* DataflowLimit */
#define E_ERROR 2 /* an exception of the Python walk: no data flow */
#define E_NOMEM 3
#define E_DEEP 4 /* nested deeper than max_depth: the caller runs the Python data flow */

typedef struct {
  int32_t name, pos;
  uint32_t rel;
  uint32_t par_off, par_n; /* parent names in fl->parents */
  int32_t ppos;            /* parent positions: PS_NONE, a position, or ~union - 1 */
} Edge;

typedef struct {
  Edge *a;
  size_t n, cap;
} Edges;

typedef struct {
  MMState *st;
  const MMRules *r;
  /* tokens */
  uint32_t ntok;
  const uint32_t *tok_sym;
  int32_t *pos, *text;
  uint32_t *before, *vars;
  uint8_t *is_var;
  uint32_t ntext;
  /* flat nodes */
  const uint32_t *node_sym, *node_lo, *node_hi, *node_flags, *kid_ptr, *kid_field;
  const int32_t *kid_code;
  uint8_t *first;
  /* the walk */
  int32_t *S;
  MMU32s J; /* pairs (name, old value) */
  Edges out;
  MMU32s folded; /* pairs (edge index, extra edges) */
  MMU32s parents; /* parent names of the edges */
  MMU32s unions;  /* union nodes: [n, children...] */
  MMU32s scratch; /* LIFO scratch for the rules' lists */
  uint32_t *stamp, stamp_gen;  /* per text id */
  uint32_t *slot;              /* per text id: slot of a changed name (rule_if), number (items) */
  uint32_t *stamp2, stamp2_gen; /* per text id */
  uint32_t *pstamp, pstamp_gen; /* per position */
  uint32_t *ustamp, ustamp_cap, ustamp_gen; /* per union node */
  int64_t left;
  uint32_t depth;
} Flow;

static inline int32_t ps_union_ref(uint32_t offset) { return -2 - (int32_t)offset; }
static inline uint32_t ps_union_offset(int32_t ps) { return (uint32_t)(-2 - ps); }

static int edges_push(Edges *e, Edge edge) {
  if (e->n == e->cap) {
    size_t cap = e->cap ? e->cap * 2 : 256;
    Edge *a = realloc(e->a, cap * sizeof(Edge));
    if (!a) return 0;
    e->a = a;
    e->cap = cap;
  }
  e->a[e->n++] = edge;
  return 1;
}

static inline int spend(Flow *fl, int64_t units) {
  fl->left -= units;
  return fl->left < 0 ? E_LIMIT : E_OK;
}

static inline uint32_t kind_of(Flow *fl, int32_t code) {
  uint32_t sym = code >= 0 ? fl->tok_sym[code] : fl->node_sym[~code];
  return sym < fl->r->nsym ? fl->r->symflags[sym] : 0;
}

static inline uint32_t handler_of(Flow *fl, int32_t node) {
  uint32_t sym = fl->node_sym[~node];
  return sym < fl->r->nsym ? fl->r->handler[sym] : H_NONE;
}

/* the first child of a node with this field, or NIL (fields.get(name)) */
static int32_t field_child(Flow *fl, int32_t node, uint32_t field) {
  uint32_t i = ~node;
  for (uint32_t k = fl->kid_ptr[i]; k < fl->kid_ptr[i + 1]; k++)
    if (fl->kid_field[k] == field) return fl->kid_code[k];
  return NIL;
}

/* the union stamps cover every union node (indexed by its offset in fl->unions) */
static int ustamp_fit(Flow *fl) {
  if (fl->unions.n <= fl->ustamp_cap) return 1;
  size_t cap = fl->ustamp_cap ? fl->ustamp_cap : 1024;
  while (cap < fl->unions.n) cap *= 2;
  uint32_t *s = realloc(fl->ustamp, cap * sizeof(uint32_t));
  if (!s) return 0;
  memset(s + fl->ustamp_cap, 0, (cap - fl->ustamp_cap) * sizeof(uint32_t));
  fl->ustamp = s;
  fl->ustamp_cap = (uint32_t)cap;
  return 1;
}

/* a union of position sets (lazy; only flattened once) */
static int32_t ps_union(Flow *fl, const int32_t *values, uint32_t n) {
  if (n == 1) return values[0];
  /* de-duplicated like dataflow_walk._union (positions by value, unions by identity) */
  uint32_t mark = (uint32_t)fl->unions.n;
  if (!u32_push(&fl->unions, 0)) return NIL;
  if (++fl->pstamp_gen == 0) memset(fl->pstamp, 0, fl->ntok * sizeof(uint32_t)), fl->pstamp_gen = 1;
  if (++fl->ustamp_gen == 0) memset(fl->ustamp, 0, fl->ustamp_cap * sizeof(uint32_t)), fl->ustamp_gen = 1;
  uint32_t unique = 0;
  int32_t only = PS_NONE;
  for (uint32_t i = 0; i < n; i++) {
    int32_t v = values[i];
    if (v >= 0) {
      if (fl->pstamp[v] == fl->pstamp_gen) continue;
      fl->pstamp[v] = fl->pstamp_gen;
    } else {
      uint32_t u = ps_union_offset(v);
      if (u < fl->ustamp_cap) {
        if (fl->ustamp[u] == fl->ustamp_gen) continue;
        fl->ustamp[u] = fl->ustamp_gen;
      }
    }
    if (!u32_push(&fl->unions, (uint32_t)v)) return NIL;
    unique++;
    only = v;
  }
  if (unique == 1) {
    fl->unions.n = mark;
    return only;
  }
  fl->unions.a[mark] = unique;
  if (!ustamp_fit(fl)) return NIL;
  return ps_union_ref(mark);
}

static inline int set_state(Flow *fl, int32_t name, int32_t value) {
  if (!u32_push(&fl->J, (uint32_t)name) || !u32_push(&fl->J, (uint32_t)fl->S[name])) return E_NOMEM;
  fl->S[name] = value;
  return E_OK;
}

/* var_tokens: the variables of a token or a node, as a slice [*a, *b) of fl->vars */
static int var_tokens(Flow *fl, int32_t code, uint32_t *a, uint32_t *b) {
  if (code == NIL) return E_ERROR;
  if (code >= 0) {
    *a = fl->before[code];
    *b = *a + fl->is_var[code];
    return E_OK;
  }
  uint32_t lo = fl->node_lo[~code], hi = fl->node_hi[~code];
  fl->left -= hi - lo;
  if (fl->left < 0) return E_LIMIT;
  *a = fl->before[lo];
  *b = fl->before[hi];
  return E_OK;
}

static int tokens(Flow *fl, uint32_t lo, uint32_t hi) {
  fl->left -= hi - lo;
  if (fl->left < 0) return E_LIMIT;
  uint32_t a = fl->before[lo], b = fl->before[hi];
  for (uint32_t k = a; k < b; k++) {
    uint32_t i = fl->vars[k];
    int32_t text = fl->text[i];
    int32_t positions = fl->S[text];
    Edge e = {text, fl->pos[i], REL_COMES, 0, 0, PS_NONE};
    if (positions != S_MISSING) {
      e.par_off = (uint32_t)fl->parents.n;
      e.par_n = 1;
      e.ppos = positions;
      if (!u32_push(&fl->parents, (uint32_t)text)) return E_NOMEM;
    } else if (fl->r->symflags[fl->tok_sym[i]] & R_IDENT) {
      if (set_state(fl, text, fl->pos[i])) return E_NOMEM;
    }
    if (!edges_push(&fl->out, e)) return E_NOMEM;
  }
  return E_OK;
}

/* flat(): a token or a rule-free node processed in place (1), or a node with a rule (0); <0: -error */
static int flat(Flow *fl, int32_t code) {
  if (code == NIL) return -E_ERROR;
  if (code >= 0) {
    int rc = tokens(fl, (uint32_t)code, (uint32_t)code + 1);
    return rc ? -rc : 1;
  }
  uint32_t i = ~code;
  if (fl->node_flags[i] & N_SPECIAL) return 0;
  if (fl->node_lo[i] < fl->node_hi[i]) {
    int rc = tokens(fl, fl->node_lo[i], fl->node_hi[i]);
    if (rc) return -rc;
  }
  return 1;
}

static int process(Flow *fl, int32_t node);

/* flat() or process() */
static inline int visit(Flow *fl, int32_t code) {
  int f = flat(fl, code);
  if (f < 0) return -f;
  return f ? E_OK : process(fl, code);
}

/* edges(): the parent names (de-duplicated, first seen) and positions of one edge from sources [a, b) */
static int edge_parents(Flow *fl, uint32_t a, uint32_t b, uint32_t *off, uint32_t *n, int32_t *ppos) {
  uint32_t k = b - a;
  *off = (uint32_t)fl->parents.n;
  if (k == 1) {
    uint32_t s = fl->vars[a];
    *n = 1;
    *ppos = fl->pos[s];
    return u32_push(&fl->parents, (uint32_t)fl->text[s]) ? E_OK : E_NOMEM;
  }
  if (++fl->stamp_gen == 0) memset(fl->stamp, 0, fl->ntext * sizeof(uint32_t)), fl->stamp_gen = 1;
  *n = 0;
  for (uint32_t j = a; j < b; j++) {
    int32_t t = fl->text[fl->vars[j]];
    if (fl->stamp[t] == fl->stamp_gen) continue;
    fl->stamp[t] = fl->stamp_gen;
    if (!u32_push(&fl->parents, (uint32_t)t)) return E_NOMEM;
    (*n)++;
  }
  /* the positions as one union node (no de-duplication: only the set matters) */
  uint32_t mark = (uint32_t)fl->unions.n;
  if (!u32_push(&fl->unions, k)) return E_NOMEM;
  for (uint32_t j = a; j < b; j++)
    if (!u32_push(&fl->unions, (uint32_t)fl->pos[fl->vars[j]])) return E_NOMEM;
  if (!ustamp_fit(fl)) return E_NOMEM;
  *ppos = ps_union_ref(mark);
  return E_OK;
}

static int cross(Flow *fl, int32_t targets, uint32_t sa, uint32_t sb, uint32_t rel) {
  uint32_t k = sb - sa, off = 0, n = 0;
  int32_t ppos = PS_NONE;
  int rc;
  if (k && (rc = edge_parents(fl, sa, sb, &off, &n, &ppos))) return rc;
  uint32_t ta, tb;
  if ((rc = var_tokens(fl, targets, &ta, &tb))) return rc;
  for (uint32_t j = ta; j < tb; j++) {
    uint32_t t = fl->vars[j];
    fl->left -= k + 1;
    if (fl->left < 0) return E_LIMIT;
    if (k) {
      Edge e = {fl->text[t], fl->pos[t], rel, off, n, ppos};
      if (!edges_push(&fl->out, e)) return E_NOMEM;
      if (k > 1 && (!u32_push(&fl->folded, (uint32_t)fl->out.n - 1) || !u32_push(&fl->folded, k - 1)))
        return E_NOMEM;
    }
    if (set_state(fl, fl->text[t], fl->pos[t])) return E_NOMEM;
  }
  return E_OK;
}

static int all_from(Flow *fl, int32_t left_node, int32_t right_node) {
  uint32_t ra, rb, ta, tb;
  int rc;
  if ((rc = var_tokens(fl, right_node, &ra, &rb))) return rc;
  uint32_t n = rb - ra, off = (uint32_t)fl->parents.n;
  for (uint32_t j = ra; j < rb; j++)
    if (!u32_push(&fl->parents, (uint32_t)fl->text[fl->vars[j]])) return E_NOMEM;
  int32_t ppos = PS_NONE;
  if (n == 1) {
    ppos = fl->pos[fl->vars[ra]];
  } else if (n > 1) {
    uint32_t mark = (uint32_t)fl->unions.n;
    if (!u32_push(&fl->unions, n)) return E_NOMEM;
    for (uint32_t j = ra; j < rb; j++)
      if (!u32_push(&fl->unions, (uint32_t)fl->pos[fl->vars[j]])) return E_NOMEM;
    if (!ustamp_fit(fl)) return E_NOMEM;
    ppos = ps_union_ref(mark);
  }
  if ((rc = var_tokens(fl, left_node, &ta, &tb))) return rc;
  for (uint32_t j = ta; j < tb; j++) {
    uint32_t t = fl->vars[j];
    fl->left -= n + 1;
    if (fl->left < 0) return E_LIMIT;
    Edge e = {fl->text[t], fl->pos[t], REL_COMPUTED, off, n, ppos};
    if (!edges_push(&fl->out, e)) return E_NOMEM;
    if (set_state(fl, fl->text[t], fl->pos[t])) return E_NOMEM;
  }
  return E_OK;
}

/* capture(mark) into scratch: pairs (name, value) of the names changed since J mark, first seen order */
static int capture(Flow *fl, uint32_t mark, uint32_t *off, uint32_t *n) {
  int rc;
  if ((rc = spend(fl, (int64_t)(fl->J.n / 2 - mark)))) return rc;
  if (++fl->stamp_gen == 0) memset(fl->stamp, 0, fl->ntext * sizeof(uint32_t)), fl->stamp_gen = 1;
  *off = (uint32_t)fl->scratch.n;
  *n = 0;
  for (size_t k = mark; k < fl->J.n / 2; k++) {
    int32_t name = (int32_t)fl->J.a[2 * k];
    if (fl->stamp[name] == fl->stamp_gen) continue;
    fl->stamp[name] = fl->stamp_gen;
    if (!u32_push(&fl->scratch, (uint32_t)name) || !u32_push(&fl->scratch, (uint32_t)fl->S[name])) return E_NOMEM;
    (*n)++;
  }
  return E_OK;
}

static int undo(Flow *fl, uint32_t mark) {
  int rc;
  if ((rc = spend(fl, (int64_t)(fl->J.n / 2 - mark)))) return rc;
  while (fl->J.n / 2 > mark) {
    fl->J.n -= 2;
    fl->S[fl->J.a[fl->J.n]] = (int32_t)fl->J.a[fl->J.n + 1];
  }
  return E_OK;
}

/* _merge_loop over out[start:] */
static int merge_loop(Flow *fl, size_t start) {
  size_t n = fl->out.n - start;
  if (n < 2) return E_OK;
  size_t nslots = 16;
  while (nslots < 2 * n) nslots *= 2;
  uint32_t *slots = calloc(nslots, sizeof(uint32_t));       /* group index + 1 */
  uint32_t *group_of = malloc(n * sizeof(uint32_t));        /* entry -> group */
  uint32_t *first = malloc(n * sizeof(uint32_t));           /* group -> first entry */
  uint32_t *count = calloc(n, sizeof(uint32_t));            /* group -> entries */
  int rc = E_NOMEM;
  if (!slots || !group_of || !first || !count) goto done;
  uint32_t ngroups = 0;
  Edge *e = fl->out.a + start;
  for (size_t i = 0; i < n; i++) {
    uint64_t h = mix(((uint64_t)(uint32_t)e[i].name << 32 | (uint32_t)e[i].pos) ^ ((uint64_t)e[i].rel << 61));
    size_t j = (size_t)h & (nslots - 1);
    uint32_t g = NONE;
    while (slots[j]) {
      Edge *o = &e[first[slots[j] - 1]];
      if (o->name == e[i].name && o->pos == e[i].pos && o->rel == e[i].rel) {
        g = slots[j] - 1;
        break;
      }
      j = (j + 1) & (nslots - 1);
    }
    if (g == NONE) {
      g = ngroups++;
      slots[j] = g + 1;
      first[g] = (uint32_t)i;
    }
    group_of[i] = g;
    count[g]++;
  }
  rc = E_OK;
  if (ngroups == n) goto done;
  /* merged groups: names concatenated and de-duplicated, positions united; in first-seen order */
  Edge *merged = malloc(ngroups * sizeof(Edge));
  rc = E_NOMEM;
  if (!merged) goto done;
  for (uint32_t g = 0; g < ngroups; g++) merged[g] = e[first[g]];
  /* for groups of several entries: parents and positions folded in entry order */
  int32_t *par_pos = malloc(ngroups * sizeof(int32_t));
  if (!par_pos) {
    free(merged);
    goto done;
  }
  for (uint32_t g = 0; g < ngroups; g++) par_pos[g] = PS_NONE;
  for (size_t i = 0; i < n; i++) {
    uint32_t g = group_of[i];
    if (count[g] < 2) continue;
    int32_t other = e[i].ppos;
    if (par_pos[g] == PS_NONE) {
      par_pos[g] = other;
    } else if (other != PS_NONE) {
      int32_t pair[2] = {par_pos[g], other};
      uint32_t mark = (uint32_t)fl->unions.n;
      if (!u32_push(&fl->unions, 2) || !u32_push(&fl->unions, (uint32_t)pair[0]) ||
          !u32_push(&fl->unions, (uint32_t)pair[1]) ||
          !ustamp_fit(fl)) {
        free(merged);
            free(par_pos);
        goto done;
      }
      par_pos[g] = ps_union_ref(mark);
    }
  }
  /* parent names: per group in entry order, de-duplicated (first seen) */
  for (uint32_t g = 0; g < ngroups; g++) {
    if (count[g] < 2) continue;
    merged[g].par_off = (uint32_t)fl->parents.n;
    merged[g].par_n = 0;
    merged[g].ppos = par_pos[g];
  }
  /* one pass per group would be quadratic: gather each group's names with a per-group stamp */
  {
    /* entries of each group in order: a linked list */
    uint32_t *next = malloc(n * sizeof(uint32_t)), *head = malloc(ngroups * sizeof(uint32_t)),
             *tail = malloc(ngroups * sizeof(uint32_t));
    if (!next || !head || !tail) {
      free(next);
      free(head);
      free(tail);
      free(merged);
        free(par_pos);
      goto done;
    }
    for (uint32_t g = 0; g < ngroups; g++) head[g] = NONE;
    for (size_t i = 0; i < n; i++) {
      uint32_t g = group_of[i];
      next[i] = NONE;
      if (head[g] == NONE) head[g] = (uint32_t)i;
      else next[tail[g]] = (uint32_t)i;
      tail[g] = (uint32_t)i;
    }
    int ok = 1;
    for (uint32_t g = 0; g < ngroups && ok; g++) {
      if (count[g] < 2) continue;
      if (++fl->stamp_gen == 0) memset(fl->stamp, 0, fl->ntext * sizeof(uint32_t)), fl->stamp_gen = 1;
      merged[g].par_off = (uint32_t)fl->parents.n;
      for (uint32_t i = head[g]; i != NONE && ok; i = next[i]) {
        for (uint32_t k = 0; k < e[i].par_n; k++) {
          uint32_t t = fl->parents.a[e[i].par_off + k];
          if (fl->stamp[t] == fl->stamp_gen) continue;
          fl->stamp[t] = fl->stamp_gen;
          if (!u32_push(&fl->parents, t)) {
            ok = 0;
            break;
          }
          merged[g].par_n++;
        }
      }
    }
    free(next);
    free(head);
    free(tail);
    if (!ok) {
      free(merged);
        free(par_pos);
      goto done;
    }
  }
  memcpy(e, merged, ngroups * sizeof(Edge));
  fl->out.n = start + ngroups;
  free(merged);
  free(par_pos);
  rc = E_OK;
done:
  free(slots);
  free(group_of);
  free(first);
  free(count);
  return rc;
}

static int merge_loop_since(Flow *fl, size_t start) {
  int64_t count = (int64_t)(fl->out.n - start);
  while (fl->folded.n && fl->folded.a[fl->folded.n - 2] >= start) {
    count += fl->folded.a[fl->folded.n - 1];
    fl->folded.n -= 2;
  }
  int rc = spend(fl, count);
  if (rc) return rc;
  return merge_loop(fl, start);
}

/* the children of a node (a token or NIL: none / an error) */
static inline int kids_of(Flow *fl, int32_t code, uint32_t *a, uint32_t *b) {
  if (code == NIL) return E_ERROR;
  if (code >= 0) {
    *a = *b = 0;
    return E_OK;
  }
  *a = fl->kid_ptr[~code];
  *b = fl->kid_ptr[~code + 1];
  return E_OK;
}

/* pairs(): lefts and rights pushed on the scratch (codes), *nl and *nr of them */
static int pairs(Flow *fl, int32_t node, uint32_t *nl, uint32_t *nr) {
  int32_t left_node = field_child(fl, node, fl->r->left), right_node = field_child(fl, node, fl->r->right);
  uint32_t la, lb, ra, rb;
  int rc;
  if ((rc = kids_of(fl, left_node, &la, &lb))) return rc;
  if ((rc = kids_of(fl, right_node, &ra, &rb))) return rc;
  size_t base = fl->scratch.n;
  *nl = *nr = 0;
  for (uint32_t k = la; k < lb; k++)
    if (!(kind_of(fl, fl->kid_code[k]) & R_COMMA)) {
      if (!u32_push(&fl->scratch, (uint32_t)fl->kid_code[k])) return E_NOMEM;
      (*nl)++;
    }
  for (uint32_t k = ra; k < rb; k++)
    if (!(kind_of(fl, fl->kid_code[k]) & R_COMMA)) {
      if (!u32_push(&fl->scratch, (uint32_t)fl->kid_code[k])) return E_NOMEM;
      (*nr)++;
    }
  if (*nr != *nl || *nl == 0) { /* [left_node], [right_node] where the counts differ or both are empty */
    fl->scratch.n = base;
    if (!u32_push(&fl->scratch, (uint32_t)left_node) || !u32_push(&fl->scratch, (uint32_t)right_node))
      return E_NOMEM;
    *nl = *nr = 1;
  }
  return E_OK;
}

static int rule_define(Flow *fl, int32_t node) {
  int32_t name = field_child(fl, node, fl->r->def_name), value = field_child(fl, node, fl->r->def_value);
  uint32_t a, b;
  int rc;
  if (value == NIL) {
    if ((rc = var_tokens(fl, name, &a, &b))) return rc;
    for (uint32_t j = a; j < b; j++) {
      uint32_t i = fl->vars[j];
      Edge e = {fl->text[i], fl->pos[i], REL_COMES, 0, 0, PS_NONE};
      if (!edges_push(&fl->out, e) || set_state(fl, fl->text[i], fl->pos[i])) return E_NOMEM;
    }
    return E_OK;
  }
  if ((rc = var_tokens(fl, value, &a, &b))) return rc;
  if (value >= 0) {
    if ((rc = tokens(fl, (uint32_t)value, (uint32_t)value + 1))) return rc;
  } else if (fl->node_flags[~value] & N_SPECIAL) {
    if ((rc = process(fl, value))) return rc;
  } else if (fl->node_lo[~value] < fl->node_hi[~value]) {
    if ((rc = tokens(fl, fl->node_lo[~value], fl->node_hi[~value]))) return rc;
  }
  return cross(fl, name, a, b, REL_COMES);
}

static int rule_assign_simple(Flow *fl, int32_t node) {
  int32_t left = field_child(fl, node, fl->r->left), right = field_child(fl, node, fl->r->right);
  int rc;
  if (right >= 0) {
    if ((rc = tokens(fl, (uint32_t)right, (uint32_t)right + 1))) return rc;
    uint32_t a = fl->before[right];
    return cross(fl, left, a, a + fl->is_var[right], REL_COMPUTED);
  }
  if (right == NIL) return E_ERROR;
  uint32_t a, b;
  if (fl->node_flags[~right] & N_SPECIAL) {
    if ((rc = process(fl, right))) return rc;
  } else if (fl->node_lo[~right] < fl->node_hi[~right]) {
    if ((rc = tokens(fl, fl->node_lo[~right], fl->node_hi[~right]))) return rc;
  }
  if ((rc = var_tokens(fl, right, &a, &b))) return rc;
  return cross(fl, left, a, b, REL_COMPUTED);
}

static int rule_assign_python(Flow *fl, int32_t node) {
  size_t base = fl->scratch.n;
  uint32_t nl, nr;
  int rc;
  if (kind_of(fl, node) & R_FOR_IN) {
    uint32_t a = fl->kid_ptr[~node], b = fl->kid_ptr[~node + 1];
    int32_t left = field_child(fl, node, fl->r->left);
    if (a == b) return E_ERROR; /* node.kids[-1] of no children */
    if (!u32_push(&fl->scratch, (uint32_t)left) || !u32_push(&fl->scratch, (uint32_t)fl->kid_code[b - 1]))
      return E_NOMEM;
    nl = nr = 1;
  } else {
    if (field_child(fl, node, fl->r->right) == NIL) return E_OK;
    if ((rc = pairs(fl, node, &nl, &nr))) return rc;
  }
  /* lefts at scratch[base .. base + nl), rights after them */
  uint32_t n = nl < nr ? nl : nr;
  for (uint32_t k = 0; k < nr; k++) {
    int f = flat(fl, (int32_t)fl->scratch.a[base + nl + k]);
    if (f < 0) return -f;
    if (!f) { /* assign_after: this right processed, the later ones visited, then the edges */
      if ((rc = process(fl, (int32_t)fl->scratch.a[base + nl + k]))) return rc;
      for (uint32_t m = k + 1; m < nr; m++)
        if ((rc = visit(fl, (int32_t)fl->scratch.a[base + nl + m]))) return rc;
      break;
    }
  }
  for (uint32_t k = 0; k < n; k++)
    if ((rc = all_from(fl, (int32_t)fl->scratch.a[base + k], (int32_t)fl->scratch.a[base + nl + k]))) return rc;
  fl->scratch.n = base;
  return E_OK;
}

static int rule_increment(Flow *fl, int32_t node) {
  uint32_t a, b;
  int rc;
  if ((rc = var_tokens(fl, node, &a, &b))) return rc;
  int64_t k = b - a;
  if ((rc = spend(fl, k * (k + 1)))) return rc;
  uint32_t off = 0, n = 0;
  int32_t ppos = PS_NONE;
  if (k && (rc = edge_parents(fl, a, b, &off, &n, &ppos))) return rc;
  for (uint32_t j = a; j < b; j++) {
    uint32_t t = fl->vars[j];
    Edge e = {fl->text[t], fl->pos[t], REL_COMPUTED, off, n, ppos};
    if (!edges_push(&fl->out, e)) return E_NOMEM;
    if (k > 1 && (!u32_push(&fl->folded, (uint32_t)fl->out.n - 1) || !u32_push(&fl->folded, (uint32_t)k - 1)))
      return E_NOMEM;
    if (set_state(fl, fl->text[t], fl->pos[t])) return E_NOMEM;
  }
  return E_OK;
}

static int rule_while(Flow *fl, int32_t node) {
  size_t start = fl->out.n;
  uint32_t a = fl->kid_ptr[~node], b = fl->kid_ptr[~node + 1];
  int rc;
  for (int pass = 0; pass < 2; pass++)
    for (uint32_t k = a; k < b; k++)
      if ((rc = visit(fl, fl->kid_code[k]))) return rc;
  return merge_loop_since(fl, start);
}

static int rule_if(Flow *fl, int32_t node) {
  const MMRules *r = fl->r;
  uint32_t mark = (uint32_t)(fl->J.n / 2);
  size_t base = fl->scratch.n;
  /* branches: (offset, count) of captures on the scratch; others first, own last */
  MMU32s branches = {0, 0, 0};
  uint32_t own_off = 0, own_n = 0;
  int in_own = 0, flag = 0, rc = E_OK;
  int tag = (kind_of(fl, node) & R_ELSE) != 0;
  uint32_t a = fl->kid_ptr[~node], b = fl->kid_ptr[~node + 1];
  for (uint32_t k = a; k < b && !rc; k++) {
    int32_t child = fl->kid_code[k];
    uint32_t kind = kind_of(fl, child);
    if (kind & R_ELSE) tag = 1;
    int own_branch = r->if_python ? !(kind & R_PY_ELSE) : !(kind & R_IFS) && !flag;
    if (own_branch) {
      if (!in_own) {
        for (uint32_t m = 0; m < own_n && !rc; m++)
          rc = set_state(fl, (int32_t)fl->scratch.a[own_off + 2 * m], (int32_t)fl->scratch.a[own_off + 2 * m + 1]);
        in_own = 1;
      }
      if (!rc) rc = visit(fl, child);
    } else {
      flag = 1;
      if (in_own) {
        if ((rc = capture(fl, mark, &own_off, &own_n)) || (rc = undo(fl, mark))) break;
        in_own = 0;
      }
      if ((rc = visit(fl, child))) break;
      uint32_t off, n;
      if ((rc = capture(fl, mark, &off, &n)) || (rc = undo(fl, mark))) break;
      if (!u32_push(&branches, off) || !u32_push(&branches, n)) rc = E_NOMEM;
    }
  }
  if (!rc && in_own && !(rc = capture(fl, mark, &own_off, &own_n))) rc = undo(fl, mark);
  if (!rc && (!u32_push(&branches, own_off) || !u32_push(&branches, own_n))) rc = E_NOMEM;
  if (rc) {
    free(branches.a);
    return rc;
  }
  uint32_t nbranches = (uint32_t)(branches.n / 2);
  int with_incoming = (r->with_incoming_untagged && !tag) || r->merge_incoming;
  /* the names changed in any branch, first seen (branch order), each with a slot */
  if (++fl->stamp_gen == 0) memset(fl->stamp, 0, fl->ntext * sizeof(uint32_t)), fl->stamp_gen = 1;
  size_t changed = fl->scratch.n;
  uint32_t nchanged = 0, total = 0;
  for (uint32_t g = 0; g < nbranches && !rc; g++) {
    uint32_t off = branches.a[2 * g], n = branches.a[2 * g + 1];
    total += n;
    for (uint32_t m = 0; m < n; m++) {
      uint32_t name = fl->scratch.a[off + 2 * m];
      if (fl->stamp[name] == fl->stamp_gen) continue;
      fl->stamp[name] = fl->stamp_gen;
      fl->slot[name] = nchanged++;
      if (!u32_push(&fl->scratch, name)) rc = E_NOMEM;
    }
  }
  if (!rc) rc = spend(fl, (int64_t)nchanged * (nbranches + 1));
  /* per slot: how many branches hold the name, and its values in branch order (+ room for the incoming) */
  size_t counts = fl->scratch.n, starts = counts + nchanged, vals = starts + nchanged + 1;
  if (!rc && !u32_reserve(&fl->scratch, 2 * (size_t)nchanged + 1 + total + nchanged)) rc = E_NOMEM;
  if (!rc) {
    uint32_t *w = fl->scratch.a;
    memset(w + counts, 0, nchanged * sizeof(uint32_t));
    for (uint32_t g = 0; g < nbranches; g++) {
      uint32_t off = branches.a[2 * g], n = branches.a[2 * g + 1];
      for (uint32_t m = 0; m < n; m++) w[counts + fl->slot[w[off + 2 * m]]]++;
    }
    w[starts] = 0;
    for (uint32_t c = 0; c < nchanged; c++) w[starts + c + 1] = w[starts + c] + w[counts + c] + 1;
    for (uint32_t c = 0; c < nchanged; c++) w[counts + c] = 0;
    for (uint32_t g = 0; g < nbranches; g++) {
      uint32_t off = branches.a[2 * g], n = branches.a[2 * g + 1];
      for (uint32_t m = 0; m < n; m++) {
        uint32_t c = fl->slot[w[off + 2 * m]];
        w[vals + w[starts + c] + w[counts + c]++] = w[off + 2 * m + 1];
      }
    }
    fl->scratch.n = vals + w[starts + nchanged];
    for (uint32_t c = 0; c < nchanged && !rc; c++) {
      int32_t name = (int32_t)w[changed + c];
      int32_t incoming = fl->S[name];
      uint32_t nv = w[counts + c];
      /* a branch without the name contributes the incoming states (branch.get(name, incoming)) */
      if (incoming != S_MISSING && (nv < nbranches || with_incoming)) w[vals + w[starts + c] + nv++] = (uint32_t)incoming;
      int32_t v = ps_union(fl, (const int32_t *)w + vals + w[starts + c], nv);
      rc = v == NIL ? E_NOMEM : set_state(fl, name, v);
    }
  }
  free(branches.a);
  fl->scratch.n = base;
  return rc;
}

static int rule_for(Flow *fl, int32_t node) {
  size_t start = fl->out.n;
  int rc;
  uint32_t a = fl->kid_ptr[~node], b = fl->kid_ptr[~node + 1];
  if (fl->r->for_python) {
    for (int pass = 0; pass < 2; pass++) {
      size_t base = fl->scratch.n;
      uint32_t nl, nr;
      if ((rc = pairs(fl, node, &nl, &nr))) return rc;
      for (uint32_t k = 0; k < nr; k++)
        if ((rc = visit(fl, (int32_t)fl->scratch.a[base + nl + k]))) return rc;
      uint32_t n = nl < nr ? nl : nr;
      for (uint32_t k = 0; k < n; k++)
        if ((rc = all_from(fl, (int32_t)fl->scratch.a[base + k], (int32_t)fl->scratch.a[base + nl + k]))) return rc;
      fl->scratch.n = base;
      if (a == b) return E_ERROR; /* node.kids[-1] */
      if ((kind_of(fl, fl->kid_code[b - 1]) & R_BLOCK) && (rc = visit(fl, fl->kid_code[b - 1]))) return rc;
    }
    return merge_loop_since(fl, start);
  }
  for (uint32_t k = a; k < b; k++)
    if ((rc = visit(fl, fl->kid_code[k]))) return rc;
  int found = 0;
  for (uint32_t k = a; k < b; k++) {
    if (found) {
      if ((rc = visit(fl, fl->kid_code[k]))) return rc;
    } else if (kind_of(fl, fl->kid_code[k]) & R_FOR_MARKER) {
      found = 1;
    }
  }
  return merge_loop_since(fl, start);
}

static int rule_enhanced_for(Flow *fl, int32_t node) {
  size_t start = fl->out.n;
  int32_t name = field_child(fl, node, fl->r->efor_name), value = field_child(fl, node, fl->r->efor_value),
          body = field_child(fl, node, fl->r->efor_body);
  int rc;
  for (int pass = 0; pass < 2; pass++) {
    if ((rc = visit(fl, value))) return rc;
    uint32_t a, b;
    if ((rc = var_tokens(fl, value, &a, &b)) || (rc = cross(fl, name, a, b, REL_COMPUTED))) return rc;
    if ((rc = visit(fl, body))) return rc;
  }
  return merge_loop_since(fl, start);
}

/* a node without a rule: its children in order (do_first children first) */
static int generic(Flow *fl, int32_t node) {
  int rc;
  uint32_t a = fl->kid_ptr[~node], b = fl->kid_ptr[~node + 1];
  if (fl->first && fl->first[~node]) {
    for (int firsts = 1; firsts >= 0; firsts--)
      for (uint32_t k = a; k < b; k++)
        if (((kind_of(fl, fl->kid_code[k]) & R_DO_FIRST) != 0) == firsts && (rc = visit(fl, fl->kid_code[k])))
          return rc;
    return E_OK;
  }
  /* the rule-free runs between children with rules as token ranges; a child without a rule entered here */
  typedef struct {
    uint32_t k, end, lo, hi;
  } Outer;
  Outer stack_local[8];
  Outer *outer = stack_local;
  size_t nouter = 0, cap = 8;
  uint32_t k = a, end = b, lo = fl->node_lo[~node], hi = fl->node_hi[~node];
  rc = E_OK;
  for (;;) {
    int entered = 0;
    for (; k < end; k++) {
      int32_t child = fl->kid_code[k];
      if (child >= 0 || !(fl->node_flags[~child] & N_SPECIAL)) continue; /* not one of the skids */
      uint32_t clo = fl->node_lo[~child], chi = fl->node_hi[~child];
      if (lo < clo) {
        if (fl->before[lo] == fl->before[clo]) {
          fl->left -= clo - lo;
        } else if ((rc = tokens(fl, lo, clo))) {
          goto out;
        }
      }
      uint32_t h = handler_of(fl, child);
      if (h != H_NONE || (fl->first && fl->first[~child])) {
        if ((rc = process(fl, child))) goto out;
        lo = chi;
      } else {
        if (nouter == cap) {
          Outer *grown = malloc(2 * cap * sizeof(Outer));
          if (!grown) {
            rc = E_NOMEM;
            goto out;
          }
          memcpy(grown, outer, nouter * sizeof(Outer));
          if (outer != stack_local) free(outer);
          outer = grown;
          cap *= 2;
        }
        outer[nouter++] = (Outer){k + 1, end, chi, hi};
        k = fl->kid_ptr[~child];
        end = fl->kid_ptr[~child + 1];
        lo = clo;
        hi = chi;
        entered = 1;
        break;
      }
    }
    if (entered) continue;
    if (lo < hi) {
      if (fl->before[lo] == fl->before[hi]) {
        fl->left -= hi - lo;
      } else if ((rc = tokens(fl, lo, hi))) {
        goto out;
      }
    }
    if (!nouter) break;
    Outer o = outer[--nouter];
    k = o.k;
    end = o.end;
    lo = o.lo;
    hi = o.hi;
  }
out:
  if (outer != stack_local) free(outer);
  return rc;
}

static int process(Flow *fl, int32_t node) {
  if (++fl->depth > fl->r->max_depth) return E_DEEP;
  int rc;
  switch (handler_of(fl, node)) {
    case H_DEF: rc = rule_define(fl, node); break;
    case H_ASSIGN: rc = fl->r->assign_python ? rule_assign_python(fl, node) : rule_assign_simple(fl, node); break;
    case H_INC: rc = rule_increment(fl, node); break;
    case H_IF: rc = rule_if(fl, node); break;
    case H_FOR: rc = rule_for(fl, node); break;
    case H_EFOR: rc = rule_enhanced_for(fl, node); break;
    case H_WHILE: rc = rule_while(fl, node); break;
    default: rc = generic(fl, node);
  }
  fl->depth--;
  return rc;
}

/* ---- per snippet: token texts, variables, positions (trees.FlatTree.token_code for ASCII text) ---- */
static int grow_u32(uint32_t **a, uint32_t *cap, size_t n) {
  if (n <= *cap) return 1;
  size_t c = *cap ? *cap : 256;
  while (c < n) c *= 2;
  uint32_t *p = realloc(*a, c * sizeof(uint32_t));
  if (!p) return 0;
  *a = p;
  *cap = (uint32_t)c;
  return 1;
}

typedef struct FlowState {
  Flow fl;
  uint32_t *pos, *text, *before, *vars, *S, *stamp, *stamp2, *pstamp, *slot, *tslots, *toff, *tlen;
  uint32_t pos_cap, text_cap, before_cap, vars_cap, S_cap, stamp_cap, stamp2_cap, pstamp_cap, slot_cap, tslots_cap,
      toff_cap, tlen_cap;
  uint8_t *is_var, *first;
  size_t is_var_cap, first_cap;
  char *tbytes;
  size_t tbytes_cap;
  MMU32s flow; /* the items' ids */
} FlowState;

static int grow_u8(uint8_t **a, size_t *cap, size_t n) {
  if (n <= *cap) return 1;
  size_t c = *cap ? *cap : 256;
  while (c < n) c *= 2;
  uint8_t *p = realloc(*a, c);
  if (!p) return 0;
  *a = p;
  *cap = c;
  return 1;
}

/* The texts of the tokens (their bytes without newlines) as ids, which of them are variables (text not
   the type name), and the position each is known by (the last token with its span). 0: out of memory. */
static int token_texts(FlowState *fs, MMState *st, const TSLanguage *language, const char *src) {
  Flow *fl = &fs->fl;
  uint32_t n = (uint32_t)st->tok_sym.n;
  if (!grow_u32(&fs->pos, &fs->pos_cap, n + 1) || !grow_u32(&fs->text, &fs->text_cap, n + 1) ||
      !grow_u32(&fs->before, &fs->before_cap, n + 1) || !grow_u32(&fs->vars, &fs->vars_cap, n + 1) ||
      !grow_u8(&fs->is_var, &fs->is_var_cap, n + 1) || !grow_u32(&fs->toff, &fs->toff_cap, n + 1) ||
      !grow_u32(&fs->tlen, &fs->tlen_cap, n + 1))
    return 0;
  size_t total = 0;
  for (uint32_t i = 0; i < n; i++) total += st->tok_end.a[i] - st->tok_start.a[i];
  if (total + 1 > fs->tbytes_cap) {
    size_t c = fs->tbytes_cap ? fs->tbytes_cap : 4096;
    while (c < total + 1) c *= 2;
    char *p = realloc(fs->tbytes, c);
    if (!p) return 0;
    fs->tbytes = p;
    fs->tbytes_cap = c;
  }
  size_t nslots = 64;
  while (nslots < 2 * (size_t)n + 2) nslots *= 2;
  if (!grow_u32(&fs->tslots, &fs->tslots_cap, nslots)) return 0;
  memset(fs->tslots, 0, nslots * sizeof(uint32_t));
  uint32_t ntext = 0, symbols = ts_language_symbol_count(language);
  size_t at = 0;
  int increasing = 1;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t s = st->tok_start.a[i], e = st->tok_end.a[i];
    if (i && s <= st->tok_start.a[i - 1]) increasing = 0;
    size_t len = 0;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (uint32_t b = s; b < e; b++) {
      char c = src[b];
      if (c == '\n') continue;
      fs->tbytes[at + len++] = c;
      h = (h ^ (unsigned char)c) * 0x100000001b3ULL;
    }
    h = mix(h ^ len);
    size_t j = (size_t)h & (nslots - 1);
    uint32_t id = NONE;
    while (fs->tslots[j]) {
      uint32_t t = fs->tslots[j] - 1;
      if (fs->tlen[t] == len && !memcmp(fs->tbytes + fs->toff[t], fs->tbytes + at, len)) {
        id = t;
        break;
      }
      j = (j + 1) & (nslots - 1);
    }
    if (id == NONE) {
      id = ntext++;
      fs->toff[id] = (uint32_t)at;
      fs->tlen[id] = (uint32_t)len;
      fs->tslots[j] = id + 1;
      at += len;
    }
    fs->text[i] = id;
    /* a variable: the text is not the type's name */
    uint32_t sym = st->tok_sym.a[i];
    TSSymbol raw = sym < symbols ? (TSSymbol)sym : sym == symbols ? ts_builtin_sym_error : ts_builtin_sym_error_repeat;
    const char *name = ts_language_symbol_name(language, raw);
    size_t name_len = name ? strlen(name) : 0;
    fs->is_var[i] = !(name && name_len == fs->tlen[id] && !memcmp(name, fs->tbytes + fs->toff[id], name_len));
  }
  /* positions: a token's own index where the spans are distinct, else the last index of its span */
  for (uint32_t i = 0; i < n; i++) fs->pos[i] = i;
  if (!increasing) {
    memset(fs->tslots, 0, nslots * sizeof(uint32_t));
    for (uint32_t i = 0; i < n; i++) {
      uint64_t key = (uint64_t)st->tok_start.a[i] << 32 | st->tok_end.a[i];
      size_t j = (size_t)mix(key) & (nslots - 1);
      while (fs->tslots[j]) {
        uint32_t t = fs->tslots[j] - 1;
        if (((uint64_t)st->tok_start.a[t] << 32 | st->tok_end.a[t]) == key) break;
        j = (j + 1) & (nslots - 1);
      }
      fs->tslots[j] = i + 1; /* the last token of the span */
    }
    for (uint32_t i = 0; i < n; i++) {
      uint64_t key = (uint64_t)st->tok_start.a[i] << 32 | st->tok_end.a[i];
      size_t j = (size_t)mix(key) & (nslots - 1);
      while (((uint64_t)st->tok_start.a[fs->tslots[j] - 1] << 32 | st->tok_end.a[fs->tslots[j] - 1]) != key)
        j = (j + 1) & (nslots - 1);
      fs->pos[i] = fs->tslots[j] - 1;
      fs->text[i] = fs->text[fs->pos[i]];
    }
  }
  uint32_t nvars = 0;
  for (uint32_t i = 0; i < n; i++) {
    fs->before[i] = nvars;
    if (fs->is_var[i]) fs->vars[nvars++] = i;
  }
  fs->before[n] = nvars;
  fl->ntok = n;
  fl->ntext = ntext;
  return 1;
}

/* dataflow._items: the normalised items of the edges, as ids of the table (TAG_FLOW keys) */
static int flow_items(FlowState *fs, MMState *st) {
  Flow *fl = &fs->fl;
  MMTable *t = &st->table;
  fs->flow.n = 0;
  size_t n = fl->out.n;
  if (!n) return E_OK;
  uint32_t ntok = fl->ntok;
  /* stable sort by position (counting sort: positions are token indices) */
  uint32_t *count = calloc((size_t)ntok + 1, sizeof(uint32_t)), *order = malloc(n * sizeof(uint32_t));
  uint8_t *used = calloc((size_t)ntok + 1, 1);
  int rc = E_NOMEM;
  if (!count || !order || !used) goto done;
  int parented = 0;
  for (size_t i = 0; i < n; i++) {
    count[fl->out.a[i].pos + 1]++;
    if (fl->out.a[i].ppos != PS_NONE) parented = 1;
  }
  rc = E_OK;
  if (!parented) goto done;
  for (uint32_t p = 0; p < ntok; p++) count[p + 1] += count[p];
  for (size_t i = 0; i < n; i++) order[count[fl->out.a[i].pos]++] = (uint32_t)i;
  /* the positions used: of the edges with parents, and their parents' */
  rc = E_NOMEM;
  MMU32s stack = {0, 0, 0};
  if (++fl->ustamp_gen == 0) memset(fl->ustamp, 0, fl->ustamp_cap * sizeof(uint32_t)), fl->ustamp_gen = 1;
  for (size_t i = 0; i < n; i++) {
    Edge *e = &fl->out.a[i];
    if (e->ppos == PS_NONE) continue;
    used[e->pos] = 1;
    if (!u32_push(&stack, (uint32_t)e->ppos)) goto done_stack;
    while (stack.n) {
      int32_t ps = (int32_t)stack.a[--stack.n];
      if (ps >= 0) {
        used[ps] = 1;
      } else if (ps != PS_NONE) {
        uint32_t u = ps_union_offset(ps);
        if (fl->ustamp[u] == fl->ustamp_gen) continue;
        fl->ustamp[u] = fl->ustamp_gen;
        for (uint32_t k = 0; k < fl->unions.a[u]; k++)
          if (!u32_push(&stack, fl->unions.a[u + 1 + k])) goto done_stack;
      }
    }
  }
  /* kept edges in position order; runs at one position merged (the last one's name and relation, the
     parents of all, de-duplicated); names numbered by first appearance, parents first */
  if (++fl->stamp_gen == 0) memset(fl->stamp, 0, fl->ntext * sizeof(uint32_t)), fl->stamp_gen = 1;
  uint32_t numbers = 0;
  MMU32s key = {0, 0, 0};
  for (size_t a = 0; a < n;) {
    Edge *e = &fl->out.a[order[a]];
    size_t b = a + 1;
    if (!used[e->pos]) {
      a = b;
      continue;
    }
    while (b < n && fl->out.a[order[b]].pos == e->pos) b++;
    Edge *last = &fl->out.a[order[b - 1]];
    key.n = 0;
    if (b - a == 1) {
      for (uint32_t k = 0; k < e->par_n; k++)
        if (!u32_push(&key, fl->parents.a[e->par_off + k])) goto done_key;
    } else { /* de-duplicated, first seen */
      if (++fl->stamp2_gen == 0) memset(fl->stamp2, 0, fl->ntext * sizeof(uint32_t)), fl->stamp2_gen = 1;
      for (size_t m = a; m < b; m++) {
        Edge *x = &fl->out.a[order[m]];
        for (uint32_t k = 0; k < x->par_n; k++) {
          uint32_t name = fl->parents.a[x->par_off + k];
          if (fl->stamp2[name] == fl->stamp2_gen) continue;
          fl->stamp2[name] = fl->stamp2_gen;
          if (!u32_push(&key, name)) goto done_key;
        }
      }
    }
    /* number the parents, then the name */
    for (size_t q = 0; q < key.n; q++) {
      uint32_t name = key.a[q];
      if (fl->stamp[name] != fl->stamp_gen) fl->stamp[name] = fl->stamp_gen, fl->slot[name] = numbers++;
      key.a[q] = fl->slot[name];
    }
    uint32_t own = (uint32_t)last->name;
    if (fl->stamp[own] != fl->stamp_gen) fl->stamp[own] = fl->stamp_gen, fl->slot[own] = numbers++;
    /* the key: (TAG_FLOW, number * 2 + relation, (parent number, 0) pairs) */
    size_t np = key.n;
    if (!u32_reserve(&key, np)) goto done_key;
    for (size_t q = np; q-- > 0;) key.a[2 * q] = key.a[q], key.a[2 * q + 1] = 0;
    key.n = 2 * np;
    uint32_t id = table_key(t, TAG_FLOW, fl->slot[own] * 2 + last->rel, key.a, (uint32_t)np);
    if (id == NONE || !u32_push(&fs->flow, id)) goto done_key;
    a = b;
  }
  rc = E_OK;
done_key:
  free(key.a);
done_stack:
  free(stack.a);
done:
  free(count);
  free(order);
  free(used);
  return rc;
}

#define FLOW_DONE 0
#define FLOW_LIMITED 1
#define FLOW_PYTHON 2 /* not computed here: the caller runs the Python data flow */

static int grow_zero(uint32_t **a, uint32_t *cap, size_t n) {
  uint32_t old = *cap;
  if (!grow_u32(a, cap, n)) return 0;
  if (*cap > old) memset(*a + old, 0, (*cap - old) * sizeof(uint32_t));
  return 1;
}

/* data_flow(tree, lang) of the walked snippet: FLOW_DONE (items in fs->flow), FLOW_LIMITED, FLOW_PYTHON,
   or -1 (out of memory) */
static int run_flow(MMState *st, FlowState *fs, const TSLanguage *language, const char *src, uint32_t length,
                    const MMRules *r) {
  Flow *fl = &fs->fl;
  fs->flow.n = 0;
  if (st->out.leaf_root) return FLOW_PYTHON;
  for (uint32_t i = 0; i < length; i++)
    if ((unsigned char)src[i] >= 0x80) return FLOW_PYTHON; /* token texts of str slices: the Python path */
  if (!token_texts(fs, st, language, src)) return -1;
  uint32_t nnode = (uint32_t)st->node_sym.n, ntext = fl->ntext ? fl->ntext : 1;
  if (!grow_u32(&fs->S, &fs->S_cap, ntext) || !grow_zero(&fs->stamp, &fs->stamp_cap, ntext) ||
      !grow_zero(&fs->stamp2, &fs->stamp2_cap, ntext) ||
      !grow_u32(&fs->slot, &fs->slot_cap, ntext) || !grow_zero(&fs->pstamp, &fs->pstamp_cap, fl->ntok + 1) ||
      !grow_u8(&fs->first, &fs->first_cap, nnode + 1))
    return -1;
  fl->st = st;
  fl->r = r;
  fl->tok_sym = st->tok_sym.a;
  fl->pos = (int32_t *)fs->pos;
  fl->text = (int32_t *)fs->text;
  fl->before = fs->before;
  fl->vars = fs->vars;
  fl->is_var = fs->is_var;
  fl->node_sym = st->node_sym.a;
  fl->node_lo = st->node_lo.a;
  fl->node_hi = st->node_hi.a;
  fl->node_flags = st->node_flags.a;
  fl->kid_ptr = st->kid_ptr.a;
  fl->kid_code = (const int32_t *)st->kid_sorted_code.a;
  fl->kid_field = st->kid_sorted_field.a;
  fl->S = (int32_t *)fs->S;
  fl->stamp = fs->stamp;
  fl->stamp2 = fs->stamp2;
  fl->slot = fs->slot;
  fl->pstamp = fs->pstamp;
  for (uint32_t i = 0; i < fl->ntext; i++) fl->S[i] = S_MISSING;
  /* the nodes with a child of a do_first type */
  fl->first = NULL;
  int any_first = 0;
  for (uint32_t s = 0; s < r->nsym && !any_first; s++) any_first = (r->symflags[s] & R_DO_FIRST) != 0;
  if (any_first) {
    fl->first = fs->first;
    for (uint32_t i = 0; i < nnode; i++) {
      fl->first[i] = 0;
      for (uint32_t k = fl->kid_ptr[i]; k < fl->kid_ptr[i + 1]; k++)
        if (kind_of(fl, fl->kid_code[k]) & R_DO_FIRST) {
          fl->first[i] = 1;
          break;
        }
    }
  }
  fl->J.n = fl->folded.n = fl->parents.n = fl->unions.n = fl->scratch.n = 0;
  fl->out.n = 0;
  fl->left = r->work_per_token * (int64_t)fl->ntok + r->work_floor;
  fl->depth = 0;
  int rc;
  int32_t root = st->out.root_code;
  if (root >= 0) { /* a string literal root: one token */
    rc = tokens(fl, (uint32_t)root, (uint32_t)root + 1);
  } else {
    rc = visit(fl, root);
  }
  st->out.flow_left = fl->left;
  if (rc == E_NOMEM) return -1;
  if (rc == E_DEEP) return FLOW_PYTHON;
  if (rc == E_LIMIT || fl->left < 0) return FLOW_LIMITED;
  if (rc == E_ERROR) return FLOW_DONE; /* no data flow, as the reference after an exception */
  rc = flow_items(fs, st);
  return rc == E_OK ? FLOW_DONE : -1;
}

static void flow_free(FlowState *fs) {
  if (!fs) return;
  Flow *fl = &fs->fl;
  free(fl->J.a);
  free(fl->out.a);
  free(fl->folded.a);
  free(fl->parents.a);
  free(fl->unions.a);
  free(fl->scratch.a);
  free(fl->ustamp);
  uint32_t *arrays[] = {fs->pos, fs->text, fs->before, fs->vars, fs->S, fs->stamp, fs->stamp2, fs->pstamp, fs->slot, fs->tslots,
                        fs->toff, fs->tlen};
  for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) free(arrays[i]);
  free(fs->is_var);
  free(fs->first);
  free(fs->tbytes);
  free(fs->flow.a);
  free(fs);
}

#ifndef MM_WHEELS /* wheels_walk.c defines its own mm_walk */
/* ------------------------------------------------------------------------------------------------ */
/* the entry point                                                                                   */
/* ------------------------------------------------------------------------------------------------ */
/* Parse `source` with `parser` and walk the tree (see the top of this file); the results are in
   mm_state_out(st) until the next call. `flags`: F_* bits per symbol index (symbol_index: the grammar's
   symbols, then ERROR and _ERROR). Returns MM_OK, MM_TOO_DEEP (deeper than depth_limit: nothing else is
   filled in), MM_MISMATCH (the two walks disagree on the nodes with children: not expected), MM_NO_TREE
   or MM_NO_MEMORY. */
int mm_walk(MMState *st, TSParser *parser, const char *source, uint32_t length, const uint8_t *flags,
            uint32_t nflags, uint32_t depth_limit, const MMRules *rules) {
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
  if (rules) {
    if (!st->fs && !(st->fs = calloc(1, sizeof(FlowState)))) {
      rc = MM_NO_MEMORY;
      goto done;
    }
    int status = run_flow(st, st->fs, tree->language, source, length, rules);
    if (status < 0) {
      rc = MM_NO_MEMORY;
      goto done;
    }
    out->flow_status = (uint32_t)status;
    out->nflow = (uint32_t)st->fs->flow.n;
    out->flow = st->fs->flow.a;
  }
  rc = MM_OK;
done:
  ts_tree_delete(tree);
  return rc;
}
#endif /* MM_WHEELS */
