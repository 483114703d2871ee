// RegBase vector functions (VF): the two launch forms and LocalMemBar.
//   9.x:  template <auto funcPtr, typename... Args> __aicore__ inline void asc_vf_call(Args&&... args)
//         (asc-devkit include/basic_api/kernel_common.h:53-59; docs Reg矢量计算/VF调用/asc_vf_call.md):
//         funcPtr is a free or static `__simd_vf__` function returning void whose arguments are raw
//         pointers and basic scalars only (no struct, array or reference).
//   8.x:  an inline `__VEC_SCOPE__ { ... }` block (ops-nn arch35 kernels, regbase-cv.md s1.1).
//   template <MemType src, MemType dst> __simd_callee__ inline void LocalMemBar()
//         (include/basic_api/reg_compute/kernel_reg_compute_membar_intf.h; docs 同步控制/LocalMemBar.md).
//
// A VF runs on PIPE_V. Here both forms open a VF scope for the calls they make: Reg API calls
// outside one fault, any other instruction inside one faults (dslc::issue), registers declared
// outside it fault when used (reg_types.h), and UB a VF stores and reloads without a LocalMemBar
// in between is a RaceError. `asc_vf_call` is a macro here so the scope knows the call's line.
// The loop rules (uint16_t counters, <= 4 nested loops) are checked on the kernel text by
// backends/ascendc/sim/vf_rules.py before the build.
#pragma once
#include <type_traits>

#include "reg_types.h"

namespace dslc {

// The RAII scope of one VF launch.
class VfScope {
public:
    VfScope(const char* form, const char* file, int line) { vf_enter(form, Loc(file, line)); }
    ~VfScope() { vf_exit(); }
    VfScope(const VfScope&) = delete;
    VfScope& operator=(const VfScope&) = delete;
    bool once() { return !done_ && (done_ = true); }

private:
    bool done_ = false;
};

// What a VF may take: raw pointers and basic scalars (asc_vf_call.md).
template <typename A> struct VfArgOk {
    using D = std::remove_cv_t<std::remove_reference_t<A>>;
    static constexpr bool value = std::is_pointer<D>::value || std::is_arithmetic<D>::value || std::is_enum<D>::value ||
                                  std::is_same<D, half>::value || std::is_same<D, bfloat16_t>::value;
};
template <typename P> struct VfParamOk {
    static constexpr bool value = !std::is_reference<P>::value && VfArgOk<P>::value;
};

template <typename F> struct VfSignature;
template <typename... P> struct VfSignature<void (*)(P...)> {
    static constexpr bool params_ok = (VfParamOk<P>::value && ...);
};

struct VfCall {
    const char* file;
    int line;
    VfCall(const char* f, int l) : file(f), line(l) {}
    template <auto funcPtr, typename... Args> void call(Args&&... args) {
        static_assert(VfSignature<decltype(funcPtr)>::params_ok,
                      "asc_vf_call: the __simd_vf__ function's parameters may only be raw __ubuf__ pointers and "
                      "basic scalars passed by value (no LocalTensor, struct, array or reference; asc_vf_call.md)");
        static_assert((VfArgOk<Args>::value && ...),
                      "asc_vf_call: arguments may only be raw __ubuf__ pointers and basic scalars (no LocalTensor, "
                      "struct or array; asc_vf_call.md)");
        VfScope scope("asc_vf_call", file, line);
        funcPtr(args...);
    }
};

}  // namespace dslc

#define asc_vf_call ::dslc::VfCall(__FILE__, __LINE__).call
#define __VEC_SCOPE__ for (::dslc::VfScope dslc_vf_scope_("__VEC_SCOPE__", __FILE__, __LINE__); dslc_vf_scope_.once();)

namespace AscendC {
namespace Reg {

// Orders the VF's UB accesses of kind src before those of kind dst. Only the vector store -> vector
// load order is modelled (VEC_STORE or VEC_ALL before VEC_LOAD or VEC_ALL); scalar kinds are accepted.
template <MemType src, MemType dst> __simd_callee__ inline void LocalMemBar(dslc::Loc loc = {}) {
    dslc::reg_issue("LocalMemBar", loc);
    constexpr bool stores = src == MemType::VEC_STORE || src == MemType::VEC_ALL;
    constexpr bool loads = dst == MemType::VEC_LOAD || dst == MemType::VEC_ALL;
    if (stores && loads) dslc::vf_store_load_bar();
}

}  // namespace Reg
}  // namespace AscendC
