"""libclang's Python bindings (Debian: python3-clang), for the generators that read C headers with
clang: the driver's uapi (regmap/uapi.py) and UCX's UCP API (java-api/gen/ucp_gen.py)."""
import ctypes
import sys


def load_clang(who):
    """clang.cindex, also when python3 is not Debian's own interpreter, with the evaluation functions of
    libclang's C API (Index.h) that not every clang release's bindings wrap declared; `who` names the
    generator in the error when the bindings are missing."""
    try:
        import clang.cindex as cindex
    except ImportError:
        sys.path.append("/usr/lib/python3/dist-packages")
        try:
            import clang.cindex as cindex
        except ImportError:
            raise SystemExit(f"{who}: libclang's Python bindings are missing: apt-get install python3-clang")
    void_p = ctypes.c_void_p
    for name, argtypes, restype in (
            ("clang_Cursor_isMacroFunctionLike", [cindex.Cursor], ctypes.c_uint),
            ("clang_Cursor_Evaluate", [cindex.Cursor], void_p),
            ("clang_EvalResult_getKind", [void_p], ctypes.c_int),
            ("clang_EvalResult_isUnsignedInt", [void_p], ctypes.c_uint),
            ("clang_EvalResult_getAsUnsigned", [void_p], ctypes.c_ulonglong),
            ("clang_EvalResult_getAsLongLong", [void_p], ctypes.c_longlong),
            ("clang_EvalResult_dispose", [void_p], None)):
        function = getattr(cindex.conf.lib, name)
        function.argtypes, function.restype = argtypes, restype
    return cindex
