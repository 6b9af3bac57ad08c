"""Accessibility of every page, light and dark: axe-core, and the keyboard alone.

Each page is loaded once per theme; on that load the keyboard test runs first
(from the page as loaded, Tab only), then axe-core (``axe-playwright-python``
bundles it). Critical and serious axe violations fail; moderate and minor
ones are printed in a summary at the end of the run (``-s`` or the terminal
summary shows them).
"""

from __future__ import annotations

from collections import defaultdict

import pytest
from axe_playwright_python.sync_playwright import Axe

from app.main import PAGES

from .helpers import (
    PageWatch,
    new_server_errors,
    open_page,
    slider_handle_names,
    wait_for_a11y_scan,
)

SLUGS = list(PAGES)
THEMES = ["default", "dark"]
BLOCKING = {"critical", "serious"}

#: Moderate and minor findings, (slug, theme) → ["rule (impact) ×n: help"], printed at the end.
REMAINING: dict[tuple[str, str], list[str]] = {}

#: Installed right after load: records every element that receives focus (inside
#: shadow roots too: ``composedPath()[0]`` is the element itself) with its focus
#: ring as drawn while focused, and enumerates what a keyboard should reach.
FOCUS_PROBE = """() => {
  const deep = (root, out) => {
    for (const el of root.querySelectorAll('*')) {
      out.push(el);
      if (el.shadowRoot) deep(el.shadowRoot, out);
    }
    return out;
  };
  const ring = el => {
    const parts = [];
    for (const e of [el, ...(el.shadowRoot ? deep(el.shadowRoot, []) : [])]) {
      const s = getComputedStyle(e);
      const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0
        ? `${s.outlineStyle} ${s.outlineWidth} ${s.outlineColor}` : 'none';
      parts.push(`${outline}|${s.boxShadow}`);
    }
    return parts.join(';');
  };
  const hosts = el => {
    const chain = [];
    for (let node = el.getRootNode(); node && node.host; node = node.host.getRootNode())
      chain.push(node.host);
    return chain;
  };
  let next = 0;
  const ids = new WeakMap();
  const id = el => { if (!ids.has(el)) ids.set(el, ++next); return ids.get(el); };
  const describe = el => {
    const label = el.getAttribute('aria-label') || (el.textContent || '').trim().slice(0, 40);
    return `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}`
      + `.${[...el.classList].slice(0, 2).join('.')} "${label}"`;
  };
  const sidebar = document.getElementById('sidebar');
  const record = el => {
    const chain = hosts(el);
    const top = chain.length ? chain[chain.length - 1] : el;
    return {
      id: id(el), what: describe(el),
      host: chain.length ? id(chain[0]) : 0,
      sidebar: !!(sidebar && sidebar.contains(top)),
    };
  };
  const TABBABLE = 'a[href], button, input, select, textarea, [tabindex], [role="slider"]';
  const visible = el => el.getClientRects().length > 0
    && getComputedStyle(el).visibility !== 'hidden';
  const tabbable = el => el.matches(TABBABLE) && !el.disabled && el.type !== 'hidden'
    && el.tabIndex >= 0 && el.getAttribute('tabindex') !== '-1' && visible(el);
  // The widgets of the sidebar: shadow hosts whose own root holds a control;
  // hidden ones too (a page may show a control only for some settings).
  const CONTROL = 'input, select, textarea, button, [role="slider"]';
  const widgets = sidebar ? deep(sidebar, []).filter(el => el.shadowRoot
    && el.shadowRoot.querySelector(CONTROL)
    && ![...el.shadowRoot.querySelectorAll('*')].some(c => c.shadowRoot
      && c.shadowRoot.querySelector(CONTROL))) : [];
  const state = window.__pexFocus = {
    seen: [], elements: [], focused: {},
    expected: deep(document, []).filter(tabbable).map(record),
    widgets: widgets.map(el => ({id: id(el), visible: visible(el)})),
  };
  // A focus move inside one shadow root is not announced to the document
  // (target and related target are the same host there): listen on every root.
  const handled = new WeakSet();
  const onFocus = event => {
    if (handled.has(event)) return;
    handled.add(event);
    const el = event.composedPath()[0];
    if (!(el instanceof Element)) return;
    const r = record(el);
    state.seen.push(r);
    if (!(r.id in state.focused)) {
      state.focused[r.id] = ring(el);
      state.elements.push([r.id, el]);
    }
  };
  document.addEventListener('focusin', onFocus, true);
  for (const el of deep(document, [])) {
    if (el.shadowRoot) el.shadowRoot.addEventListener('focusin', onFocus, true);
  }
  state.unfocusedRings = () => {
    document.activeElement && document.activeElement.blur();
    let el = document.activeElement;
    while (el && el.shadowRoot && el.shadowRoot.activeElement) {
      el = el.shadowRoot.activeElement;
    }
    if (el && el.blur) el.blur();
    const out = {};
    for (const [key, node] of state.elements) out[key] = node.isConnected ? ring(node) : null;
    return out;
  };
  return state.expected.length;
}"""


#: True once every stylesheet linked in the page and its shadow roots is loaded.
STYLES_LOADED = """() => { let ok = true; const walk = root => {
    for (const el of root.querySelectorAll('*')) {
      if (el.tagName === 'LINK' && el.rel === 'stylesheet' && !el.sheet) ok = false;
      if (el.shadowRoot) walk(el.shadowRoot);
    } };
  walk(document); return ok; }"""


@pytest.fixture(autouse=True)
def server_stays_clean(server):
    offset = len(server["log"].read_text(errors="replace"))
    yield
    errors = new_server_errors(server["log"], offset)
    assert not errors, f"server logged errors:\n{errors}"


@pytest.fixture(scope="module")
def a11y_context(browser):
    """One browser context for the module: Bokeh's bundles are fetched once."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    yield context
    context.close()


@pytest.fixture(
    scope="module",
    params=[(s, t) for t in THEMES for s in SLUGS],
    ids=[f"{s}-{t}" for t in THEMES for s in SLUGS],
)
def loaded(request, a11y_context, server):
    """A page (slug, theme) as loaded, with the focus probe installed; one load per pair.

    Module scope with parameters: pytest runs every test of one pair together,
    then closes that tab.
    """
    slug, theme = request.param
    page = a11y_context.new_page()
    page.set_default_navigation_timeout(90_000)  # a loaded CI machine builds a page slowly
    watch = PageWatch().attach(page)
    open_page(page, f"{server['url']}?page={slug}&theme={theme}", timeout=90_000)
    # Every component's stylesheets (the focus ring is in one) have loaded, and
    # a11y.js has labelled what was drawn last.
    page.wait_for_function(STYLES_LOADED, timeout=60_000)
    wait_for_a11y_scan(page)
    page.wait_for_timeout(300)
    expected = page.evaluate(FOCUS_PROBE)
    yield {"page": page, "slug": slug, "theme": theme, "expected": expected, "watch": watch}
    page.close()


def test_keyboard_reaches_every_control_with_a_visible_focus_ring(loaded):
    page, slug = loaded["page"], loaded["slug"]
    presses = loaded["expected"] + 8
    for _ in range(presses):
        page.keyboard.press("Tab")
    state = page.evaluate(
        "() => { const s = window.__pexFocus;"
        " return {seen: s.seen, expected: s.expected, focused: s.focused,"
        " widgets: s.widgets, unfocused: s.unfocusedRings()}; }"
    )
    seen = {r["id"] for r in state["seen"]}
    missing = [r["what"] for r in state["expected"] if r["id"] not in seen]
    assert not missing, f"{slug}: Tab never reaches {missing}"

    # Every page control is a widget of the sidebar (the page navigation is one
    # more); every one shown is reached by Tab.
    controls = PAGES[slug].control_names()
    widgets = state["widgets"]
    assert len(widgets) - 1 >= len(controls), (
        f"{slug}: {len(widgets) - 1} widgets in the sidebar for {len(controls)} controls"
    )
    hosts = {r["host"] for r in state["seen"] if r["sidebar"]}
    unreached = [w["id"] for w in widgets if w["visible"] and w["id"] not in hosts]
    assert not unreached, f"{slug}: {len(unreached)} sidebar widgets never reached by Tab"

    what = {str(r["id"]): r["what"] for r in state["seen"]}
    invisible = [
        what[key]
        for key, ring in state["focused"].items()
        if state["unfocused"].get(key) is not None and state["unfocused"][key] == ring
    ]
    assert not invisible, f"{slug}/{loaded['theme']}: no visible focus on {invisible}"


def _axe(page) -> dict:
    return Axe().run(page, options={"resultTypes": ["violations"]}).response


def test_axe_finds_no_serious_violation(loaded):
    page, slug, theme = loaded["page"], loaded["slug"], loaded["theme"]
    results = _axe(page)
    if any(v["impact"] in BLOCKING for v in results["violations"]):
        # Once more after a pause: a pane caught mid-redraw (faded while Panel
        # updates it) reads as low contrast; a real violation stays.
        page.wait_for_timeout(2000)
        results = _axe(page)
    blocking, rest = [], []
    for v in results["violations"]:
        line = f"{v['id']} ({v['impact']}) ×{len(v['nodes'])}: {v['help']}"
        if v["impact"] in BLOCKING:
            nodes = [
                f"{n['target'][-1]} {n['html'][:80]!r}: "
                + " ".join(n.get("failureSummary", "").split())[:220]
                for n in v["nodes"][:4]
            ]
            blocking.append(line + "".join(f"\n      {n}" for n in nodes))
        else:
            rest.append(line)
    REMAINING[(slug, theme)] = rest
    assert not blocking, f"{slug}/{theme}:\n  " + "\n  ".join(blocking)
    assert loaded["watch"].errors == []


def _summary_lines() -> list[str]:
    by_rule: dict[str, list[str]] = defaultdict(list)
    for (slug, theme), lines in sorted(REMAINING.items()):
        for line in lines:
            by_rule[line.split(" ×")[0]].append(f"{slug}/{theme}")
    if not REMAINING:
        return []
    out = [f"axe: moderate/minor findings on {len(REMAINING)} page/theme pairs"]
    out += [f"  {rule}: {', '.join(where)}" for rule, where in sorted(by_rule.items())]
    if not by_rule:
        out.append("  none")
    return out


@pytest.fixture(scope="module", autouse=True)
def _print_remaining(request):
    """Print the summary at the end of the module, past pytest's output capture."""
    yield
    lines = _summary_lines()
    capture = request.config.pluginmanager.getplugin("capturemanager")
    if lines and capture is not None:
        with capture.global_and_fixture_disabled():
            print("\n" + "\n".join(lines))


EMBEDS = ["page=sinusoidal&embed=1", "page=alibi&figure=matrix&embed=1&theme=dark"]


@pytest.mark.parametrize("query", EMBEDS)
def test_embedded_views_have_the_accessibility_script_and_pass_axe(a11y_context, server, query):
    """An iframe of a page or a figure (documentation) is as accessible as the app."""
    page = a11y_context.new_page()
    try:
        watch = PageWatch().attach(page)
        open_page(page, f"{server['url']}?{query}", timeout=90_000)
        page.wait_for_function(STYLES_LOADED, timeout=60_000)
        wait_for_a11y_scan(page)
        handles = slider_handle_names(page)
        assert handles and all(handles), f"unnamed slider handles: {handles}"
        results = _axe(page)
        blocking = [
            f"{v['id']} ({v['impact']}) ×{len(v['nodes'])}: {v['help']}"
            for v in results["violations"]
            if v["impact"] in BLOCKING
        ]
        assert not blocking, f"{query}: {blocking}"
        assert watch.errors == [] and watch.external == []
    finally:
        page.close()
