// The AIC's local memories (cube.h): L1, L0A, L0B and L0C lie one after another in the AIC's
// local memory array (its "UB" in runtime.cpp), so the shadow memory, buffers and race checks of
// runtime.cpp cover them; capacities come from the target (Target.l1_bytes, ...).
#include <cstring>

#include "kernel_operator.h"
#include "runtime.h"

namespace dslc {

namespace {
const char* kMemName[] = {"GM", "UB", "L1", "L0A", "L0B", "L0C"};

uint32_t mem_size(int hw) {
    const Config& c = config();
    switch (hw) {
        case 1: return c.ub_capacity;
        case 2: return c.l1_bytes;
        case 3: return c.l0a_bytes;
        case 4: return c.l0b_bytes;
        case 5: return c.l0c_bytes;
        default: return 0;
    }
}
}  // namespace

const char* cube_mem_name(int hw) { return hw >= 0 && hw <= 5 ? kMemName[hw] : "?"; }

uint32_t cube_ub_capacity() { return config().ub_capacity; }

uint32_t cube_mem_base(int hw) {
    const Config& c = config();
    switch (hw) {
        case 3: return c.l1_bytes;
        case 4: return c.l1_bytes + c.l0a_bytes;
        case 5: return c.l1_bytes + c.l0a_bytes + c.l0b_bytes;
        default: return 0;
    }
}

int cube_mem_at(uint32_t addr) {
    if (core_kind() != CK_AIC) return 1;
    for (int hw = 5; hw >= 2; hw--)
        if (addr >= cube_mem_base(hw)) return hw;
    return 2;
}

int cube_alloc(int hw, uint32_t& head, uint64_t bytes, uint32_t* addr, Loc loc) {
    const bool aic = core_kind() == CK_AIC;
    if (hw == 1 && aic) {  // the AIC's view of its AIVs' UB: a Fixpipe destination (cube.h)
        if (head + bytes > config().ub_capacity)
            fault(F_MEMORY, loc, "UB over capacity: LocalMemAllocator<Hardware::UB>::Alloc of %llu B at byte %u on the AIC",
                  (unsigned long long)bytes, head);
        *addr = head;
        head += static_cast<uint32_t>(bytes);
        return kAivUbView;
    }
    if (hw < 1 || hw > 5 || (hw == 1) == aic)
        fault(F_UNSUPPORTED, loc, "LocalMemAllocator<Hardware::%s>::Alloc on the %s: the %s has %s", cube_mem_name(hw),
              core_label(core_current()), aic ? "AIC" : "AIV", aic ? "L1, L0A, L0B and L0C" : "only UB");
    if (head + bytes > mem_size(hw))
        fault(F_MEMORY, loc,
              "%s over capacity: LocalMemAllocator<Hardware::%s>::Alloc of %llu B at byte %u brings it to %llu B > "
              "%u B on this target",
              cube_mem_name(hw), cube_mem_name(hw), (unsigned long long)bytes, head,
              (unsigned long long)(head + bytes), mem_size(hw));
    static const char* kinds[] = {"", "LocalMemAllocator<UB>", "L1", "L0A", "L0B", "L0C"};
    *addr = cube_mem_base(hw) + head;
    int buf = buf_register(*addr, static_cast<uint32_t>((bytes + 31) / 32 * 32), kinds[hw], loc);
    head += static_cast<uint32_t>(bytes);
    return buf;
}

void cube_check(const char* api, const char* what, int buf, uint32_t addr, uint64_t bytes, int want_hw,
                uint32_t align, Loc loc) {
    if (core_kind() != CK_AIC)
        fault(F_UNSUPPORTED, loc, "%s on the %s: cube instructions run on the AIC (guard it with ASCEND_IS_AIC)", api,
              core_label(core_current()));
    int hw = cube_mem_at(addr);
    if (hw != want_hw)
        fault(F_MEMORY, loc, "%s: the %s must be in %s, this tensor is in %s", api, what, cube_mem_name(want_hw),
              cube_mem_name(hw));
    uint32_t off = addr - cube_mem_base(hw);
    if (off % align != 0)
        fault(F_MEMORY, loc, "%s: the %s at %s byte 0x%x is not %u-byte aligned", api, what, cube_mem_name(hw), off,
              align);
    ub_check(buf, addr, bytes, false, api, what, loc);
}

}  // namespace dslc
