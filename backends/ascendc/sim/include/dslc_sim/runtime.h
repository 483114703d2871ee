// The emulator runtime as seen from the kernel headers: pipes, instructions, vector clocks,
// UB/GM shadow memory and faults. Implemented in src/runtime.cpp so kernel TUs stay light.
#pragma once
#include <cstddef>
#include <cstdint>

#include "fp16.h"

namespace dslc {

// Every API takes a trailing `Loc loc = {}`: the default arguments are evaluated at the call
// site, so faults name the kernel source line that issued the instruction.
struct Loc {
    const char* file;
    int line;
    Loc(const char* f = __builtin_FILE(), int l = __builtin_LINE()) : file(f), line(l) {}
};

// S, V, MTE2 and MTE3 on an AIV; S, MTE1, MTE2, M and FIX on an AIC (cube.h).
enum Pipe : uint8_t { P_S = 0, P_V = 1, P_MTE2 = 2, P_MTE3 = 3, P_MTE1 = 4, P_M = 5, P_FIX = 6, NPIPE = 7 };
// A block of a mixed kernel runs one AIC and up to two AIVs (crosscore.h); a clock has one
// component per pipe of each of them, so happens-before spans the cores of a block.
constexpr int kMaxCores = 3;
constexpr int NCLK = NPIPE * kMaxCores;

enum DType : uint8_t { DT_F32, DT_F16, DT_BF16, DT_I8, DT_U8, DT_I16, DT_U16, DT_I32, DT_U32, DT_I64, DT_U64, DT_BOOL, DT_F64 };

template <typename T> struct DTypeOf;
#define DSLC_DTYPE(T, code) \
    template <> struct DTypeOf<T> { static constexpr DType value = code; }
DSLC_DTYPE(float, DT_F32);
DSLC_DTYPE(half, DT_F16);
DSLC_DTYPE(bfloat16_t, DT_BF16);
DSLC_DTYPE(int8_t, DT_I8);
DSLC_DTYPE(uint8_t, DT_U8);
DSLC_DTYPE(int16_t, DT_I16);
DSLC_DTYPE(uint16_t, DT_U16);
DSLC_DTYPE(int32_t, DT_I32);
DSLC_DTYPE(uint32_t, DT_U32);
DSLC_DTYPE(int64_t, DT_I64);
DSLC_DTYPE(uint64_t, DT_U64);
DSLC_DTYPE(bool, DT_BOOL);
DSLC_DTYPE(double, DT_F64);
#undef DSLC_DTYPE
const char* dtype_name(DType d);

// Fault kinds map 1:1 to dsl.errors classes on the Python side.
enum FaultKind : uint8_t { F_RACE, F_DEADLOCK, F_SYNC, F_MEMORY, F_UNSUPPORTED, F_TILING, F_SIM, F_INFER };
[[noreturn]] void fault(FaultKind kind, Loc loc, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

struct Clock {
    uint32_t c[NCLK];
};

// ---- the cores of a block (crosscore.h, src/crosscore.cpp) ----
enum CoreKind : uint8_t { CK_AIV = 0, CK_AIC = 1 };
int core_current();             // index of the running core in its block (0 in an AIV-only kernel)
int core_count();               // cores of the block: 1, or 1 + the AIVs of a __mix__ kernel
CoreKind core_kind();           // of the running core
int core_sub();                 // the running AIV's sub-block index
const char* core_label(int core);  // "AIC", "AIV0", "AIV1" ("AIV" in an AIV-only kernel)
int pipe_of(int pipe_t_value);  // the Pipe of a pipe_t, -1 for PIPE_ALL/PIPE_V2
bool core_has_pipe(int pipe);   // whether the running core has that Pipe
// The kernel's __mix__(aic, aiv) (build.py passes it as DSLC_MIX_AIC/AIV); 0, 0: an AIV-only kernel.
int mix_register(int aic, int aiv);
bool mix_kernel();
// GetBlockIdx, GetBlockNum, GetTaskRatio, GetSubBlockIdx, GetSubBlockNum as the running core sees them.
int64_t view_block_idx();
int64_t view_block_num();
int64_t view_task_ratio();
int64_t view_sub_block_idx();
int64_t view_sub_block_num();
// CrossCoreSetFlag<mode, pipe>(flag) / CrossCoreWaitFlag<mode, pipe>(flag); pipe is a pipe_t value.
void cross_set(int mode, int pipe, int flag, Loc loc);
void cross_wait(int mode, int pipe, int flag, Loc loc);
void sync_all(Loc loc);

// ---- configuration and per-block state ----
int64_t block_idx();
int64_t block_num();
uint64_t tiling_key();
int npu_arch();
bool strict_mode();
uint8_t* ub_base();
// The running core's vector mask registers: the mode (SetMaskNorm / SetMaskCount) and the two
// 64-bit words SetVectorMask writes. Normal mode: bit j of {lo, hi} enables lane j of every
// repeat; counter mode: `lo` is the element count of the whole instruction. Reset state (and
// ResetMask): all lanes enabled.
struct VecMask {
    bool counter = false;
    uint64_t hi = ~0ull, lo = ~0ull;
};
VecMask& vec_mask();
// The running core's DEQSCALE register (SetDeqScale(half scale)); 1.0 until set.
float& deq_scale();

// ---- instructions ----
// Issues one instruction on `pipe`; returns its id (for shadow-memory records).
uint32_t issue(Pipe pipe, const char* api, Loc loc);
void count_vector(uint32_t repeats);
void count_dma(Pipe pipe, uint64_t bytes, uint32_t bursts);
// SetL2CacheHint(mode) on the GM tensor at `p` (recorded for the performance model).
void count_l2_hint(const void* p, int mode, Loc loc);
// Trace annotations of instruction `instr` (no-ops unless the run records a trace): a UB operand's
// address (vector ops), and the synchronisation a TQue call stands for (kind: 1 set, 2 wait).
void trace_operand(uint32_t instr, uint32_t addr, bool write);
void trace_sync(uint32_t instr, int kind, uint32_t key);
// The cube's annotations of instruction `instr`: its repeats (Mmad: 16 x 16 x C0 fractals) and key
// (LoadData: its destination, 1 L0A / 2 L0B; Fixpipe to UB: 1 for DUAL_DST_SPLIT_M).
void trace_cube(uint32_t instr, uint32_t repeats, uint32_t key);
uint32_t trace_queue_id();  // a fresh id per TQue (its flag keys)

// ---- dtype support of the target ----
void check_dtype(const char* api, DType dt, Loc loc);
// Records the dtype of the next issued instruction for the trace (Reg API ops check theirs at compile time).
void trace_dtype(DType dt);
// Cast src -> dst with RoundMode `mode` (an int of AscendC::RoundMode).
void check_cast(DType src, DType dst, int mode, Loc loc);

// ---- UB ----
// Allocates `bytes` (rounded to 32 B) at the TPipe cursor; faults past capacity.
int ub_alloc(uint32_t& cursor, uint32_t bytes, const char* kind, int slot, Loc loc);
uint32_t ub_buf_start(int buf);
const char* ub_buf_kind(int buf);
uint32_t ub_buf_bytes(int buf);
// Checks that [addr, addr+bytes) lies inside buffer `buf` (and is 32-B aligned if asked).
void ub_check(int buf, uint32_t addr, uint64_t bytes, bool need_align, const char* api, const char* what,
              Loc loc);
// Records an access by instruction `instr` to UB bytes [addr, addr+bytes) (32-B block granular).
// A write defines the bytes unless `define` is false (an op that sets per-lane definedness itself
// with ub_mark, or a masked write that leaves the disabled lanes of its blocks as they were).
void ub_access(uint32_t instr, uint32_t addr, uint32_t bytes, bool write, bool define = true);
bool race_on();
// Whether Mmad computes (false: a timing-only run for the performance model, Config::cube_math).
bool cube_math_on();
// The UB buffer holding `addr` (the newest allocation), or -1; whether UB byte `addr` holds
// defined data (always true with race detection off, which keeps no shadow).
int ub_buf_at(uint32_t addr);
bool ub_written(uint32_t addr);
uint32_t ub_phys_bytes();

// ---- definedness of UB and GM data (DESIGN s7, as memcheck tools do) ----
// Reading undefined bytes is no fault: vector ops propagate definedness per lane (an output lane is
// defined iff the input lanes it depends on are), and a fault is reported only where undefined
// data escapes: a copy into an output tensor (gm_from_ub) or a scalar read (ub_use_scalar,
// gm_use_scalar: the value may decide a branch or form an address). Workspace GM keeps it.
constexpr uint32_t kDefined = 0xffffffffu;
// Per UB byte its defined bits (kAllDefined: all; Compare masks are tracked per bit, other data
// per byte); nullptr with race detection off (nothing tracked).
constexpr uint8_t kAllDefined = 0xff;
uint8_t* ub_def_map();
// The first undefined byte of UB [addr, addr+bytes), or kDefined.
inline uint32_t ub_undef_at(uint32_t addr, uint32_t bytes) {
    const uint8_t* d = ub_def_map();
    if (!d) return kDefined;
    for (uint32_t i = 0; i < bytes; i++)
        if (d[addr + i] != kAllDefined) return addr + i;
    return kDefined;
}
// Instruction `instr` wrote UB [addr, addr+bytes) with undefined data (only `bits` of each byte
// defined) that comes from UB byte `from` (kDefined: the instruction itself leaves them undefined,
// e.g. DataCopyPad's dummy padding).
void ub_mark_undef(uint32_t instr, uint32_t addr, uint32_t bytes, uint32_t from, uint8_t bits = 0);
// A UB -> UB copy: the destination bytes take the definedness (and its story) of the source's.
void ub_copy_def(uint32_t dst, uint32_t src, uint32_t bytes);
// Sets the definedness of UB [addr, addr+bytes) written by `instr`: defined when `from` is
// kDefined, else undefined data from UB byte `from` (an undefined input byte).
inline void ub_mark(uint32_t instr, uint32_t addr, uint32_t bytes, uint32_t from) {
    if (from == kDefined) {
        if (uint8_t* d = ub_def_map())
            for (uint32_t i = 0; i < bytes; i++) d[addr + i] = kAllDefined;
    } else {
        ub_mark_undef(instr, addr, bytes, from);
    }
}
// The first undefined input byte of two operands (kDefined: both defined).
inline uint32_t ub_undef_at2(uint32_t a, uint32_t abytes, uint32_t b, uint32_t bbytes) {
    uint32_t u = ub_undef_at(a, abytes);
    return u != kDefined ? u : ub_undef_at(b, bbytes);
}
// A scalar read (GetValue) of UB [addr, addr+bytes): a fault if any byte is undefined.
void ub_use_scalar(uint32_t instr, uint32_t addr, uint32_t bytes, const char* api, Loc loc);
// A UB -> GM copy by `instr` of UB [ub_addr, +bytes) to `gm`: undefined bytes fault when `gm` is an
// output tensor (the harness reads it back); in workspace they stay undefined for a later load.
void gm_from_ub(uint32_t instr, const void* gm, uint32_t ub_addr, uint64_t bytes, const char* api, Loc loc);
// A GM -> UB copy by `instr`: UB [ub_addr, +bytes) takes the definedness of the GM bytes.
void ub_from_gm(uint32_t instr, uint32_t ub_addr, const void* gm, uint64_t bytes);
// A scalar read of GM (GlobalTensor::GetValue) and a scalar write (SetValue defines the bytes).
void gm_use_scalar(uint32_t instr, const void* gm, uint64_t bytes, const char* api, Loc loc);
void gm_define(const void* gm, uint64_t bytes);

// ---- RegBase vector functions (reg_vf.h) ----
// A VF scope: asc_vf_call or __VEC_SCOPE__ at `loc`. Faults on arch != 3510 and inside a VF.
void vf_enter(const char* form, Loc loc);
void vf_exit();
// A fresh id per VF scope (registers record it), 0 outside one.
uint32_t vf_epoch();
// Issues a Reg API instruction on V; faults outside a VF. Any other issue() inside a VF faults
// (no LocalTensor API, DataCopy, SetFlag/WaitFlag or PipeBarrier in a VF). `dist` is the
// LoadAlign/StoreAlign distribution's trace code (reg_datacopy.h), 0 for other instructions.
uint32_t reg_issue(const char* api, Loc loc, uint32_t dist = 0);
// Checks that a Reg API that issues nothing (UpdateMask, CreateMask) runs inside a VF.
void vf_require(const char* api, Loc loc);
// A VF store of UB bytes [addr, addr+bytes) and a VF load: a load of bytes this VF stored with no
// LocalMemBar<VEC_STORE, VEC_LOAD> since is a RaceError (the load may overtake the store).
void vf_store(uint32_t instr, uint32_t addr, uint32_t bytes);
void vf_load(uint32_t instr, uint32_t addr, uint32_t bytes, Loc loc);
void vf_store_load_bar();

// ---- the AIC's memories (cube.h, src/cube.cpp) ----
// A buffer [start, start + bytes) of the running core's local memory, named `kind` in reports.
int buf_register(uint32_t start, uint32_t bytes, const char* kind, Loc loc);
// The core index of AIV `sub` of the block (-1: none); a write by the running core (the AIC's
// Fixpipe) of `bytes` from `data` into that core's UB at `addr`, with its race checks.
int aiv_core(int sub);
void ub_access_remote(int core, uint32_t id, uint32_t addr, const void* data, uint32_t bytes);

// ---- GM ----
// Bounds-checks [p, p+bytes) against the tensors the harness allocated, then records it.
void gm_access(uint32_t instr, const void* p, uint64_t bytes, bool write, const char* api, Loc loc);

// ---- sync ----
void set_flag(int event, int id, Loc loc);
void wait_flag(int event, int id, Loc loc);
void pipe_barrier(int pipe_t_value, Loc loc);
Clock snapshot(Pipe p);
void join(Pipe p, const Clock& c);
int alloc_event_id(int event, Loc loc);
void release_event_id(int event, int id, Loc loc);
int fetch_event_id(int event);
// A library call's own SetFlag/WaitFlag pair of `event` on the id FetchEventID/AllocEventID gives it
// (the lowest id TPipe has not allocated): a fault if the kernel's manual SetFlag of that id is pending.
void library_flag(int event, const char* api, Loc loc);

}  // namespace dslc

// The name macros that expand in kernel text use (ASSERT, TILING_KEY_IS): no operator can be
// named DslcSim, so it stays the emulator even where the kernel entry's name is a macro
// (kernel_prelude.h).
namespace DslcSim = ::dslc;
