// Qualifiers, positions, pipes and events of the Ascend C kernel language (ascendc-api.md s2, s6).
#pragma once
#include <type_traits>
#include <cstdint>

#include "runtime.h"

#define __aicore__
#define __global__
#define __gm__
#define __ubuf__
#define __cbuf__
#define __local_mem__
#define __inout_pipe__(x)
// Function marks of the Reg API: empty, as in the compile gate's stubs (reg_vf.h opens the VF scope).
#define __simd_vf__
#define __simd_callee__
typedef uint8_t* GM_ADDR;

// ASSERT(expr): assert() in CANN's CPU debug build, nothing on the NPU (asc-devkit
// impl/basic_api/kernel_macros.h). The emulator is a debug run, so a false ASSERT is a fault.
#ifndef ASSERT
#define ASSERT(x)                                                                                                  \
    do {                                                                                                           \
        if (!(x)) ::DslcSim::fault(::DslcSim::F_SIM, ::DslcSim::Loc(__FILE__, __LINE__), "ASSERT(%s) failed", #x); \
    } while (0)
#endif

#define KERNEL_TASK_TYPE_DEFAULT(x) \
    do {                            \
    } while (0)
#define KERNEL_TASK_TYPE(key, x) \
    do {                         \
    } while (0)
// `if ASCEND_IS_AIC { ... }`: the running core of a __mix__ kernel (crosscore.h); an AIV-only kernel runs on an AIV.
#define ASCEND_IS_AIV (::dslc::core_kind() == ::dslc::CK_AIV)
#define ASCEND_IS_AIC (::dslc::core_kind() == ::dslc::CK_AIC)
#ifndef ASC_UB_SIZE
#define ASC_UB_SIZE (192 * 1024 - 256)
#endif

// pipe_t is a global (non-AscendC) enum in CANN: PipeBarrier<PIPE_V>().
enum pipe_t { PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_FIX, PIPE_V2 };

// event_t / EVENT_IDn: plain ids convertible to int32_t.
enum event_t { EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };

namespace AscendC {

enum class TPosition : uint8_t { GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM, TSCM, MAX };
using QuePosition = TPosition;

// Order as in impl/basic_api/kernel_event.h (ascendc-api.md s6).
enum class HardEvent : uint8_t {
    MTE2_MTE1, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V, MTE3_MTE1, MTE1_MTE3,
    MTE1_V, MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_MTE2, MTE2_MTE3, S_V, V_S, S_MTE2, MTE2_S, S_MTE3,
    MTE3_S, MTE2_FIX, FIX_MTE2, FIX_S, M_S, FIX_MTE3, MTE1_FIX, FIX_MTE1, FIX_FIX, MAX
};
using TEventID = int8_t;

enum class CacheMode : uint8_t { CACHE_MODE_DISABLE = 0, CACHE_MODE_NORMAL = 1, CACHE_MODE_PERSISTENT = 4 };
enum class CacheRwMode : uint8_t { READ = 1, WRITE = 2, RW = 3 };

// As the running core sees them (docs 工具接口/系统资源与变量/: GetBlockIdx.md, GetBlockNum.md, GetTaskRatio.md,
// GetSubBlockIdx(ISASI).md, GetSubBlockNum(ISASI).md; include/basic_api/kernel_operator_sys_var_intf.h).
__aicore__ inline int64_t GetBlockIdx() { return dslc::view_block_idx(); }
__aicore__ inline int64_t GetBlockNum() { return dslc::view_block_num(); }
__aicore__ inline int64_t GetTaskRatio() { return dslc::view_task_ratio(); }
__aicore__ inline int64_t GetTaskRation() { return dslc::view_task_ratio(); }  // the impl's name (GetTaskRationImpl)
__aicore__ inline int64_t GetSubBlockIdx() { return dslc::view_sub_block_idx(); }
__aicore__ inline int64_t GetSubBlockNum() { return dslc::view_sub_block_num(); }
// The user's part of the workspace, after the system reserve (RESERVED_WORKSPACE, 16 MiB on
// 910B/950: impl/basic_api/utils/kernel_utils_constants.h; dav_c220 kernel_operator_common_impl.h
// GetUserWorkspace returns the workspace address + RESERVED_WORKSPACE). The emulator's
// PlatformAscendC::GetLibApiWorkSpaceSize() reports the same 16 MiB, so a host that sizes the
// workspace as GetLibApiWorkSpaceSize() + user bytes gets its user bytes here.
constexpr size_t RESERVED_WORKSPACE = 16u * 1024u * 1024u;
__aicore__ inline GM_ADDR GetUserWorkspace(GM_ADDR workspace) { return workspace + RESERVED_WORKSPACE; }
__aicore__ inline void InitSocState() {}
template <typename T> __aicore__ inline T CeilDivision(T a, T b) { return (a + b - 1) / b; }
__aicore__ inline constexpr uint32_t GetVecLen() { return 256; }
// Constants and helpers CANN 8.x kernels use unqualified (bisheng's kernel headers define them; not in
// the public asc-devkit headers): a 32-byte data block, its float count, a 256-byte repeat, the mask
// placeholder of an API called with isSetMask = false (BlockReduceSum.md: MASK_PLACEHOLDER), and
// AlignUp(a, b), a rounded up to a multiple of b.
constexpr int32_t ONE_BLK_SIZE = 32;
constexpr int32_t ONE_BLK_FLOAT_NUM = 8;
constexpr int32_t ONE_BLK_HALF_NUM = 16;
constexpr int32_t ONE_REPEAT_BYTE_SIZE = 256;
constexpr int32_t MASK_PLACEHOLDER = 0;
// kernel_utils_constants.h (asc-devkit v9.0.x): the elements Brcb broadcasts per repeat.
constexpr uint32_t BRCB_BROADCAST_NUMBER = 8;
constexpr uint32_t DEFAULT_REPEAT_STRIDE = 8;  // blocks between repeats of a contiguous level-0 operand
// Mixed integer types (RmsNorm: AlignUp(uint64_t, int32_t)) compute in their common type.
template <typename T, typename U>
__aicore__ inline constexpr typename std::common_type<T, U>::type AlignUp(T a, U b) {
    using C = typename std::common_type<T, U>::type;
    return C(b) == 0 ? C(a) : (C(a) + C(b) - 1) / C(b) * C(b);
}

// Type traits of impl/basic_api/utils (asc-devkit kernel_utils_ceil_oom_que.h): IsSameType<T, U>::value.
template <bool b> struct BoolInst {
    using Type = BoolInst<b>;
    static constexpr bool value = b;
};
using TrueType = BoolInst<true>;
using FalseType = BoolInst<false>;
template <typename T, typename U> struct IsSameType : public FalseType {};
template <typename T> struct IsSameType<T, T> : public TrueType {};

}  // namespace AscendC

// bisheng's built-in `block_idx` (CANN 8.x kernels read it as the block index, = GetBlockIdx()):
// a global whose value is the running block's index.
struct DslcBlockIdxVar {
    __aicore__ inline operator int64_t() const { return ::dslc::view_block_idx(); }
};
inline constexpr DslcBlockIdxVar block_idx{};

// The core types of asc-devkit's utils/sys_constants.h (MIX 0, AIC 1, AIV 2) and g_coreType, the
// type of the running core (a global set per core by the kernel launch, kernel_utils_macros.h;
// CANN 8.x kernels test `g_coreType == AIV`): here it reads the running core's kind.
namespace AscendC {
constexpr int32_t MIX = 0;
constexpr int32_t AIC = 1;
constexpr int32_t AIV = 2;
}  // namespace AscendC
struct DslcCoreTypeVar {
    __aicore__ inline operator int32_t() const {
        return ::dslc::core_kind() == ::dslc::CK_AIC ? ::AscendC::AIC : ::AscendC::AIV;
    }
};
inline constexpr DslcCoreTypeVar g_coreType{};
