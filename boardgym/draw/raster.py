"""SVG text to PNG bytes and to ``rgb_array`` images, with resvg (the ``resvg-py`` wheel: no
system library needed) and the DejaVu Sans font that matplotlib ships, so that a picture
comes out the same on every machine."""

from __future__ import annotations

import functools
import importlib.util
import io
from pathlib import Path

import numpy as np

from boardgym.types import BoardgymError


def svg_to_png(svg: str, scale: float = 1.0) -> bytes:
    """Rasterise an SVG document; ``scale`` 2 doubles its pixel size."""
    if not scale > 0 or scale > 8:
        raise BoardgymError(f"picture scale={scale!r} must be a number above 0 and at most 8, e.g. 2")
    try:
        import resvg_py
    except ImportError:  # pragma: no cover - a dependency of the package
        raise BoardgymError("pictures need the resvg-py package: pip install resvg-py") from None
    fonts = _font_files()
    return bytes(
        resvg_py.svg_to_bytes(
            svg_string=svg,
            zoom=float(scale) if scale != 1 else None,
            font_files=list(fonts) or None,
            skip_system_fonts=bool(fonts),
            # every generic family falls back to the fonts we load
            font_family="DejaVu Sans",
            serif_family="DejaVu Sans",
            sans_serif_family="DejaVu Sans",
            monospace_family="DejaVu Sans Mono",
        )
    )


def png_to_rgb(png: bytes) -> np.ndarray:
    """A PNG as a ``(height, width, 3)`` uint8 array (over white where it is transparent)."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as opened:
        image = opened.convert("RGBA")
        background = Image.new("RGBA", image.size, (255, 255, 255, 255))
        return np.asarray(Image.alpha_composite(background, image).convert("RGB"))


def svg_to_rgb(svg: str, scale: float = 1.0) -> np.ndarray:
    return png_to_rgb(svg_to_png(svg, scale))


@functools.cache
def _font_files() -> tuple[str, ...]:
    """matplotlib's DejaVu Sans files (and DejaVu Sans Mono, for the text picture's board),
    found without importing matplotlib (empty if absent: resvg then uses the system's fonts)."""
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or spec.origin is None:
        return ()
    folder = Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf"
    return tuple(
        str(folder / name)
        for name in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf")
        if (folder / name).is_file()
    )
