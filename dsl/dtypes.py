"""Element types of the DSL and their numpy and Ascend C spellings.

numpy and ml_dtypes are imported when a dtype's numpy spelling is first asked for (``DType.np``),
not with the module: compiling an operator does not need ml_dtypes at all.
"""

from __future__ import annotations

from dataclasses import dataclass

_NUMPY: dict[str, object] = {}  # DType.name -> numpy dtype, filled on first use


@dataclass(frozen=True)
class DType:
    name: str  # DSL/IR spelling: f32, bf16, ...
    np_name: str  # numpy spelling (bfloat16: ml_dtypes')
    kind: str  # "float", "int", "uint", "bool"
    bits: int
    cpp: str  # Ascend C element type
    ge: str  # ge::DataType enumerator
    json: str  # msopgen json "type" spelling

    @property
    def np(self):
        """The numpy dtype (``np.dtype``; bf16 is ``ml_dtypes.bfloat16``)."""
        dt = _NUMPY.get(self.name)
        if dt is None:
            import numpy

            if self.np_name == "bfloat16":
                import ml_dtypes

                dt = numpy.dtype(ml_dtypes.bfloat16)
            else:
                dt = numpy.dtype(self.np_name)
            _NUMPY[self.name] = dt
        return dt

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_int(self) -> bool:
        return self.kind in ("int", "uint")

    @property
    def np_info(self):
        """Range of an integer dtype (a numpy ``iinfo``)."""
        import numpy as np

        return np.iinfo(self.np)

    @property
    def bytes(self) -> int:
        return self.bits // 8

    def __repr__(self) -> str:
        return self.name

    def __deepcopy__(self, memo) -> "DType":
        return self  # dtypes are singletons

    def __str__(self) -> str:
        return self.name


f16 = DType("f16", "float16", "float", 16, "half", "DT_FLOAT16", "float16")
bf16 = DType("bf16", "bfloat16", "float", 16, "bfloat16_t", "DT_BF16", "bfloat16")
f32 = DType("f32", "float32", "float", 32, "float", "DT_FLOAT", "float")
i8 = DType("i8", "int8", "int", 8, "int8_t", "DT_INT8", "int8")
i32 = DType("i32", "int32", "int", 32, "int32_t", "DT_INT32", "int32")
u8 = DType("u8", "uint8", "uint", 8, "uint8_t", "DT_UINT8", "uint8")
bool_ = DType("bool", "bool", "bool", 8, "bool", "DT_BOOL", "bool")

ALL_DTYPES: tuple[DType, ...] = (f16, bf16, f32, i8, i32, u8, bool_)
BY_NAME: dict[str, DType] = {d.name: d for d in ALL_DTYPES}
BY_NAME["bool_"] = bool_


def dtype_from_name(name: str) -> DType:
    try:
        return BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown dtype '{name}' (known: {', '.join(d.name for d in ALL_DTYPES)})") from None


def dtype_from_numpy(dt) -> DType | None:
    import numpy as np

    dt = np.dtype(dt)
    for d in ALL_DTYPES:
        if d.np == dt:
            return d
    return None


def promote(a: DType, b: DType) -> DType:
    """The logical result type of a binary arithmetic op on ``a`` and ``b``.

    Equal types stay; floats of different widths give f32; int with float gives the float;
    two different integer types give i32. Bool does not take part in arithmetic.
    """
    if a == b:
        return a
    if a.is_float and b.is_float:
        return f32
    if a.is_float:
        return a
    if b.is_float:
        return b
    return i32
