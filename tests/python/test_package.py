"""The analysis package as a whole: it imports neither torch nor ewbench.peers
(their absence breaks no module), its docstring lists every module, make
install copies every module, and no module of ewbench imports itself back
through others."""

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


def test_every_module_is_installed():
    """python/local.mk lists each file of the package that make install
    copies: a module left out works from the clone and is missing from an
    installed copy (installcheck finds it, at the end of distcheck)."""
    with open(os.path.join(ROOT, "python", "local.mk"), encoding="utf-8") as f:
        listed = set(re.findall(r"%reldir%/(ewbench/\S+\.py)", f.read()))
    package = os.path.dirname(PACKAGE)
    present = set()
    for dirpath, _, files in os.walk(PACKAGE):
        present.update(os.path.relpath(os.path.join(dirpath, f), package)
                       for f in files if f.endswith(".py"))
    assert sorted(present - listed) == []


def _imports(path, dotted, is_package, names):
    """The package's modules one module imports, at any depth of its
    code (a deferred import inside a function counts)."""
    import ast
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    here = dotted.split(".") if is_package else dotted.split(".")[:-1]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(here[:len(here) - node.level + 1] +
                            ([node.module] if node.module else [])) \
                if node.level else (node.module or "")
            # a module of the package, else a name of the package itself
            targets = [base + "." + a.name if base + "." + a.name in names
                       else base for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in names:
                t = t.rpartition(".")[0]
            if t and t != dotted:
                out.add(t)
    return out


def test_no_import_cycle():
    """No module of ewbench imports, directly or through others, a module
    that imports it back: the packages read as layers (issue 45)."""
    root = os.path.dirname(PACKAGE)
    modules = {}
    for dirpath, _, files in os.walk(PACKAGE):
        for f in files:
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(dirpath, f), root)
                dotted = rel[:-3].replace(os.sep, ".")
                is_package = f == "__init__.py"
                if is_package:
                    dotted = dotted.rpartition(".")[0]
                modules[dotted] = (os.path.join(dirpath, f), is_package)
    graph = {m: _imports(path, m, is_package, modules)
             for m, (path, is_package) in modules.items()}
    state, stack = {}, []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for t in sorted(graph[m]):
            if state.get(t) == "open":
                raise AssertionError("import cycle: " + " -> ".join(
                    stack[stack.index(t):] + [t]))
            if t not in state:
                visit(t)
        stack.pop()
        state[m] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m)
