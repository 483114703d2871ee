// Host side of the emulator benchmark: equal split over `blocks` cores, 4096-element tiles.
#include "sim_adamw_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    uint32_t total = static_cast<uint32_t>(context->GetInputShape(0)->GetStorageShape().GetShapeSize());
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    const float* lr = attrs->GetAttrPointer<float>(0);
    const float* beta1 = attrs->GetAttrPointer<float>(1);
    const float* beta2 = attrs->GetAttrPointer<float>(2);
    const float* wd = attrs->GetAttrPointer<float>(3);
    const float* eps = attrs->GetAttrPointer<float>(4);
    const float* b1p = attrs->GetAttrPointer<float>(5);
    const float* b2p = attrs->GetAttrPointer<float>(6);
    const int64_t* blocks = attrs->GetAttrPointer<int64_t>(7);
    const uint32_t tile = 4096;
    if (*blocks <= 0 || total % (static_cast<uint32_t>(*blocks) * tile) != 0) return ge::GRAPH_FAILED;
    SimAdamwTilingData t;
    t.set_perCore(total / static_cast<uint32_t>(*blocks));
    t.set_tileLength(tile);
    t.set_beta1(*beta1);
    t.set_oneMinusBeta1(1.0f - *beta1);
    t.set_beta2(*beta2);
    t.set_oneMinusBeta2(1.0f - *beta2);
    t.set_decay(1.0f - *lr * *wd);
    t.set_stepScale(-*lr / (1.0f - *b1p));
    t.set_vScale(1.0f / (1.0f - *b2p));
    t.set_eps(*eps);
    context->SetBlockDim(static_cast<uint32_t>(*blocks));
    context->SetTilingKey(0);
    context->GetWorkspaceSizes(1)[0] = 0;
    t.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(t.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class SimAdamw : public OpDef {
public:
    explicit SimAdamw(const char* name) : OpDef(name) {
        for (const char* in : {"var", "m", "v", "grad"})
            this->Input(in).ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        for (const char* out : {"var_out", "m_out", "v_out"})
            this->Output(out).ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        for (const char* a : {"lr", "beta1", "beta2", "weight_decay", "eps", "beta1_power", "beta2_power"})
            this->Attr(a).AttrType(REQUIRED).Float();
        this->Attr("blocks").AttrType(OPTIONAL).Int(1);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(SimAdamw);
}  // namespace ops
