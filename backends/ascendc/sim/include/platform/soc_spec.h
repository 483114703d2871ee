// NpuArch, the architecture number the platform reports (asc-devkit / opbase `platform/soc_spec.h`:
// `enum class NpuArch : uint32_t` at global scope, DAV_<__NPU_ARCH__> = <number>, DAV_RESV = 0xFFFF).
// The values below are the ones the emulator's targets and the ops' checks use.
#pragma once
#include <cstdint>

enum class NpuArch : uint32_t {
    DAV_1001 = 1001,
    DAV_2002 = 2002,
    DAV_2201 = 2201,
    DAV_3002 = 3002,
    DAV_3510 = 3510,
    DAV_5102 = 5102,
    DAV_RESV = 0xFFFF
};
