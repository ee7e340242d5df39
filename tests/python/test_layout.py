#!/usr/bin/python3
"""The ctypes mirrors of segment/python/flowcut/_lib.py against the C
headers: every struct's size, every field's name, offset and size, and the
constants the module copies. A mirror that drifts from its header would
pass garbage to the library with no error at all (a field that falls in
padding even works by luck until the next one moves).

usage: test_layout.py STRUCT_LAYOUT_BINARY MODULE_DIR

STRUCT_LAYOUT_BINARY is tests/python/struct_layout.c built: it prints the
C side. The headers are read too, so that a field added to a header but
not to struct_layout.c fails here as well."""
import ctypes
import os
import re
import subprocess
import sys
import unittest

LAYOUT = sys.argv[1]
sys.path.insert(0, sys.argv[2])
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
HEADERS = [os.path.join(ROOT, p) for p in ("maxflow/include/flowcut/maxflow.h",
                                           "graphbuild/include/flowcut/graphbuild.h",
                                           "segment/include/flowcut/segment.h")]
from flowcut import _lib  # noqa: E402

# every ctypes.Structure of _lib and the C struct it mirrors
MIRRORS = {"MfError": "mf_error", "MfOptions": "mf_options", "MfStats": "mf_stats", "MfResult": "mf_result",
           "MfGraph": "mf_graph", "MfArclist": "mf_arclist", "GbParams": "gb_params", "SegClick": "seg_click", "SegError": "seg_error",
           "SegInfo": "seg_info", "SessionOptions": "seg_session_options", "CutStats": "seg_cut_stats",
           "SegBatchItem": "seg_batch_item", "SegBatchOutcome": "seg_batch_outcome",
           "SegBatchConfig": "seg_batch_config", "SegBatchStats": "seg_batch_stats"}


def c_layout():
    structs, fields, consts = {}, {}, {}
    out = subprocess.run([LAYOUT], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        kind, *rest = line.split()
        if kind == "struct":
            structs[rest[0]] = int(rest[1])
            fields[rest[0]] = []
        elif kind == "field":
            fields[rest[0]].append((rest[1], int(rest[2]), int(rest[3])))
        elif kind == "const":
            consts[rest[0]] = int(rest[1])
    return structs, fields, consts


def header_fields(name):
    """The field names of `typedef struct NAME { ... } NAME;` in the public
    headers, in order."""
    for path in HEADERS:
        with open(path) as f:
            text = f.read()
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        m = re.search(r"typedef\s+struct\s+%s\s*\{(.*?)\}\s*%s\s*;" % (name, name), text, flags=re.S)
        if not m:
            continue
        names = []
        for decl in m.group(1).split(";"):
            decl = re.sub(r"\[[^\]]*\]", "", decl).strip()
            if not decl:
                continue
            fn = re.match(r"[^(]*\(\s*\*\s*([A-Za-z_]\w*)\s*\)\s*\(", decl)  # a function pointer
            if fn:
                names.append(fn.group(1))
                continue
            for i, part in enumerate(decl.split(",")):
                names.append(re.findall(r"[A-Za-z_]\w*", part)[-1])
        return names
    raise AssertionError(f"struct {name} not found in the headers")


class Layout(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.structs, cls.fields, cls.consts = c_layout()

    def test_every_mirror_is_checked(self):
        mirrors = {n for n, v in vars(_lib).items()
                   if isinstance(v, type) and issubclass(v, ctypes.Structure) and v.__module__ == _lib.__name__}
        self.assertEqual(mirrors, set(MIRRORS), "a ctypes.Structure of _lib.py without its entry in MIRRORS")

    def test_struct_layout_lists_every_header_field(self):
        for c_name in MIRRORS.values():
            with self.subTest(struct=c_name):
                self.assertEqual([f[0] for f in self.fields[c_name]], header_fields(c_name),
                                 "struct_layout.c's fields differ from the header's")

    def test_mirrors_match_c(self):
        for py_name, c_name in MIRRORS.items():
            cls = getattr(_lib, py_name)
            with self.subTest(struct=c_name):
                py_fields = [(n.rstrip("_"), getattr(cls, n).offset, getattr(cls, n).size)
                             for n, *_ in cls._fields_]
                self.assertEqual(py_fields, self.fields[c_name], f"{py_name}: name, offset, size of each field")
                self.assertEqual(ctypes.sizeof(cls), self.structs[c_name], f"sizeof {py_name}")

    def test_constants(self):
        for name, value in self.consts.items():
            with self.subTest(constant=name):
                self.assertTrue(hasattr(_lib, name), f"_lib.py lacks {name}")
                self.assertEqual(getattr(_lib, name), value, name)

    def test_error_ranges_do_not_collide(self):
        mf = {v for n, v in self.consts.items() if n.startswith("MF_ERR_")}
        seg = {v for n, v in self.consts.items() if n.startswith("SEG_ERR_")}
        self.assertTrue(all(-99 <= v <= -1 for v in mf), mf)
        self.assertTrue(all(-399 <= v <= -300 for v in seg), seg)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]] + sys.argv[3:], verbosity=1)
