"""peer-<name>.csv and its sidecar, written so that a reader never sees
half a file.

The CSV is rewritten whole (the rows it had, then the new ones) into a
temporary file in the run directory, flushed to disk, and renamed over
the old one; a crash leaves the old file or the new one, never a mix.
The columns are timing.csv's, from analysis.core.validate.TIMING_COLUMNS (read
from src/run/columns.def); an existing file keeps its own header and rows
byte for byte, and new rows follow its column order.
"""

import json
import os
import tempfile

from ..analysis.core import validate


def header():
    """timing.csv's column names, in order."""
    return [c.name for c in validate.TIMING_COLUMNS]


def csv_line(names, values):
    """One RFC 4180 line of values ({column: text}) in the order of names."""
    fields = []
    for name in names:
        text = values.get(name, "")
        if any(c in text for c in ',"\n\r'):
            text = '"%s"' % text.replace('"', '""')
        fields.append(text)
    return ",".join(fields) + "\n"


def existing(path):
    """(header names, text) of a peer CSV that is already there, or
    (timing.csv's header, its header line) for a new one.  A byte order
    mark is not part of the first name (read as the loader reads it)."""
    if not os.path.exists(path):
        names = header()
        return names, ",".join(names) + "\n"
    text = validate.read_text(path)
    return text.split("\n", 1)[0].split(","), text


def write_atomic(path, text):
    """Replace path by text: temp file in the same directory, fsync,
    rename, fsync of the directory."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".",
                               dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def add_rows(path, rows):
    """Rewrite peer CSV path with its rows and then rows ({column: text}
    each), atomically."""
    names, text = existing(path)
    write_atomic(path, text + "".join(csv_line(names, r) for r in rows))


def write_sidecar(path, doc):
    write_atomic(path, json.dumps(doc, indent=2) + "\n")
