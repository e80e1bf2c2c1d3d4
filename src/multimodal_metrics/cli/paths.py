"""Paths given on the `mm-score` command line, checked before any scoring starts.

* An output folder (``--save-stats``): ``check_output_folder`` refuses a file and a place that cannot be
  written.
* An output file (``--per-example``): ``Output`` refuses a folder, a device, FIFO or
  socket (``/dev/full``), a missing folder and a place where no file can be created (``/proc``, a
  read-only folder) before the inputs are scored, then writes through a temporary file beside the
  target that replaces it at the end (a failed write, e.g. a full disk, leaves nothing behind).
* An input file or folder given as an option (``--inception-weights``, ``--wordnet-path``, ...):
  ``check_input`` refuses a FIFO, device or socket before anything opens it (nothing hangs).
* ``find_bomb``: the image of a list that PIL refuses as a decompression bomb (the file to name when
  the library lets PIL's ``DecompressionBombError`` through).

Which flags name paths is declared with the flags: the options of ``kind="path"`` of a metric's option
table (``table_roles``), and the command's own flags (``register`` / ``add_argument``); ``check_paths`` reads
what the parser of the command given recorded.

Every refusal is a ValueError whose one-line message names the flag and the path.
"""

import os
import stat
import tempfile


def _where(flag: str, path) -> str:
    return f"{flag} {str(path)!r}"


class Output:
    """An output file named by ``flag``, checked now (see the module docstring); ``write(text)`` puts
    ``text`` there, ``discard()`` removes the temporary file when nothing is written. ``keep=False``:
    only the checks (the library writes the file itself)."""

    def __init__(self, path, flag: str, keep: bool = True):
        self.path, self.flag, self.tmp = str(path), flag, None
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
            fd, self.tmp = tempfile.mkstemp(
                dir=folder, prefix=f".{os.path.basename(self.real)}.", suffix=".part"
            )
        except OSError as err:
            raise ValueError(f"{where}: cannot be written ({err.strerror})") from None
        os.close(fd)
        if not keep:
            self.discard()

    def write(self, data: str | bytes) -> None:
        """``data`` (text, or bytes) into the temporary file, which then replaces the target (mode as a new
        file's); a failed write leaves nothing behind."""
        binary = isinstance(data, bytes)
        try:
            with open(self.tmp, "wb" if binary else "w", encoding=None if binary else "utf-8") as f:
                f.write(data)
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(self.tmp, 0o666 & ~umask)
            os.replace(self.tmp, self.real)
            self.tmp = None
        except OSError as err:
            self.discard()
            raise ValueError(f"{_where(self.flag, self.path)}: cannot be written ({err.strerror})") from None

    def discard(self) -> None:
        if self.tmp is not None:
            try:
                os.unlink(self.tmp)
            except OSError:
                pass
            self.tmp = None


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
    ``args.per_example_out``: the --per-example Output (written at the end, or discarded)."""
    args.per_example_out = None
    roles = getattr(args, "path_roles", None) or {}
    for role in ROLES:
        for dest in [d for d, r in roles.items() if r == role]:
            value = getattr(args, dest, None)
            if value is None:
                continue
            flag = "--" + dest.replace("_", "-")
            if role == "output":
                out = Output(value, flag, keep=dest == "per_example")
                if dest == "per_example":
                    args.per_example_out = out
            elif role == "folder":
                check_output_folder(value, flag)
            else:
                check_input(value, flag)
