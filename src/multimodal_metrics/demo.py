"""Helpers shared by the Gradio demos (app.py) of the Multimodal Metrics collection.

Part of the library (``multimodal_metrics.demo``, extra ``demo``): every app.py imports it; gradio is
imported inside the functions that build components. No metric logic here.

What a demo is made of:
* options: `option_widget` builds the widget of a row of the metric's option table (`option_choice`:
  a dropdown whose first choice is "preset"; `option_number`: a text box, empty = preset) and
  `option_value` reads it back. A browser sends what it shows, so "the preset's value" has to be a visible
  choice: a gr.Number left empty shows and sends 0. `chosen`, `chosen_bool` and `chosen_number` turn
  what was sent back into the option value (None = the preset's).
* errors: `shows_errors` wraps the whole event handler (parsing included), so bad input of any kind
  (invalid JSON, wrong lengths, a bad option) is shown in the page as a message naming what is wrong.
* results: `ResultPanel` shows the headline numbers rounded, each as `value [low, high]` where the
  result has its bootstrap interval (`<key>_ci_low` / `<key>_ci_high`: the apps pass `confidence=
  CONFIDENCE`), the full signature, a per-example table and a histogram of the per-example scores,
  plus the raw result (the API's first output).
"""

import functools
import json
import math
import sys
from pathlib import Path

import evaluate

_LOADED = {}
PRESET = "preset"  # the option choice that means "the preset's value"
DIGITS = 4  # headline and table numbers are rounded to this many decimals
# Every demo asks for this percentile bootstrap interval (the module's default resamples and seed, so
# the signature records `ci:bs-pct|conf:0.95|bs:1000|seed:12345` and the interval is reproducible;
# fid_clip with FID: `ci:bs-pct|fidci:bias-shift|conf:0.95|bs:200|seed:12345`).
CONFIDENCE = 0.95
CI_SUFFIXES = ("_ci_low", "_ci_high")


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
        try:
            value = json.loads(text)
        except json.JSONDecodeError as err:
            raise ValueError(f"`{arg}` is not valid JSON: {err}") from None
        if not isinstance(value, list):
            raise ValueError(f"`{arg}` must be a JSON list")
        return value
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines = lines[:-1]
    return lines


def parse_alternatives(text: str, arg: str, separator: str = " | ") -> list:
    """Like parse_items, but a line may hold several alternatives separated by ' | '."""
    items = parse_items(text, arg)
    if text.lstrip().startswith("["):
        return items
    return [line.split(separator) if separator in line else line for line in items]


def parse_json(text: str, arg: str):
    """Any JSON value; a ValueError naming `arg` when the text is not JSON."""
    try:
        return json.loads(text or "")
    except json.JSONDecodeError as err:
        raise ValueError(f"`{arg}` is not valid JSON: {err}") from None


# ------------------------------------------------------------------------------------------------
# Options: "preset" is a visible choice, an empty text box means the preset's value
# ------------------------------------------------------------------------------------------------
def option_choice(label: str, choices: list[str], elem_id: str | None = None, info: str | None = None):
    """A dropdown whose first choice, selected, is "preset" (the preset's value)."""
    import gradio as gr

    return gr.Dropdown([PRESET, *choices], value=PRESET, label=label, info=info, elem_id=elem_id)


def option_number(label: str, elem_id: str | None = None, info: str | None = None):
    """A text box for a number; left empty it means the preset's value (gr.Number would send 0)."""
    import gradio as gr

    return gr.Textbox("", label=label, placeholder="empty = preset", info=info, max_lines=1, elem_id=elem_id)


def chosen(value):
    """What a dropdown sent: None for the "preset" choice (or nothing), else the value."""
    return None if value in (None, "", PRESET) else value


def chosen_bool(value, arg: str):
    """A yes/no dropdown: None for "preset", True for "yes", False for "no"."""
    value = chosen(value)
    if value is None:
        return None
    if value not in ("yes", "no"):
        raise ValueError(f"`{arg}` must be preset, yes or no, got {value!r}")
    return value == "yes"


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
        raise ValueError(f"`{arg}` must be a number (or empty for the preset's value), got {text!r}") from None
    if integer:
        if not value.is_integer():
            raise ValueError(f"`{arg}` must be a whole number (or empty for the preset's value), got {text!r}")
        return int(value)
    return value


def option_widget(option, elem_id: str | None = None):
    """The widget of one row of a metric's option table (``multimodal_metrics.options.Option``): a
    dropdown ("preset" first) for choices and booleans (yes/no), a text box (empty = preset) for
    numbers, paths and other values; the option's help text is shown under it."""
    if option.kind == "choice":
        return option_choice(option.name, [str(c) for c in option.choices], elem_id=elem_id, info=option.help)
    if option.kind == "bool":
        return option_choice(option.name, ["yes", "no"], elem_id=elem_id, info=option.help)
    return option_number(option.name, elem_id=elem_id, info=option.help)


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


# ------------------------------------------------------------------------------------------------
# Errors
# ------------------------------------------------------------------------------------------------
def shows_errors(handler):
    """Wrap an event handler: a ValueError/TypeError anywhere in it (parsing or compute) becomes a
    gr.Error, which the page shows as a message (a bare "Error" is all a browser sees otherwise)."""
    import gradio as gr

    @functools.wraps(handler)
    def wrapper(*args, **kwargs):
        try:
            return handler(*args, **kwargs)
        except (ValueError, TypeError) as err:
            raise gr.Error(str(err), print_exception=False) from None

    return wrapper


def safe_compute(metric, **kwargs) -> dict:
    """metric.compute(...) with bad input shown as a readable error in the UI, not a traceback."""
    import gradio as gr

    try:
        return metric.compute(**kwargs)
    except (ValueError, TypeError) as err:
        raise gr.Error(str(err)) from None


# ------------------------------------------------------------------------------------------------
# Results a person can read
# ------------------------------------------------------------------------------------------------
def fmt(value) -> str:
    """A number rounded to DIGITS decimals, without trailing zeros (0.5, 0.7333, 12, nan)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if math.isnan(value) or math.isinf(value):
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
    return {
        k: v
        for k, v in result.items()
        if isinstance(v, (int, float)) and not isinstance(v, bool) and not k.endswith(CI_SUFFIXES)
    }


def interval_of(result: dict, key: str) -> tuple | None:
    """(low, high) of `key`'s bootstrap interval when the result has one, else None (FID, no confidence)."""
    low, high = result.get(f"{key}_ci_low"), result.get(f"{key}_ci_high")
    return None if low is None or high is None else (low, high)


def shown_number(result: dict, key: str) -> str:
    """`key`'s value rounded, followed by its interval `[low, high]` when the result has one."""
    text = fmt(result[key])
    bounds = interval_of(result, key)
    return text if bounds is None else f"{text} [{fmt(bounds[0])}, {fmt(bounds[1])}]"


def confidence_note(result: dict) -> str:
    """What `[low, high]` means, read from the signature (`conf:`, `bs:`, `seed:`); "" without an interval."""
    if not any(k.endswith(CI_SUFFIXES) for k in result):
        return ""
    parts = dict(p.split(":", 1) for p in str(result.get("signature", "")).split("|") if ":" in p)
    level = fmt(float(parts.get("conf", CONFIDENCE)) * 100)
    fid = (
        "; FID's interval is moved by the bootstrap bias estimate, the reference images held fixed"
        if parts.get("fidci") == "bias-shift"
        else ""
    )
    return (
        f"[low, high]: {level}% percentile bootstrap interval over the examples "
        f"({parts.get('bs', '?')} resamples, seed {parts.get('seed', '?')}){fid}"
    )


def primary_key(result: dict) -> str:
    """The result's primary key: its first number (anls, one_minus_ned, f1 / exact_match, accuracy, ...)."""
    return next(iter(numbers_of(result)), "score")


def headline(result: dict) -> str:
    """Markdown table: the aggregate numbers of `result`, rounded, the primary one first and in bold;
    a number with a bootstrap interval reads `value [low, high]`, and a note under the table says
    which interval it is."""
    primary = primary_key(result)
    keys = list(numbers_of(result))
    head = "| " + " | ".join(f"**{k}**" if k == primary else k for k in keys) + " |"
    rule = "|" + "---|" * len(keys)
    cells = (f"**{shown_number(result, k)}**" if k == primary else shown_number(result, k) for k in keys)
    row = "| " + " | ".join(cells) + " |"
    note = confidence_note(result)
    return "\n".join([head, rule, row] + ([f"\n{note}"] if note else []))


def per_example_rows(result: dict, columns: dict, score: str | None = None) -> tuple[list[str], list[list]]:
    """(headers, rows) of the per-example table: the given input columns, then the scores (the
    primary one first, then the metric's other parts), numbers rounded. `score` names a per-example
    float when it is not the primary key (fid_clip: one CLIP score per image beside one FID)."""
    primary = score or primary_key(result)
    per = result.get("per_example") or []
    parts = [primary] if per and not isinstance(per[0], dict) else []
    if per and isinstance(per[0], dict):
        parts = ([primary] if primary in per[0] else []) + [k for k in per[0] if k != primary]
    headers = ["#", *columns, *parts]
    rows = []
    for i, score in enumerate(per):
        values = [score] if not isinstance(score, dict) else [score.get(k) for k in parts]
        inputs = [cell(col[i]) if i < len(col) else "" for col in columns.values()]
        rows.append([i, *inputs, *(fmt(v) for v in values)])
    return headers, rows


def per_example_scores(result: dict, score: str | None = None) -> list[float]:
    """The primary score (or the `score` part) of every example."""
    primary = score or primary_key(result)
    per = result.get("per_example") or []
    return [float(s[primary] if isinstance(s, dict) else s) for s in per]


def histogram(scores: list[float], bins: int = 10):
    """A DataFrame (`score` bin label, `examples` count) of the scores: bins over [0, 1] when every
    score lies there, else over [min, max]. Labels are the bins' lower edges, in order."""
    import numpy as np
    import pandas as pd

    values = np.array([s for s in scores if not math.isnan(s)], dtype=float)
    low, high = (0.0, 1.0) if values.size == 0 or (values.min() >= 0 and values.max() <= 1) else (values.min(), values.max())
    if high == low:
        high = low + 1.0
    counts, edges = np.histogram(values, bins=bins, range=(low, high))
    labels = [f"{fmt(a)}–{fmt(b)}" for a, b in zip(edges[:-1], edges[1:])]
    return pd.DataFrame({"score": labels, "examples": counts.astype(int)})


class ResultPanel:
    """The result half of a demo (create it inside the layout where it should appear): headline
    numbers, the full signature, the per-example table, the histogram and the raw result JSON."""

    def __init__(self, api_prefix: str = "", table_label: str = "per example"):
        import gradio as gr

        self.headline = gr.Markdown(
            f"*Press Compute.* Each score shows `value [low, high]`: its {fmt(CONFIDENCE * 100)}% bootstrap interval.",
            elem_id=f"{api_prefix}headline",
        )
        self.signature = gr.Textbox(
            label="signature (every setting that changes the number)",
            interactive=False,
            lines=2,
            max_lines=6,
            elem_id=f"{api_prefix}signature",
        )
        self.table = gr.Dataframe(
            label=table_label, interactive=False, wrap=True, max_height=420, elem_id=f"{api_prefix}table"
        )
        self.histogram = gr.BarPlot(
            x="score",
            y="examples",
            label="histogram of the per-example scores",
            y_title="examples",
            height=220,
            elem_id=f"{api_prefix}histogram",
        )
        with gr.Accordion("raw result (JSON)", open=False):
            self.raw = gr.JSON(label="result", elem_id=f"{api_prefix}raw")

    @property
    def outputs(self) -> list:
        """The output components, in the order `show` returns their values (raw result first)."""
        return [self.raw, self.headline, self.signature, self.table, self.histogram]

    def show(self, result: dict, columns: dict, score: str | None = None) -> tuple:
        """Values for `outputs`; `columns` maps table column names to the per-example input values;
        `score` names the per-example score when it is not the result's primary key."""
        import gradio as gr
        import pandas as pd

        headers, rows = per_example_rows(result, columns, score)
        frame = histogram(per_example_scores(result, score))
        return (
            result,
            headline(result) + f"\n\n{len(rows)} example(s)",
            result.get("signature", ""),
            pd.DataFrame(rows, columns=headers),
            # bins in numeric order (not alphabetical), the axis named after the primary score
            gr.BarPlot(value=frame, sort=list(frame["score"]), x_title=f"per-example {score or primary_key(result)}"),
        )


def connect(button, handler, inputs: list, panel: ResultPanel, api_name: str, extra_outputs: list = ()) -> None:
    """button.click -> handler(*inputs), which returns (result, table columns, *extra values); the
    panel shows the result, `extra_outputs` (e.g. a picture) get the extra values. A handler that sets
    `handler.per_example_score` names the per-example score when it is not the primary key. Errors anywhere in
    the handler are shown in the page (`shows_errors`). The API endpoint keeps the handler's parameters."""

    @functools.wraps(handler)
    def run(*args):
        result, columns, *extras = handler(*args)
        return (*panel.show(result, columns, getattr(handler, "per_example_score", None)), *extras)

    button.click(shows_errors(run), inputs=inputs, outputs=panel.outputs + list(extra_outputs), api_name=api_name)


def card_body(card: Path) -> str:
    """The metric card without its YAML front matter (shown under the demo)."""
    text = card.read_text(encoding="utf-8") if card.exists() else ""
    if text.startswith("---"):
        end = text.find("\n---", 3)
        if end != -1:
            text = text[end + 4 :]
    return text


def ensure_importable(folder: Path) -> None:
    """Put a metric folder on sys.path (the playground imports several apps)."""
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))


class TextPairDemo:
    """The whole demo of a text-pair metric (one prediction and one or more references per example):
    two text boxes, the preset, one widget per option of the library's table, Compute, the result panel.

    ``library``: the metric's library module (``OPTIONS``, ``PRESETS``); ``script``: the evaluate script
    beside app.py (the demo scores through ``evaluate.load``, as the Space's users do); ``intro``: the
    sentence above the inputs. ``compute`` is the API endpoint (its inputs: predictions, references,
    preset, then the options in table order) and ``build_ui`` lays the demo out (the playground reuses it).
    """

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
            "` | ` (or paste JSON lists). Options left on *preset* (or empty) use the preset's value."
        )
        with gr.Row():
            with gr.Column():
                with gr.Row():
                    predictions = gr.Textbox(self.examples[0], lines=6, label="predictions", elem_id=f"{api_prefix}preds")
                    references = gr.Textbox(self.examples[1], lines=6, label="references", elem_id=f"{api_prefix}refs")
                with gr.Row():
                    preset = gr.Dropdown(list(self.library.PRESETS), value=self.library.OPTIONS.default_preset,
                                         label="preset", elem_id=f"{api_prefix}preset")
                    widgets = [option_widget(o, elem_id=f"{api_prefix}opt_{o.name}") for o in self.options]
                button = gr.Button("Compute", variant="primary", elem_id=f"{api_prefix}go")
            with gr.Column():
                panel = ResultPanel(api_prefix)
        connect(button, self.compute, [predictions, references, preset, *widgets], panel, f"{api_prefix}compute")

    def blocks(self, title: str, heading: str, card: Path):
        """The Space's page: the heading, the demo and the metric card."""
        import gradio as gr

        with gr.Blocks(title=title) as page:
            gr.Markdown(heading)
            self.build_ui()
            with gr.Accordion("Metric card", open=False):
                gr.Markdown(card_body(card))
        return page
