"""The page around a demo: its script and style, its gr.Blocks, the metric card."""

import functools
from pathlib import Path

from .settings import UPLOAD_MB

# The page's script, run once per page (idempotent): Tab leaves a dropdown with its list closed (Gradio
# reopened it after the blur); Enter on a dropdown's option leaves the focus on that dropdown, list closed
# (Gradio blurred it: the focus went to <body>, no ring drawn), and a click on it opens its list again;
# each press of a Compute button is counted
# per result panel, and the panel's outputs are hidden from a press until the result of the last press (a
# result's mark in its headline: `connect`): never a result beside inputs it was not computed from; after
# a preset change (`outdated`, called by the preset dropdown's change event) the result shown is dimmed
# and says so until the next result; every upload button is named after its box; `?tab=<id>` opens that
# tab (the playground's metric), and the address follows the tab a person picks.
PAGE_JS = """if (!window.mmDemo) {
  const demo = window.mmDemo = {press: {}};
  const key = (e, prefix) => [...e.classList].find(c => c.startsWith(prefix))?.slice(prefix.length);
  const combobox = t => t && t.getAttribute && t.getAttribute('role') === 'combobox';
  document.addEventListener('keydown', e => {
    if (e.key === 'Tab' && combobox(e.target)) e.stopPropagation();
    if (e.key === 'Enter' && combobox(e.target)) demo.chosen = e.target;  // Gradio blurs it: focus comes back
  }, true);
  document.addEventListener('mousedown', e => {  // a click on a focused dropdown opens its list (Gradio opens on focus)
    if (combobox(e.target) && document.activeElement === e.target) e.target.blur();
  }, true);
  document.addEventListener('focusout', e => {
    const input = demo.chosen;
    if (!input || e.target !== input) return;
    demo.chosen = null;
    if (!e.relatedTarget) setTimeout(() => {  // to <body>: back on the dropdown, its list closed
      if (document.activeElement && document.activeElement !== document.body) return;
      input.focus();
      input.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}));
    }, 0);
  }, true);
  demo.old = {};  // panel -> {press, preset}: the result shown was computed before the preset changed
  demo.outdated = (k, preset) => { demo.old[k] = {press: demo.press[k] || 0, preset}; tidy(); };
  document.addEventListener('click', e => {
    const button = e.target.closest && e.target.closest('.mm-compute'), tab = e.target.closest && e.target.closest('[role=tab][data-tab-id]');
    if (button) { const k = key(button, 'mm-press-'); demo.press[k] = (demo.press[k] || 0) + 1; tidy(); }
    if (tab && e.isTrusted) history.replaceState(null, '', '?tab=' + encodeURIComponent(tab.dataset.tabId));
  }, true);
  demo.tab = new URLSearchParams(location.search).get('tab');
  const tidy = () => {
    const wanted = demo.tab && [...document.querySelectorAll('[role=tab][data-tab-id]')].find(t => t.dataset.tabId === demo.tab);
    if (wanted) { demo.tab = null; wanted.click(); }
    document.querySelectorAll('.mm-ticket[title]').forEach(mark => {  // "<panel> <press> <headline id>"
      const [k, ticket, id] = mark.title.split(' '), head = document.getElementById(id);
      const stale = Number(ticket) < (demo.press[k] || 0);  // Compute pressed since: hidden until its result
      if (!stale && !mark.dataset.mmSeen) {  // a new result: brought into view
        const box = (mark.dataset.mmSeen = 1) && head?.getBoundingClientRect();
        if (box && (box.top < 0 || box.top > innerHeight - 80)) head.scrollIntoView();
      }
      document.querySelectorAll('.mm-out-' + k).forEach(o => { if (o.classList.contains('mm-stale') !== stale) o.classList.toggle('mm-stale', stale); });
      const old = demo.old[k], outdated = !!old && !stale && Number(ticket) <= old.press;
      if (old && Number(ticket) > old.press) delete demo.old[k];
      document.querySelectorAll('.mm-out-' + k).forEach(o => { if (o.classList.contains('mm-outdated') !== outdated) o.classList.toggle('mm-outdated', outdated); });
      let note = head && head.querySelector(':scope > .mm-outdated-note');
      if (outdated && head) {
        const text = `Outdated: computed before the preset was changed to ${old.preset}. Press Compute for the result of the preset, inputs and options shown.`;
        if (!note) { note = document.createElement('p'); note.className = 'mm-outdated-note'; note.setAttribute('role', 'status'); head.prepend(note); }
        if (note.textContent !== text) note.textContent = text;
      } else if (note) note.remove();
    });
    document.querySelectorAll('button.upload-container').forEach(b => {  // named after its box
      const name = 'upload ' + b.closest('.block')?.querySelector('[data-testid=block-label]')?.innerText.trim();
      if (b.getAttribute('aria-label') !== name) b.setAttribute('aria-label', name);
    });
  };
  new MutationObserver(tidy).observe(document.body, {subtree: true, childList: true, attributes: true, attributeFilter: ['class']});
  tidy();
}"""
PAGE_CSS = (  # paired boxes (`mm-lines`) never wrap a line: line n of one faces line n of the other
    ".mm-page{display:none} .mm-stale>:not([data-testid=status-tracker]){visibility:hidden}"
    ".mm-outdated>:not(.mm-outdated-note):not([data-testid=status-tracker]){opacity:.4}"
    ".mm-outdated-note{margin:0 0 8px;padding:6px 10px;border-left:4px solid #d97706;background:#fff7e6;"
    "color:#7c2d12;font-weight:600}"
    ".mm-pair{align-items:flex-end}"
    ".mm-lines textarea{white-space:pre!important;overflow-wrap:normal!important;overflow-x:auto!important}"
    ".mm-code textarea{font-family:var(--font-mono,monospace)!important;font-size:13px!important}"
    "[role=columnheader],[role=columnheader] *,[id$=headline] td{word-break:keep-all!important;overflow-wrap:normal!important}"
)


def page_blocks(title: str):
    """The gr.Blocks of a demo page: an upload larger than UPLOAD_MB is refused (the `max_file_size` of
    its `launch`, unless given), and the uploads and the files the demo wrote are deleted an hour later."""
    import gradio as gr

    page = gr.Blocks(title=title, delete_cache=(600, 3600))
    page.launch = functools.partial(page.launch, max_file_size=f"{UPLOAD_MB}mb")
    return page


def card_body(card: Path) -> str:
    """The metric card without its YAML front matter (shown under the demo)."""
    text = card.read_text(encoding="utf-8") if card.exists() else ""
    end = text.find("\n---", 3) if text.startswith("---") else -1
    return text[end + 4 :] if end != -1 else text
