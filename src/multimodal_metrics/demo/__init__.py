"""The Gradio demos of the collection (extra ``demo``): the pages of metrics/*/app.py and of the playground
are built here, so that the apps only say what differs (gradio is imported inside the functions that build
components; the scoring is the library's, through ``evaluate.load`` on the metric's script).

* ``settings``: rounding, the interval every page asks for (``RESAMPLING``), the limits of one Compute.
* ``parsing``: what the boxes hold (one item per line, ``a | b`` alternatives, JSON, code snippets).
* ``widgets``: a widget per row of a metric's option table ("preset" a visible choice, an empty box the
  preset's value) and its value read back; the help follows the preset.
* ``errors``: a compute's errors and warnings as messages (never "Error" badges).
* ``headline`` / ``histogram``: a result as a person reads it.
* ``panel``: the result panel (``ResultPanel``) and the wiring of Compute (``connect``, ``Computed``).
* ``page``: the page's script and style, its gr.Blocks, the metric card.
* ``metric_page``: the generic page (``MetricPage``: the inputs, the preset and option widgets, Compute,
  the panel, with hooks for what a metric needs beside them); ``text_pair``: the text-pair page.
* ``uploads`` (fid_clip's uploads and paths), ``alignment`` (ru_meteor's aligned words): logic of one
  page, testable without a browser. det_f1's picture: ``multimodal_metrics.det_f1.drawing``.
"""

from .errors import caught_warnings, preprocessed, readable, shows_errors, upload_paths
from .headline import (
    cell,
    confidence_note,
    failure_note,
    fmt,
    headline,
    interval_of,
    numbers_of,
    per_example_rows,
    per_example_scores,
    plain,
    primary_key,
    shown_number,
    warnings_note,
)
from .histogram import count_ticks, histogram, histogram_html, no_per_example_note
from .loading import load_metric
from .metric_page import Box, MetricPage
from .page import PAGE_CSS, PAGE_JS, card_body, page_blocks
from .panel import Computed, ResultPanel, connect, release_memory
from .parsing import parse_alternatives, parse_items, parse_json, split_snippets
from .settings import (
    CI_SUFFIXES,
    CODE_LINES,
    CONFIDENCE,
    DIGITS,
    INPUT_CHARS,
    NBSP,
    PRESET,
    RESAMPLING,
    ROWS_SHOWN,
    TEXT_LINES,
    UPLOAD_MB,
)
from .text_pair import TextPairDemo, text_pair_app
from .widgets import (
    chosen,
    chosen_bool,
    chosen_number,
    dropdown_choices,
    follow_preset,
    option_info,
    option_value,
    option_widget,
    person_chooses,
    preset_updates,
    preset_value,
    takes_option,
)

__all__ = [
    "Box",
    "CI_SUFFIXES",
    "CODE_LINES",
    "CONFIDENCE",
    "Computed",
    "DIGITS",
    "INPUT_CHARS",
    "MetricPage",
    "NBSP",
    "PAGE_CSS",
    "PAGE_JS",
    "PRESET",
    "RESAMPLING",
    "ROWS_SHOWN",
    "ResultPanel",
    "TEXT_LINES",
    "TextPairDemo",
    "text_pair_app",
    "UPLOAD_MB",
    "card_body",
    "caught_warnings",
    "cell",
    "chosen",
    "chosen_bool",
    "chosen_number",
    "confidence_note",
    "connect",
    "count_ticks",
    "dropdown_choices",
    "failure_note",
    "fmt",
    "follow_preset",
    "headline",
    "histogram",
    "histogram_html",
    "interval_of",
    "load_metric",
    "no_per_example_note",
    "numbers_of",
    "option_info",
    "option_value",
    "option_widget",
    "person_chooses",
    "page_blocks",
    "parse_alternatives",
    "parse_items",
    "parse_json",
    "per_example_rows",
    "per_example_scores",
    "plain",
    "preprocessed",
    "preset_updates",
    "preset_value",
    "primary_key",
    "readable",
    "release_memory",
    "shown_number",
    "shows_errors",
    "split_snippets",
    "takes_option",
    "upload_paths",
    "warnings_note",
]
