"""evaluate's cache written one whole batch at a time: a batch whose ``add_batch`` raised adds nothing.

evaluate's ``add_batch`` writes a batch to its cache (an Arrow stream: a file, or memory with
``keep_in_memory``) in record batches, through ``datasets.ArrowWriter``, and counts the rows before
writing them. A batch stopped half way (a full disk, Ctrl-C, any error) left its first rows in the
cache, counted or not, and, on a full disk, a writer over a closed file: every later ``compute`` of the
object failed. :class:`OptionsCheckedFirst <.direct.OptionsCheckedFirst>` writes through a
:func:`rollback_writer` instead: before each batch it marks the writer (bytes, rows, schema), and when the
batch raises it goes back to the mark, truncating what was written. The batches added before are kept;
a cache file that held nothing else is removed and its lock released; the exception goes on, with a
note saying what is kept.
"""

import errno
import os

EOS = b"\xff\xff\xff\xff\x00\x00\x00\x00"  # the Arrow IPC stream's end-of-stream marker
_write = os.write  # the one call that writes cache bytes to a file (a test fills the disk through it)


class RollbackSink:
    """The byte sink of a :func:`rollback_writer` (pyarrow writes to it as to a Python file): a file opened
    unbuffered (``path``), or memory (``path=None``, ``keep_in_memory``), whose end can be moved back.

    Bytes are kept in ``pending`` until 1 MiB is there, then written to the file; ``rollback(position)``
    drops everything after ``position``, from ``pending`` and, with ``os.ftruncate``, from the file.
    ``getvalue()`` (memory) is what evaluate reads back, as from a ``pyarrow.BufferOutputStream``."""

    FLUSH_AT = 1 << 20
    mode = "wb"

    def __init__(self, path=None):
        self.path = path
        self.pending = bytearray()
        self.written = 0  # bytes in the file (0 in memory)
        self.closed = False
        self.fd = None if path is None else os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        if self.closed:
            raise ValueError("I/O operation on closed file")
        size = len(self.pending)
        self.pending += data
        if self.fd is not None and len(self.pending) >= self.FLUSH_AT:
            self.flush()
        return len(self.pending) - size

    def tell(self) -> int:
        return self.written + len(self.pending)

    def flush(self) -> None:
        """Write ``pending`` to the file; what reached the file before a failed write is counted as written."""
        if self.fd is None or not self.pending:
            return
        done = 0
        try:
            with memoryview(self.pending) as view:
                while done < len(view):
                    chunk = view[done:]
                    try:
                        n = _write(self.fd, chunk)
                    finally:
                        chunk.release()  # else the bytearray could not shrink below
                    if n <= 0:
                        raise OSError(errno.EIO, f"wrote nothing to {self.path}")
                    done += n
        finally:
            self.written += done
            del self.pending[:done]

    def rollback(self, position: int) -> None:
        """Drop every byte after ``position``."""
        if position >= self.written:
            del self.pending[position - self.written :]
            return
        self.pending.clear()
        os.ftruncate(self.fd, position)
        os.lseek(self.fd, position, os.SEEK_SET)
        self.written = position

    def close(self) -> None:
        """Flush and close (a failed flush keeps the sink open, its bytes pending)."""
        if self.closed:
            return
        self.flush()
        self.discard()

    def discard(self) -> None:
        """Close without writing what is pending."""
        self.closed = True
        if self.fd is not None:
            fd, self.fd = self.fd, None
            os.close(fd)

    def getvalue(self):
        import pyarrow as pa

        return pa.py_buffer(self.pending)

    def __del__(self):
        if getattr(self, "fd", None) is not None:
            self.discard()


_ROLLBACK_WRITER = []


def _rollback_writer_class():
    """The ``ArrowWriter`` subclass of :func:`rollback_writer` (built on first use: ``datasets`` is imported
    by evaluate, not by this file)."""
    if not _ROLLBACK_WRITER:
        from datasets.arrow_writer import ArrowWriter

        class RollbackWriter(ArrowWriter):
            """``ArrowWriter`` over a :class:`RollbackSink` with ``mark``/``rollback``, and a ``finalize`` that
            a full disk leaves as it was (its end-of-stream marker written here, not by pyarrow's writer,
            which would be closed whether or not the marker reached the disk)."""

            def __init__(self, features, sink, writer_batch_size=None):
                super().__init__(features=features, stream=sink, writer_batch_size=writer_batch_size)
                self.empty_mark = self.mark()

            def mark(self):
                """The writer's state: rows buffered by evaluate's ``add`` are written first."""
                self.write_examples_on_file()
                self.write_rows_on_file()
                return (
                    self.stream.tell(),
                    self.pa_writer,
                    self._num_examples,
                    self._num_bytes,
                    self._schema,
                    self._features,
                )

            def rollback(self, mark) -> None:
                """Back to ``mark``: what was written after it is truncated, the rows after it not counted."""
                (
                    position,
                    self.pa_writer,
                    self._num_examples,
                    self._num_bytes,
                    self._schema,
                    self._features,
                ) = mark
                self.current_examples, self.current_rows = [], []
                self.stream.rollback(position)

            def finalize(self, close_stream=True):
                mark = self.mark()
                try:
                    if self.pa_writer is None:  # no row written: datasets writes the schema and the end
                        super().finalize(close_stream=False)
                    else:
                        self.stream.write(EOS)
                        self.pa_writer = (
                            None  # its stream is complete (not closed: that would write a second end)
                        )
                    self.stream.flush()
                except BaseException:
                    self.rollback(mark)
                    raise
                if close_stream:
                    self.stream.close()
                return self._num_examples, self._num_bytes

        _ROLLBACK_WRITER.append(RollbackWriter)
    return _ROLLBACK_WRITER[0]


def is_rollback_writer(writer) -> bool:
    return bool(_ROLLBACK_WRITER) and isinstance(writer, _ROLLBACK_WRITER[0])


def rollback_writer(metric):
    """A :class:`RollbackSink` writer replacing the ``ArrowWriter`` that evaluate's ``_init_writer`` has just
    opened on ``metric``'s cache (nothing written yet): the same file (or memory), features and batch size."""
    opened = metric.writer
    if metric.keep_in_memory:
        sink = metric.buf_writer = RollbackSink()
    else:
        opened.stream.close()  # empty: datasets writes nothing before the first batch
        sink = RollbackSink(metric.cache_file_name)
    return _rollback_writer_class()(metric.selected_feature_format, sink, metric.writer_batch_size)


def drop_failed_batch(metric, writer_before, mark, error: BaseException) -> None:
    """After ``add_batch`` raised: nothing of its batch stays in ``metric``'s cache. A writer that held data
    before goes back to ``mark``; one this batch opened is removed with its cache file and lock (one
    process), or emptied (distributed mode: the other processes have met this one's file). A note on
    ``error`` says what is kept."""
    writer = metric.writer
    if not is_rollback_writer(writer):
        return  # the direct path (nothing cached) or a failure before the writer was opened
    if writer is writer_before:
        writer.rollback(mark)
    elif metric.num_process > 1:
        writer.rollback(writer.empty_mark)
    else:
        writer.stream.discard()
        if not metric.keep_in_memory:
            try:
                os.remove(metric.cache_file_name)
            except OSError:
                pass
            if metric.filelock is not None:
                metric.filelock.release()
        metric.writer = metric.buf_writer = metric.selected_feature_format = None
        metric.cache_file_name = metric.filelock = None
    kept = len(metric.writer) if metric.writer is not None else 0
    where = "memory" if metric.keep_in_memory else "the cache"
    if hasattr(error, "add_note") and not getattr(error, "_mm_noted", False):
        error.add_note(
            f"add_batch did not finish: none of this batch's examples were kept; the {kept} examples added "
            f"before it are in {where} (len(metric) == {kept})"
            + (
                "; evaluate writes added examples under `cache_dir`: give one with room, or compute(predictions=..., "
                "references=...) in one call on one process, which writes no cache"
                if isinstance(error, OSError)
                else ""
            )
        )
        try:
            error._mm_noted = True
        except AttributeError:
            pass
