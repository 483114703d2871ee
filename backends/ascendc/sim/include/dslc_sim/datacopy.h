// GM <-> UB data movement: DataCopy (32 B units) and DataCopyPad (byte lengths)
// (ascendc-api.md s4; asc-devkit docs/zh/api/SIMD-API/基础API/Memory矢量计算/数据搬运/).
#pragma once
#include <algorithm>
#include <cstring>

#include "sync.h"

namespace AscendC {

struct DataCopyParams {
    uint16_t blockCount = 1;
    uint16_t blockLen = 0;   // 32 B DataBlocks (bytes for the legacy DataCopyPad overload)
    uint16_t srcStride = 0;  // gap in 32 B blocks
    uint16_t dstStride = 0;
    __aicore__ DataCopyParams() = default;
    __aicore__ DataCopyParams(const uint16_t count, const uint16_t len, const uint16_t srcStrideIn,
                              const uint16_t dstStrideIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn) {}
};

struct DataCopyExtParams {
    uint16_t blockCount = 1;
    uint32_t blockLen = 0;   // bytes
    uint32_t srcStride = 0;  // GM side: bytes; UB side: 32 B blocks
    uint32_t dstStride = 0;
    uint32_t rsv = 0;
    __aicore__ DataCopyExtParams() = default;
    __aicore__ DataCopyExtParams(const uint16_t count, const uint32_t len, const uint32_t srcStrideIn,
                                 const uint32_t dstStrideIn, const uint32_t rsvIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn), rsv(rsvIn) {}
};

template <typename T> struct DataCopyPadExtParams {
    bool isPad = false;
    uint8_t leftPadding = 0;  // elements
    uint8_t rightPadding = 0;
    T paddingValue = T(0);
    __aicore__ DataCopyPadExtParams() = default;
    __aicore__ DataCopyPadExtParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue,
                                    T padValue)
        : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue) {}
};

struct DataCopyPadParams {
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    uint64_t paddingValue = 0;
    __aicore__ DataCopyPadParams() = default;
    __aicore__ DataCopyPadParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue,
                                 const uint64_t padValue)
        : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue) {}
};

namespace detail {
inline uint32_t round32(uint64_t b) { return static_cast<uint32_t>((b + 31u) / 32u * 32u); }

template <typename T> inline void check_contiguous_bytes(const char* api, uint32_t count, dslc::Loc loc) {
    uint64_t bytes = uint64_t(count) * sizeof(T);
    if (bytes % 32 != 0)
        dslc::fault(dslc::F_MEMORY, loc,
                    "%s of %u x %s = %llu B is not a multiple of 32 B: the hardware silently rounds it down to "
                    "%llu B (use DataCopyPad with DataCopyExtParams for unaligned lengths)",
                    api, count, dslc::dtype_name(dslc::DTypeOf<T>::value), (unsigned long long)bytes,
                    (unsigned long long)(bytes / 32 * 32));
}
inline void check_block_count(const char* api, uint32_t n, dslc::Loc loc) {
    if (n > 4095) dslc::fault(dslc::F_MEMORY, loc, "%s: blockCount %u exceeds 4095", api, n);
}
}  // namespace detail

// ---- DataCopy: GM -> UB (MTE2) ----
template <typename T>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count,
                                dslc::Loc loc = {}) {
    const char* api = "DataCopy(GM->UB)";
    detail::check_contiguous_bytes<T>(api, count, loc);
    uint32_t bytes = count * sizeof(T);
    dslc::ub_check(dst.buf(), dst.addr(), bytes, true, api, "destination", loc);
    uint32_t id = dslc::issue(dslc::P_MTE2, api, loc);
    dslc::gm_access(id, src.GetPhyAddr(), bytes, false, api, loc);
    dslc::ub_access(id, dst.addr(), bytes, true);
    dslc::ub_from_gm(id, dst.addr(), src.GetPhyAddr(), bytes);
    std::memcpy(dst.ptr(), src.GetPhyAddr(), bytes);
    dslc::count_dma(dslc::P_MTE2, bytes, 1);
}

template <typename T>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p,
                                dslc::Loc loc = {}) {
    const char* api = "DataCopy(GM->UB, DataCopyParams)";
    detail::check_block_count(api, p.blockCount, loc);
    uint64_t span = p.blockCount ? (uint64_t(p.blockCount) * (p.blockLen + p.dstStride) - p.dstStride) * 32 : 0;
    dslc::ub_check(dst.buf(), dst.addr(), span, true, api, "destination", loc);
    uint32_t id = dslc::issue(dslc::P_MTE2, api, loc);
    const uint8_t* g = reinterpret_cast<const uint8_t*>(src.GetPhyAddr());
    uint32_t len = p.blockLen * 32u;
    for (uint32_t i = 0; i < p.blockCount; i++) {
        const uint8_t* gs = g + uint64_t(i) * (p.blockLen + p.srcStride) * 32u;
        uint32_t ua = dst.addr() + i * (p.blockLen + p.dstStride) * 32u;
        dslc::gm_access(id, gs, len, false, api, loc);
        dslc::ub_access(id, ua, len, true);
        dslc::ub_from_gm(id, ua, gs, len);
        std::memcpy(dslc::ub_base() + ua, gs, len);
    }
    dslc::count_dma(dslc::P_MTE2, uint64_t(len) * p.blockCount, p.blockCount);
}

// ---- DataCopy: UB -> GM (MTE3) ----
template <typename T>
__aicore__ inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count,
                                dslc::Loc loc = {}) {
    const char* api = "DataCopy(UB->GM)";
    detail::check_contiguous_bytes<T>(api, count, loc);
    uint32_t bytes = count * sizeof(T);
    dslc::ub_check(src.buf(), src.addr(), bytes, true, api, "source", loc);
    uint32_t id = dslc::issue(dslc::P_MTE3, api, loc);
    dslc::ub_access(id, src.addr(), bytes, false);
    dslc::gm_access(id, dst.GetPhyAddr(), bytes, true, api, loc);
    dslc::gm_from_ub(id, dst.GetPhyAddr(), src.addr(), bytes, api, loc);
    std::memcpy(dst.GetPhyAddr(0), src.ptr(), bytes);
    dslc::count_dma(dslc::P_MTE3, bytes, 1);
}

template <typename T>
__aicore__ inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p,
                                dslc::Loc loc = {}) {
    const char* api = "DataCopy(UB->GM, DataCopyParams)";
    detail::check_block_count(api, p.blockCount, loc);
    uint64_t span = p.blockCount ? (uint64_t(p.blockCount) * (p.blockLen + p.srcStride) - p.srcStride) * 32 : 0;
    dslc::ub_check(src.buf(), src.addr(), span, true, api, "source", loc);
    uint32_t id = dslc::issue(dslc::P_MTE3, api, loc);
    uint8_t* g = reinterpret_cast<uint8_t*>(dst.GetPhyAddr(0));
    uint32_t len = p.blockLen * 32u;
    for (uint32_t i = 0; i < p.blockCount; i++) {
        uint8_t* gd = g + uint64_t(i) * (p.blockLen + p.dstStride) * 32u;
        uint32_t ua = src.addr() + i * (p.blockLen + p.srcStride) * 32u;
        dslc::ub_access(id, ua, len, false);
        dslc::gm_access(id, gd, len, true, api, loc);
        dslc::gm_from_ub(id, gd, ua, len, api, loc);
        std::memcpy(gd, dslc::ub_base() + ua, len);
    }
    dslc::count_dma(dslc::P_MTE3, uint64_t(len) * p.blockCount, p.blockCount);
}

// ---- DataCopy: UB -> UB (runs on the vector pipe) ----
template <typename T>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p,
                                dslc::Loc loc = {}) {
    const char* api = "DataCopy(UB->UB)";
    uint64_t dspan = p.blockCount ? (uint64_t(p.blockCount) * (p.blockLen + p.dstStride) - p.dstStride) * 32 : 0;
    uint64_t sspan = p.blockCount ? (uint64_t(p.blockCount) * (p.blockLen + p.srcStride) - p.srcStride) * 32 : 0;
    dslc::ub_check(dst.buf(), dst.addr(), dspan, true, api, "destination", loc);
    dslc::ub_check(src.buf(), src.addr(), sspan, true, api, "source", loc);
    uint32_t id = dslc::issue(dslc::P_V, api, loc);
    uint32_t len = p.blockLen * 32u;
    for (uint32_t i = 0; i < p.blockCount; i++) {
        uint32_t sa = src.addr() + i * (p.blockLen + p.srcStride) * 32u;
        uint32_t da = dst.addr() + i * (p.blockLen + p.dstStride) * 32u;
        dslc::ub_access(id, sa, len, false);
        dslc::ub_access(id, da, len, true, false);
        dslc::ub_copy_def(da, sa, len);
        std::memmove(dslc::ub_base() + da, dslc::ub_base() + sa, len);
    }
}
template <typename T>
__aicore__ inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count,
                                dslc::Loc loc = {}) {
    detail::check_contiguous_bytes<T>("DataCopy(UB->UB)", count, loc);
    DataCopy(dst, src, DataCopyParams(1, static_cast<uint16_t>(count * sizeof(T) / 32), 0, 0), loc);
}

namespace detail {
// DataCopyPad's documented paths on Atlas A2 are GM <-> VECIN/VECOUT; GM <-> VECCALC is listed for
// Ascend 950 only (asc-devkit docs/zh/api/SIMD-API/基础API/Memory矢量计算/数据搬运/
// DataCopyPad（GMToUB非对齐数据搬运）.md, "GM -> VECCALC（仅Ascend 950PR/Ascend 950DT支持）"). The 2201
// implementation does not see the logical position: impl/basic_api/kernel_operator_data_copy_intf_impl.h
// dispatches on GetPhyType(dst.GetPosition()), which is Hardware::UB for VECIN, VECOUT and VECCALC alike
// (impl/basic_api/kernel_event.h), and dav_c220's DataCopyPadGm2UBImpl issues copy_gm_to_ubuf_align_b*
// with the UB address only. So the hardware copies into a VECCALC buffer exactly as into a VECIN one,
// and shipped 910B kernels rely on it (ops-nn RmsNorm f16 gamma, AddLayerNorm f16 DataCopyEx): the
// documented-path rule is a fault in strict mode only (strict: the documented contract, as for the
// explicit V->V and scalar ordering); by default the copy runs.
inline void check_pad_position(int buf, const char* api, dslc::Loc loc) {
    if (dslc::npu_arch() != 2201 || !dslc::strict_mode()) return;
    const char* kind = dslc::ub_buf_kind(buf);
    if (std::strcmp(kind, "TBuf<VECCALC>") == 0)
        dslc::fault(dslc::F_UNSUPPORTED, loc,
                    "%s on a TBuf<TPosition::VECCALC>: Atlas A2's documented DataCopyPad paths are GM <-> "
                    "VECIN/VECOUT (strict mode; the hardware copies to any UB position); declare the buffer "
                    "TBuf<TPosition::VECIN> (or VECOUT)", api);
}
}  // namespace detail

// ---- DataCopyPad: GM -> UB (MTE2) ----
template <typename T>
__aicore__ inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& p,
                                   const DataCopyPadExtParams<T>& pad, dslc::Loc loc = {}) {
    const char* api = "DataCopyPad(GM->UB)";
    detail::check_block_count(api, p.blockCount, loc);
    detail::check_pad_position(dst.buf(), api, loc);
    if (p.blockLen % sizeof(T) != 0)
        dslc::fault(dslc::F_MEMORY, loc, "%s: blockLen %u B is not a multiple of sizeof(%s) (blockLen is in bytes)",
                    api, p.blockLen, dslc::dtype_name(dslc::DTypeOf<T>::value));
    if (p.blockLen > 2097151) dslc::fault(dslc::F_MEMORY, loc, "%s: blockLen %u exceeds 2097151 B", api, p.blockLen);
    uint32_t lb = pad.leftPadding * sizeof(T), rb = pad.rightPadding * sizeof(T);
    if (lb > 32 || rb > 32)
        dslc::fault(dslc::F_MEMORY, loc, "%s: left/right padding of %u/%u elements exceeds 32 B", api,
                    unsigned(pad.leftPadding), unsigned(pad.rightPadding));
    uint32_t row = detail::round32(uint64_t(lb) + p.blockLen + rb);
    uint64_t span = p.blockCount ? uint64_t(p.blockCount) * (row + p.dstStride * 32ull) - p.dstStride * 32ull : 0;
    if (p.blockLen == 0) span = 0;
    dslc::ub_check(dst.buf(), dst.addr(), span, true, api, "destination", loc);
    uint32_t id = dslc::issue(dslc::P_MTE2, api, loc);
    if (p.blockCount == 0 || p.blockLen == 0) return;  // documented NOP
    const uint8_t* g = reinterpret_cast<const uint8_t*>(src.GetPhyAddr());
    for (uint32_t i = 0; i < p.blockCount; i++) {
        const uint8_t* gs = g + uint64_t(i) * (uint64_t(p.blockLen) + p.srcStride);
        uint32_t ua = dst.addr() + static_cast<uint32_t>(i * (row + p.dstStride * 32ull));
        dslc::gm_access(id, gs, p.blockLen, false, api, loc);
        dslc::ub_access(id, ua, row, true);
        dslc::ub_from_gm(id, ua + lb, gs, p.blockLen);
        T* u = reinterpret_cast<T*>(dslc::ub_base() + ua);
        uint32_t n = row / sizeof(T), nl = pad.leftPadding, nd = p.blockLen / sizeof(T), nr = pad.rightPadding;
        std::memcpy(u + nl, gs, p.blockLen);
        // Pad bytes: paddingValue with isPad; otherwise "dummy" data, which the docs define as the
        // row's first element when there is no explicit padding, and leave undefined otherwise.
        bool first = !pad.isPad && nl == 0 && nr == 0;
        T fill = pad.isPad ? pad.paddingValue : u[nl];
        for (uint32_t k = 0; k < nl; k++) u[k] = fill;
        for (uint32_t k = nl + nd; k < n; k++) {
            if (pad.isPad || first || k < nl + nd + nr)
                u[k] = fill;
            else
                dslc::ub_mark_undef(id, ua + k * sizeof(T), sizeof(T), dslc::kDefined);
        }
    }
    dslc::count_dma(dslc::P_MTE2, uint64_t(p.blockLen) * p.blockCount, p.blockCount);
}

// Legacy overload: DataCopyParams with blockLen in bytes + DataCopyPadParams.
template <typename T>
__aicore__ inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p,
                                   const DataCopyPadParams& pad, dslc::Loc loc = {}) {
    T v;
    std::memcpy(&v, &pad.paddingValue, sizeof(T) < 8 ? sizeof(T) : 8);
    DataCopyPad(dst, src, DataCopyExtParams(p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0),
                DataCopyPadExtParams<T>(pad.isPad, pad.leftPadding, pad.rightPadding, v), loc);
}

// ---- DataCopyPad: UB -> GM (MTE3), writes exactly blockLen bytes per row ----
template <typename T>
__aicore__ inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p,
                                   dslc::Loc loc = {}) {
    const char* api = "DataCopyPad(UB->GM)";
    detail::check_block_count(api, p.blockCount, loc);
    detail::check_pad_position(src.buf(), api, loc);
    if (p.blockLen % sizeof(T) != 0)
        dslc::fault(dslc::F_MEMORY, loc, "%s: blockLen %u B is not a multiple of sizeof(%s) (blockLen is in bytes)",
                    api, p.blockLen, dslc::dtype_name(dslc::DTypeOf<T>::value));
    uint32_t row = detail::round32(p.blockLen);
    uint64_t span = p.blockCount && p.blockLen
                        ? uint64_t(p.blockCount) * (row + p.srcStride * 32ull) - p.srcStride * 32ull - (row - p.blockLen)
                        : 0;
    dslc::ub_check(src.buf(), src.addr(), span, true, api, "source", loc);
    uint32_t id = dslc::issue(dslc::P_MTE3, api, loc);
    if (p.blockCount == 0 || p.blockLen == 0) return;
    uint8_t* g = reinterpret_cast<uint8_t*>(dst.GetPhyAddr(0));
    for (uint32_t i = 0; i < p.blockCount; i++) {
        uint8_t* gd = g + uint64_t(i) * (uint64_t(p.blockLen) + p.dstStride);
        uint32_t ua = src.addr() + static_cast<uint32_t>(i * (row + p.srcStride * 32ull));
        dslc::ub_access(id, ua, p.blockLen, false);
        dslc::gm_access(id, gd, p.blockLen, true, api, loc);
        dslc::gm_from_ub(id, gd, ua, p.blockLen, api, loc);
        std::memcpy(gd, dslc::ub_base() + ua, p.blockLen);
    }
    dslc::count_dma(dslc::P_MTE3, uint64_t(p.blockLen) * p.blockCount, p.blockCount);
}
template <typename T>
__aicore__ inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p,
                                   dslc::Loc loc = {}) {
    DataCopyPad(dst, src, DataCopyExtParams(p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0), loc);
}

}  // namespace AscendC
