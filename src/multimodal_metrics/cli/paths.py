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

    def write(self, text: str) -> None:
        """``text`` into the temporary file, which then replaces the target (mode as a new file's)."""
        try:
            with open(self.tmp, "w", encoding="utf-8") as f:
                f.write(text)
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


# the flags naming files the command writes, the folders it writes into, and the option flags naming
# files or folders it reads
OUTPUT_FLAGS = ("per_example",)
OUTPUT_FOLDERS = ("save_stats",)
INPUT_FLAGS = (
    "wordnet_path",
    "ruwordnet_path",
    "inception_weights",
    "clip_model",
    "grammar_library",
    "codebleu_grammar_library",
)


def check_paths(args) -> None:
    """Before any file is read or scored: every output path can be written (``Output``), and no
    input option names a FIFO, device or socket. ``args.per_example_out``: the --per-example Output."""
    args.per_example_out = None
    for dest in OUTPUT_FLAGS:
        value = getattr(args, dest, None)
        if value is not None:
            out = Output(value, "--" + dest.replace("_", "-"), keep=dest == "per_example")
            if dest == "per_example":
                args.per_example_out = out
    for dest in OUTPUT_FOLDERS:
        if getattr(args, dest, None) is not None:
            check_output_folder(getattr(args, dest), "--" + dest.replace("_", "-"))
    for dest in INPUT_FLAGS:
        check_input(getattr(args, dest, None), "--" + dest.replace("_", "-"))
