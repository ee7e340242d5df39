"""ctypes binding of libflowcut: loading, the C structs the module passes,
and errors. ctypes releases the GIL during every foreign call, so solves
run while other Python threads go on."""
import ctypes
import ctypes.util
import os
import sysconfig

try:
    from . import _where  # written by CMake; absent from a pip-installed copy
except ImportError:
    _where = None

SONAME = "libflowcut.so.0"
# where `cmake --install` (/usr/local, ~/.local) and the Debian package (/usr)
# put the library; ld.so finds the system ones by itself once ldconfig has run,
# but a fresh /usr/local install before ldconfig and ~/.local are not in its
# cache
_MULTIARCH = sysconfig.get_config_var("MULTIARCH") or ""  # x86_64-linux-gnu on Debian amd64
_STANDARD_DIRS = ("/usr/local/lib", "/usr/local/lib64", f"/usr/lib/{_MULTIARCH}", "/usr/lib64", "/usr/lib",
                  os.path.expanduser("~/.local/lib"))


class FlowcutError(Exception):
    """A failure reported by libflowcut; code is the library's status code
    (negative), str() its message."""

    def __init__(self, message, code=None):
        super().__init__(message)
        self.code = code


def _candidates():
    """Paths to try, in order: FLOWCUT_LIBRARY, the library this copy was
    installed with (_where.py), the dynamic linker's search (ldconfig cache,
    LD_LIBRARY_PATH), then the standard install folders."""
    env = os.environ.get("FLOWCUT_LIBRARY")
    if env:
        return [env]  # an explicit choice is not second-guessed
    paths = []
    if _where is not None:
        path = _where.LIBRARY
        if _where.RELATIVE:
            path = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), path))
        paths.append(path)
    paths.append(SONAME)
    found = ctypes.util.find_library("flowcut")
    if found and found not in paths:
        paths.append(found)
    paths += [os.path.join(d, SONAME) for d in _STANDARD_DIRS]
    return paths


def _load():
    tried, broken = [], []
    for path in _candidates():
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append(path)
            if os.path.exists(path):  # there but unloadable: its own error says why
                broken.append(str(e))
    raise ImportError(
        f"flowcut: cannot load the C library {SONAME} (tried {', '.join(tried)}"
        + (f"; {'; '.join(broken)}" if broken else "") + "). Install libflowcut first: as root "
        "`bash examples/quickstart.sh` or `cmake --install build` from the flowcut sources, or the "
        "Debian package (`cpack -G DEB` in a build folder, then `apt install ./flowcut_*.deb`); "
        "for a library elsewhere set FLOWCUT_LIBRARY=/path/to/libflowcut.so.0 or LD_LIBRARY_PATH") from None


lib = _load()

c_i32p = ctypes.POINTER(ctypes.c_int32)
c_i64p = ctypes.POINTER(ctypes.c_int64)
c_u8p = ctypes.POINTER(ctypes.c_uint8)


# The C headers' constants the module uses, by their C names.
# tests/python/test_layout.py checks every one, and every struct below,
# against the headers (tests/python/struct_layout.c prints the C side).
MF_OK, MF_ERR_NOMEM, MF_ERR_IO, MF_ERR_PARSE, MF_ERR_INVALID = 0, -1, -2, -3, -4
MF_ERR_TOO_LARGE, MF_ERR_NO_DEVICE, MF_ERR_DEVICE, MF_ERR_DEVICE_MEMORY = -5, -6, -7, -8
MF_ERR_VERIFY, MF_ERR_INTERNAL = -9, -10
SEG_OK, SEG_ERR_NOMEM, SEG_ERR_INVALID, SEG_ERR_IO, SEG_ERR_NEED_SEEDS = 0, -301, -302, -303, -304
SEG_ERR_MODEL, SEG_ERR_SOLVE, SEG_ERR_IMAGE = -305, -306, -307
MF_ENGINE_AUTO, MF_ENGINE_CPU, MF_ENGINE_GPU = 0, 1, 2
SEG_SAVE_MASK, SEG_SAVE_OVERLAY, SEG_SAVE_CUTOUT, SEG_SAVE_SEEDS, SEG_SAVE_PREVIOUS = 0, 1, 2, 3, 4
MF_GPU_MANY_MAX = 64  # networks one union launch takes at most: maxflow_many hands over so many at a time


class MfError(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("line", ctypes.c_int64),
                ("file", ctypes.c_char * 256), ("message", ctypes.c_char * 256)]


class MfOptions(ctypes.Structure):
    _fields_ = [("engine", ctypes.c_int), ("phase2", ctypes.c_int), ("device", ctypes.c_int),
                ("verbose_notice", ctypes.c_int), ("cpu_algorithm", ctypes.c_int), ("cut_only", ctypes.c_int),
                ("threads", ctypes.c_int)]


class MfStats(ctypes.Structure):
    _fields_ = [("solve_seconds", ctypes.c_double), ("phase1_seconds", ctypes.c_double),
                ("phase2_seconds", ctypes.c_double), ("upload_seconds", ctypes.c_double),
                ("download_seconds", ctypes.c_double), ("pushes", ctypes.c_int64),
                ("relabels", ctypes.c_int64), ("global_relabels", ctypes.c_int64),
                ("rounds", ctypes.c_int64), ("bfs_levels", ctypes.c_int64), ("visits", ctypes.c_int64),
                ("relabel_seconds", ctypes.c_double), ("engine_used", ctypes.c_int), ("warm", ctypes.c_int),
                ("changed_arcs", ctypes.c_int64), ("deficits", ctypes.c_int64),
                ("device_name", ctypes.c_char * 128), ("setup_seconds", ctypes.c_double),
                ("cpu_algorithm", ctypes.c_int), ("work_seconds", ctypes.c_double),
                ("critical_seconds", ctypes.c_double), ("longest_task_seconds", ctypes.c_double),
                ("fell_back", ctypes.c_int)]


class MfResult(ctypes.Structure):
    _fields_ = [("flow_value", ctypes.c_int64), ("flow", c_i32p), ("source_side", c_u8p),
                ("num_arcs", ctypes.c_int32), ("num_vertices", ctypes.c_int32), ("stats", MfStats)]


class MfGraph(ctypes.Structure):
    _fields_ = [("num_vertices", ctypes.c_int32), ("num_arcs", ctypes.c_int32), ("source", ctypes.c_int32),
                ("sink", ctypes.c_int32), ("out_start", c_i32p), ("arc_head", c_i32p), ("arc_cap", c_i32p),
                ("arc_rcap", c_i32p), ("in_start", c_i32p), ("in_arc", c_i32p), ("in_tail", c_i32p),
                ("input_map", c_i32p), ("num_input_arcs", ctypes.c_int32), ("flow_offset", ctypes.c_int64)]


class MfArclist(ctypes.Structure):
    _fields_ = [("num_vertices", ctypes.c_int32), ("num_arcs", ctypes.c_int32), ("capacity", ctypes.c_int32),
                ("source", ctypes.c_int32), ("sink", ctypes.c_int32), ("tail", c_i32p), ("head", c_i32p),
                ("cap", c_i32p)]


class SegError(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("message", ctypes.c_char * 512)]


class SegInfo(ctypes.Structure):
    _fields_ = [("flow", ctypes.c_int64), ("foreground", ctypes.c_int64), ("engine", ctypes.c_int),
                ("iterations", ctypes.c_int), ("model_seconds", ctypes.c_double),
                ("build_seconds", ctypes.c_double), ("solve_seconds", ctypes.c_double),
                ("device", ctypes.c_char * 128), ("click_radius", ctypes.c_int32)]


def _fn(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


P = ctypes.POINTER
vp = ctypes.c_void_p
mf_strerror = _fn("mf_strerror", ctypes.c_char_p, ctypes.c_int)
mf_error_format = _fn("mf_error_format", None, P(MfError), ctypes.c_char_p, ctypes.c_size_t)
mf_options_default = _fn("mf_options_default", None, P(MfOptions))
mf_engine_parse = _fn("mf_engine_parse", ctypes.c_int, ctypes.c_char_p, P(ctypes.c_int))
mf_cpu_algorithm_parse = _fn("mf_cpu_algorithm_parse", ctypes.c_int, ctypes.c_char_p, P(ctypes.c_int))
mf_cpu_algorithm_name = _fn("mf_cpu_algorithm_name", ctypes.c_char_p, ctypes.c_int)
mf_graph_from_pairs = _fn("mf_graph_from_pairs", ctypes.c_int, ctypes.c_int32, ctypes.c_int64, vp, vp, vp, vp,
                          vp, vp, P(MfGraph), P(MfError))
mf_graph_from_arcs = _fn("mf_graph_from_arcs", ctypes.c_int, P(MfArclist), vp, P(MfGraph), P(MfError))
mf_graph_free = _fn("mf_graph_free", None, P(MfGraph))
mf_read_dimacs = _fn("mf_read_dimacs", ctypes.c_int, ctypes.c_char_p, P(MfArclist), P(MfError))
mf_arclist_free = _fn("mf_arclist_free", None, P(MfArclist))
mf_solve = _fn("mf_solve", ctypes.c_int, P(MfGraph), P(MfOptions), P(MfResult), P(MfError))
mf_verify = _fn("mf_verify", ctypes.c_int, P(MfGraph), P(MfResult), ctypes.c_int, P(MfError))
mf_result_free = _fn("mf_result_free", None, P(MfResult))
mf_gpu_available = _fn("mf_gpu_available", ctypes.c_int, P(ctypes.c_int))
mf_gpu_compiled = _fn("mf_gpu_compiled", ctypes.c_int)
mf_gpu_launch_takes = _fn("mf_gpu_launch_takes", ctypes.c_int, ctypes.c_int32, ctypes.c_int64, ctypes.c_int64,
                          ctypes.c_int32)
mf_solve_many = _fn("mf_solve_many", ctypes.c_int, P(P(MfGraph)), ctypes.c_int32, P(MfOptions), P(MfResult),
                    P(MfError))
mf_dynamic_create = _fn("mf_dynamic_create", ctypes.c_int, P(MfGraph), P(MfOptions), P(vp), P(MfError))
mf_dynamic_set_input_arc = _fn("mf_dynamic_set_input_arc", ctypes.c_int, vp, ctypes.c_int32, ctypes.c_int32,
                               P(MfError))
mf_dynamic_solve = _fn("mf_dynamic_solve", ctypes.c_int, vp, P(MfResult), P(MfError))
mf_dynamic_destroy = _fn("mf_dynamic_destroy", None, vp)

seg_options_new = _fn("seg_options_new", vp)
seg_options_free = _fn("seg_options_free", None, vp)
seg_options_set_prompts = _fn("seg_options_set_prompts", None, vp, vp)
seg_options_set_previous = _fn("seg_options_set_previous", None, vp, vp, ctypes.c_int32, ctypes.c_int32)
seg_prompts_new = _fn("seg_prompts_new", vp)
seg_prompts_free = _fn("seg_prompts_free", None, vp)
seg_prompts_add_click = _fn("seg_prompts_add_click", ctypes.c_int, vp, ctypes.c_int32, ctypes.c_int32, ctypes.c_uint8,
                            P(SegError))
seg_prompts_set_radius = _fn("seg_prompts_set_radius", ctypes.c_int, vp, ctypes.c_int32, ctypes.c_int32, P(SegError))
seg_prompts_set_box = _fn("seg_prompts_set_box", ctypes.c_int, vp, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32,
                          ctypes.c_int32, P(SegError))
seg_prompts_parse = _fn("seg_prompts_parse", ctypes.c_int, vp, ctypes.c_char_p, ctypes.c_char_p, P(SegError))
seg_options_set = _fn("seg_options_set", ctypes.c_int, vp, ctypes.c_char_p, ctypes.c_char_p, P(SegError))
seg_segment = _fn("seg_segment", ctypes.c_int, vp, ctypes.c_int32, ctypes.c_int32, vp, ctypes.c_int32, vp, vp,
                  P(SegInfo), P(SegError))
seg_segment_files = _fn("seg_segment_files", ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, vp, P(c_u8p),
                        P(ctypes.c_int32), P(ctypes.c_int32), P(SegInfo), P(SegError))
seg_free = _fn("seg_free", None, vp)


class SegBatchItem(ctypes.Structure):
    _fields_ = [("image", ctypes.c_char_p), ("seeds", ctypes.c_char_p), ("prompts", ctypes.c_char_p),
                ("mask", ctypes.c_char_p), ("overlay", ctypes.c_char_p), ("cutout", ctypes.c_char_p)]


class SegBatchOutcome(ctypes.Structure):
    _fields_ = [("index", ctypes.c_size_t), ("code", ctypes.c_int), ("error", ctypes.c_char_p),
                ("width", ctypes.c_int32), ("height", ctypes.c_int32), ("flow", ctypes.c_int64),
                ("foreground", ctypes.c_int64), ("engine", ctypes.c_int), ("device", ctypes.c_char_p),
                ("decode_seconds", ctypes.c_double), ("model_seconds", ctypes.c_double),
                ("build_seconds", ctypes.c_double), ("solve_seconds", ctypes.c_double),
                ("encode_seconds", ctypes.c_double)]


SEG_BATCH_REPORT = ctypes.CFUNCTYPE(None, vp, P(SegBatchOutcome))


class SegBatchConfig(ctypes.Structure):
    _fields_ = [("jobs", ctypes.c_int32), ("ndevices", ctypes.c_int32), ("devices", c_i32p),
                ("per_gpu", ctypes.c_int32), ("per_launch", ctypes.c_int32), ("alloc_cache_bytes", ctypes.c_int64),
                ("overwrite", ctypes.c_int), ("stop", P(ctypes.c_int)), ("report", SEG_BATCH_REPORT),
                ("user", vp)]


class SegBatchStats(ctypes.Structure):
    _fields_ = [("ok", ctypes.c_size_t), ("failed", ctypes.c_size_t), ("not_started", ctypes.c_size_t),
                ("seconds", ctypes.c_double), ("decode_seconds", ctypes.c_double),
                ("model_seconds", ctypes.c_double), ("build_seconds", ctypes.c_double),
                ("solve_seconds", ctypes.c_double), ("encode_seconds", ctypes.c_double),
                ("workers", ctypes.c_int32), ("devices", ctypes.c_int32), ("per_gpu", ctypes.c_int32),
                ("launches", ctypes.c_size_t), ("launched", ctypes.c_size_t)]


seg_batch_config_default = _fn("seg_batch_config_default", None, P(SegBatchConfig))
seg_batch_run = _fn("seg_batch_run", ctypes.c_int, P(SegBatchItem), ctypes.c_size_t, vp, P(SegBatchConfig),
                    P(SegBatchStats), P(SegError))


def mf_check(rc, err):
    """Raises FlowcutError with the library's message when rc != 0."""
    if rc:
        buf = ctypes.create_string_buffer(800)
        mf_error_format(ctypes.byref(err), buf, len(buf))
        msg = buf.value.decode("utf-8", "replace") or mf_strerror(rc).decode()
        raise FlowcutError(msg, rc)


def seg_check(rc, err):
    if rc:
        msg = err.message.decode("utf-8", "replace") or f"error {rc}"
        raise FlowcutError(msg, rc)


ENGINE_NAMES = {MF_ENGINE_AUTO: "auto", MF_ENGINE_CPU: "cpu", MF_ENGINE_GPU: "gpu"}


def cpu_algorithm_name(value):
    """The CPU algorithm a solve ran (mf_stats.cpu_algorithm), None for the GPU."""
    name = mf_cpu_algorithm_name(value)
    return name.decode() if name else None


def solve_options(engine, cpu_algorithm, device, threads=0):
    """MfOptions for a cut-only solve; names as on the command line."""
    opt = MfOptions()
    mf_options_default(ctypes.byref(opt))
    e, a = ctypes.c_int(), ctypes.c_int()
    if mf_engine_parse(str(engine).encode(), ctypes.byref(e)):
        raise ValueError(f"engine must be auto, cpu or gpu, not {engine!r}")
    if mf_cpu_algorithm_parse(str(cpu_algorithm).encode(), ctypes.byref(a)):
        raise ValueError(f"cpu_algorithm must be auto, bk, ibfs or push-relabel, not {cpu_algorithm!r}")
    if not isinstance(device, int) or device < 0:
        raise ValueError(f"device must be a device ordinal, not {device!r}")
    if not isinstance(threads, int) or not 0 <= threads <= 1024:
        raise ValueError(f"threads must be 0 (every core) to 1024, not {threads!r}")
    opt.engine, opt.cpu_algorithm, opt.device, opt.cut_only = e.value, a.value, device, 1
    opt.threads = threads
    return opt


class GbParams(ctypes.Structure):
    _fields_ = [("lambda_", ctypes.c_double), ("connectivity", ctypes.c_int), ("model", ctypes.c_int),
                ("gmm_components", ctypes.c_int), ("uniform_mix", ctypes.c_double), ("threads", ctypes.c_int),
                ("geodesic", ctypes.c_double), ("border", ctypes.c_double), ("star", ctypes.c_int),
                ("in_lists", ctypes.c_int), ("quick_fit", ctypes.c_int), ("keep", ctypes.c_double),
                ("keep_radius", ctypes.c_double), ("previous", ctypes.c_void_p), ("keep_x", ctypes.c_int32),
                ("keep_y", ctypes.c_int32)]


class SessionOptions(ctypes.Structure):
    _fields_ = [("graph", GbParams), ("solve", MfOptions), ("refit", ctypes.c_int)]


class CutStats(ctypes.Structure):
    _fields_ = [("total_seconds", ctypes.c_double), ("model_seconds", ctypes.c_double),
                ("update_seconds", ctypes.c_double), ("solve_seconds", ctypes.c_double), ("warm", ctypes.c_int),
                ("refitted", ctypes.c_int), ("changed_pixels", ctypes.c_int64), ("changed_arcs", ctypes.c_int64),
                ("flow", ctypes.c_int64), ("foreground", ctypes.c_int64), ("engine", ctypes.c_int),
                ("device", ctypes.c_char * 128)]


seg_session_options_default = _fn("seg_session_options_default", None, P(SessionOptions))
seg_session_open = _fn("seg_session_open", ctypes.c_int, vp, ctypes.c_int32, ctypes.c_int32, vp,
                       P(SessionOptions), P(vp), P(SegError))
seg_session_close = _fn("seg_session_close", None, vp)
seg_session_set_labels = _fn("seg_session_set_labels", ctypes.c_int, vp, ctypes.c_int32, ctypes.c_int32,
                             ctypes.c_int32, ctypes.c_int32, vp, ctypes.c_int32)
seg_session_paint_line = _fn("seg_session_paint_line", ctypes.c_int, vp, ctypes.c_uint8, ctypes.c_double,
                             ctypes.c_double, ctypes.c_double, ctypes.c_double, ctypes.c_double)
seg_session_click = _fn("seg_session_click", ctypes.c_int, vp, ctypes.c_int32, ctypes.c_int32, ctypes.c_uint8)
seg_session_click_disc = _fn("seg_session_click_disc", ctypes.c_int, vp, ctypes.c_int32, ctypes.c_int32, ctypes.c_uint8,
                             ctypes.c_int32)
seg_session_box = _fn("seg_session_box", ctypes.c_int, vp, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32,
                      ctypes.c_int32)
seg_session_get_box = _fn("seg_session_get_box", ctypes.c_int, vp, P(ctypes.c_int32 * 4))
seg_session_set_all_labels = _fn("seg_session_set_all_labels", ctypes.c_int, vp, vp)
seg_session_set_lambda = _fn("seg_session_set_lambda", ctypes.c_int, vp, ctypes.c_double)
seg_session_lambda = _fn("seg_session_lambda", ctypes.c_double, vp)
seg_session_set_refit = _fn("seg_session_set_refit", None, vp, ctypes.c_int)
seg_session_refine_pending = _fn("seg_session_refine_pending", ctypes.c_int, vp)
class SegClick(ctypes.Structure):
    _fields_ = [("x", ctypes.c_int32), ("y", ctypes.c_int32), ("label", ctypes.c_uint8), ("radius", ctypes.c_int32)]


seg_session_get_previous = _fn("seg_session_get_previous", vp, vp, P(SegClick))
seg_session_commit = _fn("seg_session_commit", ctypes.c_int, vp)
seg_session_undo = _fn("seg_session_undo", ctypes.c_int, vp)
seg_session_redo = _fn("seg_session_redo", ctypes.c_int, vp)
seg_session_cut = _fn("seg_session_cut", ctypes.c_int, vp, P(CutStats), P(SegError))
seg_session_preview = _fn("seg_session_preview", ctypes.c_int, vp, vp, P(CutStats), P(SegError))
seg_session_preview_pays = _fn("seg_session_preview_pays", ctypes.c_int, vp)
seg_session_mask = _fn("seg_session_mask", c_u8p, vp)
seg_session_labels = _fn("seg_session_labels", c_u8p, vp)
seg_session_save = _fn("seg_session_save", ctypes.c_int, vp, ctypes.c_int, ctypes.c_char_p, ctypes.c_int,
                       P(SegError))
