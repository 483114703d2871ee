"""Names users give operators, inputs, attributes and outputs: the one list of reserved names.

Every such name reaches C++: the operator name is the kernel entry and the file names, input,
output and attribute names are the parameters of the kernel entry msopgen writes
(``GM_ADDR x, ..., GM_ADDR workspace, GM_ADDR tiling``), of the aclnn API CANN generates
(``aclnnXxxGetWorkspaceSize(const aclTensor *x, ..., uint64_t *workspaceSize,
aclOpExecutor **executor)``) and of the OpDef. The frontend rejects a reserved name at its DSL
line (``frontend/signature.py``, ``frontend/lower.py``, ``frontend/__init__.py``); the backend
checks again (``backends/ascendc/names.py``) for IR that did not come from the frontend.
"""

from __future__ import annotations

import re

_CPP_KEYWORDS = """alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t
char16_t char32_t class co_await co_return co_yield compl concept const consteval constexpr constinit
const_cast continue decltype default delete do double dynamic_cast else enum explicit export extern
false float for friend goto if inline int long mutable namespace new noexcept not not_eq nullptr
operator or or_eq private protected public register reinterpret_cast requires return short signed
sizeof static static_assert static_cast struct switch template this thread_local throw true try
typedef typeid typename union unsigned using virtual void volatile wchar_t while xor xor_eq"""

# name -> why it is reserved (shown in the error message)
RESERVED_NAMES: dict[str, str] = {
    **{k: "a C++ keyword" for k in _CPP_KEYWORDS.split()},
    **{
        k: "an Ascend C type"
        for k in "half bfloat16_t int8_t uint8_t int16_t uint16_t int32_t uint32_t int64_t uint64_t size_t".split()
    },
    **{k: "an Ascend C qualifier macro" for k in "GM_ADDR __gm__ __aicore__ __global__".split()},
    "AscendC": "the Ascend C namespace",
    "workspace": "a parameter of every CANN kernel entry (GM_ADDR workspace)",
    "tiling": "a parameter of every CANN kernel entry (GM_ADDR tiling)",
    "tilingData": "the tiling struct the kernel entry declares (GET_TILING_DATA)",
    "workspaceSize": "a parameter of the aclnn API CANN generates",
    "executor": "a parameter of the aclnn API CANN generates",
    "stream": "a parameter of the aclnn API CANN generates",
    **{k: "a C macro" for k in "NULL EOF INFINITY NAN errno assert".split()},
}

# OpDef attribute names the framework reserves (asc-devkit OpDef/Attr.md).
RESERVED_ATTR_NAMES = frozenset({"options", "src", "op_type", "soc_version", "name", "type", "dtype"})

# Keyword arguments of op.compile/simulate/profile (DESIGN section 2): an input or attribute of
# one of these names could not be passed by keyword.
API_KEYWORDS = ("target", "cores", "project", "dtype", "vector_path", "sku", "l2", "cann")

_SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")


def reserved_reason(name: str) -> str | None:
    """Why ``name`` cannot name an input, output, attribute or operator (None when it can)."""
    return RESERVED_NAMES.get(name)


def param_name_problem(name: str, what: str) -> str | None:
    """The message for an input/output/attribute name that would break the generated C++, or (an
    input or attribute) a keyword argument of the Operator API."""
    if what in ("input", "attribute") and name in API_KEYWORDS:
        return (
            f"{what} name '{name}' is reserved: it is a keyword argument of op.simulate/op.profile/"
            f"op.compile (reserved names: {', '.join(API_KEYWORDS)}); rename it"
        )
    why = reserved_reason(name)
    if why is not None:
        return f"{what} '{name}' is reserved ({why}) and would break the generated C++; rename it"
    if what == "attribute" and name in RESERVED_ATTR_NAMES:
        return f"attribute name '{name}' is reserved by CANN's OpDef; rename it"
    return None


def camel(name: str) -> str:
    """``m_out`` -> ``mOut``, ``beta1_power`` -> ``beta1Power``: a user name in the generated C++."""
    parts = [p for p in name.split("_") if p]
    if not parts:
        return name
    head, rest = parts[0], parts[1:]
    return head[:1].lower() + head[1:] + "".join(p[:1].upper() + p[1:] for p in rest)


# What the backend appends to a user name's camelCase form (``x`` -> ``x_``, ``xGm_``, ``xShape``,
# ``xS``, ``xRowBuf_``, ``xOne_``) or its PascalCase form (``XType``, ``XAttr``) to name what
# belongs to it: kernel/naming.py's callers. Two names whose spellings meet here would declare
# one C++ name twice.
CAMEL_SUFFIXES = ("", "_", "Gm", "Gm_", "Shape", "S", "RowBuf_", "One_")
PASCAL_SUFFIXES = ("", "Type", "Attr")


def _spellings(name: str) -> set[str]:
    c = camel(name)
    p = c[:1].upper() + c[1:]
    return {c + s for s in CAMEL_SUFFIXES} | {"P:" + p + s for s in PASCAL_SUFFIXES}


def spelling_clash(earlier: list[str], name: str) -> str | None:
    """The message when ``name`` and one of ``earlier`` (inputs, attributes, outputs of one
    operator) would spell the same C++ name (``pipe`` / ``pipe_``, ``x`` / ``x_gm``), else None."""
    mine = _spellings(name)
    for other in earlier:
        if other == name:
            continue
        common = mine & _spellings(other)
        if common:
            shared = min(common, key=len).removeprefix("P:")
            return (
                f"'{name}' and '{other}' would both be spelled '{shared}' in the generated C++ "
                f"(names become camelCase, with suffixes such as Gm_ and Shape); rename one"
            )
    return None


def op_type_of(name: str) -> str:
    """``apply_adam_w`` -> ``ApplyAdamW`` (CANN's OpType; no checks)."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def snake_case(camel: str) -> str:
    """CANN's OpType -> file/kernel name rule (AddCustom -> add_custom, Conv2DCustom -> conv2_d_custom)."""
    out = []
    for i, ch in enumerate(camel):
        if (
            ch.isupper()
            and i > 0
            and (not camel[i - 1].isupper() or (i + 1 < len(camel) and camel[i + 1].islower()))
        ):
            out.append("_")
        out.append(ch.lower())
    return "".join(out)


# OpTypes that are classes of CANN's host API in the namespaces the generated host code opens
# (register/op_def.h, tiling/tiling_api.h): `class op_def` would redefine ops::OpDef.
CANN_HOST_CLASSES = frozenset(
    "OpDef OpParamDef OpAttrDef OpAICoreDef OpAICoreConfig OpMC2Def OpDefFactory OpImplRegister "
    "TilingContext InferShapeContext InferDataTypeContext TilingData".split()
)


def op_name_problem(name) -> str | None:
    """The message for an operator name CANN cannot use (None when it is fine): it must be
    snake_case ASCII, survive CANN's OpType -> file name round trip, and not be reserved."""
    if not isinstance(name, str):
        return f"the operator name must be a string, got {name!r}"
    if not _SNAKE.match(name):
        return (
            f"operator name '{name}' must be snake_case ASCII (lower-case letters, digits, single '_' "
            "between them), e.g. 'apply_adam_w'; pass @dsl.op(name=...) to choose one"
        )
    camel = op_type_of(name)
    if snake_case(camel) != name:
        return (
            f"operator name '{name}' does not survive CANN's naming rule ({camel} -> {snake_case(camel)}); "
            f"name it '{snake_case(camel)}' instead"
        )
    if camel in CANN_HOST_CLASSES:
        return (
            f"operator name '{name}' makes the OpType {camel}, a class of CANN's host API, and would "
            f"break the generated host code; choose another, e.g. @dsl.op(name='{name}_op')"
        )
    why = reserved_reason(name)
    if why is not None:
        return (
            f"operator name '{name}' is reserved ({why}) and would break the generated C++; "
            f"choose another, e.g. @dsl.op(name='{name}_op')"
        )
    return None
