"""E1 · Frequency schedule: one dot per pair, and which pairs leave their trained band."""

from __future__ import annotations

import csv
import io
from typing import Any

import holoviews as hv
import numpy as np
import panel as pn

from positional_core.extension import never_complete_turn, trained_max_angle, trained_turns
from positional_core.stretch import STATUS, reference_frequencies

from ...chart import KEY, Chart, Choices, Frame, Mark
from ...look import OKABE_ITO, escape_text, plot_opts
from ...marks import labels, ring, rule
from ...numbers import readable
from .shared import FREQUENCY, METHODS, PAIR, SERVED, sci_hover

#: Each status of :data:`positional_core.stretch.STATUS`: its legend label and colour
#: (magenta = unseen angles at L′).
STATUS_LABELS = {
    "turns": ("full turns within L", OKABE_ITO["grey"]),
    "in band": ("no full turn; in band at L′", OKABE_ITO["blue"]),
    "unseen": ("no full turn; unseen angles at L′", "#CC79A7"),
}
# E1's legend names the statuses present; its labels keep the width of the
# longest ("no full turn; unseen angles at L′", 15.7 em), so a new method
# lays nothing out again. On a phone that width is most of the frame and pushes
# the dots out of its left edge: there the labels wrap at 10.5 em instead.
_STATUS_ENTRY_CSS = """
.bk-item .bk-label { min-width: 16em; }
@media (max-width: 559px) {
  .bk-item .bk-label { min-width: 10.5em; max-width: 10.5em; white-space: normal; }
}
"""

_WAVELENGTH = hv.Dimension("wavelength", label="wavelength 2π/θᵢ (tokens, log scale)")
_COLUMNS = (
    "theta",
    "trained_max_angle",
    "target_max_angle_unscaled",
    "scaled_theta",
    "scaled_wavelength",
    "target_max_angle",
    "status",
    "excess",
)
_TOOLTIPS = [
    ("pair i", "@pair"),
    ("θᵢ (rad / token)", "@theta{custom}"),
    ("wavelength (tokens)", "@{wavelength}{0,0.0}"),
    ("max angle in training θᵢL (rad)", "@trained_max_angle{0.000}"),
    ("max angle at L′, no scaling (rad)", "@target_max_angle_unscaled{0.000}"),
    ("θ′ᵢ after the method", "@scaled_theta{custom}"),
    ("max angle at L′ after it (rad)", "@target_max_angle{0.000}"),
    ("… × the trained maximum", "@excess{0.000}"),
    ("status", "@status"),
]
_HOVER = {"@theta": sci_hover, "@scaled_theta": sci_hover}


def _pairs(fields: dict[str, str] | None = None, **style: Any) -> Mark:
    return Mark(
        hv.Scatter,
        (PAIR,),
        (_WAVELENGTH, *_COLUMNS),
        fields=fields or {},
        hover=_HOVER,
        style={"tools": ["hover"], "hover_tooltips": _TOOLTIPS, **style},
    )


def csv_text(table: dict[str, np.ndarray]) -> str:
    """The per-pair table as CSV: full precision, booleans as true/false."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(table)
    columns = [
        np.where(v, "true", "false") if v.dtype == bool else v.tolist() for v in table.values()
    ]
    writer.writerows(zip(*columns, strict=True))
    return out.getvalue()


class Schedule(Chart):
    title = "E1 · Frequency schedule: which pairs leave their trained band"
    caption = (
        "One dot per pair: how many tokens it takes to turn once (its wavelength). "
        "Pairs above the line L never complete a turn in training, so they have only "
        "seen a slice of the circle. Serve L′ tokens and those pairs reach angles "
        "never seen (magenta). A scaling method slows the pairs down: the diamonds "
        "are the new wavelengths. Set the scaling the checkpoint expects, and test "
        "at the length you will serve. The ring marks the pair drawn in E2."
    )
    formula = (
        r"$$\begin{gathered}\theta_i = b^{-2i/d},\quad "
        r"\lambda_i = \frac{2\pi}{\theta_i}"
        r",\quad \text{never a full turn: } \theta_i L < 2\pi \\"
        r"\text{unseen at } L':\ \theta_i L < 2\pi \ \text{and}\ \theta'_i L' > "
        r"\theta_i L\end{gathered}$$"
    )
    depends = FREQUENCY
    y_tick_room = 48
    marks = {  # noqa: RUF012
        **{
            status: _pairs(color=color, size=7, line_color=None)
            for status, (_label, color) in STATUS_LABELS.items()
        },
        "links": Mark(
            hv.Segments,
            (PAIR, _WAVELENGTH, "pair_to", "wavelength_to"),
            style={"color": OKABE_ITO["grey"], "line_width": 1, "line_alpha": 0.7},
        ),
        # The diamonds take their status' colour from a column of colours.
        "scaled": _pairs(
            {"color": "tint"}, marker="diamond", size=10, fill_alpha=0, line_width=1.5
        ),
        "lengths": rule("dashed", 1.2, hv.HLines),
        "length_text": labels(
            (PAIR, _WAVELENGTH), text_align="left", fields={"text_baseline": "baseline"}
        ),
        "ring": ring(hv.Points, (PAIR, _WAVELENGTH), width=2, tools=[], choice="pair"),
    }
    options = plot_opts(
        height=360,
        logy=True,
        legend_position="bottom_right",
        legend_opts={"stylesheets": [_STATUS_ENTRY_CSS]},
        xlabel=PAIR.label,
        ylabel=_WAVELENGTH.label,
    )
    readout_depends = FREQUENCY
    question = (
        "For the current d, base and trained length L: how many pairs never complete "
        "a full turn within the trained length?"
    )
    answer_depends = ("d", "base", "trained_len")

    def frame(self, p: Any) -> Frame:
        sch = p.schedule()
        L, T = sch.settings.trained_len, sch.settings.target_len
        table = sch.pair_table()
        columns = {k: table[k] for k in ("pair", "wavelength", *_COLUMNS[:-2])}
        columns["status"] = np.array([STATUS_LABELS[STATUS[k]][0] for k in sch.status])
        columns["excess"] = sch.excess
        moved = {k: v[sch.moved] for k, v in columns.items()}
        moved["wavelength"] = sch.scaled_wavelength[sch.moved]
        # Strings even when empty: Bokeh refuses a (float) array of no colours.
        tints = [STATUS_LABELS[STATUS[k]][1] for k in sch.status[sch.moved]]
        moved["tint"] = np.array(tints, dtype=object)
        by_status = {
            status: {k: v[sch.status == index] for k, v in columns.items()}
            for index, status in enumerate(STATUS)
        }
        wavelengths = np.concatenate([sch.wavelength, sch.scaled_wavelength])
        low, high = min(float(wavelengths.min()), L), max(float(wavelengths.max()), T)

        def chosen(pairs: np.ndarray) -> dict[str, Any]:
            return {"pair": pairs, "wavelength": sch.wavelength[pairs], KEY: pairs}

        return Frame(
            **by_status,
            links={
                "pair": moved["pair"],
                "wavelength": sch.wavelength[sch.moved],
                "pair_to": moved["pair"],
                "wavelength_to": moved["wavelength"],
            },
            scaled=moved,
            lengths={"y": [L, T]},
            length_text={
                "pair": [-0.5, -0.5],
                "wavelength": [L, T],
                "text": [f"trained L = {L:,}", f"target L′ = {T:,}" if T != L else ""],
                # L's label under its line when L′'s is drawn above: at L′ = 1.2 L
                # the two lines are a few pixels apart and the labels overlapped.
                "baseline": ["top", "bottom"] if T != L else ["bottom", "top"],
            },
            # A pair's wavelength depends on d and the base only.
            ring=Choices(np.arange(sch.n_pairs), chosen, version=(p.d, p.base)),
            labels={
                status: label if len(by_status[status]["pair"]) else ""
                for status, (label, _color) in STATUS_LABELS.items()
            },
            x=(-1, sch.n_pairs),
            y=(low / 2, high * 4),
        )

    def readout(self, p: Any) -> str:
        sch = p.schedule()
        s = sch.settings
        n, L, T = sch.n_pairs, s.trained_len, s.target_len
        text = (
            f"<b>{int(sch.never.sum())}</b> of {n} pairs never complete a turn within "
            f"L = {L:,} (wavelength above L). "
        )
        if T > L:
            served = (
                f" (its speeds as served at S = {s.served_len:,})"
                if s.method in SERVED and s.served_len != T
                else ""
            )
            text += (
                f"At L′ = {T:,}, <b>{sch.counts['none']}</b> pairs meet angles never seen "
                f"in training with no scaling"
            )
            # With no method selected there is no second count to give.
            if s.method != "default":
                text += f"; after {METHODS[s.method].short}{served}: <b>{sch.counts['method']}</b>"
            text += "."
        else:
            text += "L′ = L: nothing to stretch yet. Move the target length L′."
        note = p.schedule_note()
        return text + (f"<br>{escape_text(note)}" if note else "")

    def extras(self, p: Any) -> list[Any]:
        def download() -> io.StringIO:
            return io.StringIO(csv_text(p.schedule().pair_table()))

        return [
            pn.widgets.FileDownload(
                callback=download,
                filename="rope_pairs.csv",
                label="Download the per-pair table (CSV)",
                color="light",
                sizing_mode="stretch_width",
                margin=(4, 10),
            )
        ]

    def answer(self, p: Any) -> str:
        theta = reference_frequencies(p.base, p.d, 1.0)["default"]
        L, pairs = p.trained_len, p.d // 2
        never = never_complete_turn(theta, L)
        count = int(never.sum())
        slowest = float(trained_max_angle(theta, L)[-1])
        turns = float(trained_turns(theta, L)[-1])
        first = int(np.argmax(never)) if count else None
        which = {0: "none", 1: f"pair {first}"}.get(count, f"pairs {first} … {pairs - 1}")
        return (
            f"<b>{count}</b> of {pairs} pairs ({which}): a pair completes a turn "
            f"only if its wavelength 2π/θᵢ is below L = {L:,}. The slowest "
            f"turns {readable(slowest, 3)} rad by position L ({readable(100 * turns, 3)} % of "
            "a turn). These are the pairs that meet unseen angles as soon as you serve "
            "more than L tokens (for d = 128, base 10,000, L = 4,096 the answer is 18)."
        )
