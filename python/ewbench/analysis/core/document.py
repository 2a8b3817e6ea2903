"""A tiny document model, rendered to GitHub Markdown and to one HTML file.

The report is built once as a list of blocks and rendered twice, so the
Markdown and the HTML cannot drift apart.  Inline markup is limited to
`code`, **bold** and [links](#anchor), which both renderers understand;
in the HTML a bold verdict (VERDICT_CLASSES) is coloured.  The HTML is
self-contained: images are embedded as data: URIs (each links to its SVG
beside the report, full size), the CSS is inline, and nothing is fetched
from anywhere.  Headings and tables may carry an anchor; Toc lists
anchors; Details folds long blocks (<details> in the HTML).

The Markdown is meant to be read in a terminal too: no HTML in it (a
link to an anchor goes to the heading GitHub makes an anchor of, the one
the anchor is on or the last before it), and prose wrapped at WRAP
columns (tables and code as they are).
"""

import base64
import html
import os
import re
import unicodedata
from dataclasses import dataclass

from . import atomic
from . import sinks

# A report directory (ewbench report and fleet-report): the figures (SVGs)
# and the two renderings, in the order a render swaps them in
# (atomic.rendering), the figures before the pages that link them.
FIGURES_DIR = "figures"
REPORT_OUTPUTS = (FIGURES_DIR, "report.md", "report.html")


def report_files(figures):
    """Every file a report directory of these figures (their names) may
    hold, relative to it: the two pages and each figure's SVG, and its
    PNG (drawn beside it, embedded in the HTML, then removed).  The
    command writes these and no other (atomic.unclaimed)."""
    return frozenset(("report.md", "report.html") + tuple(
        "%s/%s.%s" % (FIGURES_DIR, figure, extension)
        for figure in figures for extension in ("svg", "png")))


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    anchor: str = ""


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class Bullets:
    items: tuple


@dataclass(frozen=True)
class Table:
    header: tuple
    rows: tuple
    anchor: str = ""


@dataclass(frozen=True)
class Image:
    path: str           # the PNG embedded in the HTML, relative to the
    #                     report's directory
    alt: str
    caption: str
    link: str = ""      # the full-size version (SVG), relative likewise
    anchor: str = ""


@dataclass(frozen=True)
class Toc:
    entries: tuple      # ((anchor, text), ...)


@dataclass(frozen=True)
class Details:
    summary: str
    blocks: tuple


@dataclass(frozen=True)
class Code:
    text: str


@dataclass(frozen=True)
class Banner:
    """A warning shown at the top (a blockquote in Markdown)."""
    text: str


# Markdown

WRAP = 78       # columns of the Markdown's prose

# A block's text as Markdown reads it: the inline markup this model writes
# (a backslash escape, a code span, **, a [text](#anchor) link) is kept as
# written, and every other character Markdown would read as markup is
# escaped, whatever put it there: raw HTML and entities, other emphasis,
# links and images, strikethrough, and what starts a block at the start
# of a line.  sinks.markdown escapes what the data holds of the kept
# markup too; this is the guarantee for the rest.
_MD_KEPT = re.compile(r"\\[!-/:-@\[-`{-~]|(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)"
                      r"|\*\*|\[(?=[^\[\]]*\]\(#[\w-]+\))|\]\(#[\w-]+\)",
                      re.S)
_MD_SPECIAL = re.compile(r"<(?=[A-Za-z/!?])|&(?=#?\w+;)|[*\[\]`]|_+"
                         r"|(?<=\S)~")
_MD_LINE_START = re.compile(r"^[ \t]*(?:[#>]|[-+](?=\s)|\d+(?=[.)]\s))",
                            re.M)
_MD_WORD = re.compile(r"[A-Za-z0-9]")


def _md_escaped(text, special=_MD_SPECIAL):
    def escape(m):
        found = m.group()
        if found[0] == "_" and m.start() > 0 and m.end() < len(text) and \
                _MD_WORD.match(text[m.start() - 1]) and \
                _MD_WORD.match(text[m.end()]):
            return found                # inside a word: no emphasis
        if found[-1].isdigit():
            return found + "\\"         # "1. " -> "1\. ": no list item
        mark = found.lstrip(" \t")       # after a line's indent
        return found[:len(found) - len(mark)] + "".join("\\" + ch
                                                        for ch in mark)
    return special.sub(escape, text)


def _md_inline(text, block=True):
    """text (a heading, paragraph, cell, item or caption) for Markdown;
    block: where a line may start a block (not in a table's cell)."""
    text, out, at = str(text), [], 0
    for m in _MD_KEPT.finditer(text):
        out.append(_md_escaped(text[at:m.start()]))
        out.append(m.group())
        at = m.end()
    out.append(_md_escaped(text[at:]))
    text = "".join(out)
    return _md_escaped(text, _MD_LINE_START) if block else text


def _md_cell(text):
    return _md_inline(str(text).replace("\n", " "), block=False).replace(
        "|", "\\|")


def _plain(text):
    """What a reader sees of inline markup: no backticks, no bold marks,
    a link's text."""
    text = re.sub(r"\[([^\]]+)\]\(#[\w-]+\)", r"\1", str(text))
    return text.replace("`", "").replace("**", "")


# What GitHub keeps of a heading in its anchor (github-slugger): letters,
# marks, decimal and letter numbers, connector punctuation, '-' and ' '
# (which becomes '-'); the rest goes.
_SLUG_KEEPS = ("Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl",
               "Pc")


def github_slug(text):
    """The anchor GitHub gives a heading of this text, before the -1, -2
    it adds to a repeated one."""
    return "".join(c for c in _plain(text).lower()
                   if c in " -" or c.isalpha() or
                   unicodedata.category(c) in _SLUG_KEEPS).replace(" ", "-")


def _flat(blocks):
    """The blocks in the order the Markdown shows them, Details opened."""
    for block in blocks:
        if isinstance(block, Details):
            yield from _flat(block.blocks)
        else:
            yield block


def markdown_targets(blocks):
    """{anchor: GitHub's anchor of the heading it is on, or of the last
    heading before the table or figure it is on}."""
    targets, seen, current = {}, {}, ""
    for block in _flat(blocks):
        if isinstance(block, Heading):
            slug = base = github_slug(block.text)
            while slug in seen:
                seen[base] += 1
                slug = "%s-%d" % (base, seen[base])
            seen[slug] = 0
            current = slug
        anchor = getattr(block, "anchor", "")
        if anchor:
            targets[anchor] = current
    return targets


# A word that would open a block (a list item, a heading, a quote, a
# table, HTML, a fence, a rule) if a wrapped line began with it.
_OPENS_BLOCK = re.compile(r"([-+*]|#+|>|\d+[.)]|[-=*_]+)$|[|<>#]|```|~~~")


def _wrap(text, first="", rest=""):
    """text wrapped at WRAP columns after the prefixes (first line, the
    others); a word that would open a block never starts a line: the word
    before it goes down with it (or, where that cannot be, it stays on the
    line before)."""
    lines, line = [], first
    for i, word in enumerate(text.split(" ")):
        if i == 0:
            line += word
        elif len(line) + 1 + len(word) <= WRAP:
            line += " " + word
        elif not _OPENS_BLOCK.match(word):
            lines.append(line)
            line = rest + word
        else:
            head, _, last = line.rpartition(" ")
            if head.strip() and not _OPENS_BLOCK.match(last) and \
                    len(rest) + len(last) + 1 + len(word) <= WRAP:
                lines.append(head)
                line = rest + last + " " + word
            else:
                line += " " + word
    return "\n".join(lines + [line])


def _md_links(text, targets):
    """[text](#anchor) pointed at the heading GitHub anchors."""
    return re.sub(r"\]\(#([\w-]+)\)", lambda m: "](#%s)" % targets.get(
        m.group(1), m.group(1)), str(text))


def _md_block(block, targets):
    def inline(text):       # a table's cell: _md_cell escapes it
        return _md_links(text, targets)

    def prose(text):        # escaped (_md_inline), its links to headings
        return _md_links(_md_inline(text), targets)
    if isinstance(block, Heading):
        return "%s %s" % ("#" * block.level, prose(block.text))
    if isinstance(block, Toc):
        return "\n".join("- [%s](#%s)" % (_md_inline(text, block=False),
                                          targets.get(anchor, anchor))
                         for anchor, text in block.entries)
    if isinstance(block, Details):
        return "\n\n".join([_wrap("**%s**" % prose(block.summary))] + [
            _md_block(b, targets) for b in block.blocks])
    if isinstance(block, Paragraph):
        return _wrap(prose(block.text))
    if isinstance(block, Banner):
        return _wrap("**%s**" % prose(block.text), "> ", "> ")
    if isinstance(block, Bullets):
        return "\n".join(_wrap(prose(item), "- ", "  ")
                         for item in block.items)
    if isinstance(block, Table):
        lines = ["| %s |" % " | ".join(_md_cell(inline(h))
                                       for h in block.header),
                 "|%s|" % "|".join("---" for _ in block.header)]
        lines += ["| %s |" % " | ".join(_md_cell(inline(c)) for c in row)
                  for row in block.rows]
        return "\n".join(lines)
    if isinstance(block, Image):
        # The Markdown shows the SVG: the PNG lives only inside the HTML.
        target = block.link or block.path
        return "![%s](%s)\n\n%s" % (_md_inline(block.alt, block=False),
                                     target,
                                     _wrap("*%s*" % prose(block.caption)))
    if isinstance(block, Code):
        # A fence longer than any run of backticks in the text.
        runs = [len(r) for r in re.findall("`+", block.text)]
        fence = "`" * max([3] + [r + 1 for r in runs])
        return "%s\n%s\n%s" % (fence, sinks.markup(block.text), fence)
    raise TypeError("unknown block %r" % (block,))


def render_markdown(blocks):
    targets = markdown_targets(blocks)
    return "\n\n".join(_md_block(b, targets) for b in blocks) + "\n"


# HTML

CSS = """
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif;
       max-width: 1200px; margin: .8em auto; padding: 0 1em; color: #1b1b1b;
       line-height: 1.4; font-size: 15px; }
h1 { font-size: 1.45em; margin: .3em 0; }
h1, h2, h3 { line-height: 1.2; }
h2 { border-bottom: 1px solid #ddd; padding-bottom: .2em; margin-top: 1.6em; }
h2#answers { margin-top: .6em; font-size: 1.2em; }
table { border-collapse: collapse; margin: .5em 0 .9em; font-size: 0.86em; }
th, td { border: 1px solid #ccc; padding: .2em .5em; text-align: left;
         vertical-align: top; }
details { margin: .6em 0; }
summary { cursor: pointer; color: #0b4f8a; }
nav ul { columns: 2; margin: .3em 0; }
th { background: #f2f2f2; }
tr:nth-child(even) td { background: #fafafa; }
code, pre { font-family: ui-monospace, 'SFMono-Regular', monospace;
            font-size: 0.92em; background: #f4f4f4; }
pre { padding: .7em; overflow-x: auto; }
img { max-width: 100%; border: 1px solid #eee; }
figure { margin: 1.5em 0; }
figcaption { font-size: 0.9em; color: #444; }
.v-holds { color: #1a7f37; }
.v-fails { color: #b42318; }
.v-untested { color: #7a5d00; }
.v-borderline { color: #7a5d00; font-style: italic; }
.banner { background: #fff3cd; border: 1px solid #e0c060; padding: .6em 1em;
          font-weight: bold; }
"""


# Bold text that is a verdict gets a class, so the reader sees it at a
# glance (colour and, for those who cannot tell colours, the words).
VERDICT_CLASSES = {"holds": "v-holds", "does not hold": "v-fails",
                   "borderline": "v-borderline",
                   "not testable with this data": "v-untested"}


def _strong(match):
    text = match.group(1)
    css = VERDICT_CLASSES.get(text)
    return '<strong class="%s">%s</strong>' % (css, text) if css else \
        "<strong>%s</strong>" % text


# What inline_html reads before anything else, left to right: a
# backslash escape (sinks.markdown writes them) and a code span (as many
# backticks closing it as opened it; sinks.code), whose text is taken as
# it is.
_LITERAL = re.compile(r"\\([!-/:-@\[-`{-~])|(?<!`)(`+)(?!`)(.+?)(?<!`)\2(?!`)",
                      re.S)
_HOLE = "\x00%d\x00"


def _code_text(text):
    """A code span's text as CommonMark takes it: one space stripped from
    each end when both have one (sinks.code pads so)."""
    if len(text) > 2 and text[0] == text[-1] == " " and text.strip():
        return text[1:-1]
    return text


def inline_html(text):
    """Escape text, then turn `code`, **bold** and [text](#anchor) into
    tags; a backslash escape is the character it escapes (sinks.markdown)
    and a code span's text is never read as markup."""
    held = []

    def hold(m):
        if m.group(1) is not None:
            held.append(html.escape(m.group(1), quote=False))
        else:
            held.append("<code>%s</code>" % html.escape(
                _code_text(m.group(3)), quote=False))
        return _HOLE % (len(held) - 1)
    out = _LITERAL.sub(hold, sinks.markup(text))
    out = html.escape(out, quote=False)
    out = re.sub(r"\[([^\]]+)\]\((#[\w-]+)\)", r'<a href="\2">\1</a>', out)
    out = re.sub(r"\*\*([^*]+)\*\*", _strong, out)
    return re.sub("\x00(\\d+)\x00", lambda m: held[int(m.group(1))], out)


def _id(anchor):
    return ' id="%s"' % html.escape(anchor) if anchor else ""


def data_uri(path):
    """A PNG file as a data: URI."""
    with open(path, "rb") as f:
        payload = base64.b64encode(f.read()).decode("ascii")
    return "data:image/png;base64," + payload


def _html_block(block, base):
    if isinstance(block, Heading):
        return "<h%d%s>%s</h%d>" % (block.level, _id(block.anchor),
                                    inline_html(block.text), block.level)
    if isinstance(block, Toc):
        return "<nav><ul>\n%s\n</ul></nav>" % "\n".join(
            '<li><a href="#%s">%s</a></li>' % (html.escape(anchor),
                                               inline_html(text))
            for anchor, text in block.entries)
    if isinstance(block, Details):
        return "<details><summary>%s</summary>\n%s\n</details>" % (
            inline_html(block.summary),
            "\n".join(_html_block(b, base) for b in block.blocks))
    if isinstance(block, Paragraph):
        return "<p>%s</p>" % inline_html(block.text)
    if isinstance(block, Banner):
        return '<p class="banner">%s</p>' % inline_html(block.text)
    if isinstance(block, Bullets):
        return "<ul>\n%s\n</ul>" % "\n".join(
            "<li>%s</li>" % inline_html(i) for i in block.items)
    if isinstance(block, Table):
        head = "".join("<th>%s</th>" % inline_html(h) for h in block.header)
        body = "\n".join("<tr>%s</tr>" % "".join(
            "<td>%s</td>" % inline_html(c) for c in row) for row in block.rows)
        return "<table%s>\n<tr>%s</tr>\n%s\n</table>" % (
            _id(block.anchor), head, body)
    if isinstance(block, Image):
        img = '<img alt="%s" src="%s">' % (
            html.escape(block.alt), data_uri(os.path.join(base, block.path)))
        link = ""
        if block.link:
            img = '<a href="%s">%s</a>' % (html.escape(block.link), img)
            link = ' <a href="%s">Full size (SVG)</a>' % html.escape(
                block.link)
        return ('<figure%s>%s<figcaption>%s%s</figcaption></figure>' % (
            _id(block.anchor), img, inline_html(block.caption), link))
    if isinstance(block, Code):
        return "<pre><code>%s</code></pre>" % html.escape(block.text)
    raise TypeError("unknown block %r" % (block,))


def render_html(blocks, title, base):
    """One self-contained HTML page; image paths are relative to base.
    title is inline text, as a heading's (its markup read, then dropped:
    a <title> holds text only)."""
    body = "\n".join(_html_block(b, base) for b in blocks)
    title = re.sub(r"<[^>]*>", "", inline_html(title))
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset="
            "\"utf-8\">\n<title>%s</title>\n<style>%s</style>\n</head>\n"
            "<body>\n%s\n</body>\n</html>\n" % (title, CSS, body))


def write_report(directory, blocks, title, pngs=()):
    """report.md and report.html of blocks in directory (a staging
    directory, atomic.rendering); then the PNGs, which live only inside
    the HTML, are removed (their SVGs stay, linked)."""
    atomic.write_text(os.path.join(directory, "report.md"),
                      render_markdown(blocks))
    atomic.write_text(os.path.join(directory, "report.html"),
                      render_html(blocks, title, directory))
    for png in pngs:
        if os.path.exists(png):
            os.remove(png)
