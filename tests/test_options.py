"""The option table (multimodal_metrics.options): what every metric declares its options with.

Each metric uses the plain ``OptionTable``: required options, options that only some presets take, the
rules between options and the opening of resources are rows and hooks of the table, not subclasses.
"""

import importlib
import math

import pytest

from multimodal_metrics import METRICS
from multimodal_metrics.options import Option, OptionTable
from multimodal_metrics.stats import RESAMPLING, Resampling


@pytest.mark.parametrize("metric", METRICS)
def test_every_metric_uses_the_plain_table(metric):
    table = importlib.import_module(f"multimodal_metrics.{metric}").OPTIONS
    assert type(table) is OptionTable
    assert table.metric == metric
    for preset in table.presets:
        assert table.takes(preset) == [name for name in table.names if name in table.presets[preset]]


def _table(calls=None, **kwargs):
    calls = [] if calls is None else calls
    return OptionTable(
        "toy",
        [
            Option("lang", "a language.", choices=("py", "java"), sig="lang", required=True),
            Option("mode", "a mode.", choices=("a", "b"), sig="mode", per_preset=True),
            Option("size", "a size.", kind="integer", low=0, sig="n", sig_value=lambda n: n or "any"),
        ],
        {"default": {"lang": None, "mode": "a", "size": 0}, "fixed": {"size": 3, "lang": "py"}},
        **kwargs,
    )


def test_required_option():
    table = _table()
    with pytest.raises(
        ValueError, match=r"^`lang` is required: one of \['py', 'java'\] \(e.g. compute\(..., lang='py'\)\)$"
    ):
        table.resolve("default", {"mode": "zz"})  # before any other check
    assert table.resolve("default", {"lang": "java"}) == {"lang": "java", "mode": "a", "size": 0}
    assert table.resolve("fixed", {}) == {"size": 3, "lang": "py"}


def test_per_preset_option():
    table = _table()
    assert table.takes("default") == ["lang", "mode", "size"]
    assert table.takes("fixed") == ["lang", "size"]
    assert table.resolve("fixed", {"mode": None}) == {"size": 3, "lang": "py"}  # None: not passed
    with pytest.raises(
        ValueError, match=r"unknown option 'mode'.*preset 'fixed' does not take it; preset 'default' does"
    ):
        table.resolve("fixed", {"mode": "a"})
    with pytest.raises(ValueError, match="unknown option 'colour'"):
        table.resolve("fixed", {"colour": None})  # a name outside the table, even as None
    with pytest.raises(ValueError, match="must set every option"):
        OptionTable("toy", [Option("a", "a.", choices=(1,))], {"default": {}})
    with pytest.raises(ValueError, match="no preset takes"):
        OptionTable("toy", [Option("a", "a.", choices=(1,), per_preset=True)], {"default": {}})
    doc = table.describe()
    assert "mode (`str`, optional): a mode. One of 'a', 'b'. Presets: default 'a'." in doc
    assert "size (`int`, optional): a size. Presets: default 0, fixed 3." in doc


def test_checks_in_preset_key_order_then_hooks():
    calls = []

    def after(options, preset):
        calls.append(("after", dict(options), preset))
        return {**options, "size": options["size"] + 1}

    def open_resources(options, preset):
        calls.append(("open", dict(options), preset))

    table = _table(after_check=after, open_resources=open_resources)
    with pytest.raises(ValueError, match="`size`"):  # "fixed" sets size first
        table.resolve("fixed", {"lang": "cobol", "size": -1})
    assert not calls
    assert table.resolve("fixed", {}) == {"size": 4, "lang": "py"}
    assert calls == [
        ("after", {"size": 3, "lang": "py"}, "fixed"),
        ("open", {"size": 4, "lang": "py"}, "fixed"),
    ]


def test_signature_fields():
    table = _table(signature_order=("n", "lang", "mode"))
    assert table.signature_fields({"lang": "py", "size": 0}) == {"n": "any", "lang": "py"}
    assert table.signature_fields({"lang": "py", "mode": "b", "size": 5}) == {
        "n": 5,
        "lang": "py",
        "mode": "b",
    }
    assert _table().signature_fields({"lang": "py", "mode": "b", "size": 5}) == {
        "lang": "py",
        "mode": "b",
        "n": 5,
    }
    with pytest.raises(ValueError, match="signature_order"):
        _table(signature_order=("n", "lang"))


def test_the_resampling_table():
    """One declaration of confidence / n_resamples / seed: the checks, the signature and the docs read it."""
    assert RESAMPLING.names == ["confidence", "n_resamples", "seed"]
    assert RESAMPLING.resolve("default", {}) == {"confidence": None, "n_resamples": 1000, "seed": 12345}
    with pytest.raises(ValueError, match=r"`confidence` must be a number in \(0, 1\)"):
        Resampling(confidence=1.5)
    with pytest.raises(TypeError, match="`seed` must be a whole number"):
        Resampling(seed=1.0)
    assert Resampling(0.9, 10, 1).signature_fields() == {"ci": "bs-pct", "conf": 0.9, "bs": 10, "seed": 1}


def test_the_resampling_flags_come_from_the_table():
    import argparse

    from multimodal_metrics.stats import split_resampling

    parser = argparse.ArgumentParser()
    RESAMPLING.add_arguments(parser, help={"n_resamples": "resamples or trials"})
    args = parser.parse_args(["--confidence", "0.9", "--n-resamples", "20"])
    assert RESAMPLING.from_arguments(args) == {"confidence": 0.9, "n_resamples": 20}
    rest, resampling = split_resampling({**vars(args), "threshold": 0.5})
    assert rest == {"threshold": 0.5}
    assert (resampling.confidence, resampling.n_resamples, resampling.seed) == (0.9, 20, 12345)
    assert "resamples or trials" in parser.format_help()


def _open_ranges():
    """(metric, option) of every number option whose range is open on a side (``low`` or ``high`` None):
    infinity lies in such a range, so the refusal must say why it is refused."""
    tables = [importlib.import_module(f"multimodal_metrics.{m}").OPTIONS for m in METRICS]
    return [
        (t.metric, o)
        for t in tables
        for o in t
        if o.kind in ("number", "integer") and (o.low is None or o.high is None) and not o.allow_inf
    ]


def test_an_infinite_value_of_an_open_range_is_refused_as_not_finite():
    """`--weights inf,1,1,1` said "must be a number >= 0.0, got inf", which inf is: every option whose range
    is open on a side says "a finite number" (a closed range [low, high] excludes infinity by itself)."""
    from multimodal_metrics.codebleu.scoring import _check_weights
    from multimodal_metrics.options import check_number

    cases = _open_ranges()
    assert {(m, o.name) for m, o in cases} >= {("fid_clip", "clip_scale"), ("vqa_acc", "num_answers")}
    for _metric, option in cases:
        for value in (math.inf, -math.inf, *([10**400] if option.kind == "number" else [])):
            with pytest.raises(
                ValueError, match=rf"`{option.name}` must be a (finite number [<>]= |positive integer)"
            ):
                option.checked(value)
    with pytest.raises(ValueError, match=r"`weights\[0\]` must be a finite number >= 0.0, got inf"):
        _check_weights([math.inf, 1, 1, 1])
    with pytest.raises(ValueError, match=r"`x` must be a finite number, got -inf"):
        check_number(-math.inf, "x")
    with pytest.raises(ValueError, match=r"`x` must be a number that is not NaN, got nan"):
        check_number(math.nan, "x", allow_inf=True)
    assert check_number(math.inf, "x", 0.0, allow_inf=True) == math.inf
    with pytest.raises(ValueError, match=r"`x` must be a number in \[0.0, 1.0\], got inf"):
        check_number(math.inf, "x", 0.0, 1.0)
