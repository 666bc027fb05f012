// CPU tests of the driver-version parse that fills "driver" in the device
// record of the evidence and benchmark JSON (bench-step1..4.json recorded
// "for" from an earlier parse of the same line).
#include <gtest/gtest.h>

#include "fusecert/kernels/device_info.h"

namespace fk = fusecert::kernels;

namespace {

TEST(DriverVersion, OpenKernelModuleLine) {
  // The H200 host's line (the one that gave "for" before the parse fix).
  EXPECT_EQ(fk::parse_nvidia_driver_version(
                "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release "
                "Build  (dvs-builder@U16-I3-B03-4-3)  Thu Sep 11 00:00:00 UTC 2025\n"
                "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n"),
            "580.159.04");
}

TEST(DriverVersion, ProprietaryAndArmLines) {
  EXPECT_EQ(fk::parse_nvidia_driver_version(
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 "
                "UTC 2023\n"),
            "535.104.05");
  EXPECT_EQ(fk::parse_nvidia_driver_version(
                "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  570.86.15  Release "
                "Build  (dvs-builder@U16-T02-35-2)  Tue Jan 28 2025\n"),
            "570.86.15");
  EXPECT_EQ(fk::parse_nvidia_driver_version("NVRM version: NVIDIA UNIX Kernel Module 525.60\n"),
            "525.60");
}

TEST(DriverVersion, NoVersionGivesEmptyNotANeighbouringWord) {
  EXPECT_EQ(fk::parse_nvidia_driver_version(""), "");
  EXPECT_EQ(fk::parse_nvidia_driver_version(
                "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  Release Build\n"),
            "");
  // Tokens that merely start with a digit are not versions.
  EXPECT_EQ(fk::parse_nvidia_driver_version("NVRM version: 12:00 x86_64 2025. 3.x 4a.1\n"), "");
  // Only the NVRM line counts, not the GCC line's "12.2.0".
  EXPECT_EQ(fk::parse_nvidia_driver_version("GCC version:  gcc version 12.2.0\n"), "");
  EXPECT_EQ(fk::parse_nvidia_driver_version("GCC version:  gcc version 12.2.0\n"
                                            "NVRM version: NVIDIA UNIX Kernel Module  580.65.06\n"),
            "580.65.06");
}

TEST(DriverVersion, ReadNeverReturnsEmpty) {
  // On a machine without the NVIDIA module (CI) the file is missing: "unknown".
  EXPECT_FALSE(fk::read_nvidia_driver_version().empty());
}

}  // namespace
