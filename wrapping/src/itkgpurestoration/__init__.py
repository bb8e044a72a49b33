# SPDX-License-Identifier: Apache-2.0
"""Total-variation (ROF) and L1-mean-curvature denoising on OpenCL devices or the CPU, and fast Poisson solves.

The package wraps the ITK-free C++ engine of ITKGPURestoration. It accepts
NumPy arrays, ``SimpleITK.Image`` and ``itk.Image`` objects and returns the
same kind. See ``denoise_tv``, ``denoise_tv_dask`` (chunked volumes, exact by
rounds), ``denoise_l1_mean_curvature`` (2D, curvature-based: no
staircasing, contrast kept), ``denoise_level_lines`` and
``denoise_level_lines_dask`` (PI-PD level-line denoising of 2D images and
stacks of frames, milliseconds per image; ``level_lines_radius`` its
footprint), ``denoise_statistical_tv`` (noise-weighted TV for CT, TV gradient
descent), ``recover_sparse`` (compressed sensing with partial circulant
matrices: sparse recovery and deblurring from compressed measurements;
``circulant_sensing`` draws the operator, ``measure_circulant`` applies it), ``solve_poisson`` and ``PoissonSolver`` (PSCR direct solver of
-Lap u + c u = f), ``solve_separable`` and ``SeparableSolver`` (the same solver
for general separable factors, ``AxisFactors``, e.g. ``p1_axis`` on
non-uniform meshes), ``estimate_noise_variance`` (the noise level of an image,
also of correlated CT noise), ``make_ct_phantom`` and ``simulate_ct``
(simulated CT test data), ``graph_mean_curvature_flow`` and ``willmore_flow``
(curvature flows of 2D images seen as height maps: surface fairing) and
``list_devices``. ``NumericalError`` (an
``ArithmeticError``) is raised by a solve that cannot reach its accuracy target.
``denoise_tv`` follows scikit-image's ``denoise_tv_chambolle`` (``weight`` with
its scaling of integer images, ``channel_axis``); every solve takes
``num_threads``.
"""

from ._channels import ChannelAxisWarning
from ._chunked import denoise_tv_dask
from ._core import Aborted, NumericalError, __version__  # version: one source, the root CMakeLists.txt
from ._curvature_flow import graph_mean_curvature_flow, willmore_flow
from ._denoise import ConvergenceWarning, denoise_tv, lam_from_skimage_weight
from ._devices import list_devices
from ._l1_mean_curvature import denoise_l1_mean_curvature, l1mc_r0_for_noise
from ._level_lines import denoise_level_lines, denoise_level_lines_dask, level_lines_radius
from ._noise import estimate_noise_variance
from ._phantom import CTPhantom, CTScan, make_ct_phantom, simulate_ct
from ._poisson import PoissonSolver, solve_poisson
from ._separable import AxisFactors, SeparableSolver, p1_axis, second_difference_axis, solve_separable
from ._sparse_recovery import circulant_sensing, measure_circulant, recover_sparse
from ._statistical import denoise_statistical_tv

__all__ = [
    "Aborted",
    "AxisFactors",
    "CTPhantom",
    "CTScan",
    "ChannelAxisWarning",
    "ConvergenceWarning",
    "NumericalError",
    "PoissonSolver",
    "SeparableSolver",
    "circulant_sensing",
    "denoise_l1_mean_curvature",
    "denoise_level_lines",
    "denoise_level_lines_dask",
    "denoise_statistical_tv",
    "denoise_tv",
    "denoise_tv_dask",
    "estimate_noise_variance",
    "graph_mean_curvature_flow",
    "l1mc_r0_for_noise",
    "lam_from_skimage_weight",
    "level_lines_radius",
    "list_devices",
    "make_ct_phantom",
    "measure_circulant",
    "p1_axis",
    "recover_sparse",
    "second_difference_axis",
    "simulate_ct",
    "solve_poisson",
    "solve_separable",
    "willmore_flow",
]
