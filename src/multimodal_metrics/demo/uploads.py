"""fid_clip's page: what a visitor uploads (images, prompts, weights, feature files) read as the metric's
arguments. A file uploaded twice is scored once (and said); on a Space a typed path is read only inside
the folders the operator named or the model caches; a CLIP checkpoint may also be a Hub repository id
(downloaded here, never by the metric); FID from feature or statistics files needs no weights.
"""

import os
import tempfile
import warnings
from pathlib import Path

from ..digests import file_sha256
from ..fid_clip import FID_RESAMPLES
from ..fid_clip.inception import FID_WEIGHTS_FILE, FID_WEIGHTS_URL, default_weights_path
from ..stats import DEFAULT_RESAMPLES
from . import loading
from .panel import Computed, connect
from .parsing import parse_items
from .settings import RESAMPLING

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

HUB_CLIP_MODEL = "openai/clip-vit-base-patch32"  # the page's CLIP checkpoint: a Hub repository id (online)
PREFILLED = {"clip_model": HUB_CLIP_MODEL}  # the option boxes the page fills in (MetricPage `prefilled`)
NOTES = {  # added to the options' help on the page (MetricPage `notes`)
    "pre_resize": f"At most {MAX_PRE_RESIZE} here.",
    "clip_model": "Here also a Hub repository id, downloaded when the server is online.",
}


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


def file_paths(files) -> list:
    """The server paths of a File component's value (paths, or objects with a `name`)."""
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


NUMPY_MAGIC = (b"\x93NUMPY", b"PK\x03\x04")  # how a .npy file and a .npz (zip) file begin


def load_array(path: str, arg: str):
    """np.load without pickles: an array (.npy) or the arrays of a .npz; a ValueError naming `arg` and the
    file's name otherwise: a file that does not begin as numpy's files do is "not a numpy file" (numpy
    would try it as a pickle), a numpy file of Python objects "holds Python objects" (never numpy's
    advice to load it unsafely, never the server's path)."""
    import numpy as np

    name = Path(path).name
    try:
        with open(path, "rb") as handle:  # closed whatever numpy makes of it
            if not handle.read(6).startswith(NUMPY_MAGIC):
                raise ValueError(
                    f"`{arg}`: {name} is not a numpy file (a .npy written by numpy.save, or a .npz by "
                    "numpy.savez)"
                )
            handle.seek(0)
            value = np.load(handle, allow_pickle=False)
            return dict(value.items()) if isinstance(value, np.lib.npyio.NpzFile) else value
    except ValueError as err:
        if str(err).startswith(f"`{arg}`: "):
            raise
        if "pickle" in str(err):
            raise ValueError(
                f"`{arg}`: {name} holds Python objects, which are not read here: save a numeric "
                "array with numpy.save (or numpy.savez for mu and sigma)"
            ) from None
        raise ValueError(f"`{arg}`: {name} is not a .npy / .npz file numpy can read") from None
    except Exception:  # noqa: BLE001 - OSError, EOFError, zipfile.BadZipFile, ...: not a file numpy reads
        raise ValueError(f"`{arg}`: {name} is not a .npy / .npz file numpy can read") from None


def feature_array(file, arg: str):
    """An uploaded .npy of (N, d) feature vectors, as an array; a ValueError naming `arg` otherwise."""
    import numpy as np

    path = file_paths([file])[0] if file else None
    if not path:
        raise ValueError(
            f"upload the {arg} file (`.npy` feature vectors{' or `.npz` statistics' if arg == 'references' else ''})"
        )
    value = load_array(path, arg)
    if not isinstance(value, np.ndarray) or value.ndim != 2:
        raise ValueError(f"`{arg}`: {Path(path).name} must hold a 2-D (N, d) array of feature vectors")
    return value


def image_inputs(prefix: str) -> dict:
    """The page's uploads (MetricPage `inputs`): the generated and the real images, the weights file."""
    import gradio as gr

    with gr.Row():
        generated = gr.File(file_count="multiple", file_types=["image"], type="filepath", label="generated images",
                            elem_id=f"{prefix}gen")  # fmt: skip
        real = gr.File(file_count="multiple", file_types=["image"], type="filepath", label="real images",
                       elem_id=f"{prefix}real")  # fmt: skip
    weights = gr.File(file_types=[".pth", ".safetensors"], type="filepath", label="Inception weights file",
                      elem_id=f"{prefix}weights_file")  # fmt: skip
    return {"gen": generated, "real": real, "weights_file": weights}


def read_images(run) -> tuple[dict, dict]:
    """The metric's arguments from the uploads, the prompts and the options (MetricPage `read`): FID
    (generated vs real), the CLIP score (each generated image vs its prompt), and the score when both
    exist. `pre_resize` at most MAX_PRE_RESIZE; the Inception weights: the uploaded file, else the path
    typed (on a Space, only in `known_folders`), else the torch hub cache. A file uploaded twice (same
    content; on the generated side, same prompt too) is scored once, and the page says so."""
    values, chosen = run.values, run.chosen
    gen, ref = file_paths(values["gen"]), file_paths(values["real"])
    prompts = values["prompts"]
    texts = parse_items(prompts, "prompts") if (prompts or "").strip() else None
    resize = chosen["pre_resize"]
    if resize is not None and resize > MAX_PRE_RESIZE:
        raise ValueError(
            f"`pre_resize` is at most {MAX_PRE_RESIZE} here (this server's memory), got {resize}"
        )
    uploaded = file_paths([values["weights_file"]])[0] if values["weights_file"] else None
    weights = uploaded or allowed_path(chosen["inception_weights"], "inception_weights")
    if ref and weights is None and not default_weights_path().is_file():
        raise ValueError(missing_weights_message())
    if not gen:
        raise ValueError("upload the generated images (`predictions`)")
    if texts is not None and len(texts) != len(gen):
        raise ValueError(f"give one prompt per generated image: {len(texts)} prompts for {len(gen)} images")
    gen, texts = without_duplicates(gen, "predictions", texts)
    ref, _ = without_duplicates(ref, "references")
    kwargs = dict(predictions=gen, references=ref or None, inception_weights=weights, clip_model=None,
                  return_per_example=texts is not None,
                  # FID resamples the generated images (the reference images held fixed): its own default
                  n_resamples=FID_RESAMPLES if ref else DEFAULT_RESAMPLES)  # fmt: skip
    if texts is not None:
        kwargs.update(texts=texts, clip_model=resolve_clip_model(chosen["clip_model"]))
    return kwargs, {"image": [Path(p).name for p in gen], "prompt": texts or []}


def upload_errors(err: Exception, run) -> ValueError:
    """The metric's message with the server paths of the uploads replaced by the files' names
    (MetricPage `errors`)."""
    kwargs, weights = run.kwargs, run.values.get("weights_file")
    return without_paths(err, [*kwargs["predictions"], *(kwargs["references"] or []), *file_paths([weights])])


def compute_features(page, generated, real) -> Computed:
    """FID from files, no model weights (numpy and scipy only): generated feature vectors (.npy, (N, d))
    against real feature vectors (.npy) or real statistics (a pytorch-fid .npz with mu and sigma), scored
    by `page`'s metric under its default preset."""
    gen = feature_array(generated, "predictions")
    real_path = file_paths([real])[0] if real else None
    if real_path and str(real_path).endswith(".npz"):
        stats = load_array(real_path, "references")
        if not isinstance(stats, dict) or not {"mu", "sigma"} <= set(stats):
            raise ValueError(
                f"`references`: {Path(real_path).name} must hold the arrays mu and sigma "
                f"(pytorch-fid statistics), found {sorted(stats) if isinstance(stats, dict) else 'one array'}"
            )
        kwargs = {"reference_stats": {"mu": stats["mu"], "sigma": stats["sigma"]}}
    else:
        kwargs = {"references": feature_array(real, "references")}
    resampling = {**RESAMPLING, "n_resamples": FID_RESAMPLES}
    metric = loading.load_metric(page.script, page.table.default_preset)
    try:
        result = metric.compute(predictions=gen, **resampling, **kwargs)
    except ValueError as err:
        raise without_paths(err, [file_paths([generated])[0], real_path]) from None
    return Computed(result, {}, resampling=resampling)


def features_form(prefix: str) -> dict:
    """FID from feature or statistics files (MetricPage `below`): two uploads, an example, a Compute."""
    import gradio as gr

    with gr.Accordion("FID from feature or statistics files (no model weights needed)", open=True):
        gr.Markdown(
            "Generated-image features: a `.npy` array (N, d), e.g. the Inception pool features you "
            "extracted elsewhere. Real side: a `.npy` array of features, or a pytorch-fid `.npz` "
            "with `mu` and `sigma` (what `save_stats` writes). FID from these needs numpy and scipy only."
        )
        with gr.Row():
            feat_gen = gr.File(file_types=[".npy"], type="filepath", label="generated features (.npy)",
                               elem_id=f"{prefix}feat_gen")  # fmt: skip
            feat_real = gr.File(file_types=[".npy", ".npz"], type="filepath",
                                label="real features (.npy) or statistics (.npz)", elem_id=f"{prefix}feat_real")  # fmt: skip
        with gr.Row():
            load = gr.Button("load example feature files", elem_id=f"{prefix}features_example")
            go = gr.Button("Compute FID from files", variant="primary", elem_id=f"{prefix}go_features")
    return {"feat_gen": feat_gen, "feat_real": feat_real, "features_example": load, "go_features": go}


def wire_features(page, parts: dict, panel, prefix: str) -> None:
    """The form's events (MetricPage `wire`): the example files, and its Compute into the page's panel."""

    def from_files(generated, real):
        return compute_features(page, generated, real)

    parts["features_example"].click(example_feature_files, outputs=[parts["feat_gen"], parts["feat_real"]],
                                    api_name=False)  # fmt: skip
    connect(parts["go_features"], from_files, [parts["feat_gen"], parts["feat_real"]], panel,
            f"{prefix}compute_features")  # fmt: skip
