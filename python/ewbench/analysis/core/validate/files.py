"""Reading bytes and text: a regular file or a refusal naming what is
there instead, UTF-8 with an optional byte order mark, gzip told by its
magic bytes."""

import errno
import gzip
import os
import stat
import zlib

from .contract import DataError


_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_GZIP_MAGIC = b"\x1f\x8b"


# The kinds of file a path may name besides a regular file, for refusals.
def _kind(mode):
    for test, name in ((stat.S_ISDIR, "a directory"),
                       (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _unreadable(path, error):
    """The DataError for an OSError met reaching path."""
    if isinstance(error, FileNotFoundError) and os.path.islink(path):
        return DataError(path, None, "expected a regular file, got a "
                         "dangling symbolic link (to %s)" % os.readlink(path))
    if error.errno == errno.ELOOP:
        return DataError(path, None, "expected a regular file, got a loop "
                         "of symbolic links")
    if isinstance(error, PermissionError):
        return DataError(path, None, "expected a readable file, got "
                         "permission denied")
    return DataError(path, None, "expected a readable file (%s)" %
                     (error.strerror or error))


def present(path):
    """Is there a file at path?  False when nothing is there (not even a
    link); True for a regular file or a link to one.  Anything else that
    is there (a dangling or looping link, a FIFO, a device, a directory, a
    file that cannot be reached) is a DataError naming it: it is not
    "absent", and reading it could hang."""
    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        if isinstance(e, FileNotFoundError) and not os.path.islink(path):
            return False
        raise _unreadable(path, e) from None
    if not stat.S_ISREG(mode):
        raise DataError(path, None, "expected a regular file, got %s" %
                        _kind(mode))
    return True


def read_bytes(path):
    """The bytes of a regular file (or a link to one).  Opened without
    blocking and checked before reading, so a FIFO is refused, not waited
    on."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK |
                     getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise _unreadable(path, e) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise DataError(path, None, "expected a regular file, got %s" %
                            _kind(mode))
        with os.fdopen(fd, "rb") as f:
            fd = None
            return f.read()
    except OSError as e:
        raise _unreadable(path, e) from None
    finally:
        if fd is not None:
            os.close(fd)


def decode_text(path, data):
    """UTF-8 text of a file's bytes, without a leading byte order mark."""
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM):]
    elif data.startswith(_UTF16_BOMS):
        raise DataError(path, 1, "expected UTF-8 text, got a UTF-16 byte "
                        "order mark (save the file as UTF-8)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise DataError(path, line, "expected UTF-8 text, got byte 0x%02x "
                        "at offset %d" % (data[e.start], e.start)) from None


def read_text(path):
    return decode_text(path, read_bytes(path))


def read_text_maybe_gzip(path):
    """Text of a file that may be gzip-compressed (told by its magic
    bytes, not its name)."""
    data = read_bytes(path)
    if data.startswith(_GZIP_MAGIC):
        try:
            data = gzip.decompress(data)
        except (EOFError, OSError, zlib.error) as e:
            raise DataError(path, None, "expected a complete gzip file, got "
                            "a damaged or truncated one (%s)" % e) from None
    return decode_text(path, data)
