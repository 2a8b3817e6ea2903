"""Atomic output: every file the analysis writes appears whole or not at
all.  The content goes to a temporary file in the same directory, is
flushed to disk, and replaces the target in one rename (os.replace); a
failure or an interrupt (Ctrl-C) part way removes the temporary file and
leaves the previous file as it was.  Errors are OSErrors that name the
file they were writing, whatever call raised them (a full disk raises
from write() with no file name attached).

A whole report is rendered into a staging directory and swapped in
(rendering, swap_in): all of it or none, a swap no stop cuts short
(ewbench.stops) and one that puts back what it swapped when a rename
fails.  The one rule of an output directory (unclaimed): a command never
deletes or overwrites a file it did not write.
"""

import contextlib
import io
import os
import re
import shutil
import socket
import tempfile

from ... import stops

# The temporary files being written now: a worker process that is
# terminated (SIGTERM, workers.py) removes them before it exits.
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
    # A stop waits until the name is known (remove_temporaries).
    with stops.deferred():
        try:
            fd, temp = tempfile.mkstemp(dir=directory, prefix="." +
                                        os.path.basename(path) + ".",
                                        suffix=".tmp")
        except OSError as e:
            raise _named(e, path) from None
        _WRITING.add(temp)
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
    from kwargs or from path's extension, as matplotlib would take it.  An
    SVG is XML: what XML forbids in text is shown instead (sinks.markup),
    whatever a label held."""
    kwargs.setdefault("format", os.path.splitext(path)[1][1:].lower() or
                      "png")
    if kwargs["format"] != "svg":
        _replace_with(path, lambda f: fig.savefig(f, **kwargs))
        return
    from .sinks import markup
    text = io.StringIO()
    fig.savefig(text, **kwargs)
    write_text(path, markup(text.getvalue()))


def make_dirs(path):
    """os.makedirs(path, exist_ok=True), its errors naming path."""
    try:
        os.makedirs(path, exist_ok=True)
    except FileExistsError:
        raise FileExistsError(17, "exists and is not a directory",
                              path) from None


# A staging directory's name: hidden, *.tmp, and saying whose it is: the
# host and process of the render, so that a later render can tell one
# left by a render killed outright (SIGKILL, a power cut) from one still
# being written (a render beside it), and remove only the first.
_STAGE_PREFIX, _STAGE_SUFFIX = ".render-", ".tmp"
_STAGE_OWNER = re.compile(r"^(.+)-(\d+)-[a-z0-9_]+$")


def _host():
    return re.sub(r"[^A-Za-z0-9.]", "_", socket.gethostname() or "host")


def is_stage(name):
    """Whether a name in an output directory is a staging directory's."""
    return name.startswith(_STAGE_PREFIX) and name.endswith(_STAGE_SUFFIX)


def _alive(pid):
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True         # another user's: alive
    return True


def _left_behind(name):
    """Whether staging directory `name` is a killed render's: made on this
    host by a process that no longer runs.  One of an older ewbench (no
    owner in its name) is kept: nothing says whose it is."""
    owner = _STAGE_OWNER.match(name[len(_STAGE_PREFIX):-len(_STAGE_SUFFIX)])
    return owner is not None and owner.group(1) == _host() and \
        not _alive(int(owner.group(2)))


def sweep_stages(outdir):
    """Remove what renders killed outright left in outdir."""
    try:
        names = os.listdir(outdir)
    except OSError:
        return
    for name in names:
        if is_stage(name) and _left_behind(name):
            clear(os.path.join(outdir, name))


def stage(outdir):
    """A fresh directory inside outdir (made if need be) to render a whole
    output into, hidden and named *.tmp: swap_in moves it in once it is
    complete, clear removes what is left of it; what killed renders left
    is removed first."""
    make_dirs(outdir)
    sweep_stages(outdir)
    try:
        return tempfile.mkdtemp(dir=outdir, prefix="%s%s-%d-" % (
            _STAGE_PREFIX, _host(), os.getpid()), suffix=_STAGE_SUFFIX)
    except OSError as e:
        raise _named(e, outdir) from None


def unclaimed(outdir, files):
    """Why a command that writes `files` (paths relative to outdir, "/"
    between folders) may not write into outdir, or None when it may:
    outdir is new or a directory that holds nothing but such files (each
    a regular file, each folder of them a directory) and staging
    directories.  A command never deletes or overwrites a file it did
    not write: a user's figures/mine.svg is a reason to refuse."""
    if not os.path.lexists(outdir):
        return None
    if not os.path.isdir(outdir):
        return "it exists and is not a directory"
    folders = {f.rsplit("/", 1)[0] for f in files if "/" in f}
    foreign = []

    def walk(directory, prefix):
        for entry in sorted(os.scandir(directory), key=lambda e: e.name):
            name = prefix + entry.name
            if not prefix and is_stage(entry.name) and \
                    entry.is_dir(follow_symlinks=False):
                continue
            if name in folders and entry.is_dir(follow_symlinks=False):
                walk(entry.path, name + "/")
            elif name not in files or not entry.is_file(
                    follow_symlinks=False):
                foreign.append(name + ("/" if entry.is_dir() else ""))
    try:
        walk(outdir, "")
    except OSError as e:
        return "it cannot be read (%s)" % (e.strerror or e)
    if not foreign:
        return None
    from .sinks import terminal
    more = len(foreign) - 5
    return "it holds files this command did not write (%s%s)" % (
        ", ".join(terminal(f, 80) for f in foreign[:5]),
        ", and %d more" % more if more > 0 else "")


class Unclaimed(OSError):
    """An output directory that holds a file this command did not write."""


@contextlib.contextmanager
def rendering(outdir, names, files):
    """Render a whole output in one go: the block writes each of `names`
    (files and directories, in swap order) inside the staging directory
    it is given; when it ends without an error they replace outdir's
    (swap_in), and however it ends the staging directory goes (clear).
    A render that fails or is interrupted part way (a full disk, a
    file-size limit, a figure that raises, a signal) leaves the previous
    output exactly as it was.  `files`: every file the command writes
    (unclaimed); outdir must hold no other when the render starts, nor
    when it is swapped in."""
    _refuse_unclaimed(outdir, files)
    staged = stage(outdir)
    try:
        yield staged
        swap_in(staged, outdir, names, files)
    finally:
        clear(staged)


def _refuse_unclaimed(outdir, files):
    why = unclaimed(outdir, files)
    if why:
        raise Unclaimed(17, "will not write into it: " + why, outdir)


def swap_in(staged, outdir, names, files=None):
    """Replace outdir/NAME by staged/NAME for every name (files and
    directories), no stop cutting it short (stops.deferred): the previous
    output stays whole until this call, and is whole or wholly replaced
    after it.  Each previous one is set aside in staged (for clear() to
    remove) before the new one goes in; a rename that fails part way
    (a directory where a file goes, a disk that went away) puts back
    everything already swapped, and the error names the file.  `files`:
    outdir is checked again first (unclaimed), for a file that appeared
    during the render."""
    with stops.deferred():
        if files is not None:
            _refuse_unclaimed(outdir, files)
        done = []       # (name, set aside, new one in)
        for name in names:
            new, old = os.path.join(staged, name), os.path.join(outdir, name)
            aside = os.path.join(staged, ".previous-" + name)
            try:
                step = [name, False, False]
                done.append(step)
                if os.path.lexists(old):
                    _rename(old, aside)
                    step[1] = True
                _rename(new, old)
                step[2] = True
            except OSError as e:
                raise _named(_put_back(staged, outdir, done, e), old) \
                    from None


def _rename(src, dst):
    # The one place a swap renames: tests stand in for a slow or failing
    # rename here and at the system's rename (tests/faults/slow.c).
    os.rename(src, dst)


def _put_back(staged, outdir, done, error):
    """Undo a swap's steps, last first; `error` (the failure), told what
    could not be undone if anything."""
    for name, aside, moved in reversed(done):
        old = os.path.join(outdir, name)
        try:
            if moved:
                _rename(old, os.path.join(staged, name))
            if aside:
                _rename(os.path.join(staged, ".previous-" + name), old)
        except OSError as e:
            return OSError(error.errno, "%s; and the previous %s could not "
                           "be put back (%s): the output is mixed" % (
                               error.strerror or error, name,
                               e.strerror or e))
    return error


def clear(staged):
    """Remove a staging directory and all in it (a failed or interrupted
    render, or the previous output swap_in set aside there)."""
    with stops.deferred():
        shutil.rmtree(staged, ignore_errors=True)
