"""The Hub, rehearsed: the metrics loaded as `evaluate.load("<org>/<name>")` over HTTP, and pushed by
`scripts/publish.py push`, against the Hub stand-in (scripts/hub_standin.py; marker ``release``; the shared
set-up in tests/_release.py).

The stand-in serves the Spaces staged for the release's wheel as ``mm-standin/<name>`` (``HF_ENDPOINT``
names it). In a fresh venv (Python 3.11) holding only ``evaluate``, from the local package index:

* ``evaluate.load("mm-standin/<name>")`` fails for every metric with evaluate's ImportError naming
  ``pip install "multimodal-metrics[<extras>] @ <the Space's wheel>"``, the card's install line and the
  script's ``# From:``; run as printed (bash, pip's index the local one), each command installs what the
  next load needs (fid_clip's names ``[vision]``, torch: it runs with ``[scipy]`` in its place); a missing
  extra then names the same wheel;
* every metric loads over HTTP (a HEAD of evaluate's tag, 404; a HEAD and a GET of main) and its default
  and one other preset equal the installed library's ``score()`` on the example; a second load with
  ``HF_EVALUATE_OFFLINE=1`` sends no request and gives the same numbers.

``publish.py push`` (HfApi; ``HF_HUB_DISABLE_XET=1``: the stand-in speaks LFS, not Xet) to ``mm-pushed``
leaves each Space holding exactly what ``stage`` writes (a stale file is deleted; the Hub's .gitattributes
stays), the venv loads and scores the pushed module, a second push of the unchanged tree makes no commit,
and a bad token or an organisation the token cannot write to ends the push with the Hub's message. The
stand-in answers 501 to any request it does not implement, and no test leaves one.
"""

import functools
import json
import re
import signal
import subprocess
import sys
import urllib.request

import pytest
from _release import (
    ORG,
    PUSH_ORG,
    ROOT,
    TOKEN,
    hub,
    hub_standin,
    make_venv,
    ok,
    once,
    prefetch,
    publish,
    register,
    release,
    run,
    run_json,
    user_env,
    venv_python,
    venv_shell_env,
    wheelhouse_ready,
    workdir,
)
from helpers import metric_names
from test_packaging import PLAIN

pytestmark = [
    pytest.mark.release,
    pytest.mark.skipif(not wheelhouse_ready(), reason="no .build/wheelhouse: run bash scripts/setup_env.sh"),
]

NAMES = metric_names()
PRINTED = re.compile(r"using '(pip install .*)' for instance'")


# ------------------------------------------------------------------------------------------------
# The stand-in answers as the Hub does
# ------------------------------------------------------------------------------------------------
def _ask(url: str, method: str = "HEAD"):
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(urllib.request.Request(url, method=method), timeout=30) as answer:
            return answer.status, answer.headers
    except urllib.error.HTTPError as err:
        return err.code, err.headers


def test_the_standin_answers_the_file_endpoints_as_the_hub(tmp_path):
    (tmp_path / "anls.py").write_text("print('hi')\n", encoding="utf-8")
    (tmp_path / "x.whl").write_bytes(b"PK\x03\x04\x00\x00 binary")
    standin = hub_standin.HubStandIn().start()
    try:
        standin.add_space("org/anls", tmp_path)
        base = f"{standin.url}/spaces/org/anls/resolve"
        status, headers = _ask(f"{base}/v0.4.6/anls.py")
        assert (status, headers["X-Error-Code"], headers["X-Error-Message"]) == (
            404,
            "RevisionNotFound",
            "Invalid rev id: v0.4.6",
        )
        status, headers = _ask(f"{base}/main/anls.py")
        assert status == 200 and headers["Content-Length"] == "12"
        assert headers["ETag"] == f'"{hub_standin.git_blob_sha1((tmp_path / "anls.py").read_bytes())}"'
        assert headers["X-Repo-Commit"] == standin.repos["org/anls"].head.oid
        assert (
            _ask(f"{standin.url}/spaces/org/nope/resolve/main/anls.py")[1]["X-Error-Code"] == "RepoNotFound"
        )
        assert _ask(f"{base}/main/nope.py")[1]["X-Error-Code"] == "EntryNotFound"
        status, headers = _ask(f"{base}/main/x.whl")  # binary: stored in LFS, served from the storage
        assert status == 302 and headers["X-Linked-Size"] == "13" and "/lfs-objects/" in headers["Location"]
        assert _ask(headers["Location"], "GET")[0] == 200
        assert standin.unexpected == []
        assert _ask(f"{standin.url}/api/models/org/anls", "GET")[0] == 501  # not implemented: loud
        assert len(standin.unexpected) == 1 and "GET /api/models/org/anls" in standin.unexpected[0]
    finally:
        standin.stop()


def test_the_standin_command_serves_staged_spaces_until_interrupted(tmp_path):
    """The README's rehearsal: ``hub_standin.py --serve OUT/ORG`` prints its address, serves the folders as
    ORG/<name>, and on Ctrl-C reports the requests (exit 1 if any was unexpected)."""
    (tmp_path / "org" / "anls").mkdir(parents=True)
    (tmp_path / "org" / "anls" / "anls.py").write_text("x = 1\n", encoding="utf-8")
    command = [
        sys.executable,
        str(ROOT / "scripts" / "hub_standin.py"),
        "--port",
        "0",
        "--serve",
        str(tmp_path / "org"),
    ]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = server.stdout.readline()
        url = re.match(
            r"Hub stand-in on (http://127\.0\.0\.1:\d+): 1 Spaces; token hf_rehearsal may push to ", first
        )
        assert url, first
        assert _ask(f"{url[1]}/spaces/org/anls/resolve/main/anls.py")[0] == 200
    finally:
        server.send_signal(signal.SIGINT)
        _out, err = server.communicate(timeout=60)
    assert server.returncode == 0 and "1 requests, 0 unexpected" in err, err


# ------------------------------------------------------------------------------------------------
# A fresh venv: evaluate only, then the command evaluate prints
# ------------------------------------------------------------------------------------------------
LOAD_EACH = r"""
import json, sys
import evaluate
out = {}
for name in json.loads(sys.argv[2]):
    try:
        evaluate.load(f"{sys.argv[1]}/{name}")
        out[name] = "loaded"
    except ImportError as err:
        out[name] = str(err)
print(json.dumps(out))
"""


class Venv:
    """The venv of these tests: ``evaluate`` from the local index, then the commands the tests run."""

    def __init__(self):
        assert release().upload.returncode == 0, release().upload.stderr
        self.home = make_venv("3.11", "hub")
        self.env = venv_shell_env(self.home, HF_ENDPOINT=hub().url)
        ok(
            run(
                [venv_python(self.home), "-m", "pip", "install", "--quiet", "evaluate"],
                env=self.env,
                timeout=600,
            )
        )
        self.messages = run_json(self.home, LOAD_EACH, ORG, json.dumps(NAMES), env=self.env)

    def paste(self, command: str) -> None:
        """Run ``command`` as pasted into the venv's shell."""
        ok(run(["bash", "-c", command], env=self.env, timeout=600))


@once
def venv() -> Venv:
    return Venv()


def printed_command(message: str) -> str:
    found = PRINTED.search(message)
    assert found, message
    return found.group(1)


def expected_command(name: str, org: str = ORG) -> str:
    url = publish.wheel_url(org, name, release().wheel.name, hub().url)
    return f'pip install "{publish.install_spec(name, url)}"'


# the venv and its installs, in the background from the first release test on (tests/_release.py)
register(
    "hub", lambda: installed(), lambda nodeid: "test_release_hub.py" in nodeid and "standin" not in nodeid
)


@pytest.fixture(scope="module", autouse=True)
def _prefetch(request):
    prefetch(request.session)


def test_without_the_library_evaluate_prints_the_install_command_of_the_spaces_wheel():
    messages = venv().messages
    for name in NAMES:
        command = printed_command(messages[name])
        assert command == expected_command(name), (name, command)
        staged = next(f for f in hub().staged if f.name == name)
        assert command in (staged / "README.md").read_text(encoding="utf-8")  # the card's install line
        assert f"# From: {command[len('pip install ') :]}" in (staged / f"{name}.py").read_text(
            encoding="utf-8"
        )
    assert "[hf,vision] @" in printed_command(messages["fid_clip"])


# anls loads (its command was run), and text_qa's scoring names the extra it lacks
MISSING_EXTRA = r"""
import json, sys
import evaluate
from multimodal_metrics import text_qa
assert evaluate.load(f"{sys.argv[1]}/anls").compute(predictions=["a"], references=["a"])["anls"] == 1.0
try:
    text_qa.score(["да"], [["да"]])
    print(json.dumps("no error"))
except ImportError as err:
    print(json.dumps(str(err)))
"""


@once
def installed() -> dict:
    """anls's printed command, then the missing extra's, then every other metric's command, each pasted
    into bash (fid_clip's with [scipy] for [vision]: torch is not in the local index)."""
    env = venv()
    env.paste(printed_command(env.messages["anls"]))
    missing = run_json(env.home, MISSING_EXTRA, ORG, env=env.env)
    env.paste(re.search(r"(pip install '.*')$", missing).group(1))
    for name in NAMES:
        command = printed_command(env.messages[name])
        if name != "anls":  # pasted first
            env.paste(command.replace("[hf,vision]", "[hf,scipy]") if name == "fid_clip" else command)
    return {"missing_extra": missing, "text_qa_after": run_json(env.home, MISSING_EXTRA, ORG, env=env.env)}


def test_the_printed_commands_work_as_pasted_and_a_missing_extra_names_the_same_wheel():
    got = installed()
    url = publish.wheel_url(ORG, "anls", release().wheel.name, hub().url)
    assert got["missing_extra"].endswith(f"(not installed): pip install 'multimodal-metrics[ru] @ {url}'"), (
        got
    )
    assert got["text_qa_after"] == "no error"


SCORE_OVER_HTTP = (
    r"""
import importlib, json, sys, warnings
import evaluate
from multimodal_metrics import examples
"""
    + PLAIN
    + r"""
out = []
for name, index in json.loads(sys.argv[2]):
    run = examples.load(name)["runs"][index]
    preset = run.get("config_name", "default")
    inputs = {k: v for k, v in run.items() if k not in ("config_name", "kwargs", "expected", "note")}
    library = importlib.import_module(f"multimodal_metrics.{name}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        metric = evaluate.load(f"{sys.argv[1]}/{name}", preset)
        got = metric.compute(**inputs, **run.get("kwargs", {}))
        want = library.score(**inputs, **run.get("kwargs", {}), preset=preset)
    out.append([name, preset, type(metric).__module__, plain(got), plain(dict(want))])
print(json.dumps(out))
"""
)


def cases() -> list:
    """Per metric: its example's first run (the default preset) and its first run of another preset."""
    from multimodal_metrics import examples

    out = []
    for name in NAMES:
        runs = examples.load(name)["runs"]
        other = next(i for i, r in enumerate(runs) if r.get("config_name", "default") != "default")
        out += [[name, 0], [name, other]]
    return out


@functools.cache
def scored(offline: bool) -> dict:
    installed()
    env = venv()
    extra = {"HF_EVALUATE_OFFLINE": "1"} if offline else {}
    before = len(hub().standin.log)
    rows = run_json(
        env.home, SCORE_OVER_HTTP, ORG, json.dumps(cases()), env={**env.env, **extra}, timeout=600
    )
    return {"rows": rows, "requests": hub().standin.log[before:]}


@pytest.mark.parametrize("offline", [False, True], ids=["over_http", "offline_from_the_cache"])
def test_every_metric_and_a_second_preset_load_from_the_hub_and_equal_score(offline):
    got = scored(offline)
    assert [row[0] for row in got["rows"]] == [name for name, _ in cases()]
    assert all(got["rows"][i][1] == "default" != got["rows"][i + 1][1] for i in range(0, len(cases()), 2))
    for name, preset, module, from_hub, from_library in got["rows"]:
        assert f"{ORG}--{name}" in module, module  # the Hub's copy, loaded by evaluate's Hub path
        assert from_hub == from_library, (name, preset)
    if offline:
        assert got["requests"] == [] and scored(False)["rows"] == got["rows"]
    else:
        for name in NAMES:  # evaluate's tag first (absent), then main (its ETag: the copy fetched once)
            script = f"/spaces/{ORG}/{name}/resolve"
            assert ("HEAD", f"{script}/v0.4.6/{name}.py", 404) in got["requests"]
            assert ("HEAD", f"{script}/main/{name}.py", 200) in got["requests"]
            assert ("GET", f"{script}/main/{name}.py", 200) in hub().standin.log
    assert hub().standin.unexpected == []


# ------------------------------------------------------------------------------------------------
# publish.py push, through HfApi, to the stand-in
# ------------------------------------------------------------------------------------------------
STALE = "multimodal_metrics-0.0.9-py3-none-any.whl"


def push(org: str, token: str = TOKEN, only: str | None = None) -> dict:
    standin = hub().standin
    before = len(standin.log)
    commits = {repo_id: len(repo.commits) for repo_id, repo in standin.repos.items()}
    stage = workdir() / f"push-{org}"
    command = [sys.executable, str(ROOT / "scripts" / "publish.py"), "push", "--org", org,
               "--wheel", str(release().wheel), "--out", str(stage)] + (["--only", only] if only else [])  # fmt: skip
    env = user_env(HF_ENDPOINT=hub().url, HF_TOKEN=token, HF_HUB_DISABLE_XET="1")
    done = run(command, env=env, timeout=600)
    return {"done": done, "requests": standin.log[before:], "commits_before": commits, "stage": stage / org}


@functools.cache
def first_push() -> dict:
    stale = workdir() / "stale-space"
    stale.mkdir(exist_ok=True)
    (stale / STALE).write_bytes(b"PK\x03\x04\x00 an older wheel")
    hub().standin.add_space(f"{PUSH_ORG}/anls", stale)  # the Space holds a file the stage lacks
    return push(PUSH_ORG)


@functools.cache
def second_push() -> dict:
    first_push()
    return push(PUSH_ORG)


def test_push_leaves_each_space_holding_exactly_what_stage_writes():
    pushed = first_push()
    done = ok(pushed["done"])
    folders = sorted(p for p in pushed["stage"].iterdir() if p.is_dir())
    assert [f.name for f in folders] == sorted(NAMES + [publish.PLAYGROUND])
    fresh = publish.stage(PUSH_ORG, workdir() / "fresh", wheel=release().wheel, endpoint=hub().url)
    for folder, again in zip(folders, sorted(fresh)):
        written = {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
        assert written == {
            p.relative_to(again).as_posix(): p.read_bytes() for p in again.rglob("*") if p.is_file()
        }
        space = hub().standin.files(f"{PUSH_ORG}/{folder.name}")
        assert space.pop(".gitattributes").startswith(b"*.7z filter=lfs")
        assert space == written, (folder.name, sorted(set(space) ^ set(written)))
        assert f"pushed {hub().url}/spaces/{PUSH_ORG}/{folder.name}" in done.stdout
    # the wheel went through LFS: uploaded to the storage for each Space that lacked it, then committed
    uploads = [r for r in pushed["requests"] if r[0] == "PUT" and r[1].startswith(f"/lfs-upload/{PUSH_ORG}/")]
    assert len(uploads) == len(folders) and all(status == 200 for _, _, status in uploads), uploads
    assert hub().standin.unexpected == []


def test_the_pushed_module_loads_from_the_hub_and_scores():
    ok(first_push()["done"])
    installed()
    code = (
        "import json, sys, evaluate\n"
        "m = evaluate.load(sys.argv[1] + '/anls', 'stvqa')\n"
        "print(json.dumps(m.compute(predictions=['ac', 'b'], references=[['ab'], ['b']])))"
    )
    got = run_json(venv().home, code, PUSH_ORG, env=venv().env)
    assert got["anls"] == 0.5 and got["signature"].startswith("anls|preset:stvqa|")
    assert ("GET", f"/spaces/{PUSH_ORG}/anls/resolve/main/anls.py", 200) in hub().standin.log


def test_a_second_push_of_the_unchanged_tree_changes_nothing():
    pushed = second_push()
    ok(pushed["done"])
    after = {repo_id: len(repo.commits) for repo_id, repo in hub().standin.repos.items()}
    assert after == pushed["commits_before"]
    assert not [r for r in pushed["requests"] if r[0] == "POST" and "/commit/" in r[1]]
    assert hub().standin.unexpected == []


@pytest.mark.parametrize(
    "org, token, message",
    [
        (PUSH_ORG, "hf_not_a_token", "Invalid credentials in Authorization header"),
        (
            "someone-else",
            TOKEN,
            'You don\'t have the rights to create a space under the namespace "someone-else"',
        ),
    ],
    ids=["bad_token", "org_without_rights"],
)
def test_a_refused_push_stops_with_the_hubs_message(org, token, message):
    pushed = push(org, token, only="ned")
    done = pushed["done"]
    assert done.returncode == 1, done.stdout + done.stderr
    assert message in done.stderr and f"refused {org}/ned" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert not [r for r in pushed["requests"] if r[0] == "POST" and "/commit/" in r[1]]
    assert "someone-else/ned" not in hub().standin.repos
    assert hub().standin.unexpected == []
