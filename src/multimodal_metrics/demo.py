"""Helpers shared by the Gradio demos (app.py) of the collection (extra ``demo``; gradio is imported
inside the functions that build components; no metric logic here).

* options: `option_widget` builds the widget of a row of a metric's option table ("preset" is a visible
  choice, an empty box means the preset's value: a gr.Number would send 0) and `option_value` reads it.
* `connect` wires Compute: any error (a widget's own check, invalid JSON, wrong lengths, a bad option)
  replaces the result panel by a message that stays until the next compute; the API raises it. The
  warnings the metric raised for this request are shown under the numbers (`caught_warnings`).
* `ResultPanel`: `key: value [low, high]` (the bootstrap interval the apps ask for with CONFIDENCE), the
  other numbers, the signature, the per-example table (scores before the inputs), a histogram drawn in
  HTML, the raw result; the page's script (`PAGE_JS`) and style (`PAGE_CSS`) come with it.
* inputs: every box has a maximum height and scrolls beyond it (`TEXT_LINES`, `CODE_LINES`).
"""

import contextlib
import contextvars
import ctypes
import functools
import gc
import html
import json
import math
import re
import tempfile
import threading
import time
import traceback
import uuid
import warnings
from pathlib import Path

import evaluate

_LOADED = {}
PRESET = "preset"  # the option choice that means "the preset's value"
DIGITS = 4  # headline and table numbers are rounded to this many decimals
CONFIDENCE = 0.95  # every demo's bootstrap interval (the module's resamples and seed: in the signature)
CI_SUFFIXES = ("_ci_low", "_ci_high")
UPLOAD_MB = 128  # the largest file a page accepts (FID's Inception weights file is 91 MB)
INPUT_CHARS = (
    10_000_000  # the most text (characters, all boxes together) one Compute accepts: the page says so
)
ROWS_SHOWN = 1000  # the per-example table's rows in the page (all of them: its CSV file)
TEXT_LINES, CODE_LINES = 12, 16  # the most lines an input box grows to before it scrolls
# warnings of these kinds are about the stack (evaluate, torch, ...), not about the numbers: not shown
_QUIET = (DeprecationWarning, PendingDeprecationWarning, FutureWarning, ImportWarning, ResourceWarning)
NBSP = "\u00a0"  # joins a number to its interval so that the pair never breaks over two lines


def load_metric(script: Path, preset: str):
    """evaluate.load on the module script beside app.py (works in the Space and in the repo), cached."""
    key = (str(script), preset)
    if key not in _LOADED:
        _LOADED[key] = evaluate.load(str(script), preset)
    return _LOADED[key]


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


# Options: "preset" is a visible choice, an empty text box means the preset's value
def chosen(value):
    """What a dropdown sent: None for the "preset" choice (or nothing), else the value."""
    return None if value in (None, "", PRESET) else value


def chosen_bool(value, arg: str):
    """A yes/no dropdown: None for "preset", True for "yes", False for "no"."""
    if chosen(value) is not None and value not in ("yes", "no"):
        raise ValueError(f"`{arg}` must be preset, yes or no, got {value!r}")
    return None if chosen(value) is None else value == "yes"


def chosen_number(text, arg: str, integer: bool = False):
    """A number typed in a text box (None when empty or "preset"); a ValueError naming `arg` otherwise."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):  # an API client may send a number
        text = str(text)
    text = chosen((text or "").strip())
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        raise ValueError(
            f"`{arg}` must be a number (or empty for the preset's value), got {text!r}"
        ) from None
    if integer:
        if not value.is_integer():
            raise ValueError(
                f"`{arg}` must be a whole number (or empty for the preset's value), got {text!r}"
            )
        return int(value)
    return value


def preset_value(table, preset: str, name: str) -> str:
    """What "preset" stands for: the value of option `name` under `preset` (`table`: the option table)."""
    values = getattr(table, "presets", {}).get(preset, {})
    if name not in values:
        try:
            values = table.resolve(preset, {})
        except (KeyError, ValueError, TypeError):
            return "?"
    value = values.get(name)
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return ("yes" if value else "no") if isinstance(value, bool) else "none" if value is None else str(value)


def takes_option(table, preset: str | None, name: str) -> bool:
    """Whether `preset` uses option `name` (a table whose presets set different options has `takes`)."""
    return preset is None or not hasattr(table, "takes") or name in table.takes(preset)


def option_info(option, table=None, preset: str | None = None) -> str:
    """The help text under an option's widget, ending with the preset's value when a preset is given,
    or saying which presets use it when `preset` does not (its widget is then disabled)."""
    text = option.help or ""
    if table is not None and not takes_option(table, preset, option.name):
        users = ", ".join(p for p in table.presets if takes_option(table, p, option.name))
        return f"{text} [not used by preset {preset}: only by {users}]".strip()
    if table is not None and preset is not None:
        text = f"{text} [preset {preset}: {preset_value(table, preset, option.name)}]".strip()
    return text


def option_widget(option, elem_id: str | None = None, table=None, preset: str | None = None):
    """The widget of a row of an option table: a dropdown ("preset" first) for choices and yes/no, a text
    box (empty = preset) for the rest; its help ends with what "preset" stands for under `preset`
    (`preset_infos` updates it), or, disabled, with the presets that use it."""
    import gradio as gr

    kwargs = dict(label=option.name, info=option_info(option, table, preset), elem_id=elem_id,
                  interactive=None if takes_option(table, preset, option.name) else False)  # fmt: skip
    if option.kind in ("choice", "bool"):
        choices = [str(c) for c in option.choices] if option.kind == "choice" else ["yes", "no"]
        return gr.Dropdown([PRESET, *choices], value=PRESET, **kwargs)
    return gr.Textbox("", placeholder="empty = preset", max_lines=1, **kwargs)  # gr.Number would send 0


def preset_infos(options: list, table, preset: str):
    """Updates of the option widgets for a newly chosen preset (wire to `preset.change`): the help text
    says what "preset" stands for; an option the preset does not use goes back to "preset" and is
    disabled. One widget: its update alone (a list would be read as the widget's value)."""
    import gradio as gr

    updates = []
    for o in options:
        used = takes_option(table, preset, o.name)
        reset = {} if used else {"value": PRESET if o.kind in ("choice", "bool") else ""}
        updates.append(gr.update(info=option_info(o, table, preset), interactive=used, **reset))
    return updates[0] if len(updates) == 1 else updates


def follow_preset(preset, widgets: list, options: list, table) -> None:
    """When the preset changes, each option widget's help says what "preset" now stands for (the
    typed inputs are left alone; an option the new preset does not use is reset and disabled)."""
    if widgets:
        preset.change(
            lambda p: preset_infos(options, table, p), inputs=preset, outputs=widgets, api_name=False
        )


def option_value(option, sent):
    """What the widget of ``option`` (see :func:`option_widget`) sent, as the option's value (None =
    the preset's); the text of numbers and other values is read as the command line reads it."""
    from .options import parse_text

    if option.kind == "choice":
        value = chosen(sent)
        return None if value is None else next((c for c in option.choices if str(c) == value), value)
    if option.kind == "bool":
        return chosen_bool(sent, option.name)
    if option.kind in ("number", "integer"):
        return chosen_number(sent, option.name, integer=option.kind == "integer")
    text = chosen((sent or "").strip() if isinstance(sent, str) else sent)
    return None if text is None else parse_text(option, text)


# Errors
def readable(err: BaseException) -> str:
    """What the page says about an error of a compute: bad input (ValueError, TypeError, a widget's own
    check) as raised; an input nested too deeply to read or too large for the server's memory, said so;
    anything else by its kind only (its text may name server files; the traceback goes to the log)."""
    import gradio as gr

    if isinstance(err, RecursionError):
        return "an input is nested too deeply to read (more levels than Python's recursion limit): flatten it"
    if isinstance(err, MemoryError):
        return f"the input is too large for this server's memory (at most {INPUT_CHARS:,} characters per Compute)"
    if isinstance(err, (ValueError, TypeError, gr.Error)):
        return str(getattr(err, "message", err))
    traceback.print_exception(err)
    return f"the demo failed unexpectedly ({type(err).__name__}); the server's log has the details"


def shows_errors(handler):
    """Wrap an API handler: an error anywhere in it (parsing or compute) becomes a gr.Error whose
    message is `readable` (a client otherwise gets `{"error": null}`, a browser a bare "Error")."""
    import gradio as gr

    @functools.wraps(handler)
    def wrapper(*args, **kwargs):
        try:
            return handler(*args, **kwargs)
        except Exception as err:  # noqa: BLE001 - every failure reaches the client as a message
            raise gr.Error(readable(err), print_exception=False) from None

    return wrapper


def upload_paths(payload) -> list[str]:
    """The server paths of the files in a File component's payload (a FileData dict or a list of them)."""
    if isinstance(payload, dict):
        return [payload["path"]] if isinstance(payload.get("path"), str) else []
    return [path for item in payload for path in upload_paths(item)] if isinstance(payload, list) else []


def preprocessed(components: list, payloads) -> list:
    """What a handler gets from the payloads of an event run with ``preprocess=False``: each component's
    own preprocessing, its checks (a number's range, a file's type) raising a ValueError that names the
    component's label (the page shows it in the panel; Gradio would cover the outputs with "Error"
    badges). The uploads of a component refused are deleted."""
    values = []
    for component, payload in zip(components, payloads, strict=True):
        model = getattr(component, "data_model", None)
        try:
            value = model.model_validate(payload) if payload is not None and model is not None else payload
            values.append(component.preprocess(value))
        except Exception as err:  # noqa: BLE001 - gr.Error, pydantic's ValidationError, ...
            for path in upload_paths(payload):
                if Path(path).resolve().is_relative_to(Path(component.GRADIO_CACHE).resolve()):
                    Path(path).unlink(missing_ok=True)
            raise ValueError(
                f"`{component.label or component.elem_id}`: {getattr(err, 'message', err)}"
            ) from None
    return values


_CAUGHT = contextvars.ContextVar("mm_demo_warnings", default=None)  # the open block's list, per request
_SEEN, _INSTALL = set(), threading.Lock()  # warnings printed outside a block (each once); the hook's lock


def _route_warning(message, category, filename, lineno, file=None, line=None):
    """warnings.showwarning while the demo serves: a warning goes to the block open in the context that
    raised it (`caught_warnings`); outside any block, to the hook found before (each text once)."""
    caught = _CAUGHT.get()
    if caught is not None:
        caught.append((category, str(message)))
    elif (str(message), category, filename, lineno) not in _SEEN:
        _SEEN.add((str(message), category, filename, lineno))
        _route_warning.fallback(message, category, filename, lineno, file, line)


def caught_warnings():
    """A block (`with caught_warnings() as caught:`) that collects the warnings raised inside it into
    ``caught.messages`` (each text once, again on the next run; not the stack's deprecation chatter).
    Nothing process-wide is swapped per request (warnings.catch_warnings did, so two requests at once
    saw each other's warnings): a hook installed once routes each warning to the block of the request
    that raised it (a context variable), with an "always" filter so that a repeated warning is seen."""
    with _INSTALL:
        if warnings.showwarning is not _route_warning:
            _route_warning.fallback, warnings.showwarning = warnings.showwarning, _route_warning
        if not warnings.filters or warnings.filters[0][:3] != ("always", None, Warning):
            warnings.simplefilter("always")
    return _Caught()


class _Caught:
    def __enter__(self):
        self.messages, self._raised = [], []
        self._token = _CAUGHT.set(self._raised)
        return self

    def __exit__(self, *exc):
        _CAUGHT.reset(self._token)
        for category, text in self._raised:
            if not issubclass(category, _QUIET) and text not in self.messages:
                self.messages.append(text)
        return False


def plain(text: str) -> str:
    """`text` shown literally in Markdown (backticks, stars, pipes and brackets escaped), web addresses
    as links (escaped, an address broke: `%5C` in the link)."""
    parts = re.split(r"(https?://[^\s<>'\"]*[^\s<>'\".,;:)])", str(text))
    return "".join(
        f"<{part}>" if i % 2 else re.sub(r"([\\`*_{}\[\]<>#|~])", r"\\\1", part)
        for i, part in enumerate(parts)
    )


# Results a person can read
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


def confidence_note(result: dict) -> str:
    """What `[low, high]` means, read from the signature (`conf:`, `bs:`, `seed:`); "" without an interval."""
    if not any(k.endswith(CI_SUFFIXES) for k in result):
        return ""
    parts = dict(p.split(":", 1) for p in str(result.get("signature", "")).split("|") if ":" in p)
    level = fmt(float(parts.get("conf", CONFIDENCE)) * 100)
    fid = "; FID's interval is moved by the bootstrap bias estimate, the reference images held fixed"
    fid = fid if parts.get("fidci") == "bias-shift" else ""
    return (
        f"[low, high]: {level}% percentile bootstrap interval over the examples "
        f"({parts.get('bs', '?')} resamples, seed {parts.get('seed', '?')}){fid}"
    )


def primary_key(result: dict) -> str:
    """The result's primary key: its first number (anls, one_minus_ned, f1 / exact_match, accuracy, ...)."""
    return next(iter(numbers_of(result)), "score")


def headline(result: dict) -> str:
    """Markdown: the primary number on one line, in bold (`key: value [low, high]`, never broken over
    lines), then the other numbers (components, per-type breakdowns) as a two-column table, then a
    note saying which interval `[low, high]` is."""
    primary = primary_key(result)
    lines = [f"**{plain(primary)}:{NBSP}{shown_number(result, primary, NBSP)}**"] if primary in result else []
    others = [k for k in numbers_of(result) if k != primary]
    if others:
        lines += ["", "| other numbers | value |", "|---|---|"]
        lines += [f"| {plain(k)} | {shown_number(result, k, NBSP)} |" for k in others]
    note = confidence_note(result)
    return "\n".join(lines + ([f"\n{note}"] if note else []))


def warnings_note(messages: list) -> str:
    """Markdown: the warnings the metric raised while computing ("" when none)."""
    items = "\n".join(f"- {plain(m)}" for m in messages)
    return (
        ""
        if not messages
        else f"**Warnings of the metric** (the numbers above were computed; read these first):\n\n{items}"
    )


def failure_note(message: str) -> str:
    """Markdown: the panel after a failed compute (the message, and that no result is shown)."""
    return (
        f"### Not computed\n\n**Error:** {plain(message)}\n\n"
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


def histogram(scores: list[float], bins: int = 10):
    """A DataFrame (`score` bin label, `examples` count) of the scores: bins over [0, 1] when every
    score lies there, else over [min, max]. Labels are the bins' lower and upper edges, in order (the
    plot keeps the data's order); no scores: no rows (nothing drawn)."""
    import numpy as np
    import pandas as pd

    values = np.array([s for s in scores if not math.isnan(s)], dtype=float)
    if values.size == 0:
        return pd.DataFrame({"score": pd.Series([], dtype=object), "examples": pd.Series([], dtype=int)})
    low, high = (0.0, 1.0) if values.min() >= 0 and values.max() <= 1 else (values.min(), values.max())
    if high == low:
        high = low + 1.0
    counts, edges = np.histogram(values, bins=bins, range=(low, high))
    # The plot orders the labels as strings: every edge gets the same decimals and the lower edges the
    # same width (padded with spaces, which sort before digits), so string order is numeric order.
    decimals = max(len(fmt(e).partition(".")[2]) for e in edges)
    texts = [f"{e:.{decimals}f}" for e in edges]
    width = max(len(t) for t in texts[:-1])
    labels = [f"{a.rjust(width)}–{b}" for a, b in zip(texts[:-1], texts[1:])]
    return pd.DataFrame({"score": labels, "examples": counts.astype(int)})


def _count_ticks(top: int) -> list[int]:
    """Whole-number ticks from 0 to at least `top`, at most 6 of them, a step of 1, 2, 5, 10, 20, 50, ..."""
    top, step = max(int(top), 1), 1
    while -(-top // step) > 5:
        step = step * 5 // 2 if str(step)[0] == "2" else step * 2
    return list(range(0, -(-top // step) * step + 1, step))


def no_per_example_note(result: dict) -> str:
    """What the histogram's place says when the result has no per-example scores (fid_clip's FID alone)."""
    return f"<p>{html.escape(primary_key(result))} is one number for the whole set: there are no per-example scores to list or plot.</p>"


def histogram_html(scores: list[float], bins: int = 10, title: str = "per-example score (bins)") -> str:
    """The histogram of the scores (`histogram`'s bins) as HTML bars: whole-number count ticks, the bin
    labels written vertically under their bars (they never run together on a phone), each bar's count
    on it, and an aria-label `score: <bin>; examples: <n>` per bar. No scores: an empty string."""
    frame = histogram(scores, bins)
    if not len(frame):
        return ""
    counts = [int(c) for c in frame["examples"]]
    ticks = _count_ticks(max(counts))
    top = ticks[-1]
    bars, labels = [], []
    for label, count in zip(frame["score"], counts):
        text = html.escape(label.strip())
        height = 100.0 * count / top
        bars.append(
            f'<div class="mm-bin"><div class="mm-bar" role="img" aria-roledescription="bar" '
            f'aria-label="score: {text}; examples: {count}" title="{text}: {count} example(s)" '
            f'style="height:{height:.2f}%">{f"<span>{count}</span>" if count else ""}</div></div>'
        )
        labels.append(f'<span class="mm-tick">{text}</span>')
    y_ticks = "".join(
        f'<span class="mm-tick" style="bottom:{100.0 * t / top:.2f}%">{t}</span>' for t in ticks
    )
    return (
        f"<style>{_HIST_CSS}</style>"
        '<figure class="mm-hist" aria-label="histogram of the per-example scores">'
        '<div class="mm-ytitle">examples</div>'
        f'<div class="mm-axis-y">{y_ticks}</div>'
        f'<div class="mm-plot">{"".join(bars)}</div>'
        f'<div class="mm-axis-x">{"".join(labels)}</div>'
        f"<figcaption>{html.escape(title)}</figcaption></figure>"
    )


_HIST_CSS = (
    ".mm-hist{display:grid;grid-template-columns:1.2em 2.2em 1fr;grid-template-rows:170px auto auto;margin:0;"
    "padding-top:1.6em;font-size:12px;color:var(--body-text-color,#333)}"
    ".mm-ytitle{grid-row:1;grid-column:1;writing-mode:vertical-rl;transform:rotate(180deg);text-align:center}"
    ".mm-axis-y{grid-row:1;grid-column:2;position:relative;border-right:1px solid #999}"
    ".mm-axis-y .mm-tick{position:absolute;right:4px;transform:translateY(50%);line-height:1}"
    ".mm-plot{grid-row:1;grid-column:3;display:flex;align-items:flex-end;gap:2px;border-bottom:1px solid #999}"
    ".mm-bin{flex:1;height:100%;display:flex;align-items:flex-end;min-width:0}"
    ".mm-bar{width:100%;background:#f97316;position:relative}"
    ".mm-bar span{position:absolute;top:-1.3em;left:0;right:0;text-align:center}"
    ".mm-axis-x{grid-row:2;grid-column:3;display:flex;gap:2px}"
    ".mm-axis-x .mm-tick{flex:1;min-width:0;writing-mode:vertical-rl;transform:rotate(180deg);"
    "text-align:right;white-space:nowrap;line-height:1.2;padding-top:3px;display:flex;align-items:center}"
    ".mm-hist figcaption{grid-row:3;grid-column:3;text-align:center;margin-top:4px}"
)


# The page's script, run once per page (idempotent): Tab leaves a dropdown with its list closed (Gradio
# reopened it after the blur); each press of a Compute button is counted per result panel, and the
# panel's outputs are hidden from a press until the result of the last press (a result's mark in its
# headline: `connect`): never a result beside inputs it was not computed from; every upload button is named after its box;
# `?tab=<id>` opens that tab (the playground's metric), and the address follows the tab a person picks.
PAGE_JS = """if (!window.mmDemo) {
  const demo = window.mmDemo = {press: {}};
  const key = (e, prefix) => [...e.classList].find(c => c.startsWith(prefix))?.slice(prefix.length);
  document.addEventListener('keydown', e => {
    if (e.key === 'Tab' && e.target.getAttribute && e.target.getAttribute('role') === 'combobox') e.stopPropagation();
  }, true);
  document.addEventListener('click', e => {
    const button = e.target.closest && e.target.closest('.mm-compute'), tab = e.target.closest && e.target.closest('[role=tab][data-tab-id]');
    if (button) { const k = key(button, 'mm-press-'); demo.press[k] = (demo.press[k] || 0) + 1; tidy(); }
    if (tab && e.isTrusted) history.replaceState(null, '', '?tab=' + encodeURIComponent(tab.dataset.tabId));
  }, true);
  demo.tab = new URLSearchParams(location.search).get('tab');
  const tidy = () => {
    const wanted = demo.tab && [...document.querySelectorAll('[role=tab][data-tab-id]')].find(t => t.dataset.tabId === demo.tab);
    if (wanted) { demo.tab = null; wanted.click(); }
    document.querySelectorAll('.mm-ticket[title]').forEach(mark => {  // "<panel> <press> <headline id>"
      const [k, ticket, id] = mark.title.split(' '), head = document.getElementById(id);
      const stale = Number(ticket) < (demo.press[k] || 0);  // Compute pressed since: hidden until its result
      if (!stale && !mark.dataset.mmSeen) {  // a new result: brought into view
        const box = (mark.dataset.mmSeen = 1) && head?.getBoundingClientRect();
        if (box && (box.top < 0 || box.top > innerHeight - 80)) head.scrollIntoView();
      }
      document.querySelectorAll('.mm-out-' + k).forEach(o => { if (o.classList.contains('mm-stale') !== stale) o.classList.toggle('mm-stale', stale); });
    });
    document.querySelectorAll('button.upload-container').forEach(b => {  // named after its box
      const name = 'upload ' + b.closest('.block')?.querySelector('[data-testid=block-label]')?.innerText.trim();
      if (b.getAttribute('aria-label') !== name) b.setAttribute('aria-label', name);
    });
  };
  new MutationObserver(tidy).observe(document.body, {subtree: true, childList: true, attributes: true, attributeFilter: ['class']});
  tidy();
}"""
PAGE_CSS = (  # paired boxes (`mm-lines`) never wrap a line: line n of one faces line n of the other
    ".mm-page{display:none} .mm-stale>:not([data-testid=status-tracker]){visibility:hidden}"
    ".mm-lines textarea{white-space:pre!important;overflow-wrap:normal!important;overflow-x:auto!important}"
    ".mm-code textarea{font-family:var(--font-mono,monospace)!important;font-size:13px!important}"
    "[role=columnheader],[role=columnheader] *,[id$=headline] td{word-break:keep-all!important;overflow-wrap:normal!important}"
)


class ResultPanel:
    """The result half of a demo (create it where it should appear): the headline (numbers, warnings, or
    the error), the signature, the per-example table (and its CSV), the histogram, the raw result."""

    def __init__(self, api_prefix: str = "", table_label: str = "per example"):
        import gradio as gr

        self.key = re.sub(r"\W", "", api_prefix) or "page"  # names this panel in the page's script
        gr.HTML(
            f"<style>{PAGE_CSS}</style>",
            js_on_load=PAGE_JS,
            container=False,
            padding=False,
            elem_classes="mm-page",
        )
        self.headline = gr.Markdown(
            f"*Press Compute.* Each score shows `value [low, high]`: its {fmt(CONFIDENCE * 100)}% bootstrap interval. "
            f"One Compute reads at most {INPUT_CHARS:,} characters of input (about {INPUT_CHARS // 10**6} MB).",
            elem_id=f"{api_prefix}headline",
        )
        self.signature = gr.Textbox(label="signature (every setting that changes the number)", interactive=False,
                                    lines=2, max_lines=6, elem_id=f"{api_prefix}signature")  # fmt: skip
        self.table = gr.Dataframe(
            label=table_label,
            interactive=False,
            wrap=True,
            max_height=420,
            elem_id=f"{api_prefix}table",
            visible=False,
        )
        self.download = gr.File(label="every example (CSV)", visible=False, elem_id=f"{api_prefix}download")
        # Drawn as HTML (`histogram_html`): whole-number count ticks and bin labels that never run
        # together on a phone, which the plot component's automatic axes could not give.
        self.histogram = gr.HTML(
            "", label="histogram of the per-example scores", show_label=True, container=True, padding=True,
            elem_id=f"{api_prefix}histogram",
        )  # fmt: skip
        with gr.Accordion("raw result (JSON)", open=False):
            self.raw = gr.JSON(label="result", elem_id=f"{api_prefix}raw")
        for component in [*self.outputs, self.download]:
            component.elem_classes = [f"mm-out-{self.key}"]

    @property
    def outputs(self) -> list:
        """The output components, in the order `show` returns their values (raw result first)."""
        return [self.raw, self.headline, self.signature, self.table, self.histogram]

    def show(self, result: dict, columns: dict, score: str | None = None, warned: list = ()) -> tuple:
        """Values for `outputs`; `columns` maps table column names to the per-example input values;
        `score` names the per-example score when it is not the result's primary key; `warned`: the
        warnings raised while computing. Without per-example scores (FID alone) the histogram's place
        says why (and the page hides the table: `in_page`)."""
        import pandas as pd

        headers, rows = per_example_rows(result, columns, score)
        key = score or primary_key(result)
        count = f"\n\n{len(rows)} example(s) (the table and the histogram show the per-example {key})"
        if len(rows) > ROWS_SHOWN:  # a long table would block the page for seconds
            count = (
                f"\n\n{len(rows)} example(s): the histogram counts them all, the table shows the per-example "
                f"{key} of the first {ROWS_SHOWN} (all of them: the CSV file under the table)"
            )
        notes = warnings_note(list(warned))
        per_example = "per_example" in result
        return (
            result,
            headline(result) + (count if per_example else "") + (f"\n\n{notes}" if notes else ""),
            result.get("signature", ""),
            pd.DataFrame(rows[:ROWS_SHOWN], columns=headers),
            histogram_html(per_example_scores(result, score)) if per_example else no_per_example_note(result),
        )

    @staticmethod
    def in_page(values: tuple) -> tuple:
        """`show` / `failed` values as the page gets them: the table only with per-example scores (no
        empty grid), the raw result's per-example list cut at ROWS_SHOWN (the CSV has them all). The API
        endpoint returns the plain values."""
        import gradio as gr

        raw, headline_md, signature, table, *rest = values
        if raw and len(raw.get("per_example") or ()) > ROWS_SHOWN:
            raw = {
                **raw,
                "per_example": raw["per_example"][:ROWS_SHOWN],
                "shown": f"the first {ROWS_SHOWN}: all in the CSV",
            }
        visible = bool(raw) and "per_example" in raw
        return (raw, headline_md, signature, gr.update(value=table, visible=visible), *rest)

    def csv_file(self, result: dict, columns: dict, score: str | None = None):
        """The page's download of every per-example row (unrounded), when the table shows only the first
        ROWS_SHOWN: an update of `download` (hidden otherwise). Files older than 10 minutes are removed."""
        import gradio as gr
        import pandas as pd

        if len(result.get("per_example") or ()) <= ROWS_SHOWN:
            return gr.update(value=None, visible=False)
        folder = Path(tempfile.gettempdir()) / "mm_demo_csv"
        folder.mkdir(exist_ok=True)
        for old in folder.glob("*.csv"):
            if time.time() - old.stat().st_mtime > 600:
                old.unlink(missing_ok=True)
        path = folder / f"per_example_{uuid.uuid4().hex[:12]}.csv"
        headers, rows = per_example_rows(result, columns, score, rounded=False)
        pd.DataFrame(rows, columns=headers).to_csv(path, index=False)
        return gr.update(value=str(path), visible=True)

    def failed(self, message: str) -> tuple:
        """Values for `outputs` after a failed compute: the message, and every previous value removed."""
        import pandas as pd

        return (None, failure_note(message), "", pd.DataFrame(), histogram_html([]))


def connect(
    button, handler, inputs: list, panel: ResultPanel, api_name: str, extra_outputs: list = ()
) -> None:
    """button.click -> handler(*inputs) -> (result, table columns, *values of `extra_outputs`), shown in
    `panel` with this request's warnings (`handler.per_example_score`: the per-example score when not the
    primary key). Inputs over INPUT_CHARS are refused. In the page an error (a widget's check included)
    replaces the panel until the next compute; a press while a compute runs is computed next, and a
    result of an earlier press is never shown (each carries its press number: `PAGE_JS`). The API
    endpoint `api_name` (same inputs and outputs, no CSV) raises the error (`shows_errors`)."""
    import gradio as gr

    outputs = panel.outputs + list(extra_outputs)
    for component in [button, *extra_outputs]:  # the page's script counts presses, hides stale results
        extra = ["mm-compute", f"mm-press-{panel.key}"] if component is button else [f"mm-out-{panel.key}"]
        component.elem_classes = [*(component.elem_classes or []), *extra]
    ticket = gr.Textbox(visible=False)  # the number of the press a compute answers (set in the page)

    count = f"(...a) => {{ a[a.length - 1] = String((window.mmDemo && window.mmDemo.press['{panel.key}']) || 0); return a; }}"

    @functools.wraps(handler)
    def run(*payloads):
        size = sum(len(p) for p in payloads if isinstance(p, str))
        try:
            if size > INPUT_CHARS:
                raise ValueError(
                    f"the input holds {size:,} characters; one Compute reads at most {INPUT_CHARS:,} "
                    "(about 10 MB): score larger sets with the library or mm-score"
                )
            with caught_warnings() as caught:
                result, columns, *extras = handler(*preprocessed(inputs, payloads))
            score = getattr(handler, "per_example_score", None)
            return (*panel.show(result, columns, score, caught.messages), *extras), (result, columns, score)
        finally:
            if size > 1_000_000:  # give a large request's memory back to the system
                payloads = result = columns = extras = None
                release_memory()

    def in_page(*payloads):
        try:
            values, (result, columns, score) = run(*payloads[:-1])
            shown = [*panel.in_page(values), panel.csv_file(result, columns, score)]
        except Exception as err:  # noqa: BLE001 - every failure is a message in the panel
            shown = [
                *panel.in_page((*panel.failed(readable(err)), *[None] * len(extra_outputs))),
                gr.update(visible=False),
            ]
        ticket_mark = f'<i hidden class="mm-ticket" title="{panel.key} {int(payloads[-1] or 0)} {panel.headline.elem_id}"></i>'
        shown[1] = f"{shown[1]}\n\n{ticket_mark}"  # in the headline: judged as it is drawn
        return tuple(shown)

    @functools.wraps(handler)
    def api_run(*payloads):
        return run(*payloads)[0]

    button.click(in_page, [*inputs, ticket], [*outputs, panel.download], js=count, api_name=False, preprocess=False,
                 trigger_mode="always_last")  # fmt: skip
    api = gr.Button(visible=False, elem_id=f"{api_name}_api")
    api.click(shows_errors(api_run), inputs=inputs, outputs=outputs, api_name=api_name, preprocess=False)


def release_memory() -> None:
    """After a large request: a full garbage collection, and glibc's free heap returned to the system."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):  # glibc only
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    with contextlib.suppress(ImportError, AttributeError):  # evaluate's Arrow buffers: pyarrow's own pool
        __import__("pyarrow").default_memory_pool().release_unused()


def page_blocks(title: str):
    """The gr.Blocks of a demo page: an upload larger than UPLOAD_MB is refused (the `max_file_size` of
    its `launch`, unless given), and the uploads and the files the demo wrote are deleted an hour later."""
    import gradio as gr

    page = gr.Blocks(title=title, delete_cache=(600, 3600))
    page.launch = functools.partial(page.launch, max_file_size=f"{UPLOAD_MB}mb")
    return page


def card_body(card: Path) -> str:
    """The metric card without its YAML front matter (shown under the demo)."""
    text = card.read_text(encoding="utf-8") if card.exists() else ""
    end = text.find("\n---", 3) if text.startswith("---") else -1
    return text[end + 4 :] if end != -1 else text


class TextPairDemo:
    """The demo of a text-pair metric: two boxes (predictions; one or more references per example), the
    preset, a widget per option of ``library.OPTIONS``, Compute, the result panel; it scores through
    ``evaluate.load(script)`` as the Space's users do. ``compute`` is the API endpoint (predictions,
    references, preset, the options in table order); ``build_ui`` lays it out (the playground reuses it)."""

    def __init__(self, library, script: Path, intro: str, example_predictions: str, example_references: str):
        self.library, self.script, self.intro = library, Path(script), intro
        self.examples = (example_predictions, example_references)
        self.options = [o for o in library.OPTIONS if o.demo]

    def compute(self, predictions: str, references: str, preset: str, *options):
        """Score the examples: (result, table columns). Options left on "preset" / empty use the preset's values."""
        preds = parse_items(predictions, "predictions")
        refs = parse_alternatives(references, "references")
        chosen = {o.name: option_value(o, sent) for o, sent in zip(self.options, options, strict=True)}
        result = load_metric(self.script, preset).compute(
            predictions=preds, references=refs, return_per_example=True, confidence=CONFIDENCE, **chosen
        )
        return result, {"prediction": preds, "references": refs}

    def build_ui(self, api_prefix: str = "") -> None:
        """The demo's components and events, inside the caller's gr.Blocks context."""
        import gradio as gr

        gr.Markdown(
            f"{self.intro} One example per line; a reference line may list accepted answers separated by "
            "` | ` (space, bar, space; a bar without spaces is part of the answer, and the page says so), or "
            "paste JSON lists. Options left on *preset* (or empty) use the preset's value."
        )
        with gr.Row():
            with gr.Column():
                with gr.Row():
                    predictions = gr.Textbox(
                        self.examples[0],
                        lines=6,
                        max_lines=TEXT_LINES,
                        label="predictions",
                        elem_id=f"{api_prefix}preds",
                        elem_classes="mm-lines",
                    )
                    references = gr.Textbox(
                        self.examples[1],
                        lines=6,
                        max_lines=TEXT_LINES,
                        label="references",
                        elem_id=f"{api_prefix}refs",
                        elem_classes="mm-lines",
                    )
                with gr.Row():
                    first = self.library.OPTIONS.default_preset
                    preset = gr.Dropdown(
                        list(self.library.PRESETS), value=first, label="preset", elem_id=f"{api_prefix}preset"
                    )
                    table = self.library.OPTIONS
                    widgets = [
                        option_widget(o, f"{api_prefix}opt_{o.name}", table, first) for o in self.options
                    ]
                button = gr.Button("Compute", variant="primary", elem_id=f"{api_prefix}go")
            with gr.Column():
                panel = ResultPanel(api_prefix)
        connect(
            button, self.compute, [predictions, references, preset, *widgets], panel, f"{api_prefix}compute"
        )
        follow_preset(preset, widgets, self.options, table)

    def blocks(self, title: str, heading: str, card: Path):
        """The Space's page: the heading, the demo and the metric card."""
        import gradio as gr

        with page_blocks(title) as page:
            gr.Markdown(heading)
            self.build_ui()
            with gr.Accordion("Metric card", open=False):
                gr.Markdown(card_body(card))
        return page
