"""CodeBLEU's keyword lists and comment removal: what the metric reads of the text before parsing.

* ``KEYWORDS`` / ``keywords_for``: the keyword list of each language, weighted 1 (other tokens
  ``OTHER_TOKEN_WEIGHT``) in the weighted n-gram match;
* ``remove_comments``: the comment rules applied before the AST and data-flow matches ("none", "java",
  "lang").

Pure standard-library code (a component of :mod:`multimodal_metrics.codebleu.corpus`).
"""

import io
import re
import tokenize

LANGUAGES = ("python", "java", "javascript", "c_sharp", "php", "c", "cpp", "go", "ruby", "rust")
KEYWORD_SETS = ("pypi", "codexglue")
COMMENT_RULES = ("none", "java", "lang")

# Keyword lists (one constant per language, same entries as the reference keyword files).
_PY_KEYWORDS_2020 = (
    "False None True and as assert async await break class continue def del elif else except finally for "
    "from global if import in is lambda nonlocal not or pass raise return try while with yield"
)
KEYWORDS = {
    "python": _PY_KEYWORDS_2020 + " match case type",
    "java": "abstract assert boolean break byte case catch char class const continue default do double else "
    "enum extends final finally float for goto if implements import instanceof int interface long native new "
    "package private protected public return short static strictfp super switch synchronized this throw "
    "throws transient try void volatile while",
    "javascript": "await break case catch class const continue debugger default delete do else enum export "
    "extends false finally for function if implements import in instanceof interface let new null package "
    "private protected public return super switch static this throw try True typeof var void while with yield",
    "c_sharp": "abstract as base bool break byte case catch char checked class const continue decimal default "
    "delegate do double else enum event explicit extern false finally fixed float for foreach goto if implicit "
    "in int interface internal is lock long namespace new null object operator out override params private "
    "protected public readonly ref return sbyte sealed short sizeof stackalloc static string struct switch "
    "this throw true try typeof uint ulong unchecked unsafe ushort using virtual void volatile while add alias "
    "ascending async await by descending dynamic equals from get global group into join let nameof notnull on "
    "orderby partial remove select set unmanaged value var when where yield",
    "php": "__halt_compiler abstract and array as break callable case catch class clone const continue declare "
    "default die do echo else elseif empty enddeclare endfor endforeach endif endswitch endwhile eval exit "
    "extends final for foreach function global goto if implements include include_once instanceof insteadof "
    "interface isset list namespace new or print private protected public require require_once return static "
    "switch throw trait try unset use var while xor",
    "c": "auto else long switch break enum register typedef case extern return union char float short unsigned "
    "const for signed void continue goto sizeof volatile default if static while do int struct _Packed double",
    "cpp": "auto const double float int short struct unsigned break continue else for long signed switch void "
    "case default enum goto register sizeof typedef volatile char do extern if return static union while asm "
    "dynamic_cast namespace reinterpret_cast bool explicit new static_cast typeid catch false try operator "
    "template typename class friend private this using const_cast inline public throw virtual delete mutable "
    "protected true wchar_t and bitand compl not_eq or_eq xor_eq and_eq bitor not or xor cin endl INT_MIN "
    "iomanip main npos std cout include INT_MAX iostream MAX_RAND NULL string",
    "go": "break default func interface select case defer go map struct chan else goto package switch const "
    "fallthrough if range type continue for import return var false true",
    "ruby": "__ENCODING__ __LINE__ __FILE__ BEGIN END alias and begin break case class def defined? do else "
    "elsif end ensure false for if in module next nil not or redo rescue retry return self super then true "
    "undef unless until when while yield",
    "rust": "as async await block bool break char const continue crate default dyn else enum expr extern f32 "
    "f64 false fn for i128 i16 i32 i64 i8 ident if impl in isize item let lifetime literal loop macro_rules! "
    "match meta mod move mut pat path pub ref return self static stmt str struct super trait true tt ty type "
    "u128 u16 u32 u64 u8 union unsafe use usize vis where while yield",
}
KEYWORDS = {lang: frozenset(words.split()) for lang, words in KEYWORDS.items()}


def keywords_for(lang: str, keyword_set: str = "pypi") -> frozenset:
    """The keyword list of ``lang``: "pypi" (k4black lists; python has 38 entries incl. match/case/type)
    or "codexglue" (python: the 35 keywords of the 2020 CodeXGLUE/AIJ file; other languages as "pypi")."""
    if keyword_set == "codexglue" and lang == "python":
        return frozenset(_PY_KEYWORDS_2020.split())
    return KEYWORDS[lang]


# ----------------------------------------------------------------------------------------------
# Comment removal (applied before the AST and data-flow matches only)
# ----------------------------------------------------------------------------------------------
# The reference removes C-style comments with one regular expression,
#     //.*?$ | /\*.*?\*/ | '(?:\\.|[^\\'])*' | "(?:\\.|[^\\"])*"      (DOTALL, MULTILINE)
# replacing a comment by one space and keeping a string literal (so '//' inside it survives). Applied
# by `re`, an unterminated `/*` or quote is rescanned to the end of the text from every later opener
# (quadratic). `_strip_c_like` gives the same result in one pass: a scan that finds no closing `*/`
# (or no unescaped closing quote) fails the same way from every later opener, so it is done once.
_C_OPENER = re.compile(r"//|/\*|'|\"")
_QUOTE_STOP = {"'": re.compile(r"[\\']"), '"': re.compile(r'[\\"]')}


def _drop_blank_lines(text: str) -> str:
    return "\n".join(filter(str.strip, text.split("\n")))  # the lines whose strip() is not empty


def _quoted_end(source: str, start: int, stop) -> int:
    """End of the string literal opened at ``start`` (backslash escapes any character), or -1."""
    j = start + 1
    n = len(source)
    search = stop.search
    while True:
        m = search(source, j)
        if m is None:
            return -1
        k = m.start()
        if source[k] != "\\":
            return k + 1
        if k + 1 >= n:
            return -1
        j = k + 2


def _strip_c_like(source: str) -> str:
    pieces = []
    kept = 0  # source[:kept] is already in pieces
    i = 0
    failed = set()  # openers whose scan found no end: every later one fails too
    find = source.find
    search = _C_OPENER.search
    while True:
        m = search(source, i)
        if m is None:
            break
        start = m.start()
        opener = m.group()
        if opener == "//":
            end = find("\n", start)
            end = len(source) if end < 0 else end
        elif opener == "/*":
            end = -1 if opener in failed else find("*/", start + 2)
            end = end + 2 if end >= 0 else -1
        else:
            end = -1 if opener in failed else _quoted_end(source, start, _QUOTE_STOP[opener])
            if end >= 0:  # a string literal is kept as it is
                i = end
                continue
        if end < 0:
            failed.add(opener)
            i = start + 1
            continue
        pieces.append(source[kept:start])
        pieces.append(" ")
        kept = i = end
    pieces.append(source[kept:])
    return _drop_blank_lines("".join(pieces))


def _strip_python(source: str) -> str:
    # Rebuild the source from its tokens, leaving out comments and docstrings (a string token that
    # follows an INDENT, or follows a NEWLINE at column 0, is taken for a docstring).
    pieces = []
    previous = tokenize.INDENT
    last_row, last_col = -1, 0
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        kind, text, (row, col), (end_row, end_col) = tok[0], tok[1], tok[2], tok[3]
        if row > last_row:
            last_col = 0
        if col > last_col:
            pieces.append(" " * (col - last_col))
        if kind == tokenize.COMMENT:
            pass
        elif kind == tokenize.STRING:
            if previous != tokenize.INDENT and previous != tokenize.NEWLINE and col > 0:
                pieces.append(text)
        else:
            pieces.append(text)
        previous = kind
        last_row, last_col = end_row, end_col
    return _drop_blank_lines("".join(pieces))


_PY_TOKENIZE_SENSITIVE = frozenset("#'\"\\\t\f\r")


def _python_plain_tokenize_ok(source: str) -> bool:
    """True when ``source`` holds no comment, string, tab, form feed, carriage return or backslash
    and ``tokenize`` would not raise on it (brackets balanced at the end, every dedent to a known
    indentation). Then rebuilding it from its tokens gives the text back unchanged."""
    if not _PY_TOKENIZE_SENSITIVE.isdisjoint(source):
        return False
    indents = [0]
    depth = 0
    for line in source.split("\n"):
        if depth == 0:
            body = line.lstrip(" ")
            if body:
                column = len(line) - len(body)
                if column > indents[-1]:
                    indents.append(column)
                while column < indents[-1]:
                    if column not in indents:
                        return False
                    indents.pop()
        depth += line.count("(") + line.count("[") + line.count("{")
        depth -= line.count(")") + line.count("]") + line.count("}")
    return depth == 0


def remove_comments(source: str, lang: str, rule: str) -> str:
    """``rule`` "none": unchanged (AIJ 2021); "java": C-style ``//`` and ``/* */`` comments removed for
    every language (CodeXGLUE applies its Java rule whatever the language); "lang": per language
    (PyPI codebleu: python comments + docstrings via ``tokenize``, ruby unchanged, others C-style).
    Blank lines are dropped. Code that cannot be tokenised is returned unchanged."""
    if rule == "none":
        return source
    try:
        if rule == "lang" and lang == "python":
            if _python_plain_tokenize_ok(source):  # nothing to remove: skip the (slow) tokenizer
                return _drop_blank_lines(source)
            return _strip_python(source)
        if rule == "lang" and lang == "ruby":
            return source
        return _strip_c_like(source)
    except Exception:  # the reference code keeps the original text when its remover fails
        return source
