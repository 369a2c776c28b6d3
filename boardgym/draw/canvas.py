"""The drawing description every game's picture is built on: a ``Canvas`` of SVG elements,
plus the clickable targets of the legal moves and where each move's overlay goes.

One description serves every output: ``Canvas.svg()`` is the picture for a page or a notebook,
``boardgym.draw.raster`` turns the same text into a PNG or an ``rgb_array``.

Targets: each legal action is one SVG element with ``class="target"``,
``data-action="<int>"`` and ``data-move="<typed move>"``, painted fully transparent, so a
picture looks the same with or without them and a page's CSS can highlight them (``.target``)
and its script can click them. Moves that are not legal here (a taken cell, a full column)
get a transparent ``class="spot"`` element with only ``data-move``, so that a page can ask the
rules why a click there is refused. Overlays (e.g. a search's visit shares) are drawn at each
action's anchor point inside ``<g class="overlay">``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
INK = "#222222"
PAPER = "#fbf8f1"
MUTED = "#8a8479"
LAST_MOVE = "#e07a00"
TARGET = "#1f9e89"
OVERLAY = "#3b5bdb"
CAPTION_HEIGHT = 34


@dataclass(frozen=True)
class Target:
    """One legal action's clickable element: ``tag`` with ``attrs``; ``anchor`` is where its
    overlay goes; ``move`` is its typed form (``b2``, ``3:1``)."""

    action: int
    move: str
    tag: str
    attrs: tuple[tuple[str, str], ...]
    anchor: tuple[float, float]
    overlap: bool = False


class Canvas:
    """An SVG picture under construction, ``width`` x ``height`` user units, with a caption
    line below it (``caption``) and the targets of the legal moves.

    Shapes take SVG attributes as keyword arguments: ``stroke_width=2`` is
    ``stroke-width="2"``, ``class_="x"`` is ``class="x"``; ``None`` values are left out.
    """

    def __init__(self, width: float, height: float, background: str = PAPER) -> None:
        self.width = float(width)
        self.height = float(height)
        self.background = background
        self.elements: list[str] = []
        self.targets: list[Target] = []
        self.spots: list[tuple[str, str, tuple[tuple[str, str], ...]]] = []
        self.caption = ""

    # -- shapes -------------------------------------------------------------------------------
    def add(self, tag: str, text: str | None = None, **attrs: object) -> None:
        """Any element: ``<tag attrs>text</tag>`` (text is escaped)."""
        self.elements.append(_element(tag, _attrs(attrs), text))

    def begin(self, tag: str = "g", **attrs: object) -> None:
        """Open a container element (a group); ``end`` closes it."""
        attributes = "".join(f" {name}={quoteattr(value)}" for name, value in _attrs(attrs))
        self.elements.append(f"<{tag}{attributes}>")

    def end(self, tag: str = "g") -> None:
        self.elements.append(f"</{tag}>")

    def rect(self, x: float, y: float, width: float, height: float, **attrs: object) -> None:
        self.add("rect", None, x=x, y=y, width=width, height=height, **attrs)

    def circle(self, cx: float, cy: float, r: float, **attrs: object) -> None:
        self.add("circle", None, cx=cx, cy=cy, r=r, **attrs)

    def ellipse(self, cx: float, cy: float, rx: float, ry: float, **attrs: object) -> None:
        self.add("ellipse", None, cx=cx, cy=cy, rx=rx, ry=ry, **attrs)

    def line(self, x1: float, y1: float, x2: float, y2: float, **attrs: object) -> None:
        self.add("line", None, x1=x1, y1=y1, x2=x2, y2=y2, **attrs)

    def polygon(self, points: Iterable[tuple[float, float]], **attrs: object) -> None:
        self.add("polygon", None, points=points_text(points), **attrs)

    def polyline(self, points: Iterable[tuple[float, float]], **attrs: object) -> None:
        self.add("polyline", None, points=points_text(points), fill="none", **attrs)

    def text(self, x: float, y: float, text: str, size: float = 14, **attrs: object) -> None:
        """Text centred on ``(x, y)`` unless ``text_anchor`` says otherwise."""
        attrs.setdefault("text_anchor", "middle")
        attrs.setdefault("fill", INK)
        self.add("text", text, x=x, y=y + 0.35 * size, font_size=size, font_family=FONT, **attrs)

    # -- marks shared by the games' pictures ----------------------------------------------------
    def cross(self, cx: float, cy: float, half: float, colour: str, width: float) -> None:
        """An X mark centred on ``(cx, cy)``: two round-capped strokes ``half`` out from the
        centre along each axis."""
        for sign in (1, -1):
            self.line(
                cx - half,
                cy - sign * half,
                cx + half,
                cy + sign * half,
                stroke=colour,
                stroke_width=width,
                stroke_linecap="round",
            )

    def winning_line(
        self, x1: float, y1: float, x2: float, y2: float, width: float, opacity: float, colour: str = INK
    ) -> None:
        """The stroke through a winning line of pieces, from the centre of one end to the other
        (class ``winning-line``)."""
        self.line(
            x1,
            y1,
            x2,
            y2,
            stroke=colour,
            stroke_width=width,
            stroke_opacity=opacity,
            stroke_linecap="round",
            class_="winning-line",
        )

    # -- moves --------------------------------------------------------------------------------
    def target(
        self, action: int, move: str, tag: str, anchor: tuple[float, float], overlap: bool = False, **attrs: object
    ) -> None:
        """The clickable element of a legal ``action`` (shape ``tag`` with ``attrs``);
        ``overlap`` marks targets that lie over one another (class ``target overlap``), which a
        page highlights more faintly."""
        self.targets.append(Target(int(action), move, tag, tuple(_attrs(attrs)), anchor, overlap))

    def spot(self, move: str, tag: str, **attrs: object) -> None:
        """Where a move that is not legal now would be clicked (see the module docstring)."""
        self.spots.append((move, tag, tuple(_attrs(attrs))))

    def target_or_spot(
        self,
        legal: bool,
        action: int,
        move: str,
        tag: str,
        anchor: tuple[float, float],
        overlap: bool = False,
        **attrs: object,
    ) -> None:
        if legal:
            self.target(action, move, tag, anchor, overlap, **attrs)
        else:
            self.spot(move, tag, **attrs)

    def last_move_ring(self, cx: float, cy: float, r: float) -> None:
        """The mark of the last move: an orange ring."""
        self.circle(cx, cy, r, fill="none", stroke=LAST_MOVE, stroke_width=3.5, class_="last-move")

    def last_move_box(self, x: float, y: float, width: float, height: float) -> None:
        self.rect(x, y, width, height, fill="none", stroke=LAST_MOVE, stroke_width=3.5, rx=4, class_="last-move")

    # -- output -------------------------------------------------------------------------------
    def svg(self, *, targets: bool = True, overlay: Mapping[int, float] | None = None) -> str:
        """The picture as an SVG document: board, caption, and (when asked) the transparent
        targets of the legal moves and an overlay of ``{action: share}`` (0..1) circles."""
        total = self.height + CAPTION_HEIGHT
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num(self.width)}" height="{_num(total)}" '
            f'viewBox="0 0 {_num(self.width)} {_num(total)}" class="board">'
        )
        parts = [head, _element("rect", _attrs({"width": self.width, "height": total, "fill": self.background}), None)]
        parts.extend(self.elements)
        parts.append(
            _element(
                "text",
                _attrs(
                    {
                        "x": self.width / 2,
                        "y": self.height + CAPTION_HEIGHT / 2 + 5,
                        "font_size": 15,
                        "font_family": FONT,
                        "text_anchor": "middle",
                        "fill": INK,
                        "class_": "caption",
                    }
                ),
                self.caption,
            )
        )
        if overlay:
            parts.append(self._overlay(overlay))
        if targets and (self.targets or self.spots):
            parts.append('<g class="targets">')
            for move, tag, attrs in self.spots:
                spot = [*attrs, ("class", "spot"), ("data-move", move), ("fill", "#000000"), ("fill-opacity", "0")]
                parts.append(_element(tag, spot, None))
            for target in self.targets:
                target_attrs = [
                    *target.attrs,
                    ("class", "target overlap" if target.overlap else "target"),
                    ("data-action", str(target.action)),
                    ("data-move", target.move),
                    ("fill", TARGET),
                    ("fill-opacity", "0"),
                    ("stroke", "none"),
                ]
                parts.append(_element(target.tag, target_attrs, None, child=f"<title>{escape(target.move)}</title>"))
            parts.append("</g>")
        parts.append("</svg>")
        return "".join(parts)

    def anchor(self, action: int) -> tuple[float, float] | None:
        for target in self.targets:
            if target.action == action:
                return target.anchor
        return None

    def _overlay(self, overlay: Mapping[int, float]) -> str:
        """A circle per share (area in proportion), and the percentage over the larger ones,
        largest first, leaving out a label that would overlap one already placed."""
        anchors = {target.action: target.anchor for target in self.targets}
        shares = [(share, action) for action, share in overlay.items() if action in anchors and share > 0]
        shares.sort(key=lambda item: (-item[0], item[1]))
        circles: list[str] = []
        labels: list[str] = []
        placed: list[tuple[float, float]] = []
        for rank, (share, action) in enumerate(shares):
            x, y = anchors[action]
            best = rank == 0
            circle = {
                "cx": x,
                "cy": y,
                "r": 6 + 16 * math.sqrt(share),
                "fill": OVERLAY,
                "fill_opacity": 0.55 if best else 0.35,
                "stroke": OVERLAY if best else "none",
                "stroke_width": 2,
            }
            circles.append(_element("circle", _attrs(circle), None))
            if share < 0.03 and not best:  # many small shares: their circles say enough
                continue
            if any(abs(x - px) < 30 and abs(y - py) < 14 for px, py in placed):
                continue
            placed.append((x, y))
            for colour, width in (("#ffffff", 3), (INK, 0)):  # a white halo keeps the text readable
                text = {
                    "x": x,
                    "y": y + 4,
                    "font_size": 12,
                    "font_family": FONT,
                    "font_weight": "bold",
                    "text_anchor": "middle",
                    "fill": colour,
                    "stroke": colour if width else None,
                    "stroke_width": width or None,
                }
                labels.append(_element("text", _attrs(text), f"{100 * share:.0f}%"))
        return '<g class="overlay">' + "".join(circles) + "".join(labels) + "</g>"


def points_text(points: Iterable[tuple[float, float]]) -> str:
    return " ".join(f"{_num(x)},{_num(y)}" for x, y in points)


def _attrs(attrs: Mapping[str, object]) -> list[tuple[str, str]]:
    out = []
    for key, value in attrs.items():
        if value is None:
            continue
        name = "xml:space" if key == "xml_space" else key.rstrip("_").replace("_", "-")
        out.append((name, _num(value) if isinstance(value, float) else str(value)))
    return out


def _element(tag: str, attrs: Iterable[tuple[str, str]], text: str | None, child: str = "") -> str:
    attributes = "".join(f" {name}={quoteattr(value)}" for name, value in attrs)
    if text is None and not child:
        return f"<{tag}{attributes}/>"
    return f"<{tag}{attributes}>{child}{escape(text or '')}</{tag}>"


def _num(value: object) -> str:
    if isinstance(value, float):
        text = f"{value:.2f}".rstrip("0").rstrip(".")
        return "0" if text == "-0" else text
    return str(value)
