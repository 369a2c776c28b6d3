"""The site's build hooks (mkdocs.yml names this file): the generated pages, the GIFs and the
tables come from ``boardgym.cli.docs``."""

from boardgym.cli.docs import hook_on_config as on_config
from boardgym.cli.docs import hook_on_files as on_files
from boardgym.cli.docs import hook_on_page_markdown as on_page_markdown

__all__ = ["on_config", "on_files", "on_page_markdown"]
