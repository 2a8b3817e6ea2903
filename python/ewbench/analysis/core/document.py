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

# A report directory (ewbench report and fleet-report): the figures (SVGs)
# and the two renderings, in the order a render swaps them in
# (atomic.rendering), the figures before the pages that link them.
FIGURES_DIR = "figures"
REPORT_OUTPUTS = (FIGURES_DIR, "report.md", "report.html")


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


def _md_cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


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
    def inline(text):
        return _md_links(text, targets)
    if isinstance(block, Heading):
        return "%s %s" % ("#" * block.level, inline(block.text))
    if isinstance(block, Toc):
        return "\n".join("- [%s](#%s)" % (text, targets.get(anchor, anchor))
                         for anchor, text in block.entries)
    if isinstance(block, Details):
        return "\n\n".join([_wrap("**%s**" % inline(block.summary))] + [
            _md_block(b, targets) for b in block.blocks])
    if isinstance(block, Paragraph):
        return _wrap(inline(block.text))
    if isinstance(block, Banner):
        return _wrap("**%s**" % inline(block.text), "> ", "> ")
    if isinstance(block, Bullets):
        return "\n".join(_wrap(inline(item), "- ", "  ")
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
        return "![%s](%s)\n\n%s" % (block.alt, target,
                                     _wrap("*%s*" % inline(block.caption)))
    if isinstance(block, Code):
        return "```\n%s\n```" % block.text
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


def inline_html(text):
    """Escape text, then turn `code`, **bold** and [text](#anchor) into
    tags."""
    out = html.escape(str(text), quote=False)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    out = re.sub(r"\[([^\]]+)\]\((#[\w-]+)\)", r'<a href="\2">\1</a>', out)
    return re.sub(r"\*\*([^*]+)\*\*", _strong, out)


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
    """One self-contained HTML page; image paths are relative to base."""
    body = "\n".join(_html_block(b, base) for b in blocks)
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset="
            "\"utf-8\">\n<title>%s</title>\n<style>%s</style>\n</head>\n"
            "<body>\n%s\n</body>\n</html>\n" % (html.escape(title), CSS, body))


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
