"""Errors and warnings of a compute as the page shows them."""

import contextvars
import functools
import threading
import traceback
import warnings
from pathlib import Path

from .settings import INPUT_CHARS, QUIET_WARNINGS


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
            if not issubclass(category, QUIET_WARNINGS) and text not in self.messages:
                self.messages.append(text)
        return False
