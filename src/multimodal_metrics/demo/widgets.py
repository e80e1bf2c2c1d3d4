"""Option widgets built from a metric's option table, and their values read back."""

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


def option_info(option, table=None, preset: str | None = None) -> str:
    """The help text under an option's widget, ending with the preset's value when a preset is given,
    or saying which presets use it when `preset` does not (its widget is then disabled)."""
    text = option.help or ""
    if table is not None and not takes_option(table, preset, option.name):
        users = ", ".join(p for p in table.presets if takes_option(table, p, option.name))
        return f"{text} [not used by preset {preset}: only by {users}]".strip()
    if table is not None and preset is not None and not option.required:
        text = f"{text} [preset {preset}: {preset_value(table, preset, option.name)}]".strip()
    return text


def option_widget(
    option, elem_id: str | None = None, table=None, preset: str | None = None, value: str = "", offered=None
):
    """The widget of a row of an option table: a dropdown ("preset" first) for choices and yes/no, a text
    box (empty = preset; `value`: its pre-filled text) for the rest; a required choice offers its choices
    alone (the first chosen). Its help ends with what "preset" stands for under `preset` (`preset_infos`
    updates it), or, disabled, with the presets that use it. `offered`: the choices this machine can run,
    the first one chosen (see `offered_choices`; None: every choice)."""
    import gradio as gr

    kwargs = dict(label=option.name, info=option_info(option, table, preset), elem_id=elem_id,
                  interactive=None if takes_option(table, preset, option.name) else False)  # fmt: skip
    if option.kind == "choice" and option.required:  # no preset value: a choice must be made (the first)
        return gr.Dropdown([str(c) for c in option.choices], value=str(option.choices[0]), **kwargs)
    if offered is not None:
        choices = offered_choices(option, table, preset, offered)
        return gr.Dropdown(choices, value=offered[0], **kwargs)
    if option.kind in ("choice", "bool"):
        choices = [str(c) for c in option.choices] if option.kind == "choice" else ["yes", "no"]
        return gr.Dropdown([PRESET, *choices], value=PRESET, **kwargs)
    return gr.Textbox(value, placeholder="empty = preset", max_lines=1, **kwargs)  # gr.Number would send 0


def offered_choices(option, table, preset: str, offered: list) -> list[str]:
    """The choices of `option` offered with `preset` when only some run on this machine (`offered`, the
    page's first choice first): "preset" first when the preset's own value is among them."""
    own = table.presets.get(preset, {}).get(option.name) if table is not None else None
    return ([PRESET] if own is None or str(own) in offered else []) + list(offered)


def follow_offered(preset, widget, option, table, offered: list) -> None:
    """When the preset changes, a widget of `offered_choices`: its choices and help for the new preset,
    its current choice kept where still offered (else the first offered)."""
    import gradio as gr

    def update(name, current):
        choices = offered_choices(option, table, name, offered)
        value = current if current in choices else offered[0]
        return gr.update(choices=choices, value=value, info=option_info(option, table, name))

    preset.change(update, [preset, widget], widget, api_name=False)


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
    from ..options import parse_text

    if option.kind == "choice":
        value = chosen(sent)
        return None if value is None else next((c for c in option.choices if str(c) == value), value)
    if option.kind == "bool":
        return chosen_bool(sent, option.name)
    if option.kind in ("number", "integer"):
        return chosen_number(sent, option.name, integer=option.kind == "integer")
    text = chosen((sent or "").strip() if isinstance(sent, str) else sent)
    return None if text is None else parse_text(option, text)
