"""The Spaces as users meet them: staged by scripts/publish.py, loaded as `<org>/<name>`, playground served.

The Spaces are staged as before the library is on PyPI: each carries the wheel built from this checkout
and installs it (scripts/publish.py's docstring). Loading a staged script here uses the library of the
test environment (the checkout's, installed editable), the same code as the shipped wheel.
"""

import re
import sys

import pytest
from helpers import ROOT, metric_names, serve_app

sys.path.insert(0, str(ROOT / "scripts"))
import publish  # noqa: E402

NAMES = metric_names()


ORG = "mm-test-org"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    return publish.build_wheel(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="module")
def staged(tmp_path_factory, wheel):
    out = tmp_path_factory.mktemp("spaces")
    folders = publish.stage(ORG, out, wheel=wheel)
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
        result = client.predict(
            "ac", "ab", "default", "", "preset", "preset", "preset", api_name="/anls_compute"
        )[0]
        assert result["anls"] == 0.5
    finally:
        demo.close()


# ------------------------------------------------------------------------------------------------
# Hub-ready: what the Hub reads from each staged Space
# ------------------------------------------------------------------------------------------------
# Keys of a Space's README front matter that the Hub reads (Spaces configuration reference), plus the
# ones evaluate's own metric cards carry (`description`, `datasets`).
HUB_KEYS = {
    "title", "emoji", "colorFrom", "colorTo", "sdk", "sdk_version", "python_version", "app_file", "app_port",
    "base_path", "fullWidth", "header", "short_description", "models", "datasets", "tags", "thumbnail", "pinned",
    "hf_oauth", "hf_oauth_scopes", "hf_oauth_expiration_minutes", "hf_oauth_authorized_org", "disable_embedding",
    "startup_duration_timeout", "custom_headers", "preload_from_hub", "license", "suggested_hardware",
    "suggested_storage", "description",
}  # fmt: skip
HUB_COLORS = {"red", "yellow", "green", "blue", "indigo", "purple", "pink", "gray"}
SPACE_PYTHON = "3.11"  # setup.cfg's python_requires; numpy 2.4 needs >= 3.11 (the Hub's default is older)


def spaces(staged):
    out, folders = staged
    return {folder.name: folder for folder in folders}


def front_matter(card_text: str) -> dict:
    import yaml

    assert card_text.startswith("---\n"), "the card must open with YAML front matter"
    return yaml.safe_load(card_text[4 : card_text.index("\n---", 4)])


def requirement_lines(folder) -> set[str]:
    lines = (folder / "requirements.txt").read_text(encoding="utf-8").splitlines()
    return {line.split("#")[0].strip() for line in lines if line.split("#")[0].strip()}


def library_requirement(lines: set[str]):
    """The one requirement of the library among ``lines`` (packaging's Requirement), and the other lines."""
    from packaging.requirements import InvalidRequirement, Requirement

    def parse(line):
        try:
            return Requirement(line)
        except InvalidRequirement:  # a pip option (--extra-index-url ...)
            return None

    library = [line for line in lines if (parse(line) and parse(line).name == publish.PIP_NAME)]
    assert len(library) == 1, f"one {publish.PIP_NAME} requirement, found {library}"
    return parse(library[0]), lines - set(library)


def repository_folder(space: str):
    return ROOT / "spaces" / "playground" if space == publish.PLAYGROUND else ROOT / "metrics" / space


def test_staged_spaces_ship_the_wheel_and_install_it(staged, wheel):
    """Until the release is on PyPI: the wheel in every Space, its requirements' library line a direct
    reference to the copy the Hub serves from that Space, with the extras of the repository's line."""
    for folder in spaces(staged).values():
        assert (folder / wheel.name).read_bytes() == wheel.read_bytes()
        source = repository_folder(folder.name)
        pinned, pins = library_requirement(requirement_lines(source))
        shipped, rest = library_requirement(requirement_lines(folder))
        assert str(pinned.specifier) == f"=={publish.library_version()}"
        assert shipped.extras == pinned.extras
        assert shipped.url == f"https://huggingface.co/spaces/{ORG}/{folder.name}/resolve/main/{wheel.name}"
        assert rest == pins  # the other pins as in the repository


def test_stage_pypi_keeps_the_pin(tmp_path):
    folders = publish.stage(ORG, tmp_path, "anls", pypi=True)
    for folder in folders:
        assert requirement_lines(folder) == requirement_lines(repository_folder(folder.name))
        assert not list(folder.glob("*.whl"))


def test_staged_playground_needs_no_copied_helpers(staged):
    """The playground's copy of a metric converted to the library holds its script, app and card only:
    the apps import multimodal_metrics.demo from the installed library."""
    playground = spaces(staged)[publish.PLAYGROUND]
    for name in NAMES:
        if not (ROOT / "src" / "multimodal_metrics" / name / "__init__.py").is_file():
            continue  # not converted on this branch yet: its copied helpers go along
        files = {p.name for p in (playground / "metrics" / name).iterdir()}
        assert files == {f"{name}.py", "app.py", "README.md"}, f"{name}: {sorted(files)}"


@pytest.mark.parametrize("name", NAMES + [publish.PLAYGROUND])
def test_staged_front_matter_is_what_the_hub_reads(staged, name):
    import gradio

    folder = spaces(staged)[name]
    meta = front_matter((folder / "README.md").read_text(encoding="utf-8"))
    assert set(meta) <= HUB_KEYS, f"keys the Hub does not read: {sorted(set(meta) - HUB_KEYS)}"
    assert meta["sdk"] == "gradio" and meta["sdk_version"] == gradio.__version__
    assert f"gradio=={gradio.__version__}" in requirement_lines(folder)
    assert str(meta["python_version"]) == SPACE_PYTHON  # a quoted string: YAML reads 3.10 as 3.1
    assert (folder / meta["app_file"]).is_file()
    assert meta["colorFrom"] in HUB_COLORS and meta["colorTo"] in HUB_COLORS
    assert isinstance(meta["title"], str) and 0 < len(meta["title"]) <= 30
    assert len(meta.get("short_description", "")) <= 60
    assert isinstance(meta["pinned"], bool) and isinstance(meta.get("tags", []), list)


@pytest.mark.parametrize("name", NAMES + [publish.PLAYGROUND])
def test_staged_card_links_and_commands_work_in_the_space(staged, name):
    import re

    folder = spaces(staged)[name]
    text = (folder / "README.md").read_text(encoding="utf-8")
    for target in re.findall(r"!?\[[^\]]*\]\(([^)\s]+)[^)]*\)", text):  # markdown links and images
        if re.match(r"[a-z]+:|#", target):
            continue
        assert (folder / target.split("#")[0]).exists(), f"link to {target}, which the Space lacks"
    for line in text.splitlines():
        loads = re.findall(r"""evaluate\.load\((["'][^"']+["'])\)""", line)
        assert len(loads) == len(set(loads)), f"the same evaluate.load twice: {line}"
        assert "metrics/" not in "".join(re.findall(r"""evaluate\.load\(([^)]*)\)""", line)), line
    for span in re.finditer(
        r"`([^`\n]*(?:\bscripts/|\bbenchmarks/|\btests/|\bexamples/|\.build/)[^`\n]*)`", text
    ):
        after = text[span.end() : span.end() + len(publish.REPO_NOTE)]
        assert after == publish.REPO_NOTE, f"`{span.group(1)}` names a file the Space lacks, unmarked"
    # the package's command line runs wherever the package is installed: no note after it
    assert "collection's repository" not in text
    for span in re.finditer(r"`(mm-score [^`\n]*)`", text):
        if not re.search(r"\bscripts/|\bbenchmarks/|\btests/|\bexamples/|\.build/", span.group(1)):
            assert not text[span.end() :].startswith(publish.REPO_NOTE), span.group(1)


@pytest.mark.parametrize("name", NAMES + [publish.PLAYGROUND])
def test_staged_space_lists_the_debian_packages_it_reads(staged, name):
    folder = spaces(staged)[name]
    packages = folder / "packages.txt"
    listed = packages.read_text(encoding="utf-8").split() if packages.exists() else []
    pinned = {line.split("==")[0].lower() for line in requirement_lines(folder)}
    # vqa_acc wups, ru_meteor nltk: Debian's WordNet files
    if list(folder.rglob("_mm_wordnet.py")) or "nltk" in pinned:
        assert "wordnet-base" in listed
    for package in listed:
        assert re.fullmatch(r"[a-z0-9][a-z0-9+.-]+", package), package


def test_metric_requirements_are_within_the_playground(staged):
    """Every metric Space's pins appear, identical, in the playground's: resolving the playground's
    set for the Space's Python then proves every metric Space resolvable (a subset of a solvable
    set of pins is solvable by the same versions)."""
    folders = spaces(staged)
    library, playground = library_requirement(requirement_lines(folders[publish.PLAYGROUND]))
    extras = set()
    for name in NAMES:
        needs, lines = library_requirement(requirement_lines(folders[name]))
        missing = lines - playground
        assert not missing, f"{name} pins what the playground lacks: {sorted(missing)}"
        assert needs.extras <= library.extras, (
            f"{name}: extras {needs.extras - library.extras} not in the playground"
        )
        extras |= needs.extras
    assert library.extras == extras, "the playground installs the extras of the metric Spaces, no other"


TORCH_CPU_INDEX = "--extra-index-url https://download.pytorch.org/whl/cpu"


def test_playground_requirements_resolve_for_the_space_python(staged, wheel, tmp_path):
    """`pip install --dry-run --python-version 3.11 --only-binary=:all:` on the playground's pins: the
    Hub installs them on Python 3.11. Needs the package index (reachable here and in CI); a network
    failure is retried, then reported as such.

    Two lines are resolved locally instead of where the Hub gets them: the library from the built
    wheel (the Hub downloads the Space's copy of it), and torch's CPU build from this machine's pip
    find-links (the Hub reads the CPU index of the `--extra-index-url` line, not reachable from here;
    tests/test_packaging.py checks that pip parses the line)."""
    import json
    import subprocess
    import sys

    folder = spaces(staged)[publish.PLAYGROUND]
    library, _ = library_requirement(requirement_lines(folder))
    lines = (folder / "requirements.txt").read_text(encoding="utf-8").splitlines()
    assert TORCH_CPU_INDEX in lines
    local = [line for line in lines if line != TORCH_CPU_INDEX]
    local = [line.replace(library.url, wheel.as_uri()) if library.url in line else line for line in local]
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("\n".join(local) + "\n", encoding="utf-8")
    report = tmp_path / "report.json"
    cmd = [
        sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
        "--python-version", SPACE_PYTHON, "--only-binary=:all:", "--retries", "3", "--timeout", "60",
        "--report", str(report), "-r", str(requirements),
    ]  # fmt: skip
    for _attempt in range(2):
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=480)
        if (
            out.returncode == 0
            or "ResolutionImpossible" in out.stderr
            or "No matching distribution" in out.stderr
        ):
            break
    assert out.returncode == 0, out.stderr[-3000:]

    def canonical(name):
        return re.sub(r"[-_.]+", "-", name).lower()

    resolved = {
        canonical(i["metadata"]["name"]): i["metadata"]["version"]
        for i in json.loads(report.read_text())["install"]
    }
    assert resolved[canonical(publish.PIP_NAME)] == publish.library_version()
    for line in requirement_lines(folder) - {TORCH_CPU_INDEX}:
        if "==" not in line:
            continue  # the library's line: checked above
        package, version = line.split("==")
        found = resolved.get(canonical(package), "")
        assert found == version or ("+" not in version and found.split("+")[0] == version), (line, found)
    # the CPU build: no CUDA build (and its nvidia-* and triton wheels) on a CPU Space
    assert resolved["torch"].endswith("+cpu"), resolved["torch"]
    assert not [name for name in resolved if name.startswith("nvidia-") or name == "triton"]
