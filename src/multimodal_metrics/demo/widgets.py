"""Option widgets built from a metric's option table, and their values read back."""

import re

from .settings import PRESET


# "preset" is a visible choice, an empty text box means the preset's value
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


def set_by(table, preset: str, name: str):
    """The value `preset` sets for option `name` (None: the preset leaves it unset)."""
    return getattr(table, "presets", {}).get(preset, {}).get(name)


def person_chooses(option, table) -> bool:
    """Whether the value of `option` is the person's to give rather than the preset's: a required option
    (codebleu's ``lang``: the language of the code pasted) or one no preset sets (fid_clip's model paths).
    Its widget keeps what was chosen when the preset changes, unless the new preset sets it."""
    presets = getattr(table, "presets", {})
    return option.required or all(set_by(table, p, option.name) is None for p in presets)


def runs_here(option, table, preset: str, offered: list | None) -> bool:
    """Whether the value `preset` sets for `option` runs on this machine (`offered`: the choices that
    do; None: all)."""
    own = set_by(table, preset, option.name)
    return offered is None or own is None or str(own) in offered


def option_info(option, table=None, preset: str | None = None, offered: list | None = None) -> str:
    """The help text under an option's widget, ending with the preset's value when a preset is given
    (and, when that value does not run here, that a Compute on it is refused), or saying which presets
    use it when `preset` does not (its widget is then disabled)."""
    text = option.help or ""
    if table is not None and not takes_option(table, preset, option.name):
        users = ", ".join(p for p in table.presets if takes_option(table, p, option.name))
        return f"{text} [not used by preset {preset}: only by {users}]".strip()
    if table is not None and preset is not None and not option.required:
        missing = "" if runs_here(option, table, preset, offered) else ", not installed here: refused"
        text = f"{text} [preset {preset}: {preset_value(table, preset, option.name)}{missing}]".strip()
    return text


def preset_label(option, table, preset: str, offered: list | None = None) -> str:
    """The label of a dropdown's "preset" choice under `preset`: "preset: <its value>", and "(not
    installed here)" when that value is not among `offered` (the choices that run on this machine: a
    Compute on it is refused with the library's message saying what to install)."""
    if table is None or preset is None:
        return PRESET
    if not takes_option(table, preset, option.name):
        return f"{PRESET}: not used"
    missing = "" if runs_here(option, table, preset, offered) else " (not installed)"
    return f"{PRESET}: {preset_value(table, preset, option.name)}{missing}"


def dropdown_choices(option, table=None, preset: str | None = None, offered: list | None = None) -> list:
    """The (label, value) choices of an option's dropdown: "preset" first (labelled with what it stands
    for under `preset`), then the option's choices, or only those that run here (`offered`). The values
    never change with the preset (what the page checks a sent value against is the list it was built
    with); only the preset's label does."""
    if option.kind == "choice" and option.required:  # no preset value: a choice must be made
        return [(str(c), str(c)) for c in option.choices]
    values = offered if offered is not None else [str(c) for c in option.choices]
    values = values if option.kind == "choice" else ["yes", "no"]
    return [(preset_label(option, table, preset, offered), PRESET), *((v, v) for v in values)]


def text_placeholder(option, table=None, preset: str | None = None) -> str:
    """The grey text of an empty option box: what empty stands for under `preset`."""
    if table is None or preset is None:
        return "empty = preset"
    if not takes_option(table, preset, option.name):
        return "not used by this preset"
    return f"empty = preset: {preset_value(table, preset, option.name)}"


def option_widget(
    option, elem_id: str | None = None, table=None, preset: str | None = None, value: str = "", offered=None
):
    """The widget of a row of an option table: a dropdown ("preset" first, labelled with its value) for
    choices and yes/no, a text box (empty = preset, its placeholder says the value; `value`: its
    pre-filled text, for an option the person chooses) for the rest; a required choice offers its
    choices alone (the preset's, else the first chosen). Its help ends with what "preset" stands for
    under `preset` (`preset_updates` follows a new preset), or, disabled, with the presets that use it.
    `offered`: the choices this machine can run (None: every choice)."""
    import gradio as gr

    kwargs = dict(label=option.name, info=option_info(option, table, preset, offered), elem_id=elem_id,
                  interactive=None if takes_option(table, preset, option.name) else False)  # fmt: skip
    if option.kind in ("choice", "bool"):
        choices = dropdown_choices(option, table, preset, offered)
        first = str(set_by(table, preset, option.name) or option.choices[0]) if option.required else PRESET
        return gr.Dropdown(choices, value=first, **kwargs)
    return gr.Textbox(
        value, placeholder=text_placeholder(option, table, preset), max_lines=1, **kwargs
    )  # gr.Number would send 0


def preset_updates(options: list, table, preset: str, offered: dict | None = None):
    """Updates of the option widgets for a newly chosen preset (wire to `preset.change`): every widget
    shows the new preset's value (a dropdown back on "preset", its label saying the value and whether it
    runs here; a text box emptied, its placeholder saying the value), its help says so; an option the
    preset does not use is disabled. A value chosen under the previous preset (or by the page, for what is
    installed) never outlives the change. Only the options the person chooses (`person_chooses`) keep
    their value, unless the new preset sets it. One widget: its update alone (a list would be read as the
    widget's value)."""
    import gradio as gr

    updates = []
    for o in options:
        used, own = takes_option(table, preset, o.name), set_by(table, preset, o.name)
        runnable = (offered or {}).get(o.name)
        update = {"info": option_info(o, table, preset, runnable), "interactive": used}
        if o.kind in ("choice", "bool"):
            update["choices"] = dropdown_choices(o, table, preset, runnable)
        else:
            update["placeholder"] = text_placeholder(o, table, preset)
        if o.required and own is not None:
            update["value"] = str(own)
        elif not used or not person_chooses(o, table):
            update["value"] = PRESET if o.kind in ("choice", "bool") else ""
        updates.append(gr.update(**update))
    return updates[0] if len(updates) == 1 else updates


def follow_preset(preset, widgets: list, options: list, table, offered: dict | None = None) -> None:
    """When the preset changes, every option widget shows the new preset's value (`preset_updates`)."""
    if widgets:
        preset.change(
            lambda p: preset_updates(options, table, p, offered),
            inputs=preset,
            outputs=widgets,
            api_name=False,
        )


def option_value(option, sent):
    """What the widget of ``option`` (see :func:`option_widget`) sent, as the option's value (None =
    the preset's); the text of numbers and other values is read as the command line reads it."""
    from ..options import parse_text

    if option.kind == "choice":
        value = chosen(sent)
        return None if value is None else next((c for c in option.choices if str(c) == value), value)
    if option.kind == "bool":
        return chosen_bool(sent, option.name)
    if option.kind in ("number", "integer"):
        value = chosen_number(sent, option.name, integer=option.kind == "integer")
        try:  # the table's own check (its range), its message echoing the number as typed (-1, not -1.0)
            return value if value is None else option.checked(value)
        except ValueError as err:
            raise ValueError(re.sub(r", got [^,]*$", f", got {str(sent).strip()}", str(err))) from None
    text = chosen((sent or "").strip() if isinstance(sent, str) else sent)
    return None if text is None else parse_text(option, text)
