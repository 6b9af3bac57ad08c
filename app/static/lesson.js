/* The guided lesson's keys: ← and → press its Previous and Next buttons.
 *
 * Loaded on every page (app/main.py); it does nothing where there is no
 * lesson. A key that a control uses itself is left alone: arrows move a
 * slider's handle, the caret in a text or number box and the choice of a
 * select or radio group, so the lesson moves only when the focus is not on
 * one of those.
 */
(function () {
  "use strict";

  var KEYS = { ArrowRight: "lesson-next", ArrowLeft: "lesson-previous" };
  var OWN_ARROWS = "input, textarea, select, [contenteditable], [role=slider], " +
    "[role=radio], [role=listbox], [role=option], .noUi-handle";

  function usesArrows(event) {
    var path = event.composedPath ? event.composedPath() : [event.target];
    return path.some(function (el) {
      return el instanceof Element && el.matches(OWN_ARROWS);
    });
  }

  function press(cls) {
    if (!window.Bokeh || !Bokeh.index || !Bokeh.index.query) return false;
    for (var view of Bokeh.index.query(function (v) {
      var classes = v.model && v.model.css_classes;
      return v.button_el && classes && classes.indexOf(cls) >= 0;
    })) {
      if (view.model.disabled) return false;
      view.button_el.click();
      return true;
    }
    return false;
  }

  document.addEventListener("keydown", function (event) {
    var cls = KEYS[event.key];
    if (!cls || event.defaultPrevented || event.altKey || event.ctrlKey ||
        event.metaKey || event.shiftKey || usesArrows(event)) return;
    if (press(cls)) event.preventDefault();
  });
})();
