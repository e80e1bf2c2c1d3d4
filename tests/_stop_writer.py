"""`mm-score` stopped at a chosen point of writing its output file (tests/test_cli_signals.py):
``python _stop_writer.py POINT MODE ARGV...``. At POINT the process prints "ready" and waits until its stdin
closes (the test sends it a signal there, then closes stdin: a signal held back until the end of a step
then finds the step going on, as it would):

  scoring   before anything is written (the inputs scored, the file not begun)
  content   the content written to the file that has no name yet, before it is linked into place
  rename    the complete file under its hidden name, before it is renamed over an existing target
  named     MODE "fallback" only: while the content goes into the hidden named file

MODE "unnamed": the writer of this system (O_TMPFILE on Linux); "fallback": the named temporary file of
systems without unnamed files.
"""

import os
import sys

from multimodal_metrics.cli import main, paths


def pause_before(function):
    def paused(*args, **kwargs):
        print("ready", flush=True)
        sys.stdin.read()
        return function(*args, **kwargs)

    return paused


def run() -> int:
    point, mode, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
    if mode == "fallback":
        paths._unnamed = lambda folder: None
    if point == "scoring":
        paths.Output.write = pause_before(paths.Output.write)
    elif point == "content":
        paths._link_unnamed = pause_before(paths._link_unnamed)
    elif point == "rename":
        real = os.replace

        class Os:  # paths.os with a pause before os.replace (of the hidden name over the target)
            def __getattr__(self, name):
                return pause_before(real) if name == "replace" else getattr(os, name)

        paths.os = Os()
    elif point == "named":
        paths._write_all = pause_before(paths._write_all)
    return main(argv)


if __name__ == "__main__":
    sys.exit(run())
