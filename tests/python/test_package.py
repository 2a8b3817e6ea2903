"""The analysis package as a whole: it imports neither torch nor ewbench.peers
(their absence breaks no module), and its docstring lists every module."""

import os
import re
import subprocess
import sys

from conftest import PACKAGE, ROOT


def analysis_modules():
    """Every module of the package, dotted below ewbench.analysis
    (`core.load`), its sub-packages' __init__ left out."""
    root = os.path.join(PACKAGE, "analysis")
    out = []
    for dirpath, _, files in os.walk(root):
        sub = os.path.relpath(dirpath, root).replace(os.sep, ".")
        for f in files:
            if f.endswith(".py") and not (f == "__init__.py" and sub != "."):
                out.append(f[:-3] if sub == "." else sub + "." + f[:-3])
    return sorted(out)


def test_analysis_imports_without_torch_or_peers():
    names = [m for m in analysis_modules() if m != "__init__"]
    code = ("import sys\nsys.modules['torch'] = None\n"
            "sys.modules['ewbench.peers'] = None\n"
            "import importlib\n"
            "for name in %r:\n"
            "    importlib.import_module('ewbench.analysis.' + name)\n"
            "print('ok', len(%r))\n" % (names, names))
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT,
                          capture_output=True, text=True, check=False,
                          env=dict(os.environ, MPLBACKEND="Agg"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok %d" % len(names)


def test_no_analysis_module_imports_torch_or_peers():
    """But the command line, which hands `torch` to peers.torch_ops (one
    entry point: python3 -m ewbench.analysis torch), in that one line."""
    pattern = re.compile(r"^\s*(import|from)\s+"
                         r"(torch|ewbench\.peers|\.+peers)\b|"
                         r"import torch")
    handed = 0
    for name in analysis_modules():
        path = os.path.join(PACKAGE, "analysis", *name.split(".")) + ".py"
        with open(path) as f:
            for number, line in enumerate(f, 1):
                if name == "__main__" and \
                        line.strip() == "from ..peers import torch_ops":
                    handed += 1
                    continue
                assert not pattern.search(line), "analysis/%s.py:%d: %s" % (
                    name, number, line.strip())
    assert handed == 1


def test_package_docstring_lists_every_module():
    from ewbench import analysis
    listed, sub = set(), ""
    for line in analysis.__doc__.splitlines():
        heading = re.match(r"^([\w/]+)/\s", line)
        if heading:             # core/, or report/findings/ for a package
            sub = heading.group(1).replace("/", ".") + "."
        module = re.match(r"^  (\w+)\s", line)
        if module:
            listed.add(sub + module.group(1))
    assert listed == set(analysis_modules()) - {"__init__"}
