"""JSON parsed strictly (no NaN or Infinity, nesting the parser can
follow, the line of any value found by its JSON path) and the field
checkers a JSON file's spec is built of: Scalar, Nullable, ListOf, MapOf,
Object."""

import json
import math
import os
import re

from .contract import DataError


class _NonFinite:
    """Stands in for NaN, Infinity or -Infinity while parsing, so that the
    refusal can name where the value is."""

    def __init__(self, name):
        self.name = name


def _first_non_finite(doc):
    """(JSON path, name) of the first NaN or Infinity in doc, or None.
    Walks with a stack: the document may be as deep as the parser went."""
    stack = [((), doc)]
    while stack:
        at, value = stack.pop()
        if isinstance(value, _NonFinite):
            return at, value.name
        if isinstance(value, dict):
            items = list(value.items())
        elif isinstance(value, list):
            items = list(enumerate(value))
        else:
            continue
        stack.extend((at + (key,), item) for key, item in reversed(items))
    return None


# When the parser gives up on nesting (at Python's recursion limit, about
# 1000 levels), the refusal points at the line where nesting passes this.
DEEPEST_SHOWN = 500


def _too_deep_offset(text):
    """Offset in text where brackets first nest deeper than
    DEEPEST_SHOWN (strings skipped), or None."""
    depth, inside, escaped = 0, False, False
    for offset, char in enumerate(text):
        if inside:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                inside = False
        elif char == '"':
            inside = True
        elif char in "[{":
            depth += 1
            if depth > DEEPEST_SHOWN:
                return offset
        elif char in "]}":
            depth -= 1
    return None


def parse_json(path, text):
    """Parse JSON text.  NaN and Infinity (which Python's json accepts but
    JSON does not have) are refused, and so is nesting deeper than the
    parser can recurse."""
    met = []                    # non-finite constants the parser met

    def constant(name):
        met.append(name)
        return _NonFinite(name)
    try:
        doc = json.loads(text, parse_constant=constant)
    except json.JSONDecodeError as e:
        raise DataError(path, e.lineno, "expected valid JSON (%s)" %
                        e.msg) from None
    except ValueError as e:
        # Python refuses integers of more than 4300 digits
        # (sys.set_int_max_str_digits): not a number any run writes.
        raise DataError(path, None, "expected JSON numbers of a sensible "
                        "size (%s)" % e) from None
    except RecursionError:
        offset = _too_deep_offset(text)
        raise DataError(path, None if offset is None else
                        text.count("\n", 0, offset) + 1,
                        "expected JSON nested less deeply: from this line "
                        "on it is more than %d levels deep, and the parser "
                        "gives up" % DEEPEST_SHOWN) from None
    found = _first_non_finite(doc) if met else None
    if found is not None:       # (None: a duplicate key dropped the value)
        at, name = found
        raise DataError(path, json_line(text, at), "expected %s to be a "
                        "finite number or null, got %s (not a JSON number)"
                        % (path_text(at), name))
    return doc


def json_line(text, at):
    """Line in text (which parsed) where the value at JSON path `at` (keys
    and list indexes) starts; a missing key gives its object's line.  None
    if the path cannot be followed (the message still names it)."""
    try:
        return _json_line(text, at)
    except (IndexError, ValueError, RecursionError):
        return None


def _json_line(text, at):
    decoder = json.JSONDecoder()
    space = json.decoder.WHITESPACE

    def skip(pos):
        return space.match(text, pos).end()
    pos = skip(0)
    for step in at:
        opener = text[pos]
        closer = "}" if opener == "{" else "]"
        found, index = None, 0
        pos = skip(pos + 1)
        while text[pos] != closer:
            if opener == "{":
                key, pos = json.decoder.scanstring(text, pos + 1)
                pos = skip(skip(pos) + 1)          # past the colon
                if key == step:
                    found = pos                     # the last one wins
            elif index == step:
                found = pos
            _, pos = decoder.raw_decode(text, pos)
            index += 1
            pos = skip(pos)
            if text[pos] == ",":
                pos = skip(pos + 1)
        if found is None:
            break
        pos = found
    return text.count("\n", 0, pos) + 1


def path_text(at):
    text = ""
    for step in at:
        text += "[%d]" % step if isinstance(step, int) else (
            "." + step if text else step)
    return text or "the document"


def shown_value(value):
    """A JSON value as a message shows it: containers by kind only (they
    may be large or deep), scalars as written, shortened."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


class Mismatch(Exception):
    """A JSON value that does not fit its spec, at JSON path `at`."""

    def __init__(self, at, message):
        super().__init__(message)
        self.at = at
        self.message = message


def _mismatch(at, expected, value):
    return Mismatch(at, "expected %s to be %s, got %s" % (
        path_text(at), expected, shown_value(value)))


class Scalar:
    def __init__(self, expected, accepts):
        self.expected = expected
        self.accepts = accepts

    def check(self, value, at):
        if not self.accepts(value):
            raise _mismatch(at, self.expected, value)


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value):
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def integer(lowest=0):
    name = {0: "a non-negative integer", 1: "a positive integer"}[lowest]
    return Scalar(name, lambda v: is_int(v) and v >= lowest)


def number(positive=False):
    if positive:
        return Scalar("a positive finite number",
                      lambda v: is_number(v) and v > 0)
    return Scalar("a non-negative finite number",
                  lambda v: is_number(v) and v >= 0)


def bytes_within(value, most):
    return len(value) <= most // 4 or len(value.encode("utf-8", "replace")) <= most


LIMITS_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           os.pardir, os.pardir, os.pardir, "defs",
                           "data-limits.h")


def _read_limits(path=LIMITS_PATH):
    """{NAME: number} of the `#define NAME VALUE` lines of data-limits.h,
    the limits ewbench's C side keeps in what it writes."""
    with open(path, encoding="utf-8") as f:
        found = re.findall(r"^#define\s+(\w+)\s+([0-9.]+)u?\s*$", f.read(),
                           re.M)
    return {name: float(value) if "." in value else int(value)
            for name, value in found}


LIMITS = _read_limits()
# The longest names the report lays out: a device's (CUDA's
# cudaDeviceProp::name), a variant id and a metric name (a 10 MB one took
# the report minutes); longer is bad data.
DEVICE_NAME_MAX = LIMITS["EWB_DEVICE_NAME_MAX"]
NAME_MAX = LIMITS["EWB_NAME_MAX"]


def text(choices=None, nonempty=False, most=None):
    if most is not None:
        return Scalar("a string of at most %d bytes" % most,
                      lambda v: isinstance(v, str) and bytes_within(v, most))
    if choices:
        return Scalar("one of %s" % ", ".join(choices),
                      lambda v: isinstance(v, str) and v in choices)
    if nonempty:
        return Scalar("a non-empty string",
                      lambda v: isinstance(v, str) and v != "")
    return Scalar("a string", lambda v: isinstance(v, str))


BOOLEAN = Scalar("true or false", lambda v: isinstance(v, bool))


class Nullable:
    def __init__(self, inner):
        self.inner = inner
        self.expected = inner.expected + " or null"

    def check(self, value, at):
        if value is None:
            return
        if isinstance(self.inner, Scalar) and not self.inner.accepts(value):
            raise _mismatch(at, self.expected, value)
        self.inner.check(value, at)


class _Each:
    """A JSON container whose elements all fit one spec: `kind` the
    container's Python type, `elements` its (key, element) pairs."""

    def __init__(self, element):
        self.element = element

    def check(self, value, at):
        if not isinstance(value, self.kind):
            raise _mismatch(at, self.expected, value)
        for key, element in self.elements(value):
            self.element.check(element, at + (key,))


class ListOf(_Each):
    kind, expected = list, "a list"
    elements = staticmethod(enumerate)


class MapOf(_Each):
    """A JSON object whose keys are free (strings, as JSON's are) and whose
    values all fit one spec: counters.collected, metric -> CUPTI name."""
    kind, expected = dict, "an object"
    elements = staticmethod(dict.items)


class Object:
    """A JSON object with known keys (all optional unless `required`);
    unknown keys are ignored, as data-format.md asks of readers."""

    def __init__(self, fields, required=()):
        self.fields = fields
        self.required = required
        self.expected = "an object"

    def check(self, value, at):
        if not isinstance(value, dict):
            raise _mismatch(at, self.expected, value)
        for name in self.required:
            if name not in value:
                raise Mismatch(at, "expected %s to be present (%s)" % (
                    path_text(at + (name,)), self.fields[name].expected))
        for name, spec in self.fields.items():
            if name in value:
                spec.check(value[name], at + (name,))


def check_json(path, text, value, spec):
    try:
        spec.check(value, ())
    except Mismatch as e:
        raise DataError(path, json_line(text, e.at), e.message) from None
