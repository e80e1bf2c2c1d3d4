"""A stand-in for the Hugging Face Hub on the standard library: rehearse a release before pushing it.

    python scripts/hub_standin.py [--port 8999] [--token hf_rehearsal] [--user rehearsal] [--org mm-rehearsal]
                                  [--serve OUT/ORG]

It answers the requests that evaluate's loader, pip and huggingface_hub's ``HfApi`` (as
``scripts/publish.py push`` calls it) send for Spaces, as the Hub answers them, and nothing else: any other
request is answered 501, printed, and kept in ``HubStandIn.unexpected`` (the tests require it empty).

Files (evaluate.load("<org>/<name>"), pip installing a Space's wheel):
    HEAD/GET /spaces/<org>/<name>/resolve/<revision>/<path>
        200 with ETag (the git blob sha1), Content-Length and X-Repo-Commit; a file stored in LFS (the
        wheel) answers 302 to /lfs-objects/<sha256> with X-Linked-Etag and X-Linked-Size. 404 with the
        Hub's X-Error-Code RepoNotFound, RevisionNotFound ("Invalid rev id: v0.4.6": evaluate asks for
        its own version tag first, then main) or EntryNotFound. A private Space needs its owner's token.
Pushing (HfApi.create_repo, upload_folder with delete_patterns="*"), each with ``Authorization: Bearer``:
    GET  /api/agent-harnesses          huggingface_hub's registry of coding agents (for its user agent):
                                       answered empty
    POST /api/repos/create             {"name", "organization", "type": "space", "sdk", "visibility"}:
                                       a Space with an initial commit holding the Hub's .gitattributes;
                                       409 when it exists; 401 "Invalid credentials in Authorization
                                       header" for an unknown token; 403 "You don't have the rights to
                                       create a space under the namespace ..." outside the token's namespaces
    GET  /api/spaces/<repo>[/revision/<rev>]   the Space's info (id, sha, private, sdk, siblings)
    GET  /api/spaces/<repo>/tree/<rev>?recursive=True&expand=False   its files and folders
    POST /api/validate-yaml            {"content", "repoType"}: the card needs front matter with an sdk
    POST /api/spaces/<repo>/preupload/<rev>  {"files": [{"path", "sample", "size"}]}: "lfs" for binary
                                       samples, files over 10 MB and the .gitattributes patterns, else
                                       "regular"; the oid of the file already there (unchanged files are
                                       then skipped by huggingface_hub)
    POST /spaces/<repo>.git/info/lfs/objects/batch   the LFS batch API, "basic" transfer: a PUT to
                                       /lfs-upload/<repo>/<sha256> (the storage's URL: checked against the
                                       oid and size) and a verify POST; an object the Space holds is skipped
    POST /api/spaces/<repo>/commit/<rev>   the ndjson commit: header, file (base64), lfsFile,
                                       deletedFile, deletedFolder
The Hub uploads LFS files through Xet when hf_xet is installed; the stand-in speaks the LFS protocol only,
so push to it with ``HF_HUB_DISABLE_XET=1``.
"""

import argparse
import base64
import fnmatch
import hashlib
import json
import re
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

LFS_THRESHOLD = 10 * 1024 * 1024  # the Hub stores files above 10 MB in LFS
SDKS = ("gradio", "streamlit", "docker", "static")
# the .gitattributes of a new repository on the Hub (its LFS patterns)
GITATTRIBUTES = "".join(
    f"{pattern} filter=lfs diff=lfs merge=lfs -text\n"
    for pattern in (
        "*.7z", "*.arrow", "*.bin", "*.bz2", "*.ckpt", "*.ftz", "*.gz", "*.h5", "*.joblib", "*.lfs.*",
        "*.mlmodel", "*.model", "*.msgpack", "*.npy", "*.npz", "*.onnx", "*.ot", "*.parquet", "*.pb",
        "*.pickle", "*.pkl", "*.pt", "*.pth", "*.rar", "*.safetensors", "saved_model/**/*", "*.tar.*",
        "*.tar", "*.tflite", "*.tgz", "*.wasm", "*.xz", "*.zip", "*.zst", "*tfevents*",
    )
)  # fmt: skip


def git_blob_sha1(data: bytes) -> str:
    """The git object id of a blob: sha1 of ``b"blob <size>\\0" + data`` (the ETag of a regular file)."""
    return hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()


@dataclass
class Commit:
    oid: str
    summary: str
    files: dict  # path -> (bytes, stored in LFS)


@dataclass
class Repo:
    repo_id: str
    owner: str  # the user who created it (a private Space is readable with their token)
    sdk: str
    private: bool
    commits: list = field(default_factory=list)  # oldest first; "main" is the last
    lfs_oids: set = field(default_factory=set)  # the LFS objects uploaded to this repository

    @property
    def head(self) -> Commit:
        return self.commits[-1]

    def commit(self, revision: str) -> Commit | None:
        if revision == "main":
            return self.head
        return next((c for c in self.commits if c.oid == revision), None)

    def lfs_patterns(self, files: dict) -> list[str]:
        text = files.get(".gitattributes", (b"", False))[0].decode("utf-8", "replace")
        return [line.split()[0] for line in text.splitlines() if "filter=lfs" in line]


class HubError(Exception):
    """An answer of the Hub: status, message, and the X-Error-Code where the Hub sends one."""

    def __init__(self, status: int, message: str, code: str | None = None):
        super().__init__(message)
        self.status, self.message, self.code = status, message, code


class Unexpected(Exception):
    """A request the stand-in does not implement (the Hub's answer to it is unknown here)."""


class HubStandIn:
    """The Hub's state (Spaces, LFS objects, tokens) and an HTTP server over it on 127.0.0.1.

    ``tokens``: {token: (user name, [namespaces it may write to besides the user's own])}."""

    def __init__(self, tokens: dict | None = None, port: int = 0):
        self.tokens = {t: (user, {user, *orgs}) for t, (user, orgs) in (tokens or {}).items()}
        self.repos: dict[str, Repo] = {}
        self.lfs: dict[str, bytes] = {}
        self.log: list[tuple[str, str, int]] = []  # (method, path, status) of every request
        self.unexpected: list[str] = []
        self.lock = threading.RLock()
        self.server = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
        self.server.daemon_threads = True
        self.server.hub = self
        self.thread = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> "HubStandIn":
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # -- state ------------------------------------------------------------------------------------
    def create_space(self, repo_id: str, owner: str, sdk: str = "gradio", private: bool = False) -> Repo:
        with self.lock:
            repo = Repo(repo_id, owner, sdk, private)
            repo.commits.append(
                self._commit(repo, "initial commit", {".gitattributes": (GITATTRIBUTES.encode(), False)})
            )
            self.repos[repo_id] = repo
            return repo

    def add_space(self, repo_id: str, folder, owner: str = "standin") -> Repo:
        """A public Gradio Space holding the files of ``folder`` (a staged Space), in one commit."""
        repo = self.create_space(repo_id, owner)
        files = dict(repo.head.files)
        for path in sorted(Path(folder).rglob("*")):
            if path.is_file():
                data = path.read_bytes()
                relative = path.relative_to(folder).as_posix()
                lfs = self._is_lfs(repo, files, relative, data[:512], len(data))
                if lfs:
                    oid = hashlib.sha256(data).hexdigest()
                    self.lfs[oid] = data
                    repo.lfs_oids.add(oid)
                files[relative] = (data, lfs)
        with self.lock:
            repo.commits.append(self._commit(repo, f"Add {Path(folder).name}", files))
        return repo

    def files(self, repo_id: str, revision: str = "main") -> dict[str, bytes]:
        """The files of a Space at ``revision``: {path: content}."""
        commit = self.repos[repo_id].commit(revision)
        return {path: data for path, (data, _lfs) in commit.files.items()}

    def _commit(self, repo: Repo, summary: str, files: dict) -> Commit:
        parent = repo.commits[-1].oid if repo.commits else ""
        digest = hashlib.sha1(f"{parent}\n{summary}\n".encode())
        for path in sorted(files):
            digest.update(f"{path}\0{git_blob_sha1(files[path][0])}\n".encode())
        return Commit(digest.hexdigest(), summary, files)

    def _is_lfs(self, repo: Repo, files: dict, path: str, sample: bytes, size: int) -> bool:
        patterns = repo.lfs_patterns(files)
        matched = any(
            fnmatch.fnmatch(path, p) or fnmatch.fnmatch(path.rsplit("/", 1)[-1], p) for p in patterns
        )
        return matched or size > LFS_THRESHOLD or b"\x00" in sample

    def _user(self, headers, required: bool) -> tuple[str, set] | None:
        auth = headers.get("Authorization")
        if auth is None:
            if required:
                raise HubError(401, "You must be authenticated to access this resource")
            return None
        if not auth.startswith("Bearer "):
            raise Unexpected(f"an Authorization header that is not a Bearer token: {auth.split()[0]!r}")
        found = self.tokens.get(auth[len("Bearer ") :])
        if found is None:
            raise HubError(401, "Invalid credentials in Authorization header")
        return found

    def _repo(self, repo_id: str, headers, write: bool = False) -> Repo:
        user = self._user(headers, required=write)
        repo = self.repos.get(repo_id)
        if repo is None or (repo.private and (user is None or repo.owner != user[0])):
            raise HubError(404, "Repository not found", "RepoNotFound")
        if write and repo_id.split("/")[0] not in user[1]:
            raise HubError(403, f"You don't have the rights to write to spaces/{repo_id}")
        return repo

    def _revision(self, repo: Repo, revision: str) -> Commit:
        commit = repo.commit(unquote(revision))
        if commit is None:
            raise HubError(404, f"Invalid rev id: {unquote(revision)}", "RevisionNotFound")
        return commit


def _checked_keys(payload, allowed: set, required: set, what: str) -> dict:
    if not isinstance(payload, dict):
        raise Unexpected(f"{what}: a JSON object was expected, got {type(payload).__name__}")
    if set(payload) - allowed or required - set(payload):
        raise Unexpected(
            f"{what}: keys {sorted(payload)} (known: {sorted(allowed)}, required: {sorted(required)})"
        )
    return payload


REPO = r"(?P<repo>[\w.-]+/[\w.-]+)"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "hub-standin"

    # every route: (method, regex of the path) -> handler name
    ROUTES = [
        ("HEAD", rf"/spaces/{REPO}/resolve/(?P<rev>[^/]+)/(?P<path>.+)", "resolve"),
        ("GET", rf"/spaces/{REPO}/resolve/(?P<rev>[^/]+)/(?P<path>.+)", "resolve"),
        ("HEAD", r"/lfs-objects/(?P<oid>[0-9a-f]{64})", "lfs_object"),
        ("GET", r"/lfs-objects/(?P<oid>[0-9a-f]{64})", "lfs_object"),
        ("PUT", rf"/lfs-upload/{REPO}/(?P<oid>[0-9a-f]{{64}})", "lfs_put"),
        ("GET", r"/api/agent-harnesses", "agent_harnesses"),
        ("POST", r"/api/repos/create", "create"),
        ("GET", rf"/api/spaces/{REPO}(?:/revision/(?P<rev>[^/]+))?", "info"),
        ("GET", rf"/api/spaces/{REPO}/tree/(?P<rev>[^/]+)", "tree"),
        ("POST", r"/api/validate-yaml", "validate_yaml"),
        ("POST", rf"/api/spaces/{REPO}/preupload/(?P<rev>[^/]+)", "preupload"),
        ("POST", rf"/spaces/{REPO}\.git/info/lfs/objects/batch", "lfs_batch"),
        ("POST", rf"/spaces/{REPO}\.git/info/lfs/objects/verify", "lfs_verify"),
        ("POST", rf"/api/spaces/{REPO}/commit/(?P<rev>[^/]+)", "commit"),
    ]

    def log_message(self, format, *args):  # quiet: the requests are kept in hub.log
        pass

    @property
    def hub(self) -> HubStandIn:
        return self.server.hub

    def _dispatch(self):
        url = urlsplit(self.path)
        self.query = parse_qs(url.query)
        self.status = 0
        try:
            for method, pattern, name in self.ROUTES:
                match = re.fullmatch(pattern, url.path)
                if method == self.command and match:
                    if self.headers.get("Range"):
                        raise Unexpected("a Range request (no client of a Space asks for one)")
                    with self.hub.lock:
                        getattr(self, name)(**match.groupdict())
                    break
            else:
                raise Unexpected(f"no such endpoint: {self.command} {url.path}")
        except HubError as err:
            self._json(
                err.status, {"error": err.message}, {"X-Error-Message": err.message, "X-Error-Code": err.code}
            )
        except Unexpected as err:
            message = f"hub stand-in: unexpected request {self.command} {self.path}: {err}"
            self.hub.unexpected.append(message)
            print(message, file=sys.stderr, flush=True)
            self._json(501, {"error": message}, {"X-Error-Message": message})

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = _dispatch

    # -- plumbing ---------------------------------------------------------------------------------
    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline().strip():  # trailers
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _json_body(self, what: str, content_type: str = "application/json"):
        if not self.headers.get("Content-Type", "").startswith(content_type):
            raise Unexpected(f"{what}: Content-Type {self.headers.get('Content-Type')!r}, not {content_type}")
        try:
            return json.loads(self._body())
        except ValueError as err:
            raise Unexpected(f"{what}: the body is not JSON ({err})") from None

    def _send(self, status: int, body: bytes, headers: dict) -> None:
        self.status = status
        self.hub.log.append((self.command, urlsplit(self.path).path, status))  # before the client has it
        self.send_response(status)
        for key, value in headers.items():
            if value is not None:
                self.send_header(key, value)
        self.send_header("X-Request-Id", f"standin-{len(self.hub.log)}")
        if "Content-Length" not in headers:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, payload, headers: dict | None = None) -> None:
        body = json.dumps(payload).encode()
        self._send(status, body, {"Content-Type": "application/json; charset=utf-8", **(headers or {})})

    def _base(self) -> str:
        return f"http://{self.headers.get('Host', '127.0.0.1')}"

    # -- files --------------------------------------------------------------------------------------
    def resolve(self, repo, rev, path):
        space = self.hub._repo(repo, self.headers)
        commit = self.hub._revision(space, rev)
        entry = commit.files.get(unquote(path))
        if entry is None:
            raise HubError(404, "Entry not found", "EntryNotFound")
        data, lfs = entry
        common = {"X-Repo-Commit": commit.oid, "ETag": f'"{git_blob_sha1(data)}"'}
        if lfs:
            oid = hashlib.sha256(data).hexdigest()
            linked = {"X-Linked-Etag": f'"{oid}"', "X-Linked-Size": str(len(data))}
            self._send(302, b"", {**common, **linked, "Location": f"{self._base()}/lfs-objects/{oid}"})
            return
        self._send(
            200,
            data,
            {**common, "Content-Type": "text/plain; charset=utf-8", "Content-Length": str(len(data))},
        )

    def lfs_object(self, oid):
        data = self.hub.lfs.get(oid)
        if data is None:
            raise HubError(404, "Entry not found", "EntryNotFound")
        headers = {
            "ETag": f'"{oid}"',
            "Content-Type": "application/octet-stream",
            "Content-Length": str(len(data)),
        }
        self._send(200, data, headers)

    # -- pushing ----------------------------------------------------------------------------------
    def create(self):
        user, namespaces = self.hub._user(self.headers, required=True)
        payload = _checked_keys(
            self._json_body("create"),
            {"name", "organization", "type", "sdk", "visibility"},
            {"name", "type"},
            "create",
        )
        if payload["type"] != "space":
            raise Unexpected(f"create: type {payload['type']!r}; the stand-in holds Spaces only")
        if payload.get("sdk") not in SDKS:
            raise HubError(400, f"Invalid sdk: {payload.get('sdk')!r}")
        if payload.get("visibility", "public") not in ("public", "private"):
            raise Unexpected(f"create: visibility {payload['visibility']!r}")
        namespace = payload.get("organization") or user
        repo_id = f"{namespace}/{payload['name']}"
        if namespace not in namespaces:
            raise HubError(
                403, f'You don\'t have the rights to create a space under the namespace "{namespace}"'
            )
        if repo_id in self.hub.repos:  # the Hub names the Space (create_repo(exist_ok=True) reads "url")
            message = "You already created this space repo"
            url = f"{self._base()}/spaces/{repo_id}"
            self._json(409, {"error": message, "url": url}, {"X-Error-Message": message})
            return
        private = payload.get("visibility") == "private"
        self.hub.create_space(repo_id, user, payload["sdk"], private)
        self._json(200, {"url": f"{self._base()}/spaces/{repo_id}", "name": repo_id, "id": repo_id})

    def agent_harnesses(self):
        if self.query:
            raise Unexpected(f"agent-harnesses: query {sorted(self.query)}")
        self._json(200, {"standardEnvVars": [], "harnesses": {}})  # the registry, empty: no agent detected

    def info(self, repo, rev=None):
        if set(self.query) - {"expand", "blobs"}:
            raise Unexpected(f"info: query {sorted(self.query)}")
        space = self.hub._repo(repo, self.headers)
        commit = self.hub._revision(space, rev or "main")
        siblings = [{"rfilename": path} for path in sorted(commit.files)]
        payload = {"id": repo, "author": repo.split("/")[0], "sha": commit.oid, "private": space.private}
        self._json(200, {**payload, "sdk": space.sdk, "siblings": siblings, "tags": []})

    def tree(self, repo, rev):
        if (
            set(self.query) - {"recursive", "expand"}
            or self.query.get("recursive", [""])[0].lower() != "true"
        ):
            raise Unexpected(f"tree: query {self.query} (publish.py lists the whole tree, recursively)")
        space = self.hub._repo(repo, self.headers)
        commit = self.hub._revision(space, rev)
        folders = {str(p) for path in commit.files for p in Path(path).parents if str(p) != "."}
        listing = [{"type": "directory", "oid": "0" * 40, "path": folder} for folder in sorted(folders)]
        for path, (data, lfs) in sorted(commit.files.items()):
            entry = {"type": "file", "oid": git_blob_sha1(data), "size": len(data), "path": path}
            if lfs:
                entry["lfs"] = {
                    "oid": hashlib.sha256(data).hexdigest(),
                    "size": len(data),
                    "pointerSize": 134,
                }
            listing.append(entry)
        self._json(200, listing)

    def validate_yaml(self):
        self.hub._user(self.headers, required=False)
        payload = _checked_keys(
            self._json_body("validate-yaml"),
            {"content", "repoType"},
            {"content", "repoType"},
            "validate-yaml",
        )
        if payload["repoType"] != "space":
            raise Unexpected(f"validate-yaml: repoType {payload['repoType']!r}")
        content = payload["content"]
        errors = []
        if not content.startswith("---\n") or "\n---" not in content[3:]:
            errors.append({"message": "a Space's README.md needs YAML front matter between --- lines"})
        elif not re.search(r"^sdk:\s*\S", content[4 : content.index("\n---", 3)], re.M):
            errors.append({"message": '"sdk" is required in the front matter of a Space'})
        self._json(400 if errors else 200, {"errors": errors, "warnings": []})

    def preupload(self, repo, rev):
        if self.query:
            raise Unexpected(f"preupload: query {sorted(self.query)} (create_pr is not used)")
        space = self.hub._repo(repo, self.headers, write=True)
        commit = self.hub._revision(space, rev)
        payload = _checked_keys(self._json_body("preupload"), {"files", "gitIgnore"}, {"files"}, "preupload")
        answer = []
        for item in payload["files"]:
            item = _checked_keys(
                item, {"path", "sample", "size"}, {"path", "sample", "size"}, "preupload file"
            )
            sample = base64.b64decode(item["sample"])
            lfs = self.hub._is_lfs(space, commit.files, item["path"], sample, item["size"])
            there = commit.files.get(item["path"])
            oid = None
            if there is not None:  # the oid huggingface_hub compares: sha256 for LFS, the git sha1 otherwise
                oid = hashlib.sha256(there[0]).hexdigest() if lfs else git_blob_sha1(there[0])
            answer.append(
                {
                    "path": item["path"],
                    "uploadMode": "lfs" if lfs else "regular",
                    "shouldIgnore": False,
                    "oid": oid,
                }
            )
        self._json(200, {"files": answer, "commitOid": commit.oid})

    def lfs_batch(self, repo):
        if self.headers.get("Accept") != "application/vnd.git-lfs+json":
            raise Unexpected(f"LFS batch: Accept {self.headers.get('Accept')!r}")
        space = self.hub._repo(repo, self.headers, write=True)
        payload = _checked_keys(
            self._json_body("LFS batch", "application/vnd.git-lfs+json"),
            {"operation", "transfers", "objects", "hash_algo", "ref"},
            {"operation", "objects"},
            "LFS batch",
        )
        if payload["operation"] != "upload" or "basic" not in payload.get("transfers", ["basic"]):
            raise Unexpected(
                f"LFS batch: operation {payload['operation']!r}, transfers {payload.get('transfers')}"
            )
        if payload.get("hash_algo", "sha256") != "sha256":
            raise Unexpected(f"LFS batch: hash_algo {payload['hash_algo']!r}")
        objects = []
        for item in payload["objects"]:
            oid, size = item["oid"], item["size"]
            entry = {"oid": oid, "size": size, "authenticated": True}
            if oid not in space.lfs_oids:  # else: already stored, nothing to upload
                verify = f"{self._base()}/spaces/{repo}.git/info/lfs/objects/verify"
                entry["actions"] = {
                    "upload": {"href": f"{self._base()}/lfs-upload/{repo}/{oid}?size={size}", "header": {}},
                    "verify": {"href": verify, "header": {}},
                }
            objects.append(entry)
        self._send(
            200,
            json.dumps({"transfer": "basic", "objects": objects}).encode(),
            {"Content-Type": "application/vnd.git-lfs+json"},
        )

    def lfs_put(self, repo, oid):  # the storage's presigned URL: no token
        data = self._body()
        size = self.query.get("size", [None])[0]
        if repo not in self.hub.repos:
            raise HubError(404, "Repository not found", "RepoNotFound")
        if hashlib.sha256(data).hexdigest() != oid or (size is not None and int(size) != len(data)):
            raise HubError(400, "the uploaded object does not match its oid and size")
        self.hub.lfs[oid] = data
        self.hub.repos[repo].lfs_oids.add(oid)
        self._send(200, b"", {})

    def lfs_verify(self, repo):
        space = self.hub._repo(repo, self.headers, write=True)
        payload = _checked_keys(self._json_body("LFS verify"), {"oid", "size"}, {"oid", "size"}, "LFS verify")
        data = self.hub.lfs.get(payload["oid"])
        if payload["oid"] not in space.lfs_oids or len(data) != payload["size"]:
            raise HubError(404, f"LFS object {payload['oid']} was not uploaded")
        self._json(200, {"success": True})

    def commit(self, repo, rev):
        if self.query:
            raise Unexpected(f"commit: query {sorted(self.query)} (no pull request, no hot reload)")
        space = self.hub._repo(repo, self.headers, write=True)
        parent = self.hub._revision(space, rev)
        if unquote(rev) != "main":
            raise Unexpected(f"commit to {unquote(rev)!r}: publish.py commits to main")
        if self.headers.get("Content-Type") != "application/x-ndjson":
            raise Unexpected(f"commit: Content-Type {self.headers.get('Content-Type')!r}")
        lines = [json.loads(line) for line in self._body().splitlines() if line.strip()]
        if not lines or lines[0].get("key") != "header":
            raise Unexpected("commit: the first ndjson line must be the header")
        header = _checked_keys(
            lines[0]["value"], {"summary", "description", "parentCommit"}, {"summary"}, "commit header"
        )
        if header.get("parentCommit") not in (None, parent.oid):
            raise HubError(412, "A commit has happened since. Please refresh and try again.")
        files = dict(parent.files)
        for line in lines[1:]:
            key, value = line.get("key"), line.get("value", {})
            if key == "file":
                _checked_keys(
                    value, {"content", "path", "encoding"}, {"content", "path", "encoding"}, "commit file"
                )
                if value["encoding"] != "base64":
                    raise Unexpected(f"commit file: encoding {value['encoding']!r}")
                files[value["path"]] = (base64.b64decode(value["content"]), False)
            elif key == "lfsFile":
                _checked_keys(
                    value, {"path", "algo", "oid", "size"}, {"path", "algo", "oid"}, "commit lfsFile"
                )
                if value["oid"] not in space.lfs_oids:
                    raise HubError(
                        400, f"Your push was rejected: the LFS object {value['oid']} was not uploaded"
                    )
                files[value["path"]] = (self.hub.lfs[value["oid"]], True)
            elif key == "deletedFile":
                if files.pop(value["path"], None) is None:
                    raise HubError(404, "A file with this name doesn't exist", "EntryNotFound")
            elif key == "deletedFolder":
                prefix = value["path"].rstrip("/") + "/"
                for path in [p for p in files if p.startswith(prefix)]:
                    del files[path]
            else:
                raise Unexpected(f"commit: an ndjson line with key {key!r}")
        new = self.hub._commit(space, header["summary"], files)
        space.commits.append(new)
        url = f"{self._base()}/spaces/{repo}/commit/{new.oid}"
        self._json(200, {"success": True, "commitOid": new.oid, "commitUrl": url, "pullRequestUrl": None})


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description="Serve a stand-in for the Hugging Face Hub's Space endpoints on 127.0.0.1",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Rehearse a release (README, Publishing):\n"
        "  export HF_ENDPOINT=http://127.0.0.1:8999 HF_TOKEN=hf_rehearsal HF_HUB_DISABLE_XET=1\n"
        "  python scripts/publish.py push --org mm-rehearsal\n"
        '  python -c \'import evaluate; print(evaluate.load("mm-rehearsal/anls").compute(predictions=["a"], references=["a"]))\'',
    )
    parser.add_argument("--port", type=int, default=8999, help="port on 127.0.0.1 (0: any free port)")
    parser.add_argument("--token", default="hf_rehearsal", help="the token that may push (HF_TOKEN)")
    parser.add_argument("--user", default="rehearsal", help="the user of that token")
    parser.add_argument(
        "--org", action="append", default=[], help="an organisation the user may push to (repeatable)"
    )
    parser.add_argument(
        "--serve", action="append", default=[], metavar="OUT/ORG",
        help="serve every staged Space folder under OUT/ORG as ORG/<folder> (repeatable)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    hub = HubStandIn({args.token: (args.user, args.org or ["mm-rehearsal"])}, port=args.port)
    for base in args.serve:
        base = Path(base)
        for folder in sorted(p for p in base.iterdir() if p.is_dir()):
            hub.add_space(f"{base.name}/{folder.name}", folder)
    writable = ", ".join(sorted(hub.tokens[args.token][1]))
    print(
        f"Hub stand-in on {hub.url}: {len(hub.repos)} Spaces; token {args.token} may push to {writable}",
        flush=True,
    )
    try:
        hub.server.serve_forever()
    except KeyboardInterrupt:
        pass
    print(f"{len(hub.log)} requests, {len(hub.unexpected)} unexpected", file=sys.stderr)
    for message in hub.unexpected:
        print(message, file=sys.stderr)
    return 1 if hub.unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
