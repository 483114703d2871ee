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
};

struct Config {
    int npu_arch = 2201;
    uint32_t ub_bytes = 196608;
    uint32_t ub_capacity = 196608 - 256 - 8192;
    bool strict = false;
    bool race = true;
    std::set<std::string> bf16_ops;
};

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
std::vector<GmRegion>& gm_regions();
void begin_block(int64_t idx, int64_t num, uint64_t key);
void end_block();  // leaked-flag check
const BlockCounters& block_counters();
const char* last_api_summary();
// Faults of the run so far, in order (the recoverable ones do not stop a block).
std::vector<SimFault>& recorded_faults();

}  // namespace dslc
