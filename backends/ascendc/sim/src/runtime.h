// Internal view of the emulator state shared by runtime.cpp and harness.cpp.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "dslc_sim/runtime.h"

namespace dslc {

struct SimFault {
    FaultKind kind;
    std::string message;
    int64_t block = -1;  // the block that raised it (-1: host code)
};

struct Config {
    int npu_arch = 2201;
    uint32_t ub_bytes = 196608;
    uint32_t ub_capacity = 196608 - 256 - 8192;
    bool strict = false;
    // Event ids as one physical pool shared by every HardEvent (the blaze reading, reference-ops.md
    // s4.1): a SetFlag whose id number another event type holds live is reported.
    bool shared_ids = false;
    bool race = true;
    bool trace = false;  // record every instruction for the performance model (TraceRec below)
    // false: Mmad leaves its arithmetic out and writes 0 (a timing-only run of a large matmul for the
    // performance model: the same instructions and trace; the outputs are not the operator's).
    bool cube_math = true;
    std::set<std::string> bf16_ops;
    // The AIC's memories (Target.l1_bytes etc.): L1, L0A, L0B and L0C, in that order in its local memory.
    uint32_t l1_bytes = 524288, l0a_bytes = 65536, l0b_bytes = 65536, l0c_bytes = 131072;
    // Cross-core interleaving: 0 runs each core until it waits (deterministic); otherwise the seed of
    // a random choice of the next core at every cross-core flag, and of the order of consecutive Sets.
    uint64_t interleave_seed = 0;
    // `dslc check` (keep_going): the run goes on after a fault (every block runs; a fault that stops a
    // block is recorded and the next block starts), until max_faults distinct faults; a UB allocation
    // over ub_capacity is recorded and served from a backing store of ub_backing bytes.
    bool keep_going = false;
    size_t max_faults = 8;
    uint32_t ub_backing = 0;
};

// One record per instruction issued (and per SetL2CacheHint) when Config::trace is on: what the
// performance model replays (backends/ascendc/perf/trace.py reads this layout with numpy).
// TK_VF: a vector function's launch (asc_vf_call / __VEC_SCOPE__, pipe V, api = the form), followed
// by the Reg API records of its body (key = kTraceRegKey | the LoadAlign/StoreAlign distribution
// code); the launch's key is the body's record count and its gm_off 0, or, when the body equals
// that of an earlier VF of the block (every field), the body is left out and gm_off is the distance
// in records back to that VF's launch.
enum TraceKind : uint8_t {
    TK_OP = 0,
    TK_SET = 1,
    TK_WAIT = 2,
    TK_BARRIER = 3,
    TK_BARRIER_ALL = 4,
    TK_L2HINT = 5,
    TK_VF = 6
};
constexpr uint32_t kTraceRegKey = 1u << 30;
constexpr uint16_t kTraceNone16 = 0xffff;
constexpr uint32_t kTraceNone32 = 0xffffffffu;
struct TraceRec {
    uint8_t pipe;    // Pipe that executes it
    uint8_t kind;    // TraceKind
    uint8_t dtype;   // DType of a vector op (the destination's for Cast), 0xff: none
    uint8_t dtype2;  // Cast: the source's DType
    uint16_t api;    // index into trace_apis()
    uint16_t gm;     // GM region (gm_regions() order) of a copy or L2 hint, 0xffff: none
    uint32_t loc;    // index into trace_locs(): "file:line" of the call
    uint32_t repeats;  // vector repeats (256 B each) / DataCopy bursts
    uint64_t bytes;    // bytes a copy moves
    uint32_t key;      // flags: event * 8 + id (TQue: 1 << 20 | ...); L2 hint: CacheMode; barrier: pipe_t
    uint32_t gm_off;   // byte offset of the copy's first GM byte in its region (low 32 bits)
    uint32_t ub[3];    // UB addresses of dst, src0, src1 (vector ops), kTraceNone32: none
    uint32_t core;     // the core of the block that issued it (crosscore.cpp: AIC 0, AIV0 1, AIV1 2)
};
static_assert(sizeof(TraceRec) == 48, "TraceRec layout is read by Python");


struct PipeCounters {
    uint64_t instructions = 0, dma = 0, bursts = 0, bytes_in = 0, bytes_out = 0, repeats = 0, set_flags = 0,
             wait_flags = 0, barriers = 0;
};

struct BlockCounters {
    PipeCounters pipe[NPIPE];
    uint64_t ub_peak_bytes = 0, l2_hints = 0;
};

struct GmRegion {
    uint8_t* base;
    uint64_t bytes;
    std::string name;
    std::vector<uint8_t> owner;  // block+1 that last wrote each byte (cross-core overlap check)
};

Config& config();
// The cores of a block: fresh state for `n` cores of the given kinds (core 0 current), switching the
// current one (crosscore.cpp runs one core at a time), and a recoverable fault of the current core.
void cores_begin(int n, const CoreKind* kinds);
void core_switch(int k);
void record_fault(FaultKind kind, Loc loc, long detail, const std::string& msg);
// Runs the kernel for the current block: once (an AIV-only kernel) or once per core of a __mix__ kernel.
void run_block(void (*launch)(uint8_t**), uint8_t** args);
std::vector<GmRegion>& gm_regions();
void begin_block(int64_t idx, int64_t num, uint64_t key);
void end_block();  // leaked-flag check
const BlockCounters& block_counters();
const char* last_api_summary();
// The trace of the run so far (all blocks, in order) and its string tables.
std::vector<TraceRec>& trace_records();
const std::vector<std::string>& trace_apis();
const std::vector<std::string>& trace_locs();
// Faults of the run so far, in order (the recoverable ones do not stop a block).
std::vector<SimFault>& recorded_faults();

}  // namespace dslc
