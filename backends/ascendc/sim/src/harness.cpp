// The emulator's main(): reads a request written by the Python driver, builds the host contexts
// from the registered OpDef, runs InferShape and TilingFunc, then the kernel once per block index
// on GM buffers mapped from the driver's files, and writes a JSON result. Faults become a JSON
// result too; a crash (a kernel dereferencing a wild pointer) prints the last API and exits.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "register/op_def_registry.h"
#include "runtime.h"

extern "C" void dslc_launch(uint8_t** args);

namespace {

using dslc::FaultKind;
using dslc::SimFault;

const char* kKindName[] = {"RaceError", "DeadlockError", "SyncError", "MemoryFaultError", "UnsupportedError",
                           "TilingError", "SimulationError", "InferShapeError"};
using dslc::F_INFER;

[[noreturn]] void host_fault(FaultKind k, const std::string& msg) { throw SimFault{k, msg}; }

struct Buffer {
    bool present = false;
    int dtype = 0;
    std::vector<int64_t> dims;
    std::string path;
    uint64_t bytes = 0;
    uint8_t* data = nullptr;
};

struct Request {
    std::vector<Buffer> inputs, outputs;
    std::vector<gert::AttrValue> attrs;
    uint32_t cores = 1, aic_cores = 1;
    std::string soc;
    std::string trace;  // where to write the instruction trace ("": none)
    // `dslc check`: describe the registered OpDef (and InferShape/InferDataType of the given input
    // shapes) instead of running the kernel.
    bool describe = false;
};

std::string unhex(const std::string& h) {
    std::string s;
    for (size_t i = 0; i + 1 < h.size(); i += 2) s += static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16));
    return s;
}

Request parse_request(const char* path) {
    std::ifstream in(path);
    if (!in) host_fault(dslc::F_SIM, std::string("cannot read request ") + path);
    Request r;
    dslc::Config& c = dslc::config();
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream ss(line);
        std::string key;
        ss >> key;
        if (key == "arch") ss >> c.npu_arch;
        else if (key == "ub_bytes") ss >> c.ub_bytes;
        else if (key == "ub_capacity") ss >> c.ub_capacity;
        else if (key == "cores") ss >> r.cores;
        else if (key == "aic_cores") ss >> r.aic_cores;
        else if (key == "cube") ss >> c.l1_bytes >> c.l0a_bytes >> c.l0b_bytes >> c.l0c_bytes;
        else if (key == "interleave") ss >> c.interleave_seed;
        else if (key == "strict") ss >> c.strict;
        else if (key == "shared_ids") ss >> c.shared_ids;
        else if (key == "race") ss >> c.race;
        else if (key == "cube_math") ss >> c.cube_math;
        else if (key == "describe") ss >> r.describe;
        else if (key == "keep_going") ss >> c.keep_going;
        else if (key == "max_faults") ss >> c.max_faults;
        else if (key == "ub_backing") ss >> c.ub_backing;
        else if (key == "trace") {
            ss >> r.trace;
            c.trace = !r.trace.empty();
        }
        else if (key == "soc") ss >> r.soc;
        else if (key == "bf16_ops") {
            std::string op;
            while (ss >> op) c.bf16_ops.insert(op);
        } else if (key == "input" || key == "output") {
            Buffer b;
            size_t idx, ndim;
            ss >> idx >> b.present;
            if (b.present) {
                ss >> b.dtype >> ndim;
                b.dims.resize(ndim);
                for (auto& d : b.dims) ss >> d;
                ss >> b.path >> b.bytes;
            }
            (key == "input" ? r.inputs : r.outputs).push_back(b);
        } else if (key == "attr") {
            gert::AttrValue v;
            size_t idx;
            std::string kind, val;
            ss >> idx >> kind >> val;
            v.kind = kind[0];
            if (v.kind == 'b') v.b = val == "1";
            else if (v.kind == 'i') v.i = std::stoll(val);
            else if (v.kind == 'f') v.f = static_cast<float>(std::strtod(val.c_str(), nullptr));
            else v.s = unhex(val == "-" ? "" : val);
            r.attrs.push_back(v);
        }
    }
    return r;
}

uint8_t* map_file(const std::string& path, uint64_t bytes) {
    if (bytes == 0) return static_cast<uint8_t*>(std::malloc(32));
    int fd = open(path.c_str(), O_RDWR);
    if (fd < 0) host_fault(dslc::F_SIM, "cannot open buffer file " + path);
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) host_fault(dslc::F_SIM, "cannot map buffer file " + path);
    return static_cast<uint8_t*>(p);
}

gert::Shape to_shape(const std::vector<int64_t>& dims) {
    gert::Shape s;
    for (int64_t d : dims) s.AppendDim(d);
    return s;
}

std::string shape_str(const gert::Shape& s) {
    std::string out = "(";
    for (size_t i = 0; i < s.GetDimNum(); i++) out += (i ? ", " : "") + std::to_string(s.GetDim(i));
    return out + (s.GetDimNum() == 1 ? ",)" : ")");
}

// Converts the driver's attribute value to the kind the OpDef declares.
gert::AttrValue coerce_attr(const ops::OpAttrDef& def, const gert::AttrValue* given) {
    if (!given) {
        if (!def.has_default_) host_fault(dslc::F_SIM, "attribute '" + def.name_ + "' has no value and no default");
        return def.def_;
    }
    gert::AttrValue v;
    v.kind = def.def_.kind;
    double num = given->kind == 'f' ? given->f : (given->kind == 'i' ? double(given->i) : double(given->b));
    switch (v.kind) {
        case 'b': v.b = given->kind == 'b' ? given->b : num != 0; break;
        case 'i': v.i = given->kind == 'i' ? given->i : static_cast<int64_t>(num); break;
        case 'f': v.f = given->kind == 'f' ? given->f : static_cast<float>(num); break;
        default:
            if (given->kind != 's') host_fault(dslc::F_SIM, "attribute '" + def.name_ + "' expects a string");
            v.s = given->s;
    }
    return v;
}

std::string json_escape(const std::string& s) {
    std::string o;
    for (char ch : s) {
        switch (ch) {
            case '"': o += "\\\""; break;
            case '\\': o += "\\\\"; break;
            case '\n': o += "\\n"; break;
            case '\t': o += "\\t"; break;
            default:
                if (static_cast<unsigned char>(ch) < 0x20) {
                    char b[8];
                    snprintf(b, sizeof b, "\\u%04x", ch);
                    o += b;
                } else {
                    o += ch;
                }
        }
    }
    return o;
}

std::string counters_json(const dslc::BlockCounters& c) {
    static const char* names[] = {"S", "V", "MTE2", "MTE3", "MTE1", "M", "FIX"};
    std::ostringstream o;
    o << "{";
    for (int p = 0; p < dslc::NPIPE; p++) {
        const dslc::PipeCounters& q = c.pipe[p];
        o << "\"" << names[p] << "\":{\"instructions\":" << q.instructions << ",\"dma\":" << q.dma
          << ",\"bursts\":" << q.bursts << ",\"bytes_in\":" << q.bytes_in << ",\"bytes_out\":" << q.bytes_out
          << ",\"repeats\":" << q.repeats << ",\"set_flags\":" << q.set_flags << ",\"wait_flags\":" << q.wait_flags
          << ",\"barriers\":" << q.barriers << "},";
    }
    o << "\"ub_peak_bytes\":" << c.ub_peak_bytes << ",\"l2_hints\":" << c.l2_hints << "}";
    return o.str();
}

struct Result {
    std::string status = "ok", kind, message;
    std::string describe;  // the OpDef description (describe mode)
    std::vector<SimFault> faults;  // keep_going: every distinct fault of the run, in order
    uint64_t tiling_key = 0, workspace = 0;
    double kernel_seconds = 0;
    uint32_t block_dim = 0;
    std::vector<std::string> blocks;
    std::vector<size_t> trace_starts;  // first trace record of each block
    std::vector<std::string> regions;  // GM region names, in gm_regions() order
};

std::string json_strings(const std::vector<std::string>& v) {
    std::string o = "[";
    for (size_t i = 0; i < v.size(); i++) o += (i ? ",\"" : "\"") + json_escape(v[i]) + "\"";
    return o + "]";
}

// The trace records as one binary file (the TraceRec layout); names and block starts go in the JSON.
std::string write_trace(const std::string& path, const Result& r) {
    const auto& recs = dslc::trace_records();
    if (FILE* f = std::fopen(path.c_str(), "wb")) {
        if (!recs.empty()) std::fwrite(recs.data(), sizeof(dslc::TraceRec), recs.size(), f);
        std::fclose(f);
    }
    std::ostringstream o;
    o << ",\"trace\":{\"records\":" << recs.size() << ",\"block_starts\":[";
    for (size_t i = 0; i < r.trace_starts.size(); i++) o << (i ? "," : "") << r.trace_starts[i];
    o << "],\"apis\":" << json_strings(dslc::trace_apis()) << ",\"locs\":" << json_strings(dslc::trace_locs())
      << ",\"regions\":" << json_strings(r.regions) << "}";
    return o.str();
}

void write_result(const char* path, const Result& r, const std::string& extra) {
    std::ofstream o(path);
    o << "{\"status\":\"" << r.status << "\",\"kind\":\"" << r.kind << "\",\"message\":\"" << json_escape(r.message)
      << "\",\"tiling_key\":" << r.tiling_key << ",\"block_dim\":" << r.block_dim
      << ",\"workspace_bytes\":" << r.workspace << ",\"kernel_seconds\":" << r.kernel_seconds << ",\"blocks\":[";
    for (size_t i = 0; i < r.blocks.size(); i++) o << (i ? "," : "") << r.blocks[i];
    o << "],\"faults\":[";
    for (size_t i = 0; i < r.faults.size(); i++)
        o << (i ? "," : "") << "{\"kind\":\"" << kKindName[r.faults[i].kind] << "\",\"block\":" << r.faults[i].block
          << ",\"message\":\"" << json_escape(r.faults[i].message) << "\"}";
    o << "]";
    if (!r.describe.empty()) o << ",\"describe\":" << r.describe;
    o << extra << "}\n";
}

void on_signal(int sig) {
    char buf[700];
    int n = snprintf(buf, sizeof buf, "dslc-sim: kernel crashed with signal %d after %s\n", sig,
                     dslc::last_api_summary());
    if (n > 0) {
        ssize_t w = write(2, buf, static_cast<size_t>(n));
        (void)w;
    }
    _exit(128 + sig);
}

const char* kOptionName[] = {"IGNORE", "OPTIONAL", "REQUIRED", "DYNAMIC", "VIRTUAL"};

// The registered OpDef as JSON: inputs and outputs (name, ParamType, DataType and Format columns),
// attributes (name, type, REQUIRED/OPTIONAL, default) and the AICore configs.
std::string opdef_json(const ops::OpDef& op) {
    std::ostringstream o;
    auto params = [&](const std::deque<ops::OpParamDef>& ps) {
        o << "[";
        for (size_t i = 0; i < ps.size(); i++) {
            const ops::OpParamDef& p = ps[i];
            o << (i ? "," : "") << "{\"name\":\"" << json_escape(p.name_) << "\",\"option\":\""
              << kOptionName[p.option_] << "\",\"dtypes\":[";
            for (size_t k = 0; k < p.dtypes_.size(); k++) o << (k ? "," : "") << static_cast<int>(p.dtypes_[k]);
            o << "]}";
        }
        o << "]";
    };
    o << "{\"type\":\"" << json_escape(op.type_) << "\",\"inputs\":";
    params(op.inputs_);
    o << ",\"outputs\":";
    params(op.outputs_);
    o << ",\"attrs\":[";
    for (size_t i = 0; i < op.attrs_.size(); i++) {
        const ops::OpAttrDef& a = op.attrs_[i];
        o << (i ? "," : "") << "{\"name\":\"" << json_escape(a.name_) << "\",\"kind\":\""
          << (a.def_.kind ? std::string(1, a.def_.kind) : std::string("?")) << "\",\"option\":\""
          << kOptionName[a.option_] << "\",\"has_default\":" << (a.has_default_ ? "true" : "false")
          << ",\"default\":";
        switch (a.def_.kind) {
            case 'b': o << (a.def_.b ? "true" : "false"); break;
            case 'i': o << a.def_.i; break;
            case 'f': {
                char b[64];
                snprintf(b, sizeof b, "%.9g", static_cast<double>(a.def_.f));
                o << (std::isfinite(a.def_.f) ? b : "null");
                break;
            }
            case 's': o << "\"" << json_escape(a.def_.s) << "\""; break;
            default: o << "null";
        }
        o << "}";
    }
    o << "],\"configs\":[";
    for (size_t i = 0; i < op.aicore_.configs_.size(); i++)
        o << (i ? "," : "") << "\"" << json_escape(op.aicore_.configs_[i]) << "\"";
    o << "]}";
    return o.str();
}

// The same fault at the same place as one already recorded: the message up to its " (block "
// (a hard fault repeats in every block; one entry names the first).
bool same_place(const std::vector<SimFault>& all, const SimFault& f) {
    auto place = [](const std::string& m) { return m.substr(0, m.rfind(" (block ")); };
    for (const SimFault& r : all)
        if (r.kind == f.kind && place(r.message) == place(f.message)) return true;
    return false;
}

void run(const Request& req, Result& res) {
    auto& reg = dslc_host::registry();
    if (reg.size() != 1)
        host_fault(dslc::F_SIM, "the host sources must register exactly one operator with OP_ADD (found " +
                                    std::to_string(reg.size()) + ")");
    ops::OpDef& op = *reg[0];
    if (req.describe && req.inputs.empty()) {
        res.describe = opdef_json(op);
        return;
    }
    if (req.inputs.size() != op.inputs_.size() || (req.outputs.size() != op.outputs_.size() && !req.describe))
        host_fault(dslc::F_SIM, "OpDef " + op.type_ + " declares " + std::to_string(op.inputs_.size()) +
                                    " inputs and " + std::to_string(op.outputs_.size()) + " outputs; simulate got " +
                                    std::to_string(req.inputs.size()) + " and " + std::to_string(req.outputs.size()));
    if (req.attrs.size() > op.attrs_.size())
        host_fault(dslc::F_SIM, "OpDef " + op.type_ + " declares " + std::to_string(op.attrs_.size()) +
                                    " attributes; simulate got " + std::to_string(req.attrs.size()));
    const auto& configs = op.aicore_.configs_;
    if (!configs.empty() && !req.soc.empty()) {
        bool found = false;
        for (const auto& c : configs) found = found || c == req.soc;
        if (!found)
            host_fault(dslc::F_UNSUPPORTED,
                       "OpDef " + op.type_ + " has no AICore().AddConfig(\"" + req.soc + "\") for this target");
    }

    fe::PlatFormInfos plat;
    plat.aiv_cores = req.cores;
    plat.aic_cores = req.aic_cores;
    plat.ub_bytes = dslc::config().ub_bytes;
    plat.npu_arch = dslc::config().npu_arch;
    plat.soc = req.soc;

    gert::TilingContext ctx;
    ctx.platform_ = &plat;
    ctx.op_type_ = op.type_;
    for (size_t i = 0; i < req.inputs.size(); i++) {
        const Buffer& b = req.inputs[i];
        gert::TensorSlot s;
        s.present = b.present;
        if (!b.present && op.inputs_[i].option_ == ops::REQUIRED)
            host_fault(dslc::F_SIM, "input '" + op.inputs_[i].name_ + "' is REQUIRED but was not given");
        if (b.present) {
            s.shape = gert::StorageShape(to_shape(b.dims));
            s.desc.dtype_ = static_cast<ge::DataType>(b.dtype);
            s.tensor.shape_ = s.shape;
            s.tensor.dtype_ = s.desc.dtype_;
        }
        ctx.inputs_.push_back(s);
    }
    for (const Buffer& b : req.outputs) {
        gert::TensorSlot s;
        s.present = true;
        s.shape = gert::StorageShape(to_shape(b.dims));
        s.desc.dtype_ = static_cast<ge::DataType>(b.dtype);
        s.tensor.shape_ = s.shape;
        s.tensor.dtype_ = s.desc.dtype_;
        ctx.outputs_.push_back(s);
    }
    if (req.describe) ctx.outputs_.resize(op.outputs_.size());  // InferShape / InferDataType fill them
    for (size_t i = 0; i < op.attrs_.size(); i++)
        ctx.attrs_.values_.push_back(coerce_attr(op.attrs_[i], i < req.attrs.size() ? &req.attrs[i] : nullptr));

    const dslc_host::OpImpl* impl = nullptr;
    auto found = dslc_host::impls().find(op.type_);
    if (found != dslc_host::impls().end()) impl = &found->second;
    ops::InferShapeKernelFunc infer_shape = op.infer_shape_ ? op.infer_shape_ : (impl ? impl->infer_shape : nullptr);
    ops::TilingKernelFunc tiling_func = op.aicore_.tiling_ ? op.aicore_.tiling_ : (impl ? impl->tiling : nullptr);

    std::vector<gert::Shape> inferred_shapes;
    std::vector<ge::DataType> inferred_dtypes;
    if (infer_shape) {
        gert::InferShapeContext ictx;
        ictx.op_type_ = op.type_;
        for (const auto& s : ctx.inputs_) {
            ictx.in_.push_back(s.shape.GetOriginShape());
            ictx.in_present_.push_back(s.present);
            ictx.tensors_.push_back(s.tensor);
        }
        ictx.out_.resize(ctx.outputs_.size());
        ictx.attrs_ = &ctx.attrs_;
        if (infer_shape(&ictx) != ge::GRAPH_SUCCESS) host_fault(F_INFER, "InferShape returned GRAPH_FAILED");
        inferred_shapes = ictx.out_;
        // keep_going (dslc check) allocated the outputs from this InferShape already (and ref outputs
        // from their inputs, which InferShape4Elewise-style functions leave unset).
        for (size_t i = 0; i < ctx.outputs_.size() && !req.describe && !dslc::config().keep_going; i++)
            if (ictx.out_[i] != ctx.outputs_[i].shape.GetOriginShape())
                host_fault(F_INFER, "InferShape gives output " + std::to_string(i) + " ('" + op.outputs_[i].name_ +
                                        "') the shape " + shape_str(ictx.out_[i]) + " but the caller allocated " +
                                        shape_str(ctx.outputs_[i].shape.GetOriginShape()));
    }

    if (op.infer_dtype_) {
        gert::InferDataTypeContext dctx;
        dctx.op_type_ = op.type_;
        for (const auto& s : ctx.inputs_) dctx.in_.push_back(s.present ? s.desc.dtype_ : ge::DT_UNDEFINED);
        dctx.attrs_ = &ctx.attrs_;
        if (op.infer_dtype_(&dctx) != ge::GRAPH_SUCCESS) host_fault(F_INFER, "InferDataType returned GRAPH_FAILED");
        inferred_dtypes = dctx.out_;
        for (size_t i = 0; i < ctx.outputs_.size() && !req.describe && !dslc::config().keep_going; i++) {
            ge::DataType got = i < dctx.out_.size() ? dctx.out_[i] : ge::DT_UNDEFINED;
            if (got != ctx.outputs_[i].desc.dtype_)
                host_fault(F_INFER, "InferDataType gives output " + std::to_string(i) + " ('" + op.outputs_[i].name_ +
                                        "') dtype " + std::to_string(static_cast<int>(got)) + " but the caller allocated " +
                                        std::to_string(static_cast<int>(ctx.outputs_[i].desc.dtype_)));
        }
    }

    if (req.describe) {  // the outputs as InferShape / InferDataType give them (absent: not run)
        std::ostringstream o;
        o << "{\"opdef\":" << opdef_json(op) << ",\"infer_shape\":" << (infer_shape ? "true" : "false")
          << ",\"shapes\":[";
        for (size_t i = 0; i < inferred_shapes.size(); i++) {
            o << (i ? ",[" : "[");
            for (size_t d = 0; d < inferred_shapes[i].GetDimNum(); d++) o << (d ? "," : "") << inferred_shapes[i].GetDim(d);
            o << "]";
        }
        o << "],\"dtypes\":[";
        for (size_t i = 0; i < inferred_dtypes.size(); i++) o << (i ? "," : "") << static_cast<int>(inferred_dtypes[i]);
        o << "]}";
        res.describe = o.str();
        return;
    }
    if (!tiling_func)
        host_fault(dslc::F_TILING, "OpDef " + op.type_ +
                                       " has no AICore().SetTiling(...) and no IMPL_OP_OPTILING(" + op.type_ +
                                       ").Tiling(...)");
    std::shared_ptr<void> compile_info;
    if (impl && impl->make_compile_info) {
        compile_info = impl->make_compile_info();
        gert::TilingParseContext pctx;
        pctx.compile_info_ = compile_info.get();
        pctx.platform_ = &plat;
        pctx.op_type_ = op.type_;
        if (impl->tiling_parse && impl->tiling_parse(&pctx) != ge::GRAPH_SUCCESS)
            host_fault(dslc::F_TILING, "TilingParse returned GRAPH_FAILED");
        ctx.compile_info_ = compile_info.get();
    }
    std::vector<uint8_t> tiling(64 * 1024, 0);
    ctx.raw_.data_ = tiling.data();
    ctx.raw_.capacity_ = tiling.size();
    if (tiling_func(&ctx) != ge::GRAPH_SUCCESS) host_fault(dslc::F_TILING, "TilingFunc returned GRAPH_FAILED");
    if (ctx.tiling_key_ == ~uint64_t(0))
        host_fault(dslc::F_TILING, "TilingFunc set the tiling key INVALID_TILING_KEY (GET_TPL_TILING_KEY or "
                                   "ASCENDC_TPL_SEL_PARAM could not encode its arguments)");
    res.tiling_key = ctx.tiling_key_;
    res.block_dim = ctx.block_dim_;
    if (!ctx.block_dim_set_) host_fault(dslc::F_TILING, "TilingFunc did not call SetBlockDim");
    // A __mix__ kernel's block dim counts AI Cores (one AIC each, GetBlockNum.md).
    const uint32_t max_blocks = dslc::mix_kernel() ? req.aic_cores : req.cores;
    if (ctx.block_dim_ == 0 || ctx.block_dim_ > max_blocks)
        host_fault(dslc::F_TILING, "TilingFunc set block dim " + std::to_string(ctx.block_dim_) +
                                       ", outside 1.." + std::to_string(max_blocks) + " (the platform's " +
                                       (dslc::mix_kernel() ? "AI Core" : "core") + " count)");
    // Only GetDataSize() bytes reach the device: poison the rest.
    for (size_t i = ctx.raw_.size_; i < tiling.size(); i++) tiling[i] = 0xa5;
    uint64_t ws = 0;
    for (size_t w : ctx.workspace_) ws += w;
    res.workspace = ws;

    std::vector<uint8_t*> args;
    auto& regions = dslc::gm_regions();
    for (size_t i = 0; i < req.inputs.size(); i++) {
        const Buffer& b = req.inputs[i];
        uint8_t* p = b.present ? map_file(b.path, b.bytes) : nullptr;
        if (p) regions.push_back({p, b.bytes, "input " + std::to_string(i) + " '" + op.inputs_[i].name_ + "'", {}});
        args.push_back(p);
    }
    for (size_t i = 0; i < req.outputs.size(); i++) {
        const Buffer& b = req.outputs[i];
        uint8_t* p = map_file(b.path, b.bytes);
        regions.push_back({p, b.bytes, "output " + std::to_string(i) + " '" + op.outputs_[i].name_ + "'", {}});
        args.push_back(p);
    }
    std::vector<uint8_t> workspace(ws ? ws : 32, 0xff);
    regions.push_back({workspace.data(), ws, "workspace", {}});
    regions.push_back({tiling.data(), tiling.size(), "tiling data", {}});
    args.push_back(workspace.data());
    args.push_back(tiling.data());
    for (const auto& reg : regions) res.regions.push_back(reg.name);

    auto t0 = std::chrono::steady_clock::now();
    for (uint32_t b = 0; b < ctx.block_dim_; b++) {
        res.trace_starts.push_back(dslc::trace_records().size());
        dslc::begin_block(b, ctx.block_dim_, ctx.tiling_key_);
        try {
            dslc::run_block(dslc_launch, args.data());
        } catch (const SimFault& f) {
            res.blocks.push_back(counters_json(dslc::block_counters()));
            auto& all = dslc::recorded_faults();
            if (!dslc::config().keep_going || all.size() >= dslc::config().max_faults) throw;
            // keep_going: a fault that stopped this block is one more of the run; the next block runs.
            bool known = false;
            for (const SimFault& r : all) known = known || r.message == f.message;
            if (!known && !same_place(all, f)) all.push_back(f);
            if (all.size() >= dslc::config().max_faults) throw;
            continue;
        } catch (...) {
            res.blocks.push_back(counters_json(dslc::block_counters()));
            throw;
        }
        res.blocks.push_back(counters_json(dslc::block_counters()));
        // A block with recoverable faults ran to its end; later blocks would mostly repeat them
        // (dslc check's keep_going runs them all: their other faults and outputs count).
        if (!dslc::recorded_faults().empty() && !dslc::config().keep_going) throw dslc::recorded_faults().front();
    }
    res.kernel_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s REQUEST RESULT\n", argv[0]);
        return 2;
    }
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) signal(sig, on_signal);
    Result res;
    Request req;
    try {
        req = parse_request(argv[1]);
        run(req, res);
        // keep_going: the run went to its end; the faults it recorded make it a faulty one.
        if (!dslc::recorded_faults().empty()) throw dslc::recorded_faults().front();
    } catch (const SimFault& f) {
        // The first fault names the error; the run's other distinct faults follow it.
        std::vector<SimFault> faults = dslc::recorded_faults();
        bool known = false;
        for (const SimFault& r : faults) known = known || r.message == f.message;
        if (!known) faults.push_back(f);
        res.status = "fault";
        res.faults = faults;
        res.kind = kKindName[faults.front().kind];
        res.message = faults.front().message;
        if (faults.size() > 1) {
            res.message += "\n" + std::to_string(faults.size() - 1) + " more fault(s) in this run:";
            for (size_t i = 1; i < faults.size(); i++)
                res.message += std::string("\n  - ") + kKindName[faults[i].kind] + ": " + faults[i].message;
        }
    } catch (const std::exception& e) {
        res.status = "fault";
        res.kind = "SimulationError";
        res.message = std::string("uncaught C++ exception: ") + e.what();
    }
    std::fflush(stdout);
    write_result(argv[2], res, req.trace.empty() ? std::string() : write_trace(req.trace, res));
    return 0;
}
