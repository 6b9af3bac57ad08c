"""C5 · T5 relative buckets: each distance's bucket; from 91 on every distance shares one."""

from __future__ import annotations

from typing import Any

import holoviews as hv
import numpy as np
from holoviews.operation.element import interpolate_curve

from positional_core.relative import t5_relative_bucket

from ...chart import Frame, Mark
from ...look import OKABE_ITO, WARNING, text_color
from ...marks import labels, rule, span
from .columns import T5_LAST_BUCKET, T5_SETTINGS
from .shared import SMALL, SchemeChart, short_ticks

#: Log-spaced distances drawn past max_distance, where every distance shares a bucket.
FAR_SAMPLES = 40
_DISTANCE = hv.Dimension("distance", label="distance |j − i| (log scale)")
_BUCKET = hv.Dimension("bucket", label="bucket b(j − i)")
#: The two curves: keys after the query, keys before it (sign of j − i, label, colour).
#: The labels are short enough for both to sit in one row above the steps on a phone.
SIDES = ((1, "after (j > i)", "#9A6700"), (-1, "before (j < i)", OKABE_ITO["blue"]))


def _steps(color: str) -> Mark:
    return Mark(
        hv.Curve,
        (_DISTANCE,),
        (_BUCKET,),
        style={
            "color": color,
            "line_width": 2.5,
            "tools": ["hover"],
            "hover_tooltips": [("distance |j − i|", "@distance{0,0}"), ("bucket", "@bucket")],
        },
    )


def distances(target_len: int) -> np.ndarray:
    """Every distance up to max_distance (where the buckets change), then a log sample
    to L′ − 1 (one bucket there): the steps are exact."""
    near = T5_SETTINGS["max_distance"]
    far = np.geomspace(near + 1, max(target_len - 1, near + 2), FAR_SAMPLES)
    drawn = np.unique(np.concatenate([np.arange(1, near + 1), far.round().astype(int)]))
    return drawn[drawn <= max(target_len - 1, 1)]


class T5(SchemeChart, key="t5"):
    depends = ("trained_len", "target_len")
    marks = {  # noqa: RUF012
        # The distances met only past L, up to L′.
        "new": span((_DISTANCE, "distance_end"), WARNING, 0.12, xformatter=short_ticks),
        **{f"side_{i}": _steps(color) for i, (_s, _l, color) in enumerate(SIDES)},
        "last": rule("dashed", 1.2),
        "edge": rule("dotted", 1.5),
        "last_text": labels((_DISTANCE, _BUCKET), text_color, "9pt", text_align="right"),
        "edge_text": labels((_DISTANCE, _BUCKET), text_color, "9pt", text_align="left"),
    }
    options = {  # noqa: RUF012
        **SMALL,
        "logx": True,
        "xlabel": _DISTANCE.label,
        "ylabel": _BUCKET.label,
        "ylim": (-1, T5_SETTINGS["num_buckets"] * 1.3),  # room above for the legend
        "yticks": [0, 8, 16, 24, T5_SETTINGS["num_buckets"] - 1],
        "legend_position": "top_left",
        "legend_cols": 2,
        "legend_opts": {"label_text_font_size": "9pt", "glyph_width": 12, "spacing": 10},
        "show_legend": True,
    }

    def frame(self, p: Any) -> Frame:
        length, target = p.trained_len, p.target_len
        distance, sides = distances(target), {}
        for i, (sign, _label, _color) in enumerate(SIDES):
            buckets = t5_relative_bucket(sign * distance, **T5_SETTINGS)
            # Drawn as steps: each bucket holds until the next distance.
            steps, (values,) = interpolate_curve.pts_to_poststep(distance, [buckets])
            sides[f"side_{i}"] = {"distance": steps, "bucket": values}
        start, end = T5_LAST_BUCKET, max(target, length)
        return Frame(
            new={"distance": [float(length)], "distance_end": [float(end)]},
            **sides,
            last={"x": [float(start)]},
            edge={"x": [float(length)]},
            last_text={
                "distance": [float(start)],
                "bucket": [2.0],
                "text": [f" {start}: last bucket "],
            },
            edge_text={"distance": [float(length)], "bucket": [2.0], "text": [" L"]},
            labels={f"side_{i}": label for i, (_s, label, _c) in enumerate(SIDES)},
            x=(1.0, float(end)),
        )
