"""Open every page of the built book in headless Chromium and check it as a reader sees it.

The book's HTML is served on localhost and each page of the toc is opened in Debian's Chromium
(/usr/bin/chromium, driven by Playwright; ``make test`` installs it). On each page: every image
loaded; math typeset by the MathJax that the book ships in its own ``_static`` (no request leaves
localhost); no cell output shows an error, a traceback or stderr; the console logs no error; every
internal link, and its ``#fragment``, resolves; no local request fails. The interactive figures:
plotly.js comes from the book's ``_static`` on their pages only, every plotly div draws its traces
(SVG, and WebGL for 3-D) inside its figure with its caption, and draws too with the network switched
off (the page opened from disk in an offline browser context); the Reproduction page's figures draw
a row for every claim. A full-page screenshot of each page
is saved in ``_build/screenshots/``.
"""

import threading
import time
from collections.abc import Callable, Iterator
from functools import cache, partial
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.error import HTTPError
from urllib.parse import unquote, urldefrag, urlsplit
from urllib.request import urlopen

import pytest
from chapters import ROOT, toc_files
from playwright.sync_api import Browser, Page, Request, Response, Route, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from interp_repro import STUDIES
from interp_repro.reproduction.claims import study_claims

pytestmark = pytest.mark.book
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCREENSHOTS = ROOT / "_build" / "screenshots"
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
ERROR_OUTPUTS = ".output.traceback, .output.stderr, .output.error"
TIMEOUT_MS = 60_000
INTERACTIVE = {  # the pages with interactive figures: the ids of their plotly divs
    "book/modular_addition/manifolds": {"plotly-fig-modadd-pca"},
    "book/superposition/demonstrating": {"plotly-fig-relu-20-5"},
    "book/schur_rnn/copy_task": {"plotly-fig-schur-eigenvalues"},
    "book/reproduction": {f"plotly-fig-record-{study.replace('_', '-')}" for study in STUDIES},
}
# the claims each Reproduction figure draws, one per row, read from its y-axis labels
RECORD_ROWS = "id => document.getElementById(id)?.layout?.yaxis?.ticktext || []"
PLOTLY_JS = "/_static/plotly/plotly.min.js"
# each plotly div as drawn: its traces, SVG layers, 3-D scenes, drawn canvases and caption
PLOTLY_STATE = """els => els.map(e => ({
    id: e.id, traces: (e.data || []).length, svg: e.querySelectorAll('svg.main-svg').length,
    webgl: (e.data || []).some(t => /(3d|gl)$/.test(t.type || "")),
    canvases: [...e.querySelectorAll('canvas')].filter(c => c.width > 0 && c.height > 0).length,
    nowebgl: !!e.querySelector('.no-webgl'),
    fallback: getComputedStyle(document.getElementById(e.id + '-static') || e).display,
    caption: !!e.closest('figure')?.querySelector('figcaption')}))"""


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """Log nothing: one line per request would bury the test output."""


class _Ids(HTMLParser):
    """Collects the anchors of an HTML page: element ids and ``<a name>``."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if value and (key == "id" or (tag == "a" and key == "name")):
                self.ids.add(value)


@cache
def _anchors(url: str) -> frozenset[str] | None:
    """The anchors of the page at ``url`` (none for a file that is not HTML); None if it is missing."""
    try:
        with urlopen(url) as response:
            if response.headers.get_content_type() != "text/html":
                return frozenset()
            parser = _Ids()
            parser.feed(response.read().decode())
            return frozenset(parser.ids)
    except HTTPError:
        return None


def _is_local(url: str) -> bool:
    return urlsplit(url).hostname in LOCAL_HOSTS


@pytest.fixture(scope="module")
def site(html: Path) -> Iterator[str]:
    """The book's HTML served over HTTP on a free localhost port: its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_QuietHandler, directory=str(html)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh browser tab (its own context: no cache or state shared between pages)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    tab.set_default_timeout(TIMEOUT_MS)
    yield tab
    context.close()


QUIET_MS = 500
"""The page has settled once no request has been in flight for this long (Playwright's networkidle)."""


def _watch_network(page: Page, problems: list[str]) -> Callable[[], None]:
    """Record every request off localhost (and block it) and every failed local request; returns a
    function that waits until the page's fonts are loaded and none of its requests has been in flight
    for :data:`QUIET_MS`, and records the requests still open after :data:`TIMEOUT_MS` (or, where none
    is open then, that requests kept starting).

    The page's own requests are counted, not Playwright's ``networkidle``: on the Reproduction page
    (plotly.js beside the theme's scripts, no MathJax) that state never came on a quiet machine,
    although every request had finished."""
    open_requests: set[Request] = set()
    last_change = [time.monotonic()]

    def opened(request: Request) -> None:
        open_requests.add(request)
        last_change[0] = time.monotonic()

    def closed(request: Request) -> None:
        open_requests.discard(request)
        last_change[0] = time.monotonic()

    def route(route: Route) -> None:
        if _is_local(route.request.url):
            route.continue_()
        else:
            problems.append(f"request off localhost: {route.request.url}")
            route.abort()

    def response(response: Response) -> None:
        if response.status >= 400:
            problems.append(f"HTTP {response.status}: {response.url}")

    def failed(request: Request) -> None:
        closed(request)
        if _is_local(request.url):
            problems.append(f"request failed ({request.failure}): {request.url}")

    def settle() -> None:
        page.evaluate("() => document.fonts.ready.then(() => true)")
        deadline = time.monotonic() + TIMEOUT_MS / 1000
        while open_requests or time.monotonic() - last_change[0] < QUIET_MS / 1000:
            if time.monotonic() > deadline:
                problems.extend(f"request still open after {TIMEOUT_MS} ms: {r.url}" for r in open_requests)
                if not open_requests:
                    problems.append(f"requests kept starting for {TIMEOUT_MS} ms: the page never went quiet")
                return
            page.wait_for_timeout(50)

    page.route("**/*", route)
    page.on("request", opened)
    page.on("requestfinished", closed)
    page.on("response", response)
    page.on("requestfailed", failed)
    return settle


def _check_math(page: Page, site: str, scripts: list[str], problems: list[str]) -> None:
    """On a page with math: MathJax comes from the book's _static and typesets every formula."""
    if not page.locator(".math").count():
        return
    mathjax = [src for src in scripts if "mathjax" in src.lower()]
    if not any(src.startswith(f"{site}/_static/") for src in mathjax):
        problems.append(f"MathJax is not loaded from the book's _static: {mathjax or 'no MathJax script'}")
        return
    try:
        page.wait_for_function("() => window.MathJax?.startup?.promise", timeout=TIMEOUT_MS)
        page.evaluate("() => MathJax.startup.promise")
    except PlaywrightError as error:
        problems.append(f"MathJax did not typeset: {error.message.splitlines()[0]}")
        return
    untypeset = page.eval_on_selector_all(
        ".math", "els => els.filter(e => !e.querySelector('mjx-container'))"
                 ".map(e => e.textContent.trim().slice(0, 80))")
    problems += [f"math not typeset: {text}" for text in untypeset]
    errors = page.eval_on_selector_all("mjx-merror", "els => els.map(e => e.dataset.mjxError)")
    problems += [f"TeX error: {text}" for text in errors]
    # MathJax shows an undefined macro as its name in red (the noundefined extension)
    undefined = page.eval_on_selector_all(
        'mjx-assistive-mml mtext[mathcolor="red"]',
        r"els => els.map(e => e.textContent).filter(t => t.startsWith('\\'))")
    problems += [f"undefined TeX macro: {name}" for name in undefined]


# pydata-sphinx-theme logs this on a reader's first visit (no colour mode stored yet), then uses auto
THEME_FIRST_VISIT = "Got invalid theme mode: . Resetting to auto."


def _watch_console(page: Page, problems: list[str]) -> None:
    """Record every console error and uncaught exception of the page (but the theme's first-visit note)."""
    page.on("console", lambda message: message.type == "error" and message.text != THEME_FIRST_VISIT
            and problems.append(f"console error: {message.text[:200]}"))
    page.on("pageerror", lambda error: problems.append(f"uncaught exception: {str(error)[:200]}"))


def _plotly_drawn(page: Page, expected: set[str]) -> list[str]:
    """What is wrong with the page's plotly divs: not the ids ``expected``, or one that did not draw
    (no traces, no SVG layer, a 3-D scene without a WebGL canvas) or is outside a captioned figure."""
    drawn = ("ids => ids.every(id => { const e = document.getElementById(id); return e?.data?.length"
             " && e.querySelector('svg.main-svg') && (!e.data.some(t => /(3d|gl)$/.test(t.type || ''))"
             " || e.querySelector('canvas')); })")
    try:
        page.wait_for_function(drawn, arg=sorted(expected), timeout=TIMEOUT_MS)
    except PlaywrightError as error:
        problems = [f"plotly figures did not draw: {error.message.splitlines()[0]}"]
    else:
        problems = []
    states = page.eval_on_selector_all(".plotly-graph-div", PLOTLY_STATE)
    found = {state["id"] for state in states}
    problems += [f"interactive figure missing: #{name}" for name in sorted(expected - found)]
    problems += [f"unexpected interactive figure: #{name}" for name in sorted(found - expected)]
    for state in states:
        if not state["traces"]:
            problems.append(f"#{state['id']}: no traces drawn")
        if not state["svg"]:
            problems.append(f"#{state['id']}: no SVG layer drawn")
        if state["webgl"] and (state["nowebgl"] or not state["canvases"]):
            problems.append(f"#{state['id']}: its WebGL scenes were not drawn")
        if not state["caption"]:
            problems.append(f"#{state['id']}: not inside a figure with a caption")
        if state["fallback"] != "none":
            problems.append(f"#{state['id']}: its static fallback image still shows")
    return problems


def _check_plotly(page: Page, entry: str, scripts: list[str], problems: list[str]) -> None:
    """plotly.js comes from the book's _static on the pages with interactive figures, and only there;
    each of their plotly divs drew."""
    loads = [src for src in scripts if "plotly" in src.lower()]
    expected = INTERACTIVE.get(entry, set())
    if not expected:
        problems += [f"plotly.js loaded on a page without interactive figures: {src}" for src in loads]
        problems += _plotly_drawn(page, set()) if page.locator(".plotly-graph-div").count() else []
        return
    if not any(_is_local(src) and urlsplit(src).path.endswith(PLOTLY_JS) for src in loads):
        problems.append(f"plotly.js is not loaded from the book's _static: {loads or 'no plotly script'}")
    problems += _plotly_drawn(page, expected)


def _check_record_figures(page: Page, problems: list[str]) -> None:
    """Each study's figure on the Reproduction page drew a row for every claim of the study, in order."""
    for study in STUDIES:
        div = f"plotly-fig-record-{study.replace('_', '-')}"
        rows = page.evaluate(RECORD_ROWS, div)
        claims = [c.id.removeprefix(study + ".") for c in study_claims(study)]
        if rows != claims:
            missing = sorted(set(claims) - set(rows))
            problems.append(f"#{div} draws {len(rows)} rows for {len(claims)} claims (missing: {missing})")


def _check_links(page: Page, site: str, problems: list[str]) -> None:
    """Every link to the book's own host leads to a page that exists, and to an anchor on it."""
    for href in sorted(set(page.eval_on_selector_all("a[href]", "els => els.map(a => a.href)"))):
        target, fragment = urldefrag(href)
        if urlsplit(target).netloc != urlsplit(site).netloc:
            continue
        anchors = _anchors(target)
        if anchors is None:
            problems.append(f"broken link: {href}")
        elif fragment and unquote(fragment) not in anchors:
            problems.append(f"link to a missing anchor #{fragment}: {href}")


@pytest.mark.parametrize("entry", toc_files())
def test_page_as_a_reader_sees_it(page: Page, site: str, entry: str) -> None:
    problems: list[str] = []
    settle = _watch_network(page, problems)
    _watch_console(page, problems)
    response = page.goto(f"{site}/{entry}.html", wait_until="load")
    if not (response and response.ok):
        pytest.fail(f"{entry}.html: not served (HTTP {response and response.status})")
    scripts = page.eval_on_selector_all("script[src]", "els => els.map(e => e.src)")
    problems += [f"script from off localhost: {src}" for src in scripts if not _is_local(src)]
    _check_math(page, site, scripts, problems)
    _check_plotly(page, entry, scripts, problems)
    settle()  # fonts, and the extensions MathJax loads while typesetting
    broken = page.eval_on_selector_all(
        "img", "els => els.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src'))")
    problems += [f"image not loaded: {src}" for src in broken]
    outputs = page.eval_on_selector_all(
        ERROR_OUTPUTS, "els => els.map(e => `${e.className}: ${e.textContent.trim().slice(0, 200)}`)")
    problems += [f"error output: {text}" for text in outputs]
    if "Traceback (most recent call last)" in page.inner_text("body"):
        problems.append("a traceback is shown")
    _check_links(page, site, problems)
    if entry == "book/reproduction":
        _check_record_figures(page, problems)
        # read at a glance on a laptop: no claims table scrolls sideways
        wide = page.eval_on_selector_all(
            "table", "els => els.filter(t => t.scrollWidth > t.parentElement.clientWidth + 1)"
                     ".map(t => t.innerText.slice(0, 60))")
        problems += [f"table wider than the page: {text}" for text in wide]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / f"{entry.replace('/', '__')}.png", full_page=True)
    assert not problems, f"{entry}.html, as a reader sees it:\n  " + "\n  ".join(dict.fromkeys(problems))


@pytest.mark.parametrize("entry", sorted(INTERACTIVE))
def test_interactive_figures_offline(browser: Browser, html: Path, site: str, entry: str) -> None:
    """With the network switched off, the page opened from disk still draws its interactive figures."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, offline=True)
    tab = context.new_page()
    tab.set_default_timeout(TIMEOUT_MS)
    remote: list[str] = []
    tab.on("request", lambda request: request.url.startswith("http") and remote.append(request.url))
    try:
        tab.goto((html / f"{entry}.html").as_uri(), wait_until="load")
        problems = _plotly_drawn(tab, INTERACTIVE[entry]) + [f"network request: {url}" for url in remote]
        # the switch works: even the book's own server on localhost is out of reach
        reached = tab.evaluate("url => fetch(url, {mode: 'no-cors'}).then(() => true, () => false)", site)
    finally:
        context.close()
    assert not reached, "the offline browser context still reached the local server"
    assert not problems, f"{entry}.html, offline:\n  " + "\n  ".join(dict.fromkeys(problems))
