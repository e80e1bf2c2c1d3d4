"""What the input boxes hold: one item per line, alternatives separated by ' | ', or JSON."""

import json
import re
import warnings


def parse_items(text: str, arg: str) -> list:
    """A JSON list (text starting with '[') or one item per line (a trailing newline is ignored)."""
    text = text or ""
    if text.lstrip().startswith("["):
        value = parse_json(text, arg)
        if not isinstance(value, list):
            raise ValueError(f"`{arg}` must be a JSON list")
        return value
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines = lines[:-1]
    return lines


def parse_alternatives(text: str, arg: str, separator: str = " | ") -> list:
    """Like parse_items, but a line may hold several alternatives separated by ' | ' (space, bar,
    space). A bar without spaces around it is part of the text (an answer may hold one): such a line
    is one alternative, and a warning naming the example says so (the page shows it)."""
    items = parse_items(text, arg)
    if (text or "").lstrip().startswith("["):
        return items
    for i, line in enumerate(items):
        if "|" in line and separator not in line:
            warnings.warn(
                f"`{arg}` example {i}: {line!r} holds '|' without spaces around it, so it is read as one "
                f"reference; separate accepted answers with {separator!r} (space, bar, space)",
                UserWarning,
                stacklevel=2,
            )
    return [line.split(separator) if separator in line else line for line in items]


def parse_json(text: str, arg: str, hint: str = "paste a JSON value"):
    """Any JSON value; a ValueError naming `arg` when the text is empty (saying what to put there:
    `hint`) or not JSON."""
    if not (text or "").strip():
        raise ValueError(f"`{arg}` is empty: {hint}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"`{arg}` is not valid JSON: {err}") from None
    except RecursionError:
        raise ValueError(
            f"`{arg}` is nested too deeply to read (more levels than Python's recursion limit)"
        ) from None


# Several code snippets in one box: separated by a line `=== next example ===` (nothing else on it; code
# holds no such line, while `-----` underlines every numpydoc section); code that does goes in as a JSON
# list of strings.
SEPARATOR_LINE = "=== next example ==="
SEPARATOR = re.compile(r"^[ \t]*=== next example ===[ \t]*(?:\r?\n|\Z)", re.M)


def split_snippets(text: str) -> list[str]:
    """The snippets of a box: a JSON list of strings (code that holds the separator line), else one
    snippet, or several separated by `=== next example ===` lines (see SEPARATOR). An empty box (or
    only whitespace) holds no snippet: [] (the metric refuses it, as ``score([], [])`` does)."""
    text = text or ""
    if not text.strip():
        return []
    if text.lstrip().startswith("["):
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            value = None  # code that starts with "[": one snippet
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            return value
    return SEPARATOR.split(text)


def parse_images(text: str, arg: str, hint: str = "paste a JSON value"):
    """Boxes per image as JSON: a Fusion Brain dict `{image: {class: boxes}}` (returned as is), a list of
    per-image dicts, or one image dict (both returned as a list). An empty box says what to paste (`hint`)."""
    value = parse_json(text, arg, hint)
    if isinstance(value, list):
        return value
    if isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
        return value
    return [value]


def image_pairs(
    references: str, predictions: str, hint: str = "paste a JSON value"
) -> tuple[list, list, list]:
    """Both boxes of det_f1's page as images: (predictions, references, image names). Fusion Brain dicts
    on both sides are aligned by image key (``det_f1.from_fusion_brain``); lists are images 0, 1, ..."""
    from ..det_f1 import from_fusion_brain

    preds = parse_images(predictions, "predictions", hint)  # read first, as the metric checks them first
    refs = parse_images(references, "references", hint)
    if isinstance(refs, dict) and isinstance(preds, dict):
        return from_fusion_brain(refs, preds)
    if isinstance(refs, dict) or isinstance(preds, dict):
        raise ValueError("give both sides as {image: {class: boxes}} or both as lists of per-image dicts")
    return preds, refs, [f"image {i}" for i in range(len(refs))]


def one_key_per_line(value: dict) -> str:
    """A dict as JSON with one key per line (a person reads each image's boxes at a glance)."""
    return "{\n" + ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in value.items()) + "\n}"
