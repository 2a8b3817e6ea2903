"""What covers what in a drawn figure (layout_faults): measured from the
artists' window extents, no legend covers an axes' area, tick labels,
axis label or title, nor another legend or a figure title, nor runs off
the figure, and no axes' labels run into another axes.  Used by
test_figure_layout.py (figures drawn in the test) and by
tests/figure-layout/sitecustomize.py (every figure a rendered reference
saves, tests/references.sh)."""

# Boxes may touch: overlaps of a pixel or less are antialiasing.
SLACK = 1.0


def _overlap(a, b):
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > SLACK and
            min(a.y1, b.y1) - max(a.y0, b.y0) > SLACK)


def _subfigures(fig):
    todo, found = [fig], []
    while todo:
        f = todo.pop()
        found.append(f)
        todo += f.subfigs
    return found


def _axis_texts(ax):
    """[(what, Text)]: ax's drawn tick labels (those of ticks inside its
    limits), axis labels and titles."""
    lo, hi = sorted(ax.get_xlim())
    texts = [("x tick label", t) for t in ax.get_xticklabels()
             if lo <= t.get_position()[0] <= hi]
    lo, hi = sorted(ax.get_ylim())
    texts += [("y tick label", t) for t in ax.get_yticklabels()
              if lo <= t.get_position()[1] <= hi]
    texts += [("x label", ax.xaxis.label), ("y label", ax.yaxis.label)]
    texts += [("title", t) for t in (ax.title, ax._left_title,
                                     ax._right_title)]
    return [(w, t) for w, t in texts if t.get_visible() and t.get_text()]


def layout_faults(fig):
    """What covers what in fig, drawn: one line each."""
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    axes = [ax for ax in fig.get_axes() if ax.get_visible()]
    legends = [("figure legend", lg) for f in _subfigures(fig)
               for lg in f.legends]
    legends += [("axes legend", ax.get_legend()) for ax in axes
                if ax.get_legend() is not None]
    titles = [f._suptitle for f in _subfigures(fig)
              if f._suptitle is not None and f._suptitle.get_text()]
    faults = []
    for i, (kind, lg) in enumerate(legends):
        box = lg.get_window_extent(r)
        for ax in axes:
            for what, text in _axis_texts(ax):
                if _overlap(box, text.get_window_extent(r)):
                    faults.append("%s covers the %s %r" % (
                        kind, what, text.get_text()))
            if kind == "figure legend" and _overlap(box, ax.bbox):
                faults.append("%s covers an axes' area (%r)" % (
                    kind, ax.get_title()))
        for title in titles:
            if _overlap(box, title.get_window_extent(r)):
                faults.append("%s covers the title %r" % (
                    kind, title.get_text()))
        for other_kind, other in legends[i + 1:]:
            if _overlap(box, other.get_window_extent(r)):
                faults.append("%s covers an %s" % (kind, other_kind))
        inside = fig.bbox
        if not (box.x0 >= inside.x0 - SLACK and box.x1 <= inside.x1 + SLACK
                and box.y0 >= inside.y0 - SLACK and
                box.y1 <= inside.y1 + SLACK):
            faults.append("%s runs off the figure" % kind)
    for ax in axes:
        for other in axes:
            if other is ax:
                continue
            for what, text in _axis_texts(ax):
                if _overlap(text.get_window_extent(r), other.bbox):
                    faults.append("the %s %r runs into another axes" % (
                        what, text.get_text()))
    return faults
