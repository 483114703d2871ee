// fe::PlatFormInfos under CANN's header name (platform/platform_infos_def.h): the emulator's class
// (dslc_sim/host_types.h), whose GetPlatformRes answers from the target table.
#pragma once
#include "dslc_sim/host_types.h"
