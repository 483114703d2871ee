// gert contexts under metadef's header name (exe_graph/runtime/tiling_context.h): the emulator's classes
// live in register/op_def_registry.h.
#pragma once
#include "register/op_def_registry.h"
