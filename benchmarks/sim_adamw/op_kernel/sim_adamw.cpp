// AdamW-shaped f32 kernel for the emulator benchmark: 4 GM streams in, 3 out, double-buffered
// TBuf slots updated in place, explicit flags (forward MTE2_V / V_MTE3, reverse MTE3_MTE2
// pre-issued and drained), PipeBarrier<PIPE_V> between dependent vector ops.
//   m' = b1 m + (1-b1) g;  v' = b2 v + (1-b2) g^2;  var' = decay var + stepScale m' / (sqrt(vScale v') + eps)
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t kSlots = 2;

template <typename TilingData> class KernelAdamw {
public:
    __aicore__ inline void Init(GM_ADDR var, GM_ADDR m, GM_ADDR v, GM_ADDR g, GM_ADDR varOut, GM_ADDR mOut,
                                GM_ADDR vOut, const TilingData& td) {
        td_ = td;
        uint64_t off = static_cast<uint64_t>(td.perCore) * GetBlockIdx();
        GM_ADDR in[4] = {var, m, v, g};
        GM_ADDR out[3] = {varOut, mOut, vOut};
        for (int i = 0; i < 4; i++) inGm[i].SetGlobalBuffer((__gm__ float*)in[i] + off, td.perCore);
        for (int i = 0; i < 3; i++) outGm[i].SetGlobalBuffer((__gm__ float*)out[i] + off, td.perCore);
        for (int i = 0; i < 4; i++) pipe.InitBuffer(buf[i], kSlots * td.tileLength * sizeof(float));
        pipe.InitBuffer(tmpBuf, 2 * td.tileLength * sizeof(float));
    }

    __aicore__ inline void Process() {
        const uint32_t tile = td_.tileLength;
        LocalTensor<float> t0 = tmpBuf.Get<float>();
        LocalTensor<float> t1 = t0[tile];
        SetFlag<HardEvent::MTE3_MTE2>(0);
        SetFlag<HardEvent::MTE3_MTE2>(1);
        for (uint32_t i = 0; i < td_.perCore / tile; i++) {
            int32_t s = static_cast<int32_t>(i & 1);
            LocalTensor<float> x[4];
            for (int k = 0; k < 4; k++) x[k] = buf[k].Get<float>()[s * tile];
            LocalTensor<float>& var = x[0];
            LocalTensor<float>& m = x[1];
            LocalTensor<float>& v = x[2];
            LocalTensor<float>& g = x[3];
            WaitFlag<HardEvent::MTE3_MTE2>(s);
            for (int k = 0; k < 4; k++) DataCopy(x[k], inGm[k][i * tile], tile);
            SetFlag<HardEvent::MTE2_V>(s);
            WaitFlag<HardEvent::MTE2_V>(s);
            Muls(m, m, td_.beta1, tile);
            Muls(t0, g, td_.oneMinusBeta1, tile);
            Mul(t1, g, g, tile);
            PipeBarrier<PIPE_V>();
            Add(m, m, t0, tile);
            Muls(v, v, td_.beta2, tile);
            Muls(t1, t1, td_.oneMinusBeta2, tile);
            PipeBarrier<PIPE_V>();
            Add(v, v, t1, tile);
            Muls(var, var, td_.decay, tile);
            PipeBarrier<PIPE_V>();
            Muls(t0, v, td_.vScale, tile);
            PipeBarrier<PIPE_V>();
            Sqrt(t0, t0, tile);
            PipeBarrier<PIPE_V>();
            Adds(t0, t0, td_.eps, tile);
            Muls(t1, m, td_.stepScale, tile);
            PipeBarrier<PIPE_V>();
            Div(t0, t1, t0, tile);
            PipeBarrier<PIPE_V>();
            Add(var, var, t0, tile);
            SetFlag<HardEvent::V_MTE3>(s);
            WaitFlag<HardEvent::V_MTE3>(s);
            for (int k = 0; k < 3; k++) DataCopy(outGm[k][i * tile], x[k], tile);
            SetFlag<HardEvent::MTE3_MTE2>(s);
        }
        WaitFlag<HardEvent::MTE3_MTE2>(0);
        WaitFlag<HardEvent::MTE3_MTE2>(1);
    }

private:
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf[4], tmpBuf;
    GlobalTensor<float> inGm[4], outGm[3];
    TilingData td_;
};

extern "C" __global__ __aicore__ void sim_adamw(GM_ADDR var, GM_ADDR m, GM_ADDR v, GM_ADDR grad, GM_ADDR varOut,
                                                GM_ADDR mOut, GM_ADDR vOut, GM_ADDR workspace, GM_ADDR tiling) {
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(0)) {
        KernelAdamw<decltype(tilingData)> op;
        op.Init(var, m, v, grad, varOut, mOut, vOut, tilingData);
        op.Process();
    }
}
