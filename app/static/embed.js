/* A view in a frame (an ?embed=1 view, a static export's figure) tells the
 * page around it how tall its content is, so the page can give the frame that
 * height instead of an inner scroll bar. It posts
 *   {type: "positional-encoding-explorer:height", height: <CSS px>}
 * to its parent whenever the height changes (a readout wraps, a fold opens);
 * docs/embedding.md has the few lines the documentation page needs.
 * Outside a frame it does nothing.
 */
(function () {
  "use strict";
  if (window.parent === window) return;
  var TYPE = "positional-encoding-explorer:height";
  var last = -1;
  var queued = false;
  var watched = typeof WeakSet === "function" ? new WeakSet() : null;
  var resized = typeof ResizeObserver === "function" ? new ResizeObserver(queue) : null;

  // The content's height, not the document's: a frame's document is at least
  // as tall as the frame, so it could grow and never shrink again.
  function contentHeight() {
    var bottom = 0;
    document.querySelectorAll("[data-root-id] > *").forEach(function (el) {
      if (resized && watched && !watched.has(el)) {
        watched.add(el);
        resized.observe(el);
      }
      bottom = Math.max(bottom, el.getBoundingClientRect().bottom + window.scrollY);
    });
    var body = document.body;
    var margin = body ? parseFloat(getComputedStyle(body).marginBottom) || 0 : 0;
    return Math.ceil(bottom + margin);
  }

  function send() {
    queued = false;
    var height = contentHeight();
    if (height > 0 && height !== last) {
      last = height;
      // The height says nothing private: any page may frame these views.
      window.parent.postMessage({ type: TYPE, height: height }, "*");
    }
  }

  function queue() {
    if (queued) return;
    queued = true;
    requestAnimationFrame(send);
  }

  // Bokeh adds the views' roots after the page has loaded (this script runs
  // in the head, before the body exists).
  new MutationObserver(queue).observe(document.documentElement, { childList: true, subtree: true });
  window.addEventListener("load", queue);
  window.addEventListener("resize", queue);
  queue();
})();
