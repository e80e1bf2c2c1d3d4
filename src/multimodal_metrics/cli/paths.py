"""Paths given on the `mm-score` command line, checked before any scoring starts.

* An output folder (``--save-stats``): ``check_output_folder`` refuses a file and a place that cannot be
  written.
* An output file (``--per-example``, ``--save-state``): ``Output`` refuses a folder, a device, FIFO or
  socket (``/dev/full``), a missing folder and a place where no file can be created (``/proc``, a
  read-only folder) before the inputs are scored, creating nothing, and writes the file whole at the
  end (``publish``): nothing partial or temporary is ever visible, whatever stops the command (a failed
  write such as a full disk, SIGTERM from Slurm, Kubernetes or ``timeout``, Ctrl-C, SIGKILL).
* An input file or folder given as an option (``--inception-weights``, ``--wordnet-path``, ...):
  ``check_input`` refuses a FIFO, device or socket before anything opens it (nothing hangs).
* ``find_bomb``: the image of a list that PIL refuses as a decompression bomb (the file to name when
  the library lets PIL's ``DecompressionBombError`` through).

Which flags name paths is declared with the flags: the options of ``kind="path"`` of a metric's option
table (``table_roles``), and the command's own flags (``register`` / ``add_argument``); ``check_paths`` reads
what the parser of the command given recorded.

Every refusal is a ValueError whose one-line message names the flag and the path.
"""

import contextlib
import errno
import os
import secrets
import signal
import socket
import stat
import threading


def _where(flag: str, path) -> str:
    return f"{flag} {str(path)!r}"


class Output:
    """An output file named by ``flag``, checked now (see the module docstring; nothing is created);
    ``write(data)`` puts ``data`` there whole (:func:`publish`); nothing of a write that failed or was
    stopped stays, so a caller has nothing to clean up."""

    def __init__(self, path, flag: str):
        self.path, self.flag = str(path), flag
        where = _where(flag, path)
        if not self.path:
            raise ValueError(f"{where}: an empty path")
        self.real = os.path.realpath(self.path)
        try:
            mode = os.stat(self.real).st_mode
        except FileNotFoundError:
            mode = None
        except (OSError, ValueError) as err:
            raise ValueError(
                f"{where}: cannot be written ({getattr(err, 'strerror', None) or err})"
            ) from None
        if mode is not None and stat.S_ISDIR(mode):
            raise ValueError(f"{where}: is a folder, expected a file to write")
        if mode is not None and not stat.S_ISREG(mode):
            raise ValueError(f"{where}: is not a regular file (a device, FIFO or socket): refused")
        folder = os.path.dirname(self.real)
        if not os.path.isdir(folder):
            raise ValueError(f"{where}: the folder {folder!r} does not exist")
        if mode is not None and not os.access(self.real, os.W_OK):
            raise ValueError(f"{where}: the file is read-only")
        try:
            _check_creatable(folder)
        except OSError as err:
            raise ValueError(f"{where}: cannot be written ({err.strerror})") from None

    def write(self, data: str | bytes) -> None:
        """``data`` (text as UTF-8, or bytes) as the whole content of the file (mode as a new file's); a
        failed or stopped write leaves the file as it was and nothing beside it."""
        payload = data if isinstance(data, bytes) else data.encode("utf-8")
        try:
            publish(self.real, payload)
        except OSError as err:
            raise ValueError(f"{_where(self.flag, self.path)}: cannot be written ({err.strerror})") from None


# ----------------------------------------------------------------------------------------------
# Writing a file whole: nothing partial or temporary is ever visible
# ----------------------------------------------------------------------------------------------
# On Linux the content goes into a file without a name (O_TMPFILE), which is linked into place once
# complete: a process stopped by any signal, SIGKILL included, leaves no file behind (the kernel frees
# an unnamed file with its last descriptor). A target that exists already is replaced atomically: the
# complete file is linked to a hidden name beside it, then renamed over the target, with SIGTERM, SIGINT
# and SIGHUP held back for those two system calls. Elsewhere (no O_TMPFILE, no /proc, a file system
# without unnamed files such as NFS) the content goes into a hidden named file renamed over the target,
# and SIGTERM, SIGINT and SIGHUP during the write remove it before they take effect. A hidden name
# that a SIGKILL (or a power cut) left behind, in those two system calls or during the fallback's
# write, is removed by the next write of the same target on the same machine (its process is gone).
_STOPPING = (signal.SIGTERM, signal.SIGINT, *(getattr(signal, n) for n in ("SIGHUP",) if hasattr(signal, n)))
_HOST = socket.gethostname().replace("/", "_") or "host"
# how a kernel or a file system says it has no unnamed files
_NO_UNNAMED = {errno.EOPNOTSUPP, errno.ENOTSUP, errno.EISDIR, errno.EINVAL}


class _Stopped(BaseException):
    """A stopping signal arrived during a write (raised where the write was, so it cleans up)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


class _SignalGuard:
    """While active (in the main thread): a stopping signal raises ``_Stopped`` where the code is, so that
    its ``finally`` clauses remove what it made, except inside ``held()``, where the signal waits for the
    end of the block. On exit, a signal that arrived is raised again with the handler that was in place
    (by default the process ends by it, as without the guard). In another thread it does nothing."""

    def __init__(self):
        self.pending: list[int] = []
        self.holding = 0
        self.previous: dict = {}

    def _handle(self, signum, frame):
        if signum not in self.pending:
            self.pending.append(signum)
        if not self.holding:
            raise _Stopped(signum)

    @contextlib.contextmanager
    def held(self):
        self.holding += 1
        try:
            yield
        finally:
            self.holding -= 1
        if self.pending and not self.holding and self.previous:
            raise _Stopped(self.pending[0])

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for signum in _STOPPING:
                if signal.getsignal(signum) is signal.SIG_IGN:  # nohup: the signal stops nothing
                    continue
                with contextlib.suppress(ValueError, OSError):
                    self.previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, kind, exc, tb):
        self.holding += 1  # the handlers below only record from now on
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)
        for signum in self.pending:
            signal.raise_signal(signum)  # the process's own handler (by default the process ends here)
        if kind is _Stopped:  # the process's handler let it go on: the write did not happen
            name = signal.Signals(exc.signum).name
            raise InterruptedError(errno.EINTR, f"stopped by {name} before it was complete") from None
        return False


def _hidden(base: str) -> str:
    """A hidden name beside ``base`` that names this machine and process (see :func:`_sweep`)."""
    return f".{base}.{_HOST}.{os.getpid()}.{secrets.token_hex(4)}.part"


def _sweep(folder: str, base: str) -> None:
    """Remove the hidden files of ``base`` that a process of this machine that is gone left behind."""
    prefix = f".{base}."
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            name = entry.name
            if not (name.startswith(prefix) and name.endswith(".part")):
                continue
            fields = name[len(prefix) : -len(".part")].rsplit(".", 2)
            if len(fields) != 3 or fields[0] != _HOST or not fields[1].isdigit() or _alive(int(fields[1])):
                continue
            with contextlib.suppress(OSError):
                os.unlink(entry.path)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process, or no way to tell: keep its file
        return True
    return True


def _unnamed(folder: str) -> int | None:
    """A descriptor of a new file without a name in ``folder`` (mode 0o666 less the umask), or None
    where the system or the file system has no such files."""
    flag = getattr(os, "O_TMPFILE", None)
    if flag is None or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        return os.open(folder, flag | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError as err:
        if err.errno in _NO_UNNAMED:
            return None
        raise


def _check_creatable(folder: str) -> None:
    """A file can be created in ``folder`` (an OSError if not), leaving nothing there."""
    fd = _unnamed(folder)
    if fd is not None:
        os.close(fd)
        return
    _sweep(folder, "write-check")
    with _SignalGuard() as guard, guard.held():
        path = os.path.join(folder, _hidden("write-check"))
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        os.unlink(path)


def _write_all(fd: int, payload: bytes) -> None:
    view = memoryview(payload)
    while view:
        view = view[os.write(fd, view) :]


def publish(path: str, payload: bytes) -> None:
    """``payload`` as the whole content of ``path`` (a new file, or replacing one atomically; mode as a new
    file's): see the comment above for how nothing partial or temporary is ever visible."""
    folder, base = os.path.split(path)
    _sweep(folder, base)
    with _SignalGuard() as guard:
        fd = _unnamed(folder)
        if fd is not None:
            try:
                _write_all(fd, payload)
                if _link_unnamed(fd, folder, base, path, guard):
                    return
            finally:
                os.close(fd)
        _publish_named(folder, base, path, payload, guard)


def _link_unnamed(fd: int, folder: str, base: str, path: str, guard: _SignalGuard) -> bool:
    """Give the complete unnamed file ``fd`` the name ``path`` (``linkat`` of ``/proc/self/fd/<fd>``,
    following that link: ``os.link`` follows it only when given a directory descriptor); False where
    /proc cannot link it (then the caller writes a named file instead)."""
    try:
        proc = os.open("/proc/self/fd", os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False

    def link(target: str) -> None:
        os.link(str(fd), target, src_dir_fd=proc, follow_symlinks=True)

    try:
        with guard.held():
            try:
                link(path)
                return True
            except FileExistsError:
                pass
            except OSError as err:
                if err.errno in (*_NO_UNNAMED, errno.ENOENT, errno.EXDEV, errno.EPERM):  # /proc cannot link
                    return False
                raise
            while True:  # replace the target atomically: a hidden name first, renamed over it
                hidden = os.path.join(folder, _hidden(base))
                try:
                    link(hidden)
                    break
                except FileExistsError:
                    continue
            try:
                os.replace(hidden, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(hidden)
                raise
        return True
    finally:
        os.close(proc)


def _publish_named(folder: str, base: str, path: str, payload: bytes, guard: _SignalGuard) -> None:
    """The fallback: a hidden named file, removed when the write fails or a stopping signal arrives."""
    with guard.held():
        hidden = os.path.join(folder, _hidden(base))
        fd = os.open(hidden, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        try:
            _write_all(fd, payload)
        finally:
            os.close(fd)
        with guard.held():
            os.replace(hidden, path)
            hidden = None
    finally:
        if hidden is not None:
            with guard.held(), contextlib.suppress(OSError):
                os.unlink(hidden)


def check_input(path, flag: str) -> None:
    """An input path given as an option: if it exists, a regular file or a folder (not a FIFO, device or
    socket, which could hang or never end)."""
    if path is None or not isinstance(path, str | os.PathLike):
        return
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return  # missing or unreadable: the library names it
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise ValueError(
            f"{_where(flag, path)}: is not a regular file or folder (a device, FIFO or socket): refused"
        )


def find_bomb(paths) -> str | None:
    """The first of ``paths`` whose header PIL refuses as a decompression bomb (None: none)."""
    from PIL import Image

    for path in paths:
        try:
            with Image.open(path):
                pass
        except Image.DecompressionBombError:
            return str(path)
        except Exception:  # noqa: BLE001 (any other problem is not the one looked for)
            continue
    return None


def check_output_folder(path, flag: str) -> None:
    """A folder the command writes files into (``--save-stats``): an existing folder, or a new one under
    the nearest existing folder; either writable (refused before anything is scored)."""
    where = _where(flag, path)
    real = os.path.realpath(str(path))
    if os.path.exists(real) and not os.path.isdir(real):
        raise ValueError(f"{where}: is not a folder (the statistics files are written into a folder)")
    existing = real
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing) or not os.access(existing, os.W_OK | os.X_OK):
        raise ValueError(f"{where}: cannot be written ({existing!r} is not a writable folder)")


# ----------------------------------------------------------------------------------------------
# Which flags name paths: declared with the flags
# ----------------------------------------------------------------------------------------------
ROLES = ("output", "folder", "input")  # a file the command writes, a folder written into, a path it reads
# options of an option table that the library writes into rather than reads (fid_clip's statistics folder)
WRITTEN_FOLDERS = ("save_stats",)
# options that name a path beside other values, so of kind "custom" in their table (codebleu's grammar:
# '2020', 'wheels' or the path of a built library)
ALSO_PATHS = ("grammar_library",)


def table_roles(table, skip=()) -> dict:
    """``{dest: role}`` of the flags of ``table`` (a metric's ``OptionTable``) that name paths: its options of
    kind ``"path"`` (and ``ALSO_PATHS``), read unless the library writes into them (``WRITTEN_FOLDERS``)."""
    return {
        o.name: "folder" if o.name in WRITTEN_FOLDERS else "input"
        for o in table.cli_options()
        if (o.kind == "path" or o.name in ALSO_PATHS) and o.name not in skip
    }


def register(parser, roles: dict) -> None:
    """Record on ``parser`` that the flags of ``roles`` (``{dest: role}``, a role of ``ROLES``) name paths."""
    known = dict(parser.get_default("path_roles") or {})
    known.update(roles)
    parser.set_defaults(path_roles=known)


def add_argument(parser, flag: str, role: str, group=None, **kwargs):
    """``(group or parser).add_argument(flag, **kwargs)``, the flag recorded as a path of ``role``."""
    action = (group or parser).add_argument(flag, **kwargs)
    register(parser, {action.dest: role})
    return action


def check_paths(args) -> None:
    """Before any file is read or scored: every output path can be written (``Output``), and no input
    path names a FIFO, device or socket (the flags the command's parser recorded, see ``register``).
    ``args.per_example_out``: the --per-example Output (written at the end, if at all)."""
    args.per_example_out = None
    roles = getattr(args, "path_roles", None) or {}
    for role in ROLES:
        for dest in [d for d, r in roles.items() if r == role]:
            value = getattr(args, dest, None)
            if value is None:
                continue
            flag = "--" + dest.replace("_", "-")
            if role == "output":
                out = Output(value, flag)
                if dest == "per_example":
                    args.per_example_out = out
            elif role == "folder":
                check_output_folder(value, flag)
            else:
                check_input(value, flag)
