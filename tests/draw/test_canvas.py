"""The SVG canvas: attribute names, escaping, targets and the caption."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from boardgym.draw.canvas import Canvas


def test_attributes_and_text_are_escaped_and_named_as_svg_wants() -> None:
    canvas = Canvas(100, 50)
    canvas.text(10, 10, 'a <b> & "c"', stroke_width=2, class_="label")
    canvas.caption = "x < y"
    root = ET.fromstring(canvas.svg())
    text = [e for e in root.iter() if e.get("class") == "label"][0]
    assert text.text == 'a <b> & "c"' and text.get("stroke-width") == "2"
    assert root.get("viewBox") == "0 0 100 84"  # 50 plus the caption line


def test_targets_carry_action_move_and_class_and_sit_on_top() -> None:
    canvas = Canvas(100, 100)
    canvas.rect(0, 0, 10, 10, fill="red")
    canvas.target(7, "b3", "rect", (5, 5), x=0, y=0, width=10, height=10)
    svg = canvas.svg()
    root = ET.fromstring(svg)
    target = [e for e in root.iter() if e.get("data-action") == "7"][0]
    assert target.get("class") == "target" and target.get("data-move") == "b3"
    assert target.get("fill-opacity") == "0"
    assert svg.index('data-action="7"') > svg.index('fill="red"')
    assert canvas.anchor(7) == (5, 5) and canvas.anchor(8) is None
    assert "data-action" not in canvas.svg(targets=False)


def test_overlay_ignores_actions_without_a_target() -> None:
    canvas = Canvas(100, 100)
    canvas.target(1, "x", "rect", (5, 5), x=0, y=0, width=10, height=10)
    root = ET.fromstring(canvas.svg(overlay={1: 0.25, 9: 0.75}))
    overlay = [e for e in root.iter() if e.get("class") == "overlay"][0]
    assert len([e for e in overlay if e.tag.endswith("circle")]) == 1
