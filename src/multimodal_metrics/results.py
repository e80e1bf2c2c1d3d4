"""Results of the collection: the signature, the flat result dict and its ``Result`` form, the Trainer form.

A result is a flat dict of floats: the primary key first, then ``signature`` (string), and with
``return_per_example=True`` a ``per_example`` list. The library's ``score(...)`` functions return a
:class:`Result`: that dict (``r["anls"]``, ``dict(r)`` is exactly what ``compute`` returns) with the
signature, the per-example list, the Trainer form and, for ``compare``, the per-example sufficient
statistics as attributes.
"""

from collections.abc import Mapping, Sequence

from ._version import __version__ as COLLECTION_VERSION  # noqa: N812 (the version every signature records)


def _format_option(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        # exact (shortest round-trip) form: 0.5 and 0.5000001 must not share a signature
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    if isinstance(value, list | tuple):
        return ",".join(_format_option(v) for v in value)
    return str(value)


def build_signature(name: str, preset: str, fields: Mapping[str, object]) -> str:
    """sacrebleu-style signature: ``name|preset:P|key:value|...|v:VERSION``.

    ``fields`` maps a short key to every option value that changes the number, in a fixed order.
    Two runs with the same signature on the same data give the same number.
    """
    parts = [name, f"preset:{preset}"]
    parts += [f"{key}:{_format_option(value)}" for key, value in fields.items()]
    parts.append(f"v:{COLLECTION_VERSION}")
    return "|".join(parts)


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean as a Python float (0.0 for no values)."""
    return float(sum(values) / len(values)) if len(values) else 0.0


def make_result(scores: Mapping[str, float], signature: str, per_example=None, return_per_example=False) -> dict:
    """Flat result: the scores (primary key first) as floats, ``signature``, optional ``per_example``."""
    if not isinstance(return_per_example, bool):
        raise TypeError(f"`return_per_example` must be True or False, got {type(return_per_example).__name__}")
    result = {key: float(value) for key, value in scores.items()}
    result["signature"] = signature
    if return_per_example:
        result["per_example"] = list(per_example)
    return result


def trainer_scores(result: Mapping, prefix: str) -> dict:
    """The numbers of a result dict under metric-prefixed keys, for ``transformers.Trainer``.

    ``signature`` (a string) and ``per_example`` (a list) are left out: Trainer's ``log_metrics``
    formats every value as a number and ``hyperparameter_search``'s default objective sums them.
    A key equal to ``prefix`` or starting with ``prefix + "_"`` is kept; any other key becomes
    ``prefix_key`` (``{"f1": ...}`` of det_f1 -> ``{"det_f1_f1": ...}``), so the results of several
    metrics merge without collisions.
    """
    out = {}
    for key, value in result.items():
        if key in ("signature", "per_example"):
            continue
        name = key if key == prefix or key.startswith(prefix + "_") else f"{prefix}_{key}"
        out[name] = float(value)
    return out



class Result(dict):
    """A metric's result: the flat dict ``compute`` returns (``r["anls"]``, ``r["signature"]``, and with
    ``return_per_example=True`` ``r["per_example"]``), plus

    * ``signature``: the signature string; ``per_example``: the per-example scores (also when they
      were not asked for in the dict; ``None`` for a set-level score such as FID);
    * ``statistic``: the per-example sufficient statistics (``multimodal_metrics.stats.Statistic``),
      what ``compare`` pairs; ``None`` where there are none;
    * ``to_dict()``: the plain dict; ``for_trainer(prefix)``: the numbers under prefixed keys.
    """

    def __init__(self, values: Mapping, metric: str, per_example=None, statistic=None):
        super().__init__(values)
        self.metric = metric
        self.per_example = per_example
        self.statistic = statistic

    @property
    def signature(self) -> str:
        return self["signature"]

    def to_dict(self) -> dict:
        """Exactly the dict ``evaluate``'s ``compute`` returns."""
        return dict(self)

    def for_trainer(self, prefix: str | None = None) -> dict:
        """The numbers under metric-prefixed keys (``transformers.Trainer(compute_metrics=...)``)."""
        return trainer_scores(self, prefix or self.metric)

    def __repr__(self) -> str:
        return f"Result({dict.__repr__(self)})"
