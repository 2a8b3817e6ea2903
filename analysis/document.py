"""A tiny document model, rendered to GitHub Markdown and to one HTML file.

The report is built once as a list of blocks and rendered twice, so the
Markdown and the HTML cannot drift apart.  Inline markup is limited to
`code`, **bold** and [links](target), which both renderers understand;
headings get GitHub's anchors in both.  The HTML is
self-contained: images are embedded as data: URIs, the CSS is inline, and
nothing is fetched from anywhere.
"""

import base64
import html
import os
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Heading:
    level: int
    text: str


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


@dataclass(frozen=True)
class Image:
    path: str           # relative to the report's directory
    alt: str
    caption: str


@dataclass(frozen=True)
class Code:
    text: str


@dataclass(frozen=True)
class Banner:
    """A warning shown at the top (a blockquote in Markdown)."""
    text: str


# Markdown

def _md_cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def _md_block(block):
    if isinstance(block, Heading):
        return "%s %s" % ("#" * block.level, block.text)
    if isinstance(block, Paragraph):
        return block.text
    if isinstance(block, Banner):
        return "> **%s**" % block.text
    if isinstance(block, Bullets):
        return "\n".join("- %s" % item for item in block.items)
    if isinstance(block, Table):
        lines = ["| %s |" % " | ".join(_md_cell(h) for h in block.header),
                 "|%s|" % "|".join("---" for _ in block.header)]
        lines += ["| %s |" % " | ".join(_md_cell(c) for c in row)
                  for row in block.rows]
        return "\n".join(lines)
    if isinstance(block, Image):
        svg = os.path.splitext(block.path)[0] + ".svg"
        return "![%s](%s)\n\n*%s* ([SVG](%s))" % (block.alt, block.path,
                                                   block.caption, svg)
    if isinstance(block, Code):
        return "```\n%s\n```" % block.text
    raise TypeError("unknown block %r" % (block,))


def render_markdown(blocks):
    return "\n\n".join(_md_block(b) for b in blocks) + "\n"


# HTML

CSS = """
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif;
       max-width: 1180px; margin: 2em auto; padding: 0 1em; color: #1b1b1b;
       line-height: 1.45; }
h1, h2, h3 { line-height: 1.2; }
h2 { border-bottom: 1px solid #ddd; padding-bottom: .2em; margin-top: 2em; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.86em; }
th, td { border: 1px solid #ccc; padding: .25em .55em; text-align: left;
         vertical-align: top; }
th { background: #f2f2f2; }
tr:nth-child(even) td { background: #fafafa; }
code, pre { font-family: ui-monospace, 'SFMono-Regular', monospace;
            font-size: 0.92em; background: #f4f4f4; }
pre { padding: .7em; overflow-x: auto; }
img { max-width: 100%; border: 1px solid #eee; }
figure { margin: 1.5em 0; }
figcaption { font-size: 0.9em; color: #444; }
.banner { background: #fff3cd; border: 1px solid #e0c060; padding: .6em 1em;
          font-weight: bold; }
"""


def anchor(text):
    """The id of a heading, as GitHub makes it: lower case, spaces to '-',
    other punctuation dropped; so [x](#id) links work in both renderings."""
    slug = re.sub(r"[^\w\- ]", "", str(text).lower()).strip()
    return slug.replace(" ", "-")


def inline_html(text):
    """Escape text, then turn `code`, **bold** and [links](target) into
    tags."""
    out = html.escape(str(text), quote=False)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    out = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", r'<a href="\2">\1</a>', out)
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", out)


def data_uri(path):
    """A PNG file as a data: URI."""
    with open(path, "rb") as f:
        payload = base64.b64encode(f.read()).decode("ascii")
    return "data:image/png;base64," + payload


def _html_block(block, base):
    if isinstance(block, Heading):
        return '<h%d id="%s">%s</h%d>' % (block.level, anchor(block.text),
                                          inline_html(block.text),
                                          block.level)
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
        return "<table>\n<tr>%s</tr>\n%s\n</table>" % (head, body)
    if isinstance(block, Image):
        return ('<figure><img alt="%s" src="%s"><figcaption>%s</figcaption>'
                '</figure>' % (html.escape(block.alt),
                               data_uri(os.path.join(base, block.path)),
                               inline_html(block.caption)))
    if isinstance(block, Code):
        return "<pre><code>%s</code></pre>" % html.escape(block.text)
    raise TypeError("unknown block %r" % (block,))


def render_html(blocks, title, base):
    """One self-contained HTML page; image paths are relative to base."""
    body = "\n".join(_html_block(b, base) for b in blocks)
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset="
            "\"utf-8\">\n<title>%s</title>\n<style>%s</style>\n</head>\n"
            "<body>\n%s\n</body>\n</html>\n" % (html.escape(title), CSS, body))
