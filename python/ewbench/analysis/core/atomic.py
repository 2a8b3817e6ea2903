"""Atomic output: every file the analysis writes appears whole or not at
all.  The content goes to a temporary file in the same directory, is
flushed to disk, and replaces the target in one rename (os.replace); a
failure or an interrupt (Ctrl-C) part way removes the temporary file and
leaves the previous file as it was.  Errors are OSErrors that name the
file they were writing, whatever call raised them (a full disk raises
from write() with no file name attached).
"""

import contextlib
import os
import shutil
import signal
import tempfile

# The signals that stop a command (ewbench's bootstrap makes SIGTERM and
# SIGHUP raise KeyboardInterrupt as SIGINT does): blocked while a staged
# output is swapped in or cleared away.
STOPS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

# The temporary files being written now: a worker process that is
# terminated (SIGTERM, plots.py) removes them before it exits, since an
# exception raised from its signal handler may be swallowed where it
# lands (inside a weakref callback, say).
_WRITING = set()


def _named(error, path):
    """error with path as its file name (re-raised as the same kind)."""
    if getattr(error, "filename", None) != path:
        try:
            return type(error)(error.errno, error.strerror or str(error),
                               path)
        except TypeError:
            pass
    return error


def _replace_with(path, write):
    """Call write(file object) on a temporary file beside path, then
    replace path with it."""
    directory = os.path.dirname(path) or "."
    # SIGTERM waits until the name is known (remove_temporaries).
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM])
    try:
        fd, temp = tempfile.mkstemp(dir=directory, prefix="." +
                                    os.path.basename(path) + ".",
                                    suffix=".tmp")
        _WRITING.add(temp)
    except OSError as e:
        raise _named(e, path) from None
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        # mkstemp makes the file 0600: give it the usual 0666 & ~umask.
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(temp, 0o666 & ~mask)
        os.replace(temp, path)
    except BaseException as e:
        try:
            os.unlink(temp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise _named(e, path) from None
        raise
    finally:
        _WRITING.discard(temp)


def remove_temporaries():
    """Remove the temporary files being written now (a process about to
    end at once: os._exit runs no cleanup)."""
    for temp in list(_WRITING):
        try:
            os.unlink(temp)
        except OSError:
            pass


def write_bytes(path, data):
    _replace_with(path, lambda f: f.write(data))


def write_text(path, text):
    write_bytes(path, text.encode("utf-8"))


def savefig(fig, path, **kwargs):
    """fig.savefig(path, ...) through a temporary file; the format comes
    from kwargs or from path's extension, as matplotlib would take it."""
    kwargs.setdefault("format", os.path.splitext(path)[1][1:].lower() or
                      "png")
    _replace_with(path, lambda f: fig.savefig(f, **kwargs))


def make_dirs(path):
    """os.makedirs(path, exist_ok=True), its errors naming path."""
    try:
        os.makedirs(path, exist_ok=True)
    except FileExistsError:
        raise FileExistsError(17, "exists and is not a directory",
                              path) from None


# A staging directory's name: hidden, *.tmp.
_STAGE_PREFIX, _STAGE_SUFFIX = ".render-", ".tmp"


def stage(outdir):
    """A fresh directory inside outdir (made if need be) to render a whole
    output into, hidden and named *.tmp: swap_in moves it in once it is
    complete, clear removes what is left of it."""
    make_dirs(outdir)
    try:
        return tempfile.mkdtemp(dir=outdir, prefix=_STAGE_PREFIX,
                                suffix=_STAGE_SUFFIX)
    except OSError as e:
        raise _named(e, outdir) from None


def is_stage(name):
    """Whether a name in an output directory is a staging directory's
    (one a render killed outright, SIGKILL or a power cut, left behind)."""
    return name.startswith(_STAGE_PREFIX) and name.endswith(_STAGE_SUFFIX)


@contextlib.contextmanager
def rendering(outdir, names):
    """Render a whole output (files and directories `names`) in one go:
    the block writes each name inside the staging directory it is given;
    when it ends without an error they replace outdir's (swap_in), and
    however it ends the staging directory goes (clear).  A render that
    fails or is interrupted part way (a full disk, a file-size limit, a
    figure that raises, a signal) leaves the previous output exactly as it
    was."""
    staged = stage(outdir)
    try:
        yield staged
        swap_in(staged, outdir, names)
    finally:
        clear(staged)


def swap_in(staged, outdir, names):
    """Replace outdir/NAME by staged/NAME for every name (files and
    directories), with the stopping signals blocked: the previous output
    stays whole until this call, and none is left half swapped.  A
    directory replaced goes into staged, for clear() to remove."""
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)
    try:
        for name in names:
            new, old = os.path.join(staged, name), os.path.join(outdir, name)
            try:
                if os.path.isdir(new) and os.path.lexists(old):
                    os.rename(old, os.path.join(staged, ".previous-" + name))
                os.replace(new, old)
            except OSError as e:
                raise _named(e, old) from None
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def clear(staged):
    """Remove a staging directory and all in it (a failed or interrupted
    render, or the previous output swap_in moved there)."""
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)
    try:
        shutil.rmtree(staged, ignore_errors=True)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
