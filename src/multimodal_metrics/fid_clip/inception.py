"""The FID Inception network (pytorch-fid's FIDInceptionV3, TF 2015-12-05 weights) written in torch,
its weight loading, and the image preprocessing of pytorch-fid and of the Fusion Brain 2022 script.

No torchvision, no pytorch-fid: the module tree below has exactly the parameter and buffer names of
torchvision's ``Inception3`` patched by pytorch-fid (``Conv2d_1a_3x3.conv.weight`` ... ``fc.bias``,
566 state-dict entries), so ``pt_inception-2015-12-05-6726825d.pth`` loads with ``strict=True``.
Forward (pytorch-fid ``InceptionV3(output_blocks=[3], resize_input=True, normalize_input=True)``):
x in [0, 1], (B, 3, H, W) -> bilinear resize to 299x299 (``align_corners=False``, no antialias)
-> 2x - 1 -> the Inception trunk up to Mixed_7c -> global average pool -> (B, 2048) pool3 features.
FID-specific blocks: the pool branch of Mixed_5b-5d, 6b-6e and 7b is an average pool that does not
count the padding; Mixed_7c's pool branch is a 3x3 stride-1 max pool. BatchNorm eps is 0.001.

torch is imported inside functions (importing the library and evaluate.load work without it); ``build``
returns the module.
``width`` scales every channel count (1.0 = the real network; tests use tiny random ones).
"""

import os
from pathlib import Path

from ..digests import file_sha256

FID_WEIGHTS_FILE = "pt_inception-2015-12-05-6726825d.pth"
FID_WEIGHTS_URL = "https://github.com/mseitzer/pytorch-fid/releases/download/fid_weights/" + FID_WEIGHTS_FILE
# torch.hub names a weights file after the first hex digits of its SHA-256 (`<name>-<sha256 prefix>.pth`)
FID_WEIGHTS_SHA256_PREFIX = "6726825d"
FID_WEIGHTS_TAG = "inception-2015-12-05"  # the signature's name of pytorch-fid's file, and of no other
FEATURE_DIMS = 2048
INPUT_SIZE = 299


def _modules(width: float):
    import torch
    import torch.nn.functional as F
    from torch import nn

    def c(channels: int) -> int:
        return max(1, int(round(channels * width)))

    class BasicConv2d(nn.Module):
        def __init__(self, cin, cout, kernel_size, stride=1, padding=0):
            super().__init__()
            self.conv = nn.Conv2d(cin, cout, kernel_size, stride=stride, padding=padding, bias=False)
            self.bn = nn.BatchNorm2d(cout, eps=0.001)

        def forward(self, x):
            return F.relu(self.bn(self.conv(x)), inplace=True)

    def avg_pool(x):
        return F.avg_pool2d(x, kernel_size=3, stride=1, padding=1, count_include_pad=False)

    class InceptionA(nn.Module):
        def __init__(self, cin, pool_features):
            super().__init__()
            self.branch1x1 = BasicConv2d(cin, c(64), 1)
            self.branch5x5_1 = BasicConv2d(cin, c(48), 1)
            self.branch5x5_2 = BasicConv2d(c(48), c(64), 5, padding=2)
            self.branch3x3dbl_1 = BasicConv2d(cin, c(64), 1)
            self.branch3x3dbl_2 = BasicConv2d(c(64), c(96), 3, padding=1)
            self.branch3x3dbl_3 = BasicConv2d(c(96), c(96), 3, padding=1)
            self.branch_pool = BasicConv2d(cin, pool_features, 1)

        def forward(self, x):
            b1 = self.branch1x1(x)
            b5 = self.branch5x5_2(self.branch5x5_1(x))
            b3 = self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x)))
            return torch.cat([b1, b5, b3, self.branch_pool(avg_pool(x))], 1)

    class InceptionB(nn.Module):
        def __init__(self, cin):
            super().__init__()
            self.branch3x3 = BasicConv2d(cin, c(384), 3, stride=2)
            self.branch3x3dbl_1 = BasicConv2d(cin, c(64), 1)
            self.branch3x3dbl_2 = BasicConv2d(c(64), c(96), 3, padding=1)
            self.branch3x3dbl_3 = BasicConv2d(c(96), c(96), 3, stride=2)

        def forward(self, x):
            b3 = self.branch3x3(x)
            bd = self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x)))
            return torch.cat([b3, bd, F.max_pool2d(x, kernel_size=3, stride=2)], 1)

    class InceptionC(nn.Module):
        def __init__(self, cin, c7):
            super().__init__()
            self.branch1x1 = BasicConv2d(cin, c(192), 1)
            self.branch7x7_1 = BasicConv2d(cin, c7, 1)
            self.branch7x7_2 = BasicConv2d(c7, c7, (1, 7), padding=(0, 3))
            self.branch7x7_3 = BasicConv2d(c7, c(192), (7, 1), padding=(3, 0))
            self.branch7x7dbl_1 = BasicConv2d(cin, c7, 1)
            self.branch7x7dbl_2 = BasicConv2d(c7, c7, (7, 1), padding=(3, 0))
            self.branch7x7dbl_3 = BasicConv2d(c7, c7, (1, 7), padding=(0, 3))
            self.branch7x7dbl_4 = BasicConv2d(c7, c7, (7, 1), padding=(3, 0))
            self.branch7x7dbl_5 = BasicConv2d(c7, c(192), (1, 7), padding=(0, 3))
            self.branch_pool = BasicConv2d(cin, c(192), 1)

        def forward(self, x):
            b1 = self.branch1x1(x)
            b7 = self.branch7x7_3(self.branch7x7_2(self.branch7x7_1(x)))
            bd = self.branch7x7dbl_1(x)
            for layer in (self.branch7x7dbl_2, self.branch7x7dbl_3, self.branch7x7dbl_4, self.branch7x7dbl_5):
                bd = layer(bd)
            return torch.cat([b1, b7, bd, self.branch_pool(avg_pool(x))], 1)

    class InceptionD(nn.Module):
        def __init__(self, cin):
            super().__init__()
            self.branch3x3_1 = BasicConv2d(cin, c(192), 1)
            self.branch3x3_2 = BasicConv2d(c(192), c(320), 3, stride=2)
            self.branch7x7x3_1 = BasicConv2d(cin, c(192), 1)
            self.branch7x7x3_2 = BasicConv2d(c(192), c(192), (1, 7), padding=(0, 3))
            self.branch7x7x3_3 = BasicConv2d(c(192), c(192), (7, 1), padding=(3, 0))
            self.branch7x7x3_4 = BasicConv2d(c(192), c(192), 3, stride=2)

        def forward(self, x):
            b3 = self.branch3x3_2(self.branch3x3_1(x))
            b7 = self.branch7x7x3_4(self.branch7x7x3_3(self.branch7x7x3_2(self.branch7x7x3_1(x))))
            return torch.cat([b3, b7, F.max_pool2d(x, kernel_size=3, stride=2)], 1)

    class InceptionE(nn.Module):
        def __init__(self, cin, max_pool):
            super().__init__()
            self.max_pool = max_pool
            self.branch1x1 = BasicConv2d(cin, c(320), 1)
            self.branch3x3_1 = BasicConv2d(cin, c(384), 1)
            self.branch3x3_2a = BasicConv2d(c(384), c(384), (1, 3), padding=(0, 1))
            self.branch3x3_2b = BasicConv2d(c(384), c(384), (3, 1), padding=(1, 0))
            self.branch3x3dbl_1 = BasicConv2d(cin, c(448), 1)
            self.branch3x3dbl_2 = BasicConv2d(c(448), c(384), 3, padding=1)
            self.branch3x3dbl_3a = BasicConv2d(c(384), c(384), (1, 3), padding=(0, 1))
            self.branch3x3dbl_3b = BasicConv2d(c(384), c(384), (3, 1), padding=(1, 0))
            self.branch_pool = BasicConv2d(cin, c(192), 1)

        def forward(self, x):
            b1 = self.branch1x1(x)
            b3 = self.branch3x3_1(x)
            b3 = torch.cat([self.branch3x3_2a(b3), self.branch3x3_2b(b3)], 1)
            bd = self.branch3x3dbl_2(self.branch3x3dbl_1(x))
            bd = torch.cat([self.branch3x3dbl_3a(bd), self.branch3x3dbl_3b(bd)], 1)
            if self.max_pool:  # FIDInceptionE_2 (Mixed_7c)
                pool = F.max_pool2d(x, kernel_size=3, stride=1, padding=1)
            else:  # FIDInceptionE_1 (Mixed_7b)
                pool = avg_pool(x)
            return torch.cat([b1, b3, bd, self.branch_pool(pool)], 1)

    class FIDInceptionV3(nn.Module):
        """pool3 features (B, 2048 * width) of images (B, 3, H, W) in [0, 1]."""

        def __init__(self):
            super().__init__()
            self.width = width
            self.Conv2d_1a_3x3 = BasicConv2d(3, c(32), 3, stride=2)
            self.Conv2d_2a_3x3 = BasicConv2d(c(32), c(32), 3)
            self.Conv2d_2b_3x3 = BasicConv2d(c(32), c(64), 3, padding=1)
            self.maxpool1 = nn.MaxPool2d(kernel_size=3, stride=2)
            self.Conv2d_3b_1x1 = BasicConv2d(c(64), c(80), 1)
            self.Conv2d_4a_3x3 = BasicConv2d(c(80), c(192), 3)
            self.maxpool2 = nn.MaxPool2d(kernel_size=3, stride=2)
            a_out = c(64) + c(64) + c(96)
            self.Mixed_5b = InceptionA(c(192), pool_features=c(32))
            self.Mixed_5c = InceptionA(a_out + c(32), pool_features=c(64))
            self.Mixed_5d = InceptionA(a_out + c(64), pool_features=c(64))
            self.Mixed_6a = InceptionB(a_out + c(64))
            c_in = c(384) + c(96) + a_out + c(64)
            self.Mixed_6b = InceptionC(c_in, c7=c(128))
            c_in = 4 * c(192)
            self.Mixed_6c = InceptionC(c_in, c7=c(160))
            self.Mixed_6d = InceptionC(c_in, c7=c(160))
            self.Mixed_6e = InceptionC(c_in, c7=c(192))
            self.Mixed_7a = InceptionD(c_in)
            e_in = c(320) + c(192) + c_in
            self.Mixed_7b = InceptionE(e_in, max_pool=False)
            e_out = c(320) + 2 * c(384) + 2 * c(384) + c(192)
            self.Mixed_7c = InceptionE(e_out, max_pool=True)
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.dropout = nn.Dropout()
            self.fc = nn.Linear(e_out, 1008)
            self.num_features = e_out

        def forward(self, x):
            x = F.interpolate(x, size=(INPUT_SIZE, INPUT_SIZE), mode="bilinear", align_corners=False)
            x = 2 * x - 1
            x = self.maxpool1(self.Conv2d_2b_3x3(self.Conv2d_2a_3x3(self.Conv2d_1a_3x3(x))))
            x = self.maxpool2(self.Conv2d_4a_3x3(self.Conv2d_3b_1x1(x)))
            for block in (
                self.Mixed_5b,
                self.Mixed_5c,
                self.Mixed_5d,
                self.Mixed_6a,
                self.Mixed_6b,
                self.Mixed_6c,
                self.Mixed_6d,
                self.Mixed_6e,
                self.Mixed_7a,
                self.Mixed_7b,
                self.Mixed_7c,
            ):
                x = block(x)
            return self.avgpool(x).flatten(1)

    return FIDInceptionV3


def build(width: float = 1.0):
    """A randomly initialised FIDInceptionV3 (eval mode); ``width`` scales the channels."""
    return _modules(width)().eval()


def default_weights_path() -> Path:
    """Where torch.hub (and pytorch-fid) cache the weights: $TORCH_HOME/hub/checkpoints/<file>."""
    import torch

    return Path(torch.hub.get_dir()) / "checkpoints" / FID_WEIGHTS_FILE


_DIGESTS = {}  # (resolved path, size, mtime_ns) -> SHA-256 hex digest: a file is hashed once per change


def weights_digest(path: Path) -> str:
    """The SHA-256 hex digest of a weights file (read in 1 MiB blocks; cached while the file is unchanged)."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _DIGESTS:
        _DIGESTS[key] = file_sha256(path)
    return _DIGESTS[key]


def weights_tag(weights=None) -> str:
    """Which FID weights the features came from, for the signature: ``inception-2015-12-05`` for
    pytorch-fid's file (its SHA-256 begins with the digits in its name, ``6726825d``, as torch.hub
    checks), ``inception-sha256-<first 12 hex digits>`` for any other file, whatever its name or layer
    names (a converted .safetensors copy included: a different file is named by its content). ``weights``:
    the path given, or None for the torch hub cache."""
    path = default_weights_path() if weights is None else Path(os.fspath(weights))
    digest = weights_digest(path)
    return (
        FID_WEIGHTS_TAG if digest.startswith(FID_WEIGHTS_SHA256_PREFIX) else f"inception-sha256-{digest[:12]}"
    )


def read_state_dict(path: Path, arg: str) -> dict:
    """A state dict of tensors from ``path``, never unpickling code: ``.safetensors`` through safetensors,
    anything else through ``torch.load(weights_only=True)``. Any unreadable, corrupt or malicious file
    (a pickle with code, a truncated zip, text) is a ValueError naming `arg`."""
    import torch

    try:
        if path.suffix == ".safetensors":
            from safetensors.torch import load_file

            state = load_file(str(path), device="cpu")
        else:
            state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # noqa: BLE001 - UnpicklingError, RuntimeError, EOFError, ...: all user errors here
        raise ValueError(
            f"`{arg}`: cannot read {str(path)!r} as a torch state dict (torch.load with weights_only, "
            f"or safetensors; {type(err).__name__}: {str(err)[:200]})"
        ) from None
    if not isinstance(state, dict) or not all(
        isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items()
    ):
        raise ValueError(f"`{arg}`: {str(path)!r} is not a state dict (a mapping of names to tensors)")
    return state


def load_fid_inception(weights=None):
    """FIDInceptionV3 with real weights, strict load, eval mode.

    ``weights``: a path to the state dict (.pth, read with ``torch.load(weights_only=True)``, or
    .safetensors). None: the torch hub cache (``default_weights_path``). Nothing is downloaded: a missing
    file is a ValueError saying where to put it. The channel width is read from the file (tiny test
    networks load through the same code).
    """
    import torch

    if weights is None:
        path = default_weights_path()
        if not path.is_file():
            raise ValueError(_missing_message(path))
    else:
        path = Path(os.fspath(weights))
        if not path.is_file():
            raise ValueError(_missing_message(path, given=True))
    state = read_state_dict(path, "inception_weights")
    if "Conv2d_1a_3x3.conv.weight" not in state or state["Conv2d_1a_3x3.conv.weight"].ndim != 4:
        raise ValueError(
            f"`inception_weights`: {str(path)!r} is not a FID Inception state dict "
            "(no 'Conv2d_1a_3x3.conv.weight'; expected pytorch-fid's pt_inception-2015-12-05)"
        )
    width = state["Conv2d_1a_3x3.conv.weight"].shape[0] / 32
    model = build(width)
    # torch-fidelity-style conversions carry no BatchNorm counters; they do not affect eval outputs
    missing = [k for k in model.state_dict() if k not in state]
    if all(k.endswith("num_batches_tracked") for k in missing):
        for k in missing:
            state[k] = torch.tensor(0, dtype=torch.long)
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as err:
        raise ValueError(
            f"`inception_weights`: {str(path)!r} does not fit the FID Inception network: {err}"
        ) from None
    return model.eval()


def _missing_message(path: Path, given: bool = False) -> str:
    where = (
        f"`inception_weights` file {str(path)!r} does not exist"
        if given
        else (
            f"`inception_weights`: FID Inception weights not found in the torch hub cache ({str(path)!r}); "
            "nothing is downloaded"
        )
    )
    return (
        f"{where}. Download {FID_WEIGHTS_URL} once and either put it at {str(default_weights_path())!r} "
        "or pass inception_weights='/path/to/" + FID_WEIGHTS_FILE + "'; or pass any torch module as "
        "`feature_extractor`."
    )


def check_extractor_output(feats, batch: int):
    """The output of the FID feature network for a batch of `batch` images: a torch tensor of shape
    (batch, d, ...) with d >= 1 (flattened to (batch, -1) by the caller); anything else (a list, a numpy
    array, 1-D output, another batch size) is a TypeError/ValueError naming `feature_extractor`."""
    import torch

    if not isinstance(feats, torch.Tensor):
        raise TypeError(
            f"`feature_extractor` must return a torch tensor of (B, d) features, got {type(feats).__name__}"
        )
    if feats.ndim < 2 or feats.shape[0] != batch or feats[0].numel() < 1:
        raise ValueError(
            f"`feature_extractor` must return (B, d) features (one row per image), got shape "
            f"{tuple(feats.shape)} for a batch of {batch} images"
        )
    if feats.is_complex() or feats.dtype == torch.bool:
        raise TypeError(f"`feature_extractor` must return real numbers, got dtype {feats.dtype}")
    return feats


def preprocess(image, pre_resize: int | None = None):
    """(3, H, W) float32 tensor in [0, 1] of a PIL RGB image, as ``ToTensor`` does; with ``pre_resize``
    the image is first resized to pre_resize x pre_resize with PIL bilinear (what torchvision's
    ``Resize((256, 256))`` does to a PIL image in the Fusion Brain 2022 script)."""
    import numpy as np
    import torch
    from PIL import Image

    if pre_resize:
        image = image.resize((pre_resize, pre_resize), Image.BILINEAR)
    array = np.asarray(image, dtype=np.uint8)
    return torch.from_numpy(array.transpose(2, 0, 1).astype(np.float32) / 255.0)
