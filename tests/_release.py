"""The shared set-up of the release rehearsals (tests/test_release_hub.py, tests/test_release_pypi.py; marker
``release``): a local package index, the release built and uploaded to it, the Hub stand-in serving the
staged Spaces, and fresh virtual environments.

Each piece is built once per test run (``once``) under one temporary folder, and both files share them;
the venvs are filled by two background threads (``prefetch``) as soon as the first release test runs, the
hub venv first (the first tests need it), while the tests that need none of them run:

* ``index()``: pypiserver on a free port of 127.0.0.1 (no authentication, no fallback to PyPI) serving an
  upload folder and ``.build/wheelhouse``, every distribution the venvs install (for CPython 3.11 and 3.13),
  downloaded by the set-up hook scripts/setup.d/test/wheelhouse.sh: nothing here needs the network;
* ``release()``: ``scripts/publish.py build`` (the sdist, then the wheel built from it, in a build
  environment that gets setuptools from the index), ``twine check`` and ``twine upload`` to the index;
* ``hub()``: scripts/hub_standin.py with the Spaces staged by ``publish.stage`` for that wheel, served as
  ``ORG/<name>`` (the wheel's URL in each Space names the stand-in);
* ``make_venv``: a venv of a given Python outside the checkout; ``user_env``: a user's shell for its
  commands (no PYTHONPATH or pip configuration of this machine: pip's index is the local one).
"""

import atexit
import functools
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from helpers import ROOT, free_port
from test_packaging import PLAIN

sys.path.insert(0, str(ROOT / "scripts"))
import hub_standin  # noqa: E402
import publish  # noqa: E402

WHEELHOUSE = ROOT / ".build" / "wheelhouse"
ORG = "mm-standin"  # the Spaces the stand-in serves as staged
PUSH_ORG = "mm-pushed"  # the Spaces publish.py pushes through HfApi
TOKEN, USER = "hf_rehearsal_token", "rehearsal"
SETUP_HINT = (
    "run `bash scripts/setup_env.sh` (its hook scripts/setup.d/test/wheelhouse.sh fills .build/wheelhouse)"
)


def once(function):
    """``functools.cache`` that is safe across threads: a second caller waits for the first one's result."""
    lock, results = threading.Lock(), {}

    @functools.wraps(function)
    def cached(*args):
        with lock:
            if args not in results:
                results[args] = function(*args)
            return results[args]

    return cached


# Background jobs (a venv filled step by step): registered by the test modules at import, started by
# ``prefetch`` for the jobs that selected tests need, in registration order, two at a time (2 cores).
_JOBS: dict[str, tuple] = {}  # key -> (function, predicate on a selected test's id)
_STARTED: dict[str, Future] = {}
_POOL: list = []
_POOL_LOCK = threading.Lock()


def register(key: str, function, needed) -> None:
    _JOBS.setdefault(key, (function, needed))


def _submit(key: str) -> Future:
    with _POOL_LOCK:
        if key not in _STARTED:
            if not _POOL:
                _POOL.append(ThreadPoolExecutor(max_workers=2, thread_name_prefix="release-venv"))
            _STARTED[key] = _POOL[0].submit(_JOBS[key][0])
        return _STARTED[key]


def job(key: str):
    """The result of the background job ``key`` (started now if it was not)."""
    return _submit(key).result()


def prefetch(session) -> None:
    """Start every registered job that a selected test needs (the first release test calls this)."""
    selected = [item.nodeid for item in session.items]
    for key, (_function, needed) in list(_JOBS.items()):
        if any(needed(nodeid) for nodeid in selected):
            _submit(key)


@once
def workdir() -> Path:
    """One temporary folder for the whole run, outside the checkout: removed at exit unless MM_RELEASE_KEEP is
    set (then its commands.log lists every command run with its seconds and exit status)."""
    path = Path(tempfile.mkdtemp(prefix="mm-release-"))
    if not os.environ.get("MM_RELEASE_KEEP"):
        atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def wheelhouse_ready() -> bool:
    return (WHEELHOUSE / "installed.stamp").is_file() and any(WHEELHOUSE.glob("numpy-*cp311*.whl"))


class Index:
    """A running pypiserver: ``simple`` is pip's index URL, ``upload`` twine's repository URL."""

    def __init__(self):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.simple, self.upload = f"{self.url}/simple/", f"{self.url}/"
        self.folder = workdir() / "index"
        self.folder.mkdir()
        log = open(workdir() / "pypiserver.log", "wb")  # noqa: SIM115 (open while the server runs)
        command = [sys.executable, "-m", "pypiserver", "run", "-i", "127.0.0.1", "-p", str(self.port),
                   "-a", ".", "-P", ".", "--disable-fallback", str(self.folder), str(WHEELHOUSE)]  # fmt: skip
        self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        atexit.register(self.process.terminate)
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(self.simple, timeout=5) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"pypiserver did not start: {(workdir() / 'pypiserver.log').read_text()[-2000:]}"
                )
            time.sleep(0.2)

    def files(self, project: str) -> list[str]:
        """The file names the index lists for ``project`` (its simple page)."""
        with urllib.request.urlopen(f"{self.simple}{project}/", timeout=30) as answer:
            page = answer.read().decode()
        return sorted(part.split(">", 1)[1].split("<", 1)[0] for part in page.split("<a ")[1:])


@once
def index() -> Index:
    if not wheelhouse_ready():
        raise RuntimeError(f"no wheelhouse for the local index: {SETUP_HINT}")
    return Index()


def user_env(**extra: str) -> dict:
    """The environment of a user's shell for a venv's commands: no PYTHONPATH, virtualenv, pip or Hub
    settings of the test run or this machine; pip reads the local index only (PIP_CONFIG_FILE=/dev/null)
    and compiles no bytecode (time); the Hub variables unset (online), its caches and the per-user cache
    (codebleu's runtime of 2020 would be found there) in the run's folder; NLTK_DATA kept (WordNet)."""
    drop = ("PIP_", "HF_", "PYTHON", "VIRTUAL_ENV", "TRANSFORMERS_", "CODEBLEU_", "XDG_CACHE_HOME")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env.update(
        PIP_CONFIG_FILE=os.devnull,
        PIP_INDEX_URL=index().simple,
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        PIP_NO_INPUT="1",
        PIP_NO_COMPILE="1",
        PIP_NO_CACHE_DIR="1",  # the index is local: no second copy of each wheel
        PIP_RETRIES="0",
        PIP_TIMEOUT="60",
        PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring",  # twine: no keyring lookup
        HF_HOME=str(workdir() / "hf_home"),
        HF_UPDATE_DOWNLOAD_COUNTS="False",  # evaluate would HEAD an S3 bucket, not the stand-in
        XDG_CACHE_HOME=str(workdir() / "xdg_cache"),
    )
    env.update(extra)
    return env


def run(
    command, *, env: dict, cwd=None, timeout: float = 300, shell: bool = False
) -> subprocess.CompletedProcess:
    start = time.monotonic()
    done = subprocess.run(
        command, env=env, cwd=cwd or workdir(), capture_output=True, text=True, timeout=timeout, shell=shell
    )
    line = " ".join(map(str, command)) if isinstance(command, list) else command
    with open(workdir() / "commands.log", "a", encoding="utf-8") as log:
        log.write(f"{time.monotonic() - start:7.1f}s exit {done.returncode}  {line[:300]}\n")
    return done


def ok(done: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert done.returncode == 0, f"{done.args}:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done


class Release:
    """The release as uploaded: the sdist, the wheel built from it, and twine's check of both."""

    def __init__(self):
        dist = workdir() / "dist"
        done = ok(run([sys.executable, str(ROOT / "scripts" / "publish.py"), "build", "--dist", str(dist)],
                      env=user_env(), timeout=600))  # fmt: skip
        self.build_output = done.stdout
        self.sdist = dist / f"multimodal_metrics-{publish.library_version()}.tar.gz"
        self.wheel = dist / publish.wheel_name()
        twine = [sys.executable, "-m", "twine"]
        self.check = run([*twine, "check", "--strict", str(self.sdist), str(self.wheel)], env=user_env())
        upload = [*twine, "upload", "--non-interactive", "--disable-progress-bar", "--repository-url",
                  index().upload, "-u", "rehearsal", "-p", "rehearsal", str(self.sdist), str(self.wheel)]  # fmt: skip
        self.upload = run(upload, env=user_env())


@once
def release() -> Release:
    return Release()


class Hub:
    """The Hub stand-in serving the Spaces staged for the release's wheel as ORG/<name>."""

    def __init__(self):
        self.standin = hub_standin.HubStandIn({TOKEN: (USER, [ORG, PUSH_ORG])}).start()
        atexit.register(self.standin.stop)
        self.staged = publish.stage(
            ORG, workdir() / "spaces", wheel=release().wheel, endpoint=self.standin.url
        )
        for folder in self.staged:
            self.standin.add_space(f"{ORG}/{folder.name}", folder)

    @property
    def url(self) -> str:
        return self.standin.url


@once
def hub() -> Hub:
    return Hub()


@once
def python(version: str) -> str | None:
    """An interpreter of Python ``version`` ("3.11": the one under the test environment; others from
    pyenv's versions or PATH), None when the machine has none."""
    if version == f"{sys.version_info[0]}.{sys.version_info[1]}":
        return getattr(sys, "_base_executable", sys.executable)
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    candidates = sorted(glob.glob(f"{root}/versions/{version}*/bin/python{version}"), reverse=True)
    candidates += [c for c in (shutil.which(f"python{version}"), f"/usr/bin/python{version}") if c]
    for candidate in candidates:
        check = f"import sys, ensurepip; assert sys.version_info[:2] == {tuple(map(int, version.split('.')))}"
        if os.path.exists(candidate) and run([candidate, "-c", check], env=user_env()).returncode == 0:
            return candidate
    return None


def make_venv(version: str, name: str) -> Path:
    """A fresh venv of Python ``version`` with pip, at workdir()/name (outside the checkout)."""
    home = workdir() / name
    ok(run([python(version), "-m", "venv", str(home)], env=user_env(), timeout=300))
    assert "include-system-site-packages = false" in (home / "pyvenv.cfg").read_text(encoding="utf-8")
    return home


def venv_python(home: Path) -> str:
    return str(home / "bin" / "python")


def venv_shell_env(home: Path, **extra: str) -> dict:
    """``user_env`` with the venv activated (its bin first on PATH), as after ``source bin/activate``."""
    env = user_env(**extra)
    env["PATH"] = f"{home / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(home)
    return env


def run_json(home: Path, script: str, *args: str, env: dict, timeout: float = 300):
    """``python -c script *args`` in the venv; the JSON of its last line of output."""
    done = ok(run([venv_python(home), "-c", script, *args], env=env, timeout=timeout))
    return json.loads(done.stdout.strip().splitlines()[-1])


# Scores every run of the example files of the metrics named in argv[1] (JSON list) with the installed
# library, as {name: [result or error per run]}; argv[2] (JSON): extra keyword arguments per metric.
SCORE_EXAMPLES = (
    r"""
import json, sys, warnings
import importlib
from multimodal_metrics import examples
"""
    + PLAIN
    + r"""
extra = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
out = {}
for name in json.loads(sys.argv[1]):
    library = importlib.import_module(f"multimodal_metrics.{name}")
    rows = []
    for run in examples.load(name)["runs"]:
        inputs = {k: v for k, v in run.items() if k not in ("config_name", "kwargs", "expected", "note")}
        kwargs = {**run.get("kwargs", {}), **extra.get(name, {})}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = library.score(**inputs, **kwargs, preset=run.get("config_name", "default"),
                                   return_per_example=True)
        rows.append(plain(dict(result)))
    out[name] = rows
print(json.dumps({"file": importlib.import_module("multimodal_metrics").__file__, "results": out}))
"""
)
