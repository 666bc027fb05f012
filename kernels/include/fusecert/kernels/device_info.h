// device_info.h — host-side helpers for the device record of the evidence and
// benchmark JSON (no CUDA needed; unit-tested on the CPU).
#pragma once
#include <string>

namespace fusecert::kernels {

/// The NVIDIA kernel-module version ("580.159.04") from the text of
/// /proc/driver/nvidia/version, whose first line reads e.g.
///   "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ..."
///   "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 ..."
/// It is the first whitespace-separated token of the "NVRM version:" line made
/// only of digits and dots, starting with a digit, holding at least one dot.
/// Returns "" when there is no such token (never a neighbouring word).
std::string parse_nvidia_driver_version(const std::string& proc_version_text);

/// parse_nvidia_driver_version() of /proc/driver/nvidia/version, or "unknown"
/// when the file is missing or holds no version.
std::string read_nvidia_driver_version();

}  // namespace fusecert::kernels
