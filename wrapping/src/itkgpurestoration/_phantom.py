"""make_ct_phantom: simulated CT test data (the C++ generator gpur::MakeCTPhantom)."""

import collections
import numbers

from . import _core
from ._denoise import positive_finite

CTPhantom = collections.namedtuple("CTPhantom", ["truth", "noisy", "variance"])
CTPhantom.__doc__ = """A simulated CT scan: float32 arrays of the same shape.

truth: the phantom (normalised attenuation: 0 air, 1 the densest material);
noisy: its filtered back-projection from Poisson-noisy projections;
variance: the analytic noise variance of noisy, per voxel."""


def make_ct_phantom(shape, phantom="machined-part", *, photons_per_ray=1.0e4, electronic_noise=0.0, seed=1):
    """Scans a phantom slice by slice (parallel beam, Poisson counts) and reconstructs it by FBP.

    Parameters
    ----------
    shape : (y, x) or (z, y, x)
        Array shape (unit voxel spacing); "machined-part" needs y, x >= 32.
    phantom : {"machined-part", "shepp-logan"}
        An aluminium-like block with drilled bores, a steel-like pin and slots
        1-3 voxels wide, or the 3D Shepp-Logan head phantom.
    photons_per_ray : float > 0
        Unattenuated counts per detector bin and view: fewer photons, more noise.
    electronic_noise : float >= 0
        Standard deviation of additive detector noise, in counts.
    seed : int >= 0
        The noise realisation (the result does not depend on the thread count).

    Returns
    -------
    CTPhantom(truth, noisy, variance)
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    if isinstance(electronic_noise, bool) or not isinstance(electronic_noise, numbers.Real) or not (
        0.0 <= electronic_noise < float("inf")
    ):
        raise ValueError(f"electronic_noise must be finite and >= 0, got {electronic_noise!r}")
    truth, noisy, variance = _core.make_ct_phantom(
        [int(n) for n in shape],
        str(phantom),
        positive_finite(photons_per_ray, "photons_per_ray"),
        float(electronic_noise),
        int(seed),
    )
    return CTPhantom(truth, noisy, variance)
