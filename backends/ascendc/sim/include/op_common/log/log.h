// opbase's logging header under its package name (op_common/log/log.h): the emulator's log/log.h.
#pragma once
#include "log/log.h"
