#!/usr/bin/python3
"""tests/fuzz/gen_plugin_abi_seeds.py — writes the hand-made seeds of fuzz_plugin_abi
into tests/fuzz/corpus/plugin_abi/ (run from the repository root). The byte layout is
the one LLVMFuzzerTestOneInput in tests/fuzz/fuzz_plugin_abi.c reads; sizes assume
x86-64 (sizeof(dh_backend_t) 288 since ABI 1.6, DH_BACKEND_SIZE_V1_0 224)."""
import os
import struct

SIZEOF, V1_0, TAIL = 288, 224, 64
# indexes into the sizes[] table of the target
S_ZERO, S_ONE, S_8, S_16, S_V10M1, S_V10, S_EVENT, S_RAW, S_SZM1, S_SZ, S_SZP8, S_SZTAIL, S_2G, S_HALF, S_MAXM7, S_MAX = range(16)


def s(text):
    """A string field: mode byte (len + 1) and the bytes; None -> NULL."""
    if text is None:
        return b"\0"
    b = text.encode("latin-1") if isinstance(text, str) else text
    assert len(b) <= 63
    return bytes([len(b) + 1]) + b


def seed(size_idx=S_SZ, raw_size=None, major=1, minor=None, reserved=None, name="sim",
         desc="simulated accelerator", device_type=12, caps=0x1f, target_kind="sim",
         kind_json=None, present=0xFFFFFFFF, funcs=("noop", "fill", "echo", "raise"),
         funcs_null_count=None, tail=b"", avail=None, null_origin=False, options=None):
    out = bytearray()
    out.append(0xE0 if raw_size is not None else size_idx)
    if raw_size is not None:
        out += struct.pack("<Q", raw_size)
    hm = 0
    hm |= 1 if major == 1 else 0
    hm |= 2 if minor is None else 0
    hm |= 4 if reserved is None else 0
    hm |= 8 if caps > 0xFF else 0
    hm |= 16 if kind_json is not None else 0
    out.append(hm)
    if major != 1:
        out += struct.pack("<H", major)
    if minor is not None:
        out += struct.pack("<H", minor)
    if reserved is not None:
        out += struct.pack("<I", reserved)
    out += s(name) + s(desc)
    if 0 <= device_type + 4 < 0x80:
        out.append(device_type + 4)
    else:
        out.append(0x80)
        out += struct.pack("<i", device_type)
    out.append(caps & 0xFF)
    if caps > 0xFF:
        out += struct.pack("<I", caps >> 8)[:3]
    out += s(target_kind)
    if kind_json is not None:
        out += s(kind_json)
    out += struct.pack("<I", present)
    if funcs_null_count is not None:
        if funcs_null_count < 0x40:
            out.append(0x80 | funcs_null_count)
        else:
            out.append(0xC0)
            out += struct.pack("<Q", funcs_null_count)
    else:
        out.append(len(funcs))
        for f in funcs:
            if isinstance(f, tuple):  # (name or None/"", call present)
                fname, call = f
            else:
                fname, call = f, True
            c = 0 if call else 8
            if fname is None:
                c |= 4
                out.append(c)
            elif fname == "":
                c |= 2
                out.append(c)
            else:
                out.append(c | 1)
                out += s(fname)
    out += (tail + bytes(TAIL))[:TAIL]
    if avail is None and not null_origin:
        out.append(0)
    else:
        out.append(0xE1 if null_origin else 0xE0)
        out += struct.pack("<H", SIZEOF + TAIL if avail is None else avail)
    if options is not None:  # ABI 1.6: (mode byte, [option bytes])
        mode, opts = options
        out.append(mode)
        for o in opts:
            out += o
    return bytes(out)


def opt(name="tvm-lib", value_name="PATH", help_=None, flags=0):
    """One option of the ABI 1.6 table: name a slice (or "tvm-lib"/"rpc"/None),
    value_name "PATH"/""/None, help "its help" or a slice, flags 0/repeatable/raw."""
    c, rest = 0, b""
    if name == "rpc":
        pass
    elif name == "tvm-lib":
        c |= 2
    elif name is None:
        c |= 4
    else:
        c |= 1
        rest += s(name)
    c |= {None: 8, "": 16, "PATH": 0}[value_name]
    if help_ is not None:
        c |= 32
        rest += s(help_)
    if flags == 1:
        c |= 128
    elif flags:
        c |= 64
        rest += bytes([flags])
    return bytes([c]) + rest


ALL = 0xFFFFFFFF
seeds = {
    "valid_sim": seed(),
    "valid_size_v1_0": seed(size_idx=S_V10),
    "valid_size_event": seed(size_idx=S_EVENT),
    "valid_newer_minor": seed(size_idx=S_SZTAIL, minor=7, tail=b"\x11" * 64),
    "valid_huge_size": seed(size_idx=S_MAX),
    "valid_raw_size": seed(raw_size=1000),
    "valid_no_functions": seed(funcs=()),
    "valid_nonzero_reserved": seed(reserved=0xDEADBEEF),
    "valid_name_47": seed(name="a" * 47),
    "valid_device_type_63": seed(device_type=63),
    "valid_no_workspace": seed(present=ALL & ~((1 << 8) | (1 << 9))),
    "valid_no_optional": seed(present=0x7F0EF),  # init..sync_stream_from_to only
    "valid_kind_json": seed(kind_json='{"name": "sim"}'),
    "size_zero": seed(size_idx=S_ZERO),
    "size_one": seed(size_idx=S_ONE),
    "size_v1_0_minus_1": seed(size_idx=S_V10M1),
    "size_raw_223": seed(raw_size=V1_0 - 1),
    "abi_major_0": seed(major=0),
    "abi_major_2": seed(major=2),
    "abi_major_ffff": seed(major=0xFFFF),
    "name_null": seed(name=None),
    "name_empty": seed(name=""),
    "name_upper": seed(name="Sim"),
    "name_digit_first": seed(name="1sim"),
    "name_dash": seed(name="my-sim"),
    "name_48": seed(name="a" * 48),
    "name_nul_inside": seed(name=b"sim\0X"),
    "name_utf8": seed(name="s\xc3\xa9m"),
    "device_type_0": seed(device_type=0),
    "device_type_neg": seed(device_type=-1),
    "device_type_64": seed(device_type=64),
    "device_type_min": seed(device_type=-2**31),
    "missing_init": seed(present=ALL & ~1),
    "missing_get_attr": seed(present=ALL & ~(1 << 3)),
    "missing_copy": seed(present=ALL & ~(1 << 12)),
    "missing_sync_from_to": seed(present=ALL & ~(1 << 18)),
    "none_present": seed(present=0),
    "workspace_alloc_only": seed(present=ALL & ~(1 << 9)),
    "workspace_free_only": seed(present=ALL & ~(1 << 8)),
    "functions_null_3": seed(funcs_null_count=3),
    "functions_null_huge": seed(funcs_null_count=2**64 - 1),
    "functions_null_0": seed(funcs_null_count=0),
    "function_name_null": seed(funcs=("noop", (None, True))),
    "function_name_empty": seed(funcs=(("", True), "fill")),
    "function_call_null": seed(funcs=("noop", ("fill", False))),
    "functions_8": seed(funcs=tuple("f%d" % i for i in range(8))),
    "avail_below_header": seed(avail=8),
    "avail_header_only": seed(avail=12),
    "avail_v1_0_minus_1": seed(avail=V1_0 - 1),
    "avail_v1_0": seed(avail=V1_0),
    "avail_zero": seed(avail=0),
    "origin_null": seed(null_origin=True, name="Bad"),
    "empty": b"",
    "valid_options": seed(options=(2, [opt(), opt("rpc", flags=1)])),
    "options_no_set_option": seed(options=(0x40 | 2, [opt(), opt("rpc")])),
    "options_null_table": seed(options=(0x20 | 3, [])),
    "options_dup_name": seed(options=(2, [opt(), opt()])),
    "options_bad_name": seed(options=(1, [opt("Tvm_lib")])),
    "options_empty_value_name": seed(options=(1, [opt(value_name="")])),
    "options_help_newline": seed(options=(1, [opt(help_="two\nlines")])),
    "options_bad_flags": seed(options=(1, [opt(flags=6)])),
    "options_17": seed(options=(17, [opt("o%d" % i) for i in range(17)])),
}

d = "tests/fuzz/corpus/plugin_abi"
os.makedirs(d, exist_ok=True)
for k, v in seeds.items():
    with open(os.path.join(d, k), "wb") as f:
        f.write(v)
print("%d seeds in %s" % (len(seeds), d))
