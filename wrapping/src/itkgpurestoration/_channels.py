# SPDX-License-Identifier: Apache-2.0
"""Multichannel images (colour, vector pixels): scikit-image's ``channel_axis``, one scalar solve per channel.

Each channel is denoised on its own, as ``skimage.restoration.denoise_tv_chambolle``
does with ``channel_axis``: that is parity, and it needs no other kernels (a
vectorial TV, which couples the channels' gradients, would).
"""

import numbers
import warnings

import numpy as np

from ._images import compute_array, spacing_tuple, to_array_with_components


class ChannelAxisWarning(UserWarning):
    """A NumPy array looks like a colour image but is denoised as a 3D volume.

    Issued for a 3D array whose last axis has 3 or 4 entries when neither
    ``channel_axis`` nor ``spacing`` says which it is. Pass ``channel_axis=-1``
    for an RGB(A) image (each channel denoised in 2D), or ``spacing`` (three
    values) for a volume.
    """


def warn_if_channels_last(shape, spacing, what, stacklevel=3):
    """ChannelAxisWarning when an array of ``shape`` is (n, m, 3 or 4) and ``spacing`` is None.

    For arrays only: SimpleITK/itk images say themselves whether they are
    volumes or have vector pixels.
    """
    if len(shape) != 3 or shape[-1] not in (3, 4) or spacing is not None:
        return
    warnings.warn(
        f"{what}: an array of shape {tuple(shape)} is denoised as a 3D volume (z, y, x) {shape[-1]} voxels wide "
        "in x; if its last axis holds colour channels, pass channel_axis=-1 (each channel is denoised in 2D, as "
        "scikit-image does); for a volume, pass spacing=(sz, sy, sx) to say so",
        ChannelAxisWarning,
        stacklevel=stacklevel,
    )


def _channel_axis(channel_axis, ndim):
    """channel_axis as an index in [0, ndim), or ValueError naming what is allowed."""
    allowed = f"None or an integer axis of the image, -{ndim} to {ndim - 1}"
    if isinstance(channel_axis, bool) or not isinstance(channel_axis, numbers.Integral):
        raise ValueError(f"channel_axis must be {allowed}, got {channel_axis!r}")
    if not -ndim <= channel_axis < ndim:
        raise ValueError(f"channel_axis must be {allowed}, got {channel_axis}")
    return int(channel_axis) % ndim


class Channels:
    """A 2D/3D image split into scalar channels (one when it has none), and the way back.

    ``arrays``: C-contiguous arrays in the compute dtype, one per channel (the
    image itself, without a copy where possible, when it has no channels);
    ``spacing``: of the spatial axes, in array-axis order; ``axis``: the channel
    axis of the array, None for a scalar image.
    """

    def __init__(self, image, spacing, channel_axis, what, skimage_range=False):
        array, image_spacing, self._restore, vector = to_array_with_components(image)
        array = np.asarray(array)
        if vector:
            if channel_axis is not None:
                raise ValueError(
                    "channel_axis is for NumPy arrays; the channels of a SimpleITK/itk vector image are its pixel "
                    "components, each denoised on its own"
                )
            self.axis = array.ndim - 1
        elif channel_axis is not None:
            if not isinstance(image, np.ndarray):
                raise ValueError(
                    "channel_axis is for NumPy arrays; a scalar SimpleITK/itk image has no channel axis"
                )
            self.axis = _channel_axis(channel_axis, array.ndim)
        else:
            self.axis = None
            if array.ndim > 3 and isinstance(image, np.ndarray):
                raise ValueError(
                    f"image must be 2D or 3D, got {array.ndim} dimensions (shape {array.shape}); for an image "
                    "with channels pass channel_axis"
                )
            if isinstance(image, np.ndarray):
                warn_if_channels_last(array.shape, spacing, what, stacklevel=4)

        if self.axis is None:
            self.arrays = [compute_array(array, skimage_range)]
            spatial = array.ndim
        else:
            self._shape = array.shape
            self.arrays = [
                compute_array(np.take(array, c, axis=self.axis), skimage_range)
                for c in range(array.shape[self.axis])
            ]
            spatial = array.ndim - 1
        if spacing is None:
            spacing = image_spacing if image_spacing is not None else (1.0,) * spatial
        self.spacing = spacing_tuple(spacing, spatial)

    def assemble(self, results):
        """The output image from the channels' results: same kind, shape and channel axis as the input."""
        if self.axis is None:
            return self._restore(results[0])
        out = np.empty(self._shape, dtype=results[0].dtype)
        for c, result in enumerate(results):
            out[(slice(None),) * self.axis + (c,)] = result
        return self._restore(out)


def channel_progress(progress, channel, channels):
    """progress(done, maximum) of one channel's solve as one range over all channels (None stays None)."""
    if progress is None or channels == 1:
        return progress
    return lambda done, maximum: progress(channel * maximum + done, channels * maximum)


def merge_reports(reports):
    """One report for the channels' solves: the single solve's report, or a merged one with ``channels``.

    Merged: backend, device and description of the first channel (all run on
    the same backend); iterations and stream_regions the largest of any
    channel; converged only when every channel converged; relative_gap the
    largest (the worst channel); primal, dual and seconds summed (the channels'
    problems are independent, so the image's objective is their sum); warnings
    of all channels, each prefixed with its channel; channels: every channel's
    own report (with its gap_history, which the merged report does not have).
    """
    if len(reports) == 1:
        return reports[0]
    merged = {key: reports[0][key] for key in ("backend", "device", "description")}
    merged["iterations"] = max(r["iterations"] for r in reports)
    merged["converged"] = all(r["converged"] for r in reports)
    merged["relative_gap"] = max(r["relative_gap"] for r in reports)
    for key in ("primal", "dual", "seconds"):
        merged[key] = sum(r[key] for r in reports)
    merged["stream_regions"] = max(r["stream_regions"] for r in reports)
    merged["warnings"] = [f"channel {c}: {w}" for c, r in enumerate(reports) for w in r["warnings"]]
    merged["channels"] = reports
    return merged
