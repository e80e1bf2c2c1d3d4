"""The numbers of a result as a person reads them: the headline, the per-example rows."""

import json
import math
import re

from .settings import CI_SUFFIXES, DIGITS, NBSP, RESAMPLING


def plain(text: str) -> str:
    """`text` shown literally in Markdown (backticks, stars, pipes and brackets escaped), web addresses
    as links (escaped, an address broke: `%5C` in the link)."""
    parts = re.split(r"(https?://[^\s<>'\"]*[^\s<>'\".,;:)])", str(text))
    return "".join(
        f"<{part}>" if i % 2 else re.sub(r"([\\`*_{}\[\]<>#|~])", r"\\\1", part)
        for i, part in enumerate(parts)
    )


CODE_SPAN = re.compile(r"`([^`\n]+)`")  # `name` in a message: an argument, a value, a command


def message(text: str) -> str:
    """A message (an error, a warning) in Markdown: its `code` spans drawn as code (never as literal
    backticks), the rest shown literally (`plain`)."""
    text, out, start = str(text), [], 0
    for span in CODE_SPAN.finditer(text):
        out += [plain(text[start : span.start()]), f"`{span[1]}`"]
        start = span.end()
    return "".join([*out, plain(text[start:])])


def message_html(text: str) -> str:
    """A message in HTML: escaped, its `code` spans in <code>."""
    import html

    return CODE_SPAN.sub(lambda span: f"<code>{span[1]}</code>", html.escape(str(text), quote=False))


def fmt(value) -> str:
    """A number rounded to DIGITS decimals, without trailing zeros (0.5, 0.7333, 12, nan)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return str(value)
    text = f"{round(float(value), DIGITS):.{DIGITS}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def cell(value) -> str:
    """A table cell: strings as they are, alternatives joined by ' | ', anything else as compact JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return " | ".join(value)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def numbers_of(result: dict) -> dict:
    """The aggregate numbers of a result, in its order (the primary key comes first by convention),
    without the interval bounds (`<key>_ci_low` / `<key>_ci_high`: see `interval_of`)."""
    kept = (k for k, v in result.items() if isinstance(v, (int, float)) and not isinstance(v, bool))
    return {k: result[k] for k in kept if not k.endswith(CI_SUFFIXES)}


def interval_of(result: dict, key: str) -> tuple | None:
    """(low, high) of `key`'s bootstrap interval when the result has one, else None (FID, no confidence)."""
    low, high = result.get(f"{key}_ci_low"), result.get(f"{key}_ci_high")
    return None if low is None or high is None else (low, high)


def shown_number(result: dict, key: str, space: str = " ") -> str:
    """`key`'s value rounded, followed by its interval `[low, high]` when the result has one (`space`
    between them: NBSP keeps the pair on one line)."""
    text = fmt(result[key])
    bounds = interval_of(result, key)
    return text if bounds is None else f"{text}{space}[{fmt(bounds[0])},{space}{fmt(bounds[1])}]"


def confidence_note(result: dict, resampling: dict | None = None) -> str:
    """What `[low, high]` means: the resampling the page passed (``resampling``: confidence, n_resamples,
    seed; default RESAMPLING), FID's bias shift when the result has FID's interval; "" without an interval."""
    if not any(k.endswith(CI_SUFFIXES) for k in result):
        return ""
    asked = {**RESAMPLING, **(resampling or {})}
    fid = "; FID's interval is moved by the bootstrap bias estimate, the reference images held fixed"
    return (
        f"[low, high]: {fmt(asked['confidence'] * 100)}% percentile bootstrap interval over the examples "
        f"({asked['n_resamples']} resamples, seed {asked['seed']}){fid if 'fid_ci_low' in result else ''}"
    )


def primary_key(result: dict) -> str:
    """The result's primary key: its first number (anls, one_minus_ned, f1 / exact_match, accuracy, ...)."""
    return next(iter(numbers_of(result)), "score")


def headline(result: dict, resampling: dict | None = None) -> str:
    """Markdown: the primary number on one line, in bold (`key: value [low, high]`, never broken over
    lines), then the other numbers (components, per-type breakdowns) as a two-column table, then a
    note saying which interval `[low, high]` is (`resampling`: what the page passed)."""
    primary = primary_key(result)
    lines = [f"**{plain(primary)}:{NBSP}{shown_number(result, primary, NBSP)}**"] if primary in result else []
    others = [k for k in numbers_of(result) if k != primary]
    if others:
        lines += ["", "| other numbers | value |", "|---|---|"]
        lines += [f"| {plain(k)} | {shown_number(result, k, NBSP)} |" for k in others]
    note = confidence_note(result, resampling)
    return "\n".join(lines + ([f"\n{note}"] if note else []))


def warnings_note(messages: list) -> str:
    """Markdown: the warnings the metric raised while computing ("" when none)."""
    items = "\n".join(f"- {message(m)}" for m in messages)
    return (
        ""
        if not messages
        else f"**Warnings of the metric** (the numbers above were computed; read these first):\n\n{items}"
    )


def failure_note(text: str) -> str:
    """Markdown: the panel after a failed compute (the message, and that no result is shown)."""
    return (
        f"### Not computed\n\n**Error:** {message(text)}\n\n"
        "*No result is shown: the previous one was removed. Correct the input and press Compute again.*"
    )


def per_example_rows(
    result: dict, columns: dict, score: str | None = None, rounded: bool = True
) -> tuple[list, list]:
    """(headers, rows) of the per-example table: `#`, the scores (the primary one first, then the
    metric's other parts), then the given input columns (long texts: after the scores, so that the
    scores are on screen, also on a phone), numbers rounded (`rounded`). `score` names a per-example
    float when it is not the primary key (fid_clip: one CLIP score per image beside one FID)."""
    primary = score or primary_key(result)
    per = result.get("per_example") or []
    parts = [primary] if per and not isinstance(per[0], dict) else []
    if per and isinstance(per[0], dict):
        parts = ([primary] if primary in per[0] else []) + [k for k in per[0] if k != primary]
    headers = ["#", *parts, *columns]
    rows = []
    for i, score in enumerate(per):
        values = [score] if not isinstance(score, dict) else [score.get(k) for k in parts]
        inputs = [cell(col[i]) if i < len(col) else "" for col in columns.values()]
        rows.append([i, *(fmt(v) if rounded else v for v in values), *inputs])
    return headers, rows


def per_example_scores(result: dict, score: str | None = None) -> list[float]:
    """The primary score (or the `score` part) of every example."""
    primary = score or primary_key(result)
    per = result.get("per_example") or []
    return [float(s[primary] if isinstance(s, dict) else s) for s in per]
