"""The generic page of a metric: the inputs, the preset and a widget per option of the metric's table,
Compute, the result panel; hooks add what one metric needs beside them (files, a picture, an alignment).

Every choice of presets and options comes from the metric's ``PRESETS`` / ``OPTIONS`` table: the
dropdown lists the presets and starts on the table's default preset, the widgets are the rows the demo
shows (``Option.demo``), and the options a page resolves are ``OPTIONS.resolve(preset, chosen)``.
"""

from dataclasses import dataclass, field
from pathlib import Path

from . import loading
from .page import card_body, page_blocks
from .panel import Computed, ResultPanel, connect
from .settings import CODE_LINES, RESAMPLING, TEXT_LINES
from .widgets import follow_preset, option_value, option_widget

MORE_OPTIONS = "more options (empty / preset: the preset's value)"
PAIRED_PX = 200  # the narrowest a box beside another is drawn (a phone's column holds one)


def shows_only(component) -> bool:
    """A component a compute does not read (a button, Markdown, HTML)."""
    import gradio as gr

    return isinstance(component, gr.Button | gr.Markdown | gr.HTML)


@dataclass(frozen=True)
class Box:
    """A text input of a page: ``name`` (its key in the inputs the ``read`` hook gets, and its elem id
    ``<prefix><name>``), its label, the pre-filled text and the lines shown; ``code``: monospace and
    taller. Boxes side by side never wrap a line (line n of one faces line n of the other)."""

    name: str
    label: str
    value: str = ""
    lines: int = 6
    code: bool = False

    def build(self, prefix: str = "", paired: bool = False):
        """Its Textbox; `paired`: beside another box, each at least PAIRED_PX wide (narrower, on a phone,
        they go one above the other: a long line stays readable)."""
        import gradio as gr

        return gr.Textbox(self.value, lines=self.lines, max_lines=CODE_LINES if self.code else TEXT_LINES,
                          label=self.label, elem_id=f"{prefix}{self.name}", min_width=PAIRED_PX if paired else 160,
                          elem_classes="mm-lines mm-code" if self.code else "mm-lines")  # fmt: skip


@dataclass
class Run:
    """One compute of a page, as the hooks see it: the option table, the preset, the inputs by name, the
    options chosen in the widgets (None: the preset's), the metric's arguments (`read`'s), the table's
    input columns and, once scored, the result."""

    table: object
    preset: str
    values: dict
    chosen: dict
    kwargs: dict = field(default_factory=dict)
    columns: dict = field(default_factory=dict)
    result: dict | None = None

    def resolved(self) -> dict:
        """The options the metric used: ``OPTIONS.resolve(preset, chosen)`` (every option, checked)."""
        return self.table.resolve(self.preset, {k: v for k, v in self.chosen.items() if v is not None})


class MetricPage:
    """The page of one metric (``library``: its module, with ``PRESETS`` and ``OPTIONS``), scored through
    ``evaluate.load(script)`` as the Space's users do. Hooks, each optional:

    * ``boxes``: the text inputs, side by side (a list of lists: one row each); ``inputs(prefix)``: other
      components ({name: component}, e.g. file uploads), built before the boxes; what they and the
      controls hold (not buttons, Markdown or HTML) is read by `compute` by name;
    * ``read(run) -> (kwargs, columns)``: the metric's arguments (``predictions``, ... and any option
      the page sets itself; ``n_resamples``/``confidence``/``seed`` override RESAMPLING) and the table's
      input columns, from ``run.values`` / ``run.chosen`` (default: every box as a list of lines);
    * ``offered(option) -> list | None``: the choices of an option that run on this machine (its widget
      comes first, offers "preset" and only those; a preset whose own value does not run here is refused
      by the metric, its message saying what to install); ``prefilled``/``notes``: {option: text}
      pre-filled in its box (an option the person chooses: ``widgets.person_chooses``) / added to its
      help; ``shown``: how many option widgets sit beside the preset (the rest: an accordion);
    * ``controls(prefix)``: components beside the options ({name: component});
    * ``outputs(prefix)``: components under Compute, filled by ``extras(run) -> tuple``; ``below(prefix)``:
      other components under them ({name: component}, e.g. a second form);
    * ``wire(page, parts, panel, prefix)``: other events (``parts``: every component by name);
    * ``errors(err, run) -> Exception``: the exception shown for a ValueError of the metric;
    * ``examples``: {preset: the boxes' texts}: a button loads the chosen preset's example.

    Choosing a preset puts every option widget back on that preset's value (``widgets.preset_updates``):
    a fresh page with preset P picked computes what ``<metric>.score(..., preset=P)`` computes, or is
    refused as it is. The inputs stay (an explicit button loads the preset's example).

    ``compute`` is the API endpoint (the inputs, the preset, the option widgets, the controls, in that
    order); ``build_ui`` lays the page out (the playground reuses it); ``blocks`` is the Space's page."""

    def __init__(self, library, script: Path, intro: str, *, boxes=(), inputs=None, read=None,
                 offered=None, prefilled=None, notes=None, shown: int = 4, options_first: bool = False,
                 controls=None, outputs=None, below=None, extras=None, wire=None, errors=None, examples=None,
                 table_label: str = "per example", score: str | None = None):  # fmt: skip
        self.library, self.script, self.intro = library, Path(script), intro
        self.table = library.OPTIONS
        self.rows = (
            [list(row) for row in boxes] if boxes and isinstance(boxes[0], list | tuple) else [list(boxes)]
        )
        self.hooks = dict(inputs=inputs, read=read, controls=controls, outputs=outputs, below=below,
                          extras=extras, wire=wire, errors=errors)  # fmt: skip
        options = [o for o in self.table if o.demo]  # the rows the demo shows, in table order
        self.offered = {o.name: offered(o) for o in options if offered and offered(o)}
        self.options = sorted(options, key=lambda o: o.name not in self.offered)  # filtered choices first
        self.prefilled, self.notes, self.shown = prefilled or {}, notes or {}, shown
        self.options_first, self.table_label, self.score = options_first, table_label, score
        self.presets, self.examples = list(library.PRESETS), examples
        self.names, self.components = [], []  # the compute's inputs by name, in API order (set by build_ui)

    # ---- scoring -----------------------------------------------------------------------------
    def prepare(self, *sent) -> Run:
        """The run of the values the page sent (in `compute`'s order), read but not scored."""
        values = dict(zip(self.names, sent, strict=True))
        preset = values.pop("preset")
        chosen = {o.name: option_value(o, values.pop(f"opt_{o.name}")) for o in self.options}
        run = Run(self.table, preset, values, chosen)
        if self.hooks["read"]:
            run.kwargs, run.columns = self.hooks["read"](run)
        else:
            from .parsing import parse_items

            run.kwargs = {
                box.name: parse_items(values[box.name], box.name) for row in self.rows for box in row
            }
            run.columns = dict(run.kwargs)
        return run

    def compute(self, *sent) -> Computed:
        """Score the inputs: a Computed (result, table columns, the extra outputs' values, resampling)."""
        run = self.prepare(*sent)
        resampling = {**RESAMPLING, **{k: run.kwargs.pop(k) for k in RESAMPLING if k in run.kwargs}}
        passed = {name: value for name, value in run.chosen.items() if value is not None}
        kwargs = {"return_per_example": True, **passed, **run.kwargs, **resampling}
        try:
            run.result = loading.load_metric(self.script, run.preset).compute(**kwargs)
        except ValueError as err:
            if not self.hooks["errors"]:
                raise
            raise self.hooks["errors"](err, run) from None
        extras = tuple(self.hooks["extras"](run)) if self.hooks["extras"] else ()
        return Computed(run.result, run.columns, extras, resampling, self.score)

    # ---- layout ------------------------------------------------------------------------------
    def _options(self, prefix: str, parts: dict) -> list:
        """The preset, the option widgets and the controls (into `parts`); the controls' input names."""
        import gradio as gr

        first, controls = self.table.default_preset, {}

        def widget(o):
            widget = option_widget(o, f"{prefix}opt_{o.name}", self.table, first, self.prefilled.get(o.name, ""),
                                   self.offered.get(o.name))  # fmt: skip
            if o.name in self.notes:
                widget.info = f"{widget.info} {self.notes[o.name]}".strip()
            if o.name in self.offered:  # wide enough for "preset: <value> (not installed)"
                widget.scale = 2
            parts[f"opt_{o.name}"] = widget

        with gr.Row():
            parts["preset"] = gr.Dropdown(
                self.presets, value=first, label="preset", elem_id=f"{prefix}preset"
            )
            for o in self.options[: self.shown]:
                widget(o)
            if self.hooks["controls"]:
                controls = self.hooks["controls"](prefix)
        if self.options[self.shown :]:
            with gr.Accordion(MORE_OPTIONS, open=False):
                for o in self.options[self.shown :]:
                    widget(o)
        parts.update(controls)
        return [name for name, c in controls.items() if not shows_only(c)]

    def build_ui(self, api_prefix: str = "") -> None:
        """The demo's components and events, inside the caller's gr.Blocks context."""
        import gradio as gr

        gr.Markdown(self.intro)
        parts, inputs, outputs = {}, {}, []
        with gr.Row():
            with gr.Column():
                if self.options_first:
                    controls = self._options(api_prefix, parts)
                if self.hooks["inputs"]:
                    inputs.update(self.hooks["inputs"](api_prefix))
                for row in self.rows:  # paired boxes: side by side, one above the other on a phone
                    with gr.Row(elem_classes="mm-pair" if len(row) > 1 else None):
                        inputs.update({box.name: box.build(api_prefix, len(row) > 1) for box in row})
                if not self.options_first:
                    controls = self._options(api_prefix, parts)
                parts.update(inputs)
                with gr.Row():
                    if self.examples:
                        parts["load_example"] = gr.Button(
                            "load the preset's example", elem_id=f"{api_prefix}load_example"
                        )
                    parts["go"] = gr.Button("Compute", variant="primary", elem_id=f"{api_prefix}go")
                if self.hooks["outputs"]:
                    outputs = self.hooks["outputs"](api_prefix)
                if self.hooks["below"]:
                    parts.update(self.hooks["below"](api_prefix))
            with gr.Column():
                panel = ResultPanel(api_prefix, table_label=self.table_label)
        widgets = [f"opt_{o.name}" for o in self.options]
        inputs = [name for name, c in inputs.items() if not shows_only(c)]
        self.names = [*inputs, "preset", *widgets, *controls]
        self.components = [parts[n] for n in self.names]  # the compute's inputs, as last built
        connect(
            parts["go"], self.compute, [parts[n] for n in self.names], panel, f"{api_prefix}compute", outputs
        )
        follow_preset(parts["preset"], [parts[n] for n in widgets], self.options, self.table, self.offered)
        parts["preset"].change(  # the result shown is marked outdated until the next one (PAGE_JS)
            None,
            parts["preset"],
            None,
            js=f"(p) => {{ window.mmDemo?.outdated('{panel.key}', p); }}",
            api_name=False,
        )
        if self.examples:  # an explicit action: choosing a preset leaves what was typed alone
            boxes = [parts[box.name] for row in self.rows for box in row]
            parts["load_example"].click(
                self.example_of, parts["preset"], boxes, api_name=f"{api_prefix}example"
            )
        if self.hooks["wire"]:
            self.hooks["wire"](self, {**parts, "outputs": outputs}, panel, api_prefix)

    def example_of(self, preset: str) -> tuple:
        """The texts of the boxes in the preset's example (``examples``: {preset: texts, in box order})."""
        if preset not in self.examples:
            raise ValueError(f"`preset` must be one of {', '.join(self.examples)}, got {preset!r}")
        return tuple(self.examples[preset])

    def blocks(self, title: str, heading: str, card: Path):
        """The Space's page: the heading, the demo and the metric card."""
        import gradio as gr

        with page_blocks(title) as page:
            gr.Markdown(heading)
            self.build_ui()
            with gr.Accordion("Metric card", open=False):
                gr.Markdown(card_body(card))
        return page
