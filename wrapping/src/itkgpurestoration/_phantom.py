# SPDX-License-Identifier: Apache-2.0
"""make_ct_phantom and simulate_ct: simulated CT test data (the C++ generator gpur::SimulateCT)."""

import collections
import collections.abc
import math
import numbers

import numpy as np

from . import _core
from ._denoise import positive_finite

CTPhantom = collections.namedtuple("CTPhantom", ["truth", "noisy", "variance"])
CTPhantom.__doc__ = """A simulated CT scan: float32 arrays of the same shape.

truth: the phantom (normalised attenuation: 0 air, 1 the densest material);
noisy: its reconstruction (FBP, or FDK for the cone beam) from Poisson-noisy projections;
variance: the analytic noise variance of noisy, per voxel."""

CTScan = collections.namedtuple("CTScan", ["noisy", "variance", "noise_free", "sinogram", "info"])
CTScan.__doc__ = """The result of simulate_ct.

noisy, variance: as for CTPhantom (float32, the truth's shape);
noise_free: the reconstruction of the noise-free projections (None unless asked for);
sinogram: the noise-free line integrals of the truth in intensity x length (None unless
asked for): (views, bins) for a 2D parallel-beam scan, (slices, views, bins) for a 3D one,
(views, rows, bins) for the cone beam;
info: dict of the scan (attenuation_per_unit, views, bins, rows, bin_spacing,
source_to_axis, source_to_detector)."""

GEOMETRIES = ("parallel", "cone")
FILTERS = ("ram-lak", "hann")


def _choice(value, name, allowed):
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
    return value


def _seed(seed):
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed < 2**64:
        raise ValueError(f"seed must be an integer in [0, 2**64), got {seed!r}")
    return int(seed)


def _views(views):
    if views is None:
        return 0
    if isinstance(views, bool) or not isinstance(views, numbers.Integral) or not 1 <= views <= 1000000:
        raise ValueError(f"views must be None (automatic) or an integer in [1, 1000000], got {views!r}")
    return int(views)


def _optional_positive(value, name):
    """None -> 0 (the engine's automatic choice), else a finite number > 0."""
    return 0.0 if value is None else positive_finite(value, name)


def _electronic_noise(value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (0.0 <= value < math.inf):
        raise ValueError(f"electronic_noise must be finite and >= 0, got {value!r}")
    return float(value)


def simulate_ct(
    truth,
    *,
    spacing=None,
    geometry="parallel",
    views=None,
    filter="ram-lak",
    photons_per_ray=1.0e4,
    electronic_noise=0.0,
    attenuation=None,
    source_to_axis=None,
    source_to_detector=None,
    seed=1,
    noise_free=False,
    sinogram=False,
):
    """Scans ``truth`` and reconstructs it, with the analytic noise variance of every voxel.

    Parameters
    ----------
    truth : numpy.ndarray
        2D (y, x) or 3D (z, y, x) intensities (normalised attenuation, >= 0), any real dtype.
    spacing : sequence of float, optional
        Voxel size per array axis, in length units (default 1).
    geometry : {"parallel", "cone"}
        "parallel": every z-slice on its own, views over [0, pi), filtered
        back-projection (noise independent between slices). "cone": a point
        source on a circle around the z axis, a flat detector, views over
        [0, 2 pi), Feldkamp-Davis-Kress reconstruction (3D only).
    views : int, optional
        Number of views (default: ceil(pi / 2 * max(nx, ny)), twice that for the cone).
    filter : {"ram-lak", "hann"}
        The ramp filter: band-limited ramp, or ramp times a Hann window (smoother noise).
    photons_per_ray : float > 0
        Unattenuated counts per detector bin and view: fewer photons, more noise.
    electronic_noise : float >= 0
        Standard deviation of additive detector noise, in counts.
    attenuation : float > 0, optional
        Attenuation of intensity 1 per length unit; default: the largest line integral is 2.5.
    source_to_axis, source_to_detector : float > 0, optional
        Cone beam distances in length units (default: 4 half diagonals of a slice, and twice that).
    seed : int >= 0
        The noise realisation (the result does not depend on the thread count).
    noise_free, sinogram : bool
        Also return the noise-free reconstruction and the noise-free line integrals.

    Returns
    -------
    CTScan(noisy, variance, noise_free, sinogram, info)
    """
    array = np.ascontiguousarray(truth, dtype=np.float32)
    if array.ndim not in (2, 3):
        raise ValueError(f"truth must be a 2D or 3D array, got {array.ndim} dimensions")
    if spacing is None:
        spacing = (1.0,) * array.ndim
    if isinstance(spacing, (str, bytes)) or not isinstance(spacing, collections.abc.Sequence):
        raise ValueError(f"spacing must be a sequence of {array.ndim} numbers, got {spacing!r}")
    if len(spacing) != array.ndim:
        raise ValueError(f"spacing needs {array.ndim} values (one per array axis), got {len(spacing)}")
    spacing = [positive_finite(h, "spacing") for h in spacing]
    result = _core.simulate_ct(
        array,
        spacing,
        _choice(geometry, "geometry", GEOMETRIES),
        _views(views),
        _choice(filter, "filter", FILTERS),
        positive_finite(photons_per_ray, "photons_per_ray"),
        _electronic_noise(electronic_noise),
        _optional_positive(attenuation, "attenuation"),
        _optional_positive(source_to_axis, "source_to_axis"),
        _optional_positive(source_to_detector, "source_to_detector"),
        _seed(seed),
        bool(noise_free),
        bool(sinogram),
    )
    info = {k: result[k] for k in result if k not in ("noisy", "variance", "noise_free", "sinogram")}
    return CTScan(result["noisy"], result["variance"], result["noise_free"], result["sinogram"], info)


def make_ct_phantom(
    shape,
    phantom="machined-part",
    *,
    photons_per_ray=1.0e4,
    electronic_noise=0.0,
    seed=1,
    views=None,
    filter="ram-lak",
    geometry="parallel",
):
    """Scans a phantom (parallel beam slice by slice, or a cone beam) and reconstructs it.

    Parameters
    ----------
    shape : (y, x) or (z, y, x)
        Array shape (unit voxel spacing); "machined-part" needs y, x >= 32.
    phantom : {"machined-part", "shepp-logan"}
        An aluminium-like block with drilled bores, a steel-like pin and slots
        1-3 voxels wide, or the 3D Shepp-Logan head phantom.
    photons_per_ray, electronic_noise, seed, views, filter, geometry
        As for ``simulate_ct``.

    Returns
    -------
    CTPhantom(truth, noisy, variance)
    """
    if isinstance(shape, (str, bytes)) or not isinstance(shape, collections.abc.Sequence) or not all(
        isinstance(n, numbers.Integral) and not isinstance(n, bool) for n in shape
    ):
        raise ValueError(f"shape must be a sequence of 2 or 3 integers, got {shape!r}")
    truth = _core.phantom([int(n) for n in shape], str(phantom))
    scan = simulate_ct(
        truth,
        geometry=geometry,
        views=views,
        filter=filter,
        photons_per_ray=photons_per_ray,
        electronic_noise=electronic_noise,
        seed=seed,
    )
    return CTPhantom(truth, scan.noisy, scan.variance)
