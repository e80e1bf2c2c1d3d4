"""Gradio demo of the `fid_clip` metric: upload generated and real images and the prompts; get FID,
the CLIP score per image (table and histogram) and the Fusion Brain 2022 score.

Run `python app.py` in this folder (or in the Space). `build_ui()` is reused by the playground Space.
Model weights: the FID Inception file comes from a local path or the torch hub cache (never
downloaded: put it there first); the CLIP checkpoint is a local folder or, when online, a Hub
repository id fetched with huggingface_hub (the metric itself only reads local folders).
"""

import os
import tempfile
import warnings
from pathlib import Path

import gradio as gr

from multimodal_metrics import fid_clip
from multimodal_metrics.demo import (
    CONFIDENCE,
    TEXT_LINES,
    ResultPanel,
    card_body,
    connect,
    load_metric,
    option_value,
    option_widget,
    page_blocks,
    parse_items,
)
from multimodal_metrics.digests import file_sha256
from multimodal_metrics.fid_clip.inception import FID_WEIGHTS_FILE, FID_WEIGHTS_URL, default_weights_path

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "fid_clip.py"
PRESETS = list(fid_clip.PRESETS)
PRE_RESIZE = fid_clip.OPTIONS["pre_resize"]  # rows of the library's option table shown as widgets
INCEPTION_WEIGHTS = fid_clip.OPTIONS["inception_weights"]
CLIP_MODEL = fid_clip.OPTIONS["clip_model"]  # a local folder, or here also a Hub repo id (resolve_clip_model)
EXAMPLE_PROMPTS = "a red apple on a table\na cat sleeping on a sofa"
# What a visitor may ask of the server: images resized to at most MAX_PRE_RESIZE pixels a side (4096 took
# 4 GB for six small images), and, on a Space, weights read only from uploads or the folders the
# operator named (KNOWN_PATHS_ENV, the torch hub and Hugging Face caches): a typed path elsewhere is
# refused before anything is opened, by one message whether or not the file exists.
MAX_PRE_RESIZE = 1024
KNOWN_PATHS_ENV = "MM_DEMO_PATHS"  # folders (os.pathsep-separated) whose files a Space's visitor may name
PATHS_NOTE = (
    f"On a Space, a path must lie in a folder the operator named (`{KNOWN_PATHS_ENV}`) or in the "
    "torch hub or Hugging Face cache; upload the weights file instead."
)


def known_folders() -> list[Path]:
    """The folders whose files a visitor of a Space may name: the operator's, the torch hub cache, the
    Hugging Face cache."""
    import torch

    named = [Path(f) for f in os.environ.get(KNOWN_PATHS_ENV, "").split(os.pathsep) if f.strip()]
    hf_home = Path(os.environ.get("HF_HOME", Path.home() / ".cache" / "huggingface"))
    return [folder.resolve() for folder in (*named, Path(torch.hub.get_dir()), hf_home)]


def allowed_path(text: str, arg: str) -> str:
    """A path typed by a visitor: as is off a Space; on a Space (SPACE_ID set) only inside
    `known_folders()` (symbolic links and `..` resolved first), else one refusal that says nothing
    about the file (whether it exists, what it holds)."""
    if not text or not os.environ.get("SPACE_ID"):
        return text
    resolved = Path(text).expanduser().resolve()
    if not any(resolved.is_relative_to(folder) for folder in known_folders()):
        raise ValueError(f"`{arg}`: {text!r} is not in a folder this Space reads. {PATHS_NOTE}")
    return str(resolved)


def without_paths(err: Exception, paths: list) -> ValueError:
    """The library's message with every server path of an upload replaced by the file's name."""
    text = str(err)
    for path in sorted({str(p) for p in paths if p}, key=len, reverse=True):
        text = text.replace(repr(path), repr(Path(path).name)).replace(path, Path(path).name)
    return ValueError(text)


def missing_weights_message() -> str:
    """The page's message when FID needs the Inception weights and the server has none."""
    return (
        f"FID needs the Inception weights, which this server does not have: download {FID_WEIGHTS_URL} "
        f'({FID_WEIGHTS_FILE}, 91 MB) and upload it under "Inception weights file", or compute FID from '
        "feature or statistics files below (no weights needed)."
    )


def resolve_clip_model(text: str):
    """A local checkpoint folder as is; otherwise a Hub repo id downloaded (online only)."""
    text = (text or "").strip()
    if text and (os.path.isabs(text) or text.startswith((".", "~"))):  # a path, not a Hub repo id
        text = allowed_path(text, "clip_model")
    if not text or os.path.isdir(text):
        return text or None
    try:
        from huggingface_hub import snapshot_download

        patterns = ["*.json", "*.txt", "*.model", "*.safetensors", "pytorch_model.bin"]  # no TF/Flax weights
        return snapshot_download(text, allow_patterns=patterns)
    except Exception as err:  # noqa: BLE001 - any Hub failure becomes a readable UI error
        raise ValueError(
            f"`clip_model`: {text!r} is neither a local folder nor a downloadable Hub repo ({err})"
        ) from None


def _paths(files) -> list:
    if not files:
        return []
    return [f if isinstance(f, str) else getattr(f, "name", f) for f in files]


def without_duplicates(paths: list, arg: str, texts: list | None = None) -> tuple[list, list | None]:
    """The uploaded files, each content once (with its prompt, when there are prompts: the same image with
    another prompt is another CLIP example and stays). A warning names every file left out and the file
    with the same content that was kept (the page shows it under the numbers)."""
    kept, kept_texts, seen = [], [] if texts is not None else None, {}
    for i, path in enumerate(paths):
        key = (file_sha256(path), None if texts is None else texts[i])
        if key in seen:
            warnings.warn(
                f"`{arg}`: {Path(path).name} has the same content as {Path(seen[key]).name}"
                f"{' and the same prompt' if texts is not None else ''}: scored once (uploaded twice?)",
                UserWarning,
                stacklevel=2,
            )
            continue
        seen[key] = path
        kept.append(path)
        if texts is not None:
            kept_texts.append(texts[i])
    return kept, kept_texts


def compute(generated, real, prompts: str, preset: str, inception_weights: str, clip_model: str, pre_resize: str,
            inception_weights_file=None):  # fmt: skip
    """FID (generated vs real), CLIP score (generated image vs prompt), and the score when both exist:
    (result, table columns). Options left empty use the preset's values; `pre_resize` at most
    MAX_PRE_RESIZE; the Inception weights: an uploaded file, else the path typed (on a Space, only in
    `known_folders`), else the torch hub cache. A file uploaded twice (same content; on the generated
    side, same prompt too) is scored once, and the page says so."""
    gen, ref = _paths(generated), _paths(real)
    texts = parse_items(prompts, "prompts") if (prompts or "").strip() else None
    resize = option_value(PRE_RESIZE, pre_resize)
    if resize is not None and resize > MAX_PRE_RESIZE:
        raise ValueError(
            f"`pre_resize` is at most {MAX_PRE_RESIZE} here (this server's memory), got {resize}"
        )
    uploaded = _paths([inception_weights_file])[0] if inception_weights_file else None
    weights = uploaded or allowed_path(
        option_value(INCEPTION_WEIGHTS, inception_weights), "inception_weights"
    )
    if ref and weights is None and not default_weights_path().is_file():
        raise ValueError(missing_weights_message())
    if not gen:
        raise ValueError("upload the generated images (`predictions`)")
    if texts is not None and len(texts) != len(gen):
        raise ValueError(f"give one prompt per generated image: {len(texts)} prompts for {len(gen)} images")
    gen, texts = without_duplicates(gen, "predictions", texts)
    ref, _ = without_duplicates(ref, "references")
    kwargs = dict(
        predictions=gen,
        references=ref or None,
        inception_weights=weights,
        pre_resize=resize,
        # intervals of FID, the CLIP score and the score, resampling the generated images (the module's
        # default resamples: 200 when FID is computed, the reference images held fixed)
        confidence=CONFIDENCE,
    )
    if texts is not None:
        kwargs.update(texts=texts, clip_model=resolve_clip_model(clip_model), return_per_example=True)
    try:
        result = load_metric(SCRIPT, preset).compute(**kwargs)
    except ValueError as err:
        raise without_paths(err, [*gen, *ref, uploaded]) from None
    return result, {"image": [Path(p).name for p in gen], "prompt": texts or []}


compute.per_example_score = "clip_score"  # one CLIP score per image beside one FID

_EXAMPLE_FILES = {}


def example_feature_files() -> tuple[str, str]:
    """The example of FID from feature files: 200 generated and 200 real 16-d feature vectors (numpy
    .npy, seeded; the generated ones shifted by 0.2), written once into a temporary folder."""
    import numpy as np

    if not _EXAMPLE_FILES:
        folder = Path(tempfile.mkdtemp(prefix="fid_clip_example_"))
        rng = np.random.default_rng(2022)
        for side, shift in (("generated_features", 0.2), ("real_features", 0.0)):
            path = folder / f"{side}.npy"
            np.save(path, rng.normal(shift, 1.0, (200, 16)).astype(np.float32))
            _EXAMPLE_FILES[side] = str(path)
    return _EXAMPLE_FILES["generated_features"], _EXAMPLE_FILES["real_features"]


def _load_array(path: str, arg: str):
    """np.load without pickles: an array (.npy) or the arrays of a .npz; a ValueError naming `arg` and the
    file's name otherwise (never numpy's advice to load it unsafely, never the server's path)."""
    import numpy as np

    name = Path(path).name
    try:
        with open(path, "rb") as handle:  # closed whatever numpy makes of it
            value = np.load(handle, allow_pickle=False)
            return dict(value.items()) if isinstance(value, np.lib.npyio.NpzFile) else value
    except ValueError as err:
        if "pickle" in str(err):
            raise ValueError(
                f"`{arg}`: {name} holds Python objects, which are not read here: save a numeric "
                "array with numpy.save (or numpy.savez for mu and sigma)"
            ) from None
        raise ValueError(f"`{arg}`: {name} is not a .npy / .npz file numpy can read") from None
    except Exception:  # noqa: BLE001 - OSError, EOFError, zipfile.BadZipFile, ...: not a file numpy reads
        raise ValueError(f"`{arg}`: {name} is not a .npy / .npz file numpy can read") from None


def _features(file, arg: str):
    """An uploaded .npy of (N, d) feature vectors, as an array; a ValueError naming `arg` otherwise."""
    import numpy as np

    path = _paths([file])[0] if file else None
    if not path:
        raise ValueError(
            f"upload the {arg} file (`.npy` feature vectors{' or `.npz` statistics' if arg == 'references' else ''})"
        )
    value = _load_array(path, arg)
    if not isinstance(value, np.ndarray) or value.ndim != 2:
        raise ValueError(f"`{arg}`: {Path(path).name} must hold a 2-D (N, d) array of feature vectors")
    return value


def compute_features(generated, real):
    """FID from files, no model weights (numpy and scipy only): generated feature vectors (.npy, (N, d))
    against real feature vectors (.npy) or real statistics (a pytorch-fid .npz with mu and sigma)."""
    gen = _features(generated, "predictions")
    real_path = _paths([real])[0] if real else None
    if real_path and str(real_path).endswith(".npz"):
        stats = _load_array(real_path, "references")
        if not isinstance(stats, dict) or not {"mu", "sigma"} <= set(stats):
            raise ValueError(
                f"`references`: {Path(real_path).name} must hold the arrays mu and sigma "
                f"(pytorch-fid statistics), found {sorted(stats) if isinstance(stats, dict) else 'one array'}"
            )
        kwargs = {"reference_stats": {"mu": stats["mu"], "sigma": stats["sigma"]}}
    else:
        kwargs = {"references": _features(real, "references")}
    try:
        result = load_metric(SCRIPT, "default").compute(predictions=gen, confidence=CONFIDENCE, **kwargs)
    except ValueError as err:
        raise without_paths(err, [_paths([generated])[0], real_path]) from None
    return result, {}


def build_ui(api_prefix: str = "") -> None:
    """The demo's components and events, inside the caller's gr.Blocks context."""
    gr.Markdown(
        "**fid_clip**: FID between generated and real images, CLIP score of each generated image with its "
        "prompt, and the Fusion Brain 2022 generation score 0.5 * (CLIP + (200 - min(200, FID)) / 200). "
        "Upload both image sets (FID needs at least 2 per side; meaningful values need thousands) and one "
        "prompt per generated image (in upload order). The FID Inception weights are read from the path given "
        "or from the torch hub cache; the CLIP model is a local checkpoint folder or a Hub repo id. Options "
        "left empty use the preset's value.\n\n"
        "**What needs weights.** Images need the FID Inception weights (`pt_inception-2015-12-05` file: upload "
        "it under *Inception weights file*, give its path in *inception_weights*, or put it in the torch hub "
        "cache) and, for the CLIP score, a CLIP checkpoint (a local folder, or a Hub repo id on a machine that "
        f"is online). {PATHS_NOTE} Each file is at most 128 MB; `pre_resize` at most {MAX_PRE_RESIZE}. A Space without them "
        "can still give FID from files: below, *FID from feature or statistics files* needs no weights. "
        "The signature names the Inception file by its content (`inception-2015-12-05` only for "
        "pytorch-fid's file, `inception-sha256-...` for any other). A file uploaded twice (same content) "
        "is scored once, and the page says so."
    )
    with gr.Row():
        with gr.Column():
            with gr.Row():
                generated = gr.File(
                    file_count="multiple", file_types=["image"], type="filepath", label="generated images",
                    elem_id=f"{api_prefix}gen",
                )  # fmt: skip
                real = gr.File(
                    file_count="multiple", file_types=["image"], type="filepath", label="real images",
                    elem_id=f"{api_prefix}real",
                )  # fmt: skip
            prompts = gr.Textbox(
                EXAMPLE_PROMPTS,
                lines=4,
                max_lines=TEXT_LINES,
                label="prompts (one per generated image)",
                elem_id=f"{api_prefix}prompts",
                elem_classes="mm-lines",
            )
            with gr.Row():
                preset = gr.Dropdown(PRESETS, value="default", label="preset", elem_id=f"{api_prefix}preset")
                pre_resize = option_widget(PRE_RESIZE, elem_id=f"{api_prefix}opt_pre_resize")
                pre_resize.info = f"{PRE_RESIZE.help} At most {MAX_PRE_RESIZE} here."
            with gr.Row():
                inception_weights = option_widget(
                    INCEPTION_WEIGHTS, elem_id=f"{api_prefix}opt_inception_weights"
                )
                weights_file = gr.File(file_types=[".pth", ".safetensors"], type="filepath", label="Inception weights file",
                                       elem_id=f"{api_prefix}weights_file")  # fmt: skip
            clip_model = gr.Textbox(
                "openai/clip-vit-base-patch32",
                label="clip_model (local folder or Hub repo id)",
                info=CLIP_MODEL.help,
                elem_id=f"{api_prefix}opt_clip_model",
            )
            button = gr.Button("Compute", variant="primary", elem_id=f"{api_prefix}go")
            with gr.Accordion("FID from feature or statistics files (no model weights needed)", open=True):
                gr.Markdown(
                    "Generated-image features: a `.npy` array (N, d), e.g. the Inception pool features you "
                    "extracted elsewhere. Real side: a `.npy` array of features, or a pytorch-fid `.npz` "
                    "with `mu` and `sigma` (what `save_stats` writes). FID from these needs numpy and scipy only."
                )
                with gr.Row():
                    feat_gen = gr.File(
                        file_types=[".npy"],
                        type="filepath",
                        label="generated features (.npy)",
                        elem_id=f"{api_prefix}feat_gen",
                    )
                    feat_real = gr.File(
                        file_types=[".npy", ".npz"],
                        type="filepath",
                        label="real features (.npy) or statistics (.npz)",
                        elem_id=f"{api_prefix}feat_real",
                    )
                with gr.Row():
                    load = gr.Button("load example feature files", elem_id=f"{api_prefix}features_example")
                    go_features = gr.Button(
                        "Compute FID from files", variant="primary", elem_id=f"{api_prefix}go_features"
                    )
        with gr.Column():
            panel = ResultPanel(api_prefix, table_label="CLIP score per generated image")
    connect(
        button,
        compute,
        [generated, real, prompts, preset, inception_weights, clip_model, pre_resize, weights_file],
        panel,
        f"{api_prefix}compute",
    )
    load.click(example_feature_files, outputs=[feat_gen, feat_real], api_name=False)
    connect(go_features, compute_features, [feat_gen, feat_real], panel, f"{api_prefix}compute_features")


with page_blocks("fid_clip") as demo:
    gr.Markdown("# fid_clip: FID, CLIP score and the Fusion Brain 2022 scores")
    build_ui()
    with gr.Accordion("Metric card", open=False):
        gr.Markdown(card_body(HERE / "README.md"))

if __name__ == "__main__":
    demo.launch()
