"""fid_clip: the conditioning limit of FID stated in the card, on a small rank-deficient case:
600 x 500 samples in a 3-d subspace of d = 128. The exact value is computed in the subspace (3 x 3
covariances; the distance does not depend on the basis)."""

import sys
import warnings

import numpy as np
import pytest
from oracles import fid as oracle  # holds the transcription of pytorch-fid's calculate_frechet_distance

from multimodal_metrics.fid_clip import core, moments


def _case(n1, n2, d, k, seed):
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.standard_normal((d, k)))[0]
    a = rng.standard_normal((n1, k)) @ basis.T
    b = (rng.standard_normal((n2, k)) * 1.3 + 0.2) @ basis.T
    return a, b, basis


def _exact(a, b, basis):
    pa, pb = a @ basis, b @ basis
    s1, s2 = np.cov(pa, rowvar=False), np.cov(pb, rowvar=False)
    w, v = np.linalg.eigh(s1)
    root = (v * np.sqrt(np.clip(w, 0, None))) @ v.T
    trace_root = np.sqrt(np.clip(np.linalg.eigvalsh(root @ s2 @ root), 0, None)).sum()
    return float(((pa.mean(0) - pb.mean(0)) ** 2).sum() + np.trace(s1) + np.trace(s2) - 2 * trace_root)


@pytest.mark.parametrize("seed", [0, 2])
def test_rank_deficient_features_the_card_figures(seed):
    torch = pytest.importorskip("torch")
    from torchmetrics.image.fid import _compute_fid

    a, b, basis = _case(600, 500, 128, 3, seed)
    exact = _exact(a, b, basis)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        ours = core.frechet_distance(
            moments.FrechetStats.from_features(a), moments.FrechetStats.from_features(b)
        )
    m1, m2, s1, s2 = a.mean(0), b.mean(0), np.cov(a, rowvar=False), np.cov(b, rowvar=False)
    pytorch_fid = oracle.pytorch_fid_distance(m1, s1, m2, s2)
    torchmetrics = float(_compute_fid(*(torch.from_numpy(x) for x in (m1, s1, m2, s2))))
    rel = lambda x, y: abs(x - y) / abs(y)  # noqa: E731
    # all three are off the exact value by ~1e-6 relative (round-off eigenvalues of the null space) ...
    for value in (ours, pytorch_fid, torchmetrics):
        assert 1e-8 < rel(value, exact) < 1e-5
    # ... and differ from each other by up to ~5e-7 here (card: up to 4e-6 at d = 512)
    assert (
        rel(ours, pytorch_fid) < 1e-6
        and rel(ours, torchmetrics) < 1e-6
        and rel(pytorch_fid, torchmetrics) < 1e-6
    )
    assert sys.float_info.epsilon < rel(ours, pytorch_fid)  # not bit-equal: the limit is conditioning
