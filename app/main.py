"""Composition of the Positional Encoding Explorer: extension, page registry, template, URL state.

``panel serve app`` runs this file once per browser session; :func:`build_app`
builds everything that session owns (pages, widgets, URL writer), so no two
sessions share state. Pages are built on first visit.

For iframes (documentation), ``?page=<slug>&embed=1`` shows one page and
``?page=<slug>&figure=<name>&embed=1`` one figure with its controls, both
without the template's header, sidebar and navigation. They use Panel's plain
(Native) design with the accessibility sheet and script, like the static
export (:mod:`app.export`): the Fast design takes its colours from a
JavaScript provider that only its templates start.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import panel as pn
import param
from bokeh.core.validation import silence
from bokeh.core.validation.warnings import FIXED_SIZING_MODE

from .bokeh_defaults import keep_plain_defaults
from .cards import notice_pane
from .lesson import Lesson
from .look import FONT_STACK, OKABE_ITO
from .page import Page
from .pages.alibi import AlibiPage
from .pages.compare import ComparePage
from .pages.extension import ExtensionPage
from .pages.order import OrderPage
from .pages.relative import RelativePage
from .pages.rope import RopePage
from .pages.sinusoidal import SinusoidalPage
from .respond import links_where_the_page_changed, one_update, walk_the_graph_once
from .theme import OfflineFast, OfflineNative, css_served_here, without_mathjax
from .transport import send_without_delay
from .urlstate import TRUE_WORDS, UrlWriter, normalise_query

__all__ = ["PAGES", "AppShell", "build_app", "is_true"]

#: The accessibility script (app/static/a11y.js), relative to the app's URL.
A11Y_JS = "app/static/a11y.js"
#: Clips glyphs on Bokeh's overlay level to the frame (app/static/overlay.js).
OVERLAY_JS = "app/static/overlay.js"
#: The sidebar as a drawer, square figures fitted to a narrow window (app/static/narrow.js).
NARROW_JS = "app/static/narrow.js"

#: An embedded view tells the page framing it its height (app/static/embed.js).
EMBED_JS = "app/static/embed.js"
#: The lesson's ← / → keys press its Previous / Next buttons (app/static/lesson.js).
LESSON_JS = "app/static/lesson.js"

#: The presenter view's sizes, no toolbars, sidebar closed (app/static/present.js).
PRESENT_JS = "app/static/present.js"

#: Type sizes, a light header and sidebar, the drawer below 900 px (app/static/page.css).
PAGE_CSS = "app/static/page.css"

#: The header in the page's own colours, per theme (Panel's default is a heavy
#: accent-coloured bar): its background and text.
HEADER_COLOURS = {
    "default": {"header_background": "#ffffff", "header_color": "#1a1d21"},
    "dark": {"header_background": "#181818", "header_color": "#e5e5e5"},
}

# Everything the browser loads comes from this server (offline classrooms):
# Panel's and Bokeh's bundles are served from /static, KaTeX included. The
# accessibility script goes into every page, the template and the embedded views.
pn.extension(
    "katex",
    design=OfflineFast,
    js_files={
        "pex_a11y": A11Y_JS,
        "pex_overlay": OVERLAY_JS,
        "pex_lesson": LESSON_JS,
        "pex_embed": EMBED_JS,
    },
)
without_mathjax()
send_without_delay()
keep_plain_defaults()
links_where_the_page_changed()
# Bokeh warns that a 'fixed' plot has no width or height, but HoloViews sizes the
# square figures (R1, the clock faces) by their frame instead, which Bokeh lays
# out as asked: the warning is wrong for them, and it filled the log per session.
silence(FIXED_SIZING_MODE, True)

#: Python's collector thresholds for the server process (Python's own: 700, 10, 10).
GC_THRESHOLDS = (10_000, 10, 100)


def collect_garbage_less_often() -> None:
    """Run Python's cyclic garbage collector less often in the server.

    Each open session keeps ~50,000 objects alive (its models, plots and
    elements). With Python's thresholds a full collection, which walks every
    one of them while the server does nothing else, may start every ~70,000
    new objects, and a change or a page build makes hundreds of thousands.
    A full collection stalls every session of the process, and with many
    open sessions it runs often and long: ``python benchmarks/gc_pauses.py``
    (forty open sessions, 300 changes, ten new sessions) measures the pauses
    under both thresholds (docs/performance.md). Higher thresholds trade a
    little peak memory (garbage waits longer) for far fewer full collections.
    Closed sessions are still freed: Panel runs a full collection 5 s after
    discarding them.
    """
    if gc.get_threshold()[0] < GC_THRESHOLDS[0]:
        gc.set_threshold(*GC_THRESHOLDS)


collect_garbage_less_often()

#: The pages, in navigation order.
PAGES: dict[str, type[Page]] = {
    cls.slug: cls
    for cls in (
        OrderPage,
        SinusoidalPage,
        RopePage,
        ExtensionPage,
        AlibiPage,
        RelativePage,
        ComparePage,
    )
}
DEFAULT_PAGE = "order"
#: The guided lesson's slug: it leads through the topic pages' figures (app/lesson/).
LESSON = Lesson.slug
#: What the navigation offers: the lesson first, then the topic pages.
SLUGS = [LESSON, *PAGES]

TITLE = "Positional Encoding Explorer"
ABOUT = (
    "A transformer reads all words at once, so on its own it cannot tell "
    "<em>dog bites man</em> from <em>man bites dog</em>. This explorer shows, with "
    "live figures, the ways position is put back in: codes added to the input, "
    "rotations of queries and keys, and penalties on attention scores. Move a "
    "slider and every figure follows; the address bar always holds a link to "
    "what you see."
)


#: Sidebar headings are level 2 (under the title's level 1) drawn at the size of
#: a level 4, so a screen reader's outline has no gap.
_SIDEBAR_HEADING_CSS = "h2 { font-size: 1em; margin-block: 1.33em; }"


def _sidebar_heading(text: str) -> pn.pane.Markdown:
    return pn.pane.Markdown(f"## {text}", margin=(0, 10), stylesheets=[_SIDEBAR_HEADING_CSS])


def is_true(raw: str | None) -> bool:
    """A link's switch (``embed=1``): on for 1, true, yes, on."""
    return (raw or "").strip().lower() in TRUE_WORDS


class AppShell(param.Parameterized):
    """One session's navigation: which page is shown, and the link to it.

    Embedded (``embed=1``) the shell shows the page alone, or only the figure
    named by ``figure``; both keys stay in the link it writes.
    """

    page = param.Selector(default=DEFAULT_PAGE, objects=SLUGS, doc="The page shown.")

    def __init__(self, query: Mapping[str, Any] | None = None, **params: Any) -> None:
        query = normalise_query(query or {})
        notes: list[str] = []
        slug = query.get("page", DEFAULT_PAGE)
        if slug not in SLUGS:
            notes.append(f"There is no page {slug[:24]!r}; showing {PAGES[DEFAULT_PAGE].title}.")
            slug = DEFAULT_PAGE
        super().__init__(page=slug, **params)
        self._theme = query.get("theme") if query.get("theme") in {"default", "dark"} else None
        self._pages: dict[str, Page | Lesson] = {}
        self.url = UrlWriter()
        self.shell_notes = notes
        #: Shown without the template (``embed=1``), and then maybe one figure alone.
        self.embed = is_true(query.get("embed"))
        #: The presenter view (``present=1``): larger type, no toolbars (app/static/present.js).
        self.present = is_true(query.get("present"))
        name = query.get("figure") if self.embed else None
        self.figure = name if name in self.current.figures else None
        if name is not None and self.figure is None:
            notes.append(
                f"There is no figure {name[:24]!r} on the page {self.current.title}; "
                "showing the whole page."
            )
        self.sidebar_area = pn.Column(sizing_mode="stretch_width")
        self.main_area = pn.Column(sizing_mode="stretch_width")
        self.nav = pn.widgets.RadioButtonGroup.from_param(
            self.param.page,
            options={Lesson.title: LESSON, **{cls.title: slug for slug, cls in PAGES.items()}},
            orientation="vertical",
            color="primary",
            variant="outline",
            sizing_mode="stretch_width",
            name="",
        )
        self._show(query)

    def page_object(self, slug: str) -> Page | Lesson:
        """The session's instance of page ``slug`` (built on first use)."""
        if slug not in self._pages:
            page = Lesson(PAGES, self.present) if slug == LESSON else PAGES[slug]()
            page.on_link_change(self.write_url)
            self._pages[slug] = page
        return self._pages[slug]

    @property
    def theme(self) -> str:
        """The session's theme: ``"dark"`` when the link asks for it, else ``"default"``."""
        return self._theme or "default"

    @property
    def current(self) -> Page | Lesson:
        return self.page_object(self.page)

    def _show(self, query: Mapping[str, str] | None = None) -> None:
        page = self.current
        if query:
            page.apply_query(query)
        if self.figure is not None:
            self.sidebar_area.objects = []
            self.main_area.objects = [
                notice_pane(page.param.notes, kind="warning", title="Some settings were changed:"),
                page.figure_view(self.figure),
            ]
        else:
            self.sidebar_area.objects = [page.sidebar()]
            self.main_area.objects = [page.content()]
        self.write_url()

    @param.depends("page", watch=True)
    def _page_changed(self) -> None:
        # Building another page adds hundreds of models to the live document:
        # one message and one walk of the model graph, not one per figure.
        with one_update():
            self._show()

    def link_query(self) -> dict[str, str]:
        """The query that reopens this session's state."""
        page = self.current
        query = {"page": self.page, **page.link_values()}
        if self.figure is not None:
            query["figure"] = self.figure
        if self.embed:
            query["embed"] = "1"
        if self._theme:
            query["theme"] = self._theme
        if self.present:
            query["present"] = "1"
        return query

    def write_url(self) -> None:
        self.url.write(self.link_query())


@contextmanager
def _design(design: type) -> Iterator[None]:
    """Build with ``design``: for the rest of a served session, else only inside."""
    if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
        pn.config.design = design  # a session's own setting; others keep theirs
        yield
    else:
        with pn.config.set(design=design):
            yield


def _embedded(shell: AppShell) -> pn.Column:
    """The page (controls beside its figures) or one figure, with no template around it."""
    if shell.figure is not None:
        body: pn.viewable.Viewable = shell.main_area
    else:
        body = pn.Row(
            pn.Column(shell.sidebar_area, width=300), shell.main_area, sizing_mode="stretch_width"
        )
    return pn.Column(
        notice_pane(shell.shell_notes, kind="warning"),
        body,
        shell.url.view,
        sizing_mode="stretch_width",
    )


def _template(shell: AppShell) -> pn.template.FastListTemplate:
    """The full app: pages and controls in the sidebar, the page in the main area."""
    template = pn.template.FastListTemplate(
        title=TITLE,
        meta_viewport="width=device-width, initial-scale=1",
        sidebar=[
            _sidebar_heading("Pages"),
            shell.nav,
            pn.layout.Divider(),
            _sidebar_heading("Controls"),
            shell.sidebar_area,
            pn.layout.Divider(),
            pn.pane.HTML(f"<p>{ABOUT}</p>", sizing_mode="stretch_width", margin=(0, 10)),
            shell.url.view,
        ],
        main=[notice_pane(shell.shell_notes, kind="warning"), shell.main_area],
        design=OfflineFast,
        accent=OKABE_ITO["blue"],
        header_accent_base_color=OKABE_ITO["blue"],
        header_neutral_color=HEADER_COLOURS[shell.theme]["header_background"],
        **HEADER_COLOURS[shell.theme],
        font=FONT_STACK,
        main_layout=None,
        theme_toggle=True,
        sidebar_width=320,
        # No header spinner: Panel drives every template's busy indicator from
        # one process-wide flag (state.busy, state._indicators), so each change
        # in one session sent spinner on/off messages to every other open
        # session, and the list kept closed sessions' spinners. A change here
        # takes about as long as the spinner would show anyway.
        busy_indicator=None,
    )
    template.config.css_files.append(PAGE_CSS)
    template.config.js_files["pex_narrow"] = NARROW_JS
    template.config.js_files["pex_present"] = PRESENT_JS
    return template


def build_app(
    query: Mapping[str, Any] | None = None,
) -> pn.template.FastListTemplate | pn.Column:
    """Everything one session shows, built fresh for that session.

    The full app is a template; an embedded view (``embed=1``) a bare column.
    Either way ``.shell`` is the session's :class:`AppShell` (for tests and tools).
    """
    query = normalise_query(query or {})
    if is_true(query.get("embed")):
        with _design(OfflineNative):
            shell = AppShell(query)
            view = _embedded(shell)
    else:
        shell = AppShell(query)
        view = _template(shell)
    view.shell = shell
    # The link (possibly corrected from the one opened) is written once the
    # browser has the page, then after every change.
    pn.state.onload(shell.url.activate)
    return view


# Served, this file runs as a module of Bokeh's ``bokeh_app_<id>`` package (and
# ``pn.state.served`` inspects the call stack, ~0.1 s per session).
if __name__.startswith("bokeh_app"):
    # Bokeh re-collects the document's models each time a model is linked or
    # added while the session is built (a dozen walks of ~600 models); one at
    # the end is enough.
    with css_served_here(pn.state.curdoc), walk_the_graph_once(pn.state.curdoc):
        build_app(pn.state.session_args).servable(title=TITLE)
