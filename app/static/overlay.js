/* Clip Bokeh's overlay level to the plot frame for glyph renderers.
 *
 * The marks a control selects in the browser (app/choice.py) are drawn at
 * Bokeh's "overlay" level: when only overlay renderers change, Bokeh redraws
 * only the overlay layer of a figure, not its whole canvas (measured, p50:
 * Sinusoidal t 67 -> 44 ms, RoPE pair 67 -> 39 ms). Bokeh clips the glyph,
 * image and underlay levels to the frame but not the overlay level, made
 * for annotations that place themselves; a glyph there, zoomed or panned,
 * would be drawn over the axes. Here a glyph renderer on the overlay level
 * is clipped like any other glyph.
 */
(function () {
  "use strict";

  function patch() {
    var B = window.Bokeh;
    if (!B || !B.Models || !B.Models.get) return false;
    var GlyphRenderer;
    try {
      GlyphRenderer = B.Models.get("GlyphRenderer");
    } catch (e) {
      return false;
    }
    if (!GlyphRenderer || !GlyphRenderer.prototype.default_view) return false;
    var proto = GlyphRenderer.prototype.default_view.prototype;
    if (proto.__peClipsOverlay) return true;
    var owner = proto;
    while (owner && !Object.getOwnPropertyDescriptor(owner, "needs_clip")) {
      owner = Object.getPrototypeOf(owner);
    }
    var original = owner ? Object.getOwnPropertyDescriptor(owner, "needs_clip").get : null;
    Object.defineProperty(proto, "needs_clip", {
      configurable: true,
      get: function () {
        if (this.model.level === "overlay") return true;
        return original ? original.call(this) : false;
      },
    });
    proto.__peClipsOverlay = true;
    return true;
  }

  if (!patch()) {
    var timer = setInterval(function () {
      if (patch()) clearInterval(timer);
    }, 20);
  }
})();
