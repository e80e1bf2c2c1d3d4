"""The Spaces as users meet them: staged by scripts/publish.py, loaded as `<org>/<name>`, playground served."""

import sys

import pytest
from helpers import ROOT, metric_names, serve_app

sys.path.insert(0, str(ROOT / "scripts"))
import publish  # noqa: E402

NAMES = metric_names()


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    out = tmp_path_factory.mktemp("spaces")
    folders = publish.stage("mm-test-org", out)
    return out, folders


def test_stage_writes_every_space(staged):
    out, folders = staged
    assert [f.name for f in folders] == NAMES + [publish.PLAYGROUND]
    for name in NAMES:
        card = (out / "mm-test-org" / name / "README.md").read_text(encoding="utf-8")
        assert f'evaluate.load("metrics/{name}")' not in card
        assert not list((out / "mm-test-org" / name).rglob("__pycache__"))


@pytest.mark.parametrize("name", NAMES)
def test_staged_space_loads_as_org_slash_name(staged, name, monkeypatch):
    import evaluate

    out, _ = staged
    monkeypatch.chdir(out)  # evaluate.load("org/name") resolves ./org/name/name.py before the Hub
    metric = evaluate.load(f"mm-test-org/{name}")
    assert metric.name == name


def test_playground_serves_every_metric_tab(staged):
    out, _ = staged
    demo, client = serve_app(out / "mm-test-org" / publish.PLAYGROUND / "app.py")
    try:
        api = client.view_api(return_format="dict", print_info=False)
        endpoints = set(api["named_endpoints"])
        for name in NAMES:
            assert f"/{name}_compute" in endpoints, f"playground lacks the {name} tab"
        result = client.predict("ac", "ab", "default", None, "", "", "", api_name="/anls_compute")
        assert result["anls"] == 0.5
    finally:
        demo.close()
