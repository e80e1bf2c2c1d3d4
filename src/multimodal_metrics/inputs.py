"""Per-example inputs: list-likes accepted wherever a list is, strings checked, one entry per example.

Errors name the argument and the example index (``predictions[3]``) and say what was expected.
"""

import contextlib
import functools
import itertools
import re
from collections.abc import Mapping, Sequence

from .options import Resampling, check_bool, check_string

__all__ = [
    "as_list",
    "check_list",
    "check_reference_lists",
    "check_same_length",
    "check_string",
    "check_strings",
    "check_text_system",
    "flatten_references",
    "naming_system",
    "nest",
    "score_function",
    "score_text_pairs",
    "text_pair_score",
    "text_pair_score_checked",
    "text_pairs",
]


def as_list(values, arg: str) -> list:
    """The per-example container ``values`` as a new Python list.

    Accepted wherever a list is: list, tuple, numpy array (elements become Python str/int/float,
    rows of a 2-d array become lists), pandas Series/Index, a ``datasets`` column, torch tensor and
    any other ``Sequence``. A bare string, a dict, a set, a generator, a 0-d array and None are
    refused with an error naming ``arg``.
    """
    if values is None:
        raise ValueError(f"`{arg}` is required (got None)")
    if type(values) is list:
        return list(values)
    if isinstance(values, str | bytes | Mapping):
        raise TypeError(f"`{arg}` must be a list with one entry per example, got {type(values).__name__}")
    if callable(getattr(values, "tolist", None)) and getattr(values, "ndim", None) is not None:
        if values.ndim == 0:
            raise TypeError(
                f"`{arg}` must be a list with one entry per example, got a 0-d {type(values).__name__}"
            )
        return values.tolist()  # numpy, pandas, torch: native Python elements
    if not isinstance(values, Sequence):
        raise TypeError(
            f"`{arg}` must be a list (or tuple, numpy array, pandas Series, datasets column) with one entry "
            f"per example, got {type(values).__name__}"
        )
    return list(values)


def check_list(values, arg: str, allow_empty: bool = False) -> list:
    """A list-like of examples (see ``as_list``; not a bare string), returned as a list."""
    values = as_list(values, arg)
    if not allow_empty and len(values) == 0:
        raise ValueError(f"`{arg}` is empty: at least one example is needed")
    return values


def check_same_length(arg_a: str, a: Sequence, arg_b: str, b: Sequence) -> None:
    """Raise ValueError when two per-example inputs differ in length."""
    if len(a) != len(b):
        raise ValueError(
            f"`{arg_a}` has {len(a)} examples but `{arg_b}` has {len(b)}: one entry per example is expected"
        )


def check_text_system(predictions, arg: str, references) -> None:
    """``compare``'s check of one system (``arg``: ``predictions_a`` / ``predictions_b``) of a metric scoring one
    string per example, run on both systems before either is scored: strings, as many as ``references``."""
    predictions = check_strings(predictions, arg)
    if references is not None:
        check_same_length(arg, predictions, "references", as_list(references, "references"))


_PREDICTIONS = re.compile(r"`predictions(?=[`\[])")


@contextlib.contextmanager
def naming_system(arg: str):
    """Inside, a ValueError/TypeError that names `predictions` names ``arg`` instead (one system of ``compare``,
    scored by a function that calls its input ``predictions``)."""
    try:
        yield
    except (ValueError, TypeError) as err:
        if err.args and isinstance(err.args[0], str):
            err.args = (_PREDICTIONS.sub(f"`{arg}", err.args[0]), *err.args[1:])
        raise


def _all_valid_text(strings: list) -> bool:
    """True when every element is a ``str`` that Arrow can store, checked in a few C passes (the
    per-element checks then only run to name the first bad one)."""
    if not set(map(type, strings)) <= {str}:
        return False
    return _valid_text(strings)


def _valid_text(strings: list) -> bool:
    """True when the ``str`` elements of ``strings`` are all UTF-8 encodable (no lone surrogates)."""
    joined = "".join(strings)
    if joined.isascii():
        return True
    try:
        # any surrogate code point fails, joined or not; UTF-16 refuses exactly the code points UTF-8 does
        # (U+D800..U+DFFF) and encodes several times faster (close to a copy for most text)
        joined.encode("utf-16-le")
    except UnicodeEncodeError:
        return False
    return True


def check_strings(values, arg: str) -> list[str]:
    """One string per example (a ``str`` subclass becomes a plain ``str``); None or any non-string is an
    error naming its index."""
    values = check_list(values, arg)
    if _all_valid_text(values):
        return values
    return [check_string(value, f"{arg}[{i}]") for i, value in enumerate(values)]  # str subclasses as str


def check_reference_lists(values, arg: str = "references") -> list[list[str]]:
    """Per example either one string or a non-empty list of strings; returns lists of strings."""
    values = check_list(values, arg)
    if set(map(type, values)) <= {list} and min(map(len, values)) > 0:
        out = list(map(list, values))
        if _all_valid_text(list(itertools.chain.from_iterable(out))):
            return out
    out = []
    for i, refs in enumerate(values):
        if isinstance(refs, str):
            out.append([check_string(refs, f"{arg}[{i}]")])
            continue
        if refs is None:
            raise TypeError(f"`{arg}[{i}]` is None: expected a string or a list of strings")
        if type(refs) is not list:
            if isinstance(refs, bytes | Mapping) or not (
                isinstance(refs, Sequence) or hasattr(refs, "tolist")
            ):
                raise TypeError(
                    f"`{arg}[{i}]` must be a string or a list of strings, got {type(refs).__name__}"
                )
            refs = as_list(refs, f"{arg}[{i}]")
        if len(refs) == 0:
            raise ValueError(f"`{arg}[{i}]` is an empty list: give at least one reference")
        out.append([check_string(ref, f"{arg}[{i}][{j}]") for j, ref in enumerate(refs)])
    return out


def nest(flat: list, counts) -> list:
    """``flat`` split into consecutive lists of ``counts[i]`` items."""
    items = iter(flat)
    return [list(itertools.islice(items, count)) for count in counts.tolist()]


def flatten_references(nested: list) -> tuple[list, object]:
    """``(flat, counts)`` of checked reference lists: every reference in example order, and the number of
    references of each example (int64 numpy array)."""
    import numpy as np

    flat = list(itertools.chain.from_iterable(nested))
    return flat, np.fromiter(map(len, nested), dtype=np.int64, count=len(nested))


def _flat_references(values: list):
    """``(flat, counts)`` of references that are all valid, checked column by column: one plain ``str``
    per example, or one non-empty list of plain ``str`` per example; None otherwise (then
    ``check_reference_lists`` checks them one by one and names the first bad one)."""
    import numpy as np

    kinds = set(map(type, values))
    if kinds == {str}:
        return (values, np.ones(len(values), dtype=np.int64)) if _valid_text(values) else None
    if kinds == {list}:
        counts = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
        if counts.min() > 0:
            flat = list(itertools.chain.from_iterable(values))
            if _all_valid_text(flat):
                return flat, counts
    return None


def text_pairs(predictions, references) -> tuple[list, list, object]:
    """Checked text-pair inputs of the library's ``score`` functions: ``(predictions, flat references,
    counts)``: one string per example, one string or a non-empty list of strings as the references
    of each example, the same number of both. Valid inputs are checked column by column (a few C passes
    over all strings); the per-example checks only run to name the first bad one."""
    predictions = check_strings(predictions, "predictions")
    values = check_list(references, "references")
    flat = _flat_references(values)
    if flat is None:
        nested = check_reference_lists(values, "references")
        check_same_length("predictions", predictions, "references", nested)
        return predictions, *flatten_references(nested)
    check_same_length("predictions", predictions, "references", flat[1])
    return predictions, *flat


def score_text_pairs(
    score_checked,
    table,
    predictions,
    references,
    preset,
    return_per_example,
    confidence,
    n_resamples,
    seed,
    options,
):
    """The library ``score`` of a text-pair metric: the checks in the order ``compute`` runs them
    (``return_per_example``, the options of ``table`` for ``preset``, the resampling options, then the
    inputs: :func:`text_pairs`), then the metric's ``score_checked(predictions, flat_references, counts,
    preset, options, resampling, return_per_example)``."""
    check_bool(return_per_example, "return_per_example")
    opts = table.resolve(preset, options)
    resampling = Resampling(confidence, n_resamples, seed)
    predictions, flat_references, counts = text_pairs(predictions, references)
    return score_checked(predictions, flat_references, counts, preset, opts, resampling, return_per_example)


def score_function(run, doc: str, module: str):
    """A metric's ``score(predictions, references, preset="default", *, return_per_example=False,
    confidence=None, n_resamples=None, seed=None, **options)``: ``run(predictions, references, preset,
    return_per_example, confidence, n_resamples, seed, options)`` with ``doc`` as its docstring, defined in
    ``module`` as ``score``."""

    def score(
        predictions,
        references,
        preset="default",
        *,
        return_per_example=False,
        confidence=None,
        n_resamples=None,
        seed=None,
        **options,
    ):
        return run(
            predictions, references, preset, return_per_example, confidence, n_resamples, seed, options
        )

    score.__doc__, score.__module__, score.__qualname__ = doc, module, "score"
    return score


def text_pair_score_checked(example_rows, reduce_rows):
    """A text-pair metric's ``score_checked(predictions, flat_references, counts, preset, options, resampling,
    return_per_example=False)``: its ``example_rows`` of checked inputs (``predictions``, every reference in
    order, references per example) with resolved ``options`` (``OPTIONS.resolve``), then its ``reduce_rows``
    with a checked ``Resampling`` (what a merged state runs on its rows too)."""

    def score_checked(
        predictions, flat_references, counts, preset, options, resampling, return_per_example=False
    ):
        columns, context = example_rows(predictions, flat_references, counts, preset, options)
        return reduce_rows(columns, context, preset, options, resampling, return_per_example)

    score_checked.__doc__ = (
        f"The result of checked inputs: ``{example_rows.__module__}.example_rows`` then ``reduce_rows`` "
        "(see ``multimodal_metrics.inputs.text_pair_score_checked``)."
    )
    score_checked.__module__, score_checked.__qualname__ = reduce_rows.__module__, "score_checked"
    return score_checked


def text_pair_score(score_checked, table, doc: str):
    """A text-pair metric's ``score`` (:func:`score_function`): :func:`score_text_pairs` then its
    ``score_checked``, with the options of ``table``."""

    run = functools.partial(score_text_pairs, score_checked, table)
    return score_function(run, doc, score_checked.__module__)
