"""A fleet: one run directory per GPU, found under a parent directory.

    PARENT/                      a fleet directory
      fleet.json                 optional (`ewbench run --device all`): every
                                 member started, and how it ended
      <host>-gpu<N>/  ...        one run directory per GPU (one node), or
      <host>-rank<R>/ ...        per Slurm/MPI task

    PARENT/                      a fleet study: phases, like a study dir
      ceilings/<member>/         `ewbench ceilings` per GPU (ceilings.csv)
      run/<member>/              timing + counters at a DRAM and an L2 size
      report/                    what `ewbench fleet-report` writes

Members are the subdirectories holding run.json and match across phases
by name.  A member that fleet.json (or its own run.json) says failed is
not loaded (it may have no data, or only a claim) but listed with its
reason; so is one whose directory cannot be read ("permission denied").
An interrupted member is loaded: its complete rows count.  Two members
that are one GPU (a symbolic link to, or a copy of, another member: the
same directory, or the same host and PCI bus id) are refused.  Every
other member is loaded through load.py, so a broken file is a DataError
naming it.  Members are sorted by host, then GPU or rank number, so the
report reads like the machine room.
"""

import os
import re
from dataclasses import dataclass, field
from typing import Optional

from ..core import load
from ..core import placement
from ..core import validate
from ..core.study import is_run_dir, is_study_dir

CEILINGS = "ceilings"
RUN = "run"
PHASES = (CEILINGS, RUN)
FLEET_JSON = "fleet.json"
REPORT_DIR = "report"
OK = "ok"
INTERRUPTED = "interrupted"

ROUND_NAME = re.compile(r"round-\d+")      # a contest's or repeats' round
_MEMBER_NAME = re.compile(r"^(?P<host>.+)-(?P<kind>gpu|rank)(?P<num>\d+)$")


@dataclass(frozen=True)
class Member:
    name: str
    run: load.Run               # the measuring run (run/ phase, else the
    #                             ceilings run, or the member directory)
    ceilings_dir: Optional[str]  # where its ceilings.csv came from
    place: placement.Placement
    phases: tuple               # the phases it has a run directory in

    @property
    def host(self):
        return self.place.hostname or name_parts(self.name)[0] or "—"

    @property
    def status(self):
        return self.run.manifest.get("status")


@dataclass(frozen=True)
class Failed:
    name: str
    phase: Optional[str]        # None in a plain fleet directory
    status: str
    exit_code: Optional[int]
    reason: str
    host: Optional[str] = None


@dataclass(frozen=True)
class Fleet:
    path: str
    is_study: bool
    members: tuple              # Member, sorted (sort_key)
    failed: tuple               # Failed, sorted by name
    manifests: dict = field(default_factory=dict)   # phase -> fleet.json

    @property
    def hosts(self):
        return sorted({m.host for m in self.members})

    @property
    def is_fixture(self):
        return any(m.run.is_fixture for m in self.members)

    @property
    def device_names(self):
        return sorted({str(m.run.device.get("name") or "unknown GPU")
                       for m in self.members})


def name_parts(name):
    """(host, 'gpu' or 'rank', number) of a member name; (None, None, None)
    for a name of another form."""
    m = _MEMBER_NAME.match(name)
    if not m:
        return None, None, None
    return m.group("host"), m.group("kind"), int(m.group("num"))


def _natural(text):
    return tuple(int(t) if t.isdigit() else t
                 for t in re.split(r"(\d+)", str(text)))


def sort_key(member):
    """Host, then GPU or rank number (from the name, else the launcher's
    rank, else the device index), then name."""
    _, _, num = name_parts(member.name)
    number = next((v for v in (num, member.place.rank,
                               member.run.device.get("index"))
                   if isinstance(v, int) and not isinstance(v, bool)), None)
    return (_natural(member.host), number is None, number or 0,
            _natural(member.name))


DENIED = "permission denied"


def run_dir_state(path):
    """"run" when path holds run.json, DENIED when path cannot be searched
    for it, else None."""
    try:
        os.stat(os.path.join(path, "run.json"))
    except PermissionError:
        return DENIED
    except OSError:
        return None
    return "run" if is_run_dir(path) else None


def member_dirs(path):
    """Names of the subdirectories of path that hold run.json, or that
    cannot be read (reported as such, never as empty)."""
    try:
        names = os.listdir(path)
    except OSError as e:
        raise validate.DataError(path, None, "expected a readable directory "
                                 "(%s)" % (e.strerror or e)) from None
    return sorted((n for n in names
                   if run_dir_state(os.path.join(path, n)) is not None),
                  key=_natural)


def is_fleet_dir(path):
    """A directory that is no run directory and holds fleet.json or member
    run directories."""
    return os.path.isdir(path) and not is_run_dir(path) and (
        validate.present(os.path.join(path, FLEET_JSON)) or
        bool(member_dirs(path)))


def is_fleet_study(path):
    return os.path.isdir(path) and not is_run_dir(path) and any(
        is_fleet_dir(os.path.join(path, phase)) for phase in PHASES)


def read_fleet_json(directory):
    """fleet.json of a directory as a dict, or None when absent."""
    path = os.path.join(directory, FLEET_JSON)
    if not validate.present(path):
        return None
    return validate.check_fleet_json(path, validate.read_text(path))


def _entries(doc):
    """{member directory name: fleet.json entry}."""
    out = {}
    for entry in (doc or {}).get("members", []):
        key = os.path.basename(os.path.normpath(entry.get("dir") or
                                                entry["name"]))
        out[key] = entry
    return out


def _failed(name, phase, entry=None, status=None, reason=None):
    entry = entry or {}
    return Failed(name, phase, status or entry.get("status") or "failed",
                  entry.get("exit_code"), reason or entry.get("reason") or
                  "no reason recorded", entry.get("host"))


def open_fleet(path):
    """Load a fleet directory or a fleet study directory.  DataError when
    path is neither, or when a member's files break the contract."""
    if is_run_dir(path):
        raise validate.DataError(path, None, "expected a fleet directory "
                                 "(one run directory per GPU), got a run "
                                 "directory (use `report` for one run)")
    if is_study_dir(path):
        raise validate.DataError(path, None, "expected a fleet directory "
                                 "(one run directory per GPU), got a study "
                                 "(its parts are runs of one GPU): use "
                                 "`ewbench report %s`" % path)
    rounds = _rounds_of_one_gpu(path)
    if rounds:
        raise validate.DataError(path, None, "expected a fleet directory "
                                 "(one run directory per GPU), got %s" %
                                 rounds)
    if is_fleet_study(path):
        phases = {p: os.path.join(path, p) for p in PHASES
                  if is_fleet_dir(os.path.join(path, p))}
    elif is_fleet_dir(path):
        phases = {None: path}
    else:
        raise validate.DataError(path, None, "expected a fleet directory "
                                 "(member run directories <host>-gpu<N>/ or "
                                 "<host>-rank<R>/, or fleet.json) or a fleet "
                                 "study (%s/)" % "/, ".join(PHASES))
    manifests = {}
    if phases.keys() != {None}:
        top = read_fleet_json(path)
        if top is not None:
            manifests[None] = top
    for phase, directory in phases.items():
        doc = read_fleet_json(directory)
        if doc is not None:
            manifests[phase] = doc
    found = {phase: member_dirs(d) for phase, d in phases.items()}
    names = sorted({n for ns in found.values() for n in ns} |
                   {n for doc in manifests.values() for n in _entries(doc)},
                   key=_natural)
    members, failed = [], []
    for name in names:
        dirs, broken = {}, False
        for phase, directory in phases.items():
            entry = _entries(manifests.get(phase)).get(name) or \
                _entries(manifests.get(None)).get(name)
            sub = os.path.join(directory, name)
            state = run_dir_state(sub)
            if state == DENIED:
                failed.append(_failed(name, phase, entry, DENIED,
                                      "%s cannot be read (%s)" % (sub,
                                                                   DENIED)))
                broken = True
                continue
            # An interrupted member keeps its complete rows: loaded.
            if entry is not None and (entry.get("status") or OK) not in \
                    (OK, INTERRUPTED):
                failed.append(_failed(name, phase, entry))
                broken = True
                continue
            if state == "run":
                dirs[phase] = sub
            elif entry is not None and entry.get("status") == INTERRUPTED:
                failed.append(_failed(name, phase, entry))
                broken = True
            elif entry is not None:
                failed.append(_failed(name, phase, entry, "missing",
                                      "fleet.json lists it as ok, but %s "
                                      "holds no run.json" % sub))
                broken = True
        if not dirs:
            continue
        member = _load_member(name, dirs)
        if member.status == "failed":
            failed.append(_failed(name, None, status="failed",
                                  reason="its run.json says status failed"))
            continue
        if broken and not member.run.points and not member.run.ceilings:
            continue
        members.append(member)
    _refuse_same_gpu(members)
    return Fleet(path, bool(phases.keys() - {None}),
                 tuple(sorted(members, key=sort_key)),
                 tuple(sorted(failed, key=lambda f: _natural(f.name))),
                 manifests)


def _rounds_of_one_gpu(path):
    """What path is and the command that reads it, when it holds only
    round-N/ run directories (a study's repeats/ or a contest's rounds),
    else None."""
    names = member_dirs(path) if os.path.isdir(path) else []
    if not names or not all(ROUND_NAME.fullmatch(n) for n in names):
        return None
    parent = os.path.dirname(os.path.normpath(path)) or "."
    if os.path.basename(os.path.normpath(path)) == "repeats" and \
            is_study_dir(parent):
        return ("a study's repeat rounds (round-N/, one GPU): use "
                "`ewbench report %s`" % parent)
    return ("rounds of one GPU (round-N/): use `ewbench contest %s`" %
            os.path.join(path, "round-*"))


def _gpu_identities(member):
    """What makes a member one GPU: its directories' real paths (a
    symbolic link to another member is that member), and its host with
    its PCI bus id (a copy of a member's directory keeps both)."""
    device = member.run.device
    host = member.place.hostname or (member.run.manifest.get("host") or
                                     {}).get("hostname")
    ids = [("directory", os.path.realpath(member.run.path))]
    if device.get("pci_bus_id"):
        ids.append(("host and PCI bus id", (host, device["pci_bus_id"])))
    return ids


def _refuse_same_gpu(members):
    """DataError when two members are one GPU: their numbers would count
    it twice."""
    seen = {}
    for member in members:
        for what, value in _gpu_identities(member):
            other = seen.setdefault((what, value), member)
            if other is not member:
                raise validate.DataError(
                    member.run.path, None, "expected each member to be "
                    "another GPU, got the GPU of member %s again (same %s: "
                    "%s); a fleet counts each GPU once: give fleet-report "
                    "a folder that holds each GPU's run directory once" % (
                        other.name, what, value if what == "directory"
                        else "%s %s" % value))


def _load_member(name, dirs):
    """One member from its run directories by phase: the run phase with
    the ceilings phase's ceilings.csv, or whichever phase exists."""
    ceil_dir = dirs.get(CEILINGS)
    run_dir = dirs.get(RUN) or dirs.get(None)
    if run_dir is not None:
        has_ceilings = ceil_dir is not None and validate.present(
            os.path.join(ceil_dir, "ceilings.csv"))
        run = load.load_run(run_dir, ceilings_from=ceil_dir
                            if has_ceilings else None)
        if ceil_dir is not None:    # a broken ceilings run.json is refused
            load.load_manifest(os.path.join(ceil_dir, "run.json"))
    else:
        run = load.load_run(ceil_dir)
    source = os.path.dirname(run.ceilings_path) if run.ceilings_path \
        else None
    return Member(name, run, source, placement.read(run.manifest),
                  tuple(p for p in (CEILINGS, RUN, None) if p in dirs))
