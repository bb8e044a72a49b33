"""Total-variation (ROF) denoising on OpenCL devices or the CPU.

The package wraps the ITK-free C++ engine of ITKGPURestoration. It accepts
NumPy arrays, ``SimpleITK.Image`` and ``itk.Image`` objects and returns the
same kind. See ``denoise_tv``, ``denoise_tv_dask`` (chunked volumes, exact by
rounds) and ``list_devices``.
"""

from ._chunked import denoise_tv_dask
from ._core import Aborted
from ._denoise import denoise_tv, lam_from_skimage_weight
from ._devices import list_devices

__all__ = ["Aborted", "denoise_tv", "denoise_tv_dask", "lam_from_skimage_weight", "list_devices"]
__version__ = "0.1.0"
