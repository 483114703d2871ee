// Force-included first into the kernel TU of an `extern "C"` kernel entry (../../build.py). CANN op
// names are often C library names (div, exp, abs, round, time, read, ...), and the emulator's
// headers, unlike the NPU's, bring in the C library: its `div_t div(int, int)` and the kernel's
// `extern "C" void div(GM_ADDR...)` would be conflicting declarations of one C function. So the
// headers a kernel TU includes (and the library headers they use) are parsed here, before the
// build's generated header defines the entry's name as a macro (`#define div dslc_entry_div`): the
// macro then renames only the kernel text (the entry, and any use of the name in it) and never a C
// library declaration. Macros that expand in kernel text use no name an operator can have (DslcSim,
// __builtin_memcpy).
#pragma once
#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <type_traits>
#include <utility>

#include "kernel_operator.h"
#include "kernel_tiling/kernel_tiling.h"
#include "register/tilingdata_base.h"
