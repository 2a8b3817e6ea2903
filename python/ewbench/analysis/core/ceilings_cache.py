"""The ceilings cache: the measured ceilings of a GPU, found for a run of
that GPU that carries none (docs/ceilings.md, "The ceilings cache").

`ewbench ceilings` copies every complete run's ceilings.csv and run.json
to <cache>/ceilings/<GPU UUID>/<revision>/ (src/ceilings/cache.c), <cache>
being $XDG_CACHE_HOME/ewbench, else ~/.cache/ewbench: the compile cache's
directory, private to its user.  A run directory opened without
ceilings.csv and without --ceilings takes the entry of its own GPU (run.json
device.uuid) and build (tool.git_revision), used only when:

- the cache directory is a directory of this user's that no one else may
  write to (as the C side requires before it writes or reads it);
- the entry's run.json says a complete `ceilings` command on the same
  GPU, by the same build, under the same NVIDIA driver (a driver update
  may move the ceilings: the entry is stale, not used).

What it finds is said: the run's ceilings then name the ceilings run's
id (report: "Ceilings").
"""

import json
import os
import re

from . import load

# What the C side accepts as one path component (cache.c, component()).
COMPONENT = re.compile(r"^[A-Za-z0-9-][A-Za-z0-9.-]*$")


def cache_root():
    """$XDG_CACHE_HOME/ewbench, else ~/.cache/ewbench; None with
    neither (each must be absolute, as the C side reads them)."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg.startswith("/"):
        return os.path.join(xdg, "ewbench")
    home = os.environ.get("HOME", "")
    if home.startswith("/"):
        return os.path.join(home, ".cache", "ewbench")
    return None


def _private(path):
    """A directory of this user's that no one else may write to."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    import stat
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid() and \
        not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def entry_dir(root, uuid, revision):
    """The entry's directory for a GPU and build, or None when either
    cannot be one path component."""
    if not uuid or not revision or not COMPONENT.match(uuid) or \
            not COMPONENT.match(revision):
        return None
    return os.path.join(root, "ceilings", uuid, revision)


def _manifest(path):
    try:
        with open(path, encoding="utf-8") as f:
            m = json.load(f)
    except (OSError, ValueError):
        return None
    return m if isinstance(m, dict) else None


def _facts(manifest):
    """(uuid, revision, driver) a run.json records."""
    device = manifest.get("device") or {}
    tool = manifest.get("tool") or {}
    versions = manifest.get("versions") or {}
    return (device.get("uuid") if isinstance(device, dict) else None,
            tool.get("git_revision") if isinstance(tool, dict) else None,
            versions.get("nvidia_driver") if isinstance(versions, dict)
            else None)


def lookup(manifest):
    """The cache entry (a ceilings run directory) for the run whose
    run.json is manifest, or None: no cache, no entry, or one that is not
    of the same GPU, build and driver, or not complete."""
    root = cache_root()
    if root is None or not _private(root):
        return None
    uuid, revision, driver = _facts(manifest)
    entry = entry_dir(root, uuid, revision)
    if entry is None or not _private(entry) or \
            not os.path.isfile(os.path.join(entry, "ceilings.csv")):
        return None
    cached = _manifest(os.path.join(entry, "run.json"))
    if cached is None or cached.get("command") != "ceilings" or \
            cached.get("status") != "complete" or \
            _facts(cached) != (uuid, revision, driver):
        return None
    return entry


def is_cached(path):
    """Whether a ceilings directory lies in the cache."""
    root = cache_root()
    if root is None or path is None:
        return False
    inside = os.path.join(os.path.realpath(root), "ceilings") + os.sep
    return os.path.realpath(path).startswith(inside)


def source_of(ceilings_path):
    """(run_id, cached) of the ceilings run whose ceilings.csv a run was
    judged on: its run.json's run_id ("?" where it cannot be read), and
    whether it lies in the cache."""
    source = os.path.dirname(ceilings_path)
    try:
        run_id = load.load_manifest(
            os.path.join(source, "run.json")).get("run_id", "?")
    except load.DataError:
        run_id = "?"
    return run_id, is_cached(source)
