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
    return _compiled(formula)(values)


@functools.lru_cache(maxsize=None)
def _compiled(formula):
    """The formula as a function of values, its syntax walked once (a
    load evaluates every formula for every point)."""
    return _compile(formula, ast.parse(formula, mode="eval").body)


def _compile(formula, node):
    """values -> node's value.  What cannot be evaluated raises when it
    is evaluated, as a walk at each evaluation would: a `first` whose
    first argument is known never evaluates its second."""
    def unsupported(values):
        raise ValueError("formula %r: unsupported %s" %
                         (formula, type(node).__name__))
    if isinstance(node, ast.Constant) and isinstance(node.value,
                                                     (int, float)):
        constant = float(node.value)
        return lambda values: constant
    if isinstance(node, (ast.Name, ast.Attribute)):
        try:
            name = _dotted(node)
        except ValueError as e:
            error = e

            def not_a_name(values):
                raise error
            return not_a_name

        def named(values):
            v = values.get(name)
            return math.nan if v is None else float(v)
        return named
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        operand = _compile(formula, node.operand)
        return lambda values: -operand(values)
    if isinstance(node, ast.BinOp):
        left, right = (_compile(formula, node.left),
                       _compile(formula, node.right))
        if isinstance(node.op, ast.Add):
            return lambda values: left(values) + right(values)
        if isinstance(node.op, ast.Sub):
            return lambda values: left(values) - right(values)
        if isinstance(node.op, ast.Mult):
            return lambda values: left(values) * right(values)
        if isinstance(node.op, ast.Div):
            def divided(values):
                x, y = left(values), right(values)
                return math.nan if y == 0 or math.isnan(y) else x / y
            return divided

        def other_operator(values):
            left(values), right(values)
            unsupported(values)
        return other_operator
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "first" and len(node.args) == 2):
        given, otherwise = (_compile(formula, node.args[0]),
                            _compile(formula, node.args[1]))

        def first(values):
            x = given(values)
            return otherwise(values) if math.isnan(x) else x
        return first
    return unsupported


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
