"""Every string from the data made safe for the place it goes: one
function per sink, used wherever a name, a path or a reason read from a
run directory (or typed by a user) is put into something ewbench writes.

  plot_text  matplotlib text: `$` never starts mathtext (two of them in a
             device name made matplotlib raise), and no control character
             (an SVG keeps the text, and XML forbids most of them)
  markup     XML and HTML text: no character XML forbids (report.html's
             text; html.escape does the rest)
  markdown   Markdown text: no markup (a `<script>`, an emphasis, a link)
             from the data; document.inline_html reads the escapes back
  code       a Markdown code span around any text (backticks included)
  terminal   one line on a terminal: no escape sequence, no newline, and
             at most `limit` characters of a long value

A control or other invisible character is shown, not dropped, the way
Python writes it in a string (\\x1b, \\n, \\u202e), so that two names that
differ only there still differ.
"""

import re

# What XML 1.0 forbids in text (and HTML calls a parse error): C0 controls
# but tab, newline and carriage return; DEL and the C1 controls; lone
# surrogates (json.loads makes them from "\ud800"); U+FFFE and U+FFFF.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff"
                      "\ufffe\uffff]")

# Markdown: the ASCII punctuation that starts inline markup anywhere; a
# run of '_' unless it is inside a word (add_f32, dram__bytes: no
# emphasis can start there); where the text starts, what starts a list
# item ('-', '+', a number's '.' or ')').
_MARKDOWN = re.compile(r"[\\`*\[\]<>&#~]|_+|^[-+](?=\s|$)"
                       r"|^\d{1,9}[.)](?=\s|$)")
_WORD = re.compile(r"[A-Za-z0-9]")


def _shown(ch):
    code = ord(ch)
    if ch == "\n":
        return "\\n"
    if ch == "\t":
        return "\\t"
    if ch == "\r":
        return "\\r"
    if code < 0x100:
        return "\\x%02x" % code
    if code < 0x10000:
        return "\\u%04x" % code
    return "\\U%08x" % code


def visible(text):
    """text with every character str.isprintable() refuses shown as its
    escape (one line, nothing invisible)."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _shown(ch) for ch in text)


def plot_text(text):
    """A label, title or legend entry from the data, for matplotlib."""
    return visible(text).replace("$", r"\$")


def markup(text):
    """Text for XML or HTML, before html.escape: nothing XML forbids."""
    text = str(text)
    return _NOT_XML.sub(lambda m: _shown(m.group()), text)


def markdown(text):
    """Text from the data inside Markdown prose or a table cell: shown as
    it is, never read as markup (a backslash before each character that
    would be)."""
    text = visible(text)

    def escaped(m):
        if m.group()[0].isdigit():
            return m.group()[:-1] + "\\" + m.group()[-1]
        if m.group()[0] == "_" and 0 < m.start() and m.end() < len(text) \
                and _WORD.match(text[m.start() - 1]) and \
                _WORD.match(text[m.end()]):
            return m.group()
        return "".join("\\" + ch for ch in m.group())
    return _MARKDOWN.sub(escaped, text)


def code(text):
    """A Markdown code span of text: as many backticks around it as it
    needs (one more than its longest run), a space inside them where it
    starts or ends with one."""
    text = visible(text)
    runs = [len(r) for r in re.findall("`+", text)]
    fence = "`" * (max(runs) + 1 if runs else 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return "%s%s%s%s%s" % (fence, pad, text, pad, fence)


def terminal(text, limit=200):
    """A value from the data or the command line, for a message on a
    terminal: one line, no escape sequence, at most `limit` characters
    of it (then how long it was)."""
    text = str(text)
    if len(text) > limit:
        return "%s... (%d characters)" % (visible(text[:limit]), len(text))
    return visible(text)
