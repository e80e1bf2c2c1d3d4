"""What a newcomer meets first: the install line of each card and of each script, the README's first
examples, and the errors of a first mistake (fast, in process; the same paths in fresh venvs are
tests/test_release_hub.py and tests/test_release_pypi.py).

* a card's "How to Use" opens with ``pip install "<install_spec>"`` (the metric's extras, the pinned
  release; ``scripts/publish.py stage`` points it at the Space's wheel before the release) and links the
  source repository (setup.cfg's ``url``); the script's ``# From:`` names the same;
* the README's first ``evaluate.load`` is one that works today (the checkout's folder), its Dask recipe
  says what to install, and its torch commands say what to do where the PyTorch index is not reachable;
* ``metric.add(references=...)`` (the batch name, as evaluate's own docstring of ``add`` writes it) is
  the library's TypeError naming the argument, for every metric;
* codebleu with neither the runtime of 2020 nor the ``[code]`` extra is one MissingExtra, with no
  warning before it; a missing extra names the web address the library was installed from, if any.
"""

import json
import re
import sys
import warnings

import pytest
from helpers import METRICS, ROOT, load_metric, metric_names

sys.path.insert(0, str(ROOT / "scripts"))
import publish  # noqa: E402

NAMES = metric_names()
README = (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", NAMES)
def test_how_to_use_opens_with_the_install_line_and_the_source(name):
    card = (METRICS / name / "README.md").read_text(encoding="utf-8")
    usage = card.split("## How to Use\n", 1)[1].lstrip("\n")
    first = usage.split("\n\n", 1)[0]
    assert first.startswith(f'Install: `pip install "{publish.install_spec(name)}"`'), first
    assert f"]({publish.source_url()})" in first
    script = (METRICS / name / f"{name}.py").read_text(encoding="utf-8")
    assert f'import multimodal_metrics  # From: "{publish.install_spec(name)}"' in script
    assert set(publish.space_extras(name)) >= {"hf"} and "demo" not in publish.space_extras(name)


def test_the_source_repository_is_declared_once_and_the_playground_links_it():
    assert publish.source_url().startswith("https://")
    assert f"Source = {publish.source_url()}" in (ROOT / "setup.cfg").read_text(encoding="utf-8")
    playground = (ROOT / "spaces" / "playground" / "README.md").read_text(encoding="utf-8")
    assert f"]({publish.source_url()})" in playground


def test_the_readme_first_loads_what_works_today():
    """The first example that calls evaluate.load loads the checkout's folder (the Spaces come later)."""
    code = "".join(re.findall(r"```python\n(.*?)```", README, re.S))
    loads = re.findall(r"""evaluate\.load\((["'])([^"']+)\1""", code)
    assert loads and loads[0][1].startswith("metrics/"), loads[:3]


def test_the_dask_recipe_says_what_to_install():
    scale_out = README.split("**Dask or any other engine", 1)[1].split("```python", 1)[0]
    assert 'pip install "dask[dataframe]"' in scale_out


def test_the_torch_commands_say_what_to_do_without_the_pytorch_index():
    from test_packaging import constraints

    install = README.split("## Install\n", 1)[1].split("\n## ", 1)[0]
    block = install.split("**torch**", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    assert f"pip install torch=={constraints()['torch']}" in block
    assert "not reachable" in block


@pytest.mark.parametrize("name", NAMES)
def test_add_with_a_batch_name_is_the_librarys_type_error(name):
    metric = load_metric(name)
    with pytest.raises(TypeError, match=r"^`references`: add\(\) takes one example, as `reference=`; pass a batch "
                       r"with add_batch\(references=\.\.\.\)$"):  # fmt: skip
        metric.add(prediction="a", references=["a"])
    with pytest.raises(TypeError, match=r"^`predictions`: add\(\) takes one example, as `prediction=`"):
        metric.add(predictions=["a"], reference="a")


def test_codebleu_without_the_2020_grammars_or_the_code_extra_is_one_error(monkeypatch):
    from multimodal_metrics import codebleu, extras
    from multimodal_metrics.codebleu import legacy_runtime

    monkeypatch.setattr(legacy_runtime, "find_grammars", lambda: None)
    absent = {"tree_sitter", "tree_sitter_python"}
    monkeypatch.setattr(extras, "missing", lambda modules: [m for m in modules if m in absent])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning before the error would fail here
        with pytest.raises(extras.MissingExtra) as caught:
            codebleu.score(["x = 1"], ["x = 1"], lang="python")
    assert str(caught.value) == (
        "codebleu without the 2020 grammars (not built here: `python -m multimodal_metrics.codebleu.build_runtime`) "
        "needs tree-sitter, tree-sitter-python (not installed): pip install 'multimodal-metrics[code]'"
    )


@pytest.mark.parametrize(
    "record, source",
    [
        ({"url": "https://hub.example/spaces/o/anls/resolve/main/m.whl", "archive_info": {}},
         "https://hub.example/spaces/o/anls/resolve/main/m.whl"),
        ({"url": "file:///tmp/m.whl", "archive_info": {}}, None),  # a local wheel: the plain extra
        ({"url": "file:///src/checkout", "dir_info": {"editable": True}}, None),
        (None, None),  # from an index: no direct_url.json
    ],
    ids=["web_wheel", "local_wheel", "editable", "index"],
)  # fmt: skip
def test_a_missing_extra_names_the_wheel_the_library_came_from(monkeypatch, record, source):
    import importlib.metadata

    from multimodal_metrics import extras

    class Distribution:
        def read_text(self, name):
            assert name == "direct_url.json"
            return None if record is None else json.dumps(record)

    monkeypatch.setattr(importlib.metadata, "distribution", lambda name: Distribution())
    extras.installed_from.cache_clear()
    try:
        message = str(extras.MissingExtra("text_qa", ["pymorphy3"]))
    finally:
        extras.installed_from.cache_clear()
    target = "multimodal-metrics[ru]" + (f" @ {source}" if source else "")
    assert message == f"text_qa needs pymorphy3 (not installed): pip install '{target}'"
