"""The pattern every page follows: a ``pn.viewable.Viewer`` whose parameters are its controls.

A page subclass declares

- its controls as ``param`` parameters (bounds, ``doc=``, ``label=``; declared
  once, the widgets are built from them by :meth:`Page.controls`);
- ``widget_specs``: only *which* widget type draws a parameter and whether it
  is throttled (never bounds or options: those come from the parameter);
- :meth:`Page.constrain`: the rules that tie parameters together (``t < n``)
  as a pure function of a values dict, :attr:`Page.even`: the controls kept
  even, and :meth:`Page.dynamic_bounds`: the bounds that follow from other values;
- :attr:`Page.consistent_on`: the controls whose change can break a rule (the
  page re-applies its rules when one moves);
- :attr:`Page.charts`: its figures by name, in reading order, each one
  :class:`app.chart.Chart` (built once per page, changed in place; a chart
  that asks a question has its quick check under its card).

The shell (``main.py``) puts :meth:`controls` in the sidebar and :meth:`content`
in the main area; ``page.__panel__()`` shows both, for use outside the shell.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar

import panel as pn
import param

from .cards import (
    Figure,
    Figures,
    QuickCheck,
    card_grid,
    figure_card,
    notice_pane,
    quick_check_card,
    readout_pane,
)
from .chart import Chart, choice_name
from .drawing import Drawing
from .respond import one_update, respond_at_once
from .selection import select_in_browser
from .urlstate import read_query, serialise_value
from .widgets import boxes_follow_bounds, value_widget

__all__ = ["Page"]


#: The page's title at 30 px: clearly above the cards' titles and the 16 px text.
_PAGE_HEADING_CSS = (
    "h2 { font-size: 1.875rem; line-height: 1.2; font-weight: 650; margin-block: 0.5em 0.1em; }"
)


class Page(pn.viewable.Viewer):
    """Base class of the app's pages (see the module docstring)."""

    #: Name in links (``?page=<slug>``) and the registry.
    slug: ClassVar[str] = ""
    #: Title in the navigation.
    title: ClassVar[str] = ""
    #: One or two sentences at the top of the page (trusted HTML).
    intro: ClassVar[str] = ""
    #: Widget type / throttling per parameter, for ``pn.Param``.
    widget_specs: ClassVar[dict[str, dict[str, Any]]] = {}
    #: The page's figures, by name, in reading order (app/chart.py).
    charts: ClassVar[dict[str, type[Chart]]] = {}
    #: Controls whose change can break a rule: the page re-applies its rules after one moves.
    consistent_on: ClassVar[tuple[str, ...]] = ()
    #: Controls kept even (rounded down, to at least their lower bound), each with
    #: the note that says so (``{value}``: the odd value; ``{even}``: the new one).
    even: ClassVar[dict[str, str]] = {}

    notes = param.List(
        default=[],
        item_type=str,
        precedence=-1,
        doc="Sentences shown in the page's notice: values from a link that were "
        "changed or ignored, and changes the page made to keep its settings consistent.",
    )

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        if self.consistent_on:
            # Precedence -1, as a ``param.depends(watch=True)`` method gets: the rules
            # run before any figure, readout or widget hears of the change, so those
            # only ever see consistent values.
            self.param._watch(self.keep_consistent, list(self.consistent_on), precedence=-1)
        self._apply(self.constrain(self._values())[0])
        # The notice describes the link the page was opened with; it goes
        # away as soon as the user moves a control.
        self.param.watch(self._forget_notes, self.control_names())
        #: Each chart on this page, by name.
        self.drawings: dict[str, Drawing] = {}
        #: > 0 while the server handles a choice control moved in the browser.
        self.choosing_in_browser = 0
        self._figures: Mapping[str, Figure] = self._build_figures()
        self._quick_checks: dict[str, QuickCheck] = self._build_quick_checks()
        self._controls: pn.viewable.Viewable | None = None
        self._content: pn.viewable.Viewable | None = None
        self._layout: pn.viewable.Viewable | None = None

    # ----------------------------------------------------------- parameters
    @classmethod
    def control_names(cls) -> list[str]:
        """The parameters shown as controls (and carried in links), in order."""
        return [
            name
            for name, p in cls.param.objects("existing").items()
            if name != "name" and (p.precedence is None or p.precedence >= 0)
        ]

    @classmethod
    def constrain(cls, values: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """Make ``values`` (all controls) consistent; say what changed.

        The base rules round the :attr:`even` controls down, then clamp each
        value to its :meth:`dynamic_bounds`. Subclasses add their own rules and
        call ``super()``.
        """
        fixed = dict(values)
        notes = cls.make_even(fixed)
        for name, (low, high) in cls.dynamic_bounds(fixed).items():
            value = fixed[name]
            clamped = min(max(value, low), high)
            if clamped != value:
                label = cls.param[name].label or name
                limit = f"below {low:,}" if clamped == low else f"past {high:,}"
                notes.append(f"{label} {value:,} is {limit}; set to {clamped:,}.")
                fixed[name] = clamped
        return fixed, notes

    @classmethod
    def make_even(cls, fixed: dict[str, Any]) -> list[str]:
        """Round the :attr:`even` controls of ``fixed`` down to even, in place; their notes.

        :meth:`constrain` does this first; a page whose own rules need the even
        value calls it before them.
        """
        notes: list[str] = []
        for name, note in cls.even.items():
            value = fixed[name]
            if value % 2:
                fixed[name] = max(cls.param[name].bounds[0], value - 1)
                notes.append(note.format(value=value, even=fixed[name]))
        return notes

    @classmethod
    def dynamic_bounds(cls, values: Mapping[str, Any]) -> dict[str, tuple[Any, Any]]:
        """Bounds that depend on other values, e.g. ``{"t": (0, n - 1)}``."""
        return {}

    def link_values(self) -> dict[str, str]:
        """The values a link needs to reopen this page as it is."""
        return {n: serialise_value(getattr(self, n)) for n in self.control_names()}

    def on_link_change(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` after any change of what :meth:`link_values` returns."""
        self.param.watch(lambda *_: callback(), self.control_names())

    def _values(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.control_names()}

    def _apply(self, values: Mapping[str, Any]) -> None:
        """Set consistent ``values`` in one ``param.update``, moving dependent bounds.

        Bounds are first widened to cover both the old and the new value (so
        the update is valid whatever the order), then narrowed to their final
        range once the values are in place.
        """
        final = self.dynamic_bounds(values)
        for name, (low, high) in final.items():
            old_low, old_high = self.param[name].bounds
            self.param[name].bounds = (min(low, old_low), max(high, old_high))
        changed = {k: v for k, v in values.items() if getattr(self, k) != v}
        if changed:
            # One hold for all the figures a link (or a rule) changes, as for a
            # widget (respond_at_once): Bokeh walks the model graph once.
            with one_update():
                self.param.update(changed)
        for name, bounds in final.items():
            if self.param[name].bounds != bounds:
                self.param[name].bounds = bounds

    def _forget_notes(self, *_events: param.parameterized.Event) -> None:
        if self.notes:
            self.notes = []

    def keep_consistent(self, *_events: param.parameterized.Event) -> None:
        """Re-apply :meth:`constrain` after one of :attr:`consistent_on` moved."""
        fixed, _ = self.constrain(self._values())
        self._apply(fixed)

    def set_state(self, **values: Any) -> list[str]:
        """Set several controls at once, in any order, made consistent first.

        ``page.param.update(n=200, t=150)`` can fail because ``t``'s bound
        still follows the old ``n`` while the values are set; this applies
        the page's rules (and moves dependent bounds) before setting anything.
        Returns the notes of what the rules changed.
        """
        unknown = sorted(set(values) - set(self.control_names()))
        if unknown:
            raise ValueError(f"not a control of {type(self).__name__}: {', '.join(unknown)}")
        fixed, notes = self.constrain({**self._values(), **values})
        self._apply(fixed)
        return notes

    def apply_query(self, query: Mapping[str, Any]) -> list[str]:
        """Set the controls from a link; return (and show) what was changed.

        Values are validated against the parameters' bounds and the page's
        rules *before* anything is set; unusable values are ignored.
        """
        names = self.control_names()
        first = read_query(type(self).param, query, names)
        # Read again with the bounds that follow from the values just read
        # (t < n), so a clamped value gets one note that names the real limit.
        dynamic = self.dynamic_bounds({**self._values(), **first.values})
        result = read_query(type(self).param, query, names, bounds=dynamic)
        merged = {**self._values(), **result.values}
        fixed, rule_notes = self.constrain(merged)
        self._apply(fixed)
        notes = result.notes + rule_notes
        self.notes = notes
        return notes

    # ----------------------------------------------------------------- views
    def _build_figures(self) -> Mapping[str, Figure]:
        """One figure per chart of :attr:`charts`, each built when first asked for (a
        lesson step shows one figure of its page; the others cost nothing)."""
        self.drawings = {name: Drawing(chart(), self) for name, chart in self.charts.items()}
        return Figures(list(self.drawings), lambda name: self._figure(self.drawings[name]))

    def _figure(self, drawing: Drawing) -> Figure:
        chart = drawing.chart
        readout = None
        if chart.readout_depends is not None:
            readout = readout_pane(
                pn.bind(lambda *_: chart.readout(self), *chart.readout_depends_on(self)),
                chart.readout_css,
            )
        order = self.control_names()
        return Figure(
            title=chart.title,
            plot=drawing.element(),
            caption=chart.caption,
            formula=chart.formula,
            controls=tuple(n for n in order if n in chart.controls()),
            readout=readout,
            extras=tuple(chart.extras(self)),
            linked_axes=False,
        )

    def _chart_choices(self) -> dict[tuple[str, ...], tuple[int, ...]]:
        return {g: s for d in self.drawings.values() for g, s in d.chart.choices().items()}

    def _build_quick_checks(self) -> dict[str, QuickCheck]:
        """The question of each chart that asks one, by figure."""
        checks = {}
        for name, drawing in self.drawings.items():
            chart = drawing.chart
            if chart.question:
                depends = [self.param[n] for n in chart.answer_depends]
                # A question about fixed numbers has one answer: text, not a reference.
                answer = (
                    pn.bind(lambda *_, c=chart: c.answer(self), *depends)
                    if depends
                    else chart.answer(self)
                )
                checks[name] = QuickCheck(question=chart.question, answer=answer, figure=name)
        return checks

    @property
    def figures(self) -> Mapping[str, Figure]:
        """The page's figures by name (each can be shown alone, e.g. for embedding)."""
        return self._figures

    @property
    def quick_check(self) -> QuickCheck | None:
        """The page's first quick check, in reading order."""
        return next(iter(self._quick_checks.values()), None)

    @property
    def quick_checks(self) -> dict[str, QuickCheck]:
        """Every quick check of the page, by the figure it asks about."""
        return self._quick_checks

    def figure_view(self, name: str) -> pn.viewable.Viewable:
        """One figure in its card, with the controls that drive it."""
        fig = self._figures[name]
        # Panel's default margin here (the sidebar's groups have none).
        controls = self.param_group(fig.controls, margin=(5, 10))
        return self.wire(pn.Column(controls, figure_card(fig), sizing_mode="stretch_width"))

    def param_group(self, names: Iterable[str], **opts: Any) -> pn.Param:
        """The widgets of the controls ``names``, drawn as :attr:`widget_specs` says."""
        names = list(names)
        widgets = {n: self.widget_specs[n] for n in names if n in self.widget_specs}
        opts = {"show_name": False, "sizing_mode": "stretch_width", "margin": 0, **opts}
        pane = pn.Param(self.param, parameters=names, widgets=widgets, **opts)
        boxes_follow_bounds(pane)
        return pane

    def controls(self) -> pn.viewable.Viewable:
        """The page's controls: :meth:`control_items` in a column (built once)."""
        if self._controls is None:
            items = self.control_items()
            self._controls = pn.Column(*items, sizing_mode="stretch_width", margin=0)
        return self._controls

    def control_items(self) -> list[Any]:
        """What the controls show, top to bottom (by default a widget per control)."""
        return [self.param_group(self.control_names())]

    def wire(self, view: pn.viewable.Viewable) -> pn.viewable.Viewable:
        """Make ``view``'s widgets answer at once, and select in the browser where they can."""
        respond_at_once(view)
        widgets: dict[str, list[pn.widgets.Widget]] = {}
        for pane in view.select(pn.Param):
            for name, widget in pane._widgets.items():
                widgets.setdefault(name, []).append(value_widget(widget))
        for controls, strides in self._chart_choices().items():
            found = [widgets.get(name, []) for name in controls]
            # Each copy of the controls (sidebar, one figure's view) is linked as a set.
            for group in zip(*found, strict=False):
                named = dict(zip(controls, group, strict=True))
                for widget in group:
                    select_in_browser(self, widget, choice_name(self, controls), strides, named)
        return view

    def _extra_controls(self) -> list[Any]:
        """Anything the sidebar shows under the parameter widgets (buttons, notes)."""
        return []

    def preset_buttons(
        self,
        intro: str,
        presets: Mapping[str, Mapping[str, Any] | Callable[[], Mapping[str, Any]]],
        layout: type[pn.layout.ListPanel] = pn.Column,
        margin: tuple[int, int] = (2, 4),
    ) -> list[Any]:
        """``intro``, then one button per real model (label → the values it sets
        with :meth:`set_state`, or a function that returns them when clicked)."""
        buttons = []
        for label, values in presets.items():
            widget = pn.widgets.Button(
                label=label, color="light", sizing_mode="stretch_width", margin=margin
            )
            widget.on_click(lambda _event, v=values: self.set_state(**(v() if callable(v) else v)))
            buttons.append(widget)
        return [
            pn.pane.Markdown(intro, margin=(8, 10, 0, 10)),
            layout(*buttons, sizing_mode="stretch_width"),
        ]

    def sidebar(self) -> pn.viewable.Viewable:
        return self.wire(
            pn.Column(self.controls(), *self._extra_controls(), sizing_mode="stretch_width")
        )

    def _arrange(self, cards: list[pn.viewable.Viewable]) -> pn.viewable.Viewable:
        """How the figure cards are laid out (two columns by default)."""
        return card_grid(*cards)

    def content(self) -> pn.viewable.Viewable:
        """Intro, notice, figures, each quick check under its figure (built once)."""
        if self._content is None:
            checks = self._quick_checks
            cards = [
                figure_card(fig, [quick_check_card(checks[name])] if name in checks else [])
                for name, fig in self._figures.items()
            ]
            self._content = pn.Column(
                # The page's heading: level 2 under the site's title, above the
                # figure cards' level-3 titles (a screen reader's outline has no gap).
                pn.pane.HTML(
                    f"<h2>{html.escape(self.title)}</h2>",
                    stylesheets=[_PAGE_HEADING_CSS],
                    sizing_mode="stretch_width",
                    margin=(0, 10),
                ),
                pn.pane.HTML(f"<p>{self.intro}</p>", sizing_mode="stretch_width", margin=(0, 10)),
                notice_pane(self.param.notes, kind="warning", title="Some settings were changed:"),
                self._arrange(cards),
                sizing_mode="stretch_width",
            )
            self.wire(self._content)
        return self._content

    def __panel__(self) -> pn.viewable.Viewable:
        if self._layout is None:
            self._layout = pn.Row(
                pn.Column(self.sidebar(), width=300),
                self.content(),
                sizing_mode="stretch_width",
            )
        return self._layout
