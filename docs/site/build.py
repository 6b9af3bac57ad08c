"""Build the example documentation site (MkDocs) with the explorer's figures.

    python docs/site/build.py OUTDIR [--explorer-url http://host:5006/app]

The static figures are exported (``python -m app.export``, libraries shared)
into a copy of the site's pages, then MkDocs builds the site into OUTDIR. The
built site opens from disk or from any static host; its live page needs the
explorer's server at ``--explorer-url`` (default: ``EXPLORER_URL``, else
``http://localhost:5006/app``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from mkdocs.commands.build import build
from mkdocs.config import load_config

from app.export import export, format_table

HERE = Path(__file__).resolve().parent
#: The figures the site's static page shows.
FIGURES = ("sinusoidal:table", "alibi:decay")


def build_site(outdir: Path, explorer_url: str | None = None) -> bool:
    """Export the figures and build the site into ``outdir``; False if a figure failed."""
    if explorer_url:
        os.environ["EXPLORER_URL"] = explorer_url
    with tempfile.TemporaryDirectory() as staging:
        pages = Path(staging) / "docs"
        shutil.copytree(HERE / "docs", pages)
        results = export(pages / "figures", FIGURES)
        print(format_table(results))
        (pages / "figures" / "index.html").unlink()  # the site has its own pages
        config = load_config(
            str(HERE / "mkdocs.yml"), docs_dir=str(pages), site_dir=str(Path(outdir).resolve())
        )
        build(config)
    return all(r.ok for r in results)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python docs/site/build.py", description=__doc__)
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--explorer-url", default=None)
    args = parser.parse_args(argv)
    return 0 if build_site(args.outdir, args.explorer_url) else 1


if __name__ == "__main__":
    sys.exit(main())
