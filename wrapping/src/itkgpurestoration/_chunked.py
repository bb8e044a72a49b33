# SPDX-License-Identifier: Apache-2.0
"""denoise_tv_dask: TV denoising of a chunked dask array, exact by rounds.

Why it is exact: one primal-dual iteration reads only the nearest neighbours
(forward differences for the dual step, backward ones for the primal step), so
an error at a block's artificial boundary travels at most one voxel per
iteration. A round runs B iterations on every chunk padded by a halo of at
least B + 1 voxels of its neighbours (``dask.array.map_overlap``), keeps the
chunk's interior and hands the whole primal-dual state (u, ubar, p) to the next
round. The result equals the single-array run with the same iteration count; on
the CPU backend bit for bit.
"""

import functools

import numpy as np

from . import _core
from ._channels import warn_if_channels_last
from ._denoise import positive_int, resolve_lam, thread_count
from ._images import compute_dtype, rescale_like_skimage, spacing_tuple


def _require_finite(block, block_info=None):
    """The block itself; ValueError with the index in the whole array of its first NaN/Inf."""
    bad = ~np.isfinite(block)
    if bad.any():
        local = np.unravel_index(int(np.argmax(bad)), block.shape)
        origin = [start for start, _ in block_info[0]["array-location"]]
        index = tuple(int(o + i) for o, i in zip(origin, local))
        raise ValueError(
            f"the input image holds a non-finite value ({block[local]}) at index {index}; NaN and Inf are not allowed"
        )
    return block


def _round(block, *, spacing, lam, algorithm, first, count, backend, device, threads):
    """One round on one padded block of the stacked state [f, u, ubar, p...]."""
    solve = _core.continue_tv_float32 if block.dtype == np.float32 else _core.continue_tv_float64
    return solve(np.ascontiguousarray(block), spacing, lam, algorithm, first, count, backend, device, threads)


def _skimage_range(block, *, dtype):
    """A block of integers as float32, scaled as scikit-image's img_as_float scales them."""
    return rescale_like_skimage(block.astype(np.float32), dtype)


def denoise_tv_dask(
    image,
    weight=None,
    *,
    lam=None,
    spacing=None,
    iterations=100,
    round_length=10,
    halo=None,
    algorithm="accelerated",
    backend="auto",
    device="",
    num_threads=None,
    chunks="auto",
):
    """TV (ROF) denoising of a 2D/3D dask array, chunk by chunk, in rounds.

    The model, ``weight``/``lam`` (integer data with ``weight`` scaled as
    scikit-image scales them), ``spacing``, ``algorithm``, ``backend``,
    ``device`` and ``num_threads`` (per chunk task) are those of
    :func:`denoise_tv`; the image is scalar (no ``channel_axis``). The run has a fixed number of
    iterations: the primal-dual gap is a global sum, and a stopping test would
    synchronise every chunk each round. Choose ``iterations`` from a
    :func:`denoise_tv` run on a representative crop (its report gives the
    iterations the gap tolerance needed).

    Parameters
    ----------
    image : dask.array.Array or numpy.ndarray
        A NumPy array is wrapped with ``dask.array.from_array(image, chunks)``.
    iterations : int >= 1
        Total iterations; the result equals ``denoise_tv(image, ...,
        max_iterations=iterations, tolerance=0)``.
    round_length : int >= 1
        Iterations per round (B). Larger B means fewer exchanges but a wider
        halo: each chunk computes (c + 2 (B + 1))^d voxels to keep c^d.
    halo : int >= round_length + 1, optional
        Overlap depth; default round_length + 1. Chunks must be at least this
        wide along every axis that is split.

    Returns
    -------
    A lazy dask array (same shape and chunks); call ``.compute()`` or write it
    with ``.to_zarr``. Every chunk task runs the engine with the GIL released,
    so a threaded scheduler, a ``dask.distributed`` cluster or several OpenCL
    devices (one per worker via ``device=``) all work.
    """
    try:
        import dask.array as da
    except ImportError as error:  # pragma: no cover - dask is an optional dependency
        raise ImportError("denoise_tv_dask needs dask: pip install 'dask[array]'") from error

    lam = resolve_lam(weight, lam)
    threads = thread_count(num_threads)
    iterations = positive_int(iterations, "iterations")
    round_length = positive_int(round_length, "round_length")
    least = _core.tv_halo(round_length)  # the engine's rule: round_length + 1
    halo = least if halo is None else positive_int(halo, "halo")
    if halo < least:
        raise ValueError(
            f"halo {halo} is too thin for {round_length} iterations per round: it must be >= round_length + 1"
        )

    if not isinstance(image, da.Array):
        image = da.from_array(np.asarray(image), chunks=chunks)
    warn_if_channels_last(image.shape, spacing, "denoise_tv_dask")
    if image.ndim not in (2, 3):
        raise ValueError(f"image must be 2D or 3D, got {image.ndim} dimensions (shape {image.shape})")
    dtype = compute_dtype(image.dtype)
    spacing = (1.0,) * image.ndim if spacing is None else spacing_tuple(spacing, image.ndim)

    depth = {0: 0}
    for axis, sizes in enumerate(image.chunks):
        depth[axis + 1] = halo if len(sizes) > 1 else 0
        if len(sizes) > 1 and min(sizes) < halo:
            raise ValueError(
                f"chunks along axis {axis} are as small as {min(sizes)} voxels, less than the halo {halo}; "
                "use larger chunks or a smaller round_length"
            )

    # Checked per input chunk, so that an error names the index in the whole array
    # (the engine sees padded blocks and would name an index in one of them).
    f = image.astype(dtype)
    if weight is not None and image.dtype.kind in "iu":
        f = image.map_blocks(functools.partial(_skimage_range, dtype=image.dtype), dtype=dtype)
    f = f.map_blocks(_require_finite, dtype=dtype)
    zeros = da.zeros_like(f)
    # The state travels as one stacked array so that one map_overlap exchanges all of it.
    state = da.stack([f, f, f] + [zeros] * image.ndim, axis=0).rechunk({0: -1})
    for first in range(0, iterations, round_length):
        step = functools.partial(
            _round,
            spacing=list(spacing),
            lam=lam,
            algorithm=str(algorithm),
            first=first,
            count=min(round_length, iterations - first),
            backend=str(backend),
            device=str(device),
            threads=threads,
        )
        state = state.map_overlap(step, depth=depth, boundary="none", trim=True, dtype=dtype)
    return state[1]
