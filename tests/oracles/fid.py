"""pytorch-fid 0.3.0's Frechet distance (src/pytorch_fid/fid_score.py), transcribed, and the
Inception-like feature rows it is run on."""

import numpy as np


# ------------------------------------------------------------------------------------------------
# pytorch-fid 0.3.0 src/pytorch_fid/fid_score.py calculate_frechet_distance (transcribed; `disp`
# is gone from scipy.linalg.sqrtm in recent SciPy, so the call drops it: same computation).
# ------------------------------------------------------------------------------------------------
def pytorch_fid_distance(mu1, sigma1, mu2, sigma2, eps=1e-6):
    from scipy import linalg

    mu1, mu2 = np.atleast_1d(mu1), np.atleast_1d(mu2)
    sigma1, sigma2 = np.atleast_2d(sigma1), np.atleast_2d(sigma2)
    assert mu1.shape == mu2.shape and sigma1.shape == sigma2.shape
    diff = mu1 - mu2
    covmean = linalg.sqrtm(sigma1.dot(sigma2))
    if not np.isfinite(covmean).all():
        offset = np.eye(sigma1.shape[0]) * eps
        covmean = linalg.sqrtm((sigma1 + offset).dot(sigma2 + offset))
    if np.iscomplexobj(covmean):
        if not np.allclose(np.diagonal(covmean).imag, 0, atol=1e-3):
            raise ValueError(f"Imaginary component {np.max(np.abs(covmean.imag))}")
        covmean = covmean.real
    return float(diff.dot(diff) + np.trace(sigma1) + np.trace(sigma2) - 2 * np.trace(covmean))


def pytorch_fid_from_features(act1, act2):
    """fid_score.calculate_activation_statistics on both sides, then the distance."""
    return pytorch_fid_distance(
        np.mean(act1, axis=0), np.cov(act1, rowvar=False), np.mean(act2, axis=0), np.cov(act2, rowvar=False)
    )


def features(n: int, d: int, seed: int, shift: float = 0.0) -> np.ndarray:
    """Inception-like pool3 activations: non-negative, skewed, correlated through a low-rank part."""
    rng = np.random.default_rng(seed)
    scale = rng.gamma(2.0, 0.2, size=d)
    x = rng.gamma(1.5, 1.0, size=(n, d)) * scale
    x += np.abs(rng.standard_normal((n, 32)) @ rng.standard_normal((32, d))) * 0.05
    return x + shift
