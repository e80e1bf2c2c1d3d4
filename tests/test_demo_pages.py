"""The logic of single pages, without a browser: det_f1's picture (multimodal_metrics.det_f1.drawing),
fid_clip's uploads (multimodal_metrics.demo.uploads), ru_meteor's alignment (multimodal_metrics.demo.alignment),
the readers of the boxes and the generic page's reading of the option table (multimodal_metrics.demo)."""

import warnings

import numpy as np
import pytest

from multimodal_metrics import det_f1, fid_clip, ru_meteor
from multimodal_metrics.demo import alignment, parsing, uploads
from multimodal_metrics.demo.metric_page import Run
from multimodal_metrics.det_f1 import drawing


# ---- det_f1's picture ------------------------------------------------------------------------
def test_picture_colours_each_box_by_its_status():
    """A hit ground-truth box is drawn green, a missed one orange, a true positive blue, a false
    positive red: the colours are at the boxes' edges in the picture."""
    options = det_f1.OPTIONS.resolve("default", {})
    ref = {"cat": [[10, 10, 40, 40]], "dog": [[200, 200, 40, 40]]}
    pred = {"cat": [[10, 10, 40, 40], [120, 10, 30, 30]], "dog": []}
    picture = drawing.draw_images(["one"], [pred], [ref], options)
    pixels = np.asarray(picture)
    scale = 420.0 / 240  # the largest coordinate (240) is drawn 420 px from the margin
    edge = pixels[round(20 + 10 * scale), round(20 + 135 * scale)]  # the false positive's top edge
    assert tuple(int(v) for v in edge) == drawing.COLORS["fp"]
    found = {tuple(int(v) for v in p) for p in pixels.reshape(-1, 3)}
    for status in ("tp", "fp", "miss"):
        assert drawing.COLORS[status] in found, status
    assert drawing.draw_images([], [], [], options) is None


def test_picture_note_counts_only_the_images_drawn():
    """Five images, the fifth with a missed box: the note says the first four are drawn and counts no
    dashed box of the undrawn image; under one_to_one nothing is said about FN."""
    ref = [{"cat": [[0, 0, 10, 10]]}] * 4 + [{"cat": [[0, 0, 10, 10], [50, 50, 10, 10]]}]
    pred = [{"cat": [[0, 0, 10, 10]]}] * 4 + [{"cat": [[0, 0, 10, 10], [0, 0, 10, 10]]}]
    names = [f"image {i}" for i in range(5)]
    options = det_f1.OPTIONS.resolve("default", {})
    result = det_f1.score(pred, ref)
    note = drawing.picture_note(names, pred, ref, options, result)
    assert f"first {drawing.MAX_PANELS} of the 5 images" in note
    assert "dashed box" not in note  # the only missed box is in the fifth image, not drawn
    drawn = drawing.draw_images(names, pred, ref, options)
    assert drawn.height < 5 * 420  # four panels
    one = drawing.picture_note(names[4:], pred[4:], ref[4:], options, det_f1.score(pred[4:], ref[4:]))
    assert "**1 dashed box(es) drawn, FN = 0" in one
    strict = det_f1.OPTIONS.resolve("one_to_one", {})
    assert "dashed box" not in drawing.picture_note(names[4:], pred[4:], ref[4:], strict, result)


def test_picture_says_in_words_what_it_draws():
    """The picture's text alternative: per image drawn and per class, the ground-truth boxes hit and
    missed and the predictions that hit or are false positives / uncounted duplicates."""
    ref = [{"cat": [[0, 0, 10, 10], [50, 50, 10, 10]], "dog": []}, {"cat": [[0, 0, 10, 10]]}]
    pred = [{"cat": [[0, 0, 10, 10], [0, 0, 10, 10]], "dog": [[5, 5, 5, 5]]}, {"cat": []}]
    names = ["a.jpg", "b.jpg"]
    text = drawing.picture_text(names, pred, ref, det_f1.OPTIONS.resolve("default", {}))
    assert text == (
        "Boxes of 2 images. a.jpg: cat: 2 ground-truth boxes (1 hit, 1 missed), 2 predictions (1 hit, 1 "
        "uncounted duplicate); dog: 0 ground-truth boxes, 1 prediction (1 false positive). "
        "b.jpg: cat: 1 ground-truth box (1 missed), 0 predictions."
    )
    strict = drawing.picture_text(names * 3, pred * 3, ref * 3, det_f1.OPTIONS.resolve("one_to_one", {}))
    assert strict.startswith(
        "Boxes of 4 images (the first 4 of 6). a.jpg: cat: 2 ground-truth boxes (1 hit, 1 missed), "
        "2 predictions (1 hit, 1 false positive);"
    ), strict


def test_labels_are_placed_in_free_rows():
    placed = []
    first = drawing.place_label(10, 30, 50, placed)
    second = drawing.place_label(12, 31, 50, placed)  # wanted over the first: moved to the next row
    assert not drawing.overlap(first, second) and second[1] >= first[3]
    assert drawing.place_label(10, 0, 20, [])[1] >= drawing.LABEL_PX + 4  # never over the image's name


# ---- the boxes' readers ------------------------------------------------------------------------
def test_snippets_split_on_the_separator_line_or_read_as_json():
    text = "def f():\n    '''\n    -----\n    '''\n=== next example ===\ndef g(): pass\n"
    assert parsing.split_snippets(text) == ["def f():\n    '''\n    -----\n    '''\n", "def g(): pass\n"]
    assert parsing.split_snippets('["a = 1\\n=== next example ===\\n", "b"]') == [
        "a = 1\n=== next example ===\n",
        "b",
    ]
    assert parsing.split_snippets("[x for x in y]") == ["[x for x in y]"]  # code, not JSON
    assert parsing.split_snippets("") == parsing.split_snippets(" \n\t\n") == []  # no snippet: refused


def test_image_pairs_align_fusion_brain_files_by_key():
    refs = '{"b.jpg": {"cat": [[0, 0, 1, 1]]}, "a.jpg": {"dog": []}}'
    preds = '{"a.jpg": {"dog": [[1, 1, 2, 2]]}, "b.jpg": {"cat": []}}'
    p, r, names = parsing.image_pairs(refs, preds)
    assert names == ["b.jpg", "a.jpg"] and p[0] == {"cat": []} and r[1] == {"dog": []}
    p, r, names = parsing.image_pairs('[{"cat": []}]', '[{"cat": [[0, 0, 1, 1]]}]')
    assert names == ["image 0"] and len(p) == len(r) == 1
    with pytest.raises(ValueError, match="give both sides as"):
        parsing.image_pairs(refs, '[{"cat": []}]')
    with pytest.raises(ValueError, match=r"^`references` is empty: paste this$"):
        parsing.image_pairs("", preds, "paste this")
    with pytest.raises(ValueError, match=r"^`predictions` is empty"):  # both empty: as the metric says
        parsing.image_pairs("", " ", "paste this")
    assert parsing.one_key_per_line({"a": [1], "b": {}}) == '{\n  "a": [1],\n  "b": {}\n}'


# ---- fid_clip's uploads ------------------------------------------------------------------------
def run_of(values: dict, **chosen) -> Run:
    values = {"gen": None, "real": None, "weights_file": None, "prompts": "", **values}
    return Run(
        fid_clip.OPTIONS, "default", values, {o.name: None for o in fid_clip.OPTIONS if o.demo} | chosen
    )


def test_an_image_uploaded_twice_is_scored_once_and_said(tmp_path):
    """Same content, same prompt: left out with a warning naming both files; same content with another
    prompt: another CLIP example, kept."""
    for name, data in (("a.png", b"one"), ("b.png", b"one"), ("c.png", b"two")):
        (tmp_path / name).write_bytes(data)
    paths = [str(tmp_path / n) for n in ("a.png", "b.png", "c.png")]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kept, texts = uploads.without_duplicates(paths, "predictions", ["x", "x", "y"])
        assert (kept, texts) == ([paths[0], paths[2]], ["x", "y"])
        assert uploads.without_duplicates(paths, "predictions", ["x", "z", "y"])[0] == paths
        assert uploads.without_duplicates(paths, "references") == ([paths[0], paths[2]], None)
    messages = [str(w.message) for w in caught]
    assert messages[0] == (
        "`predictions`: b.png has the same content as a.png and the same prompt: scored once (uploaded twice?)"
    )
    assert len(messages) == 2 and "same prompt" not in messages[1]


def test_upload_errors_name_files_not_server_paths(tmp_path):
    path = str(tmp_path / "gradio" / "abc123" / "cat.png")
    err = uploads.without_paths(ValueError(f"`predictions`: {path!r} is not an image ({path})"), [path, None])
    assert str(err) == "`predictions`: 'cat.png' is not an image (cat.png)"
    assert uploads.file_paths(None) == [] and uploads.file_paths([path]) == [path]


def test_feature_files_are_read_without_pickles(tmp_path):
    good, stats = tmp_path / "gen.npy", tmp_path / "stats.npz"
    np.save(good, np.ones((3, 2)))
    np.savez(stats, mu=np.zeros(2), sigma=np.eye(2))
    assert uploads.feature_array(str(good), "predictions").shape == (3, 2)
    assert set(uploads.load_array(str(stats), "references")) == {"mu", "sigma"}
    objects, text, flat = tmp_path / "objects.npy", tmp_path / "notes.npy", tmp_path / "flat.npy"
    np.save(objects, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    text.write_bytes(good.read_bytes()[:40])  # a .npy cut short
    np.save(flat, np.ones(4))
    for name, data in (("words.npy", b"gen features, one per line\n"), ("pickled.npy", b"\x80\x04K\x01.")):
        (tmp_path / name).write_bytes(data)  # not numpy's (numpy reads such a file as a pickle)
        with pytest.raises(ValueError, match=rf"^`predictions`: {name} is not a numpy file \(a .npy written"):
            uploads.feature_array(str(tmp_path / name), "predictions")
    with pytest.raises(ValueError, match=r"^`predictions`: objects.npy holds Python objects") as err:
        uploads.feature_array(str(objects), "predictions")
    assert "unsafe" not in str(err.value) and str(tmp_path) not in str(err.value)
    with pytest.raises(
        ValueError, match=r"^`references`: notes.npy is not a .npy / .npz file numpy can read$"
    ):
        uploads.load_array(str(text), "references")
    with pytest.raises(ValueError, match=r"flat.npy must hold a 2-D \(N, d\) array"):
        uploads.feature_array(str(flat), "predictions")
    with pytest.raises(ValueError, match=r"upload the references file .*`.npz` statistics"):
        uploads.feature_array(None, "references")
    gen, real = uploads.example_feature_files()
    assert np.load(gen).shape == np.load(real).shape == (200, 16)


def test_images_read_into_the_metric_arguments(tmp_path, monkeypatch):
    """The uploads become fid_clip's arguments: duplicates dropped, prompts paired, FID's resamples when
    there are real images, the CLIP model only with prompts; the page's own limits refused first."""
    monkeypatch.delenv("SPACE_ID", raising=False)
    folder = tmp_path / "clip"
    folder.mkdir()
    images = []
    for i in range(3):
        images.append(str(tmp_path / f"g{i}.png"))
        (tmp_path / f"g{i}.png").write_bytes(bytes([i]))
    weights = tmp_path / "w.pth"
    weights.write_bytes(b"w")
    run = run_of({"gen": images, "real": images[:2], "prompts": "a\nb\nc", "weights_file": str(weights)},
                 clip_model=str(folder))  # fmt: skip
    kwargs, columns = uploads.read_images(run)
    assert kwargs["n_resamples"] == fid_clip.FID_RESAMPLES and kwargs["inception_weights"] == str(weights)
    assert kwargs["clip_model"] == str(folder) and kwargs["texts"] == ["a", "b", "c"]
    assert columns == {"image": ["g0.png", "g1.png", "g2.png"], "prompt": ["a", "b", "c"]}
    kwargs, _ = uploads.read_images(run_of({"gen": images}, clip_model=str(folder)))
    assert kwargs["clip_model"] is None and kwargs["return_per_example"] is False
    assert kwargs["n_resamples"] == 1000 and kwargs["references"] is None
    with pytest.raises(ValueError, match="give one prompt per generated image: 2 prompts for 3 images"):
        uploads.read_images(run_of({"gen": images, "prompts": "a\nb"}))
    with pytest.raises(ValueError, match=r"upload the generated images"):
        uploads.read_images(run_of({}))


# ---- ru_meteor's alignment ---------------------------------------------------------------------
def test_alignment_colours_the_aligned_words_by_stage():
    options = ru_meteor.OPTIONS.resolve("captioning", {"synonyms": "none"})
    text = alignment.alignment_html("две птицы летали", ["две птицы летают", "кот"], options, "<p>head</p>")
    assert '<span class="mm-exact">две</span>' in text and '<span class="mm-stem">летали</span>' in text
    assert "best reference</b> (#0 of the line" in text and text.count("<p>head</p>") == 1
    assert alignment.tokens_html(["<b>", "x"], {0: "exact"}) == '<span class="mm-exact">&lt;b&gt;</span> x'


def test_alignment_picker_outside_the_examples_shows_the_nearest():
    options = ru_meteor.OPTIONS.resolve("captioning", {"synonyms": "none"})
    computed = (["кот спит", "пёс"], ["кот спит", ["собака", "пёс"]], options)
    for asked, shown in ((-1, 0), (5, 1), ("x", 0), (1, 1)):
        text = alignment.aligned_example(computed, asked)
        assert f"Alignment of example #{shown}" in text, (asked, text)
        assert ("There is no example" in text) == (asked not in (shown, "x")), (asked, text)
    assert "Press Compute" in alignment.aligned_example(None, 0)


def test_only_synonym_sources_that_run_here_are_offered():
    offered = alignment.offered_synonyms(ru_meteor.OPTIONS["synonyms"])
    assert "none" in offered and set(offered) <= set(ru_meteor.OPTIONS["synonyms"].choices)
    assert all(alignment.runs_here(c) for c in offered)
    assert alignment.offered_synonyms(ru_meteor.OPTIONS["alpha"]) is None


# ---- the generic page reads the option table ---------------------------------------------------
def test_a_run_resolves_the_options_of_the_table():
    """`Run.resolved` is OPTIONS.resolve(preset, chosen): what det_f1 draws with, never read back from the
    signature."""
    run = Run(det_f1.OPTIONS, "one_to_one", {}, {"iou_threshold": 0.7, "matching": None})
    assert run.resolved() == det_f1.OPTIONS.resolve("one_to_one", {"iou_threshold": 0.7})
    assert run.resolved()["matching"] == det_f1.PRESETS["one_to_one"]["matching"]


def test_a_page_offers_the_table_presets_and_widgets():
    """Every preset of the table, starting on its default preset; one widget per demo row; a required
    choice without a preset value offers its choices alone."""
    pytest.importorskip("gradio")
    import gradio as gr

    from multimodal_metrics import codebleu
    from multimodal_metrics.demo import Box, MetricPage

    page = MetricPage(codebleu, "codebleu.py", "intro", boxes=[Box("preds", "p"), Box("refs", "r")])
    with gr.Blocks():
        page.build_ui("x_")
    assert page.names == ["preds", "refs", "preset", *(f"opt_{o.name}" for o in codebleu.OPTIONS if o.demo)]
    preset, lang = page.components[2], page.components[3]
    assert [c[0] for c in preset.choices] == list(codebleu.PRESETS)
    assert preset.value == codebleu.OPTIONS.default_preset and preset.elem_id == "x_preset"
    assert [c[0] for c in lang.choices] == list(codebleu.OPTIONS["lang"].choices)
    assert lang.value == codebleu.OPTIONS["lang"].choices[0]
