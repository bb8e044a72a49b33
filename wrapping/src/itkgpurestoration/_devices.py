# SPDX-License-Identifier: Apache-2.0
"""OpenCL device listing."""

from . import _core


def list_devices():
    """Return every OpenCL device as a dict.

    Keys: index, name, platform, vendor, type ("gpu", "cpu", "accelerator",
    "other"), version, driver_version, global_memory, max_allocation,
    local_memory (bytes), compute_units, max_work_group_size, fp64,
    description. The index and any part of "platform name" can be passed as
    ``device=`` to ``denoise_tv``. Empty when no OpenCL platform is installed.
    """
    return list(_core.list_devices())
