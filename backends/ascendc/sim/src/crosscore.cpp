// The cores of a block of a __mix__ kernel and the cross-core flags between them.
//
// A block of `__mix__(1, 2)` is one AIC and two AIVs (asc-devkit docs 基础API/工具接口/系统资源与变量/
// GetBlockIdx.md, GetTaskRatio.md, GetSubBlockIdx(ISASI).md). Each core runs the kernel entry in a
// thread of its own, but only one runs at a time and the hand-off is explicit: a core runs until
// it waits for a flag whose counter is 0 (or ends); then the next ready core in the order AIC,
// AIV0, AIV1 runs. So reports and traces reproduce. With Config::interleave_seed the next core is
// drawn at every cross-core flag instead, and a core's consecutive Sets take effect in a random
// order, which the hardware does not guarantee (CrossCoreSetFlag(ISASI).md 约束说明).
//
// Flags (CrossCoreSetFlag(ISASI).md, CrossCoreWaitFlag(ISASI).md, 关键特性说明.md): every core has
// its own counters; a Set increments the counter of the core(s) its mode addresses once every
// participant has set; a Wait blocks while its counter is 0, then decrements it. A counter holds at
// most 15. Mode 1: the AIVs of the block (increments every AIV's counter when all AIVs have set);
// mode 2: the AIC sets every AIV's counter, all AIVs together set the AIC's; mode 4 (arch 3510,
// __mix__(1, 2)): AIC and one AIV, the AIC naming AIV1 as id + 16 and seeing AIV1's Sets at id + 16.
// Mode 0 (every AIC or AIV of the launch) needs the blocks to run together: not modelled.
//
// Happens-before: a Set snapshots its pipe's clock (it fires when the work issued before it on
// that pipe is done); the Wait that consumes the count joins it: into every pipe of the core on
// arch 2201, where the Wait blocks all pipes, into its `pipe` on 3510.
#include <algorithm>
#include <cstdarg>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kernel_operator.h"
#include "runtime.h"

namespace dslc {

namespace {

constexpr int kCounters = 32;    // ids 0-15 (modes 0-2); the AIC's 16-26 see AIV1's mode-4 Sets
constexpr int kCounterMax = 15;  // "每一个计数器计数范围为0-15"

struct Pending {
    Clock clock;
    Loc loc;
    int setter;
    // The trace records of the Set(s) this stands for (a mode-1/2 AIV Set: every AIV's), for the
    // performance model's cross-core edges; kTraceNone32 where none.
    uint32_t rec[2] = {kTraceNone32, kTraceNone32};
};

constexpr uint32_t kCrossKey = 1u << 21;  // trace.py CROSS_KEY

// The trace index of the record just issued (kTraceNone32 without a trace).
uint32_t last_record() {
    const auto& t = trace_records();
    return config().trace && !t.empty() ? static_cast<uint32_t>(t.size() - 1) : kTraceNone32;
}

struct Counter {
    std::deque<Pending> q;
    Loc last{nullptr, 0};
    int last_setter = -1;
};

enum Status { READY, WAITING, DONE };

struct CoreCtl {
    Status st = READY;
    int counter = -1;  // the counter a WAITING core waits on
    int flag = 0;      // the flagId it passed
    Loc wait{nullptr, 0};
    std::vector<std::pair<int, Pending>> deferred;  // (mode << 8 | flag, Set)  // interleaving: Sets not yet applied
};

struct Cross {
    int aic = 0, aiv = 0;  // __mix__(aic, aiv); 0, 0: AIV-only
    int ncores = 1;
    CoreKind kinds[kMaxCores] = {CK_AIV, CK_AIV, CK_AIV};
    int subs[kMaxCores] = {0, 0, 0};
    Counter ctr[kMaxCores][kCounters];
    std::deque<Pending> tally1[16][2], tally2[16][2];  // mode 1 / mode 2 AIV Sets not yet matched by every AIV
    CoreCtl ctl[kMaxCores];
    std::mutex mu;
    std::condition_variable cv;
    int running = -1;
    bool abort = false;
    bool has_fault = false;
    SimFault fault;
    Loc reserved{nullptr, 0};  // the first flag of ids 11-14 (SyncAll's)
    std::mt19937_64 rng;
};

Cross& X() {
    static Cross x;
    return x;
}

struct Abort {};  // unwinds a waiting core when the block stops

const char* pipe_name(int pipe) {
    switch (pipe) {
        case PIPE_S: return "PIPE_S";
        case PIPE_V: return "PIPE_V";
        case PIPE_M: return "PIPE_M";
        case PIPE_MTE1: return "PIPE_MTE1";
        case PIPE_MTE2: return "PIPE_MTE2";
        case PIPE_MTE3: return "PIPE_MTE3";
        case PIPE_ALL: return "PIPE_ALL";
        case PIPE_FIX: return "PIPE_FIX";
        default: return "PIPE_?";
    }
}

std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
    char buf[2048];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof buf, f, ap);
    va_end(ap);
    return buf;
}

int aiv_core(int sub) { return X().aic + sub; }  // core index of AIV `sub`

std::string where(Loc l) { return fmt("%s:%d", l.file ? l.file : "?", l.line); }

// The core that waits on counter `c` of core `core`, as a message fragment.
std::string counter_name(int core, int c) { return fmt("counter %d of the %s", c, core_label(core)); }

void require_mix(const char* api, Loc loc) {
    if (!mix_kernel())
        fault(F_UNSUPPORTED, loc,
              "%s in a kernel that is not __mix__: an AIV-only or AIC-only kernel has no cross-core scheduler, so "
              "the flag would never arrive (CrossCoreSetFlag(ISASI).md: declare the entry __mix__(1, 2) or "
              "__mix__(1, 1))",
              api);
}

// ---------------------------------------------------------------- scheduling
// Called with the lock held by the running core `me` (its status already set): picks the next
// core and lets it run. Deadlock: no core can run although some wait.
void hand_off(int me, std::unique_lock<std::mutex>& lk) {
    Cross& x = X();
    int next = -1;
    if (x.abort) {
        for (int k = 0; k < x.ncores && next < 0; k++)
            if (x.ctl[k].st != DONE) next = k;
    } else {
        std::vector<int> ready;
        for (int k = 1; k <= x.ncores; k++) {
            int c = (me + k) % x.ncores;
            if (x.ctl[c].st == READY) ready.push_back(c);
        }
        if (!ready.empty()) next = config().interleave_seed ? ready[x.rng() % ready.size()] : ready[0];
    }
    if (next < 0 && !x.abort) {
        bool waiting = false;
        for (int k = 0; k < x.ncores; k++) waiting = waiting || x.ctl[k].st == WAITING;
        if (waiting) {
            // Every live core waits: name each waiter, its flag and counter, and who set it last.
            // The report's line: a waiter whose core holds Sets on another id (a Wait on the wrong id?),
            // else the first waiter in the order AIC, AIV0, AIV1.
            int first = -1, mismatch = -1;
            std::string who;
            for (int k = 0; k < x.ncores; k++) {
                const CoreCtl& c = x.ctl[k];
                if (c.st == DONE) {
                    who += fmt("; the %s has ended", core_label(k));
                    continue;
                }
                if (first < 0) first = k;
                const Counter& ctr = x.ctr[k][c.counter];
                std::string state = ctr.last_setter < 0 ? "never set"
                                                        : fmt("last set by the %s at %s", core_label(ctr.last_setter),
                                                              where(ctr.last).c_str());
                // A mode 1/2 Set of one AIV that waits for the other AIV's.
                for (int mode = 1; mode <= 2 && c.counter < 16; mode++)
                    for (int s = 0; s < x.aiv; s++) {
                        const auto& t = (mode == 1 ? x.tally1 : x.tally2)[c.counter][s];
                        if (!t.empty() && (mode == 1) == (x.kinds[k] == CK_AIV))
                            state += fmt("; the %s's CrossCoreSetFlag<%d>(%d) at %s waits for the other AIV's",
                                         core_label(t.front().setter), mode, c.counter, where(t.front().loc).c_str());
                    }
                for (int o = 0; o < kCounters; o++)
                    if (o != c.counter && !x.ctr[k][o].q.empty()) {
                        state += fmt("; but counter %d holds %d Set(s), the last by the %s at %s: a Wait on the wrong id?",
                                     o, static_cast<int>(x.ctr[k][o].q.size()), core_label(x.ctr[k][o].last_setter),
                                     where(x.ctr[k][o].last).c_str());
                        if (mismatch < 0) mismatch = k;
                    }
                who += fmt("; the %s waits in CrossCoreWaitFlag(%d) at %s (%s is 0, %s)", core_label(k), c.flag,
                           where(c.wait).c_str(), counter_name(k, c.counter).c_str(), state.c_str());
            }
            if (mismatch >= 0) first = mismatch;
            core_switch(first);
            try {
                record_fault(F_DEADLOCK, x.ctl[first].wait, 7000 + x.ctl[first].flag,
                             fmt("cross-core deadlock: CrossCoreWaitFlag(%d) on the %s waits forever: every live "
                                 "core of the block is waiting%s",
                                 x.ctl[first].flag, core_label(first), who.c_str()));
            } catch (const SimFault&) {
            }
            x.abort = true;
            next = first;
        }
    }
    x.running = next;  // -1: every core is done
    x.cv.notify_all();
}

// Blocks core `me` until it may run again; then its state is current. Throws Abort when the block stops.
void await_turn(int me, std::unique_lock<std::mutex>& lk) {
    Cross& x = X();
    x.cv.wait(lk, [&] { return x.running == me; });
    core_switch(me);
    if (x.abort) throw Abort{};
}

// Interleaving: at a cross-core flag, maybe let another ready core run first.
void maybe_yield(int me) {
    Cross& x = X();
    if (!config().interleave_seed || x.ncores < 2 || x.rng() % 2 == 0) return;
    std::unique_lock<std::mutex> lk(x.mu);
    hand_off(me, lk);
    await_turn(me, lk);
}

// ---------------------------------------------------------------- counters
void bump(int core, int c, const Pending& p, const char* api, int flag) {
    Cross& x = X();
    Counter& ctr = x.ctr[core][c];
    if (static_cast<int>(ctr.q.size()) >= kCounterMax)
        fault(F_SYNC, p.loc,
              "%s(%d) overflows %s: it already holds %d Sets nobody has waited for (a counter counts 0-15; the "
              "hardware stops the kernel)",
              api, flag, counter_name(core, c).c_str(), kCounterMax);
    ctr.q.push_back(p);
    ctr.last = p.loc;
    ctr.last_setter = p.setter;
    if (x.ctl[core].st == WAITING && x.ctl[core].counter == c) x.ctl[core].st = READY;
}

// Mode 1 / 2 AIV Sets: the target counter(s) count once every AIV has set.
void tally(std::deque<Pending> (&t)[2], int sub, const Pending& p, int mode, int flag) {
    Cross& x = X();
    if (static_cast<int>(t[sub].size()) >= kCounterMax)
        fault(F_SYNC, p.loc, "CrossCoreSetFlag<%d>(%d): the %s has %d Sets the other AIV has not matched (a counter "
                             "counts 0-15)", mode, flag, core_label(p.setter), kCounterMax);
    t[sub].push_back(p);
    for (int s = 0; s < x.aiv; s++)
        if (t[s].empty()) return;
    Pending all = t[0].front();
    for (int s = 0; s < x.aiv; s++) {
        for (int q = 0; q < NCLK; q++) all.clock.c[q] = std::max(all.clock.c[q], t[s].front().clock.c[q]);
        if (s < 2) all.rec[s] = t[s].front().rec[0];
        t[s].pop_front();
    }
    if (mode == 2) {
        bump(0, flag, all, "CrossCoreSetFlag<2>", flag);
    } else {
        for (int s = 0; s < x.aiv; s++) bump(aiv_core(s), flag, all, "CrossCoreSetFlag<1>", flag);
    }
}

void apply_set(int me, int mode, int flag, const Pending& p) {
    Cross& x = X();
    if (x.kinds[me] == CK_AIC) {
        if (mode == 2) {
            for (int s = 0; s < x.aiv; s++) bump(aiv_core(s), flag, p, "CrossCoreSetFlag<2>", flag);
        } else {  // mode 4: ids 16-26 address AIV1
            bump(aiv_core(flag >= 16 ? 1 : 0), flag & 15, p, "CrossCoreSetFlag<4>", flag);
        }
    } else {
        int sub = x.subs[me];
        if (mode == 1) tally(x.tally1[flag], sub, p, 1, flag);
        else if (mode == 2) tally(x.tally2[flag], sub, p, 2, flag);
        else bump(0, flag + 16 * sub, p, "CrossCoreSetFlag<4>", flag);
    }
}

// Interleaving: the deferred Sets of `me` take effect, in a random order, with yields between.
void flush_sets(int me) {
    Cross& x = X();
    auto& d = x.ctl[me].deferred;
    std::shuffle(d.begin(), d.end(), x.rng);
    while (!d.empty()) {
        auto item = d.back();
        d.pop_back();
        apply_set(me, item.first >> 8, item.first & 0xff, item.second);
        maybe_yield(me);
    }
}

void check_flag_range(const char* api, int mode, int flag, bool wait, Loc loc) {
    Cross& x = X();
    const bool aic = x.kinds[core_current()] == CK_AIC;
    if (mode == 4) {
        bool ok = (flag >= 0 && flag <= 10) || (aic && flag >= 16 && flag <= 26);
        if (!ok)
            fault(F_SYNC, loc,
                  "%s<4>(%d) on the %s: mode 4 flag ids are 0-10%s (CrossCoreSetFlag(ISASI).md flagId取值范围)", api,
                  flag, core_label(core_current()), aic ? " (AIV0) and 16-26 (AIV1)" : "");
    } else if (flag < 0 || flag > 15) {
        fault(F_SYNC, loc,
              "%s%s(%d): flag ids are 0-15 (the hardware keeps the low 4 bits, %d: another flag)%s", api,
              wait ? "" : fmt("<%d>", mode).c_str(), flag, flag & 15,
              flag >= 16 && flag <= 26 ? "; id + 16 addresses AIV1 only in mode 4" : "");
    }
    if (flag >= 11 && flag <= 14 && !x.reserved.file) x.reserved = loc;
}

}  // namespace

// ---------------------------------------------------------------- kernel type and core views
int mix_register(int aic, int aiv) {
    X().aic = aic;
    X().aiv = aiv;
    return 0;
}
bool mix_kernel() { return X().aic + X().aiv > 0; }

int64_t view_block_idx() {
    Cross& x = X();
    if (core_kind() == CK_AIV && x.aiv == 2) return block_idx() * 2 + core_sub();
    return block_idx();
}
int64_t view_block_num() { return block_num(); }
int64_t view_task_ratio() { return core_kind() == CK_AIV && X().aiv == 2 ? 2 : 1; }
int64_t view_sub_block_idx() { return core_kind() == CK_AIV ? core_sub() : 0; }
int64_t view_sub_block_num() { return core_kind() == CK_AIV && X().aiv == 2 ? 2 : 1; }

// ---------------------------------------------------------------- flags
void cross_set(int mode, int pipe, int flag, Loc loc) {
    require_mix("CrossCoreSetFlag", loc);
    Cross& x = X();
    const int me = core_current();
    if (mode == 0)
        fault(F_UNSUPPORTED, loc,
              "CrossCoreSetFlag<0>: mode 0 synchronises every AIC (or AIV) of the launch, but the emulator runs "
              "the blocks one after another");
    if (mode != 1 && mode != 2 && mode != 4)
        fault(F_SYNC, loc, "CrossCoreSetFlag<%d>: the modes are 0, 1, 2 and 4", mode);
    if (mode == 4 && (npu_arch() != 3510 || x.aiv != 2))
        fault(F_UNSUPPORTED, loc, "CrossCoreSetFlag<4>: mode 4 needs arch 3510 and a __mix__(1, 2) kernel (this is "
                                  "arch %d, __mix__(%d, %d))", npu_arch(), x.aic, x.aiv);
    if (mode == 1 && x.kinds[me] == CK_AIC)
        fault(F_SYNC, loc, "CrossCoreSetFlag<1> on the AIC: mode 1 synchronises the AIVs of the block");
    if (pipe == PIPE_ALL || (pipe == PIPE_S && mode != 4))
        fault(F_SYNC, loc, "CrossCoreSetFlag<%d, %s>: the pipe cannot be PIPE_ALL%s", mode, pipe_name(pipe),
              mode != 4 ? " or PIPE_S (modes 0-2)" : "");
    int p = pipe_of(pipe);
    if (p < 0 || !core_has_pipe(p))
        fault(F_UNSUPPORTED, loc, "CrossCoreSetFlag<%d, %s> on the %s: it has no such pipe", mode, pipe_name(pipe),
              core_label(me));
    check_flag_range("CrossCoreSetFlag", mode, flag, false, loc);
    uint32_t id = issue(static_cast<Pipe>(p), "CrossCoreSetFlag", loc);
    trace_sync(id, TK_SET, kCrossKey | static_cast<uint32_t>(mode << 8) | static_cast<uint32_t>(flag));
    Pending pend{snapshot(static_cast<Pipe>(p)), loc, me};
    pend.rec[0] = last_record();
    if (config().interleave_seed) {  // held back with the core's other pending Sets, or all applied now
        x.ctl[me].deferred.push_back({(mode << 8) | flag, pend});
        if (x.rng() % 2) flush_sets(me);
        return;
    }
    apply_set(me, mode, flag, pend);
}

void cross_wait(int mode, int pipe, int flag, Loc loc) {
    require_mix("CrossCoreWaitFlag", loc);
    Cross& x = X();
    const int me = core_current();
    // Arch 2201 ignores modeId and pipe: the Wait blocks every pipe (CrossCoreWaitFlag(ISASI).md).
    const bool v3510 = npu_arch() == 3510;
    if (v3510 && pipe == PIPE_ALL) fault(F_SYNC, loc, "CrossCoreWaitFlag<%d, PIPE_ALL>: the pipe cannot be PIPE_ALL", mode);
    int p = v3510 ? pipe_of(pipe) : P_S;
    if (p < 0 || !core_has_pipe(p))
        fault(F_UNSUPPORTED, loc, "CrossCoreWaitFlag<%d, %s> on the %s: it has no such pipe", mode, pipe_name(pipe),
              core_label(me));
    check_flag_range("CrossCoreWaitFlag", v3510 ? mode : 0, flag, true, loc);
    uint32_t id = issue(static_cast<Pipe>(p), "CrossCoreWaitFlag", loc);
    trace_sync(id, TK_WAIT, kCrossKey | static_cast<uint32_t>(mode << 8) | static_cast<uint32_t>(flag));
    const uint32_t wrec = last_record();
    if (config().interleave_seed) flush_sets(me);
    maybe_yield(me);
    const int c = flag;  // the AIC's 16-26 are AIV1's mode-4 Sets
    Counter& ctr = x.ctr[me][c];
    if (ctr.q.empty()) {
        std::unique_lock<std::mutex> lk(x.mu);
        CoreCtl& ctl = x.ctl[me];
        ctl.st = WAITING;
        ctl.counter = c;
        ctl.flag = flag;
        ctl.wait = loc;
        hand_off(me, lk);
        await_turn(me, lk);
        ctl.st = READY;
    }
    Pending got = ctr.q.front();
    ctr.q.pop_front();
    if (wrec != kTraceNone32) {  // the Sets this Wait consumed (trace.py CROSS_KEY)
        TraceRec& w = trace_records()[wrec];
        w.ub[1] = got.rec[0];
        w.ub[2] = got.rec[1];
    }
    if (v3510) {
        join(static_cast<Pipe>(p), got.clock);
    } else {
        for (int q = 0; q < NPIPE; q++)
            if (core_has_pipe(q)) join(static_cast<Pipe>(q), got.clock);
    }
}

void sync_all(Loc loc) {
    Cross& x = X();
    if (x.reserved.file)
        fault(F_SYNC, loc,
              "SyncAll uses cross-core flag ids 11-14, and the kernel already used one of them at %s:%d: the two "
              "would count each other's Sets (CrossCoreSetFlag(ISASI).md 约束说明)",
              x.reserved.file, x.reserved.line);
    fault(F_UNSUPPORTED, loc, "SyncAll: cross-core barriers are not modelled (blocks run sequentially)");
}

// ---------------------------------------------------------------- a block
void run_block(void (*launch)(uint8_t**), uint8_t** args) {
    Cross& x = X();
    if (!mix_kernel()) {
        launch(args);
        end_block();
        return;
    }
    x.ncores = x.aic + x.aiv;
    int sub = 0;
    for (int k = 0; k < x.ncores; k++) {
        x.kinds[k] = k < x.aic ? CK_AIC : CK_AIV;
        x.subs[k] = k < x.aic ? 0 : sub++;
        x.ctl[k] = CoreCtl{};
        for (auto& c : x.ctr[k]) c = Counter{};
    }
    for (auto& t : x.tally1) t[0].clear(), t[1].clear();
    for (auto& t : x.tally2) t[0].clear(), t[1].clear();
    x.abort = false;
    x.has_fault = false;
    x.reserved = Loc(nullptr, 0);
    x.rng.seed(config().interleave_seed * 1000003u + static_cast<uint64_t>(block_idx()));
    cores_begin(x.ncores, x.kinds);

    auto body = [&](int me) {
        std::unique_lock<std::mutex> lk(x.mu);
        try {
            await_turn(me, lk);
            lk.unlock();
            try {
                launch(args);
                if (config().interleave_seed) flush_sets(me);
                end_block();
            } catch (const SimFault& f) {
                lk.lock();
                if (!x.has_fault) x.has_fault = true, x.fault = f;
                x.abort = true;
                lk.unlock();
            } catch (const std::exception& e) {  // (Abort is not one)
                lk.lock();
                if (!x.has_fault)
                    x.has_fault = true, x.fault = SimFault{F_SIM, std::string("uncaught C++ exception on the ") +
                                                                      core_label(me) + ": " + e.what()};
                x.abort = true;
                lk.unlock();
            }
            lk.lock();
        } catch (const Abort&) {
            if (!lk.owns_lock()) lk.lock();
        }
        x.ctl[me].st = DONE;
        hand_off(me, lk);
    };
    std::vector<std::thread> threads;
    {
        std::unique_lock<std::mutex> lk(x.mu);
        x.running = -2;  // nobody runs until every thread exists
        for (int k = 0; k < x.ncores; k++) threads.emplace_back(body, k);
        x.running = 0;
        x.cv.notify_all();
        x.cv.wait(lk, [&] {
            for (int k = 0; k < x.ncores; k++)
                if (x.ctl[k].st != DONE) return false;
            return true;
        });
    }
    for (auto& t : threads) t.join();
    if (x.has_fault) throw x.fault;
    if (x.abort) return;  // a deadlock, recorded
    // Kernel end: every counter back at 0, no Set waiting for the other AIV.
    for (int k = 0; k < x.ncores; k++)
        for (int c = 0; c < kCounters; c++) {
            const Counter& ctr = x.ctr[k][c];
            if (ctr.q.empty()) continue;
            const Pending& p = ctr.q.front();
            core_switch(p.setter);
            record_fault(F_SYNC, p.loc, 7100 + k * kCounters + c,
                         fmt("cross-core flag leak: %s is %d when the kernel ends: the Set at %s by the %s was never "
                             "waited for (a missing drain, or a Wait on another id); the next kernel on this core "
                             "would see it",
                             counter_name(k, c).c_str(), static_cast<int>(ctr.q.size()), where(p.loc).c_str(),
                             core_label(p.setter)));
        }
    for (int mode = 1; mode <= 2; mode++)
        for (int f = 0; f < 16; f++)
            for (int s = 0; s < x.aiv; s++) {
                const auto& t = (mode == 1 ? x.tally1 : x.tally2)[f][s];
                if (t.empty()) continue;
                core_switch(t.front().setter);
                record_fault(F_SYNC, t.front().loc, 7200 + mode * 64 + f * 2 + s,
                             fmt("cross-core flag leak: CrossCoreSetFlag<%d>(%d) at %s by the %s never took effect: "
                                 "mode %d counts once every AIV of the block has set, and the other AIV never did "
                                 "(an idle or zero-row sub-block must still set)",
                                 mode, f, where(t.front().loc).c_str(), core_label(t.front().setter), mode));
            }
}

}  // namespace dslc
