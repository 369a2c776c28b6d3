"""The documentation site: it builds strictly (a broken link or docstring reference fails
here), every game, agent family and training method has its page, each game page its
animation, every README link into the site resolves, and the options tables say what
``--help`` says."""

from __future__ import annotations

import contextlib
import io
import re
import shutil
import threading
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from boardgym.agents.registry import read_spec
from boardgym.cli import command_options, main
from boardgym.cli.docs import (
    ROOT,
    agent_families,
    build_site,
    expand_markers,
    option_rows,
    rst_to_markdown,
    site_server,
    spec_keys,
)
from boardgym.games import GAMES
from boardgym.train import METHODS
from boardgym.types import BoardgymError

pytest.importorskip("mkdocs", reason='the site needs the docs extra: pip install -e ".[docs]"')

README = (ROOT / "README.md").read_text()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site as `boardgym docs` builds it (strictly), once for this module."""
    return build_site(None, tmp_path_factory.mktemp("docs") / "site")


def page(site: Path, source: str) -> Path:
    """The built HTML of a page by its source path (``games/hex.md``, ``games/index.md``)."""
    stem = source.removesuffix(".md")
    if stem == "index" or stem.endswith("/index"):
        stem = stem.removesuffix("index").rstrip("/")
    return site / stem / "index.html"


def test_every_game_page_shows_an_animation_of_a_game(site: Path) -> None:
    from PIL import Image

    for name in GAMES:
        html = page(site, f"games/{name}.md").read_text()
        assert f'src="../{name}.gif"' in html, f"games/{name}: no animation on the page"
        assert "Manual" in html and "Parameters" in html and "Actions at the start" in html
        with Image.open(site / "games" / f"{name}.gif") as gif:
            assert gif.format == "GIF" and gif.n_frames > 2, f"games/{name}.gif is not an animation"


def test_every_agent_family_and_method_has_its_page_with_its_options(site: Path) -> None:
    for first in agent_families():
        html = page(site, f"agents/{first}.md").read_text()
        for key in spec_keys(first):
            assert f"<code>{key.name}</code>" in html, f"agents/{first}: spec key {key.name} missing"
    for name in METHODS:
        html = page(site, f"training/{name}.md").read_text()
        classes = [cls for words, cls in command_options() if words == ["train", name]]
        for row in option_rows(classes[0]):
            assert row.flag.split()[0].split(",")[0] in html, f"training/{name}: option {row.flag} missing"


def test_no_marker_is_left_and_the_generated_pages_are_there(site: Path) -> None:
    for html in site.rglob("*.html"):
        assert "<!-- boardgym:" not in html.read_text(), f"{html}: a marker was not expanded"
    assert "Changelog" in page(site, "changelog.md").read_text()
    api = page(site, "api/games.md").read_text()
    assert "boardgym.games.make_game" in api and "boardgym.game.Game" in api
    assert "Quick start" in page(site, "index.md").read_text()


def test_every_readme_link_resolves_in_the_repository_and_the_site(site: Path) -> None:
    targets = re.findall(r'(?:\]\(|src=")([^)"\s]+)', README)
    local = [target for target in targets if not re.match(r"https?://|#", target)]
    assert len(local) > 30
    for target in local:
        assert (ROOT / target.partition("#")[0]).is_file(), f"README links to {target}, which the repository lacks"
        if target == "CHANGELOG.md":
            target = "docs/changelog.md"  # the site's changelog page is made from it
        assert target.startswith("docs/"), f"README links to {target}, which is not in the site: link into docs/"
        path = target.removeprefix("docs/").partition("#")[0]
        built = page(site, path) if path.endswith(".md") else site / path
        assert built.is_file(), f"README links to {target}, which the site does not have"


def test_the_site_drops_what_only_the_repository_shows(site: Path) -> None:
    """The committed game, agent and method pages say on GitHub that the site generates the
    rest of them; the site shows the generated sections instead of that note."""
    source = (ROOT / "docs" / "games" / "hex.md").read_text()
    assert "repository-only" in source and "boardgym:game hex" in source
    built = page(site, "games/hex.md").read_text()
    assert "generates the rest of this page" not in built and "Manual" in built


def test_a_broken_link_fails_the_build(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\n[a page that is not there](missing.md)\n")
    (tmp_path / "mkdocs.yml").write_text("site_name: t\ndocs_dir: docs\n")
    with pytest.raises(BoardgymError, match="did not build.*missing.md"):  # the error names the link
        build_site(tmp_path / "mkdocs.yml", tmp_path / "site")


def test_the_site_configuration_is_strict() -> None:
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    assert config["strict"] is True and config["hooks"] == ["docs/hooks.py"]
    assert set(config["validation"].values()) == {"warn"}  # warnings fail a strict build
    assert {"omitted_files", "anchors", "not_found", "unrecognized_links"} <= set(config["validation"])


def test_the_api_signatures_are_formatted(site: Path) -> None:
    """mkdocstrings formats a signature with Black or Ruff where one is installed: the docs
    extra brings ruff, so a long signature shows one parameter a line, as ruff writes it."""
    import html
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(dep.startswith(("ruff", "black")) for dep in extras["docs"])
    signatures = [
        html.unescape(re.sub(r"<[^>]+>", "", found))
        for path in (site / "api").rglob("index.html")
        for found in re.findall(r'class="doc-signature highlight"><pre>(.*?)</pre>', path.read_text(), flags=re.S)
    ]
    assert len(signatures) > 100
    split = [text for text in signatures if text.strip().count("\n") > 1]
    assert split and all(line.startswith("    ") for text in split for line in text.strip().splitlines()[1:-1])


def _help(words: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        main([*words, "--help"])
    return out.getvalue()


def _bare(text: str) -> str:
    """Text without its whitespace: argparse wraps help lines, at hyphens too."""
    return "".join(text.split())


@pytest.mark.parametrize("words", [words for words, _ in command_options()], ids=" ".join)
def test_the_options_table_says_what_help_says(words: list[str]) -> None:
    cls = dict((" ".join(w), c) for w, c in command_options())[" ".join(words)]
    raw = _help(words)
    shown = _bare(raw)
    rows = option_rows(cls)
    for row in rows:
        flag = row.flag.split(" / ")[0].split(", ")[-1].split()[0]
        assert flag in shown, f"boardgym {' '.join(words)}: {flag} is in the table, not in --help"
        assert _bare(row.help.replace("%%", "%")) in shown, f"{flag}: the table's help differs from --help"
        if row.default not in ("required", "(none)", "true", "false") and not row.flag.startswith("-p"):
            assert _bare(f"(default: {row.default})") in shown, f"{flag}: default {row.default} is not --help's"
    tabled = {part for row in rows for part in re.findall(r"--[a-z][a-z-]*", row.flag)}
    if any(row.flag.startswith("-p ") for row in rows):  # game parameters: -p, --param, --game-params
        tabled |= {"--param", "--game-params"}
    for flag in set(re.findall(r"^ {2}(?:-\w[ ,\w=]*?, )?(--[a-z][a-z-]*)", raw, flags=re.M)) - {"--help"}:
        assert flag in tabled or flag.removeprefix("--no-") in {t.removeprefix("--") for t in tabled}, (
            f"boardgym {' '.join(words)}: --help shows {flag}, the table does not"
        )


def test_the_agent_tables_list_the_keys_a_spec_takes() -> None:
    for first in agent_families():
        with pytest.raises(BoardgymError) as refused:
            read_spec(f"{first}:no_such_key=1")
        listed = set(re.findall(r"(\w+)=<(\w+)>", str(refused.value)))
        assert listed == {(key.name, key.type) for key in spec_keys(first)}, f"agent {first}: table and refusal differ"


def test_the_manuals_markup_becomes_markdown() -> None:
    text = "Intro::\n\n    code line\n      indented\n\nAfter ``x``.\n\n======  ====\nAgents  one\n        two\nB       three\n======  ====\n"
    markdown = rst_to_markdown(text)
    assert "Intro:\n\n```text\ncode line\n  indented\n```" in markdown
    assert "After `x`." in markdown
    assert "| Agents | one two |" in markdown and "| B | three |" in markdown


@pytest.mark.parametrize(
    "marker",
    [
        "<!-- boardgym:game chess -->",
        "<!-- boardgym:agent nope -->",
        "<!-- boardgym:options train nope -->",
        "<!-- boardgym:list boards -->",
        "<!-- boardgym:tables games -->",
    ],
)
def test_a_marker_that_names_nothing_is_refused_in_one_sentence(marker: str) -> None:
    with pytest.raises(BoardgymError) as refused:
        expand_markers(f"# A page\n\n{marker}\n", "guides/page.md")
    assert "\n" not in str(refused.value) and marker.split()[1].split(":")[1] in str(refused.value)


def test_boardgym_docs_refuses_a_missing_configuration_in_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["docs", "--no-serve", "--config", str(tmp_path / "none.yml")]) == 2
    error = capsys.readouterr().err
    assert "no site configuration" in error and "none.yml" in error and error.count("\n") == 1


def test_the_server_serves_the_built_site(site: Path) -> None:
    server = site_server(site, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/games/hex/", timeout=10) as response:
            assert response.status == 200 and b"hex.gif" in response.read()
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


# -- the game pages and the games' index ----------------------------------------------------------
def test_every_game_page_shows_the_code_that_makes_its_envs(site: Path) -> None:
    from boardgym.cli.docs_games import env_snippet

    for name in GAMES:
        html = page(site, f"games/{name}.md").read_text()
        assert "In code" in html and "make_vec" in html and "make" in html, f"games/{name}"
        assert "Computer players" in html or not (GAMES[name].heuristics or GAMES[name].ladder)
        assert not re.search(r"<h2[^>]*>Agents", html), f"games/{name}: 'Agents' is PettingZoo's word for seats"
        exec(compile(env_snippet(name), f"<games/{name} snippet>", "exec"), {})  # runs as shown


def test_the_games_index_shows_a_picture_of_each_game(site: Path) -> None:
    from PIL import Image

    html = page(site, "games/index.md").read_text()
    for name in GAMES:
        assert f'src="../{name}.png"' in html or f'src="{name}.png"' in html, f"games index: no picture of {name}"
        with Image.open(site / "games" / f"{name}.png") as picture:
            assert picture.format == "PNG" and picture.width > 100


# -- wide content at 1280 pixels ------------------------------------------------------------------
CLIPPED = """() => {
  const column = document.querySelector('.md-content');
  if (!column) return [];
  const right = column.getBoundingClientRect().right + 1;
  const scrolls = (node) => ['auto', 'scroll'].includes(getComputedStyle(node).overflowX);
  const found = [];
  for (const element of column.querySelectorAll('table, pre > code')) {
    const what = `${element.tagName} "${element.textContent.trim().slice(0, 30)}"`;
    const overflows = element.scrollWidth > element.clientWidth + 1 || element.getBoundingClientRect().right > right;
    if (!overflows) continue;
    let box = element;  // the nearest box within the page's column that scrolls its content
    while (box !== column && !(scrolls(box) && box.getBoundingClientRect().right <= right)) box = box.parentElement;
    if (box === column) { found.push(`${what}: wider than the page, and nothing scrolls it`); continue; }
    if (box.scrollWidth > box.clientWidth + 1) {
      const style = getComputedStyle(box);
      if (box.offsetHeight - box.clientHeight <= 0 || style.scrollbarWidth !== 'auto')
        found.push(`${what}: scrolls with no full-size scroll bar (${style.scrollbarWidth})`);
      if (!style.backgroundImage.includes('gradient'))
        found.push(`${what}: scrolls with no shadow at the hidden edge (a scroll bar may show only while scrolling)`);
    }
  }
  return found;
}"""
"""Every table and code block of a page that is wider than its room: inside a box that scrolls
it, within the page's column, with a full-size scroll bar and a shadow at the hidden edge
(where scroll bars show only while scrolling, the shadow is what says the content goes on)."""


@pytest.fixture(scope="module")
def browser_page(site: Path) -> Any:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("no Chromium: apt-get install chromium (the browser tests need it)")
    server = site_server(site, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with sync_api.sync_playwright() as playwright:
            # the scroll bars as a desktop draws them (headless Chromium hides them by default)
            browser = playwright.chromium.launch(
                executable_path=chromium, args=["--no-sandbox"], ignore_default_args=["--hide-scrollbars"]
            )
            view = browser.new_page(viewport={"width": 1280, "height": 900})
            view.base_url = f"http://127.0.0.1:{server.server_address[1]}/"
            yield view
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def clipped_on(view: Any, path: str) -> list[str]:
    view.goto(view.base_url + path, wait_until="load")
    return [f"{path or 'home'}: {what}" for what in view.evaluate(CLIPPED)]


def test_the_wide_tables_and_code_the_issue_found_scroll_at_1280_px(browser_page: Any) -> None:
    for path in ("", "guides/batched/", "guides/bring-your-model/"):
        assert not clipped_on(browser_page, path)


@pytest.mark.slow
def test_no_page_clips_a_table_or_a_code_block_at_1280_px(site: Path, browser_page: Any) -> None:
    pages = sorted(p.parent.relative_to(site).as_posix() for p in site.rglob("index.html"))
    assert len(pages) > 50
    clipped = [what for path in pages for what in clipped_on(browser_page, "" if path == "." else f"{path}/")]
    assert not clipped, "\n".join(clipped)
