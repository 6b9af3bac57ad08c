"""Hostile text in a real browser (issue 9): XSS through links and text boxes, session isolation.

Every payload tries to create an element marked ``xss<N>`` (an id or a class)
or to run ``alert``. Through the link (the Order page's sentences, unknown keys
and their values, the ``page``/``figure`` keys, other pages' numbers and
choices) and through every text box (Order sentences, the Extension page's
pasted config as JSON keys and values, the uploaded config file and its name),
the test asserts that no dialog fires, no marked or scripted element appears in
the document or any shadow root, and the payload's text is shown as text where
the page echoes it. Payloads are batched per page load to keep the file fast.
"""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest
from playwright.sync_api import Browser, Page, expect

from positional_core.attention import parse_sentence

from .helpers import PageWatch, deep_js, new_server_errors, open_page

#: Each payload tries to create an element with id / class ``xss<N>`` or to run alert.
PAYLOADS = [
    '<script id="xss0">alert(0)</script> bites man',
    '<img id="xss1" src=x onerror=alert(1)> bites man',
    '<svg id="xss2" onload=alert(2)> bites man',
    '<a id="xss3" href="javascript:alert(3)">dog</a> bites man',
    '"><img id="xss4" src=x onerror=alert(4)> dog',
    "'><img id='xss5' src=x onerror=alert(5)> dog",
    "&lt;img id=xss6 src=x onerror=alert(6)&gt; dog",
    "&#60;img id=xss7 src=x onerror=alert(7)&#62; dog",
    "[dog](javascript:alert(8)) bites man",
    '![dog](x" id="xss9" onerror="alert(9)) bites',
    '<details id="xss10" open ontoggle=alert(10)> dog',
    '<iframe id="xss11" src="javascript:alert(11)"></iframe> dog',
    r"$\href{javascript:alert(12)}{xss12}$ dog",
    r"$\htmlId{xss13}{dog}$ bites man",
    r"$$\htmlClass{xss14}{dog}$$ bites man",
    '<math><mtext><img id="xss15" src=x onerror=alert(15)></mtext></math> dog',
    '<style>*{color:red}</style><b id="xss16">dog</b> bites',
    "javascript:alert(17) dog bites",
    '<body onload=alert(18)><i id="xss19">dog</i> bites',
    '<input id="xss20" autofocus onfocus=alert(20)> dog',
    '{{7*7}} ${alert(21)} <b class="xss21">dog</b>',
    '<object id="xss22" data="javascript:alert(22)"></object> dog',
    '<a id="xss23" href="data:text/html,<script>alert(23)</script>">dog</a>',
    '</textarea></pre><img id="xss24" src=x onerror=alert(24)> dog',
    '" onmouseover="alert(25)" id="xss25" x=" dog bites',
    "<scr<script>ipt id=xss26>alert(26)</script> dog",
]

#: Elements a payload would have created, or scripted attributes, anywhere in the page.
_INJECTED = """
() => { const found = [];
  const walk = root => {
    for (const el of root.querySelectorAll('*')) {
      const id = el.id || '', cls = (el.getAttribute('class') || '');
      if (/^xss\\d/.test(id) || /(^|\\s)xss\\d/.test(cls))
        found.push(el.tagName + '#' + id + '.' + cls);
      for (const a of el.attributes) {
        const v = (a.value || '').toLowerCase();
        if ((a.name.startsWith('on') && v.includes('alert')) ||
            (['href', 'src', 'data', 'action'].includes(a.name) &&
             v.trim().startsWith('javascript:')))
          found.push(el.tagName + '[' + a.name + '=' + a.value + ']');
      }
      if (el.tagName === 'SCRIPT' && (el.textContent || '').includes('alert')) found.push('SCRIPT');
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(document); return found; }
"""

#: The page's text: every text node outside <style>/<script>, shadow roots included.
_ALL_TEXT = """
() => { const parts = [];
  const walk = root => {
    for (const el of root.querySelectorAll('*')) {
      if (el.tagName !== 'STYLE' && el.tagName !== 'SCRIPT')
        for (const n of el.childNodes) if (n.nodeType === 3 && n.data.trim()) parts.push(n.data);
      if (el.shadowRoot) walk(el.shadowRoot);
    } };
  walk(document); return parts.join('\\n'); }
"""
_HAS_TEXT = f"text => ({_ALL_TEXT})().includes(text)"


def page_text(page: Page) -> str:
    return page.evaluate(_ALL_TEXT)


@pytest.fixture(autouse=True)
def server_stays_clean(server):
    offset = len(server["log"].read_text(errors="replace"))
    yield
    errors = new_server_errors(server["log"], offset)
    assert not errors, f"server logged errors:\n{errors}"


def _clean(page: Page, watch: PageWatch) -> None:
    assert page.evaluate(_INJECTED) == []
    assert watch.dialogs == []
    assert watch.errors == []
    assert "Traceback" not in page_text(page)


def _wait_text(page: Page, text: str, timeout: float = 15_000) -> None:
    page.wait_for_function(_HAS_TEXT, arg=text, timeout=timeout)


def _url(server, query: list[tuple[str, str]]) -> str:
    return f"{server['url']}?{urlencode(query)}"


def test_payloads_in_links(page: Page, server):
    """Sentences, unknown keys and values, page/figure keys and other pages' values."""
    watch = PageWatch().attach(page)
    tried = 0
    # Order page: a and b are echoed (escaped) in O2's readout; keys in the notice.
    for i in range(0, len(PAYLOADS), 7):
        batch = PAYLOADS[i : i + 7]
        query = [("page", "order"), ("a", batch[0]), ("b", batch[-1])]
        query += [(p, p) for p in batch[1:-1]]
        open_page(page, _url(server, query))
        _clean(page, watch)
        text = page_text(page)
        for sentence in (batch[0], batch[-1]):
            if _accepted(sentence):
                assert sentence[:60] in text, sentence
        if len(batch) > 2:
            assert "Not a setting of this page" in text
            assert repr(batch[1][:24])[:-1] in text  # the notice cuts it with …
        tried += len(batch)
    # The page key (an unknown page), and an embedded view's figure key.
    for payload, query in (
        (PAYLOADS[1], [("page", PAYLOADS[1]), ("a", PAYLOADS[3])]),
        (PAYLOADS[4], [("page", "order"), ("embed", "1"), ("figure", PAYLOADS[4])]),
    ):
        open_page(page, _url(server, query))
        _clean(page, watch)
        text = page_text(page)
        assert "There is no page" in text or "There is no figure" in text
        assert repr(payload[:24]) in text
        tried += len(query) - 1
    # Numbers and choices of other pages: refused with the value quoted in the notice.
    for slug, keys in {
        "sinusoidal": ["t", "base", "zzz"],
        "extension": ["preset", "d", "method", "truncate"],
    }.items():
        query = [("page", slug)] + [(k, PAYLOADS[j]) for j, k in enumerate(keys, start=7)]
        open_page(page, _url(server, query))
        _clean(page, watch)
        assert "Some settings were changed" in page_text(page)
        tried += len(keys)
    print(f"\nlinks: {tried} payload placements, dialogs {len(watch.dialogs)}")


def _accepted(sentence: str) -> bool:
    try:
        parse_sentence(sentence)
    except ValueError:
        return False
    return True


def test_payloads_typed_into_the_order_sentences(page: Page, server):
    watch = PageWatch().attach(page)
    open_page(page, f"{server['url']}?page=order")
    boxes = page.get_by_role("textbox")
    accepted = 0
    for i in range(0, len(PAYLOADS), 2):  # both boxes per round trip
        pair = PAYLOADS[i : i + 2]
        for j, payload in enumerate(pair):
            boxes.nth(j).fill(payload)
            boxes.nth(j).press("Enter")
        for payload in pair:
            if _accepted(payload):
                _wait_text(page, payload[:60])
                accepted += 1
    page.wait_for_timeout(500)  # let the last update draw
    _clean(page, watch)
    print(f"\norder boxes: {len(PAYLOADS)} payloads, {accepted} accepted as sentences")


def _config(extra: dict) -> str:
    return json.dumps(
        {
            "head_dim": 64,
            "max_position_embeddings": 2048,
            "rope_theta": 50000,
            "rope_scaling": {"rope_type": "linear", "factor": 4},
            **extra,
        }
    )


def test_payloads_in_pasted_and_uploaded_configs(page: Page, server, tmp_path):
    watch = PageWatch().attach(page)
    open_page(page, f"{server['url']}?page=extension")
    box = page.locator("textarea").first
    apply = page.get_by_role("button", name="Apply")
    # Refused configs: the payload is quoted in the error message.
    for payload in PAYLOADS[:4]:
        box.fill(json.dumps({"head_dim": 64, "rope_scaling": {"rope_type": payload}}))
        apply.click()
        _wait_text(page, "is not supported")
    _clean(page, watch)
    # A config that loads, with every payload as a key and as a value: shown as text.
    box.fill(_config({p: p for p in PAYLOADS}))
    apply.click()
    expect(page.get_by_text("pasted config (pasted)")).to_be_visible(timeout=15_000)
    _wait_text(page, json.dumps(PAYLOADS[1])[:40])
    _clean(page, watch)
    # The same through the file upload, the file named like a payload.
    page.locator("input[type=file]").set_input_files(
        {
            "name": '<img id="xss90" src=x onerror=alert(90)>.json',
            "mimeType": "application/json",
            "buffer": _config({"model_type": PAYLOADS[2], PAYLOADS[3]: PAYLOADS[4]}).encode(),
        }
    )
    _wait_text(page, 'uploaded file <img id="xss90"')
    _wait_text(page, PAYLOADS[2][:30])
    # And a refused upload with a payload in the error.
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"head_dim": 64, "rope_scaling": {"rope_type": PAYLOADS[5]}}))
    page.locator("input[type=file]").set_input_files(str(bad))
    _wait_text(page, "is not supported")
    page.wait_for_timeout(500)
    _clean(page, watch)


def test_sessions_are_isolated(browser: Browser, server):
    """Two students on the same page edit different sentences at the same moment."""
    contexts = [browser.new_context(viewport={"width": 1280, "height": 800}) for _ in range(2)]
    try:
        pages = [c.new_page() for c in contexts]
        watches = [PageWatch().attach(p) for p in pages]
        for p in pages:
            open_page(p, f"{server['url']}?page=order")
        mine = ["cat chases mouse", "bird eats worm"]
        boxes = [p.get_by_role("textbox").nth(i) for i, p in enumerate(pages)]
        for box, text in zip(boxes, mine, strict=True):
            box.fill(text)
        for box in boxes:  # both changes in flight together
            box.press("Enter")
        for p, text in zip(pages, mine, strict=True):
            p.wait_for_function(
                "t => new URLSearchParams(location.search).getAll('a').concat("
                "new URLSearchParams(location.search).getAll('b')).includes(t)",
                arg=text,
                timeout=15_000,
            )
        first = dict(_params(pages[0]))
        second = dict(_params(pages[1]))
        assert (first["a"], first["b"]) == ("cat chases mouse", "man bites dog")
        assert (second["a"], second["b"]) == ("dog bites man", "bird eats worm")
        assert "bird eats worm" not in page_text(pages[0])
        assert "cat chases mouse" not in page_text(pages[1])
        assert "cat chases mouse" in page_text(pages[0])
        assert "bird eats worm" in page_text(pages[1])
        for w in watches:
            assert w.errors == [] and w.dialogs == []
    finally:
        for c in contexts:
            c.close()


def _params(page: Page) -> list[tuple[str, str]]:
    return page.evaluate("() => Array.from(new URLSearchParams(location.search).entries())")


#: Count the Bokeh messages the server pushes to this page (after a reset).
COUNT_PUSHES_JS = """() => {
  if (!window.__pexPushLog) {
    const doc = Bokeh.documents[0];
    doc.on_change(event => {
      const what = event.model ? `${event.model.type}.${event.attr ?? ''}` : event.constructor.name;
      window.__pexPushLog.push(what);
    }, true);
  }
  window.__pexPushLog = [];
}"""


def test_one_session_s_changes_send_nothing_to_another(browser: Browser, server):
    """A classroom: what one student moves costs the others no message at all.

    (Panel's header spinner used to follow one process-wide busy flag, so every
    change anywhere reached every open page.)
    """
    contexts = [browser.new_context(viewport={"width": 1280, "height": 800}) for _ in range(2)]
    try:
        mover, bystander = (c.new_page() for c in contexts)
        for p in (mover, bystander):
            open_page(p, f"{server['url']}?page=rope")
        for p in (mover, bystander):  # each page's own first link written, then quiet
            p.wait_for_function("() => location.search.includes('&')", timeout=15_000)
        bystander.wait_for_timeout(1000)
        bystander.evaluate(COUNT_PUSHES_JS)
        mover.evaluate(COUNT_PUSHES_JS)
        before = mover.evaluate("window.location.search")
        handle = mover.locator(".noUi-handle").first
        handle.focus()
        for _ in range(3):
            mover.keyboard.press("ArrowRight")
            mover.wait_for_timeout(300)
        mover.wait_for_function(f"() => window.location.search !== {before!r}", timeout=15_000)
        mover.wait_for_timeout(1000)
        # The probe sees the mover's own updates; the bystander gets nothing.
        assert mover.evaluate("window.__pexPushLog").__len__() > 0
        assert bystander.evaluate("window.__pexPushLog") == []
    finally:
        for c in contexts:
            c.close()


#: The upload note's text (app/static/a11y.js), or null.
NOTE_JS = deep_js(
    "(deepElements().find(el => el.classList.contains('pex-upload-note')) || {})"
    ".textContent ?? null"
)


def test_an_oversized_upload_is_refused_in_the_page_and_the_session_lives(page: Page, server):
    """21 MB is over Bokeh's 20 MB websocket message limit: sent, it closed the
    student's connection without a word. The page refuses it with a message."""
    watch = PageWatch().attach(page)
    open_page(page, f"{server['url']}?page=extension")
    page.locator("input[type=file]").set_input_files(
        {"name": "huge.json", "mimeType": "application/json", "buffer": b" " * 21_000_000}
    )
    page.wait_for_function(f"() => ({NOTE_JS})() !== null", timeout=15_000)
    assert "Not uploaded: huge.json is 21,000,000 bytes" in page.evaluate(NOTE_JS)
    # The session still answers: a config under the limit loads, and the note goes.
    page.locator("input[type=file]").set_input_files(
        {"name": "small.json", "mimeType": "application/json", "buffer": _config({}).encode()}
    )
    expect(page.get_by_text("uploaded file small.json")).to_be_visible(timeout=15_000)
    assert page.evaluate(NOTE_JS) is None
    assert watch.errors == [] and watch.dialogs == []
