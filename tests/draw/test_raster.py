"""SVG to PNG and to RGB arrays."""

from __future__ import annotations

import math

import numpy as np
import pytest

from boardgym.draw.raster import png_to_rgb, svg_to_png, svg_to_rgb
from boardgym.types import BoardgymError

RED_SQUARE = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20" viewBox="0 0 40 20">'
    '<rect width="20" height="20" fill="#ff0000"/><text x="30" y="15" font-size="12">a1</text></svg>'
)


def test_png_and_rgb_have_the_svg_size_and_colours() -> None:
    png = svg_to_png(RED_SQUARE)
    assert png.startswith(b"\x89PNG")
    image = png_to_rgb(png)
    assert image.shape == (20, 40, 3) and image.dtype == np.uint8
    assert image[10, 5].tolist() == [255, 0, 0]
    assert image[2, 38].tolist() == [255, 255, 255]  # transparent parts come out white
    assert (image[:, 22:] < 128).any(), "the text was not drawn (no font?)"


def test_scale_multiplies_the_pixels() -> None:
    assert svg_to_rgb(RED_SQUARE, scale=2).shape == (40, 80, 3)


@pytest.mark.parametrize("scale", [0, -1, math.nan, 100])
def test_bad_scale_is_refused(scale: float) -> None:
    with pytest.raises(BoardgymError, match="scale"):
        svg_to_png(RED_SQUARE, scale)
