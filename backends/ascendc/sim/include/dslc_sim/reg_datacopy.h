// RegBase UB <-> register moves (asc-devkit include/basic_api/reg_compute/kernel_reg_compute_datacopy_intf.h:34-58;
// docs Reg矢量计算/Reg数据搬入/连续对齐搬入（LoadAlign）.md, Reg数据搬出/连续对齐搬出（StoreAlign）.md):
//   template <typename T = DefaultType, LoadDist dist = LoadDist::DIST_NORM, typename U>
//   void LoadAlign(U& dstReg, __ubuf__ T* srcAddr);
//   template <typename T = DefaultType, PostLiteral postMode, LoadDist dist = LoadDist::DIST_NORM, typename U>
//   void LoadAlign(U& dstReg, __ubuf__ T*& srcAddr, int32_t postUpdateStride);          // srcAddr += stride
//   template <typename T = DefaultType, StoreDist dist = StoreDist::DIST_NORM, typename U>
//   void StoreAlign(__ubuf__ T* dstAddr, U& srcReg, MaskReg& mask);
//   template <typename T = DefaultType, PostLiteral postMode, StoreDist dist = StoreDist::DIST_NORM, typename U>
//   void StoreAlign(__ubuf__ T*& dstAddr, U& srcReg, int32_t postUpdateStride, MaskReg& mask);
// Distributions modelled (the doc's tables 3; alignment in bytes):
//   load  DIST_NORM        VL bytes into the register                                      32
//         DIST_BRC_B16/B32 one b16/b32 element broadcast to every lane                      2 / 4
//         DIST_UNPACK_B8   VL/2 bytes read as u8, each followed by a zero u8 (b8 element i in  32
//                          the low byte of b16 lane i); DIST_UNPACK4_B8: VL/4 bytes, each followed
//                          by three zero bytes (b8 element i in the low byte of b32 lane i)
//         DIST_UNPACK_B16  VL/2 bytes read as u16, each followed by a zero u16 (b16 element
//                          i lands in the low half of b32 lane i)                            32
//   store DIST_NORM(_Bn)   the active elements (mask bit of their first byte) at their place  32
//         DIST_FIRST_ELEMENT_B8/B16/B32  element 0 only (b8/b16/b32), the mask ignored       1 / 2 / 4
//         DIST_PACK4_B32   the low 8 bits of each active b32 lane, packed: lane i -> b8 i    32
//                          (table 3: "min(32, VL/4)"; a prefix mask only, as for PACK_B32)
//         DIST_PACK_B16    the low 8 bits of each active b16 lane, packed: lane i -> b8 i    32
//                          (table 3: "min(32, VL/2)"; asc-devkit's ascend_quant_3510_impl.h stores
//                          a Cast<int8_t, half> register so, under a b16 mask; a prefix mask only)
//         DIST_PACK_B32    the low 16 bits of each active b32 lane, packed: lane i -> b16 i  32
//                          (the doc: "valid elements stored contiguously"; only a prefix mask
//                          is modelled, where packing and placing agree)
// Every load and store is a V instruction in the race detector. A load records all the bytes it
// reads; bytes nothing wrote give undefined lanes. A store writes only active lanes; an undefined
// one leaves its UB bytes undefined (store_def), as a MemBase op's output would be.
#pragma once
#include "reg_vf.h"

namespace AscendC {
namespace Reg {
namespace sim {

inline uint32_t ub_addr_of(const void* p, uint32_t bytes, uint32_t align, const char* api, const char* dist,
                           dslc::Loc loc) {
    const uint8_t* base = dslc::ub_base();
    const uint8_t* a = static_cast<const uint8_t*>(p);
    if (a < base || a + bytes > base + dslc::ub_phys_bytes())
        dslc::fault(dslc::F_MEMORY, loc,
                    "Reg::%s<%s>: address %p is not a UB address (pass (__ubuf__ T*)localTensor.GetPhyAddr())", api,
                    dist, p);
    uint32_t addr = static_cast<uint32_t>(a - base);
    if (addr % align != 0)
        dslc::fault(dslc::F_MEMORY, loc, "Reg::%s<%s>: UB address 0x%x is not %u-byte aligned", api, dist, addr, align);
    int buf = dslc::ub_buf_at(addr);
    if (buf < 0)
        dslc::fault(dslc::F_MEMORY, loc, "Reg::%s<%s>: UB 0x%x is not inside any TBuf/TQue buffer", api, dist, addr);
    dslc::ub_check(buf, addr, bytes, false, api, dist, loc);
    return addr;
}

// Reads `bytes` of UB at `addr` into the register bytes `pos(k)` for source byte k; `undef`
// per read byte when nothing wrote its block.
inline void ub_read(uint32_t id, uint32_t addr, uint32_t bytes, dslc::Loc loc) {
    dslc::trace_operand(id, addr, false);
    dslc::ub_access(id, addr, bytes, false, false);
    dslc::vf_load(id, addr, bytes, loc);
}

// A stored lane that holds undefined data leaves its UB bytes undefined (after the write defined
// them), as MemBase ops do: the fault comes where the data escapes (a UB -> GM copy into an
// output, a scalar read), not at the store (a tile's row padding is computed and stored, never
// copied out). `lane`: the register element of `w` bytes that went to UB [addr, addr + w).
template <typename R> inline void store_def(const R& r, uint32_t lane, uint32_t w, uint32_t id, uint32_t addr) {
    if (r.undef.any(lane * w, w)) dslc::ub_mark_undef(id, addr, w, dslc::kDefined);
}

// The origin of undefined lanes carries from the sources of an op.
// (dst may be one of the sources.)
template <typename D, typename... R> inline void carry(D& dst, const R&... srcs) {
    dslc::Loc from(nullptr, 0);
    ((from.file == nullptr ? (void)(from = srcs.from) : (void)0), ...);
    dst.from = from;
}

template <typename T, LoadDist dist> constexpr const char* load_dist_name() {
    switch (dist) {
        case LoadDist::DIST_NORM: return "DIST_NORM";
        case LoadDist::DIST_BRC_B16: return "DIST_BRC_B16";
        case LoadDist::DIST_BRC_B32: return "DIST_BRC_B32";
        case LoadDist::DIST_UNPACK_B16: return "DIST_UNPACK_B16";
        case LoadDist::DIST_UNPACK_B8: return "DIST_UNPACK_B8";
        case LoadDist::DIST_UNPACK4_B8: return "DIST_UNPACK4_B8";
        default: return "LoadDist";
    }
}

// The distribution as the trace records it (backends/ascendc/sim/trace.py REG_DIST): the
// performance model prices loads and stores per distribution.
template <LoadDist dist> constexpr uint32_t load_dist_code() {
    switch (dist) {
        case LoadDist::DIST_NORM: return 1;
        case LoadDist::DIST_BRC_B16: return 2;
        case LoadDist::DIST_BRC_B32: return 3;
        case LoadDist::DIST_UNPACK_B16: return 4;
        case LoadDist::DIST_UNPACK_B8: return 5;
        case LoadDist::DIST_UNPACK4_B8: return 6;
        default: return 0;
    }
}
template <StoreDist dist> constexpr uint32_t store_dist_code() {
    switch (dist) {
        case StoreDist::DIST_FIRST_ELEMENT_B32: return 17;
        case StoreDist::DIST_PACK_B32: return 18;
        case StoreDist::DIST_FIRST_ELEMENT_B16: return 19;
        case StoreDist::DIST_FIRST_ELEMENT_B8: return 20;
        case StoreDist::DIST_PACK4_B32: return 21;
        case StoreDist::DIST_PACK_B16: return 22;
        default: return 16;  // DIST_NORM(_Bn)
    }
}

template <typename T, LoadDist dist, typename U> inline void load(U& dst, const T* src, dslc::Loc loc) {
    using E = typename U::ActualT;
    static_assert(sizeof(E) == sizeof(T), "LoadAlign: the register and the UB pointer must have one element type");
    static_assert(dist == LoadDist::DIST_NORM || dist == LoadDist::DIST_BRC_B16 || dist == LoadDist::DIST_BRC_B32 ||
                      dist == LoadDist::DIST_UNPACK_B16 || dist == LoadDist::DIST_UNPACK_B8 ||
                      dist == LoadDist::DIST_UNPACK4_B8,
                  "LoadAlign: the emulator models DIST_NORM, DIST_BRC_B16, DIST_BRC_B32, DIST_UNPACK_B16, "
                  "DIST_UNPACK_B8 and DIST_UNPACK4_B8");
    constexpr const char* name = load_dist_name<T, dist>();
    check_reg(dst, "LoadAlign", loc);
    dslc::trace_dtype(dslc::DTypeOf<E>::value);
    uint32_t id = dslc::reg_issue("LoadAlign", loc, load_dist_code<dist>());
    const uint8_t* ub = dslc::ub_base();
    struct SetOrigin {
        U& r;
        dslc::Loc at;
        ~SetOrigin() { r.from = r.undef.any(0, VL) ? at : dslc::Loc(nullptr, 0); }
    } origin{dst, loc};
    if constexpr (dist == LoadDist::DIST_NORM) {
        uint32_t a = ub_addr_of(src, VL, 32, "LoadAlign", name, loc);
        ub_read(id, a, VL, loc);
        std::memcpy(dst.bytes, ub + a, VL);
        for (uint32_t k = 0; k < VL; k++) dst.undef.set_range(k, 1, !dslc::ub_written(a + k));
    } else if constexpr (dist == LoadDist::DIST_BRC_B16 || dist == LoadDist::DIST_BRC_B32) {
        constexpr uint32_t w = dist == LoadDist::DIST_BRC_B16 ? 2 : 4;
        static_assert(sizeof(T) == w, "LoadAlign<DIST_BRC_Bn>: the element must be n bits wide");
        uint32_t a = ub_addr_of(src, w, w, "LoadAlign", name, loc);
        ub_read(id, a, w, loc);
        bool u = dslc::ub_undef_at(a, w) != dslc::kDefined;
        for (uint32_t k = 0; k < VL; k += w) {
            std::memcpy(dst.bytes + k, ub + a, w);
            dst.undef.set_range(k, w, u);
        }
    } else {
        // element i of w bytes into lane i of w * f bytes, zero above it: VL / f bytes read
        constexpr uint32_t w = dist == LoadDist::DIST_UNPACK_B16 ? 2 : 1;
        constexpr uint32_t f = dist == LoadDist::DIST_UNPACK4_B8 ? 4 : 2;
        static_assert(sizeof(T) == w, "LoadAlign<DIST_UNPACK_B16/B8, DIST_UNPACK4_B8>: the element must be 16/8 "
                                      "bits wide");
        uint32_t a = ub_addr_of(src, VL / f, 32, "LoadAlign", name, loc);
        ub_read(id, a, VL / f, loc);
        for (uint32_t i = 0; i < VL / (w * f); i++) {
            bool u = dslc::ub_undef_at(a + w * i, w) != dslc::kDefined;
            std::memcpy(dst.bytes + w * f * i, ub + a + w * i, w);
            std::memset(dst.bytes + w * f * i + w, 0, w * (f - 1));
            dst.undef.set_range(w * f * i, w, u);
            dst.undef.set_range(w * f * i + w, w * (f - 1), false);
        }
    }
}

template <typename T, StoreDist dist, typename U>
inline void store(T* dstp, U& src, MaskReg& mask, dslc::Loc loc) {
    using E = typename U::ActualT;
    static_assert(sizeof(E) == sizeof(T), "StoreAlign: the register and the UB pointer must have one element type");
    constexpr bool norm = dist == StoreDist::DIST_NORM || (dist == StoreDist::DIST_NORM_B8 && sizeof(T) == 1) ||
                          (dist == StoreDist::DIST_NORM_B16 && sizeof(T) == 2) ||
                          (dist == StoreDist::DIST_NORM_B32 && sizeof(T) == 4);
    constexpr bool first = dist == StoreDist::DIST_FIRST_ELEMENT_B8 || dist == StoreDist::DIST_FIRST_ELEMENT_B16 ||
                           dist == StoreDist::DIST_FIRST_ELEMENT_B32;
    static_assert(norm || first || dist == StoreDist::DIST_PACK_B32 || dist == StoreDist::DIST_PACK4_B32 ||
                      dist == StoreDist::DIST_PACK_B16,
                  "StoreAlign: the emulator models DIST_NORM(_Bn), DIST_FIRST_ELEMENT_B8/B16/B32, DIST_PACK_B16, "
                  "DIST_PACK_B32 and DIST_PACK4_B32");
    check_reg(src, "StoreAlign", loc);
    check_reg(mask, "StoreAlign", loc);
    dslc::trace_dtype(dslc::DTypeOf<E>::value);
    uint32_t id = dslc::reg_issue("StoreAlign", loc, store_dist_code<dist>());
    uint8_t* ub = dslc::ub_base();
    auto write = [&](uint32_t a, const uint8_t* from, uint32_t n) {
        dslc::ub_access(id, a, n, true);
        dslc::vf_store(id, a, n);
        std::memcpy(ub + a, from, n);
    };
    if constexpr (norm) {
        constexpr uint32_t lanes = VL / sizeof(T);
        uint32_t a = ub_addr_of(dstp, 0, 32, "StoreAlign", "DIST_NORM", loc);
        uint32_t last = 0;
        for (uint32_t i = 0; i < lanes; i++)
            if (mask.on(i, sizeof(T)) || mask.unknown(i, sizeof(T))) last = i + 1;
        ub_addr_of(dstp, last * sizeof(T), 32, "StoreAlign", "DIST_NORM", loc);
        dslc::trace_operand(id, a, true);
        for (uint32_t i = 0; i < lanes; i++) {
            if (mask.unknown(i, sizeof(T)))
                dslc::fault(dslc::F_MEMORY, loc, "Reg::StoreAlign: the mask of lane %u is undefined", i);
            if (!mask.on(i, sizeof(T))) continue;
            write(a + i * static_cast<uint32_t>(sizeof(T)), src.bytes + i * sizeof(T), sizeof(T));
            store_def(src, i, sizeof(T), id, a + i * static_cast<uint32_t>(sizeof(T)));
        }
    } else if constexpr (first) {
        constexpr uint32_t w = dist == StoreDist::DIST_FIRST_ELEMENT_B8 ? 1 : (dist == StoreDist::DIST_FIRST_ELEMENT_B16 ? 2 : 4);
        static_assert(sizeof(T) == w, "StoreAlign<DIST_FIRST_ELEMENT_Bn>: the element must be n bits wide");
        const char* name = w == 1 ? "DIST_FIRST_ELEMENT_B8" : (w == 2 ? "DIST_FIRST_ELEMENT_B16" : "DIST_FIRST_ELEMENT_B32");
        uint32_t a = ub_addr_of(dstp, w, w, "StoreAlign", name, loc);
        dslc::trace_operand(id, a, true);
        write(a, src.bytes, w);
        store_def(src, 0, w, id, a);
    } else if constexpr (dist == StoreDist::DIST_PACK4_B32 || dist == StoreDist::DIST_PACK_B16) {
        // the low byte of each active lane of w bytes: b32 lanes (PACK4_B32) or b16 lanes (PACK_B16)
        constexpr uint32_t w = dist == StoreDist::DIST_PACK4_B32 ? 4 : 2;
        const char* name = w == 4 ? "DIST_PACK4_B32" : "DIST_PACK_B16";
        static_assert(sizeof(T) == 1, "StoreAlign<DIST_PACK4_B32/DIST_PACK_B16>: the element must be 8 bits wide "
                                      "(the low bytes of b32/b16 lanes, e.g. after a 16 -> 8 bit Cast)");
        uint32_t n = 0;
        while (n < VL / w && mask.on(w * n, 1) && !mask.unknown(w * n, 1)) n++;
        for (uint32_t i = n; i < VL / w; i++)
            if (mask.on(w * i, 1) || mask.unknown(w * i, 1))
                dslc::fault(dslc::F_UNSUPPORTED, loc,
                            "Reg::StoreAlign<%s>: the mask is not a prefix of b%u lanes (lane %u active after "
                            "inactive lane %u); only prefix masks are modelled",
                            name, 8 * w, i, n);
        uint32_t a = ub_addr_of(dstp, n, 32, "StoreAlign", name, loc);
        dslc::trace_operand(id, a, true);
        for (uint32_t i = 0; i < n; i++) {
            write(a + i, src.bytes + w * i, 1);
            store_def(src, w * i, 1, id, a + i);
        }
    } else {
        static_assert(sizeof(T) == 2, "StoreAlign<DIST_PACK_B32>: the element must be 16 bits wide (the low halves "
                                      "of b32 lanes, e.g. after a 32 -> 16 bit Cast)");
        uint32_t n = 0;
        while (n < VL / 4 && mask.on(n, 4) && !mask.unknown(n, 4)) n++;
        for (uint32_t i = n; i < VL / 4; i++)
            if (mask.on(i, 4) || mask.unknown(i, 4))
                dslc::fault(dslc::F_UNSUPPORTED, loc,
                            "Reg::StoreAlign<DIST_PACK_B32>: the mask is not a prefix of lanes (lane %u active after "
                            "inactive lane %u); only prefix masks are modelled",
                            i, n);
        uint32_t a = ub_addr_of(dstp, 2 * n, 32, "StoreAlign", "DIST_PACK_B32", loc);
        dslc::trace_operand(id, a, true);
        for (uint32_t i = 0; i < n; i++) {
            write(a + 2 * i, src.bytes + 4 * i, 2);
            store_def(src, 2 * i, 2, id, a + 2 * i);
        }
    }
}

}  // namespace sim

template <typename T = DefaultType, LoadDist dist = LoadDist::DIST_NORM, typename U>
__simd_callee__ inline void LoadAlign(U& dstReg, __ubuf__ T* srcAddr, dslc::Loc loc = {}) {
    sim::load<T, dist>(dstReg, srcAddr, loc);
}

template <typename T = DefaultType, PostLiteral postMode, LoadDist dist = LoadDist::DIST_NORM, typename U>
__simd_callee__ inline void LoadAlign(U& dstReg, __ubuf__ T*& srcAddr, int32_t postUpdateStride, dslc::Loc loc = {}) {
    static_assert(postMode == PostLiteral::POST_MODE_UPDATE, "LoadAlign: POST_MODE_NORMAL is not supported");
    sim::load<T, dist>(dstReg, srcAddr, loc);
    srcAddr += postUpdateStride;
}

template <typename T = DefaultType, StoreDist dist = StoreDist::DIST_NORM, typename U>
__simd_callee__ inline void StoreAlign(__ubuf__ T* dstAddr, U& srcReg, MaskReg& mask, dslc::Loc loc = {}) {
    sim::store<T, dist>(dstAddr, srcReg, mask, loc);
}

template <typename T = DefaultType, PostLiteral postMode, StoreDist dist = StoreDist::DIST_NORM, typename U>
__simd_callee__ inline void StoreAlign(__ubuf__ T*& dstAddr, U& srcReg, int32_t postUpdateStride, MaskReg& mask,
                                       dslc::Loc loc = {}) {
    static_assert(postMode == PostLiteral::POST_MODE_UPDATE, "StoreAlign: POST_MODE_NORMAL is not supported");
    sim::store<T, dist>(dstAddr, srcReg, mask, loc);
    dstAddr += postUpdateStride;
}

}  // namespace Reg
}  // namespace AscendC
