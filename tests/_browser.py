"""Drive the Gradio demos in Debian's headless Chromium through Playwright, as a person does.

Components are found by the elem_ids every app.py sets (`<prefix>preds`, `<prefix>preset`,
`<prefix>opt_<option>`, `<prefix>go`, `<prefix>headline`, ...; the prefix is `<metric>_` in the
playground). Nothing here knows a metric: the cases live in tests/_browser_cases.py. The fixtures
(`browser`, `served`, `page`) are imported by each tests/test_browser*.py.
"""

import importlib.util
import os
import re
import shutil
import sys
from pathlib import Path

import pytest
from helpers import ROOT, free_port

SHOTS = ROOT / ".build" / "screenshots"
DESKTOP, PHONE = {"width": 1280, "height": 800}, {"width": 390, "height": 844}
VIEWPORTS = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x800", "390x844"])

CHROMIUM = "/usr/bin/chromium"  # Debian's chromium (scripts/setup.d/chromium.sh); never `playwright install`
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
TIMEOUT_MS = 180_000  # a compute on 2 busy cores (the first call loads the metric, WordNet) can take a minute


def launch_browser(playwright):
    """Headless Chromium from Debian; raises (the test fails) when it cannot start."""
    executable = shutil.which("chromium") or CHROMIUM
    if not Path(executable).exists():
        raise RuntimeError(
            f"{CHROMIUM} is missing: run `bash scripts/setup_env.sh test` (apt-get install chromium)"
        )
    return playwright.chromium.launch(executable_path=executable, headless=True, args=FLAGS)


def start_app(app_path: Path):
    """Import app.py (it builds `demo` without launching) and serve it on 127.0.0.1: (module, url)."""
    if str(app_path.parent) not in sys.path:
        sys.path.insert(0, str(app_path.parent))  # app.py imports its sibling helpers
    spec = importlib.util.spec_from_file_location(f"browser_app_{app_path.parent.name}", app_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    port = free_port()
    module.demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
    return module, f"http://127.0.0.1:{port}/"


def _editable(page, elem_id: str):
    """The editable element of a Textbox (textarea / input) or a Code editor (CodeMirror), once rendered."""
    element = page.locator(f"#{elem_id}").locator(".cm-content, textarea, input").first
    element.wait_for(state="visible")
    return element


def set_text(page, elem_id: str, text: str) -> None:
    """Replace the text of a Textbox or a Code editor, as typed (a long text as pasted: one insertion;
    into a text box, the value set and one `input` event, as a paste gives: Playwright's typing takes
    seconds per thousand lines)."""
    element = _editable(page, elem_id)
    code = "cm-content" in (element.get_attribute("class") or "")
    if not code and text.count("\n") > 100:
        element.evaluate(
            "(e, v) => { e.value = v; e.dispatchEvent(new Event('input', {bubbles: true})); }", text
        )
        return
    if code or text.count("\n") > 100:
        element.click()
        page.keyboard.press("Control+A")
        page.keyboard.press("Delete")
        if text.count("\n") > 100:
            page.keyboard.insert_text(text)
            return
    element.fill(text)


def get_text(page, elem_id: str) -> str:
    element = _editable(page, elem_id)
    if "cm-content" in (element.get_attribute("class") or ""):
        return element.inner_text()
    return element.input_value()


def pick(page, elem_id: str, choice: str) -> None:
    """Open a Dropdown and click one of its options."""
    page.locator(f"#{elem_id} input").click()
    page.get_by_role("option", name=choice, exact=True).click()
    assert page.locator(f"#{elem_id} input").input_value() == choice


def set_option(page, elem_id: str, value: str) -> None:
    """A dropdown option (picked) or a text option (typed), whichever the component is."""
    if page.locator(f"#{elem_id} ul, #{elem_id} [role=listbox], #{elem_id} .dropdown-arrow").count():
        pick(page, elem_id, value)
    else:
        set_text(page, elem_id, value)


def upload(page, elem_id: str, paths: list[str]) -> None:
    """Choose files in a File component once and wait until the page lists every one of them (Gradio 6
    lists a file as `td.filename[aria-label=<name>]`, its name split into stem and extension, so its
    text never reads `name.ext`). The files are chosen a single time: the former helper waited for the
    text `name.ext`, timed out and chose the files again while the first upload was under way, which
    can leave the component holding them twice (a flaky fid_clip run)."""
    page.wait_for_load_state("networkidle")
    box = page.locator(f"#{elem_id}")
    box.locator("input[type=file]").wait_for(state="attached")
    box.locator("input[type=file]").set_input_files(paths)
    for path in paths:
        box.locator(f'td.filename[aria-label="{Path(path).name}"]').first.wait_for(state="attached")
    page.wait_for_load_state("networkidle")
    listed = box.locator("tr.file").count()
    assert listed == len(paths), f"{elem_id}: {listed} files listed for {len(paths)} chosen"


def compute(page, prefix: str, button: str = "go") -> None:
    """Click Compute (or the button `<prefix><button>`) and wait until the headline shows a fresh result."""
    headline = page.locator(f"#{prefix}headline")
    before = headline.inner_text()
    page.locator(f"#{prefix}{button}").click()
    page.wait_for_function(  # a new headline, drawn (the page hides the panel from a press to its result)
        "([sel, before]) => { const e = document.querySelector(sel), s = e && e.querySelector('strong');"
        " return s && s.checkVisibility({visibilityProperty: true}) && e.innerText !== before"
        " && !/\\d\\.\\ds\\b/.test(e.innerText); }",
        arg=[f"#{prefix}headline", before],
        timeout=TIMEOUT_MS,
    )


def read_headline(page, prefix: str) -> dict:
    """The headline's numbers: {key: text shown}, the primary one (its bold first line `key: value`)
    first, then the rows of the other numbers' table."""
    root = page.locator(f"#{prefix}headline")
    key, _, value = root.locator("strong").first.inner_text().replace("\xa0", " ").partition(":")
    shown = {key.strip(): value.strip()}
    for row in root.locator("tbody tr").all():
        cells = [t.replace("\xa0", " ").strip() for t in row.locator("td").all_inner_texts()]
        shown[cells[0]] = cells[1]
    return shown


def read_table(
    page, prefix: str, wait_s: float = 5.0, header: str | None = None
) -> tuple[list[str], list[list[str]]]:
    """The per-example table (Gradio's virtual grid): (headers, rows of cell texts). Without rows (or
    without the column `header`) it is read again for up to `wait_s` (the grid is shown and draws its
    rows and headers a moment after the headline, on a busy machine one after the other)."""
    import time

    table, end = page.locator(f"#{prefix}table"), time.monotonic() + wait_s
    while True:
        headers = [t.strip() for t in table.locator("[role=columnheader]").all_inner_texts()]
        rows = []
        for row in table.locator("[role=row]").all():
            cells = [t.strip() for t in row.locator("[role=gridcell]").all_inner_texts()]
            if any(cells):
                rows.append(cells)
        if (rows and (header is None or header in headers)) or time.monotonic() > end:
            return headers, rows
        page.wait_for_timeout(250)


def histogram_drawn(page, prefix: str) -> bool:
    """The histogram gets drawn (Vega renders a canvas or SVG marks, a moment after the result)."""
    marks = page.locator(f"#{prefix}histogram").locator("canvas, svg .mark-rect, .mm-bar").first
    marks.wait_for(state="attached", timeout=TIMEOUT_MS)
    return True


def error_after_compute(page, prefix: str, button: str = "go") -> str:
    """Click Compute (or `<prefix><button>`) on bad input; return the text of the message that replaces the
    result panel."""
    compute(page, prefix, button)
    text = page.locator(f"#{prefix}headline").inner_text()
    assert "Not computed" in text, text
    return re.sub(r"\s+", " ", text).strip()


# ------------------------------------------------------------------------------------------------
# What the page itself shows (not what the server sent)
# ------------------------------------------------------------------------------------------------
def histogram_bars(page, prefix: str) -> list[int]:
    """The counts of the histogram's bars as drawn (each bar carries `examples: <n>` in its aria-label:
    the demo's HTML bars, as Vega's SVG marks did), in drawing order; [] while nothing is drawn."""
    labels = page.locator(f"#{prefix}histogram [aria-roledescription=bar]").evaluate_all(
        "marks => marks.map(m => m.getAttribute('aria-label') || '')"
    )
    counts = []
    for label in labels:
        found = re.findall(r"(-?\d+(?:\.\d+)?)\s*$", label.strip())
        counts.append(int(float(found[0])) if found else 0)
    return counts


def wait_for_bars(page, prefix: str, total: int, timeout_s: float = 8.0) -> list[int]:
    """The bars drawn once their counts add up to `total` (the current run's examples); the last
    bars seen when they do not within `timeout_s` (the caller's assert says what was shown)."""
    import time

    end = time.monotonic() + timeout_s
    while True:
        bars = histogram_bars(page, prefix)
        if sum(bars) == total or time.monotonic() > end:
            return bars
        page.wait_for_timeout(250)


def headline_text(page, prefix: str) -> str:
    """The headline as read (non-breaking spaces read as spaces)."""
    return page.locator(f"#{prefix}headline").inner_text().replace("\xa0", " ")


def lines_of(page, prefix: str, text: str) -> int:
    """On how many lines of the headline `text` is drawn (the innermost element holding it; 0 when absent)."""
    return page.evaluate(
        """([sel, text]) => {
            const norm = s => s.replace(/\\s+/g, ' ');
            const root = document.querySelector(sel);
            if (!root) return 0;
            let found = null;
            for (const e of root.querySelectorAll('*')) if (norm(e.textContent).includes(text)) found = e;
            if (!found) return 0;
            const range = document.createRange();
            range.selectNodeContents(found);
            const tops = [...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top));
            return new Set(tops).size;
        }""",
        [f"#{prefix}headline", text],
    )


def page_height(page) -> int:
    return page.evaluate("() => document.documentElement.scrollHeight")


def settled(page, timeout_ms: int = 60_000) -> None:
    """Wait until no Gradio component shows its progress (a pending status tracker, an ETA bar or a
    progress text) and the network is idle: the page has finished drawing the last result."""
    page.wait_for_function(
        "() => !document.querySelector('.wrap.pending, .eta-bar, .progress-text, .progress-level')",
        timeout=timeout_ms,
    )
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(300)  # the plot draws a frame after its data arrives


def axis_labels(page, prefix: str, axis: str) -> list[dict]:
    """The histogram's tick labels of `axis` ("x" or "y") as drawn: [{text, x, y, width, height}]
    (Vega's SVG axis labels, or the HTML histogram's `.mm-axis-<axis> .mm-tick`)."""
    return page.evaluate(
        """([sel, axis]) => {
            const root = document.querySelector(sel);
            if (!root) return [];
            const vega = `svg g.role-axis[aria-label^="${axis.toUpperCase()}-axis"] .role-axis-label text`;
            const found = [...root.querySelectorAll(`${vega}, .mm-axis-${axis} .mm-tick`)];
            return found.map(e => { const r = e.getBoundingClientRect();
                return {text: e.textContent.trim(), x: r.left, y: r.top, width: r.width, height: r.height}; });
        }""",
        [f"#{prefix}histogram", axis],
    )


def overlapping(boxes: list[dict]) -> list[tuple]:
    """The pairs of drawn boxes that overlap (more than a pixel each way)."""
    pairs = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            dx = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
            dy = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
            if dx > 1 and dy > 1:
                pairs.append((a["text"], b["text"]))
    return pairs


def column_header_box(page, prefix: str, header: str) -> dict | None:
    """Where the per-example table's column `header` is drawn, and the table's visible box: {x, right,
    table_left, table_right} (None when the table has no such column)."""
    return page.evaluate(
        """([sel, header]) => {
            const table = document.querySelector(sel);
            if (!table) return null;
            const cells = [...table.querySelectorAll('[role=columnheader]')];
            const cell = cells.find(c => c.innerText.trim() === header);
            if (!cell) return null;
            const r = cell.getBoundingClientRect(), t = table.getBoundingClientRect();
            return {x: r.left, right: r.right, table_left: t.left, table_right: t.right};
        }""",
        [f"#{prefix}table", header],
    )


# ------------------------------------------------------------------------------------------------
# Fixtures: one browser and each app served once per session, a fresh browser context per test
# ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    try:
        browser = launch_browser(playwright)  # no skip: a browser that cannot start fails the tests
    except Exception:
        playwright.stop()
        raise
    yield browser
    browser.close()
    playwright.stop()


@pytest.fixture(scope="session")
def served():
    """name -> (app module, url); each app starts on first use and serves every browser test of the
    session (building one takes seconds: the playground holds all eight pages)."""
    apps = {}

    def serve(name):
        if name not in apps:
            path = (
                ROOT / "spaces" / "playground" / "app.py"
                if name == "playground"
                else ROOT / "metrics" / name / "app.py"
            )
            apps[name] = start_app(path)
        return apps[name]

    yield serve
    for module, _ in apps.values():
        module.demo.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1360, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    yield page
    context.close()


def save_docs_screenshot(shot) -> None:
    """docs/playground.png: the screenshot, scaled to 1000 px wide and palette-quantised (small)."""
    from PIL import Image

    image = Image.open(shot).convert("RGB")
    image = image.resize((1000, round(image.height * 1000 / image.width)), Image.LANCZOS)
    image.quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(
        ROOT / "docs" / "playground.png", optimize=True
    )


PAGE_SHOTS = SHOTS / os.environ.get("MM_SHOTS_TAG", "page")  # MM_SHOTS_TAG=before: the same states on main


def open_page(page, served, name: str) -> str:
    """metrics/<name>/app.py served (fixture ``served``) and opened in ``page`` at desktop size; returns its
    address."""
    _, url = served(name)
    page.set_viewport_size(DESKTOP)
    page.goto(url)
    return url


def shot(page, name: str, full_page: bool = True) -> None:
    """A screenshot of the page once it has finished computing and drawing (ui.settled)."""
    settled(page)
    PAGE_SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(PAGE_SHOTS / f"{name}.png"), full_page=full_page)


def error_badges(page) -> int:
    """How many Gradio status trackers show their bare "Error" (a failure the page did not explain)."""
    return page.locator("[data-testid=status-tracker]").get_by_text(re.compile(r"^\s*Error\s*$")).count()
