// Narrow screens (app/static/page.css). Below 900 px the sidebar is a drawer
// over the page: closed when the page opens, closed again by a tap beside it.
// And on any screen a figure with a fixed square frame (RoPE's R1, the clock
// faces: their circles must stay round, so they do not stretch with the page)
// shrinks its frame, still square, until the whole figure fits the window.
(function () {
  const narrow = window.matchMedia("(max-width: 899px)");
  const MARGIN = 40;  // the page's and the card's padding around a figure
  const SMALLEST = 160;

  function closeDrawer() {
    const sidebar = document.getElementById("sidebar");
    if (narrow.matches && sidebar && !sidebar.classList.contains("hidden")
        && typeof closeNav === "function") {
      closeNav();
    }
  }

  function fitSquareFrames() {
    if (typeof Bokeh === "undefined" || !Bokeh.documents) { return; }
    const room = window.innerWidth - MARGIN;
    for (const doc of Bokeh.documents) {
      for (const model of doc.all_models) {
        const side = model.frame_width;
        if (side == null || side !== model.frame_height) { continue; }
        const view = Bokeh.index.find_one(model);
        if (view == null || view.el == null) { continue; }
        if (model.__peSide == null) { model.__peSide = side; }
        const outer = view.el.getBoundingClientRect().width;
        if (outer === 0) { continue; }
        const wanted = Math.max(SMALLEST, Math.min(model.__peSide, side - (outer - room)));
        if (Math.abs(wanted - side) >= 1) {
          model.setv({frame_width: wanted, frame_height: wanted}, {sync: false});
        }
      }
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    closeDrawer();
    const main = document.getElementById("main");
    if (main) { main.addEventListener("click", closeDrawer); }
  });
  // Figures arrive after the page loads and with each page opened: look again
  // now and then (cheap: a few models' sizes) and whenever the window changes.
  window.addEventListener("resize", fitSquareFrames);
  setInterval(fitSquareFrames, 500);
})();
