// RegBase (Reg API, DAV_3510) registers and masks: RegTensor, MaskReg, CreateMask, UpdateMask and
// the enums of the Reg API. Names, template parameters and argument order are asc-devkit 9.1's:
//   include/basic_api/reg_compute/kernel_reg_compute_struct_intf.h   RegTrait, RegTensor
//   include/basic_api/reg_compute/kernel_reg_compute_common_intf.h   MaskReg
//   include/basic_api/reg_compute/kernel_reg_compute_maskreg_intf.h  UpdateMask, CreateMask
//   include/basic_api/reg_compute/kernel_reg_compute_utils.h         RegLayout SatMode MaskMergeMode
//                     MaskPattern LoadDist StoreDist MemType PostLiteral HighLowPart DefaultType CastTrait
//   impl/basic_api/kernel_macros.h:126-129                           namespace MicroAPI = Reg
//
// A register is VL = 256 bytes (64 b32 / 128 b16 / 256 b8 lanes). A MaskReg has one bit per byte
// (VL/8 = 32 B): an element of b bytes is active when the bit of its first byte is set (docs
// Reg矢量计算/寄存器数据类型/MaskReg.md: "only the lowest bit is significant"). CreateMask and
// UpdateMask set the bits of every byte of an active element (inferred: the doc's figures are not
// in the snapshot), so a mask made for b32 enables both b16 halves of each lane.
//
// The emulator also tracks, per register byte, whether it holds defined data: a fresh register is
// undefined, a load of UB that nothing wrote gives undefined lanes (not a fault: a tail load reads
// a whole VL), ops propagate it through active lanes, and a StoreAlign of an undefined active lane
// is the uninitialised-read fault. Each register records the VF scope it was declared in; using it
// in another scope is the "register outlives its VF" fault.
#pragma once
#include <cstring>
#include <type_traits>

#include "vec_cast.h"

namespace AscendC {
namespace Reg {

struct RegTrait {
    int REG_NUM = 1;
};
constexpr RegTrait RegTraitNumOne = {1};
constexpr RegTrait RegTraitNumTwo = {2};

struct DefaultType {};

enum class RegLayout { UNKNOWN = -1, ZERO, ONE, TWO, THREE };
enum class SatMode { UNKNOWN = -1, NO_SAT, SAT };
enum class MaskMergeMode { UNKNOWN, MERGING, ZEROING };
enum class HighLowPart { LOWEST, HIGHEST };
enum class PostLiteral { POST_MODE_NORMAL, POST_MODE_UPDATE };
enum class MaskPattern { ALL, VL1, VL2, VL3, VL4, VL8, VL16, VL32, VL64, VL128, M3, M4, H, Q, ALLF = 15 };
enum class LoadDist {
    DIST_NORM, DIST_BRC_B8, DIST_BRC_B16, DIST_BRC_B32, DIST_US_B8 = 6, DIST_US_B16, DIST_DS_B8, DIST_DS_B16,
    DIST_BDINTLV, DIST_DINTLV_B8, DIST_DINTLV_B16, DIST_UNPACK_B8, DIST_UNPACK_B16, DIST_BLK, DIST_E2B_B16,
    DIST_E2B_B32, DIST_UNPACK_B32, DIST_DINTLV_B32, DIST_UNPACK4_B8, DIST_SPLT4CHN_B8, DIST_SPLT2CHN_B8,
    DIST_SPLT2CHN_B16,
};
enum class StoreDist {
    DIST_NORM_B8, DIST_NORM_B16, DIST_NORM_B32, DIST_FIRST_ELEMENT_B8, DIST_FIRST_ELEMENT_B16, DIST_FIRST_ELEMENT_B32,
    DIST_PACK_B16, DIST_PACK_B32, DIST_INTLV_B8, DIST_INTLV_B16, DIST_PACK_B64, DIST_INTLV_B32, DIST_PACK4_B32,
    DIST_MRG4CHN_B8, DIST_MRG2CHN_B8, DIST_MRG2CHN_B16, DIST_NORM
};
enum class MemType { VEC_STORE, VEC_LOAD, SCALAR_STORE, SCALAR_LOAD, VEC_ALL, SCALAR_ALL };

struct CastTrait {
    RegLayout layoutMode = RegLayout::UNKNOWN;
    SatMode satMode = SatMode::UNKNOWN;
    MaskMergeMode mrgMode = MaskMergeMode::UNKNOWN;
    RoundMode roundMode = RoundMode::UNKNOWN;
};
constexpr CastTrait castTrait = {RegLayout::UNKNOWN, SatMode::UNKNOWN, MaskMergeMode::UNKNOWN, RoundMode::UNKNOWN};

namespace sim {

constexpr uint32_t VL = 256;

struct Bits256 {
    uint64_t w[4] = {0, 0, 0, 0};
    bool get(uint32_t i) const { return (w[i / 64] >> (i % 64)) & 1u; }
    void set(uint32_t i, bool v) {
        if (v)
            w[i / 64] |= 1ull << (i % 64);
        else
            w[i / 64] &= ~(1ull << (i % 64));
    }
    void fill(bool v) {
        for (auto& x : w) x = v ? ~0ull : 0ull;
    }
    // Any bit of [i, i + n) set.
    bool any(uint32_t i, uint32_t n) const {
        for (uint32_t k = i; k < i + n; k++)
            if (get(k)) return true;
        return false;
    }
    void set_range(uint32_t i, uint32_t n, bool v) {
        for (uint32_t k = i; k < i + n; k++) set(k, v);
    }
};

// Where a register was declared: its VF scope (vf_epoch) and source line.
struct RegHome {
    uint32_t epoch;
    const char* file;
    int line;
    explicit RegHome(dslc::Loc loc) : epoch(dslc::vf_epoch()), file(loc.file), line(loc.line) {}
};

inline void check_home(const RegHome& h, const char* kind, const char* api, dslc::Loc loc) {
    if (h.epoch == dslc::vf_epoch()) return;
    dslc::fault(dslc::F_UNSUPPORTED, loc,
                "Reg::%s uses a %s declared at %s:%d %s: registers live only inside the vector function that declares "
                "them (reference-ops.md s4.4)",
                api, kind, h.file, h.line, h.epoch == 0 ? "outside any vector function" : "in another vector function");
}

}  // namespace sim

template <typename T, const RegTrait& regTrait = RegTraitNumOne> struct RegTensor {
    static_assert(regTrait.REG_NUM == 1, "the emulator models RegTensor with RegTraitNumOne only");
    using ActualT = T;
    static constexpr RegTrait trait = regTrait;
    static constexpr int REG_NUM = regTrait.REG_NUM;
    static constexpr uint32_t LANES = sim::VL / sizeof(T);

    RegTensor(dslc::Loc loc = {}) : home(loc) { undef.fill(true); }
    RegTensor(const RegTensor& o, dslc::Loc loc = {}) : home(loc) {
        std::memcpy(bytes, o.bytes, sizeof bytes);
        undef = o.undef;
        from = o.from;
    }
    RegTensor& operator=(const RegTensor& o) {
        std::memcpy(bytes, o.bytes, sizeof bytes);
        undef = o.undef;
        from = o.from;
        return *this;
    }

    // Emulator internals: lane i as T, and whether any of its bytes is undefined.
    T lane(uint32_t i) const {
        T v;
        std::memcpy(&v, bytes + i * sizeof(T), sizeof(T));
        return v;
    }
    bool lane_undef(uint32_t i) const { return undef.any(i * sizeof(T), sizeof(T)); }
    void put(uint32_t i, T v, bool is_undef) {
        std::memcpy(bytes + i * sizeof(T), &v, sizeof(T));
        undef.set_range(i * sizeof(T), sizeof(T), is_undef);
    }

    alignas(8) uint8_t bytes[sim::VL];
    sim::Bits256 undef;
    sim::RegHome home;
    // The LoadAlign whose unwritten UB bytes the undefined lanes come from (file nullptr: none).
    dslc::Loc from{nullptr, 0};
};

struct MaskReg {
    MaskReg(dslc::Loc loc = {}) : home(loc) { undef.fill(true); }
    MaskReg(const MaskReg& o, dslc::Loc loc = {}) : bits(o.bits), undef(o.undef), home(loc) {}
    MaskReg& operator=(const MaskReg& o) {
        bits = o.bits;
        undef = o.undef;
        return *this;
    }
    // Emulator internals: element i of `esize` bytes is active / has an undefined bit.
    bool on(uint32_t i, uint32_t esize) const { return bits.get(i * esize); }
    bool unknown(uint32_t i, uint32_t esize) const { return undef.get(i * esize); }
    void put(uint32_t i, uint32_t esize, bool v, bool is_undef) {
        bits.set_range(i * esize, esize, v);
        undef.set_range(i * esize, esize, is_undef);
    }

    sim::Bits256 bits;
    sim::Bits256 undef;
    sim::RegHome home;
};

namespace sim {
template <typename R> inline void check_reg(const R& r, const char* api, dslc::Loc loc) {
    check_home(r.home, "RegTensor", api, loc);
}
inline void check_reg(const MaskReg& m, const char* api, dslc::Loc loc) { check_home(m.home, "MaskReg", api, loc); }

inline MaskReg first_elements(uint32_t n, uint32_t esize, dslc::Loc loc) {
    MaskReg m(loc);
    m.undef.fill(false);
    for (uint32_t i = 0; i < VL / esize; i++) m.put(i, esize, i < n, false);
    return m;
}
}  // namespace sim

// UpdateMask<T>(count): the first min(count, VL_T) elements of T; count = count < VL_T ? 0 : count - VL_T
// (MaskReg.md, table 2).
template <typename T, const RegTrait& regTrait = RegTraitNumOne>
__simd_callee__ inline MaskReg UpdateMask(uint32_t& scalarValue, dslc::Loc loc = {}) {
    dslc::vf_require("UpdateMask", loc);
    constexpr uint32_t lanes = sim::VL / sizeof(T);
    MaskReg m = sim::first_elements(scalarValue, sizeof(T), loc);
    scalarValue = scalarValue < lanes ? 0 : scalarValue - lanes;
    return m;
}

template <typename T, MaskPattern mode = MaskPattern::ALL, const RegTrait& regTrait = RegTraitNumOne>
__simd_callee__ inline MaskReg CreateMask(dslc::Loc loc = {}) {
    dslc::vf_require("CreateMask", loc);
    constexpr uint32_t lanes = sim::VL / sizeof(T);
    uint32_t n = lanes;
    switch (mode) {
        case MaskPattern::ALL: n = lanes; break;
        case MaskPattern::VL1: n = 1; break;
        case MaskPattern::VL2: n = 2; break;
        case MaskPattern::VL3: n = 3; break;
        case MaskPattern::VL4: n = 4; break;
        case MaskPattern::VL8: n = 8; break;
        case MaskPattern::VL16: n = 16; break;
        case MaskPattern::VL32: n = 32; break;
        case MaskPattern::VL64: n = 64; break;
        case MaskPattern::VL128: n = 128; break;
        case MaskPattern::H: n = lanes / 2; break;
        case MaskPattern::Q: n = lanes / 4; break;
        case MaskPattern::ALLF: n = 0; break;
        case MaskPattern::M3:
        case MaskPattern::M4: {
            MaskReg m = sim::first_elements(0, sizeof(T), loc);
            uint32_t k = mode == MaskPattern::M3 ? 3 : 4;
            for (uint32_t i = 0; i < lanes; i += k) m.put(i, sizeof(T), true, false);
            return m;
        }
    }
    return sim::first_elements(n, sizeof(T), loc);
}

}  // namespace Reg

// The 8.x spelling `AscendC::MicroAPI::...` (kernel_macros.h:129, for __NPU_ARCH__ 3510).
namespace MicroAPI = Reg;

}  // namespace AscendC
