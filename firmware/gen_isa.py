#!/usr/bin/env python3
"""Generates every artefact of the NPU command-stream ISA from firmware/isa.json.

Outputs (all derived from the one spec, so C++, SystemVerilog and docs cannot drift):
  --cpp-dir DIR    isa_generated.h / isa_generated.cc (nncosim::firmware: enums, structs,
                   encode/decode/validate/disassemble/assemble, register map)
  --sv-dir DIR     nnc_isa_pkg.sv (enums, field positions, packed structs, cmd_check())
                   and nnc_isa_probe.sv + isa_probe_reader.h (test-only: exposes the
                   package's view of a command so a GoogleTest can compare it to C++)
  --doc FILE       rewrites the generated tables inside FILE (between the markers)
  --check-doc FILE exits 1 if FILE's generated tables are stale (a CI test)

Files are only rewritten when their content changes, so a re-run does not rebuild.
"""

import argparse
import json
import os
import re
import sys

DOC_BEGIN = "<!-- BEGIN GENERATED TABLES (firmware/gen_isa.py --doc docs/isa.md) -->"
DOC_END = "<!-- END GENERATED TABLES -->"


def pascal(name):
    return "".join(p[:1].upper() + p[1:] for p in name.split("_"))


def camel(name):
    p = pascal(name)
    return p[:1].lower() + p[1:]


class SpecError(Exception):
    pass


class Enum:
    def __init__(self, d):
        self.name = d["name"]
        self.width = d["width"]
        self.doc = d.get("doc", "")
        self.values = [(v["name"], v["value"], v.get("doc", "")) for v in d["values"]]
        for n, v, _ in self.values:
            if not 0 <= v < (1 << self.width):
                raise SpecError(f"enum {self.name}: {n}={v} does not fit {self.width} bits")
        if len({v for _, v, _ in self.values}) != len(self.values):
            raise SpecError(f"enum {self.name}: duplicate values")
        self.cpp = pascal(self.name)
        self.sv = f"{self.name}_e"

    def cpp_value(self, n):
        return f"k{pascal(n)}"

    def sv_value(self, n):
        return f"{pascal(self.name)}{pascal(n)}"


# Names a field cannot take because they are SystemVerilog or C++ keywords.
RESERVED_NAMES = {
    "buf", "bufif0", "bufif1", "and", "or", "not", "xor", "nand", "nor", "xnor", "begin", "end",
    "module", "input", "output", "inout", "wire", "reg", "logic", "bit", "byte", "int", "integer",
    "time", "type", "string", "event", "case", "if", "else", "for", "while", "do", "default",
    "function", "task", "return", "class", "struct", "union", "enum", "typedef", "package", "signed",
    "unsigned", "const", "static", "virtual", "assert", "property", "sequence", "cover", "edge",
    "table", "config", "cell", "library", "design", "instance", "use", "force", "release", "wait",
    "delete", "new", "this", "super", "null", "char", "short", "long", "float", "double", "auto",
    "switch", "break", "continue", "operator", "template", "namespace", "private", "public",
}


class Field:
    def __init__(self, d, spec, opcode_name):
        self.name = d["name"]
        if self.name in RESERVED_NAMES:
            raise SpecError(f"{opcode_name}.{self.name}: the name is a SystemVerilog/C++ keyword")
        self.word = d["word"]
        self.lsb = d["lsb"]
        self.width = d["width"]
        self.doc = d.get("doc", "")
        t = d["type"]
        self.enum = None
        if t.startswith("enum:"):
            self.kind = "enum"
            self.enum = spec.enums[t[5:]]
            if self.enum.width != self.width:
                raise SpecError(f"{opcode_name}.{self.name}: enum width mismatch")
        elif t in ("uint", "sint", "bool"):
            self.kind = t
        else:
            raise SpecError(f"{opcode_name}.{self.name}: unknown type {t}")
        if self.kind == "bool" and self.width != 1:
            raise SpecError(f"{opcode_name}.{self.name}: bool must be 1 bit")
        if not (0 <= self.lsb and self.lsb + self.width <= 32 and 1 <= self.width <= 32):
            raise SpecError(f"{opcode_name}.{self.name}: must lie inside one 32-bit word")
        if self.kind == "sint":
            lo, hi = -(1 << (self.width - 1)), (1 << (self.width - 1)) - 1
        else:
            lo, hi = 0, (1 << self.width) - 1
        self.type_min, self.type_max = lo, hi
        self.min = spec.const(d.get("min", lo))
        self.max = spec.const(d.get("max", hi))
        if not (lo <= self.min <= self.max <= hi):
            raise SpecError(f"{opcode_name}.{self.name}: range [{self.min}, {self.max}] outside type")
        self.bit = self.word * 32 + self.lsb
        self.cpp = camel(self.name)

    @property
    def mask(self):
        return ((1 << self.width) - 1) << self.lsb

    def range_checked(self):
        return self.kind in ("uint", "sint") and (self.min != self.type_min or self.max != self.type_max)

    def cpp_type(self):
        if self.kind == "enum":
            return self.enum.cpp
        if self.kind == "bool":
            return "bool"
        return "int32_t" if self.kind == "sint" else "uint32_t"

    def is_hex(self):
        return self.name.endswith("addr") or "stride" in self.name


class Constraint:
    """A rule between fields, checked after the field ranges. Kinds:
    {"le": [a, b]}: a <= b; {"zero_unless": [a, g]}: a == 0 while bool g is clear;
    {"zero_when": [a, g]}: a == 0 while bool g is set;
    {"eq_product": [a, [b, ...]]}: a == b * ...; "when": g (optional) gates le and
    eq_product on bool g. The error names field a (its bit offset)."""

    def __init__(self, d, by_name, where):
        def field(n):
            if n not in by_name:
                raise SpecError(f"{where}: constraint names unknown field {n}")
            return by_name[n]
        kinds = [k for k in ("le", "zero_unless", "zero_when", "eq_product") if k in d]
        if len(kinds) != 1:
            raise SpecError(
                f"{where}: a constraint has exactly one of le, zero_unless, zero_when, eq_product")
        self.kind = kinds[0]
        self.doc = d.get("doc", "")
        self.when = field(d["when"]) if "when" in d else None
        args = d[self.kind]
        self.a = field(args[0])
        if self.kind == "eq_product":
            self.factors = [field(n) for n in args[1]]
            if any(f.kind not in ("uint",) for f in [self.a] + self.factors):
                raise SpecError(f"{where}: eq_product takes unsigned fields")
            if sum(f.width for f in self.factors) > 40:
                raise SpecError(f"{where}: eq_product's factors exceed the 40-bit check")
        else:
            self.b = field(args[1])
        if self.kind in ("zero_unless", "zero_when") and (self.b.kind != "bool" or self.when):
            raise SpecError(f"{where}: {self.kind} takes a bool gate and no when")
        if self.when is not None and self.when.kind != "bool":
            raise SpecError(f"{where}: when takes a bool field")

    def text(self):
        if self.kind == "le":
            t = f"{self.a.name} <= {self.b.name}"
        elif self.kind == "zero_unless":
            return f"{self.a.name} = 0 unless {self.b.name}"
        elif self.kind == "zero_when":
            return f"{self.a.name} = 0 when {self.b.name}"
        else:
            t = f"{self.a.name} = {' * '.join(f.name for f in self.factors)}"
        return t + (f" when {self.when.name}" if self.when else "")


class Command:
    def __init__(self, d, spec):
        self.opcode = d["opcode"]
        self.queue = d["queue"]
        self.doc = d.get("doc", "")
        self.value = dict((n, v) for n, v, _ in spec.enums["opcode"].values)[self.opcode]
        self.header = [Field(f, spec, self.opcode) for f in spec.raw["header"]]
        self.fields = [Field(f, spec, self.opcode) for f in d["fields"]]
        self.all = self.header + self.fields
        names = [f.name for f in self.all]
        if len(set(names)) != len(names):
            raise SpecError(f"{self.opcode}: duplicate field names")
        used = [0] * spec.words
        for f in self.all:
            if f.word >= spec.words:
                raise SpecError(f"{self.opcode}.{f.name}: word {f.word} beyond the command")
            if used[f.word] & f.mask:
                raise SpecError(f"{self.opcode}.{f.name}: overlaps another field")
            used[f.word] |= f.mask
        self.rsvd = [(~u) & 0xFFFFFFFF for u in used]
        # Contiguous reserved runs, checked as pseudo-fields (error bit = run's first bit).
        self.rsvd_runs = []
        for w in range(spec.words):
            b = 0
            while b < 32:
                if (self.rsvd[w] >> b) & 1:
                    e = b
                    while e < 32 and (self.rsvd[w] >> e) & 1:
                        e += 1
                    self.rsvd_runs.append((w, b, e - b))
                    b = e
                else:
                    b += 1
        by_name = {f.name: f for f in self.all}
        self.constraints = [Constraint(c, by_name, self.opcode) for c in d.get("constraints", [])]
        self.cpp = pascal(self.opcode)
        if self.queue.startswith("$"):
            self.queue_field = by_name[self.queue[1:]]
        else:
            self.queue_field = None
            if self.queue not in spec.raw["queues"]:
                raise SpecError(f"{self.opcode}: unknown queue {self.queue}")

    def forbidden(self, spec, queue):
        return [f for f in self.header if f.name in spec.raw["queues"][queue]["forbid"]]

HEX_RE = re.compile(r"0x[0-9A-Fa-f]+")


def hex_number(v, where, bits=32):
    """A bit pattern (register offset, reset or magic value): the spec writes it as a
    "0x..." string, because a decimal rendering hides the bits (1313752881 passed for
    'NNC1' while it spelled 'NNG1')."""
    if not isinstance(v, str) or not HEX_RE.fullmatch(v):
        raise SpecError(f'{where}: {v!r} is not a hex string; write bit patterns as "0x..."')
    n = int(v, 16)
    if n >= 1 << bits:
        raise SpecError(f"{where}: {v} does not fit {bits} bits")
    return n


def count(v, where, lo=0):
    """A quantity (size, depth, width, position): a decimal JSON integer."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise SpecError(f"{where}: {v!r} is not an integer; quantities are decimal numbers")
    if v < lo:
        raise SpecError(f"{where}: {v} is below {lo}")
    return v


class Constant:
    """A number of the hardware contract: the RTL package, the C++ headers and the docs
    take it from here, and a CONFIG register reports it when a register field names it."""

    def __init__(self, d, consts):
        self.name = d["name"]
        self.doc = d.get("doc", "")
        where = f"constant {self.name}"
        self.value = count(d["value"], where, lo=1)
        # Circular buffers index with $clog2(depth)-bit pointers that wrap by overflow.
        if d.get("pow2") and (self.value < 2 or self.value & (self.value - 1)):
            raise SpecError(f"{where}: {self.value} must be a power of two >= 2")
        if "limit_bits" in d:
            bits = d["limit_bits"]
            if bits not in consts:
                raise SpecError(f"{where}: limit_bits names unknown constant {bits!r}")
            if self.value > 1 << consts[bits].value:
                raise SpecError(f"{where}: {self.value} exceeds 2^{bits} = {1 << consts[bits].value}")
        self.reported_by = None  # "REGISTER.field" text, set by the register that reports it


class RegField:
    def __init__(self, d, reg, consts):
        self.name = d["name"]
        self.doc = d.get("doc", "")
        where = f"register {reg.name}.{self.name}"
        self.lsb = count(d["lsb"], where + " lsb")
        self.width = count(d["width"], where + " width", lo=1)
        if self.lsb + self.width > 32:
            raise SpecError(f"{where}: bits [{self.lsb + self.width - 1}:{self.lsb}] beyond 32")
        self.mask = ((1 << self.width) - 1) << self.lsb
        self.reports = reports(d, where, consts, self.width, f"{reg.name.upper()}.{self.name}")


def reports(d, where, consts, width, text):
    """The constant a read-only register or field reads as, checked to fit its bits."""
    if "reports" not in d:
        return None
    name = d["reports"]
    if name not in consts:
        raise SpecError(f"{where}: reports unknown constant {name!r}")
    c = consts[name]
    if c.value >= 1 << width:
        raise SpecError(f"{where}: {name} = {c.value} does not fit {width} bits")
    if c.reported_by:
        raise SpecError(f"{where}: {name} is already reported by {c.reported_by}")
    c.reported_by = text
    return c


class Register:
    def __init__(self, d, consts, addr_bits):
        self.name = d["name"]
        self.doc = d.get("doc", "")
        self.access = d["access"]
        where = f"register {self.name}"
        if self.access not in ("ro", "rw", "wo", "rw1c"):
            raise SpecError(f"{where}: unknown access {self.access!r}")
        self.offset = hex_number(d["offset"], where + " offset", bits=addr_bits)
        if self.offset % 4:
            raise SpecError(f"{where}: offset {d['offset']} is not word aligned")
        self.reset = hex_number(d["reset"], where + " reset") if "reset" in d else None
        # An ASCII magic is checked against its hex value, most significant byte first.
        if "ascii" in d:
            text = d["ascii"]
            if self.reset is None or len(text) != 4 or int.from_bytes(text.encode("ascii"), "big") != self.reset:
                raise SpecError(f"{where}: reset {d.get('reset')} does not spell {text!r} in ASCII")
        self.fields = [RegField(f, self, consts) for f in d.get("fields", [])]
        used = 0
        for f in self.fields:
            if used & f.mask:
                raise SpecError(f"{where}.{f.name}: overlaps another field")
            used |= f.mask
        self.reports = reports(d, where, consts, 32, self.name.upper())
        if (self.reports or any(f.reports for f in self.fields)) and self.access != "ro":
            raise SpecError(f"{where}: only a read-only register reports a constant")
        if self.reports and self.fields:
            raise SpecError(f"{where}: reports a constant as a whole and has fields")

    def reported(self):
        """(constant, mask, lsb) for every constant this register reports."""
        if self.reports:
            return [(self.reports, 0xFFFFFFFF, 0)]
        return [(f.reports, f.mask, f.lsb) for f in self.fields if f.reports]


class Spec:
    def __init__(self, path, overrides=None):
        with open(path) as fh:
            self.raw = json.load(fh)
        # A build variant (e.g. a 32x32 array) overrides contract constants before anything
        # derives from them, so every artefact describes the hardware that is built.
        for name, value in (overrides or {}).items():
            hits = [c for c in self.raw["constants"] if c["name"] == name]
            if not hits:
                raise SpecError(f"--set {name}: no such constant")
            hits[0]["value"] = value
        self.words = self.raw["command_words"]
        self.bits = self.words * 32
        self.consts = {}
        for c in self.raw["constants"]:
            if c["name"] in self.consts:
                raise SpecError(f"constant {c['name']}: defined twice")
            self.consts[c["name"]] = Constant(c, self.consts)
        self.enums = {}
        for e in self.raw["enums"]:
            self.enums[e["name"]] = Enum(e)
        self.commands = [Command(c, self) for c in self.raw["commands"]]
        self.major = count(self.raw["version"]["major"], "version major")
        self.minor = count(self.raw["version"]["minor"], "version minor")
        if "reg_addr_bits" not in self.consts:
            raise SpecError("constants: reg_addr_bits (the register offset width) is missing")
        self.reg_addr_bits = self.consts["reg_addr_bits"].value
        self.registers = [Register(r, self.consts, self.reg_addr_bits) for r in self.raw["registers"]]
        seen = {}
        for r in self.registers:
            if r.offset in seen:
                raise SpecError(f"register {r.name}: offset 0x{r.offset:03X} is also {seen[r.offset]}'s")
            seen[r.offset] = r.name
        ident = [r for r in self.registers if r.name == "id"]
        if not ident or ident[0].reset is None:
            raise SpecError("registers: id has no reset value")
        self.id_value = ident[0].reset

    def const(self, v):
        if isinstance(v, str):
            if v not in self.consts:
                raise SpecError(f"unknown constant {v!r}")
            return self.consts[v].value
        return v

    def config_reports(self):
        """(register, constant, mask, lsb) for every constant a register reports."""
        return [(r, c, m, lsb) for r in self.registers for c, m, lsb in r.reported()]


# ------------------------------------------------------------------------------------------
# C++
# ------------------------------------------------------------------------------------------

def gen_cpp_header(s):
    o = []
    w = o.append
    w("// GENERATED by firmware/gen_isa.py from firmware/isa.json. DO NOT EDIT.")
    w("// The NPU command-stream ISA: fixed 8 x 32-bit commands, their fields, and the")
    w("// register map. docs/isa.md describes the semantics.")
    w("#pragma once")
    w("")
    w("#include <array>")
    w("#include <cstdint>")
    w("#include <string>")
    w("#include <variant>")
    w("#include <vector>")
    w("")
    w('#include "hal/result.h"')
    w("")
    w("namespace nncosim::firmware {")
    w("")
    w(f"inline constexpr int kCommandWords = {s.words};")
    w(f"inline constexpr int kCommandBytes = {s.words * 4};")
    w(f"inline constexpr uint32_t kIsaVersionMajor = {s.major};")
    w(f"inline constexpr uint32_t kIsaVersionMinor = {s.minor};")
    w(f"inline constexpr uint32_t kIsaVersion = (kIsaVersionMajor << 16) | kIsaVersionMinor;")
    w("// The hardware contract: the RTL package (nnc_isa_pkg) has the same numbers, and the")
    w("// CONFIG registers report them (reg::kConfigReports).")
    for c in s.consts.values():
        w(f"inline constexpr uint32_t k{pascal(c.name)} = {c.value};  // {c.doc}")
    w("")
    w("using CommandWords = std::array<uint32_t, kCommandWords>;")
    w("")
    for e in s.enums.values():
        w(f"// {e.doc}")
        w(f"enum class {e.cpp} : uint32_t {{")
        for n, v, d in e.values:
            w(f"  {e.cpp_value(n)} = {v},  // {d}")
        w("};")
        w(f"const char* toString({e.cpp} v);  // spec name, or \"?\" for an undefined value")
        w(f"bool isValid({e.cpp} v);")
        w("")
    w("// Dependency-token flags carried by every command (TVM VTA style): queues are")
    w("// load -> compute -> store; 'prev'/'next' are the neighbours of the executing queue.")
    w("struct Deps {")
    for f in s.commands[0].header[1:]:
        w(f"  bool {f.cpp} = false;  // {f.doc}")
    w("};")
    w("bool operator==(const Deps& a, const Deps& b);")
    w("")
    for c in s.commands:
        w(f"// {c.opcode.upper()}: {s.enums['opcode'].values[[n for n, _, _ in s.enums['opcode'].values].index(c.opcode)][2]}")
        w(f"struct {c.cpp} {{")
        w(f"  static constexpr Opcode kOpcode = Opcode::k{c.cpp};")
        for f in c.fields:
            if f.kind == "enum":
                init = f"{f.enum.cpp}::{f.enum.cpp_value(f.enum.values[0][0])}"
            elif f.kind == "bool":
                init = "false"
            else:
                init = str(f.min) if f.min > 0 else "0"
            w(f"  {f.cpp_type()} {f.cpp} = {init};  // {f.doc}")
        w("};")
        w(f"bool operator==(const {c.cpp}& a, const {c.cpp}& b);")
        w("")
    w("using CommandArgs = std::variant<" + ", ".join(c.cpp for c in s.commands) + ">;")
    w("")
    w("struct Command {")
    w("  Deps deps;")
    w("  CommandArgs args;")
    w("  Opcode opcode() const;")
    w("};")
    w("bool operator==(const Command& a, const Command& b);")
    w("inline bool operator!=(const Command& a, const Command& b) { return !(a == b); }")
    w("")
    w("// The queue a command executes in (SYNC: its queue field; END: none).")
    w("enum class QueueOf : uint32_t { kLoad, kCompute, kStore, kNone };")
    w("QueueOf queueOf(const Command& c);")
    w("inline bool inQueue(const Command& c, QueueOf q) { return queueOf(c) == q; }")
    w("")
    w("// Field introspection (tests, tools, the disassembler).")
    w("enum class FieldKind : uint32_t { kUint, kSint, kBool, kEnum };")
    w("struct FieldInfo {")
    w("  const char* name;")
    w("  int word, lsb, width;")
    w("  int bit;  // word * 32 + lsb: position in the 256-bit command")
    w("  FieldKind kind;")
    w("  int64_t min, max;  // legal range (enums: any defined value)")
    w("  std::vector<uint32_t> enumValues;  // kEnum only")
    w("};")
    w("struct OpcodeInfo {")
    w("  Opcode opcode;")
    w("  const char* name;")
    w("  std::vector<FieldInfo> fields;  // header fields first")
    w("  CommandWords reservedMask;      // bits that must be zero")
    w("};")
    w("const std::vector<OpcodeInfo>& isaTable();")
    w("const OpcodeInfo* findOpcode(Opcode op);")
    w("")
    w("struct FieldValue {")
    w("  const char* name;")
    w("  int bit;")
    w("  int width;")
    w("  int64_t value;  // signed fields sign-extended, enums and bools as their encoding")
    w("};")
    w("// Every field of c (header first) in spec order.")
    w("std::vector<FieldValue> fieldValues(const Command& c);")
    w("// Sets a field by spec name (header or argument); fails on an unknown name.")
    w("hal::Status setField(Command& c, const std::string& name, int64_t value);")
    w("// A command with every field at its default for the opcode.")
    w("hal::Result<Command> makeCommand(Opcode op);")
    w("")
    w("// The hardware's decode check (nnc_isa_pkg::cmd_check computes the same): the first")
    w("// violated rule in the order reserved bits, field ranges, dependency flags, constraints.")
    w("struct CheckResult {")
    w("  ErrCode code = ErrCode::kNone;")
    w("  int bit = 0;         // bit offset of the offending field (0 for a bad opcode)")
    w("  std::string message;  // names the field; empty when ok")
    w("};")
    w("CheckResult check(const CommandWords& words);")
    w("")
    w("// Encoding. encode() masks each field to its width: call validate() first (or use")
    w("// encodeChecked) so that an out-of-range value is an error, not a silently different command.")
    w("hal::Status validate(const Command& c);")
    w("CommandWords encode(const Command& c);")
    w("hal::Result<CommandWords> encodeChecked(const Command& c);")
    w("// Rejects undefined opcodes, reserved bits, out-of-range fields, forbidden dependency")
    w("// flags and violated constraints with an error naming the field.")
    w("hal::Result<Command> decode(const CommandWords& words);")
    w("")
    w("// One line: 'gemm m=16 n=16 ... ' (dependency flags only when set). Invalid words give")
    w("// '<invalid: reason> [w0 .. w7]'.")
    w("std::string disassemble(const CommandWords& words);")
    w("std::string disassemble(const Command& c);")
    w("// Parses disassemble()'s format (numbers decimal or 0x hex; missing fields default).")
    w("hal::Result<Command> assemble(const std::string& line);")
    w("")
    w("// Register map of the AXI4-Lite slave (byte offsets).")
    w("namespace reg {")
    for r in s.registers:
        w(f"inline constexpr uint32_t k{pascal(r.name)} = 0x{r.offset:03X};  // {r.doc}")
        for f in r.fields:
            w(f"inline constexpr uint32_t k{pascal(r.name)}{pascal(f.name)} = 0x{f.mask:X};  // {f.doc}")
            w(f"inline constexpr int k{pascal(r.name)}{pascal(f.name)}Lsb = {f.lsb};")
    w(f"inline constexpr uint32_t kIdValue = 0x{s.id_value:08X};")
    w("")
    w("// Where the CONFIG registers report the hardware-contract constants: on a live NPU,")
    w("// (register & mask) >> lsb == value for every entry.")
    w("struct ConfigReport {")
    w("  const char* constant;  // spec name (firmware/isa.json constants)")
    w("  uint32_t value;        // the spec's value")
    w("  uint32_t offset, mask;")
    w("  int lsb;")
    w("};")
    rep = s.config_reports()
    w(f"inline constexpr std::array<ConfigReport, {len(rep)}> kConfigReports = {{{{")
    for r, c, m, lsb in rep:
        w(f'    {{"{c.name}", firmware::k{pascal(c.name)}, k{pascal(r.name)}, 0x{m:08X}, {lsb}}},')
    w("}};")
    w("}  // namespace reg")
    w("")
    w("}  // namespace nncosim::firmware")
    return "\n".join(o) + "\n"


def cpp_extract(f):
    raw = f"((w[{f.word}] >> {f.lsb}) & 0x{(1 << f.width) - 1:X}u)"
    return raw


def cpp_signed(f, raw):
    if f.width == 32:
        return f"static_cast<int64_t>(static_cast<int32_t>({raw}))"
    return f"signExtend({raw}, {f.width})"


def gen_cpp_source(s):
    o = []
    w = o.append
    w("// GENERATED by firmware/gen_isa.py from firmware/isa.json. DO NOT EDIT.")
    w('#include "firmware/isa_generated.h"')
    w("")
    w("#include <cctype>")
    w("#include <cstdio>")
    w("#include <sstream>")
    w("#include <type_traits>")
    w("")
    w("namespace nncosim::firmware {")
    w("")
    w("namespace {")
    w("")
    w("int64_t signExtend(uint32_t v, int width) {")
    w("  const uint64_t m = uint64_t{1} << (width - 1);")
    w("  return static_cast<int64_t>((uint64_t{v} ^ m)) - static_cast<int64_t>(m);")
    w("}")
    w("")
    w("std::string hex32(uint32_t v) {")
    w("  char buf[16];")
    w('  std::snprintf(buf, sizeof buf, "0x%08x", v);')
    w("  return buf;")
    w("}")
    w("")
    w("std::string bitsText(int word, int lsb, int width) {")
    w("  std::ostringstream os;")
    w('  os << "word " << word << " bits [" << (lsb + width - 1) << ":" << lsb << "]";')
    w("  return os.str();")
    w("}")
    w("")
    w("}  // namespace")
    w("")
    for e in s.enums.values():
        w(f"const char* toString({e.cpp} v) {{")
        w("  switch (v) {")
        for n, v, _ in e.values:
            w(f'    case {e.cpp}::{e.cpp_value(n)}: return "{n}";')
        w("  }")
        w('  return "?";')
        w("}")
        w(f"bool isValid({e.cpp} v) {{ return toString(v)[0] != '?'; }}")
        w("")
    w("bool operator==(const Deps& a, const Deps& b) {")
    w("  return " + " && ".join(f"a.{f.cpp} == b.{f.cpp}" for f in s.commands[0].header[1:]) + ";")
    w("}")
    for c in s.commands:
        w(f"bool operator==(const {c.cpp}& a, const {c.cpp}& b) {{")
        if c.fields:
            w("  return " + " && ".join(f"a.{f.cpp} == b.{f.cpp}" for f in c.fields) + ";")
        else:
            w("  return true;")
        w("}")
    w("bool operator==(const Command& a, const Command& b) { return a.deps == b.deps && a.args == b.args; }")
    w("")
    w("Opcode Command::opcode() const {")
    w("  return std::visit([](const auto& a) { return std::decay_t<decltype(a)>::kOpcode; }, args);")
    w("}")
    w("")
    w("QueueOf queueOf(const Command& c) {")
    w("  switch (c.opcode()) {")
    for c in s.commands:
        if c.queue_field:
            w(f"    case Opcode::k{c.cpp}: return static_cast<QueueOf>(std::get<{c.cpp}>(c.args).{c.queue_field.cpp});")
        else:
            w(f"    case Opcode::k{c.cpp}: return QueueOf::k{pascal(c.queue)};")
    w("  }")
    w("  return QueueOf::kNone;")
    w("}")
    w("")
    # isaTable
    w("const std::vector<OpcodeInfo>& isaTable() {")
    w("  static const std::vector<OpcodeInfo> table = {")
    for c in s.commands:
        w(f'    {{Opcode::k{c.cpp}, "{c.opcode}", {{')
        for f in c.all:
            ev = ", ".join(str(v) for _, v, _ in f.enum.values) if f.enum else ""
            w(f'      {{"{f.name}", {f.word}, {f.lsb}, {f.width}, {f.bit}, FieldKind::k{pascal(f.kind)}, '
              f'{f.min}LL, {f.max}LL, {{{ev}}}}},')
        w("    }, {{" + ", ".join(f"0x{m:08X}u" for m in c.rsvd) + "}}},")
    w("  };")
    w("  return table;")
    w("}")
    w("")
    w("const OpcodeInfo* findOpcode(Opcode op) {")
    w("  for (const auto& i : isaTable()) {")
    w("    if (i.opcode == op) return &i;")
    w("  }")
    w("  return nullptr;")
    w("}")
    w("")
    # fieldValues
    w("std::vector<FieldValue> fieldValues(const Command& c) {")
    w("  std::vector<FieldValue> v;")
    hdr = s.commands[0].header
    w(f'  v.push_back({{"opcode", {hdr[0].bit}, {hdr[0].width}, static_cast<int64_t>(c.opcode())}});')
    for f in hdr[1:]:
        w(f'  v.push_back({{"{f.name}", {f.bit}, {f.width}, c.deps.{f.cpp} ? 1 : 0}});')
    w("  std::visit([&](const auto& a) {")
    w("    using T = std::decay_t<decltype(a)>;")
    first = True
    for c in s.commands:
        w(f"    {'if' if first else '} else if'} constexpr (std::is_same_v<T, {c.cpp}>) {{")
        first = False
        for f in c.fields:
            w(f'      v.push_back({{"{f.name}", {f.bit}, {f.width}, static_cast<int64_t>(a.{f.cpp})}});')
    w("    }")
    w("  }, c.args);")
    w("  return v;")
    w("}")
    w("")
    # setField
    w("hal::Status setField(Command& c, const std::string& name, int64_t value) {")
    for f in hdr[1:]:
        w(f'  if (name == "{f.name}") {{ c.deps.{f.cpp} = value != 0; return hal::Status::Ok(); }}')
    w("  bool found = false;")
    w("  std::visit([&](auto& a) {")
    w("    using T = std::decay_t<decltype(a)>;")
    first = True
    for c in s.commands:
        w(f"    {'if' if first else '} else if'} constexpr (std::is_same_v<T, {c.cpp}>) {{")
        first = False
        for f in c.fields:
            if f.kind == "bool":
                conv = "value != 0"
            else:
                conv = f"static_cast<{f.cpp_type()}>(value)"
            w(f'      if (name == "{f.name}") {{ a.{f.cpp} = {conv}; found = true; }}')
    w("    }")
    w("  }, c.args);")
    w('  if (!found) return hal::fail(toString(c.opcode()), ": no field named \'", name, "\'");')
    w("  return hal::Status::Ok();")
    w("}")
    w("")
    w("hal::Result<Command> makeCommand(Opcode op) {")
    w("  switch (op) {")
    for c in s.commands:
        w(f"    case Opcode::k{c.cpp}: return Command{{Deps{{}}, {c.cpp}{{}}}};")
    w("  }")
    w('  return hal::fail("makeCommand: undefined opcode ", static_cast<uint32_t>(op));')
    w("}")
    w("")
    # check
    w("CheckResult check(const CommandWords& w) {")
    w("  auto bad = [](ErrCode code, int bit, std::string msg) { return CheckResult{code, bit, std::move(msg)}; };")
    w(f"  const uint32_t op = {cpp_extract(hdr[0])};")
    w("  switch (op) {")
    for c in s.commands:
        w(f"    case {c.value}: {{  // {c.opcode}")
        for (wd, lsb, width) in c.rsvd_runs:
            m = ((1 << width) - 1) << lsb
            w(f"      if ((w[{wd}] & 0x{m:08X}u) != 0)")
            w(f'        return bad(ErrCode::kBadField, {wd * 32 + lsb}, "{c.opcode}: reserved " + bitsText({wd}, {lsb}, {width}) + " must be zero, got " + hex32(w[{wd}] & 0x{m:08X}u));')
        for f in c.all:
            raw = cpp_extract(f)
            where = f'" (" + bitsText({f.word}, {f.lsb}, {f.width}) + ")"'
            if f.kind == "enum" and f.name != "opcode":
                vals = " && ".join(f"v != {v}u" for _, v, _ in f.enum.values)
                w(f"      if (const uint32_t v = {raw}; {vals})")
                w(f'        return bad(ErrCode::kBadField, {f.bit}, "{c.opcode}: field {f.name} = " + std::to_string(v) + " is not a defined {f.enum.name}"{" + " + where});')
            elif f.range_checked():
                val = cpp_signed(f, raw) if f.kind == "sint" else f"static_cast<int64_t>({raw})"
                conds = []
                if f.min != f.type_min:
                    conds.append(f"v < {f.min}LL")
                if f.max != f.type_max:
                    conds.append(f"v > {f.max}LL")
                w(f"      if (const int64_t v = {val}; {' || '.join(conds)})")
                w(f'        return bad(ErrCode::kBadField, {f.bit}, "{c.opcode}: field {f.name} = " + std::to_string(v) + " out of range [{f.min}, {f.max}]"{" + " + where});')
        # dependency flags
        if c.queue_field:
            qf = c.queue_field
            for qn, qv, _ in qf.enum.values:
                for f in c.forbidden(s, qn):
                    w(f"      if ({cpp_extract(qf)} == {qv}u && {cpp_extract(f)} != 0)")
                    w(f'        return bad(ErrCode::kBadField, {f.bit}, "{c.opcode}: {f.name} is not allowed in the {qn} queue");')
        else:
            for f in c.forbidden(s, c.queue):
                w(f"      if ({cpp_extract(f)} != 0)")
                w(f'        return bad(ErrCode::kBadField, {f.bit}, "{c.opcode}: {f.name} is not allowed in the {c.queue} queue");')
        def cpp_value(f):
            return cpp_signed(f, cpp_extract(f)) if f.kind == "sint" else f"static_cast<int64_t>({cpp_extract(f)})"
        for k in c.constraints:
            a = k.a
            va = cpp_value(a)
            gate = f"{cpp_extract(k.when)} != 0 && " if k.when else ""
            if k.kind == "le":
                vb = cpp_value(k.b)
                w(f"      if ({gate}{va} > {vb})")
                w(f'        return bad(ErrCode::kBadField, {a.bit}, "{c.opcode}: field {a.name} = " + std::to_string({va}) + " must be <= {k.b.name} = " + std::to_string({vb}));')
            elif k.kind == "zero_unless":
                w(f"      if ({cpp_extract(k.b)} == 0 && {va} != 0)")
                w(f'        return bad(ErrCode::kBadField, {a.bit}, "{c.opcode}: field {a.name} = " + std::to_string({va}) + " must be 0 without {k.b.name}");')
            elif k.kind == "zero_when":
                w(f"      if ({cpp_extract(k.b)} != 0 && {va} != 0)")
                w(f'        return bad(ErrCode::kBadField, {a.bit}, "{c.opcode}: field {a.name} = " + std::to_string({va}) + " must be 0 with {k.b.name}");')
            else:
                prod = " * ".join(cpp_value(f) for f in k.factors)
                names = " * ".join(f.name for f in k.factors)
                w(f"      if ({gate}{va} != {prod})")
                w(f'        return bad(ErrCode::kBadField, {a.bit}, "{c.opcode}: field {a.name} = " + std::to_string({va}) + " must equal {names} = " + std::to_string({prod}));')
        w("      return CheckResult{};")
        w("    }")
    w("    default:")
    w('      return bad(ErrCode::kBadOpcode, 0, "undefined opcode " + std::to_string(op) + " (word 0 bits [7:0])");')
    w("  }")
    w("}")
    w("")
    # encode
    w("CommandWords encode(const Command& c) {")
    w("  CommandWords w{};")
    w(f"  w[{hdr[0].word}] |= (static_cast<uint32_t>(c.opcode()) & 0x{(1 << hdr[0].width) - 1:X}u) << {hdr[0].lsb};")
    for f in hdr[1:]:
        w(f"  w[{f.word}] |= (c.deps.{f.cpp} ? 1u : 0u) << {f.lsb};")
    w("  std::visit([&](const auto& a) {")
    w("    using T = std::decay_t<decltype(a)>;")
    first = True
    for c in s.commands:
        w(f"    {'if' if first else '} else if'} constexpr (std::is_same_v<T, {c.cpp}>) {{")
        first = False
        for f in c.fields:
            w(f"      w[{f.word}] |= (static_cast<uint32_t>(a.{f.cpp}) & 0x{(1 << f.width) - 1:X}u) << {f.lsb};")
    w("    }")
    w("  }, c.args);")
    w("  return w;")
    w("}")
    w("")
    # validate
    w("hal::Status validate(const Command& c) {")
    w("  // Values must fit their fields before the word-level check can see them.")
    w("  for (const FieldValue& f : fieldValues(c)) {")
    w("    const OpcodeInfo* info = findOpcode(c.opcode());")
    w("    for (const FieldInfo& fi : info->fields) {")
    w("      if (fi.bit != f.bit) continue;")
    w("      const bool isSigned = fi.kind == FieldKind::kSint;")
    w("      const int64_t lo = isSigned ? -(int64_t{1} << (fi.width - 1)) : 0;")
    w("      const int64_t hi = isSigned ? (int64_t{1} << (fi.width - 1)) - 1 : (int64_t{1} << fi.width) - 1;")
    w("      if (f.value < lo || f.value > hi)")
    w('        return hal::fail(info->name, ": field ", fi.name, " = ", f.value, " does not fit in ", fi.width, " bits");')
    w("    }")
    w("  }")
    w("  const CheckResult r = check(encode(c));")
    w("  if (r.code != ErrCode::kNone) return hal::Error{r.message};")
    w("  return hal::Status::Ok();")
    w("}")
    w("")
    w("hal::Result<CommandWords> encodeChecked(const Command& c) {")
    w("  NNC_TRY(validate(c));")
    w("  return encode(c);")
    w("}")
    w("")
    # decode
    w("hal::Result<Command> decode(const CommandWords& w) {")
    w("  const CheckResult r = check(w);")
    w("  if (r.code != ErrCode::kNone) return hal::Error{r.message};")
    w("  Command c;")
    for f in hdr[1:]:
        w(f"  c.deps.{f.cpp} = {cpp_extract(f)} != 0;")
    w(f"  switch ({cpp_extract(hdr[0])}) {{")
    for c in s.commands:
        w(f"    case {c.value}: {{")
        w(f"      {c.cpp} a;")
        for f in c.fields:
            raw = cpp_extract(f)
            if f.kind == "enum":
                v = f"static_cast<{f.enum.cpp}>({raw})"
            elif f.kind == "bool":
                v = f"{raw} != 0"
            elif f.kind == "sint":
                v = f"static_cast<int32_t>({cpp_signed(f, raw)})"
            else:
                v = raw
            w(f"      a.{f.cpp} = {v};")
        w("      c.args = a;")
        w("      break;")
        w("    }")
    w("  }")
    w("  return c;")
    w("}")
    w("")
    # disassemble
    w("std::string disassemble(const Command& c) {")
    w("  std::ostringstream os;")
    w("  os << toString(c.opcode());")
    w("  const std::vector<FieldValue> values = fieldValues(c);")
    w("  auto valueOf = [&](const std::string& n) {")
    w("    for (const FieldValue& f : values)")
    w("      if (n == f.name) return f.value;")
    w("    return int64_t{0};")
    w("  };")
    w("  for (const FieldValue& f : values) {")
    w('    const std::string name = f.name;')
    w('    if (name == "opcode") continue;')
    flag_names = " || ".join(f'name == "{f.name}"' for f in hdr[1:])
    w(f"    if (({flag_names}) && f.value == 0) continue;")
    # Fields that must be zero while their gate is clear (zero_unless) say nothing then.
    for c in s.commands:
        gates = {}
        for k in c.constraints:
            if k.kind == "zero_unless":
                gates.setdefault(k.b.name, []).append(k.a.name)
        for gate, names in gates.items():
            cond = " || ".join(f'name == "{n}"' for n in names)
            w(f'    if (c.opcode() == Opcode::k{c.cpp} && ({cond}) && valueOf("{gate}") == 0) continue;')
    w('    os << " " << name << "=";')
    w("    bool done = false;")
    w("    const OpcodeInfo* info = findOpcode(c.opcode());")
    w("    for (const FieldInfo& fi : info->fields) {")
    w("      if (fi.bit != f.bit || fi.kind != FieldKind::kEnum) continue;")
    w("      // Enum fields print their value name.")
    w("      os << enumName(info->opcode, fi.name, static_cast<uint32_t>(f.value));")
    w("      done = true;")
    w("    }")
    w("    if (done) continue;")
    w('    const bool hexField = name.find("addr") != std::string::npos || name.find("stride") != std::string::npos;')
    w("    if (hexField) os << hex32(static_cast<uint32_t>(f.value));")
    w("    else os << f.value;")
    w("  }")
    w("  return os.str();")
    w("}")
    w("")
    w("std::string disassemble(const CommandWords& w) {")
    w("  const CheckResult r = check(w);")
    w("  if (r.code == ErrCode::kNone) return disassemble(*decode(w));")
    w('  std::string s = "<invalid: " + r.message + "> [";')
    w("  for (int i = 0; i < kCommandWords; ++i) s += (i ? \" \" : \"\") + hex32(w[i]);")
    w('  return s + "]";')
    w("}")
    w("")
    # assemble
    w("hal::Result<Command> assemble(const std::string& line) {")
    w("  std::istringstream is(line);")
    w("  std::string opName;")
    w('  if (!(is >> opName)) return hal::fail("assemble: empty line");')
    w("  const OpcodeInfo* info = nullptr;")
    w("  for (const auto& i : isaTable()) {")
    w("    if (opName == i.name) info = &i;")
    w("  }")
    w('  if (!info) return hal::fail("assemble: unknown opcode \'", opName, "\'");')
    w("  auto made = makeCommand(info->opcode);")
    w("  NNC_TRY(made);")
    w("  Command c = *made;")
    w("  std::string tok;")
    w("  while (is >> tok) {")
    w("    const size_t eq = tok.find('=');")
    w('    if (eq == std::string::npos) return hal::fail("assemble: expected name=value, got \'", tok, "\'");')
    w("    const std::string name = tok.substr(0, eq), text = tok.substr(eq + 1);")
    w("    const FieldInfo* fi = nullptr;")
    w("    for (const FieldInfo& f : info->fields) {")
    w("      if (name == f.name) fi = &f;")
    w("    }")
    w('    if (!fi || name == "opcode") return hal::fail("assemble: ", opName, " has no field \'", name, "\'");')
    w("    int64_t value = 0;")
    w("    if (fi->kind == FieldKind::kEnum && !text.empty() && std::isalpha(static_cast<unsigned char>(text[0]))) {")
    w("      bool ok = false;")
    w("      for (uint32_t v : fi->enumValues) {")
    w("        if (text == enumName(info->opcode, fi->name, v)) { value = v; ok = true; }")
    w("      }")
    w('      if (!ok) return hal::fail("assemble: field ", name, ": unknown value \'", text, "\'");')
    w("    } else {")
    w("      try {")
    w("        size_t used = 0;")
    w("        value = std::stoll(text, &used, 0);")
    w('        if (used != text.size()) return hal::fail("assemble: field ", name, ": bad number \'", text, "\'");')
    w("      } catch (const std::exception&) {")
    w('        return hal::fail("assemble: field ", name, ": bad number \'", text, "\'");')
    w("      }")
    w("    }")
    w("    NNC_TRY(setField(c, name, value));")
    w("  }")
    w("  NNC_TRY(validate(c));")
    w("  return c;")
    w("}")
    w("")
    w("}  // namespace nncosim::firmware")
    src = "\n".join(o) + "\n"
    # enumName helper (declared before use): per opcode/field -> enum toString
    helper = []
    h = helper.append
    h("const char* enumName(Opcode op, const std::string& field, uint32_t v) {")
    for c in s.commands:
        for f in c.fields:
            if f.kind == "enum":
                h(f'  if (op == Opcode::k{c.cpp} && field == "{f.name}") return toString(static_cast<{f.enum.cpp}>(v));')
    h('  return "?";')
    h("}")
    h("")
    src = src.replace("}  // namespace\n", "\n".join(helper) + "\n}  // namespace\n", 1)
    return src


# ------------------------------------------------------------------------------------------
# SystemVerilog
# ------------------------------------------------------------------------------------------

def sv_slice(f):
    return f"cmd[{f.bit + f.width - 1}:{f.bit}]" if f.width > 1 else f"cmd[{f.bit}]"


def sv_enum_invalid(f):
    """The condition that an enum field holds no value of its enum, or None when every
    code is a value. Comparisons, not `inside`: Yosys's SystemVerilog reader has no
    `inside`; a contiguous run of values becomes a range check."""
    vals = sorted(v for _, v, _ in f.enum.values)
    lo, hi = vals[0], vals[-1]
    if vals != list(range(lo, hi + 1)):
        return " && ".join(f"{sv_slice(f)} != {f.width}'d{v}" for v in vals)
    conds = []
    if lo > 0:
        conds.append(f"{sv_slice(f)} < {f.width}'d{lo}")
    if hi < (1 << f.width) - 1:
        conds.append(f"{sv_slice(f)} > {f.width}'d{hi}")
    return " || ".join(conds) or None


def gen_sv_pkg(s):
    o = []
    w = o.append
    w("// GENERATED by firmware/gen_isa.py from firmware/isa.json. DO NOT EDIT.")
    w("// The NPU command-stream ISA: opcodes, field positions, one packed struct per command")
    w("// (cast a cmd_t to it) and cmd_check(), the decode check the C++ decoder also runs.")
    w("// A package exports every constant of the spec; each user needs only a few of them.")
    w("/* verilator lint_off UNUSEDPARAM */")
    w("package nnc_isa_pkg;")
    w("")
    w(f"  localparam int unsigned CmdWords = {s.words};")
    w(f"  localparam int unsigned CmdBits = {s.bits};")
    w(f"  localparam int unsigned CmdBytes = {s.words * 4};")
    w(f"  localparam logic [31:0] IsaVersion = 32'h{(s.major << 16) | s.minor:08x};")
    w("  // The hardware contract: module parameter defaults come from here, and nnc_regfile")
    w("  // reports the values a build uses in its CONFIG registers.")
    for c in s.consts.values():
        w(f"  localparam int unsigned {pascal(c.name)} = {c.value};  // {c.doc}")
    w("")
    w(f"  typedef logic [{s.bits - 1}:0] cmd_t;")
    w("")
    for e in s.enums.values():
        w(f"  // {e.doc}")
        w(f"  typedef enum logic [{e.width - 1}:0] {{")
        for i, (n, v, d) in enumerate(e.values):
            comma = "," if i + 1 < len(e.values) else ""
            w(f"    {e.sv_value(n)} = {e.width}'d{v}{comma}  // {d}")
        w(f"  }} {e.sv};")
        w("")
    w("  // Field positions: bit offset in cmd_t and width.")
    for c in s.commands:
        for f in c.fields:
            w(f"  localparam int unsigned {c.cpp}{pascal(f.name)}Lsb = {f.bit};")
            w(f"  localparam int unsigned {c.cpp}{pascal(f.name)}Width = {f.width};")
    w("")
    w("  // Command header, common to all opcodes.")
    w("  typedef struct packed {")
    w(f"    logic [{s.bits - 1}:12] body;")
    for f in reversed(s.commands[0].header):
        t = f"{f.enum.sv}" if f.enum else "logic"
        w(f"    {t} {f.name};")
    w("  } cmd_hdr_t;")
    w("  // Its fields' offsets, for code that reads a header out of a plain vector.")
    for f in s.commands[0].header:
        w(f"  localparam int unsigned Hdr{pascal(f.name)}Lsb = {f.bit};")
    w("")
    for c in s.commands:
        w(f"  // {c.opcode.upper()} (queue: {c.queue.lstrip('$')})")
        w("  typedef struct packed {")
        items = sorted([(f.bit, f) for f in c.all], key=lambda x: -x[0])
        # walk from MSB down filling reserved gaps
        pos = s.bits
        for bit, f in items:
            top = bit + f.width
            if top < pos:
                w(f"    logic [{pos - top - 1}:0] rsvd_{top};")
            if f.enum:
                t = f.enum.sv
            elif f.kind == "bool":
                t = "logic"
            elif f.kind == "sint":
                t = f"logic signed [{f.width - 1}:0]"
            else:
                t = f"logic [{f.width - 1}:0]"
            w(f"    {t} {f.name};")
            pos = bit
        if pos > 0:
            w(f"    logic [{pos - 1}:0] rsvd_0;")
        w(f"  }} {c.opcode}_t;")
        w("")
    w("  // Result of the decode check: the first violated rule, as C++ check() reports it.")
    w("  typedef struct packed {")
    w(f"    {s.enums['err_code'].sv} code;")
    w("    logic [7:0] bit_pos;  // offset of the offending field in cmd_t")
    w("  } cmd_check_t;")
    w("")
    w("  // Reserved bits, field ranges, dependency flags (by queue), constraints: in that order.")
    w("  // Plain locals, assigned to the function's name at the end: Yosys's SV reader has no")
    w("  // `return` and no struct-typed locals or member writes of a struct result in functions;")
    w("  // and it resolves a package's names in a function only when they are qualified.")
    w("  function automatic cmd_check_t cmd_check(cmd_t cmd);")
    w("    logic [7:0] code;  // err_code_e")
    w("    logic [7:0] bit_pos;")
    errn = s.enums["err_code"]
    w(f"    code = nnc_isa_pkg::{errn.sv_value('none')};")
    w("    bit_pos = 8'd0;")
    hdr = s.commands[0].header
    w(f"    unique case ({sv_slice(hdr[0])})")
    for c in s.commands:
        w(f"      {hdr[0].width}'d{c.value}: begin  // {c.opcode}")
        checks = []
        for (wd, lsb, width) in c.rsvd_runs:
            b = wd * 32 + lsb
            sl = f"cmd[{b + width - 1}:{b}]" if width > 1 else f"cmd[{b}]"
            checks.append((f"{sl} != '0" if width > 1 else sl, b))
        for f in c.all:
            if f.kind == "enum" and f.name != "opcode":
                cond = sv_enum_invalid(f)
                if cond:
                    checks.append((cond, f.bit))
            elif f.range_checked():
                conds = []
                if f.kind == "sint":
                    v = f"$signed({sv_slice(f)})"
                    if f.min != f.type_min:
                        conds.append(f"{v} < -{f.width}'sd{-f.min}" if f.min < 0 else f"{v} < {f.width}'sd{f.min}")
                    if f.max != f.type_max:
                        conds.append(f"{v} > -{f.width}'sd{-f.max}" if f.max < 0 else f"{v} > {f.width}'sd{f.max}")
                else:
                    v = sv_slice(f)
                    if f.min != f.type_min:
                        conds.append(f"{v} < {f.width}'d{f.min}")
                    if f.max != f.type_max:
                        conds.append(f"{v} > {f.width}'d{f.max}")
                checks.append((" || ".join(conds), f.bit))
        if c.queue_field:
            qf = c.queue_field
            for qn, qv, _ in qf.enum.values:
                for f in c.forbidden(s, qn):
                    checks.append((f"{sv_slice(qf)} == {qf.width}'d{qv} && {sv_slice(f)}", f.bit))
        else:
            for f in c.forbidden(s, c.queue):
                checks.append((sv_slice(f), f.bit))
        for k in c.constraints:
            a = k.a
            va = f"$signed({sv_slice(a)})" if a.kind == "sint" else sv_slice(a)
            gate = f"{sv_slice(k.when)} && " if k.when else ""
            if k.kind == "le":
                vb = f"$signed({sv_slice(k.b)})" if k.b.kind == "sint" else sv_slice(k.b)
                if a.width != k.b.width and "sint" not in (a.kind, k.b.kind):
                    wd = max(a.width, k.b.width)  # lint: compare at one width
                    va, vb = f"{wd}'({va})", f"{wd}'({vb})"
                checks.append((f"{gate}{va} > {vb}", a.bit))
            elif k.kind == "zero_unless":
                checks.append((f"!{sv_slice(k.b)} && {va} != '0", a.bit))
            elif k.kind == "zero_when":
                checks.append((f"{sv_slice(k.b)} && {va} != '0", a.bit))
            else:
                # 40-bit products: no factor list of the spec overflows them.
                prod = " * ".join(f"40'({sv_slice(f)})" for f in k.factors)
                checks.append((f"{gate}40'({va}) != {prod}", a.bit))
        first = True
        for cond, bit in checks:
            kw = "if" if first else "end else if"
            first = False
            w(f"        {kw} ({cond}) begin")
            w(f"          code = nnc_isa_pkg::{errn.sv_value('bad_field')};")
            w(f"          bit_pos = 8'd{bit};")
        if checks:
            w("        end")
        w("      end")
    w("      default: begin")
    w(f"        code = nnc_isa_pkg::{errn.sv_value('bad_opcode')};")
    w("        bit_pos = 8'd0;")
    w("      end")
    w("    endcase")
    w("    cmd_check = {code, bit_pos};")
    w("  endfunction")
    w("")
    w("  // Register map (byte offsets of the AXI4-Lite slave).")
    b = s.reg_addr_bits
    for r in s.registers:
        w(f"  localparam logic [RegAddrBits-1:0] Reg{pascal(r.name)} = {b}'h{r.offset:03x};  // {r.doc}")
        for f in r.fields:
            w(f"  localparam int unsigned Reg{pascal(r.name)}{pascal(f.name)}Bit = {f.lsb};")
            w(f"  localparam int unsigned Reg{pascal(r.name)}{pascal(f.name)}Width = {f.width};")
    w(f"  localparam logic [31:0] RegIdValue = 32'h{s.id_value:08x};")
    w("")
    w("endpackage")
    w("/* verilator lint_on UNUSEDPARAM */")
    return "\n".join(o) + "\n"


def gen_sv_probe(s):
    o = []
    w = o.append
    w("// GENERATED by firmware/gen_isa.py. Test-only: exposes nnc_isa_pkg's view of a command")
    w("// (struct fields and cmd_check) so tests/firmware/isa_test.cc can compare it with C++.")
    w("/* verilator lint_off UNUSEDSIGNAL */")
    # Names qualified, no typedef casts: Yosys's SV reader has neither `import` nor casts.
    w("module nnc_isa_probe (")
    w("  input  nnc_isa_pkg::cmd_t cmd_i,")
    w("  output logic [7:0] code_o,")
    w("  output logic [7:0] bit_o,")
    ports = []
    for c in s.commands:
        for f in c.all:
            ports.append(f"  output logic [{f.width - 1}:0] {c.opcode}_{f.name}_o")
    w(",\n".join(ports))
    w(");")
    w("  nnc_isa_pkg::cmd_check_t chk;")
    w("  assign chk = nnc_isa_pkg::cmd_check(cmd_i);")
    w("  assign code_o = chk.code;")
    w("  assign bit_o = chk.bit_pos;")
    for c in s.commands:
        w(f"  nnc_isa_pkg::{c.opcode}_t {c.opcode}_s;")
        w(f"  assign {c.opcode}_s = cmd_i;")
        for f in c.all:
            w(f"  assign {c.opcode}_{f.name}_o = {c.opcode}_s.{f.name};")
    w("endmodule")
    w("/* verilator lint_on UNUSEDSIGNAL */")
    return "\n".join(o) + "\n"


def gen_probe_reader(s):
    o = []
    w = o.append
    w("// GENERATED by firmware/gen_isa.py. Test-only: reads nnc_isa_probe's ports in the")
    w("// same order and format as firmware::fieldValues().")
    w("#pragma once")
    w("")
    w("#include <cstdint>")
    w("#include <vector>")
    w("")
    w('#include "firmware/isa_generated.h"')
    w("")
    w("namespace nncosim::firmware {")
    w("")
    w("template <typename Probe>")
    w("std::vector<FieldValue> probeFieldValues(const Probe& p, Opcode op) {")
    w("  auto sx = [](uint64_t v, int width, bool isSigned) -> int64_t {")
    w("    if (!isSigned) return static_cast<int64_t>(v);")
    w("    const uint64_t m = uint64_t{1} << (width - 1);")
    w("    return static_cast<int64_t>(v ^ m) - static_cast<int64_t>(m);")
    w("  };")
    w("  std::vector<FieldValue> v;")
    w("  switch (op) {")
    for c in s.commands:
        w(f"    case Opcode::k{c.cpp}:")
        for f in c.all:
            sg = "true" if f.kind == "sint" else "false"
            w(f'      v.push_back({{"{f.name}", {f.bit}, {f.width}, sx(p.{c.opcode}_{f.name}_o, {f.width}, {sg})}});')
        w("      break;")
    w("  }")
    w("  return v;")
    w("}")
    w("")
    w("}  // namespace nncosim::firmware")
    return "\n".join(o) + "\n"


# ------------------------------------------------------------------------------------------
# Docs
# ------------------------------------------------------------------------------------------

def gen_doc_tables(s):
    o = []
    w = o.append
    w(DOC_BEGIN)
    w("")
    w(f"ISA version {s.major}.{s.minor}; every command is {s.words} little-endian 32-bit words "
      f"({s.words * 4} bytes). Bits not listed are reserved and must be zero.")
    w("")
    w("### Constants")
    w("")
    w("| Name | Value | Reported by | Meaning |")
    w("|---|---|---|---|")
    for c in s.consts.values():
        rep = f"`{c.reported_by}`" if c.reported_by else "-"
        w(f"| `{c.name}` | {c.value} | {rep} | {c.doc} |")
    w("")
    w("### Enumerations")
    w("")
    for e in s.enums.values():
        w(f"**{e.name}** ({e.width} bits): {e.doc}")
        w("")
        w("| Value | Name | Meaning |")
        w("|---|---|---|")
        for n, v, d in e.values:
            w(f"| {v} | `{n}` | {d} |")
        w("")
    w("### Common header (word 0)")
    w("")
    w("| Field | Bits | Meaning |")
    w("|---|---|---|")
    for f in s.commands[0].header:
        w(f"| `{f.name}` | [{f.lsb + f.width - 1}:{f.lsb}] | {f.doc} |")
    w("")
    w("Dependency flags a queue may not use (the decoder rejects them as `bad_field`):")
    w("")
    for q, d in s.raw["queues"].items():
        forb = ", ".join(f"`{x}`" for x in d["forbid"]) or "none"
        w(f"- {q}: {forb}")
    w("")
    for c in s.commands:
        w(f"### {c.opcode.upper()} (opcode {c.value}, queue: {c.queue.lstrip('$') if not c.queue_field else 'its `queue` field'})")
        w("")
        w(c.doc)
        w("")
        w("| Field | Word | Bits | Type | Range | Meaning |")
        w("|---|---|---|---|---|---|")
        for f in c.fields:
            if f.kind == "enum":
                rng = f"`{f.enum.name}`"
            elif f.kind == "bool":
                rng = "0/1"
            else:
                rng = f"{f.min}..{f.max}"
            w(f"| `{f.name}` | {f.word} | [{f.lsb + f.width - 1}:{f.lsb}] | {f.kind} | {rng} | {f.doc} |")
        for k in c.constraints:
            w("")
            w(f"Constraint: `{k.text()}` ({k.doc}).")
        w("")
    w("### Registers (AXI4-Lite, 32-bit)")
    w("")
    w("| Offset | Name | Access | Reads | Meaning |")
    w("|---|---|---|---|---|")
    for r in s.registers:
        if r.name == "version":
            reads = f"0x{(s.major << 16) | s.minor:08X}"
        elif r.reset is not None:
            reads = f"0x{r.reset:08X}"
        else:
            reads = f"`{r.reports.name}`" if r.reports else ""
        w(f"| 0x{r.offset:03X} | `{r.name.upper()}` | {r.access} | {reads} | {r.doc} |")
    w("")
    for r in s.registers:
        if not r.fields:
            continue
        w(f"**{r.name.upper()}** fields:")
        w("")
        w("| Bits | Name | Reads | Meaning |")
        w("|---|---|---|---|")
        for f in r.fields:
            reads = f"`{f.reports.name}`" if f.reports else ""
            w(f"| [{f.lsb + f.width - 1}:{f.lsb}] | `{f.name}` | {reads} | {f.doc} |")
        w("")
    w(DOC_END)
    return "\n".join(o) + "\n"


def splice_doc(text, tables):
    if DOC_BEGIN not in text or DOC_END not in text:
        raise SpecError("doc has no generated-tables markers")
    head = text.split(DOC_BEGIN)[0]
    tail = text.split(DOC_END, 1)[1]
    return head + tables.rstrip("\n") + tail


def write_if_changed(path, content):
    try:
        with open(path) as fh:
            if fh.read() == content:
                return
    except FileNotFoundError:
        pass
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        fh.write(content)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spec", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "isa.json"))
    ap.add_argument("--cpp-dir")
    ap.add_argument("--sv-dir")
    ap.add_argument("--doc")
    ap.add_argument("--check-doc")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="override a constant (a build variant, e.g. array_rows=32)")
    args = ap.parse_args()
    try:
        overrides = {}
        for kv in args.set:
            name, sep, value = kv.partition("=")
            if not sep or not value.strip().isdigit():
                raise SpecError(f"--set {kv}: expected NAME=INTEGER")
            overrides[name.strip()] = int(value)
        s = Spec(args.spec, overrides)
        if args.cpp_dir:
            write_if_changed(os.path.join(args.cpp_dir, "isa_generated.h"), gen_cpp_header(s))
            write_if_changed(os.path.join(args.cpp_dir, "isa_generated.cc"), gen_cpp_source(s))
            write_if_changed(os.path.join(args.cpp_dir, "isa_probe_reader.h"), gen_probe_reader(s))
        if args.sv_dir:
            write_if_changed(os.path.join(args.sv_dir, "nnc_isa_pkg.sv"), gen_sv_pkg(s))
            write_if_changed(os.path.join(args.sv_dir, "nnc_isa_probe.sv"), gen_sv_probe(s))
        if args.doc:
            with open(args.doc) as fh:
                text = fh.read()
            write_if_changed(args.doc, splice_doc(text, gen_doc_tables(s)))
        if args.check_doc:
            with open(args.check_doc) as fh:
                text = fh.read()
            if splice_doc(text, gen_doc_tables(s)) != text:
                print(f"{args.check_doc}: generated tables are stale; run firmware/gen_isa.py --doc {args.check_doc}",
                      file=sys.stderr)
                return 1
    except (SpecError, KeyError, ValueError) as e:
        print(f"gen_isa.py: {args.spec}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
