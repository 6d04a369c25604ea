"""Text that a reader cannot read: labels drawn over each other or past the edge of the figure.

:func:`text_faults` draws a Figure on an Agg renderer, records every Text
artist the renderer actually draws (titles, axis and tick labels, legend
entries, annotations, the suptitle; a tick outside the view limits or an
Axes that is hidden draws nothing and is not counted), and compares their
bounding boxes in pixels.  The project's tests run it on every figure the
project draws; a study that declares figures of its own can do the same::

    from simstudy.outputs.plots import new_figure, text_faults

    fig = new_figure()
    my_draw(tables, fig.add_subplot(), profile="smoke")
    assert not text_faults(fig)
"""

from __future__ import annotations

from dataclasses import dataclass

from simstudy.errors import InputError

__all__ = [
    "TextFault",
    "text_faults",
    "describe_text_faults",
    "TOLERANCE",
    "wrap_text",
    "fit_legend",
    "spread_labels",
]

#: Pixels (at the figure's dpi) by which two boxes may overlap, or a box pass the edge, before it is a fault.
TOLERANCE = 2.0


@dataclass(frozen=True)
class TextFault:
    """One fault: two texts over each other (``kind="overlap"``) or a text past the figure's edge (``"outside"``).

    Attributes
    ----------
    kind : {"overlap", "outside"}
    first, second : str
        The texts, each as ``role 'content'`` (``second`` is empty for ``"outside"``).
    width, height : float
        Pixels by which the two boxes overlap, or by which the text passes the edge
        (horizontally and vertically).
    """

    kind: str
    first: str
    second: str
    width: float
    height: float

    def __str__(self) -> str:
        size = f"{self.width:.1f} x {self.height:.1f} px"
        if self.kind == "outside":
            return f"{self.first} reaches {size} past the edge of the figure"
        return f"{self.first} overlaps {self.second} by {size}"


def _roles(fig) -> dict[int, str]:
    """The role of each text the figure owns, by id: 'title of axes 1', 'x tick label of axes 0' ..."""
    roles: dict[int, str] = {}
    for name in ("_suptitle", "_supxlabel", "_supylabel"):
        t = getattr(fig, name, None)
        if t is not None:
            roles[id(t)] = name[1:]
    for legend in fig.legends:
        for t in [*legend.get_texts(), legend.get_title()]:
            roles[id(t)] = "figure legend"
    for t in fig.texts:
        roles.setdefault(id(t), "figure text")
    for i, ax in enumerate(fig.axes):
        where = f"of axes {i}"
        for name in ("title", "_left_title", "_right_title"):
            roles[id(getattr(ax, name))] = f"title {where}"
        for axis_name in ("xaxis", "yaxis", "zaxis"):
            axis = getattr(ax, axis_name, None)
            if axis is None:
                continue
            letter = axis_name[0]
            roles[id(axis.label)] = f"{letter} label {where}"
            roles[id(axis.offsetText)] = f"{letter} offset text {where}"
            for tick in [*axis.majorTicks, *axis.minorTicks]:
                roles[id(tick.label1)] = roles[id(tick.label2)] = f"{letter} tick label {where}"
        legend = ax.get_legend()
        if legend is not None:
            for t in [*legend.get_texts(), legend.get_title()]:
                roles[id(t)] = f"legend {where}"
        for t in ax.texts:
            roles[id(t)] = f"annotation {where}"
    return roles


def _boxes(text, renderer):
    """The upright box around a drawn text (its window extent) and the corners of its own, rotated box."""
    import numpy as np
    from matplotlib.text import Text

    box = Text.get_window_extent(text, renderer).frozen()  # the text's own, without an annotation's arrow
    angle = text.get_rotation()
    if angle % 90 == 0:
        return box, np.array([[box.x0, box.y0], [box.x1, box.y0], [box.x1, box.y1], [box.x0, box.y1]])
    text.set_rotation(0)  # the unrotated size; the two boxes share their centre
    try:
        upright = Text.get_window_extent(text, renderer)
    finally:
        text.set_rotation(angle)
    a = np.deg2rad(angle)
    u, v = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
    half_w, half_h = upright.width / 2, upright.height / 2
    c = np.array([(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2])
    corners = np.array([c + sx * half_w * u + sy * half_h * v for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
    return box, corners


def _depth(a, b) -> float:
    """How deep two convex quadrilaterals (4 x 2 corners) overlap: the least overlap of their projections
    on the directions of their edges (separating axes); <= 0 when they are apart."""
    import numpy as np

    depth = np.inf
    for corners in (a, b):
        for i in (0, 1):
            edge = corners[i + 1] - corners[i]
            n = np.array([-edge[1], edge[0]]) / (np.hypot(*edge) or 1.0)
            pa, pb = a @ n, b @ n
            depth = min(depth, min(pa.max(), pb.max()) - max(pa.min(), pb.min()))
    return float(depth)


def _drawn_texts(fig):
    """Draw ``fig`` and return ``[(text, bbox, corners)]`` for every Text the renderer drew, as drawn."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    canvas.draw()  # the layout engine (constrained, tight) runs here, and every tick label is made
    renderer = canvas.get_renderer()
    drawn: dict[int, tuple] = {}
    current: list = []  # the Text being drawn

    def text_draw(text):
        method = text.draw

        def draw(*args, **kwargs):
            current.append(text)
            try:
                return method(*args, **kwargs)
            finally:
                current.pop()

        return draw

    def renderer_draw(method):
        def draw(*args, **kwargs):
            # called from inside Text.draw, where the position drawn (a 3-D label's projection) is in force
            text = current[-1] if current else None
            if text is not None and id(text) not in drawn and str(text.get_text()).strip():
                drawn[id(text)] = (text, *_boxes(text, renderer))
            return method(*args, **kwargs)

        return draw

    # shadow the methods on these instances only (a multi-line text reaches the renderer line by line,
    # without naming itself): nothing global changes
    texts = fig.findobj(Text)
    for t in texts:
        t.draw = text_draw(t)
    renderer.draw_text = renderer_draw(renderer.draw_text)
    renderer.draw_tex = renderer_draw(renderer.draw_tex)
    try:
        fig.draw(renderer)
    finally:
        del renderer.draw_text, renderer.draw_tex
        for t in texts:
            del t.draw
    return list(drawn.values())


def text_faults(fig, *, tolerance: float = TOLERANCE) -> list[TextFault]:
    """Every pair of drawn texts whose boxes overlap, and every text that passes the edge of the figure.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        Drawn on an Agg canvas (its own when it has one, else a new one), with
        its layout engine, at its own size and dpi.
    tolerance : float
        Pixels by which two boxes may overlap in both directions (or a box pass
        the edge) before it is a fault: glyph boxes include some padding.

    Returns
    -------
    list of TextFault
        Empty when every text stands clear of the others and inside the figure.

    Notes
    -----
    A text's box is its window extent; a rotated text is compared by its own
    rotated box, not by the upright box around it.  A text is counted when the renderer draws it, so hidden
    Axes, empty labels and ticks outside the view limits are not; text drawn
    through path effects is not seen.
    """
    if not tolerance >= 0:
        raise InputError(f"tolerance: must be >= 0 pixels, got {tolerance!r}")
    texts = _drawn_texts(fig)
    roles = _roles(fig)

    def name(t):
        content = " ".join(str(t.get_text()).split())
        if len(content) > 60:
            content = content[:57] + "..."
        return f"{roles.get(id(t), type(t).__name__.lower())} {content!r}"

    W, H = fig.bbox.width, fig.bbox.height
    faults = []
    for t, b, _ in texts:
        w = max(0.0, -b.x0) + max(0.0, b.x1 - W)
        h = max(0.0, -b.y0) + max(0.0, b.y1 - H)
        if w > tolerance or h > tolerance:
            faults.append(TextFault("outside", name(t), "", w, h))
    for i, (t, a, ca) in enumerate(texts):
        for u, b, cb in texts[i + 1 :]:
            w = min(a.x1, b.x1) - max(a.x0, b.x0)
            h = min(a.y1, b.y1) - max(a.y0, b.y0)
            if w > tolerance and h > tolerance and _depth(ca, cb) > tolerance:
                faults.append(TextFault("overlap", name(t), name(u), w, h))
    return faults


def describe_text_faults(faults) -> str:
    """The faults one per line, for an assertion message."""
    return "\n".join(str(f) for f in faults) or "no fault"


# -- placing text so that it stays clear ------------------------------------------------------------


def _renderer(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    return canvas.get_renderer()


def _settle(fig):
    """Run the figure's layout engine, so that every Axes is where it will be drawn."""
    fig.draw_without_rendering()


def wrap_text(text, width: float) -> None:
    """Break a Text's lines at spaces (a longer word at any character) so that no line is wider than ``width``.

    A line that fits is kept as it is; one that does not is broken into as
    few lines as fit, of even length.

    Parameters
    ----------
    text : matplotlib.text.Text
        A text of a figure; its lines are measured at its own font and the figure's dpi.
    width : float
        Pixels at the figure's dpi.
    """
    import textwrap

    fig = text.get_figure(root=True) if hasattr(text, "get_figure") else text.figure
    renderer = _renderer(fig)
    prop = text.get_fontproperties()

    def wide(line: str) -> float:
        ismath = "TeX" if text.get_usetex() else ("$" in line and line.count("$") % 2 == 0)
        return renderer.get_text_width_height_descent(line, prop, ismath=ismath)[0]

    def broken(line: str) -> list[str]:
        if wide(line) <= width:
            return [line]
        words = " ".join(line.split())

        def lines(n):
            return textwrap.wrap(words, n, break_on_hyphens=False)

        # the most characters per line whose lines all fit (at least one), then as few as keep that many
        # lines: lines of even length, no word left alone on the last
        n = len(words)
        while n > 1 and any(wide(part) > width for part in lines(n)):
            n -= 1
        count = len(lines(n))
        while n > 1 and len(lines(n - 1)) == count:
            n -= 1
        return lines(n)

    content = str(text.get_text())
    text.set_text("\n".join(part for line in content.split("\n") for part in broken(line)))


def fit_legend(make, *, ncols: int, width: float | None = None, max_chars: int = 48):
    """A legend in as many columns (up to ``ncols``) as fit in ``width``; long entries broken into lines.

    Parameters
    ----------
    make : callable
        ``make(n)`` makes the legend in ``n`` columns (``ax.legend(..., ncols=n)``
        or ``fig.legend(...)``) and returns it; a legend too wide is removed and
        made again with fewer columns.
    ncols : int
        The most columns.
    width : float, optional
        Pixels; default the figure's width less 2%.
    max_chars : int
        An entry longer than this is broken into lines of at most as many characters.

    Returns
    -------
    matplotlib.legend.Legend
    """
    import textwrap

    for n in range(max(int(ncols), 1), 0, -1):
        legend = make(n)
        fig = legend.get_figure(root=True) if hasattr(legend, "get_figure") else legend.figure
        renderer = _renderer(fig)
        limit = width if width is not None else 0.98 * fig.bbox.width
        for t in legend.get_texts():
            if len(str(t.get_text())) > max_chars:
                t.set_text("\n".join(textwrap.wrap(str(t.get_text()), max_chars, break_on_hyphens=False)))
        extent = legend.get_window_extent(renderer).width
        if extent <= limit or n == 1:
            break
        legend.remove()
    if extent > limit:  # one column and still too wide: the widest entries on more lines
        texts = legend.get_texts()
        room = max(t.get_window_extent(renderer).width for t in texts) - (extent - limit)
        for t in texts:
            wrap_text(t, max(room, 1.0))
    return legend


def spread_labels(annotations, *, avoid=(), sides=("right", "left"), rows=(1, -1)) -> None:
    """Move point labels so that none overlaps another or leaves its Axes, with a thin line to a label moved away.

    Each label is tried first beside its point, then a row of text above
    and below it, then two rows ..., on each of ``sides`` in turn; it takes
    the first place that is inside its Axes and clear of the labels already
    placed and of the ``avoid`` artists.  The labels are placed from the
    top of each Axes down (from the bottom up when ``rows`` is ``(1,)``), in
    a fixed order, so the result depends on the figure only.

    Call it once, with the labels of every Axes of the figure, when
    everything else is on the figure: it runs the layout engine to know
    where the Axes will be.  The labels are left out of the layout (their
    Axes holds them), so a later layout puts the Axes in the same place.

    Parameters
    ----------
    annotations : sequence of matplotlib.text.Annotation
        Labels made with ``textcoords="offset points"``, and ``arrowprops``
        when a moved label should have a line to its point.
    avoid : sequence of artists
        Other artists the labels must keep clear of (a legend, ...).
    sides : sequence of {"right", "left", "center"}
        Where a label may stand: right or left of its point (3 points away),
        or centred on it.
    rows : sequence of {1, -1}
        The directions a label may move in: up (1), down (-1).
    """
    import numpy as np
    from matplotlib.text import Text
    from matplotlib.transforms import Bbox

    annotations = list(annotations)
    if not annotations:
        return
    for a in annotations:
        a.set_in_layout(False)
    fig = annotations[0].get_figure(root=True) if hasattr(annotations[0], "get_figure") else annotations[0].figure
    _settle(fig)
    renderer = _renderer(fig)
    taken = [b.get_window_extent(renderer) for b in avoid]
    to_points = 72.0 / fig.dpi
    gap = 3.0 / to_points  # 3 points
    up = tuple(rows) == (1,)
    for ax in dict.fromkeys(a.axes for a in annotations):
        frame = ax.get_window_extent(renderer)
        points = [(a, ax.transData.transform(a.xy)) for a in annotations if a.axes is ax]
        points.sort(key=lambda t: ((1 if up else -1) * t[1][1], t[1][0], str(t[0].get_text())))
        for a, (px, py) in points:
            box = Text.get_window_extent(a, renderer)  # without the arrow
            w, h = box.width, box.height
            candidates = []
            for step in range(int(frame.height // max(h, 1.0)) + 1):
                for dy in (0.0,) if step == 0 else tuple(r * step * h for r in rows):
                    for side in sides:
                        x0 = {"right": px + gap, "left": px - gap - w, "center": px - w / 2}[side]
                        candidates.append((Bbox.from_bounds(x0, py + dy, w, h), side))
            b, side = next(
                (
                    (b, side)
                    for b, side in candidates
                    if frame.x0 <= b.x0 and b.x1 <= frame.x1 and frame.y0 <= b.y0 and b.y1 <= frame.y1
                    and not any(b.overlaps(t) for t in taken)
                ),
                candidates[0],  # nowhere clear: the first place tried
            )  # fmt: skip
            a.set_horizontalalignment({"right": "left", "left": "right", "center": "center"}[side])
            a.set_verticalalignment("bottom")
            x = {"right": b.x0, "left": b.x1, "center": (b.x0 + b.x1) / 2}[side]
            a.xyann = ((x - px) * to_points, (b.y0 - py) * to_points)
            if a.arrow_patch is not None:
                a.arrow_patch.set_visible(bool(abs(b.y0 - py) > h / 2))
            taken.append(Bbox(np.asarray(b.get_points()) + [[-1, -1], [1, 1]]))
