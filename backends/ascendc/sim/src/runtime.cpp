// The emulator runtime: instruction issue, vector clocks per pipe, shadow memory for UB (32 B
// blocks; definedness per byte) and GM (byte-precise segments), flags, UB allocation and the
// target's dtype rules.
//
// Happens-before (see reference/emulator-notes.md):
//  * every instruction of pipe P gets the timestamp ++VC[P][P];
//  * SetFlag<SRC_DST> snapshots VC[SRC] (the flag fires once all earlier SRC work is done);
//    WaitFlag<SRC_DST> joins the snapshot into VC[DST]; PipeBarrier<P> / the DST component of
//    a snapshot tell P that its own earlier instructions are complete (self_done);
//  * an instruction issued by the scalar unit starts after everything the scalar unit has
//    waited for, so VC[S] (minus S's own stores) flows into each issued instruction;
//  * access by P conflicts with an earlier access by Q != P unless VC[P][Q] >= t; same-pipe
//    hazards are V read-after-write in strict mode on arch 2201 and MTE2/MTE3 overlapping
//    destinations, ordered only by PipeBarrier or a flag round trip.
#include "runtime.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <tuple>
#include <unordered_map>

#include "kernel_operator.h"

namespace dslc {

namespace {

const char* kPipeName[NPIPE] = {"S", "V", "MTE2", "MTE3", "MTE1", "M", "FIX"};

struct Instr {
    uint8_t pipe;
    uint32_t clock;
    const char* api;
    const char* file;
    int line;
    uint8_t core = 0;  // index of the core of the block that issued it (crosscore.cpp)
};

struct UbBuf {
    uint32_t start, bytes;
    const char* kind;
    int slot;
    const char* file;
    int line;
    int index;
};

struct Shadow {
    uint32_t w;
    uint32_t r[NPIPE];
};

struct GmSeg {
    uintptr_t end;
    uint32_t w;
    uint32_t r[NCLK];  // readers per (core, pipe): GM is shared by the cores of a block
};

struct FlagSlot {
    bool set = false;
    Clock snap{};
    const char* file = nullptr;  // the pending (or last) SetFlag
    int line = 0;
    // The WaitFlag that consumed the last SetFlag: its destination-pipe timestamp and line.
    uint32_t wait_clock = 0;
    const char* wait_file = nullptr;
    int wait_line = 0;
};

// One flag per (HardEvent, id): the toolkit's reading. asc-devkit impl/basic_api/kernel_tpipe_impl.h
// keeps one id pool per HardEvent (AllocEventID/FetchEventID: eventPool_ + EventToIndex(evt)) and
// TPipe::InitBuffer pre-issues each TQue buffer's free event on an id of its type's pool (a VECIN
// and a VECOUT queue: V_MTE2(0) and MTE3_V(0) live together); its A2 architecture guide
// (NPU架构版本2201.md) says SetFlag<S_MTE3>(1) and SetFlag<MTE3_MTE1>(1) are different EventIDs.
// shared_ids (reference-ops.md s4.1's other reading) checks one number across types on top.
// Ids 0-7 on A2/A3/950; manual code uses 0-5 (6 reserved, 7 TPipe's auto-sync).
constexpr int kEvents = static_cast<int>(AscendC::HardEvent::MAX);
constexpr int kIds = 8;
constexpr int kManualIds = 6;

// What each core of a block has for itself: its pipes' clocks, its local memory (an AIV's UB;
// an AIC's L1/L0A/L0B/L0C, cube.cpp) with its shadow and buffers, and its intra-core flags.
struct CoreState {
    CoreKind kind = CK_AIV;
    int sub = 0;  // the AIV's sub-block index (GetSubBlockIdx)
    Clock vc[NPIPE]{};
    uint32_t self_done[NPIPE]{};
    std::vector<Shadow> shadow;
    FlagSlot flags[kEvents][kIds];
    uint8_t event_alloc[kEvents]{};
    std::vector<UbBuf> bufs;
    size_t live_from = 0;
    int buf_seq = 0;
    std::unique_ptr<uint8_t[]> ub;
    uint32_t ub_alloc_bytes = 0;
    // Definedness per UB byte (per bit for Compare masks) and the instruction that last left a
    // byte undefined (see ub_access and the "Definedness" section of sim/README.md).
    std::vector<uint8_t> ub_def;
    std::vector<uint32_t> ub_undef_by;
    // The vector mask registers of the core (SetVectorMask / SetMaskCount / SetMaskNorm).
    VecMask vmask;
    // The DEQSCALE register (SetDeqScale(half)): Cast int32_t -> half multiplies by it.
    float deq_scale = 1.0f;
};

struct State : CoreState {
    Config cfg;
    std::vector<GmRegion> regions;
    int64_t block_idx = 0, block_num = 1;
    uint64_t tiling_key = 0;
    // The cores of the block: the current one's state is the CoreState base, the others' are in
    // `parked` (core_switch swaps them); `core` indexes the clock components (core * NPIPE + pipe).
    int core = 0, ncores = 1;
    CoreKind kinds[kMaxCores] = {CK_AIV, CK_AIV, CK_AIV};
    std::vector<CoreState> parked;
    std::vector<Instr> instrs;
    std::map<uintptr_t, GmSeg> gm;
    BlockCounters counters;
    char last_api[512] = "";
    // Faults of the whole run: the recoverable ones are recorded and the block goes on (see soft_fault).
    std::vector<SimFault> faults;
    std::set<std::tuple<int, std::string, int, long>> fault_keys;
    // The performance trace (Config::trace): records, interned strings, the record of the last
    // issued instruction (annotations apply to it) and the dtype(s) the next vector op declared.
    std::vector<TraceRec> trace;
    std::vector<std::string> trace_apis, trace_locs;
    std::unordered_map<const char*, uint16_t> api_by_ptr;
    std::map<std::string, uint16_t> api_by_name;
    std::map<std::pair<const char*, int>, uint32_t> loc_by_ptr;
    std::map<std::string, uint32_t> loc_by_name;
    uint32_t trace_instr = 0;
    uint8_t pending_dt = 0xff, pending_dt2 = 0xff;
    uint32_t queues = 0;
    // RegBase: the open VF scope (epoch 0: none), where it was entered, whether issue() is called
    // by a Reg API, and per UB byte the store epoch / instruction of the last VF store.
    uint32_t vf_epoch = 0, vf_seq = 0, vf_bar = 0, vf_bar_seq = 0;
    const char* vf_form = nullptr;
    Loc vf_loc{nullptr, 0};
    // The trace record of the open VF's launch (SIZE_MAX: none) and the launches of this block
    // whose bodies are in the trace (a later VF with the same body refers to one of them).
    size_t vf_trace_at = SIZE_MAX;
    std::vector<size_t> vf_bodies;
    bool reg_issuing = false;
    std::vector<uint32_t> vf_store_bar, vf_store_instr;
    // Definedness (DESIGN s7): per UB byte whether it holds defined data and the instruction that
    // last left it undefined (0: nothing has written it this block); per instruction that wrote
    // undefined data, where that data first came from (an index into undef_roots). GM keeps per
    // region byte the root of its undefined bytes (0: defined), for workspace round trips.
    std::unordered_map<uint32_t, uint32_t> instr_root;
    std::vector<std::string> undef_roots{""};
    std::map<const uint8_t*, std::vector<uint32_t>> gm_undef;
};

State& S() {
    static State s;
    return s;
}

// The pipes of an AIV (S, V, MTE2, MTE3) and of an AIC (S, MTE1, MTE2, M, FIX).
bool core_has(CoreKind k, int p) {
    return p == P_S || p == P_MTE2 || (k == CK_AIV ? (p == P_V || p == P_MTE3) : (p == P_MTE1 || p == P_M || p == P_FIX));
}

// "AIC", "AIV0", "AIV1" (an AIV-only kernel's single core: "AIV").
const char* core_name(int core) {
    const State& s = S();
    if (s.kinds[core] == CK_AIC) return "AIC";
    if (s.ncores == 1) return "AIV";
    int sub = s.kinds[0] == CK_AIC ? core - 1 : core;
    return sub == 0 ? "AIV0" : "AIV1";
}

std::string vformat(const char* fmt, va_list ap) {
    char buf[4096];
    vsnprintf(buf, sizeof buf, fmt, ap);
    return buf;
}

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::string s = vformat(fmt, ap);
    va_end(ap);
    return s;
}

// Recoverable faults (races, flag misuse, undefined data escaping) are recorded and the block goes
// on, so one run reports several distinct faults; each (kind, line, detail) once. After
// Config::max_faults of them (8 unless `dslc check --max-faults` says otherwise) the run stops.

// `key` and `detail` say which faults are the same: a race is keyed by the earlier instruction
// and the later pipe (one missing path, however many accesses it leaves unordered).
bool fault_seen(FaultKind kind, Loc key, long detail) {
    return S().fault_keys.count(std::make_tuple(int(kind), std::string(key.file ? key.file : "?"), key.line, detail)) >
           0;
}

std::string located(Loc loc, const std::string& msg) {
    const State& s = S();
    if (s.ncores > 1)
        return format("%s:%d: %s (block %lld of %lld, %s)", loc.file ? loc.file : "?", loc.line, msg.c_str(),
                      (long long)s.block_idx, (long long)s.block_num, core_name(s.core));
    return format("%s:%d: %s (block %lld of %lld)", loc.file ? loc.file : "?", loc.line, msg.c_str(),
                  (long long)s.block_idx, (long long)s.block_num);
}

void soft_fault(FaultKind kind, Loc loc, Loc key, long detail, const char* fmt, ...)
    __attribute__((format(printf, 5, 6)));
void soft_fault(FaultKind kind, Loc loc, Loc key, long detail, const char* fmt, ...) {
    State& s = S();
    if (!s.fault_keys.insert(std::make_tuple(int(kind), std::string(key.file ? key.file : "?"), key.line, detail))
             .second)
        return;
    va_list ap;
    va_start(ap, fmt);
    std::string msg = vformat(fmt, ap);
    va_end(ap);
    s.faults.push_back(SimFault{kind, located(loc, msg), s.block_idx});
    if (s.faults.size() >= s.cfg.max_faults) throw s.faults.back();
}

// Event id -> (src, dst) among the AIV pipes, or -1.
struct EvPipes {
    int src, dst;
    const char* name;
};
EvPipes event_pipes(int ev) {
    using H = AscendC::HardEvent;
    switch (static_cast<H>(ev)) {
        case H::MTE2_V: return {P_MTE2, P_V, "MTE2_V"};
        case H::V_MTE2: return {P_V, P_MTE2, "V_MTE2"};
        case H::MTE3_V: return {P_MTE3, P_V, "MTE3_V"};
        case H::V_MTE3: return {P_V, P_MTE3, "V_MTE3"};
        case H::V_V: return {P_V, P_V, "V_V"};
        case H::MTE3_MTE2: return {P_MTE3, P_MTE2, "MTE3_MTE2"};
        case H::MTE2_MTE3: return {P_MTE2, P_MTE3, "MTE2_MTE3"};
        case H::S_V: return {P_S, P_V, "S_V"};
        case H::V_S: return {P_V, P_S, "V_S"};
        case H::S_MTE2: return {P_S, P_MTE2, "S_MTE2"};
        case H::MTE2_S: return {P_MTE2, P_S, "MTE2_S"};
        case H::S_MTE3: return {P_S, P_MTE3, "S_MTE3"};
        case H::MTE3_S: return {P_MTE3, P_S, "MTE3_S"};
        // The AIC's pipes (cube.h).
        case H::MTE2_MTE1: return {P_MTE2, P_MTE1, "MTE2_MTE1"};
        case H::MTE1_MTE2: return {P_MTE1, P_MTE2, "MTE1_MTE2"};
        case H::MTE1_M: return {P_MTE1, P_M, "MTE1_M"};
        case H::M_MTE1: return {P_M, P_MTE1, "M_MTE1"};
        case H::MTE2_M: return {P_MTE2, P_M, "MTE2_M"};
        case H::M_MTE2: return {P_M, P_MTE2, "M_MTE2"};
        case H::M_FIX: return {P_M, P_FIX, "M_FIX"};
        case H::FIX_M: return {P_FIX, P_M, "FIX_M"};
        case H::MTE2_FIX: return {P_MTE2, P_FIX, "MTE2_FIX"};
        case H::FIX_MTE2: return {P_FIX, P_MTE2, "FIX_MTE2"};
        case H::FIX_S: return {P_FIX, P_S, "FIX_S"};
        case H::M_S: return {P_M, P_S, "M_S"};
        case H::MTE1_FIX: return {P_MTE1, P_FIX, "MTE1_FIX"};
        case H::FIX_MTE1: return {P_FIX, P_MTE1, "FIX_MTE1"};
        case H::FIX_FIX: return {P_FIX, P_FIX, "FIX_FIX"};
        default: return {-1, -1, "(an event of the coupled architecture)"};
    }
}

// "UB [a, b)" on an AIV; on an AIC the memory of its local-memory map (L1, L0A, L0B, L0C; cube.cpp).
std::string mem_range(uint32_t a, uint32_t b) {
    const State& s = S();
    if (s.kind != CK_AIC) return format("UB [0x%x, 0x%x)", a, b);
    const uint32_t sizes[] = {s.cfg.l1_bytes, s.cfg.l0a_bytes, s.cfg.l0b_bytes, s.cfg.l0c_bytes};
    const char* names[] = {"L1", "L0A", "L0B", "L0C"};
    uint32_t base = 0;
    for (int m = 0; m < 4; m++) {
        if (a < base + sizes[m] || m == 3) return format("%s [0x%x, 0x%x)", names[m], a - base, b - base);
        base += sizes[m];
    }
    return "";
}

std::string buf_name(int b) {
    const State& s = S();
    if (b < 0 || b >= static_cast<int>(s.bufs.size()))
        return s.kind == CK_AIC ? "an unallocated range" : "an unallocated UB range";
    const UbBuf& u = s.bufs[b];
    const char* how = s.kind == CK_AIC ? "Alloc" : "InitBuffer";
    if (u.slot >= 0)
        return format("%s#%d slot %d (%s at %s:%d, %s)", u.kind, u.index, u.slot, how, u.file, u.line,
                      mem_range(u.start, u.start + u.bytes).c_str());
    return format("%s#%d (%s at %s:%d, %s)", u.kind, u.index, how, u.file, u.line,
                  mem_range(u.start, u.start + u.bytes).c_str());
}

int buf_at(uint32_t addr) {
    const State& s = S();
    for (int i = static_cast<int>(s.bufs.size()) - 1; i >= 0; i--)
        if (addr >= s.bufs[i].start && addr < s.bufs[i].start + s.bufs[i].bytes) return i;
    return -1;
}

std::string instr_desc(uint32_t id) {
    const Instr& in = S().instrs[id];
    if (S().ncores > 1)
        return format("%s %s %s at %s:%d", core_name(in.core), kPipeName[in.pipe], in.api, in.file, in.line);
    return format("%s %s at %s:%d", kPipeName[in.pipe], in.api, in.file, in.line);
}

enum Hazard { RAW, WAW, WAR };
const char* kHazard[] = {"read-after-write", "write-after-write", "write-after-read"};

template <typename Where> void race_fault(uint32_t cur, uint32_t prev, Hazard h, Where where) {
    const Instr& a = S().instrs[cur];
    const Instr& b = S().instrs[prev];
    Loc loc(a.file, a.line);
    Loc key(b.file, b.line);
    if (fault_seen(F_RACE, key, a.pipe)) return;
    if (cur == prev) {  // one instruction whose destinations overlap (e.g. an ND2NZ stride too small)
        soft_fault(F_RACE, loc, key, a.pipe, "%s writes %s twice (its destinations overlap): the hardware does not "
                   "define the order of one instruction's writes", instr_desc(cur).c_str(), where().c_str());
        return;
    }
    std::string fix;
    if (a.core != b.core)
        fix = format("CrossCoreSetFlag on %s after the %s access and CrossCoreWaitFlag on %s before this one",
                     core_name(b.core), kPipeName[b.pipe], core_name(a.core));
    else if (a.pipe == b.pipe)
        fix = format("PipeBarrier<PIPE_%s>() between them", kPipeName[a.pipe]);
    else
        fix = format("SetFlag/WaitFlag<HardEvent::%s_%s> from the first to the second", kPipeName[b.pipe],
                     kPipeName[a.pipe]);
    const char* verb_b = h == WAR ? "read" : "wrote";
    const char* verb_a = h == RAW ? "reads" : "writes";
    soft_fault(F_RACE, loc, key, a.pipe,
               "%s race on %s: %s %s it after %s %s it, with no happens-before path between the %s and %s pipes "
               "(missing %s)",
               kHazard[h], where().c_str(), instr_desc(cur).c_str(), verb_a, instr_desc(prev).c_str(), verb_b,
               kPipeName[b.pipe], kPipeName[a.pipe], fix.c_str());
}

// Is the earlier instruction `prev` ordered before `cur` for hazard `h`?
bool ordered(uint32_t cur, uint32_t prev, Hazard h) {
    State& s = S();
    const Instr& a = s.instrs[cur];
    const Instr& b = s.instrs[prev];
    uint8_t P = a.pipe, Q = b.pipe;
    // Another core of the block: only cross-core flags order it (no implicit scalar sync).
    if (a.core != b.core) return s.vc[P].c[b.core * NPIPE + Q] >= b.clock;
    if (P == Q) {
        bool checked = (P == P_V && h == RAW && s.cfg.strict && s.cfg.npu_arch != 3510) ||
                       ((P == P_MTE2 || P == P_MTE3) && h == WAW);
        return !checked || b.clock <= s.self_done[P];
    }
    // CANN's default --cce-auto-sync inserts the scalar<->pipe syncs.
    if (!s.cfg.strict && (P == P_S || Q == P_S)) return true;
    // Scalar loads are synchronous: anything issued afterwards comes after them.
    if (Q == P_S && h == WAR) return true;
    return s.vc[P].c[b.core * NPIPE + Q] >= b.clock;
}

void join_into(int dst, const Clock& c) {
    State& s = S();
    const int self = s.core * NPIPE + dst;
    for (int q = 0; q < NCLK; q++) {
        if (q == self)
            s.self_done[dst] = s.self_done[dst] > c.c[q] ? s.self_done[dst] : c.c[q];
        else if (s.vc[dst].c[q] < c.c[q])
            s.vc[dst].c[q] = c.c[q];
    }
}

void gm_split(uintptr_t x) {
    auto& m = S().gm;
    auto it = m.upper_bound(x);
    if (it == m.begin()) return;
    --it;
    if (it->first < x && x < it->second.end) {
        GmSeg tail = it->second;
        it->second.end = x;
        m.emplace(x, tail);
    }
}

}  // namespace

// ---------------------------------------------------------------- trace
namespace {
uint16_t intern_api(const char* api) {
    State& s = S();
    auto it = s.api_by_ptr.find(api);
    if (it != s.api_by_ptr.end()) return it->second;
    auto [named, fresh] = s.api_by_name.emplace(api, static_cast<uint16_t>(s.trace_apis.size()));
    if (fresh) s.trace_apis.emplace_back(api);
    s.api_by_ptr.emplace(api, named->second);
    return named->second;
}

uint32_t intern_loc(Loc loc) {
    State& s = S();
    auto key = std::make_pair(loc.file, loc.line);
    auto it = s.loc_by_ptr.find(key);
    if (it != s.loc_by_ptr.end()) return it->second;
    std::string name = std::string(loc.file ? loc.file : "?") + ":" + std::to_string(loc.line);
    auto [named, fresh] = s.loc_by_name.emplace(name, static_cast<uint32_t>(s.trace_locs.size()));
    if (fresh) s.trace_locs.push_back(name);
    s.loc_by_ptr.emplace(key, named->second);
    return named->second;
}

TraceRec* traced(uint32_t instr) {
    State& s = S();
    if (!s.cfg.trace || s.trace.empty() || instr != s.trace_instr) return nullptr;
    return &s.trace.back();
}

int region_of(const void* p) {
    const auto& regions = S().regions;
    const uint8_t* a = static_cast<const uint8_t*>(p);
    for (size_t i = 0; i < regions.size(); i++)
        if (a >= regions[i].base && a < regions[i].base + regions[i].bytes + (regions[i].bytes == 0)) return int(i);
    return -1;
}

TraceRec blank_rec(Pipe p, TraceKind k, const char* api, Loc loc) {
    TraceRec r;
    std::memset(&r, 0, sizeof r);
    r.pipe = p;
    r.kind = k;
    r.dtype = r.dtype2 = 0xff;
    r.api = intern_api(api);
    r.gm = kTraceNone16;
    r.loc = intern_loc(loc);
    r.key = kTraceNone32;
    r.ub[0] = r.ub[1] = r.ub[2] = kTraceNone32;
    r.core = static_cast<uint32_t>(S().core);
    return r;
}
}  // namespace

std::vector<TraceRec>& trace_records() { return S().trace; }
const std::vector<std::string>& trace_apis() { return S().trace_apis; }
const std::vector<std::string>& trace_locs() { return S().trace_locs; }

void trace_operand(uint32_t instr, uint32_t addr, bool write) {
    TraceRec* r = traced(instr);
    if (!r) return;
    if (write) {
        if (r->ub[0] == kTraceNone32) r->ub[0] = addr;
    } else if (r->ub[1] == kTraceNone32) {
        r->ub[1] = addr;
    } else if (r->ub[2] == kTraceNone32) {
        r->ub[2] = addr;
    }
}

void trace_sync(uint32_t instr, int kind, uint32_t key) {
    TraceRec* r = traced(instr);
    if (!r) return;
    r->kind = static_cast<uint8_t>(kind);
    r->key = key;
}

void trace_cube(uint32_t instr, uint32_t repeats, uint32_t key) {
    TraceRec* r = traced(instr);
    if (!r) return;
    r->repeats = repeats;
    r->key = key;
}

uint32_t trace_queue_id() { return ++S().queues; }

void count_l2_hint(const void* p, int mode, Loc loc) {
    State& s = S();
    s.counters.l2_hints++;
    if (!s.cfg.trace) return;
    TraceRec r = blank_rec(P_S, TK_L2HINT, "SetL2CacheHint", loc);
    int reg = region_of(p);
    r.gm = reg < 0 ? kTraceNone16 : static_cast<uint16_t>(reg);
    r.key = static_cast<uint32_t>(mode);
    s.trace.push_back(r);
}

Config& config() { return S().cfg; }
std::vector<SimFault>& recorded_faults() { return S().faults; }
std::vector<GmRegion>& gm_regions() { return S().regions; }
const BlockCounters& block_counters() { return S().counters; }
const char* last_api_summary() { return S().last_api; }
VecMask& vec_mask() { return S().vmask; }
float& deq_scale() { return S().deq_scale; }

void begin_block(int64_t idx, int64_t num, uint64_t key) {
    State& s = S();
    s.block_idx = idx;
    s.block_num = num;
    s.tiling_key = key;
    s.instrs.clear();
    s.instrs.push_back(Instr{0, 0, "(none)", "", 0});
    s.instr_root.clear();
    if (idx == 0) {
        s.gm_undef.clear();
        s.undef_roots.assign(1, "");
    }
    s.gm.clear();
    const CoreKind aiv = CK_AIV;
    cores_begin(1, &aiv);
    s.counters = BlockCounters{};
    s.last_api[0] = 0;
    s.trace_instr = 0;
    s.vf_epoch = 0;
    s.reg_issuing = false;
    s.vf_trace_at = SIZE_MAX;
    s.vf_bodies.clear();
}

namespace {
// A core's fresh state: its local memory poisoned (NaN in every float format), no buffers, flags or clocks.
void init_core(CoreState& c, CoreKind kind, int sub) {
    const Config& cfg = S().cfg;
    c.kind = kind;
    c.sub = sub;
    c.vmask = VecMask{};
    c.deq_scale = 1.0f;
    for (auto& v : c.vc) v = Clock{};
    for (auto& d : c.self_done) d = 0;
    uint32_t phys = kind == CK_AIC ? cfg.l1_bytes + cfg.l0a_bytes + cfg.l0b_bytes + cfg.l0c_bytes
                                   : std::max({cfg.ub_bytes, cfg.ub_capacity, cfg.ub_backing});
    if (!c.ub || c.ub_alloc_bytes != phys) {
        c.ub.reset(new uint8_t[phys + 64]);
        c.ub_alloc_bytes = phys;
    }
    std::memset(c.ub.get(), 0xff, phys);
    c.shadow.assign(phys / 32 + 1, Shadow{});
    c.ub_def.assign(phys + 64, 0);
    c.ub_undef_by.assign(phys + 64, 0);
    for (auto& ev : c.flags)
        for (auto& f : ev) f = FlagSlot{};
    std::memset(c.event_alloc, 0, sizeof c.event_alloc);
    c.bufs.clear();
    c.live_from = 0;
    c.buf_seq = 0;
}
}  // namespace

void cores_begin(int n, const CoreKind* kinds) {
    State& s = S();
    s.ncores = n;
    s.parked.resize(n);
    int sub = 0;
    for (int i = 0; i < n; i++) {
        s.kinds[i] = kinds[i];
        init_core(i == 0 ? static_cast<CoreState&>(s) : s.parked[i], kinds[i], kinds[i] == CK_AIV ? sub++ : 0);
    }
    s.core = 0;
}

void core_switch(int k) {
    State& s = S();
    if (k == s.core) return;
    std::swap(static_cast<CoreState&>(s), s.parked[s.core]);
    std::swap(static_cast<CoreState&>(s), s.parked[k]);
    s.core = k;
}

int core_current() { return S().core; }
int core_count() { return S().ncores; }
CoreKind core_kind() { return S().kind; }
int core_sub() { return S().sub; }
const char* core_label(int core) { return core_name(core); }
uint32_t core_clock_index(Pipe p) { return uint32_t(S().core * NPIPE + p); }

void record_fault(FaultKind kind, Loc loc, long detail, const std::string& msg) {
    soft_fault(kind, loc, loc, detail, "%s", msg.c_str());
}

void end_block() {
    State& s = S();
    std::string leaked;
    const char* file = "";
    int line = 0;
    for (int e = 0; e < kEvents; e++)
        for (int i = 0; i < kIds; i++) {
            const FlagSlot& f = s.flags[e][i];
            if (!f.set) continue;
            if (!leaked.empty()) leaked += "; ";
            leaked += format("SetFlag<HardEvent::%s>(%d) at %s:%d", event_pipes(e).name, i, f.file, f.line);
            if (!line) file = f.file, line = f.line;
        }
    if (!leaked.empty())
        soft_fault(F_SYNC, Loc(file, line), Loc(file, line), -2,
              "flag(s) still set when the kernel ends (no matching WaitFlag): %s; the next launch would hang or race",
              leaked.c_str());
}

int64_t block_idx() { return S().block_idx; }
int64_t block_num() { return S().block_num; }
uint64_t tiling_key() { return S().tiling_key; }
int npu_arch() { return S().cfg.npu_arch; }
bool strict_mode() { return S().cfg.strict; }
bool race_on() { return S().cfg.race; }
bool cube_math_on() { return S().cfg.cube_math; }
uint8_t* ub_base() { return S().ub.get(); }

const char* dtype_name(DType d) {
    static const char* n[] = {"float", "half", "bfloat16_t", "int8_t", "uint8_t", "int16_t", "uint16_t",
                              "int32_t", "uint32_t", "int64_t", "uint64_t", "bool", "double"};
    return d <= DT_F64 ? n[d] : "?";
}

void fault(FaultKind kind, Loc loc, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::string msg = vformat(fmt, ap);
    va_end(ap);
    throw SimFault{kind, located(loc, msg), S().block_idx};
}

uint32_t issue(Pipe p, const char* api, Loc loc) {
    State& s = S();
    if (s.vf_epoch && !s.reg_issuing)
        fault(F_UNSUPPORTED, loc,
              "%s inside the vector function entered by %s at %s:%d: a VF contains only Reg API calls and scalar "
              "code (no LocalTensor API, DataCopy, SetFlag/WaitFlag or PipeBarrier; reference-ops.md s4.4)",
              api, s.vf_form, s.vf_loc.file, s.vf_loc.line);
    const int base = s.core * NPIPE;
    uint32_t t = ++s.vc[p].c[base + p];
    if (p != P_S) {
        for (int q = 0; q < NCLK; q++) {
            if (q == base + P_S) continue;  // (the scalar unit's own stores)
            if (q == base + p) {
                if (s.self_done[p] < s.vc[P_S].c[q]) s.self_done[p] = s.vc[P_S].c[q];
            } else if (s.vc[p].c[q] < s.vc[P_S].c[q]) {
                s.vc[p].c[q] = s.vc[P_S].c[q];
            }
        }
    }
    s.instrs.push_back(Instr{static_cast<uint8_t>(p), t, api, loc.file, loc.line, static_cast<uint8_t>(s.core)});
    s.counters.pipe[p].instructions++;
    if (s.cfg.trace) {
        TraceRec r = blank_rec(p, TK_OP, api, loc);
        r.dtype = s.pending_dt;
        r.dtype2 = s.pending_dt2;
        s.trace.push_back(r);
        s.trace_instr = static_cast<uint32_t>(s.instrs.size() - 1);
    }
    s.pending_dt = s.pending_dt2 = 0xff;
    snprintf(s.last_api, sizeof s.last_api, "%s %s %s at %s:%d", core_name(s.core), kPipeName[p], api, loc.file,
             loc.line);
    return static_cast<uint32_t>(s.instrs.size() - 1);
}

void count_vector(uint32_t repeats) {
    State& s = S();
    s.counters.pipe[P_V].repeats += repeats;
    if (TraceRec* r = traced(s.trace_instr)) r->repeats += repeats;
}
void count_dma(Pipe p, uint64_t bytes, uint32_t bursts) {
    State& s = S();
    if (TraceRec* r = traced(s.trace_instr)) {
        r->bytes += bytes;
        r->repeats += bursts;
    }
    PipeCounters& c = s.counters.pipe[p];
    c.dma++;
    c.bursts += bursts;
    if (p == P_MTE2) c.bytes_in += bytes;
    if (p == P_MTE3) c.bytes_out += bytes;
}

// ---------------------------------------------------------------- dtype support
namespace {
constexpr uint32_t bit(DType d) { return 1u << d; }
constexpr uint32_t kF = bit(DT_F16) | bit(DT_F32);
constexpr uint32_t kArith2201 = kF | bit(DT_I16) | bit(DT_I32);
constexpr uint32_t kInts3510 = bit(DT_I8) | bit(DT_U8) | bit(DT_U16) | bit(DT_U32) | bit(DT_I64) | bit(DT_U64);

// MemBase A2 dtype lists of ascendc-api.md s5 (B/Memory矢量计算/<group>/<Op>.md).
uint32_t allowed_2201(const char* api) {
    auto is = [api](const char* n) { return std::strcmp(api, n) == 0; };
    if (is("Add") || is("Sub") || is("Mul") || is("Max") || is("Min") || is("Adds") || is("Muls") || is("Maxs") ||
        is("Mins"))
        return kArith2201;
    if (is("Relu")) return kF | bit(DT_I32);
    if (is("Or")) return bit(DT_I16) | bit(DT_U16);  // Or.md: int16_t/uint16_t only
    if (is("ShiftLeft")) return bit(DT_I16) | bit(DT_U16) | bit(DT_I32) | bit(DT_U32);  // dav_c220 impl
    if (is("Duplicate") || is("Brcb") || is("Copy") || is("Gather"))  // Gather.md: b16/b32, no int8
        return kF | bit(DT_I16) | bit(DT_U16) | bit(DT_I32) | bit(DT_U32);
    if (is("Compare") || is("Compares")) return kF | bit(DT_I32);
    if (is("DataCopy(UB->UB)")) return 0xffffffffu;
    return kF;  // Div, Exp, Ln, Sqrt, Rsqrt, Reciprocal, Abs, LeakyRelu, Tanh, Sigmoid, Select, reductions
}
}  // namespace

void check_dtype(const char* api, DType dt, Loc loc) {
    const Config& c = S().cfg;
    bool ok;
    if (dt == DT_BF16) {
        ok = c.bf16_ops.count(api) > 0;
    } else {
        uint32_t mask = allowed_2201(api);
        if (c.npu_arch == 3510 && (mask & bit(DT_I16))) mask |= kInts3510;
        ok = (mask >> dt) & 1u;
    }
    if (!ok)
        fault(F_UNSUPPORTED, loc, "%s does not support %s on arch %d (cast to a supported type first)", api,
              dtype_name(dt), c.npu_arch);
    S().pending_dt = dt;  // the next issue() is this op
}

void trace_dtype(DType dt) { S().pending_dt = dt; }

void check_cast(DType src, DType dst, int mode, Loc loc) {
    using R = AscendC::RoundMode;
    S().pending_dt = dst;
    S().pending_dt2 = src;
    const R m = static_cast<R>(mode);
    static const char* mode_names[] = {"CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL",
                                       "CAST_ROUND", "CAST_TRUNC", "CAST_ODD", "CAST_HYBRID"};
    if (S().cfg.npu_arch == 3510) {
        if (m == R::CAST_HYBRID)
            fault(F_UNSUPPORTED, loc, "Cast %s -> %s: CAST_HYBRID is not modelled", dtype_name(src), dtype_name(dst));
        return;
    }
    const bool none = m == R::CAST_NONE;
    const bool rft = m == R::CAST_RINT || m == R::CAST_FLOOR || m == R::CAST_CEIL || m == R::CAST_ROUND ||
                     m == R::CAST_TRUNC;
    auto pair = [&](DType s, DType d) { return src == s && dst == d; };
    bool ok = false;
    // A2 pairs of ascendc-api.md s5 "Cast" (B/Memory矢量计算/类型转换/Cast.md).
    if (pair(DT_F16, DT_F32) || pair(DT_BF16, DT_F32) || pair(DT_I8, DT_F16) || pair(DT_U8, DT_F16) ||
        pair(DT_I16, DT_F32) || pair(DT_I32, DT_I16) || pair(DT_I32, DT_I64) || pair(DT_I64, DT_I32))
        ok = none;
    else if (pair(DT_F32, DT_F16))
        ok = none || rft || m == R::CAST_ODD;
    else if (pair(DT_F32, DT_BF16) || pair(DT_BF16, DT_I32) || pair(DT_F16, DT_I32) || pair(DT_F16, DT_I16) ||
             pair(DT_F32, DT_I32) || pair(DT_F32, DT_I16) || pair(DT_F32, DT_I64) || pair(DT_F32, DT_F32) ||
             pair(DT_I64, DT_F32))
        ok = rft;
    else if (pair(DT_F16, DT_I8) || pair(DT_F16, DT_U8) || pair(DT_I16, DT_F16) || pair(DT_I32, DT_F32))
        ok = rft || none;
    else if (pair(DT_I32, DT_F16))
        ok = true;  // via SetDeqScale; the round mode is ignored
    if (!ok)
        fault(F_UNSUPPORTED, loc, "Cast %s -> %s with RoundMode::%s is not supported on arch %d", dtype_name(src),
              dtype_name(dst), mode >= 0 && mode < 8 ? mode_names[mode] : "?", S().cfg.npu_arch);
}

// ---------------------------------------------------------------- UB
int ub_alloc(uint32_t& cursor, uint32_t bytes, const char* kind, int slot, Loc loc) {
    State& s = S();
    uint32_t len = (bytes + 31u) / 32u * 32u;
    uint32_t start = cursor;
    // A TPipe::Reset() rewinds the cursor: the buffers allocated before it are gone.
    if (!s.bufs.empty() && start < s.bufs.back().start + s.bufs.back().bytes) s.live_from = s.bufs.size();
    uint64_t end = uint64_t(start) + len;
    if (end > s.cfg.ub_capacity) {
        std::string ledger;
        for (size_t i = s.live_from; i < s.bufs.size(); i++) {
            const UbBuf& b = s.bufs[i];
            ledger += format("\n    %s#%d%s at %s:%d: %u B at 0x%x", b.kind, b.index,
                             b.slot >= 0 ? format(" slot %d", b.slot).c_str() : "", b.file, b.line, b.bytes, b.start);
        }
        ledger += format("\n    %s#%d%s (this InitBuffer) at %s:%d: %u B at 0x%x", kind, slot <= 0 ? s.buf_seq : s.buf_seq - 1,
                         slot >= 0 ? format(" slot %d", slot).c_str() : "", loc.file, loc.line, len, start);
        const char* fmt =
            "UB over capacity: InitBuffer(%s, %u B) brings the allocation to %llu B > %u B usable on this target "
            "(UB %u B); buffers:%s";
        // keep_going (dslc check): recorded, and the run goes on in the larger backing store.
        if (!s.cfg.keep_going || end > s.ub_alloc_bytes)
            fault(F_MEMORY, loc, fmt, kind, bytes, (unsigned long long)end, s.cfg.ub_capacity, s.cfg.ub_bytes,
                  ledger.c_str());
        soft_fault(F_MEMORY, loc, loc, -7, fmt, kind, bytes, (unsigned long long)end, s.cfg.ub_capacity,
                   s.cfg.ub_bytes, ledger.c_str());
    }
    cursor = static_cast<uint32_t>(end);
    if (end > s.counters.ub_peak_bytes) s.counters.ub_peak_bytes = end;
    if (slot <= 0) s.buf_seq++;
    s.bufs.push_back(UbBuf{start, len, kind, slot, loc.file, loc.line, s.buf_seq - 1});
    return static_cast<int>(s.bufs.size() - 1);
}

uint32_t ub_buf_start(int buf) { return S().bufs.at(buf).start; }
const char* ub_buf_kind(int buf) { return S().bufs.at(buf).kind; }
uint32_t ub_buf_bytes(int buf) { return S().bufs.at(buf).bytes; }

void ub_check(int buf, uint32_t addr, uint64_t bytes, bool need_align, const char* api, const char* what, Loc loc) {
    State& s = S();
    if (buf < 0 || buf >= static_cast<int>(s.bufs.size()))
        fault(F_MEMORY, loc, "%s: %s LocalTensor is not backed by a TBuf/TQue buffer (default-constructed?)", api, what);
    const UbBuf& b = s.bufs[buf];
    if (need_align && addr % 32 != 0)
        fault(F_MEMORY, loc, "%s: %s at UB 0x%x (byte %u of %s) is not 32-byte aligned", api, what, addr,
              addr - b.start, buf_name(buf).c_str());
    if (addr < b.start || uint64_t(addr) + bytes > uint64_t(b.start) + b.bytes)
        fault(F_MEMORY, loc, "%s: %s UB [0x%x, 0x%llx) (%llu B) runs outside %s", api, what, addr,
              (unsigned long long)(addr + bytes), (unsigned long long)bytes, buf_name(buf).c_str());
}

int ub_buf_at(uint32_t addr) { return buf_at(addr); }
uint32_t ub_phys_bytes() { return S().ub_alloc_bytes; }

// The AIC's Fixpipe into an AIV's UB (cube.h): that AIV's memory, shadow and buffers, checked
// against the AIC's clocks (the current core's), so an AIV read the write is not ordered with races.
int aiv_core(int sub) {
    const State& s = S();
    for (int k = 0; k < s.ncores; k++)
        if (s.kinds[k] == CK_AIV && (k == s.core ? s.sub : s.parked[k].sub) == sub) return k;
    return -1;
}

void ub_access_remote(int core, uint32_t id, uint32_t addr, const void* data, uint32_t bytes) {
    State& s = S();
    CoreState& other = s.parked[core];
    std::memcpy(other.ub.get() + addr, data, bytes);
    std::swap(s.shadow, other.shadow);
    std::swap(s.bufs, other.bufs);
    std::swap(s.ub_def, other.ub_def);
    std::swap(s.ub_undef_by, other.ub_undef_by);
    const CoreKind kind = s.kind;
    s.kind = CK_AIV;
    try {
        ub_access(id, addr, bytes, true);
    } catch (...) {
        s.kind = kind;
        std::swap(s.shadow, other.shadow);
        std::swap(s.bufs, other.bufs);
        std::swap(s.ub_def, other.ub_def);
        std::swap(s.ub_undef_by, other.ub_undef_by);
        throw;
    }
    s.kind = kind;
    std::swap(s.shadow, other.shadow);
    std::swap(s.bufs, other.bufs);
    std::swap(s.ub_def, other.ub_def);
    std::swap(s.ub_undef_by, other.ub_undef_by);
}

int buf_register(uint32_t start, uint32_t bytes, const char* kind, Loc loc) {
    State& s = S();
    s.bufs.push_back(UbBuf{start, bytes, kind, -1, loc.file, loc.line, s.buf_seq++});
    return static_cast<int>(s.bufs.size() - 1);
}

void ub_access(uint32_t id, uint32_t addr, uint32_t bytes, bool write, bool define) {
    State& s = S();
    if (!s.cfg.race || bytes == 0) return;
    if (write && define) std::memset(s.ub_def.data() + addr, kAllDefined, bytes);
    uint8_t P = s.instrs[id].pipe;
    for (uint32_t blk = addr / 32, last = (addr + bytes - 1) / 32; blk <= last; blk++) {
        Shadow& sh = s.shadow[blk];
        auto where = [&]() {
            return format("%s of %s", mem_range(blk * 32, blk * 32 + 32).c_str(), buf_name(buf_at(blk * 32)).c_str());
        };
        if (!write) {
            if (sh.w && !ordered(id, sh.w, RAW)) race_fault(id, sh.w, RAW, where);
            sh.r[P] = id;
        } else {
            for (int q = 0; q < NPIPE; q++)
                if (q != P && sh.r[q] && !ordered(id, sh.r[q], WAR)) race_fault(id, sh.r[q], WAR, where);
            if (sh.w && !ordered(id, sh.w, WAW)) race_fault(id, sh.w, WAW, where);
            sh.w = id;
            for (auto& r : sh.r) r = 0;
        }
    }
}

// ---------------------------------------------------------------- definedness
namespace {
// The root of the undefined data in UB byte `addr`: where it first came from.
uint32_t ub_root(uint32_t addr) {
    State& s = S();
    uint32_t by = s.ub_undef_by[addr];
    if (by) {
        auto it = s.instr_root.find(by);
        if (it != s.instr_root.end()) return it->second;
    }
    int b = buf_at(addr);
    s.undef_roots.push_back(format("UB 0x%x of %s, which nothing had written (uninitialised UB)", addr,
                                   buf_name(b).c_str()));
    return static_cast<uint32_t>(s.undef_roots.size() - 1);
}

// "UB 0x.. of <buffer>, left undefined by <instr> (the undefined data comes from <root>)".
std::string undef_story(uint32_t addr) {
    State& s = S();
    uint32_t by = s.ub_undef_by[addr];
    if (!by)
        return format("UB 0x%x of %s, which nothing has written (uninitialised UB)", addr,
                      buf_name(buf_at(addr)).c_str());
    std::string story = format("UB 0x%x of %s, left undefined by %s", addr, buf_name(buf_at(addr)).c_str(),
                               instr_desc(by).c_str());
    auto it = s.instr_root.find(by);
    if (it != s.instr_root.end()) story += format(" (the undefined data comes from %s)", s.undef_roots[it->second].c_str());
    return story;
}

GmRegion* region_at(const void* p) {
    int r = region_of(p);
    return r < 0 ? nullptr : &S().regions[r];
}

// The GM undefinedness shadow of `reg` (created on first use: all defined).
std::vector<uint32_t>& gm_shadow(const GmRegion& reg) {
    auto& v = S().gm_undef[reg.base];
    if (v.size() != reg.bytes) v.assign(reg.bytes, 0);
    return v;
}
}  // namespace

uint8_t* ub_def_map() {
    State& s = S();
    return s.cfg.race ? s.ub_def.data() : nullptr;
}

bool ub_written(uint32_t addr) {
    const State& s = S();
    return !s.cfg.race || s.ub_def[addr] == kAllDefined;
}

void ub_mark_undef(uint32_t instr, uint32_t addr, uint32_t bytes, uint32_t from, uint8_t bits) {
    State& s = S();
    if (!s.cfg.race) return;
    if (!s.instr_root.count(instr)) {
        if (from != kDefined) {
            s.instr_root.emplace(instr, ub_root(from));
        } else {
            s.undef_roots.push_back(format("the bytes %s leaves undefined", instr_desc(instr).c_str()));
            s.instr_root.emplace(instr, static_cast<uint32_t>(s.undef_roots.size() - 1));
        }
    }
    std::memset(s.ub_def.data() + addr, bits, bytes);
    for (uint32_t i = 0; i < bytes; i++) s.ub_undef_by[addr + i] = instr;
}

void ub_copy_def(uint32_t dst, uint32_t src, uint32_t bytes) {
    State& s = S();
    if (!s.cfg.race) return;
    std::memmove(s.ub_def.data() + dst, s.ub_def.data() + src, bytes);
    std::memmove(s.ub_undef_by.data() + dst, s.ub_undef_by.data() + src, bytes * sizeof(uint32_t));
}

void ub_use_scalar(uint32_t instr, uint32_t addr, uint32_t bytes, const char* api, Loc loc) {
    uint32_t u = ub_undef_at(addr, bytes);
    if (u == kDefined) return;
    soft_fault(F_MEMORY, loc, loc, -5,
               "%s reads an element that holds undefined data: %s; the scalar may decide a branch or form an "
               "address",
               instr_desc(instr).c_str(), undef_story(u).c_str());
}

void gm_from_ub(uint32_t instr, const void* gm, uint32_t ub_addr, uint64_t bytes, const char* api, Loc loc) {
    State& s = S();
    if (!s.cfg.race || bytes == 0) return;
    GmRegion* reg = region_at(gm);
    if (!reg) return;
    uint64_t off = static_cast<uint64_t>(static_cast<const uint8_t*>(gm) - reg->base);
    bool escapes = reg->name.rfind("output", 0) == 0;
    const uint8_t* def = s.ub_def.data() + ub_addr;
    if (escapes) {
        uint64_t i = 0;
        while (i < bytes && def[i] == kAllDefined) i++;
        if (i == bytes) return;
        uint64_t j = i;
        while (j < bytes && def[j] != kAllDefined) j++;
        soft_fault(F_MEMORY, loc, loc, -6,
                   "%s copies undefined data to %s bytes [%llu, %llu): %s", instr_desc(instr).c_str(),
                   reg->name.c_str(), (unsigned long long)(off + i), (unsigned long long)(off + j),
                   undef_story(ub_addr + static_cast<uint32_t>(i)).c_str());
        return;
    }
    bool any = false;
    for (uint64_t i = 0; i < bytes && !any; i++) any = def[i] != kAllDefined;
    if (!any && s.gm_undef.find(reg->base) == s.gm_undef.end()) return;
    std::vector<uint32_t>& g = gm_shadow(*reg);
    uint32_t root = 0;
    for (uint64_t i = 0; i < bytes; i++) {
        if (def[i] == kAllDefined) {
            g[off + i] = 0;
            continue;
        }
        if (!root) {
            s.undef_roots.push_back(format("%s bytes [%llu, ...) written by %s of block %lld from %s", reg->name.c_str(),
                                           (unsigned long long)(off + i), instr_desc(instr).c_str(),
                                           (long long)s.block_idx, undef_story(ub_addr + uint32_t(i)).c_str()));
            root = static_cast<uint32_t>(s.undef_roots.size() - 1);
        }
        g[off + i] = root;
    }
}

void ub_from_gm(uint32_t instr, uint32_t ub_addr, const void* gm, uint64_t bytes) {
    State& s = S();
    if (!s.cfg.race || bytes == 0) return;
    std::memset(s.ub_def.data() + ub_addr, kAllDefined, bytes);
    GmRegion* reg = region_at(gm);
    if (!reg) return;
    auto it = s.gm_undef.find(reg->base);
    if (it == s.gm_undef.end()) return;
    uint64_t off = static_cast<uint64_t>(static_cast<const uint8_t*>(gm) - reg->base);
    const std::vector<uint32_t>& g = gm_shadow(*reg);
    for (uint64_t i = 0; i < bytes && off + i < g.size(); i++) {
        if (!g[off + i]) continue;
        if (!s.instr_root.count(instr)) s.instr_root.emplace(instr, g[off + i]);
        s.ub_def[ub_addr + i] = 0;
        s.ub_undef_by[ub_addr + i] = instr;
    }
}

void gm_use_scalar(uint32_t instr, const void* gm, uint64_t bytes, const char* api, Loc loc) {
    State& s = S();
    GmRegion* reg = region_at(gm);
    if (!s.cfg.race || !reg) return;
    auto it = s.gm_undef.find(reg->base);
    if (it == s.gm_undef.end()) return;
    uint64_t off = static_cast<uint64_t>(static_cast<const uint8_t*>(gm) - reg->base);
    const std::vector<uint32_t>& g = gm_shadow(*reg);
    for (uint64_t i = 0; i < bytes && off + i < g.size(); i++)
        if (g[off + i]) {
            soft_fault(F_MEMORY, loc, loc, -5,
                       "%s reads an element that holds undefined data: %s; the scalar may decide a branch or form "
                       "an address",
                       instr_desc(instr).c_str(), s.undef_roots[g[off + i]].c_str());
            return;
        }
}

void gm_define(const void* gm, uint64_t bytes) {
    State& s = S();
    GmRegion* reg = region_at(gm);
    if (!s.cfg.race || !reg) return;
    auto it = s.gm_undef.find(reg->base);
    if (it == s.gm_undef.end()) return;
    uint64_t off = static_cast<uint64_t>(static_cast<const uint8_t*>(gm) - reg->base);
    std::vector<uint32_t>& g = gm_shadow(*reg);
    for (uint64_t i = 0; i < bytes && off + i < g.size(); i++) g[off + i] = 0;
}

// ---------------------------------------------------------------- GM
void gm_access(uint32_t id, const void* p, uint64_t bytes, bool write, const char* api, Loc loc) {
    State& s = S();
    const uint8_t* a = static_cast<const uint8_t*>(p);
    GmRegion* reg = nullptr;
    for (GmRegion& r : s.regions)
        if (a >= r.base && a < r.base + r.bytes + (r.bytes == 0)) reg = &r;
    if (!reg) {
        if (reinterpret_cast<uintptr_t>(a) < (1u << 20))
            fault(F_MEMORY, loc, "%s: GM access through a null pointer (an absent optional input?)", api);
        fault(F_MEMORY, loc, "%s: GM address %p (%llu B) is not inside any tensor the harness allocated", api, p,
              (unsigned long long)bytes);
    }
    uint64_t off = static_cast<uint64_t>(a - reg->base);
    if (TraceRec* r = traced(id); r && r->gm == kTraceNone16) {
        r->gm = static_cast<uint16_t>(reg - s.regions.data());
        r->gm_off = static_cast<uint32_t>(off);
    }
    if (off + bytes > reg->bytes)
        fault(F_MEMORY, loc, "%s: GM %s [%llu, %llu) B is out of bounds of %s (%llu B): %llu B past the end", api,
              write ? "write" : "read", (unsigned long long)off, (unsigned long long)(off + bytes), reg->name.c_str(),
              (unsigned long long)reg->bytes, (unsigned long long)(off + bytes - reg->bytes));
    if (!s.cfg.race || bytes == 0) return;
    if (write) {
        if (reg->owner.empty()) reg->owner.assign(reg->bytes, 0);
        uint8_t me = static_cast<uint8_t>(s.block_idx % 255 + 1);
        uint8_t* o = reg->owner.data() + off;
        bool overlap = false;
        for (uint64_t i = 0; i < bytes; i++) {
            if (!overlap && o[i] != 0 && o[i] != me) {
                overlap = true;
                soft_fault(F_RACE, loc, loc, -3,
                           "%s: GM bytes [%llu, %llu) of %s are written by block %lld and were already written by "
                           "block %d (cores would race on them)",
                           api, (unsigned long long)(off + i), (unsigned long long)(off + bytes), reg->name.c_str(),
                           (long long)s.block_idx, o[i] - 1);
            }
            o[i] = me;
        }
    }
    uintptr_t lo = reinterpret_cast<uintptr_t>(a), hi = lo + bytes;
    gm_split(lo);
    gm_split(hi);
    auto& m = s.gm;
    auto it = m.lower_bound(lo);
    uintptr_t pos = lo;
    const int P = s.core * NPIPE + s.instrs[id].pipe;  // readers are kept per (core, pipe)
    auto where = [&](uintptr_t x, uintptr_t y) {
        return format("GM bytes [%llu, %llu) of %s", (unsigned long long)(x - reinterpret_cast<uintptr_t>(reg->base)),
                      (unsigned long long)(y - reinterpret_cast<uintptr_t>(reg->base)), reg->name.c_str());
    };
    while (pos < hi) {
        if (it == m.end() || it->first > pos) {
            uintptr_t e = (it == m.end() || it->first > hi) ? hi : it->first;
            it = m.emplace_hint(it, pos, GmSeg{e, 0, {}});
        }
        GmSeg& g = it->second;
        if (!write) {
            if (g.w && !ordered(id, g.w, RAW)) race_fault(id, g.w, RAW, [&] { return where(it->first, g.end); });
            g.r[P] = id;
        } else {
            for (int q = 0; q < NCLK; q++)
                if (q != P && g.r[q] && !ordered(id, g.r[q], WAR))
                    race_fault(id, g.r[q], WAR, [&] { return where(it->first, g.end); });
            if (g.w && !ordered(id, g.w, WAW)) race_fault(id, g.w, WAW, [&] { return where(it->first, g.end); });
            g.w = id;
            for (auto& r : g.r) r = 0;
        }
        pos = g.end;
        ++it;
    }
    // Merge equal neighbours so the map stays proportional to the number of distinct accesses.
    auto first = m.lower_bound(lo);
    if (first != m.begin()) --first;
    while (first != m.end() && first->first < hi) {
        auto next = std::next(first);
        if (next == m.end()) break;
        GmSeg& x = first->second;
        const GmSeg& y = next->second;
        if (x.end == next->first && x.w == y.w && std::memcmp(x.r, y.r, sizeof x.r) == 0) {
            x.end = y.end;
            m.erase(next);
        } else {
            first = next;
        }
    }
}

// ---------------------------------------------------------------- RegBase vector functions
void vf_enter(const char* form, Loc loc) {
    State& s = S();
    if (s.cfg.npu_arch != 3510)
        fault(F_UNSUPPORTED, loc, "%s: RegBase vector functions (Reg API) need arch 3510 (ascend950); this is arch %d",
              form, s.cfg.npu_arch);
    if (s.vf_epoch)
        fault(F_UNSUPPORTED, loc, "%s inside the vector function entered by %s at %s:%d: VFs do not nest", form,
              s.vf_form, s.vf_loc.file, s.vf_loc.line);
    s.vf_epoch = ++s.vf_seq;
    s.vf_bar = ++s.vf_bar_seq;
    s.vf_form = form;
    s.vf_loc = loc;
    if (s.cfg.trace) {
        s.trace.push_back(blank_rec(P_V, TK_VF, form, loc));
        s.vf_trace_at = s.trace.size() - 1;
        s.trace_instr = kTraceNone32;  // annotations never apply to the launch record
    }
    if (s.vf_store_bar.size() != s.ub_alloc_bytes) {
        s.vf_store_bar.assign(s.ub_alloc_bytes, 0);
        s.vf_store_instr.assign(s.ub_alloc_bytes, 0);
    }
}

namespace {
// Bodies of up to this many distinct VFs per block are kept for comparison (ping-pong buffers
// make two alternating bodies; a kernel with several VFs per tile makes a few more).
constexpr size_t kVfBodiesKept = 16;

bool same_vf(const std::vector<TraceRec>& t, size_t a, size_t b) {
    const TraceRec &x = t[a], &y = t[b];
    if (x.api != y.api || x.loc != y.loc || x.core != y.core || x.key != y.key) return false;
    return std::memcmp(&t[a + 1], &t[b + 1], sizeof(TraceRec) * x.key) == 0;
}
}  // namespace

void vf_exit() {
    State& s = S();
    s.vf_epoch = 0;
    if (!s.cfg.trace || s.vf_trace_at == SIZE_MAX) return;
    const size_t at = s.vf_trace_at;
    s.vf_trace_at = SIZE_MAX;
    s.trace[at].key = static_cast<uint32_t>(s.trace.size() - at - 1);
    s.trace[at].gm_off = 0;
    for (auto it = s.vf_bodies.rbegin(); it != s.vf_bodies.rend(); ++it) {
        if (!same_vf(s.trace, *it, at)) continue;
        s.trace.resize(at + 1);  // the body is that of the VF at *it
        s.trace[at].gm_off = static_cast<uint32_t>(at - *it);
        s.trace_instr = kTraceNone32;
        return;
    }
    if (s.vf_bodies.size() == kVfBodiesKept) s.vf_bodies.erase(s.vf_bodies.begin());
    s.vf_bodies.push_back(at);
}
uint32_t vf_epoch() { return S().vf_epoch; }

void vf_require(const char* api, Loc loc) {
    if (!S().vf_epoch)
        fault(F_UNSUPPORTED, loc,
              "Reg::%s outside a vector function: call it in a __simd_vf__ function launched with asc_vf_call<F>(...) "
              "or inside __VEC_SCOPE__ { ... }",
              api);
}

uint32_t reg_issue(const char* api, Loc loc, uint32_t dist) {
    vf_require(api, loc);
    State& s = S();
    s.reg_issuing = true;
    uint32_t id = issue(P_V, api, loc);
    s.reg_issuing = false;
    if (TraceRec* r = traced(id)) r->key = kTraceRegKey | dist;
    return id;
}

void vf_store(uint32_t instr, uint32_t addr, uint32_t bytes) {
    State& s = S();
    for (uint32_t i = 0; i < bytes; i++) {
        s.vf_store_bar[addr + i] = s.vf_bar;
        s.vf_store_instr[addr + i] = instr;
    }
}

void vf_load(uint32_t instr, uint32_t addr, uint32_t bytes, Loc loc) {
    State& s = S();
    for (uint32_t i = 0; i < bytes; i++) {
        if (s.vf_store_bar[addr + i] != s.vf_bar) continue;
        uint32_t st = s.vf_store_instr[addr + i];
        const Instr& w = s.instrs[st];
        if (fault_seen(F_RACE, Loc(w.file, w.line), -4)) return;
        soft_fault(F_RACE, loc, Loc(w.file, w.line), -4,
                   "read-after-write race on UB [0x%x, 0x%x) of %s inside the vector function entered by %s at %s:%d: "
                   "%s reloads it after %s stored it in the same VF, with no LocalMemBar<MemType::VEC_STORE, "
                   "MemType::VEC_LOAD>() between them (a VF's loads may overtake its stores)",
                   addr + i, addr + bytes, buf_name(buf_at(addr)).c_str(), s.vf_form, s.vf_loc.file, s.vf_loc.line,
                   instr_desc(instr).c_str(), instr_desc(st).c_str());
        return;
    }
}

void vf_store_load_bar() {
    State& s = S();
    s.vf_bar = ++s.vf_bar_seq;
}

// ---------------------------------------------------------------- sync
namespace {
EvPipes checked_event(int event, int id, const char* api, Loc loc) {
    EvPipes e = event_pipes(event);
    if (e.src < 0) fault(F_UNSUPPORTED, loc, "%s: event %d is not modelled (no such pipe pair on AIC or AIV)", api, event);
    if (!core_has(S().kind, e.src) || !core_has(S().kind, e.dst))
        fault(F_UNSUPPORTED, loc, "%s<HardEvent::%s> on the %s: it has no %s pipe (%s)", api, e.name, core_name(S().core),
              kPipeName[core_has(S().kind, e.src) ? e.dst : e.src],
              S().kind == CK_AIV ? "a cube-side event: the AIV has S, V, MTE2 and MTE3"
                                 : "a vector-side event: the AIC has S, MTE1, MTE2, M and FIX");
    if (id < 0 || id >= kIds)
        fault(F_SYNC, loc, "%s<HardEvent::%s>(%d): event id out of range 0-7", api, e.name, id);
    if (id >= kManualIds)
        fault(F_SYNC, loc, "%s<HardEvent::%s>(%d): event ids 6 and 7 are reserved (7 is used by TPipe); manual code "
                           "may use 0-5", api, e.name, id);
    return e;
}
}  // namespace

namespace {
// Shared-id mode: the id number is one physical flag for every event type, so the rules for one
// event and id apply across types: no other type may hold the number pending, and the last other
// type's WaitFlag on it must happen before this SetFlag (else both sets may be live at once).
void check_shared_id(int event, int id, const EvPipes& e, Loc loc) {
    State& s = S();
    for (int other = 0; other < kEvents; other++) {
        if (other == event) continue;
        const FlagSlot& g = s.flags[other][id];
        if (!g.set && !g.wait_clock) continue;  // never used
        EvPipes o = event_pipes(other);
        long detail = 3000 + other * kEvents * kIds + event * kIds + id;
        if (g.set) {
            soft_fault(F_SYNC, loc, loc, detail,
                       "SetFlag<HardEvent::%s>(%d) while id %d is live for HardEvent::%s (set at %s:%d, not yet waited): "
                       "with event ids shared by every event type (shared_event_ids) the two sets are one flag. Give "
                       "the two event types different id numbers, or take the ids from TPipe::AllocEventID",
                       e.name, id, id, o.name, g.file, g.line);
            continue;
        }
        bool ordered = o.dst == P_S || s.vc[e.src].c[s.core * NPIPE + o.dst] >= g.wait_clock;
        if (!ordered)
            soft_fault(F_SYNC, loc, loc, detail,
                       "SetFlag<HardEvent::%s>(%d) reuses id %d of HardEvent::%s (set at %s:%d, waited at %s:%d on the %s "
                       "pipe) with nothing ordering that WaitFlag before this SetFlag on the %s pipe: with event ids "
                       "shared by every event type (shared_event_ids) the %s pipe may set the flag while the %s "
                       "one is still live. Give the two event types different id numbers",
                       e.name, id, id, o.name, g.file, g.line, g.wait_file, g.wait_line, kPipeName[o.dst],
                       kPipeName[e.src], kPipeName[e.src], o.name);
    }
}
}  // namespace

void set_flag(int event, int id, Loc loc) {
    EvPipes e = checked_event(event, id, "SetFlag", loc);
    State& s = S();
    trace_sync(issue(static_cast<Pipe>(e.src), "SetFlag", loc), TK_SET, uint32_t(event * kIds + id));
    FlagSlot& f = s.flags[event][id];
    long detail = event * kIds + id;
    if (f.set)
        soft_fault(F_SYNC, loc, loc, 1000 + detail,
                   "SetFlag<HardEvent::%s>(%d) while the flag set at %s:%d is still pending (no WaitFlag in between): "
                   "undefined on hardware",
                   e.name, id, f.file, f.line);
    // Reusing the id needs the previous WaitFlag (on the destination pipe) to happen before this
    // SetFlag (on the source pipe); program order alone does not order two pipes. Without it the
    // source pipe may set the flag again before the destination consumed the first set: the two
    // merge and a later WaitFlag hangs (reference-ops.md s4.1 "reuse an ID only after its Wait").
    // A WaitFlag on the scalar pipe (V_S, MTE2_S, ...) blocks the scalar unit, which issues every
    // later instruction, this SetFlag included, only after it returned (CANN's FetchEventID(V_S)
    // Set/Wait idiom reuses one id so).
    bool implicit = e.src == e.dst || e.dst == P_S || (!s.cfg.strict && e.src == P_S);
    if (!f.set && f.wait_clock && !implicit && s.vc[e.src].c[s.core * NPIPE + e.dst] < f.wait_clock)
        soft_fault(F_SYNC, loc, loc, 2000 + detail,
                   "SetFlag<HardEvent::%s>(%d) reuses event id %d, whose previous SetFlag at %s:%d was waited by "
                   "WaitFlag at %s:%d on the %s pipe, but nothing orders that WaitFlag before this SetFlag on the %s "
                   "pipe: the %s pipe may set the flag again before %s consumed it (a lost set, then a hang). Use "
                   "another event id, or make %s signal %s after its WaitFlag (e.g. "
                   "SetFlag/WaitFlag<HardEvent::%s_%s>)",
                   e.name, id, id, f.file, f.line, f.wait_file, f.wait_line, kPipeName[e.dst], kPipeName[e.src],
                   kPipeName[e.src], kPipeName[e.dst], kPipeName[e.dst], kPipeName[e.src], kPipeName[e.dst],
                   kPipeName[e.src]);
    if (s.cfg.shared_ids) check_shared_id(event, id, e, loc);
    f.set = true;
    f.snap = s.vc[e.src];
    f.file = loc.file;
    f.line = loc.line;
    s.counters.pipe[e.src].set_flags++;
}

void wait_flag(int event, int id, Loc loc) {
    EvPipes e = checked_event(event, id, "WaitFlag", loc);
    State& s = S();
    trace_sync(issue(static_cast<Pipe>(e.dst), "WaitFlag", loc), TK_WAIT, uint32_t(event * kIds + id));
    FlagSlot& f = s.flags[event][id];
    if (!f.set) {
        soft_fault(F_DEADLOCK, loc, loc, event * kIds + id,
                   "WaitFlag<HardEvent::%s>(%d) with no SetFlag<HardEvent::%s>(%d) pending: the %s pipe would wait "
                   "forever",
                   e.name, id, e.name, id, kPipeName[e.dst]);
        return;  // (the emulation goes on as if the wait had nothing to wait for)
    }
    join_into(e.dst, f.snap);
    f.set = false;
    f.wait_clock = s.vc[e.dst].c[s.core * NPIPE + e.dst];
    f.wait_file = loc.file;
    f.wait_line = loc.line;
    s.counters.pipe[e.dst].wait_flags++;
}

int pipe_of(int pipe_t_value) {
    switch (pipe_t_value) {
        case PIPE_S: return P_S;
        case PIPE_V: return P_V;
        case PIPE_MTE2: return P_MTE2;
        case PIPE_MTE3: return P_MTE3;
        case PIPE_MTE1: return P_MTE1;
        case PIPE_M: return P_M;
        case PIPE_FIX: return P_FIX;
        default: return -1;
    }
}
bool core_has_pipe(int pipe) { return core_has(S().kind, pipe); }

void pipe_barrier(int pipe, Loc loc) {
    State& s = S();
    const int base = s.core * NPIPE;
    switch (pipe) {
        case PIPE_S: fault(F_UNSUPPORTED, loc, "PipeBarrier<PIPE_S> is not supported (use SetFlag/WaitFlag)");
        case PIPE_ALL: {
            trace_sync(issue(P_S, "PipeBarrier<PIPE_ALL>", loc), TK_BARRIER_ALL, uint32_t(pipe));
            Clock all{};
            for (int p = 0; p < NPIPE; p++)
                for (int q = 0; q < NCLK; q++)
                    if (all.c[q] < s.vc[p].c[q]) all.c[q] = s.vc[p].c[q];
            for (int p = 0; p < NPIPE; p++) {
                s.vc[p] = all;
                s.self_done[p] = all.c[base + p];
                if (core_has(s.kind, p)) s.counters.pipe[p].barriers++;
            }
            return;
        }
        default: {
            int p = pipe_of(pipe);
            // A cube pipe on an AIV (or V/MTE3 on an AIC): nothing to order on this core.
            if (p < 0 || !core_has(s.kind, p)) return;
            trace_sync(issue(static_cast<Pipe>(p), "PipeBarrier", loc), TK_BARRIER, uint32_t(pipe));
            s.self_done[p] = s.vc[p].c[base + p];
            s.counters.pipe[p].barriers++;
            return;
        }
    }
}

Clock snapshot(Pipe p) { return S().vc[p]; }
void join(Pipe p, const Clock& c) { join_into(p, c); }

namespace {
// The ids TPipe has handed out for ``event``: in shared-id mode those of every event type.
unsigned taken_ids(int event) {
    State& s = S();
    if (!s.cfg.shared_ids) return s.event_alloc[event];
    unsigned all = 0;
    for (int e = 0; e < kEvents; e++) all |= s.event_alloc[e];
    return all;
}
}  // namespace

int alloc_event_id(int event, Loc loc) {
    State& s = S();
    for (int i = 0; i < kManualIds; i++)
        if (!(taken_ids(event) & (1u << i))) {
            s.event_alloc[event] |= static_cast<uint8_t>(1u << i);
            return i;
        }
    fault(F_SYNC, loc, "AllocEventID<HardEvent::%s>: all %d ids are allocated", event_pipes(event).name, kManualIds);
}
void release_event_id(int event, int id, Loc loc) {
    if (id < 0 || id >= kIds) fault(F_SYNC, loc, "ReleaseEventID: id %d out of range", id);
    S().event_alloc[event] &= static_cast<uint8_t>(~(1u << id));
}
int fetch_event_id(int event) {
    for (int i = 0; i < kManualIds; i++)
        if (!(taken_ids(event) & (1u << i))) return i;
    return 0;
}

// TPipe hands a library call the lowest id it has not allocated; manual ids are not allocated, so a
// kernel that holds that id of the same event pending across the call has two SetFlags on one flag
// (undefined on hardware, as set_flag reports for the kernel's own). The call's own pair is not
// modelled as an ordering: only the clash is reported.
void library_flag(int event, const char* api, Loc loc) {
    const int id = fetch_event_id(event);
    const FlagSlot& f = S().flags[event][id];
    if (!f.set) return;
    EvPipes e = event_pipes(event);
    soft_fault(F_SYNC, loc, loc, 5000000 + event * kIds + id,
               "%s sets and waits HardEvent::%s(%d) itself (TPipe::FetchEventID: the lowest id TPipe has not "
               "allocated) while the kernel's SetFlag<HardEvent::%s>(%d) at %s:%d is still pending: two SetFlags on "
               "one flag, undefined on hardware. Keep manual %s ids off %d across the call, or take them from "
               "TPipe::AllocEventID",
               api, e.name, id, e.name, id, f.file, f.line, e.name, id);
}

}  // namespace dslc
