"""fid_clip's page in a real browser: FID without weights, the weights file in the signature, a file uploaded
twice, the upload buttons' names, the missing-weights message, FID from feature files, the limits on a
Space (fixtures: tests/_browser.py; tiny weights: tests/_browser_cases.py).
"""

import re
from pathlib import Path

import _browser as ui
from _browser import DESKTOP, shot
from _browser_cases import CASES
from helpers import load_metric

from multimodal_metrics.demo import fmt  # the rounding the page shows

pytest_plugins = ["_browser", "_browser_cases"]  # the fixtures browser, served, page, resources


def open_with_images(page, served, resources, extra=()) -> dict:
    """fid_clip's page at desktop size with the case's generated (then ``extra``) and real images uploaded
    and no prompts; returns the case's resources."""
    _, url = served("fid_clip")
    res = resources("fid_clip")
    page.set_viewport_size(DESKTOP)
    page.goto(url)
    ui.upload(page, "gen", [*res["gen"], *extra])
    ui.upload(page, "real", res["real"])
    ui.set_text(page, "prompts", "")
    return res


def test_fid_clip_gives_a_number_without_weights(page, served):
    """fid_clip: the example feature files load with a button and give FID (numpy/scipy only, no weights)."""
    import numpy as np

    from multimodal_metrics.demo import uploads

    ui.open_page(page, served, "fid_clip")
    page.locator("#features_example").click()
    page.locator("#feat_gen td.filename").first.wait_for(state="attached")
    ui.compute(page, "", button="go_features")
    shot(page, "fid_clip_features")
    gen, real = uploads.example_feature_files()
    expected = load_metric("fid_clip", "default").compute(
        predictions=np.load(gen), references=np.load(real), **CASES["fid_clip"].ci
    )
    assert fmt(expected["fid"]) in ui.headline_text(page, ""), (expected, ui.headline_text(page, ""))
    # FID is one number for the whole set: no empty table and empty plot, a line that says why
    headers, rows = ui.read_table(page, "")
    note = page.locator("#histogram").inner_text()
    assert not rows and "clip_score" not in headers and "one number for the whole set" in note, (
        headers,
        note,
    )


def test_fid_clip_signature_names_the_weights_file(page, served, resources):
    """fid_clip with tiny random Inception weights (same layer names as pytorch-fid's file): the signature
    shown does not call them inception-2015-12-05; it holds the file's content hash."""
    import hashlib

    res = open_with_images(page, served, resources)
    ui.set_option(page, "opt_inception_weights", res["inception"])
    ui.compute(page, "")
    shot(page, "fid_clip_signature")
    signature = ui.get_text(page, "signature")
    digest = hashlib.sha256(Path(res["inception"]).read_bytes()).hexdigest()
    assert "inception-2015-12-05" not in signature and f"sha256-{digest[:12]}" in signature, signature


def test_fid_clip_duplicate_upload_is_said(page, served, resources, tmp_path):
    """The same image uploaded twice (two names, same bytes): the page scores it once and says so."""
    import shutil

    copy = tmp_path / "copy_of_gen0.png"
    shutil.copy(resources("fid_clip")["gen"][0], copy)
    res = open_with_images(page, served, resources, extra=[str(copy)])
    ui.set_option(page, "opt_inception_weights", res["inception"])
    ui.compute(page, "")
    shot(page, "fid_clip_duplicate")
    expected = load_metric("fid_clip", "default").compute(
        predictions=res["gen"],
        references=res["real"],
        inception_weights=res["inception"],
        **CASES["fid_clip"].ci,
    )
    text = ui.headline_text(page, "")
    assert fmt(expected["fid"]) in text and re.search(r"copy_of_gen0\.png.*same content.*gen0\.png", text), (
        text
    )


def test_fid_clip_upload_buttons_have_their_own_names(page, served):
    """fid_clip's upload buttons are named after their boxes (all were "Click to upload or drop files")."""
    ui.open_page(page, served, "fid_clip")
    page.locator("#go").wait_for(state="visible")
    page.wait_for_timeout(500)
    names = page.locator("button.upload-container").evaluate_all(
        "bs => bs.map(b => b.getAttribute('aria-label'))"
    )
    assert len(names) == 5 and len(set(names)) == 5 and all(n.startswith("upload ") for n in names), names
    assert page.get_by_role("button", name="upload generated images", exact=True).count() == 1


def test_fid_clip_missing_weights_message_a_visitor_can_follow(
    page, served, resources, tmp_path, monkeypatch
):
    """fid_clip with images and no Inception weights on the server: the message links the weights file
    (a working address: it held `%5C` before) and says to upload it or use feature files, not what a
    browser cannot do (HF_HUB_OFFLINE, feature_extractor, a server path)."""
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "empty_torch_home"))
    open_with_images(page, served, resources)
    message = ui.error_after_compute(page, "")
    shot(page, "fid_clip_no_weights", full_page=False)
    link = page.locator("#headline a").first.get_attribute("href")
    assert link.startswith(
        "https://github.com/mseitzer/pytorch-fid/releases/download/fid_weights/pt_inception-2015-12-05-6726825d.pth"
    ), link
    assert "%5C" not in link and "upload it" in message and "feature" in message, message
    assert not re.search(r"HF_HUB_OFFLINE|feature_extractor|/root|/home|\.cache", message), message


def test_fid_clip_features_result_is_in_view_and_bad_files_read_plainly(page, served, tmp_path):
    """fid_clip: "Compute FID from files" brings its result into view (it was 520 px above the window);
    an .npy of Python objects and a damaged .npz are named by their file name with a plain reason (not
    numpy's advice to load unsafely, not the server's temporary path)."""
    import numpy as np

    url = ui.open_page(page, served, "fid_clip")
    page.locator("#features_example").click()
    page.locator("#feat_gen td.filename").first.wait_for(state="attached")
    page.locator("#go_features").scroll_into_view_if_needed()
    ui.compute(page, "", button="go_features")
    ui.settled(page)
    box = page.locator("#headline").bounding_box()
    shot(page, "fid_clip_features_in_view", full_page=False)
    assert -2 <= box["y"] < DESKTOP["height"] - 40, box
    objects, broken = tmp_path / "objects.npy", tmp_path / "broken.npz"
    np.save(objects, np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    for gen, real, expected in (
        (objects, None, r"objects\.npy holds Python objects"),
        (None, broken, r"broken\.npz is not a \.npy / \.npz file"),
    ):
        page.goto(url)
        page.locator("#features_example").click()
        page.locator("#feat_gen td.filename").first.wait_for(state="attached")
        for box_id, path in (("feat_gen", gen), ("feat_real", real)):
            if path is not None:
                page.locator(
                    f"#{box_id} button[aria-label='Clear'], #{box_id} button[title='Clear']"
                ).first.click()
                ui.upload(page, box_id, [str(path)])
        message = ui.error_after_compute(page, "", button="go_features")
        assert re.search(expected, message), message
        assert (
            "unsafely" not in message
            and "allow_pickle" not in message
            and "/tmp" not in message
            and "gradio" not in message
        ), message


def test_fid_clip_caps_pre_resize_and_keeps_server_files_to_itself(page, served, resources, monkeypatch):
    """fid_clip: pre_resize above 1024 is refused (4096 took 4 GB); on a Space a typed weights path outside
    the operator's folders is refused by one message whether the file exists or not (/etc/shadow was
    "cannot read as a torch state dict", a missing file "does not exist"), and the uploaded weights file
    is used instead."""
    monkeypatch.setenv("SPACE_ID", "multimodal-metrics/fid_clip")
    monkeypatch.delenv("MM_DEMO_PATHS", raising=False)
    res = open_with_images(page, served, resources)
    ui.set_option(page, "opt_pre_resize", "4096")
    assert "pre_resize is at most 1024 here" in ui.error_after_compute(page, "")
    ui.set_option(page, "opt_pre_resize", "")
    said = []
    for path in ("/etc/shadow", "/etc/no_such_file.pth", res["inception"]):
        ui.set_option(page, "opt_inception_weights", path)
        said.append(ui.error_after_compute(page, "").replace(repr(path), "PATH").replace(path, "PATH"))
    shot(page, "fid_clip_space_path_refused", full_page=False)
    assert said[0] == said[1] == said[2] and "not in a folder this Space reads" in said[0], said
    ui.set_option(page, "opt_inception_weights", "")
    ui.upload(page, "weights_file", [res["inception"]])
    ui.compute(page, "")
    assert "fid" in ui.read_headline(page, ""), ui.headline_text(page, "")[:500]
