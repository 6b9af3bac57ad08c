"""How a model reaches the Context extension page: a preset, a pasted or uploaded
config.json, or a link. Each sets the controls in one update, the rules' and the
preset watcher's own reactions held back (``_quietly``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from positional_core.hf_config import ConfigError, NoRopeError

from ...urlstate import coerce_value, normalise_query, read_query
from . import models
from .models import CUSTOM
from .shared import MAX_TARGET

__all__ = ["LONGROPE_STATE", "ModelLoading"]

#: The state a LongRoPE config brings besides the controls.
LONGROPE_STATE = ("longrope_short", "longrope_long", "longrope_pairs", "longrope_source")


class ModelLoading:
    """The loading half of :class:`~app.pages.extension.ExtensionPage` (a mixin)."""

    def _set(self, values: Mapping[str, Any], extra: Mapping[str, Any]) -> None:
        """The controls (and LongRoPE's lists) in one update; then the model shown."""
        lists = {k: v for k, v in extra.items() if k in LONGROPE_STATE}
        with self._quietly():
            self._apply({**values, **lists})
        rest = {k: v for k, v in extra.items() if k not in LONGROPE_STATE}
        if rest:
            self.param.update(rest)

    # ------------------------------------------------------- models (E4)
    def _preset_state(
        self, name: str, values: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """(controls, other state) that show preset ``name`` over ``values``."""
        if name == CUSTOM:
            return values, {"model": None, "loaded": None, "config_warnings": []}
        card = models.preset_card(name)
        if card.info is None:
            return values, {"model": card, "loaded": None, "config_warnings": []}
        return self._filled(card, values)

    def _filled(self, card: models.ModelCard, values: dict[str, Any]) -> tuple[dict, dict]:
        assert card.info is not None
        filled, notes = models.preset_values(
            card.info, values, lambda name: type(self).param[name].bounds
        )
        extra: dict[str, Any] = {}
        if filled["method"] == "longrope":
            p = card.info.params
            extra.update(
                longrope_short=tuple(p["short_factor"]),
                longrope_long=tuple(p["long_factor"]),
                longrope_pairs=len(p["short_factor"]),
                longrope_source=card.label,
            )
        fixed, rule_notes = self.constrain(filled)
        loaded = {k: fixed[k] for k in self.control_names() if k != "preset"}
        return fixed, {
            **extra,
            "model": card,
            "loaded": loaded,
            "config_warnings": notes + rule_notes,
        }

    def _load_preset(self, fill: bool = True) -> None:
        """Show the selected preset; with ``fill``, set every control from it."""
        values, extra = self._preset_state(self.preset, self._state())
        if fill:
            self._set(values, extra)
        else:
            self.param.update({k: v for k, v in extra.items() if k not in LONGROPE_STATE})

    def reload_preset(self) -> None:
        """Fill the controls from the selected preset again (after edits)."""
        self._load_preset()

    def changed_since_load(self) -> list[tuple[str, Any, Any]]:
        """Controls that differ from the loaded model's values: (name, now, model)."""
        return models.changed_since_load(self._state(), self.loaded)

    def apply_config(
        self, text: str | bytes, label: str = "pasted config", source: str = "pasted"
    ) -> bool:
        """Read a pasted or uploaded ``config.json``; on success fill every control.

        On any problem the core's message is shown next to the box
        (:attr:`config_errors`) and nothing else changes. Returns ``True`` on success.
        """
        try:
            card = models.read_card(text, label, source)
        except NoRopeError as error:
            self.param.update(config_errors=[str(error)], config_link=error)
            return False
        except ConfigError as error:
            self.param.update(config_errors=[str(error)], config_link=None)
            return False
        self.param.update(config_errors=[], config_link=None)
        self._set(*self._filled(card, {**self._state(), "preset": CUSTOM}))
        return True

    # ------------------------------------------------------------------ links
    def apply_query(self, query: Mapping[str, Any]) -> list[str]:
        """Set the controls from a link in one update: the preset it names first (it
        fills every control), then its other values."""
        query = normalise_query(query)
        notes: list[str] = []
        values, extra = self._state(), {}
        if "preset" in query:
            try:
                preset, note = coerce_value(type(self).param.preset, query["preset"])
            except ValueError as error:
                notes.append(str(error))
            else:
                notes += [note] if note else []
                values, extra = self._preset_state(preset, {**values, "preset": preset})
        rest = self._coupled({k: v for k, v in query.items() if k != "preset"}, values)
        names = self.control_names()
        first = read_query(type(self).param, rest, names)
        bounds = self.dynamic_bounds({**values, **first.values})
        result = read_query(type(self).param, rest, names, bounds=bounds)
        fixed, rule_notes = self.constrain({**values, **result.values})
        self._set(fixed, extra)
        self._rule_notes = []
        self.notes = notes + result.notes + rule_notes
        return self.notes

    def _coupled(self, query: dict[str, str], values: Mapping[str, Any]) -> dict[str, str]:
        """The link with s or L′ added when it names only the other (as a slider sets
        them), and S on L′ when it was there."""
        rest = dict(query)

        def read(name: str) -> Any:
            try:
                return coerce_value(type(self).param[name], rest.get(name, str(values[name])))[0]
            except ValueError:
                return None

        trained = read("trained_len")
        if trained is None:
            return rest
        factor = read("factor") if "factor" in rest else None
        target = read("target_len") if "target_len" in rest else None
        if factor is not None and "target_len" not in rest:
            target = min(max(round(factor * trained), trained), MAX_TARGET)
            rest["target_len"] = str(target)
        elif target is not None and "factor" not in rest:
            target = min(max(target, trained), MAX_TARGET)
            rest["factor"] = repr(min(max(target / trained, 1.0), MAX_TARGET / trained))
        on_target = values["served_len"] == values["target_len"]
        if target is not None and "served_len" not in rest and on_target:
            rest["served_len"] = str(min(max(target, trained), MAX_TARGET))
        return rest
