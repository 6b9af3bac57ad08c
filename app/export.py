"""Standalone HTML files of the explorer's figures: interactive with no server and no network.

``python -m app.export OUTDIR`` writes ``OUTDIR/<page>-<figure>.html`` for every
figure listed in :data:`SPECS`, and ``OUTDIR/index.html`` linking them. Each
file holds one figure (plot, readout, caption, formula) and *one* control, its
main one. Panel's ``save(embed=True)`` precomputes the figure for each value of
that control; the browser swaps the precomputed states, so nothing runs in
Python once the file is written. The other controls are fixed at the page's
defaults (listed under the figure).

The states are chosen per figure (:class:`ExportSpec`), never by Panel's
``max_opts`` (its default, 3, turns a 0…63 slider into 4 states): the widget is
a ``DiscreteSlider`` (or buttons, or a select) whose options *are* the
precomputed values, so the reader can only pick a value that exists.

No request leaves the file. Bokeh's, Panel's and KaTeX's code is inline
(``resources=INLINE``), but a plain ``save`` still links five stylesheets on
the HoloViz CDN (Panel's ``loading.css``, ``listpanel.css``, ``katex.css`` and
the design's ``default.css``/``native.css``) plus a favicon and a touch icon:
:func:`make_self_contained` turns each linked stylesheet into an inline one
holding the text of Panel's installed copy (in the document and in every
recorded state), the template is told to write a ``data:`` favicon, and the
result is checked for any tag that still loads from another host.

The files use Panel's plain (Native) design, like the app's ``embed=1`` views
(:class:`app.theme.OfflineNative`: with the accessibility sheet, and the
accessibility script inlined): the Fast design takes its colours from
JavaScript modules that only its templates start. Widgets inside a figure
that need Python (buttons, a download) are left out: they could do nothing
without a server.

Usage::

    python -m app.export OUTDIR                      # every figure
    python -m app.export OUTDIR --only rope:pair,alibi   # a figure, or a whole page
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
import param
from bokeh.resources import INLINE

from .cards import figure_card
from .look import FONT_STACK, escape_text
from .main import PAGES, TITLE
from .page import Page
from .standalone import make_self_contained, with_page_scripts
from .theme import OfflineNative

__all__ = ["SPECS", "ExportResult", "ExportSpec", "export", "export_figure", "main"]

#: A file larger than this is reported (and fails the command): documentation
#: pages should stay light.
MAX_BYTES = 5 * 1024 * 1024


@dataclass(frozen=True)
class ExportSpec:
    """One exported figure: which control the reader moves, and its precomputed values."""

    page: str
    figure: str
    #: The page parameter the file's only control sets.
    control: str
    #: Its values, in the order the control shows them (every one is precomputed).
    values: tuple[Any, ...]
    #: Widget: ``"slider"`` (numbers), ``"buttons"`` or ``"select"``.
    widget: str = "slider"
    #: Which of the figure's ``extras`` to keep, by position; by default every
    #: one without a widget in it (a button or a download needs a server).
    extras: tuple[int, ...] | None = None

    @property
    def name(self) -> str:
        return f"{self.page}:{self.figure}"

    @property
    def filename(self) -> str:
        return f"{self.page}-{self.figure}.html"


def _span(low: int, high: int, step: int = 1) -> tuple[int, ...]:
    return tuple(range(low, high + 1, step))


def _objects(page: str, control: str) -> tuple[Any, ...]:
    """Every value of a page's selector, in its declared order."""
    return tuple(PAGES[page].param[control].objects) if page in PAGES else ()


#: Sentences B of the Order figures (A stays "dog bites man").
_ORDER_B = ("man bites dog", "dog man bites", "bites dog man", "dog bites man", "a dog bites a man")

#: The exported figures. Main controls are chosen so the file tells the figure's
#: story with the defaults of everything else; states are every value of a small
#: range, or every option of a selector.
SPECS: tuple[ExportSpec, ...] = (
    # Order: the two sentences go through one attention head.
    ExportSpec("order", "inputs", "b", _ORDER_B, widget="select"),
    ExportSpec("order", "similarity", "b", _ORDER_B, widget="select"),
    ExportSpec("order", "permutation", "scheme", _objects("order", "scheme"), widget="buttons"),
    # Sinusoidal: position t over all n = 64 rows.
    ExportSpec("sinusoidal", "table", "t", _span(0, 63)),
    ExportSpec("sinusoidal", "clock", "t", _span(0, 63)),
    ExportSpec("sinusoidal", "similarity", "t", _span(0, 63)),
    ExportSpec("sinusoidal", "learned", "t", _span(0, 63)),
    # RoPE.
    # R1: only its identity with today's numbers; its buttons and their log need Python.
    ExportSpec("rope", "pair", "m", _span(0, 24), extras=(3,)),
    ExportSpec("rope", "distance", "base", _objects("rope", "base")),
    ExportSpec("rope", "decay", "base", _objects("rope", "base")),
    ExportSpec("rope", "angles", "pair", _span(0, 31)),
    ExportSpec("rope", "wavelengths", "pair", _span(0, 31)),
    ExportSpec("rope", "layouts", "layout", _objects("rope", "layout"), widget="buttons"),
    ExportSpec("rope", "mismatch", "layout", _objects("rope", "layout"), widget="buttons"),
    # Context extension (d = 128: 64 pairs).
    ExportSpec("extension", "schedule", "method", _objects("extension", "method"), "buttons"),
    ExportSpec("extension", "band", "pair", _span(0, 63)),
    ExportSpec("extension", "methods", "method", _objects("extension", "method"), "buttons"),
    # ALiBi (8 heads, 16 positions).
    ExportSpec("alibi", "slopes", "head", _span(1, 8)),
    ExportSpec("alibi", "matrix", "row", _span(0, 15)),
    ExportSpec("alibi", "weights", "row", _span(0, 15)),
    ExportSpec("alibi", "decay", "head", _span(1, 8)),
    # Relative biases.
    ExportSpec("relative", "buckets", "num_buckets", _span(4, 64, 4)),
    ExportSpec("relative", "bias", "head", _span(1, 12)),
    ExportSpec("relative", "shaw", "clip_k", _span(0, 16)),
    ExportSpec("relative", "nope", "nope_len", _span(2, 32, 2)),
    # Compare: the served length L′ over every choice.
    *(
        ExportSpec("compare", key, "target_len", _objects("compare", "target_len"))
        for key in ("learned", "sinusoidal", "rope", "alibi")
    ),
)


@dataclass
class ExportResult:
    spec: ExportSpec
    path: Path | None = None
    states: int = 0
    size: int = 0
    seconds: float = 0.0
    error: str | None = None

    @property
    def status(self) -> str:
        if self.error:
            return f"failed: {self.error}"
        if self.size > MAX_BYTES:
            return f"too big (> {MAX_BYTES // 2**20} MB)"
        return "ok"

    @property
    def ok(self) -> bool:
        return self.status == "ok"


# ------------------------------------------------------------------ the view
def _label(value: Any, names: dict[Any, str] | None = None) -> str:
    if names and value in names:
        return names[value]
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.6g}"
    return str(value)


def _value_names(p: param.Parameter) -> dict[Any, str]:
    """Display names of a selector's values (``objects={label: value}``), else ``{}``."""
    names = getattr(p, "names", None) or {}
    return {value: label for label, value in names.items()}


def _control(page: Page, spec: ExportSpec) -> pn.widgets.Widget:
    """The file's one control: its options are exactly the precomputed values."""
    p = page.param[spec.control]
    names = _value_names(p)
    options = {_label(v, names): v for v in spec.values}
    if len(options) != len(spec.values):
        raise ValueError(f"{spec.name}: two values of {spec.control} have the same label")
    current = getattr(page, spec.control)
    if current not in spec.values:
        raise ValueError(f"{spec.name}: the default {current!r} is not among the values")
    label = p.label or spec.control
    common = {"value": current, "sizing_mode": "stretch_width", "margin": (6, 12)}
    if spec.widget == "slider":
        widget = pn.widgets.DiscreteSlider(label=label, options=options, **common)
    elif spec.widget == "buttons":
        widget = pn.widgets.RadioButtonGroup(
            label=label, options=options, color="primary", variant="outline", **common
        )
    elif spec.widget == "select":
        widget = pn.widgets.Select(label=label, options=options, **common)
    else:
        raise ValueError(f"{spec.name}: unknown widget {spec.widget!r}")
    widget.param.watch(lambda event: page.set_state(**{spec.control: event.new}), "value")
    return widget


def _needs_python(obj: Any) -> bool:
    """True for a view with a widget in it (a button, a download): dead without a server."""
    viewable = pn.panel(obj)
    return bool(viewable.select(pn.widgets.Widget))


def _fixed_settings(page: Page, spec: ExportSpec, figure_controls: Iterable[str]) -> str:
    parts = []
    for name in figure_controls:
        if name == spec.control:
            continue
        p = page.param[name]
        value = _label(getattr(page, name), _value_names(p))
        parts.append(f"{escape_text(p.label or name)} = {escape_text(value)}")
    fixed = f" The other settings are fixed: {'; '.join(parts)}." if parts else ""
    label = escape_text(page.param[spec.control].label or spec.control)
    return (
        f'<p class="export-note">{TITLE}, page “{escape_text(page.title)}”. This file '
        f"holds {len(spec.values)} precomputed values of <em>{label}</em>.{fixed} "
        "Every setting is live in the explorer itself.</p>"
    )


_NOTE_CSS = f"""
.export-note {{ font-family: {FONT_STACK}; font-size: 0.85em; opacity: 0.8; margin: 0; }}
"""


def build_view(spec: ExportSpec) -> tuple[pn.viewable.Viewable, pn.widgets.Widget, Page]:
    """The exported layout of ``spec``'s figure, its one control and the (fresh) page."""
    page = PAGES[spec.page]()
    fig = page.figures[spec.figure]
    if spec.control not in page.control_names():
        raise ValueError(f"{spec.control!r} is not a control of page {spec.page!r}")
    control = _control(page, spec)
    if spec.extras is None:
        extras = tuple(x for x in fig.extras if not _needs_python(x))
    else:
        extras = tuple(fig.extras[i] for i in spec.extras if i < len(fig.extras))
        if any(_needs_python(x) for x in extras):
            raise ValueError(f"{spec.name}: a kept extra has a widget, which needs a server")
    fig = replace(fig, extras=extras)
    view = pn.Column(
        control,
        figure_card(fig),
        pn.pane.HTML(
            _fixed_settings(page, spec, fig.controls),
            stylesheets=[_NOTE_CSS],
            sizing_mode="stretch_width",
            margin=(0, 12, 8, 12),
        ),
        sizing_mode="stretch_width",
        styles={"max-width": "1000px"},
    )
    return view, control, page


# ------------------------------------------------------------------ exporting
def export_figure(spec: ExportSpec, outdir: Path) -> ExportResult:
    """Write ``spec``'s standalone file into ``outdir``; never raises (see ``error``)."""
    result = ExportResult(spec)
    start = time.perf_counter()
    try:
        buffer = StringIO()
        page = PAGES[spec.page]
        # The plain design with the accessibility sheet; the served app's
        # script URL is dropped (the file inlines the script below instead).
        with pn.config.set(design=OfflineNative, js_files={}):
            view, control, _ = build_view(spec)
            view.save(
                buffer,
                title=f"{page.title} · {spec.figure} — {TITLE}",
                resources=INLINE,
                embed=True,
                embed_states={control: list(spec.values)},
                max_states=len(spec.values),
                progress=False,
                # Defined, so the template writes no favicon/touch-icon links to
                # the CDN; a data: URL needs no request.
                template_variables={"app_favicon": "data:,", "apple_icon": ""},
            )
        page_html, states = make_self_contained(buffer.getvalue())
        page_html = with_page_scripts(page_html)
        if states != len(spec.values):
            raise ValueError(f"{states} of {len(spec.values)} states were recorded")
        result.path = outdir / spec.filename
        result.path.write_text(page_html, encoding="utf-8")
        result.size = result.path.stat().st_size
        result.states = states
    except Exception as err:  # one figure's failure must not stop the others
        result.error = f"{type(err).__name__}: {err}"
        traceback.print_exc(file=sys.stderr)
    result.seconds = time.perf_counter() - start
    return result


def select_specs(only: Sequence[str] | None = None) -> list[ExportSpec]:
    """The specs named by ``only`` (``page:figure`` or ``page``), all when empty."""
    specs = [s for s in SPECS if s.page in PAGES]
    if not only:
        return specs
    chosen: list[ExportSpec] = []
    for item in only:
        matches = [s for s in specs if item in (s.name, s.page)]
        if not matches:
            raise SystemExit(f"app.export: no figure {item!r} (see --list)")
        chosen.extend(m for m in matches if m not in chosen)
    return chosen


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


def export(outdir: Path | str, only: Sequence[str] | None = None) -> list[ExportResult]:
    """Export the figures (all, or those named in ``only``) into ``outdir``."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    results = [export_figure(spec, outdir) for spec in select_specs(only)]
    (outdir / "index.html").write_text(_index_html(results), encoding="utf-8")
    return results


def format_table(results: Sequence[ExportResult]) -> str:
    rows = [("figure", "states", "size", "time", "status")]
    for r in results:
        size = f"{r.size / 2**20:.2f} MB" if r.size else "-"
        rows.append((r.spec.name, str(r.states or "-"), size, f"{r.seconds:.1f} s", r.status))
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
    parser.add_argument("--list", action="store_true", help="list the figures and exit")
    args = parser.parse_args(argv)
    only = [item.strip() for item in args.only.split(",") if item.strip()]
    if args.list:
        for spec in select_specs(only):
            print(f"{spec.name:24} {spec.control} ({len(spec.values)} values) -> {spec.filename}")
        return 0
    if args.outdir is None:
        parser.error("OUTDIR is required")
    results = export(args.outdir, only)
    print(format_table(results))
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
