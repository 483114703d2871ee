"""Operators named like C library functions (CANN has div, exp, abs, round, ...) build and run on
the emulator: its headers bring in the C library, whose declarations must not clash with the
kernel entry ``extern "C" void div(GM_ADDR...)``, nor may the entry's symbol replace libc's
(``malloc``, ``write``) in the emulator binary. The generated project keeps the op name."""

from __future__ import annotations

import numpy as np
import pytest

import dsl
from backends.ascendc.simulate import generated_project
from dsl import Tensor, f32


def scaled_add(x: Tensor, y: Tensor, *, alpha: float = 0.5):
    return x * alpha + y


MATH = """acos asin atan atan2 cos sin tan cosh sinh tanh acosh exp exp2 expm1 log log10 log1p log2
pow sqrt cbrt hypot ceil floor round trunc rint nearbyint lround fmod remainder fabs fma fmax fmin fdim
frexp ldexp modf copysign nan erf erfc tgamma lgamma isnan isinf isfinite signbit nextafter"""
STDLIB = """abs labs div ldiv atoi atof strtod strtol rand srand malloc calloc realloc free exit abort atexit
getenv system qsort bsearch"""
STRING = """memcpy memmove memset memcmp memchr strlen strcpy strcmp strchr strstr strtok strdup strerror
index rindex bzero ffs"""
STDIO = """printf fprintf sprintf snprintf puts putchar fopen fclose fread fwrite fflush remove rename
perror scanf tmpfile stdin stdout stderr getc putc"""
POSIX = """read write close open pipe fork sleep usleep getpid dup access unlink link select signal raise
kill time clock difftime mktime ctime gmtime localtime strftime main"""
# C++ names the standard headers declare (std::, and a few in the global namespace), the
# emulator's own namespaces, and C macros that are not reserved operator names.
CXX = """max min swap move forward begin end size data std dslc ge gert ops detail offsetof setjmp va_arg"""

ALL_NAMES = " ".join((MATH, STDLIB, STRING, STDIO, POSIX, CXX)).split()
QUICK = ["div", "exp", "malloc", "index", "stdout", "time"]


def check_op_named(name: str) -> None:
    op = dsl.op(dtypes=(f32,), name=name)(scaled_add)
    kernel = (generated_project(op, "ascend910b") / "op_kernel" / f"{name}.cpp").read_text()
    assert f'extern "C" __global__ __aicore__ void {name}(GM_ADDR x, GM_ADDR y,' in kernel
    x = np.linspace(-3, 3, 777).astype(np.float32)
    y = np.linspace(5, -1, 777).astype(np.float32)
    np.testing.assert_array_equal(op.simulate(x, y, alpha=1.25), op.reference(x, y, alpha=1.25))


@pytest.mark.parametrize("name", QUICK)
def test_an_op_named_like_a_c_library_function_simulates(name):
    check_op_named(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in ALL_NAMES if n not in QUICK])
def test_every_c_library_name_simulates(name):  # ~5 s of emulator build each
    check_op_named(name)


@pytest.mark.parametrize(
    "name, why", [("errno", "a C macro"), ("assert", "a C macro"), ("int", "a C++ keyword")]
)
def test_names_that_cannot_work_in_cann_stay_refused(name, why):
    with pytest.raises(dsl.DslError) as e:
        dsl.op(dtypes=(f32,), name=name)(scaled_add)
    assert e.value.msg == (
        f"operator name '{name}' is reserved ({why}) and would break the generated C++; "
        f"choose another, e.g. @dsl.op(name='{name}_op')"
    )
