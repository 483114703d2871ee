// GlobalTensor (GM) and LocalTensor (UB) views (ascendc-api.md s3).
#pragma once
#include <cstring>

#include "base.h"

namespace AscendC {

template <typename T> class GlobalTensor {
public:
    using PrimType = T;
    __aicore__ inline GlobalTensor() = default;
    __aicore__ inline void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize) {
        ptr_ = buffer;
        size_ = bufferSize;
    }
    __aicore__ inline void SetGlobalBuffer(__gm__ T* buffer) {
        ptr_ = buffer;
        size_ = 0;
    }
    __aicore__ inline GlobalTensor operator[](const uint64_t offset) const {
        GlobalTensor g;
        g.ptr_ = ptr_ + offset;
        g.size_ = size_ > offset ? size_ - offset : 0;
        return g;
    }
    // Scalar (S pipe) read of GM.
    __aicore__ inline T GetValue(const uint64_t offset, dslc::Loc loc = {}) const {
        uint32_t id = dslc::issue(dslc::P_S, "GlobalTensor::GetValue", loc);
        dslc::gm_access(id, ptr_ + offset, sizeof(T), false, "GlobalTensor::GetValue", loc);
        dslc::gm_use_scalar(id, ptr_ + offset, sizeof(T), "GlobalTensor::GetValue", loc);
        T v;
        std::memcpy(&v, ptr_ + offset, sizeof(T));
        return v;
    }
    __aicore__ inline void SetValue(const uint64_t offset, T value, dslc::Loc loc = {}) const {
        uint32_t id = dslc::issue(dslc::P_S, "GlobalTensor::SetValue", loc);
        dslc::gm_access(id, ptr_ + offset, sizeof(T), true, "GlobalTensor::SetValue", loc);
        dslc::gm_define(ptr_ + offset, sizeof(T));
        std::memcpy(ptr_ + offset, &value, sizeof(T));
    }
    template <typename CAST_T> __aicore__ inline GlobalTensor<CAST_T> ReinterpretCast() const {
        GlobalTensor<CAST_T> g;
        g.SetGlobalBuffer(reinterpret_cast<CAST_T*>(ptr_), size_ * sizeof(T) / sizeof(CAST_T));
        return g;
    }
    __aicore__ inline const __gm__ T* GetPhyAddr() const { return ptr_; }
    __aicore__ inline __gm__ T* GetPhyAddr(const uint64_t offset) const { return ptr_ + offset; }
    __aicore__ inline uint64_t GetSize() const { return size_; }
    __aicore__ inline void SetShapeInfo(...) {}
    template <CacheRwMode rwMode = CacheRwMode::RW>
    __aicore__ inline void SetL2CacheHint(CacheMode mode, dslc::Loc loc = {}) {
        dslc::count_l2_hint(ptr_, static_cast<int>(mode), loc);
    }

private:
    T* ptr_ = nullptr;
    uint64_t size_ = 0;
};

template <typename T> class LocalTensor {
public:
    using PrimType = T;
    __aicore__ inline LocalTensor() = default;
    // Internal: built by TBuf/TQue.
    static LocalTensor Make(int buf, uint32_t addr, uint32_t size) {
        LocalTensor t;
        t.buf_ = buf;
        t.addr_ = addr;
        t.size_ = size;
        return t;
    }
    __aicore__ inline LocalTensor operator[](const uint32_t offset) const {
        return Make(buf_, addr_ + offset * static_cast<uint32_t>(sizeof(T)), size_ > offset ? size_ - offset : 0);
    }
    __aicore__ inline T GetValue(const uint32_t index, dslc::Loc loc = {}) const {
        uint32_t a = addr_ + index * static_cast<uint32_t>(sizeof(T));
        dslc::ub_check(buf_, a, sizeof(T), false, "LocalTensor::GetValue", "element", loc);
        uint32_t id = dslc::issue(dslc::P_S, "LocalTensor::GetValue", loc);
        dslc::ub_access(id, a, sizeof(T), false);
        dslc::ub_use_scalar(id, a, sizeof(T), "LocalTensor::GetValue", loc);
        T v;
        std::memcpy(&v, dslc::ub_base() + a, sizeof(T));
        return v;
    }
    template <typename T1> __aicore__ inline void SetValue(const uint32_t index, const T1 value, dslc::Loc loc = {}) const {
        uint32_t a = addr_ + index * static_cast<uint32_t>(sizeof(T));
        dslc::ub_check(buf_, a, sizeof(T), false, "LocalTensor::SetValue", "element", loc);
        uint32_t id = dslc::issue(dslc::P_S, "LocalTensor::SetValue", loc);
        dslc::ub_access(id, a, sizeof(T), true);
        T v = static_cast<T>(value);
        std::memcpy(dslc::ub_base() + a, &v, sizeof(T));
    }
    template <typename CAST_T> __aicore__ inline LocalTensor<CAST_T> ReinterpretCast() const {
        return LocalTensor<CAST_T>::Make(buf_, addr_, static_cast<uint32_t>(size_ * sizeof(T) / sizeof(CAST_T)));
    }
    __aicore__ inline uint32_t GetSize() const { return size_; }
    __aicore__ inline void SetSize(const uint32_t size) { size_ = size; }
    __aicore__ inline uint32_t GetLength() const { return size_ * static_cast<uint32_t>(sizeof(T)); }
    // The real API returns the UB address; here it is the host address of the emulated UB byte,
    // so `(__ubuf__ T*)t.GetPhyAddr()` keeps working.
    __aicore__ inline uint64_t GetPhyAddr() const { return reinterpret_cast<uint64_t>(dslc::ub_base() + addr_); }
    __aicore__ inline uint64_t GetPhyAddr(const uint32_t offset) const {
        return reinterpret_cast<uint64_t>(dslc::ub_base() + addr_ + offset * sizeof(T));
    }
    __aicore__ inline TPosition GetPosition() const { return TPosition::VECCALC; }

    // Emulator internals.
    int buf() const { return buf_; }
    uint32_t addr() const { return addr_; }
    T* ptr() const { return reinterpret_cast<T*>(dslc::ub_base() + addr_); }

private:
    int buf_ = -1;
    uint32_t addr_ = 0;
    uint32_t size_ = 0;
};

}  // namespace AscendC
