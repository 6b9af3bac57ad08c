"""Standalone HTML files of the explorer's figures: interactive with no server and no network.

``python -m app.export OUTDIR`` writes ``OUTDIR/<page>-<figure>.html`` for every
figure listed in :data:`SPECS` (``app/export_specs.py``), and ``OUTDIR/index.html``
linking them. Each file holds one figure (plot, readout, caption, formula) and
the controls its spec keeps. Panel's ``save(embed=True)`` precomputes the
figure for every combination of their values; the browser swaps the
precomputed states, so nothing runs in Python once the file is written. The
other controls are fixed at the page's defaults, and a note under the figure
says what the copy moves and what it fixes.

The states are chosen per figure (:class:`ExportSpec`), never by Panel's
``max_opts`` (its default, 3, turns a 0…63 slider into 4 states): the widget is
a ``DiscreteSlider`` (or buttons, or a select) whose options *are* the
precomputed values, so the reader can only pick a value that exists.

No request leaves the export: Bokeh's, Panel's and KaTeX's code is written
with it (``resources=INLINE``), :func:`app.standalone.make_self_contained`
inlines the stylesheets a plain ``save`` still links on the HoloViz CDN and
refuses anything else from another host, and the template writes a ``data:``
favicon. That code is 3.2 MB; by default it goes once into ``OUTDIR/lib/``
(:func:`app.standalone.share_libraries`), which every figure loads by a
relative URL, so a figure file holds only its document and states. With
``--single-file`` each file keeps its own copy and needs nothing beside it.

The files use the plain design of the app's ``embed=1`` views (see
:mod:`app.main`), with the accessibility script inlined. Widgets inside a
figure that need Python (buttons, a download) are left out: they could do
nothing without a server.

Usage::

    python -m app.export OUTDIR                      # every figure
    python -m app.export OUTDIR --only rope:pair,alibi   # a figure, or a whole page
    python -m app.export OUTDIR --single-file        # each file with its own libraries
    python -m app.export --list                      # what would be written
"""

from __future__ import annotations

import argparse
import html
import sys
import time
import traceback
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from io import StringIO
from pathlib import Path
from typing import Any

import panel as pn
from bokeh.resources import INLINE

from .cards import figure_card
from .export_specs import SPECS, ExportSpec, Grid, select_specs
from .look import FONT_STACK, escape_text
from .main import PAGES, TITLE
from .page import Page
from .standalone import make_self_contained, share_libraries, with_page_scripts
from .theme import OfflineNative
from .urlstate import shown_value

__all__ = ["SPECS", "ExportResult", "ExportSpec", "export", "export_figure", "main"]

#: A figure's file larger than this is reported (and fails the command):
#: documentation pages should stay light. With the libraries beside it, a file
#: is its document and states; on its own, it also carries 3.2 MB of libraries.
MAX_BYTES = 600 * 1024
MAX_SINGLE_FILE_BYTES = 5 * 1024 * 1024
#: The folder beside the figures that holds their shared libraries.
LIBRARIES = "lib"


@dataclass
class ExportResult:
    spec: ExportSpec
    path: Path | None = None
    states: int = 0
    size: int = 0
    seconds: float = 0.0
    error: str | None = None
    #: The size this file may have (its libraries beside it or inside).
    limit: int = MAX_BYTES

    @property
    def status(self) -> str:
        if self.error:
            return f"failed: {self.error}"
        if self.size > self.limit:
            return f"too big (> {self.limit / 2**20:.1f} MB)"
        return "ok"

    @property
    def ok(self) -> bool:
        return self.status == "ok"


# ------------------------------------------------------------------ the view
#: The control's widget by ``ExportSpec.widget``, with its own options.
_WIDGETS: dict[str, tuple[type[pn.widgets.Widget], dict[str, Any]]] = {
    "slider": (pn.widgets.DiscreteSlider, {}),
    "buttons": (pn.widgets.RadioButtonGroup, {"color": "primary", "variant": "outline"}),
    "select": (pn.widgets.Select, {}),
}


def _shown(page: Page, name: str, value: Any) -> str:
    """``value`` of control ``name`` as the page shows it (a selector's own names)."""
    names = getattr(page.param[name], "names", None) or {}
    return next((label for label, v in names.items() if v == value), None) or shown_value(value)


def _control(page: Page, spec: ExportSpec, grid: Grid) -> pn.widgets.Widget:
    """One control of the file: its options are exactly the precomputed values."""
    options = {_shown(page, grid.control, v): v for v in grid.values}
    if len(options) != len(grid.values):
        raise ValueError(f"{spec.name}: two values of {grid.control} have the same label")
    current = getattr(page, grid.control)
    if current not in grid.values:
        raise ValueError(f"{spec.name}: the default {current!r} is not among the values")
    if grid.widget not in _WIDGETS:
        raise ValueError(f"{spec.name}: unknown widget {grid.widget!r}")
    cls, own = _WIDGETS[grid.widget]
    widget = cls(
        label=page.param[grid.control].label,
        options=options,
        value=current,
        sizing_mode="stretch_width",
        margin=(6, 12),
        **own,
    )
    widget.param.watch(lambda event: page.set_state(**{grid.control: event.new}), "value")
    return widget


def _labelled(widget: pn.widgets.Widget) -> pn.viewable.Viewable:
    """``widget`` with its label shown (a button group draws none of its own)."""
    if not isinstance(widget, pn.widgets.RadioButtonGroup):
        return widget
    label = pn.pane.HTML(escape_text(widget.label), margin=(6, 12, 0, 12))
    return pn.Column(label, widget, sizing_mode="stretch_width", margin=0)


def _actions(spec: ExportSpec, controls: list[pn.widgets.Widget]) -> list[pn.Row]:
    """``spec``'s buttons, done in the browser by moving the first two sliders."""
    if not spec.actions:
        return []
    sliders = [w._composite[1] for w in controls[:2]]  # the index slider of each
    if len(sliders) != 2 or not all(isinstance(w, pn.widgets.DiscreteSlider) for w in controls[:2]):
        raise ValueError(f"{spec.name}: its buttons need two sliders")
    buttons = []
    for label, code in spec.actions:
        button = pn.widgets.Button(label=label, margin=(4, 12))
        button.js_on_click(args={"a": sliders[0], "b": sliders[1]}, code=code)
        buttons.append(button)
    return [pn.Row(*buttons, margin=(0, 0, 4, 0))]


def _needs_python(obj: Any) -> bool:
    """True for a view with a widget in it (a button, a download): dead without a server."""
    return bool(pn.panel(obj).select(pn.widgets.Widget))


def _whole(par: Any) -> int:
    """How many values a control has in the explorer (0: a continuous range)."""
    bounds = getattr(par, "bounds", None)
    if getattr(par, "objects", None):
        return len(par.objects)
    if isinstance(bounds, tuple) and isinstance(par.default, int) and None not in bounds:
        return (bounds[1] - bounds[0]) // (par.step or 1) + 1
    return 0


def _moves(spec: ExportSpec) -> str:
    """For the summary: each kept control, how much of its range, and how many are fixed."""
    page = PAGES[spec.page]()
    kept = []
    for grid in spec.grids:
        count, whole = len(grid.values), _whole(page.param[grid.control])
        of = "" if whole == count else f"/{whole:,}" if whole else " (sampled)"
        kept.append(f"{grid.control} {count}{of}")
    kept_names = {g.control for g in spec.grids}
    fixed = [c for c in page.figures[spec.figure].controls if c not in kept_names]
    return " × ".join(kept) + (f"; {len(fixed)} fixed" if fixed else "")


def _sampled(page: Page, grid: Grid) -> str:
    """``grid``'s control and how much of the page's range the file keeps."""
    par, label = page.param[grid.control], escape_text(page.param[grid.control].label)
    values = [escape_text(_shown(page, grid.control, v)) for v in grid.values]
    span = f"{values[0]} to {values[-1]}" if len(values) > 2 else " and ".join(values)
    whole = _whole(par)
    if whole and len(values) >= whole:
        return f"<em>{label}</em> (all {len(values)} values)"
    of = f" of {whole:,}" if whole else ""
    return f"<em>{label}</em> ({len(values)}{of} values, {span})"


def _note(page: Page, spec: ExportSpec, figure_controls: Iterable[str], dropped: bool) -> str:
    """What the static copy can do: the controls it keeps, sampled or whole, the fixed
    ones, and (``dropped``) that the figure's buttons are not in it."""
    kept = {g.control for g in spec.grids}
    fixed = [
        escape_text(f"{page.param[name].label} = {_shown(page, name, getattr(page, name))}")
        for name in figure_controls
        if name not in kept
    ]
    moves = "; ".join(_sampled(page, g) for g in spec.grids)
    rest = f" Fixed here: {'; '.join(fixed)}." if fixed else ""
    if spec.actions:
        rest += " Its buttons move the controls above, among the precomputed values."
    elif dropped:
        rest += " The figure's buttons need the explorer: they are left out here."
    return (
        f'<p class="export-note">{TITLE}, page “{escape_text(page.title)}”. This static '
        f"copy holds {spec.states:,} precomputed states; it moves {moves}.{rest} "
        "Every setting is live, over its whole range, in the explorer itself.</p>"
    )


_NOTE_CSS = f"""
.export-note {{ font-family: {FONT_STACK}; font-size: 0.85em; opacity: 0.8; margin: 0; }}
"""


def build_view(spec: ExportSpec) -> tuple[pn.viewable.Viewable, list[pn.widgets.Widget], Page]:
    """The exported layout of ``spec``'s figure, its controls and the (fresh) page."""
    page = PAGES[spec.page]()
    fig = page.figures[spec.figure]
    unknown = [g.control for g in spec.grids if g.control not in page.control_names()]
    if unknown:
        raise ValueError(f"not controls of page {spec.page!r}: {unknown}")
    controls = [_control(page, spec, grid) for grid in spec.grids]
    if spec.extras is None:
        extras = tuple(x for x in fig.extras if not _needs_python(x))
    else:
        extras = tuple(fig.extras[i] for i in spec.extras if i < len(fig.extras))
        if any(_needs_python(x) for x in extras):
            raise ValueError(f"{spec.name}: a kept extra has a widget, which needs a server")
    dropped = any(_needs_python(x) for x in fig.extras if x not in extras)
    fig = replace(fig, extras=extras)
    view = pn.Column(
        *(_labelled(w) for w in controls),
        *_actions(spec, controls),
        figure_card(fig),
        pn.pane.HTML(
            _note(page, spec, fig.controls, dropped),
            stylesheets=[_NOTE_CSS],
            sizing_mode="stretch_width",
            margin=(0, 12, 8, 12),
        ),
        sizing_mode="stretch_width",
        styles={"max-width": "1000px"},
    )
    return view, controls, page


# ------------------------------------------------------------------ exporting
def export_figure(spec: ExportSpec, outdir: Path, single_file: bool = False) -> ExportResult:
    """Write ``spec``'s standalone file into ``outdir`` (its libraries into
    ``outdir/lib``, or inside the file); never raises (see ``error``)."""
    result = ExportResult(spec, limit=MAX_SINGLE_FILE_BYTES if single_file else MAX_BYTES)
    start = time.perf_counter()
    try:
        buffer = StringIO()
        # The plain design with the accessibility sheet; the served app's
        # script URL is dropped (the file inlines the script below instead).
        with pn.config.set(design=OfflineNative, js_files={}):
            view, controls, page = build_view(spec)
            view.save(
                buffer,
                title=f"{page.title} · {spec.figure} — {TITLE}",
                resources=INLINE,
                embed=True,
                embed_states={w: list(g.values) for w, g in zip(controls, spec.grids, strict=True)},
                max_states=spec.states,
                progress=False,
                # Defined, so the template writes no favicon/touch-icon links to
                # the CDN; a data: URL needs no request.
                template_variables={"app_favicon": "data:,", "apple_icon": ""},
            )
        page_html, states = make_self_contained(buffer.getvalue())
        page_html = with_page_scripts(page_html)
        if not single_file:
            page_html = share_libraries(page_html, outdir / LIBRARIES)
        if states != spec.states:
            raise ValueError(f"{states} of {spec.states} states were recorded")
        result.path = outdir / spec.filename
        result.path.write_text(page_html, encoding="utf-8")
        result.size = result.path.stat().st_size
        result.states = states
    except Exception as err:  # one figure's failure must not stop the others
        result.error = f"{type(err).__name__}: {err}"
        traceback.print_exc(file=sys.stderr)
    result.seconds = time.perf_counter() - start
    return result


def _index_html(results: Sequence[ExportResult]) -> str:
    items = "".join(
        f'<li><a href="{r.spec.filename}">{escape_text(PAGES[r.spec.page].title)} · '
        f"{escape_text(r.spec.figure)}</a> ({r.states} states, {r.size / 2**20:.1f} MB)</li>"
        for r in results
        if r.ok
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<link rel="icon" href="data:,"><title>{TITLE}: figures</title></head>'
        f'<body style="font-family: {html.escape(FONT_STACK)}; margin: 2em">'
        f"<h1>{TITLE}: standalone figures</h1><ul>{items}</ul></body></html>\n"
    )


def export(
    outdir: Path | str, only: Sequence[str] | None = None, single_file: bool = False
) -> list[ExportResult]:
    """Export the figures (all, or those named in ``only``) into ``outdir``."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    results = [export_figure(spec, outdir, single_file) for spec in select_specs(only)]
    (outdir / "index.html").write_text(_index_html(results), encoding="utf-8")
    return results


def format_table(results: Sequence[ExportResult]) -> str:
    rows = [("figure", "moves (values/of the explorer's)", "states", "size", "time", "status")]
    for r in results:
        size = f"{r.size / 2**20:.2f} MB" if r.size else "-"
        states = str(r.states or "-")
        rows.append((r.spec.name, _moves(r.spec), states, size, f"{r.seconds:.1f} s", r.status))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(line.rstrip() for line in lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m app.export",
        description="Write one standalone, serverless HTML file per figure.",
    )
    parser.add_argument("outdir", nargs="?", type=Path, help="folder to write into")
    parser.add_argument(
        "--only",
        default="",
        help="comma-separated page:figure or page names (default: every figure)",
    )
    parser.add_argument(
        "--single-file",
        action="store_true",
        help="each file with its own copy of the libraries (3.2 MB more a file)",
    )
    parser.add_argument("--list", action="store_true", help="list the figures and exit")
    args = parser.parse_args(argv)
    only = [item.strip() for item in args.only.split(",") if item.strip()]
    if args.list:
        for spec in select_specs(only):
            moves = " × ".join(f"{g.control} ({len(g.values)})" for g in spec.grids)
            print(f"{spec.name:24} {moves} -> {spec.filename}")
        return 0
    if args.outdir is None:
        parser.error("OUTDIR is required")
    results = export(args.outdir, only, args.single_file)
    print(format_table(results))
    shared = sorted((args.outdir / LIBRARIES).glob("*")) if not args.single_file else []
    if shared:
        size = sum(f.stat().st_size for f in shared)
        print(f"Shared by every figure: {LIBRARIES}/, {len(shared)} files, {size / 2**20:.2f} MB")
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
