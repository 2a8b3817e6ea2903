"""The derived metrics of metrics.csv, read from metrics/derived.def.

ewbench compiles that file in and writes a `derived` row per point for
every formula whose inputs were measured; this module reads the same file
(names, units, formulas) so the analysis holds no second copy, and can
evaluate a formula over a point's base metrics, which the tests use to
show that both sides compute the same numbers.  The grammar is
src/counters/formula.h's: + - * / and parentheses over numbers, metric names,
the point's `bytes_moved` and `read_bytes`, and first(x, y).
"""

import ast
import functools
import math
import os
import re
from dataclasses import dataclass

DEF_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        os.pardir, os.pardir, "defs", "derived.def")

_STRINGS = r'((?:"[^"\n]*"\s*)+)'
_ROW = re.compile(r"DERIVED\(\s*(\w+)\s*,\s*" + _STRINGS + r",\s*" +
                  _STRINGS + r",\s*" + _STRINGS + r"\)")
_COMMENT = re.compile(r"/\*.*?\*/", re.S)


@dataclass(frozen=True)
class Derived:
    name: str
    unit: str
    formula: str
    meaning: str


def _join(literals):
    """Adjacent C string literals as one string."""
    return "".join(re.findall(r'"([^"\n]*)"', literals))


def read_table(path=DEF_PATH):
    """Every DERIVED row of the file, in order."""
    with open(path, encoding="utf-8") as f:
        text = _COMMENT.sub("", f.read())
    return tuple(Derived(m.group(1), _join(m.group(2)), _join(m.group(3)),
                         _join(m.group(4)))
                 for m in _ROW.finditer(text))


TABLE = read_table()
NAMES = tuple(d.name for d in TABLE)
UNITS = {d.name: d.unit for d in TABLE}


def _dotted(node):
    """A metric name parsed as attribute access: a__b.sum -> 'a__b.sum'."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return _dotted(node.value) + "." + node.attr
    raise ValueError("not a name")


def evaluate(formula, values):
    """The formula's value; values maps names to numbers (absent or NaN:
    unknown).  Unknown inputs and division by zero give NaN, as in C."""
    return _evaluate(formula, _parse(formula), values)


@functools.lru_cache(maxsize=None)
def _parse(formula):
    return ast.parse(formula, mode="eval").body


def _evaluate(formula, body, values):
    def value(node):
        if isinstance(node, ast.Constant) and isinstance(node.value,
                                                         (int, float)):
            return float(node.value)
        if isinstance(node, (ast.Name, ast.Attribute)):
            v = values.get(_dotted(node))
            return math.nan if v is None else float(v)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if isinstance(node, ast.BinOp):
            x, y = value(node.left), value(node.right)
            if isinstance(node.op, ast.Add):
                return x + y
            if isinstance(node.op, ast.Sub):
                return x - y
            if isinstance(node.op, ast.Mult):
                return x * y
            if isinstance(node.op, ast.Div):
                return math.nan if y == 0 or math.isnan(y) else x / y
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "first" and len(node.args) == 2):
            x = value(node.args[0])
            return value(node.args[1]) if math.isnan(x) else x
        raise ValueError("formula %r: unsupported %s" %
                         (formula, type(node).__name__))
    return value(body)


# Facts of the point a formula may name besides metrics (src/counters/formula.h).
POINT_FACTS = ("bytes_moved", "read_bytes")


def point_facts(bytes_moved, n, element_bytes):
    """The facts a formula may name, from a timing row: every ewbench
    kernel writes one element per element (in place: the array it read),
    so the bytes it reads are the bytes moved less n elements written,
    n x the inputs' element bytes, as ewbench's registry counts them."""
    return {"bytes_moved": float(bytes_moved),
            "read_bytes": float(bytes_moved - n * element_bytes)}


def required_inputs(formula):
    """The metrics without which the formula has no value: every metric it
    names, except that first(x, y) needs only what both x and y need (a
    metric that y does without, or x does without, is not required)."""
    def need(node):
        if isinstance(node, (ast.Name, ast.Attribute)):
            name = _dotted(node)
            return frozenset() if name in POINT_FACTS else frozenset((name,))
        if isinstance(node, ast.UnaryOp):
            return need(node.operand)
        if isinstance(node, ast.BinOp):
            return need(node.left) | need(node.right)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "first" and len(node.args) == 2):
            return need(node.args[0]) & need(node.args[1])
        return frozenset()
    return need(ast.parse(formula, mode="eval").body)


# derived metric -> the measured metrics it cannot do without
INPUTS = {d.name: required_inputs(d.formula) for d in TABLE}
