"""The demos' shared helpers (multimodal_metrics.demo) on their own, without a browser."""

import pytest


@pytest.fixture(scope="module")
def demo():
    from multimodal_metrics import demo

    return demo


def test_empty_options_mean_the_preset(demo):
    for sent in (None, "", "preset", "  "):
        assert demo.chosen_number(sent, "threshold") is None
    assert demo.chosen(None) is None and demo.chosen("preset") is None and demo.chosen("strict") == "strict"
    assert demo.chosen_number("0", "threshold") == 0.0  # a typed 0 is a 0, not the preset
    assert demo.chosen_number(-1, "threshold") == -1.0
    assert demo.chosen_number("10", "num_answers", integer=True) == 10
    assert (demo.chosen_bool("preset", "x"), demo.chosen_bool("yes", "x"), demo.chosen_bool("no", "x")) == (
        None,
        True,
        False,
    )


def test_bad_options_name_the_option(demo):
    with pytest.raises(ValueError, match=r"`threshold` must be a number .*'abc'"):
        demo.chosen_number("abc", "threshold")
    with pytest.raises(ValueError, match=r"`num_answers` must be a whole number .*'2.5'"):
        demo.chosen_number("2.5", "num_answers", integer=True)
    with pytest.raises(ValueError, match=r"`keep_hyphen` must be preset, yes or no"):
        demo.chosen_bool("maybe", "keep_hyphen")
    with pytest.raises(ValueError, match=r"`predictions` is not valid JSON"):
        demo.parse_items('["a", ', "predictions")
    with pytest.raises(ValueError, match=r"`references` is not valid JSON"):
        demo.parse_json("{", "references")
    for empty in ("", "  \n", None):  # an empty box says so and what to put there (not "Expecting value")
        with pytest.raises(ValueError, match=r"^`references` is empty: paste JSON such as \{\}$"):
            demo.parse_json(empty, "references", "paste JSON such as {}")


def test_a_bar_without_spaces_is_one_reference_and_says_so(demo):
    """`a|b` is one reference (a bar may be part of an answer), with a warning naming the example;
    `a | b` two; JSON lists as they are."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert demo.parse_alternatives("x\na|b\nc | d", "references") == ["x", "a|b", ["c", "d"]]
    assert [str(w.message) for w in caught] == [
        "`references` example 1: 'a|b' holds '|' without spaces around it, so it is read as one reference; "
        "separate accepted answers with ' | ' (space, bar, space)"
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert demo.parse_alternatives('["a|b"]', "references") == ["a|b"]
        assert demo.parse_alternatives("a | b", "references") == [["a", "b"]]


def test_numbers_are_rounded_for_reading(demo):
    assert [demo.fmt(v) for v in (0.5, 2 / 3, 1.0, 12.0, 0.00001, -0.00001, 123.456789)] == [
        "0.5", "0.6667", "1", "12", "0", "0", "123.4568",
    ]  # fmt: skip
    assert demo.fmt(float("nan")) == "nan"
    result = {
        "f1": 2 / 3,
        "precision": 0.5,
        "signature": "x|v:1",
        "per_example": [{"f1": 1.0, "precision": 1.0}, {"f1": 0.0, "precision": 0.0}],
    }
    assert demo.primary_key(result) == "f1"
    assert demo.headline(result).splitlines() == [
        "**f1:\xa00.6667**", "", "| other numbers | value |", "|---|---|", "| precision | 0.5 |",
    ]  # fmt: skip
    headers, rows = demo.per_example_rows(result, {"image": ["a.jpg", "b.jpg"]})
    assert headers == ["#", "f1", "precision", "image"]  # the scores before the (long) inputs: on screen
    assert rows == [[0, "1", "1", "a.jpg"], [1, "0", "0", "b.jpg"]]
    _, rows = demo.per_example_rows({"anls": 0.5, "per_example": [0.5]}, {"references": [["a", "b"]]})
    assert rows == [[0, "0.5", "a | b"]]


def test_headline_shows_the_interval_beside_its_number(demo):
    result = {
        "f1": 2 / 3,
        "f1_ci_low": 0.25,
        "f1_ci_high": 0.91234,
        "fid": 12.5,  # no interval: just the value
        "signature": "x|ci:bs-pct|conf:0.5|bs:9|seed:1|v:1",  # never read back: the page's resampling is
    }
    assert demo.primary_key(result) == "f1"
    assert list(demo.numbers_of(result)) == ["f1", "fid"]  # the bounds are not rows of their own
    lines = demo.headline(result, {"confidence": 0.9, "n_resamples": 1000, "seed": 7}).splitlines()
    # the primary number on a line of its own, its interval joined by non-breaking spaces (one line)
    assert lines[:5] == [
        "**f1:\xa00.6667\xa0[0.25,\xa00.9123]**",
        "",
        "| other numbers | value |",
        "|---|---|",
        "| fid | 12.5 |",
    ]
    assert (
        lines[-1]
        == "[low, high]: 90% percentile bootstrap interval over the examples (1000 resamples, seed 7)"
    )
    assert "bootstrap" not in demo.headline({"f1": 0.5, "signature": "x|v:1"})
    # the page's default resampling, and FID's bias shift said where the result has FID's interval
    note = demo.confidence_note({"fid": 3.0, "fid_ci_low": 2.0, "fid_ci_high": 4.0}, {"n_resamples": 200})
    assert note == (
        "[low, high]: 95% percentile bootstrap interval over the examples (200 resamples, seed 12345); "
        "FID's interval is moved by the bootstrap bias estimate, the reference images held fixed"
    )
    assert "bias" not in demo.confidence_note({"clip_score": 0.3, "clip_score_ci_low": 0.2})


def test_histogram_html_counts_whole_examples(demo):
    """The drawn histogram: one bar per bin with its count in its aria-label, count ticks whole numbers
    from 0 to at least the largest count, nothing for no scores."""
    import re

    text = demo.histogram_html([0.0, 0.05, 0.5, 1.0, 1.0])
    counts = [int(n) for n in re.findall(r'aria-label="score: [^;]+; examples: (\d+)"', text)]
    assert len(counts) == 10 and sum(counts) == 5 and counts[0] == 2 and counts[-1] == 2
    ticks = [int(t) for t in re.findall(r'<span class="mm-tick" style="bottom:[^"]+">(\d+)</span>', text)]
    assert ticks == [0, 1, 2]
    assert demo.histogram_html([]) == ""
    for top in range(1, 400):
        ticks = demo.count_ticks(top)
        assert (
            ticks[0] == 0 and ticks[-1] >= top and len(ticks) <= 6 and all(isinstance(t, int) for t in ticks)
        )


@pytest.fixture(scope="module")
def playground(root):
    """spaces/playground/app.py imported (every metric's demo built, nothing launched)."""
    import importlib.util

    pytest.importorskip("gradio")
    spec = importlib.util.spec_from_file_location(
        "demo_helpers_playground", root / "spaces" / "playground" / "app.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_card_summary_and_citation_of_every_card(playground, root):
    """The playground's tabs show each card's summary and BibTeX (read from the card's sections)."""
    for card in sorted((root / "metrics").glob("*/README.md")):
        assert len(playground.card_summary(card)) > 40, card
        assert playground.card_citation(card).startswith("@"), card


def test_histogram_bins_every_score_once(demo):
    frame = demo.histogram([0.0, 0.05, 0.5, 1.0, 1.0])
    assert len(frame) == 10 and frame["examples"].sum() == 5
    assert list(frame["examples"])[0] == 2 and list(frame["examples"])[-1] == 2  # 1.0 falls in the last bin
    assert len(demo.histogram([])) == 0  # nothing to draw (a failed compute clears the plot)
    wide = demo.histogram([10.0, 250.0, 31.5])  # scores outside [0, 1] (FID): bins over [min, max]
    assert wide["examples"].sum() == 3 and wide["score"][0].strip().startswith("10")
    for labels in (list(frame["score"]), list(wide["score"])):  # the plot sorts labels as strings
        assert sorted(labels) == labels, labels


def test_option_widgets_follow_the_option_table(demo):
    """Every option of a metric's table gets its widget and is read back as the option's value."""
    from multimodal_metrics import anls
    from multimodal_metrics.options import Option

    threshold, boundary = anls.OPTIONS["threshold"], anls.OPTIONS["boundary"]
    assert demo.option_value(threshold, "") is None and demo.option_value(threshold, "0.4") == 0.4
    assert demo.option_value(boundary, "preset") is None and demo.option_value(boundary, "strict") == "strict"
    flag = Option("lowercase", "lower-case first.", kind="bool")
    assert demo.option_value(flag, "yes") is True and demo.option_value(flag, "no") is False
    with pytest.raises(ValueError, match="`threshold` must be a number"):
        demo.option_value(threshold, "half")
    from multimodal_metrics import vqa_acc

    # out of the table's range: its message, the number echoed as typed (it read "got -1.0")
    with pytest.raises(ValueError, match=r"^`num_answers` must be a finite number >= 0, got -1$"):
        demo.option_value(vqa_acc.OPTIONS["num_answers"], "-1")
    with pytest.raises(ValueError, match=r"^`threshold` must be a number in \[0.0, 1.0\], got 3$"):
        demo.option_value(threshold, " 3 ")


def test_warnings_of_the_metric_are_collected_and_shown(demo):
    """The warnings raised while computing reach the panel (each once, again on the next run), not the
    stack's deprecation chatter; their `names` are drawn as code (never literal backticks), any other
    Markdown in them is shown literally."""
    import warnings

    for _ in range(2):  # a warning seen before is caught again
        with demo.caught_warnings() as caught:
            warnings.warn("codebleu: 1 of the `predictions` do not parse cleanly as java", stacklevel=1)
            warnings.warn("codebleu: 1 of the `predictions` do not parse cleanly as java", stacklevel=1)
            warnings.warn("old API", DeprecationWarning, stacklevel=1)
        assert caught.messages == ["codebleu: 1 of the `predictions` do not parse cleanly as java"]
    note = demo.warnings_note(caught.messages)
    assert "Warnings" in note and "of the `predictions` do not" in note
    assert demo.warnings_note(["a *b* `c*d` `e"]).endswith("- a \\*b\\* `c*d` \\`e")
    assert demo.warnings_note([]) == ""


def test_a_failed_compute_clears_the_panel(demo):
    """After an error the panel holds the message and nothing of the previous result."""
    pytest.importorskip("gradio")
    import gradio as gr

    with gr.Blocks():
        panel = demo.ResultPanel()
    raw, head, signature, table, bars = panel.failed("`predictions` has 3 examples but `references` has 2")
    assert raw is None and signature == "" and len(table) == 0 and bars == ""
    assert panel.in_page(panel.failed("x"))[3]["visible"] is False  # no empty grid after an error
    assert "Not computed" in head and "**Error:** `predictions` has 3 examples" in head


def test_option_help_says_what_preset_stands_for(demo):
    from multimodal_metrics import anls

    info = demo.option_info(anls.OPTIONS["threshold"], anls.OPTIONS, "stvqa")
    assert info.startswith(anls.OPTIONS["threshold"].help) and info.endswith("[preset stvqa: 0.5]"), info


def test_a_result_without_per_example_scores_hides_the_table_and_says_why(demo):
    """FID alone: the page shows no empty grid, the histogram's place says the score is one number for the set; the next
    result with per-example scores shows the table again."""
    pytest.importorskip("gradio")
    import gradio as gr

    with gr.Blocks():
        panel = demo.ResultPanel()
    shown = panel.show({"fid": 1.5, "signature": "fid_clip|v:0.1.0"}, {})
    assert len(shown[3]) == 0 and "fid is one number for the whole set" in shown[4]  # the API's values
    assert panel.in_page(shown)[3]["visible"] is False
    shown = panel.show({"anls": 0.5, "per_example": [0.0, 1.0]}, {"prediction": ["a", "b"]})
    table = panel.in_page(shown)[3]
    assert table["visible"] is True and len(table["value"]) == 2 and "aria-roledescription" in shown[4]


def import_app(root, name: str):
    """metrics/<name>/app.py imported as a module (it builds its page without launching it)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        f"demo_helpers_app_{name}", root / "metrics" / name / "app.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_vqa_acc_preset_has_an_example_that_scores(root):
    """Every preset of the dropdown loads an example, and that example computes under the preset."""
    pytest.importorskip("gradio")
    app = import_app(root, "vqa_acc")
    for preset in app.vqa_acc.PRESETS:
        predictions, references, types_a, types_b = app.example_of(preset)
        result = app.compute(
            predictions, references, types_a, types_b, preset, "", "preset", "", "preset"
        ).result
        assert result["signature"].startswith(f"vqa_acc|preset:{preset}|"), (preset, result)
    with pytest.raises(ValueError, match="`preset` must be one of"):
        app.example_of("nope")


def test_option_widgets_of_another_preset_are_disabled(demo):
    """vqa_acc's presets take different options: one the preset does not use is reset and disabled, and
    its help names the presets that use it; a single widget gets its update alone (not a list)."""
    from multimodal_metrics import codebleu, vqa_acc

    options = [vqa_acc.OPTIONS[n] for n in ("normalize", "threshold")]
    normalize, threshold = demo.preset_updates(options, vqa_acc.OPTIONS, "default")
    assert normalize["interactive"] is True and normalize["value"] == "preset"
    assert threshold["interactive"] is False and threshold["value"] == ""
    assert threshold["info"].endswith("[not used by preset default: only by wups]")
    weights = demo.preset_updates([codebleu.OPTIONS["weights"]], codebleu.OPTIONS, "pypi")
    assert isinstance(weights, dict) and weights["info"].endswith("[preset pypi: 0.25,0.25,0.25,0.25]")


def test_a_preset_change_puts_every_widget_on_the_new_preset(demo):
    """Whatever a widget held (a value typed for another preset, or chosen by the page for what is
    installed), a preset change puts it back on "preset" (a text box emptied), its label or placeholder
    saying the new preset's value; a dropdown's values stay those it was built with (a value sent is
    checked against them: "preset" was refused after a change before). Only what the person gives (a
    required option no preset sets, a model path) is kept, unless the new preset sets it."""
    from multimodal_metrics import anls, codebleu, det_f1, fid_clip, ned, ru_meteor, text_qa, vqa_acc

    for metric in (anls, ned, text_qa, vqa_acc, det_f1, codebleu, ru_meteor, fid_clip):
        table = metric.OPTIONS
        options = [o for o in table if o.demo]
        built = {o.name: demo.dropdown_choices(o, table, table.default_preset) for o in options}
        for preset in metric.PRESETS:
            for o, update in zip(options, demo.preset_updates(options, table, preset), strict=True):
                where = (metric.__name__, preset, o.name)
                own = table.presets[preset].get(o.name)
                if o.kind in ("choice", "bool"):
                    assert [v for _, v in update["choices"]] == [v for _, v in built[o.name]], where
                if demo.person_chooses(o, table) and demo.takes_option(table, preset, o.name):
                    assert update.get("value") == (None if own is None else str(own)), where
                    continue
                assert update["value"] == ("preset" if o.kind in ("choice", "bool") else ""), where
                shown = update["choices"][0][0] if o.kind in ("choice", "bool") else update["placeholder"]
                if demo.takes_option(table, preset, o.name):
                    assert shown.endswith(f"preset: {demo.preset_value(table, preset, o.name)}"), (
                        where,
                        shown,
                    )
    lang = demo.preset_updates([codebleu.OPTIONS["lang"]], codebleu.OPTIONS, "fusion_brain_2021")
    assert lang["value"] == "python"  # the preset sets it
    assert "value" not in demo.preset_updates([codebleu.OPTIONS["lang"]], codebleu.OPTIONS, "pypi")
    kept = demo.preset_updates([fid_clip.OPTIONS["clip_model"]], fid_clip.OPTIONS, "clipscore")
    assert "value" not in kept and kept["placeholder"] == "empty = preset: none"


def test_a_preset_whose_source_is_not_installed_says_so(demo):
    """ru_meteor's synonyms offer "preset" and the sources that run here; under a preset whose own source
    does not run, the "preset" choice says it is not installed (a Compute is refused by the metric,
    naming what to install); under nltk it stands for wordnet."""
    from multimodal_metrics import ru_meteor
    from multimodal_metrics.demo import alignment

    synonyms = ru_meteor.OPTIONS["synonyms"]
    offered = {"synonyms": ["wordnet", "none"]}  # a machine without RuWordNet, as the Space
    nltk = demo.preset_updates([synonyms], ru_meteor.OPTIONS, "nltk", offered)
    assert nltk["value"] == "preset" and nltk["choices"] == [
        ("preset: wordnet", "preset"), ("wordnet", "wordnet"), ("none", "none"),
    ]  # fmt: skip
    captioning = demo.preset_updates([synonyms], ru_meteor.OPTIONS, "captioning", offered)
    assert captioning["value"] == "preset"
    assert captioning["choices"][0] == ("preset: ruwordnet_fb (not installed)", "preset")
    if not alignment.runs_here("ruwordnet_fb"):
        note = alignment.missing_note(ru_meteor.PRESETS)
        assert "ruwordnet download" in note and "captioning" in note and "nltk" not in note, note


def test_a_widget_check_names_the_widget_and_drops_a_refused_upload(demo, tmp_path):
    """The page's events read their inputs themselves (`preprocessed`): a widget's own check (a number's
    range, a file's type) is a ValueError naming the widget, shown in the panel (Gradio covered the
    outputs with "Error" badges); a refused upload is deleted from Gradio's cache."""
    pytest.importorskip("gradio")
    import gradio as gr

    with gr.Blocks():
        number = gr.Number(minimum=0, label="example")
        files = gr.File(file_count="multiple", file_types=["image"], label="generated images")
    assert demo.preprocessed([number], [3]) == [3]
    with pytest.raises(ValueError, match=r"^`example`: .*minimum"):
        demo.preprocessed([number], [-1])
    cache = tmp_path / "cache"
    cache.mkdir()
    upload = cache / "notes.txt"
    upload.write_text("not an image")
    files.GRADIO_CACHE = str(cache)
    with pytest.raises(ValueError, match=r"^`generated images`: Invalid file type"):
        demo.preprocessed(
            [files], [[{"path": str(upload), "orig_name": "notes.txt", "meta": {"_type": "gradio.FileData"}}]]
        )
    assert not upload.exists()


def test_errors_read_as_messages(demo):
    """Deep JSON, a widget's check, an unexpected error: each is a sentence (never a bare "Error" or a
    server path); the API wrapper raises them as gr.Error."""
    pytest.importorskip("gradio")
    import gradio as gr

    deep = "[" * 100_000 + "]" * 100_000
    for parse in (demo.parse_items, demo.parse_json):
        with pytest.raises(ValueError, match=r"^`predictions` is nested too deeply"):
            parse(deep, "predictions")
    assert "nested too deeply" in demo.readable(RecursionError("maximum recursion depth exceeded"))
    assert demo.readable(ValueError("`x` is wrong")) == "`x` is wrong"
    text = demo.readable(KeyError("/tmp/secret/file"))
    assert "KeyError" in text and "/tmp/secret" not in text

    def fails():
        raise KeyError("lmms_eval")

    with pytest.raises(gr.Error, match="failed unexpectedly \\(KeyError\\)"):
        demo.shows_errors(fails)()


def test_warnings_of_two_requests_at_once_stay_apart(demo):
    """Two computes at once in one server (threads, as Gradio runs them): each block gets only the
    warnings raised by its own request, in any interleaving (warnings.catch_warnings swapped one
    process-wide hook: request B's block caught request A's warning)."""
    import threading
    import warnings

    steps = [threading.Barrier(2) for _ in range(4)]
    got = {}

    def request(name, warns):
        if name == "b":
            steps[0].wait()
        with demo.caught_warnings() as caught:
            if name == "a":
                steps[0].wait()
            steps[1].wait()  # both blocks are open
            if warns:
                warnings.warn("codebleu: `weights` sum to 2, not 1", UserWarning, stacklevel=1)
            steps[2].wait()
            if name == "a":
                steps[3].wait()  # b's block closes first
        if name == "b":
            steps[3].wait()
        got[name] = caught.messages

    threads = [
        threading.Thread(target=request, args=("a", True)),
        threading.Thread(target=request, args=("b", False)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert got == {"a": ["codebleu: `weights` sum to 2, not 1"], "b": []}, got


DET_F1_REFS = {
    "street.jpg": {"cat": [[20, 20, 100, 80], [200, 40, 60, 60], [300, 150, 80, 60]], "dog": []},
    "room.jpg": {"a red chair": [[40, 60, 120, 140]], "a lamp": [[250, 30, 40, 120]]},
}
DET_F1_PREDS = {
    "street.jpg": {
        "cat": [[22, 18, 100, 80], [25, 25, 95, 80], [18, 22, 100, 78]],
        "dog": [[200, 40, 60, 60]],
    },
    "room.jpg": {"a red chair": [[60, 90, 120, 140]], "a lamp": [[250, 30, 40, 120], [320, 200, 30, 30]]},
}


def fid_clip_run(values: dict, **chosen):
    """A run of fid_clip's page (what `MetricPage.prepare` gives its `read` hook): uploads and options."""
    from multimodal_metrics import fid_clip
    from multimodal_metrics.demo.metric_page import Run

    values = {"gen": None, "real": None, "weights_file": None, "prompts": "", **values}
    options = {o.name: None for o in fid_clip.OPTIONS if o.demo}
    return Run(fid_clip.OPTIONS, "default", values, {**options, **chosen})


def _rss_mib(pid: int) -> int:
    import os

    with open(f"/proc/{pid}/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 2**20


_CACHES = {}  # server pid -> its GRADIO_TEMP_DIR


def anls_server_cache(pid: int):
    return _CACHES[pid]


@pytest.fixture(scope="module")
def anls_server(root, tmp_path_factory):
    """metrics/anls/app.py served on 127.0.0.1 by its own process (launched as the Space launches it),
    and a client: (url, client, the server's pid)."""
    import os
    import subprocess
    import sys
    import time

    pytest.importorskip("gradio")
    from gradio_client import Client
    from helpers import free_port

    port, cache = free_port(), tmp_path_factory.mktemp("gradio_cache")
    code = (f"import sys; sys.path.insert(0, {str(root / 'metrics' / 'anls')!r}); import app; "
            f"app.demo.launch(server_name='127.0.0.1', server_port={port}, quiet=True)")  # fmt: skip
    env = {**os.environ, "GRADIO_TEMP_DIR": str(cache)}  # its uploads, apart from any other server's
    server = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
    )
    _CACHES[server.pid] = cache
    url = f"http://127.0.0.1:{port}/"
    try:
        for _ in range(240):
            try:
                client = Client(url, verbose=False)
                break
            except Exception:  # noqa: BLE001 - not listening yet
                time.sleep(0.5)
        yield url, client, server.pid
    finally:
        server.terminate()
        server.wait(30)


def test_a_request_over_the_input_cap_is_refused_and_memory_stays_bounded(anls_server):
    """The stated cap (10 million characters per Compute) holds on the API: four requests of 1,000,000
    lines (38 MB of text) are refused at once with the cap in the message, and the server does not keep
    what they held (the playground grew by 1.6 GB on four such requests and kept it); two requests near
    the cap are scored, and what they held is given back but for a bounded remainder (Gradio keeps each
    session's last inputs)."""
    import time

    from gradio_client import Client
    from gradio_client.exceptions import AppError

    url, client, pid = anls_server
    options = ("default", "", "preset", "preset", "preset")
    client.predict("a", "a", *options, api_name="/compute")
    start = _rss_mib(pid)
    huge = "\n".join(f"answer number {i:06d} of the set" for i in range(1_000_000))
    for _ in range(4):
        began = time.monotonic()
        with pytest.raises(
            AppError, match=r"holds 3\d,\d{3},\d{3} characters; one Compute reads at most 10,000,000"
        ):
            client.predict(huge, "a", *options, api_name="/compute")
        assert time.monotonic() - began < 30
    for _ in range(10):
        client.predict("a", "a", *options, api_name="/compute")
    refused = _rss_mib(pid) - start
    lines = "\n".join(f"answer {i}" for i in range(350_000))
    for _ in range(2):  # two visitors (two sessions), about 9 million characters each
        result = Client(url, verbose=False).predict(lines, lines, *options, api_name="/compute")[0]
        assert result["anls"] == 1.0 and len(result["per_example"]) == 350_000
    for _ in range(10):
        client.predict("a", "a", *options, api_name="/compute")
    assert refused < 150 and _rss_mib(pid) - start < 400, (start, refused, _rss_mib(pid))


def test_det_f1_labels_never_cover_each_other():
    """det_f1's picture: labels of neighbouring boxes (three predictions on one cat, the demo's street
    image) are moved to free rows; no two label boxes overlap in any panel."""
    from multimodal_metrics import det_f1
    from multimodal_metrics.det_f1 import drawing

    preds, refs, names = det_f1.from_fusion_brain(DET_F1_REFS, DET_F1_PREDS)
    crowded = {
        "cat": [[10, 10, 50, 50], [12, 11, 50, 50], [11, 12, 49, 50], [60, 10, 40, 40]],
        "dog": [[14, 14, 40, 40]],
    }
    options = det_f1.OPTIONS.resolve("default", {})
    for picture in (
        drawing.draw_images(names, preds, refs, options),
        drawing.draw_images(
            ["crowded"], [crowded], [{"cat": [[10, 10, 50, 50]], "dog": [[15, 15, 40, 40]]}], options
        ),
    ):
        labels = picture.info["labels"]
        assert len(labels) >= 5
        clashes = [(a, b) for i, a in enumerate(labels) for b in labels[i + 1 :] if drawing.overlap(a, b)]
        assert not clashes, clashes
        assert all(
            0 <= x1 < x2 <= picture.width and 0 <= y1 < y2 <= picture.height for x1, y1, x2, y2 in labels
        )


def test_fid_clip_on_a_space_reads_only_uploads_and_known_folders(tmp_path, monkeypatch):
    """On a Space (SPACE_ID set) a typed path is read only inside the operator's folders (MM_DEMO_PATHS) or
    the caches, symbolic links and `..` resolved first; a server file and a missing file get the same
    words (the message told them apart); off a Space a path is used as typed. pre_resize is capped."""
    from multimodal_metrics.demo import uploads

    known, outside = tmp_path / "weights", tmp_path / "elsewhere"
    known.mkdir()
    outside.mkdir()
    (outside / "secret.pth").write_bytes(b"x")
    (known / "escape.pth").symlink_to(outside / "secret.pth")
    monkeypatch.setenv("MM_DEMO_PATHS", str(known))
    monkeypatch.setenv("SPACE_ID", "org/fid_clip")
    refused = []
    for path in ("/etc/shadow", "/etc/no_such_file.pth", str(outside / "secret.pth"), str(known / "escape.pth"),
                 str(known / ".." / "elsewhere" / "secret.pth")):  # fmt: skip
        with pytest.raises(ValueError, match="is not in a folder this Space reads") as err:
            uploads.allowed_path(path, "inception_weights")
        refused.append(str(err.value).replace(repr(path), "PATH"))
    assert len(set(refused)) == 1, refused
    (known / "pt.pth").write_bytes(b"x")
    assert uploads.allowed_path(str(known / "pt.pth"), "inception_weights") == str(
        (known / "pt.pth").resolve()
    )
    monkeypatch.delenv("SPACE_ID")
    assert (
        uploads.allowed_path("/etc/shadow", "inception_weights") == "/etc/shadow"
    )  # the operator's own machine
    with pytest.raises(ValueError, match=r"`pre_resize` is at most 1024 here"):
        uploads.read_images(fid_clip_run({"gen": ["a.png", "b.png"]}, pre_resize=4096))


def test_an_upload_over_the_cap_is_refused_and_leaves_no_file(anls_server, tmp_path):
    """Every page is launched with a per-file upload cap of 128 MB: a 129 MB upload is refused (413) and
    no part of it stays in Gradio's temporary folder; a small one is accepted."""
    import urllib.request
    import uuid

    url, _, pid = anls_server
    cache = anls_server_cache(pid)
    before = {p for p in cache.rglob("*") if p.is_file()} if cache.exists() else set()

    def upload(size: int) -> int:
        boundary = uuid.uuid4().hex
        head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; filename=\"big.bin\"\r\n"
                "Content-Type: application/octet-stream\r\n\r\n").encode()  # fmt: skip
        body = head + b"\0" * size + f"\r\n--{boundary}--\r\n".encode()
        request = urllib.request.Request(f"{url}gradio_api/upload", data=body, method="POST",
                                         headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})  # fmt: skip
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return response.status
        except urllib.error.HTTPError as err:
            return err.code

    assert upload(129 * 2**20) == 413
    left = {p for p in cache.rglob("*") if p.is_file()} - before if cache.exists() else set()
    assert not left, left
    assert upload(1000) == 200


def test_deeply_nested_json_is_a_message_for_an_api_client(anls_server):
    """JSON nested 100,000 deep through the API: a readable error (`{"error": null}` before)."""
    from gradio_client.exceptions import AppError

    _, client, _ = anls_server
    with pytest.raises(AppError, match=r"`predictions` is nested too deeply to read"):
        client.predict(
            "[" * 100_000 + "]" * 100_000,
            "a",
            "default",
            "",
            "preset",
            "preset",
            "preset",
            api_name="/compute",
        )
