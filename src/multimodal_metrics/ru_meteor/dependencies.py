"""The third-party libraries ru_meteor's options use: which ones, their versions, one error when missing.

``libraries(opts)`` names the distributions a set of resolved options needs: ``nltk`` (its tokenizer,
the Porter and Snowball stemmers, WordNet), ``razdel`` (the captioning pipeline and the razdel
tokenizer), ``wordtodigits`` (``number_words="wordtodigits"``), ``pymorphy3`` and its Russian dictionary
(the VisualQA pipeline and the ``pymorphy3`` stemmer). ``require_libraries`` refuses a set of options
whose libraries are not all installed with one ImportError that names every missing one and the extras of
ru_meteor (``pip install 'multimodal-metrics[ru,text]'``), before anything is scored;
``library_versions`` gives the part of the signature that records them. ``import_library`` is the net
for a direct call of the pure functions: the module, or the same ImportError.
"""

EXTRAS = ("ru", "text")


def import_library(module: str):
    """``module`` imported, or one ImportError naming the extras of ru_meteor."""
    from ..extras import import_or_explain

    return import_or_explain(module, "ru_meteor", EXTRAS)


def libraries(opts: dict) -> list[str]:
    """The distributions these options use (nltk, razdel, wordtodigits, pymorphy3 and its dictionary)."""
    used = []
    if (
        opts["tokenizer"] == "nltk"
        or opts["stemmer"] in ("porter", "snowball_ru")
        or opts["synonyms"] == "wordnet"
    ):
        used.append("nltk")
    if opts["preprocess"] == "fb_captioning" or opts["tokenizer"] == "razdel":
        used.append("razdel")
    if opts["number_words"] == "wordtodigits":
        used.append("wordtodigits")
    if opts["preprocess"] == "fb_vqa" or opts["stemmer"] == "pymorphy3":
        used += ["pymorphy3", "pymorphy3-dicts-ru"]
    return used


def require_libraries(opts: dict) -> None:
    """One ImportError naming every library these options use that is missing and the extras of ru_meteor
    (``pip install 'multimodal-metrics[ru,text]'``), before anything is scored."""
    from ..extras import require

    require("ru_meteor", [name.replace("-", "_") for name in libraries(opts)], EXTRAS)


def library_versions(opts: dict) -> str:
    """``nltk-3.10.4+razdel-0.5.0+...``: the versions of the libraries these options use."""
    from importlib.metadata import PackageNotFoundError, version

    parts = []
    for name in libraries(opts):
        try:
            parts.append(f"{name}-{version(name)}")
        except PackageNotFoundError as err:
            from ..extras import MissingExtra

            raise MissingExtra("ru_meteor", [name.replace("-", "_")], EXTRAS) from err
    return "+".join(parts) or "none"
