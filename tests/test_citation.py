"""CITATION.cff: the fields GitHub's "Cite this repository" reads, at the package's version."""

from __future__ import annotations

import re
from pathlib import Path

import boardgym

ROOT = Path(__file__).resolve().parents[1]


def test_the_citation_file_names_the_package_at_its_version() -> None:
    text = (ROOT / "CITATION.cff").read_text()
    fields = dict(re.findall(r"^([a-z-]+): (.+)$", text, flags=re.M))
    assert fields["cff-version"] == "1.2.0" and fields["type"] == "software"
    assert fields["version"] == boardgym.__version__
    assert fields["title"].strip('"').startswith("boardgym") and "authors:\n  - name:" in text
    assert fields["license"] == "MIT" and re.fullmatch(r'"\d{4}-\d{2}-\d{2}"', fields["date-released"])
