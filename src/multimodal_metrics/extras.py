"""Optional dependencies: which extra of ``pip install multimodal-metrics[...]`` installs each, and the one
error a metric raises when some are missing.

The library imports its optional dependencies only where it needs them (``import multimodal_metrics`` stays
light). When one is missing, the metric raises ONE :class:`MissingExtra` (an ImportError) that lists every
missing package the call needs and the extras that install them all, e.g.::

    ru_meteor needs nltk, razdel (not installed): pip install 'multimodal-metrics[ru,text]'

(``multimodal-metrics[ru,text] @ <url>`` where pip installed the library from a web address: ``installed_from``.)
``EXTRAS`` mirrors setup.cfg's ``[options.extras_require]`` (tests/test_packaging.py holds them equal).
"""

import functools
import importlib
import importlib.util

PIP_NAME = "multimodal-metrics"
# the extra that installs each import name (the distribution name where it differs, for the message)
EXTRAS = {
    "scipy": ("scipy", "scipy"),
    "PIL": ("vision", "pillow"),
    "torch": ("vision", "torch"),
    "transformers": ("vision", "transformers"),
    "tokenizers": ("vision", "tokenizers"),
    "safetensors": ("vision", "safetensors"),
    "torchmetrics": ("vision", "torchmetrics"),
    "nltk": ("text", "nltk"),
    "pymorphy3": ("ru", "pymorphy3"),
    "pymorphy3_dicts_ru": ("ru", "pymorphy3-dicts-ru"),
    "snowballstemmer": ("ru", "snowballstemmer"),
    "razdel": ("ru", "razdel"),
    "wordtodigits": ("ru", "wordtodigits"),
    "tree_sitter": ("code", "tree-sitter"),
    "evaluate": ("hf", "evaluate"),
    "datasets": ("hf", "datasets"),
    "huggingface_hub": ("hf", "huggingface_hub"),
    "pandas": ("hf", "pandas"),
    "gradio": ("demo", "gradio"),
    "gradio_client": ("demo", "gradio_client"),
}


class MissingExtra(ImportError):
    """Optional dependencies of a metric are not installed; the message names them and the extras."""

    def __init__(self, what: str, modules, extras=None):
        modules = list(dict.fromkeys(modules))
        extras = sorted(set(extras or ()) | {EXTRAS[m][0] for m in modules if m in EXTRAS})
        names = ", ".join(EXTRAS.get(m, (None, m.replace("_", "-")))[1] for m in modules)
        source = installed_from()
        target = f"{PIP_NAME}[{','.join(extras)}]" + (f" @ {source}" if source else "")
        super().__init__(
            f"{what} needs {names} (not installed): pip install '{target}'",
            name=modules[0] if modules else None,
        )
        self.modules, self.extras = modules, extras


@functools.cache
def installed_from() -> str | None:
    """The web address pip installed the library from (its PEP 610 ``direct_url.json``), e.g. the wheel a
    Space ships before the package is on PyPI: the extras are then installed from the same wheel. None when
    it came from a package index, a local file or folder, or is not installed (a checkout on the path)."""
    import json
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        text = distribution(PIP_NAME).read_text("direct_url.json")
        record = json.loads(text) if text else {}
    except (PackageNotFoundError, ValueError, OSError):
        return None
    url = record.get("url", "") if isinstance(record, dict) else ""
    return url if url.startswith(("https://", "http://")) and "archive_info" in record else None


def extra_of(module: str) -> str | None:
    """The extra that installs the import name ``module`` (its top-level package), None if none does."""
    entry = EXTRAS.get(module.split(".")[0])
    return entry[0] if entry else None


def missing(modules) -> list[str]:
    """Those of the import names ``modules`` (top-level packages) that cannot be imported here."""
    out = []
    for module in modules:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            out.append(module)
    return out


def require(what: str, modules, extras=None) -> None:
    """Raise one :class:`MissingExtra` naming every one of ``modules`` that is missing (``what`` needs them)
    and the extras that install them (``extras``: the extras to name besides, e.g. all the metric's own)."""
    absent = missing(modules)
    if absent:
        raise MissingExtra(what, absent, extras)


def import_or_explain(module: str, what: str, extras=None):
    """``importlib.import_module(module)``, or one :class:`MissingExtra` when its package is missing."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        top = module.split(".")[0]
        if err.name is not None and err.name.split(".")[0] != top and err.name.split(".")[0] in EXTRAS:
            top = err.name.split(".")[0]  # a dependency of the package is the missing one
        raise MissingExtra(what, [top], extras) from err
