"""The result panel of a demo and the wiring of its Compute button."""

import contextlib
import ctypes
import functools
import gc
import re
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from .errors import caught_warnings, preprocessed, readable, shows_errors
from .headline import (
    failure_note,
    fmt,
    headline,
    per_example_rows,
    per_example_scores,
    primary_key,
    warnings_note,
)
from .histogram import histogram_html, no_per_example_note
from .page import PAGE_CSS, PAGE_JS
from .settings import CONFIDENCE, INPUT_CHARS, RESAMPLING, ROWS_SHOWN


@dataclass
class Computed:
    """What a page's compute hands the panel: the result, the table's input columns (name -> one value
    per example), the values of the page's extra outputs, the resampling it passed to the metric (the
    headline says which interval `[low, high]` is), and the per-example score's name when it is not the
    result's primary key (fid_clip: one CLIP score per image beside one FID)."""

    result: dict
    columns: dict
    extras: tuple = ()
    resampling: dict = field(default_factory=lambda: dict(RESAMPLING))
    score: str | None = None


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

    def show(
        self,
        result: dict,
        columns: dict,
        score: str | None = None,
        warned: list = (),
        resampling: dict | None = None,
    ) -> tuple:
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
            headline(result, resampling) + (count if per_example else "") + (f"\n\n{notes}" if notes else ""),
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
    """button.click -> handler(*inputs) -> a :class:`Computed` (its extras: the values of `extra_outputs`),
    shown in `panel` with this request's warnings. Inputs over INPUT_CHARS are refused. In the page an error (a widget's check included)
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
                computed = handler(*preprocessed(inputs, payloads))
            result, columns, score = computed.result, computed.columns, computed.score
            shown = panel.show(result, columns, score, caught.messages, computed.resampling)
            return (*shown, *computed.extras), (result, columns, score)
        finally:
            if size > 1_000_000:  # give a large request's memory back to the system
                payloads = result = columns = computed = shown = None
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
    def api_run(*payloads):  # plain values: an extra's update for the page (det_f1's alt text) unwrapped
        return tuple(plain_value(v) for v in run(*payloads)[0])

    button.click(in_page, [*inputs, ticket], [*outputs, panel.download], js=count, api_name=False, preprocess=False,
                 trigger_mode="always_last")  # fmt: skip
    api = gr.Button(visible=False, elem_id=f"{api_name}_api")
    api.click(shows_errors(api_run), inputs=inputs, outputs=outputs, api_name=api_name, preprocess=False)


def plain_value(value):
    """The value of a component's update (``gr.update(value=..., alt_text=...)``), else `value`."""
    return value.get("value") if isinstance(value, dict) and value.get("__type__") == "update" else value


def release_memory() -> None:
    """After a large request: a full garbage collection, and glibc's free heap returned to the system."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):  # glibc only
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    with contextlib.suppress(ImportError, AttributeError):  # evaluate's Arrow buffers: pyarrow's own pool
        __import__("pyarrow").default_memory_pool().release_unused()
