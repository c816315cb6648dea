// The ISA's encoder, decoder, disassembler/assembler and the generated SV package agree.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>

#include "firmware/isa_generated.h"
#include "firmware/job.h"

#ifdef NNC_HAVE_ISA_PROBE
#include "Vnnc_isa_probe.h"
#include "firmware/isa_probe_reader.h"
#include "verilated.h"
#endif

namespace nncosim::firmware {
namespace {

constexpr int kDepBitFirst = 8;  // pop_prev; the four flags are bits 8..11

int64_t randomIn(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  // Limits are hit often: they are where encoders break.
  switch (rng() % 8) {
    case 0:
      return lo;
    case 1:
      return hi;
    default:
      return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  }
}

// GEMM window mode's rules (ISA 1.5) hold for almost no independent draw: a window field
// set (or `fixed`, a field a test pinned, is one) turns the window on, and then
// k = vec * taps * tiles with each factor at least 1 (the factors other than `fixed`
// shrunk to 1 when the product leaves k's range); without a window its fields are zero.
void repairWindow(Command& c, const std::string& fixed = "") {
  auto* g = std::get_if<Gemm>(&c.args);
  if (g == nullptr) return;
  const bool anySet =
      g->vec || g->taps || g->tiles || g->laneStride || g->tapStride || g->tileStride;
  const std::map<std::string, uint32_t> windowFields{{"vec", g->vec},
                                                     {"taps", g->taps},
                                                     {"tiles", g->tiles},
                                                     {"lane_stride", g->laneStride},
                                                     {"tap_stride", g->tapStride},
                                                     {"tile_stride", g->tileStride}};
  if (fixed == "window") {
  } else if (auto it = windowFields.find(fixed); it != windowFields.end()) {
    g->window = it->second != 0;  // a pinned zero is always valid without a window
  } else if (fixed != "k") {
    g->window = anySet && g->vec % 2;  // about half of the draws
  }
  if (!g->window) {
    g->vec = g->taps = g->tiles = g->laneStride = g->tapStride = g->tileStride = 0;
    return;
  }
  for (auto [name, v] : {std::pair{"vec", &g->vec}, {"taps", &g->taps}, {"tiles", &g->tiles}})
    if (*v == 0 && fixed != name) *v = 1;
  if (fixed == "k") return;
  for (auto [name, v] : {std::pair{"tiles", &g->tiles}, {"taps", &g->taps}, {"vec", &g->vec}})
    if (uint64_t{g->vec} * g->taps * g->tiles > 0xFFFF && fixed != name) *v = 1;
  g->k = g->vec * g->taps * g->tiles;
}

// REQUANT_STORE's segments (ISA 1.13) go into INP from int32 rows only, and their fields are
// zero without them: a draw keeps them as drawn (about half of the time) where they can
// hold, and a pinned field's value wins.
void repairSegments(Command& c, const std::string& fixed = "") {
  auto* r = std::get_if<RequantStore>(&c.args);
  if (r == nullptr) return;
  const std::map<std::string, uint32_t*> fields{{"seg_gaps", &r->segGaps},
                                                {"seg_pairs", &r->segPairs},
                                                {"seg_first", &r->segFirst},
                                                {"seg_gap", &r->segGap}};
  bool on = r->segments;
  if (auto it = fields.find(fixed); it != fields.end()) {
    on = on || *it->second != 0;
  } else if (fixed == "to_inp" || fixed == "acc64" || fixed == "out_width") {
    on = on && r->toInp && !r->acc64 && r->outWidth == ElemWidth::kW8;
  }
  r->segments = on;
  if (on) {
    r->toInp = true;
    r->acc64 = false;
    r->outWidth = ElemWidth::kW8;
    return;
  }
  for (auto& [name, v] : fields)
    if (name != fixed) *v = 0;
}

// A random valid command of opcode `op` (fields drawn in range, retried until the
// cross-field rules hold).
Command randomCommand(std::mt19937_64& rng, const OpcodeInfo& info) {
  for (int attempt = 0; attempt < 1000; ++attempt) {
    Command c = *makeCommand(info.opcode);
    for (const FieldInfo& f : info.fields) {
      if (std::string(f.name) == "opcode") continue;
      int64_t v;
      if (f.kind == FieldKind::kEnum) {
        v = f.enumValues[rng() % f.enumValues.size()];
      } else {
        v = randomIn(rng, f.min, f.max);
      }
      EXPECT_TRUE(setField(c, f.name, v).ok());
    }
    repairWindow(c);
    repairSegments(c);
    if (validate(c).ok()) return c;
  }
  ADD_FAILURE() << "could not draw a valid " << info.name;
  return *makeCommand(info.opcode);
}

Command randomAnyCommand(std::mt19937_64& rng) {
  const auto& table = isaTable();
  return randomCommand(rng, table[rng() % table.size()]);
}

TEST(Isa, RandomRoundTrips) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 20000; ++i) {
    const Command c = randomAnyCommand(rng);
    const CommandWords w = encode(c);
    auto d = decode(w);
    ASSERT_TRUE(d.ok()) << d.error() << " for " << disassemble(c);
    EXPECT_EQ(*d, c) << disassemble(c);
    EXPECT_EQ(encode(*d), w);
    const std::string text = disassemble(w);
    EXPECT_EQ(text, disassemble(c));
    auto a = assemble(text);
    ASSERT_TRUE(a.ok()) << a.error() << " for '" << text << "'";
    EXPECT_EQ(*a, c) << text;
  }
}

TEST(Isa, EveryFieldAtItsLimits) {
  std::mt19937_64 rng(2);
  for (const OpcodeInfo& info : isaTable()) {
    for (const FieldInfo& f : info.fields) {
      if (std::string(f.name) == "opcode") continue;
      const bool isSigned = f.kind == FieldKind::kSint;
      const int64_t typeLo = isSigned ? -(int64_t{1} << (f.width - 1)) : 0;
      const int64_t typeHi =
          isSigned ? (int64_t{1} << (f.width - 1)) - 1 : (int64_t{1} << f.width) - 1;
      std::vector<int64_t> legal, illegal;
      if (f.kind == FieldKind::kEnum) {
        legal.assign(f.enumValues.begin(), f.enumValues.end());
        for (int64_t v = 0; v <= typeHi; ++v) {
          if (std::find(f.enumValues.begin(), f.enumValues.end(), v) == f.enumValues.end())
            illegal.push_back(v);
        }
      } else {
        legal = {f.min, f.max};
        if (f.min > typeLo) illegal.push_back(f.min - 1);
        if (f.max < typeHi) illegal.push_back(f.max + 1);
      }
      for (int64_t v : legal) {
        // Other fields random but valid; this one at its limit. Dependency flags may be
        // forbidden in this queue, and clamp_min/max must stay ordered: retry.
        bool tested = false;
        for (int attempt = 0; attempt < 200 && !tested; ++attempt) {
          Command c = randomCommand(rng, info);
          ASSERT_TRUE(setField(c, f.name, v).ok());
          repairWindow(c, f.name);
          repairSegments(c, f.name);
          if (!validate(c).ok()) continue;
          tested = true;
          auto d = decode(encode(c));
          ASSERT_TRUE(d.ok()) << d.error();
          EXPECT_EQ(*d, c) << info.name << "." << f.name << " = " << v;
          bool seen = false;
          for (const FieldValue& fv : fieldValues(*d)) {
            if (fv.bit == f.bit) {
              EXPECT_EQ(fv.value, v) << info.name << "." << f.name;
              seen = true;
            }
          }
          EXPECT_TRUE(seen);
        }
        const bool depFlag = f.bit >= kDepBitFirst && f.bit < kDepBitFirst + 4;
        EXPECT_TRUE(tested || depFlag)
            << info.name << "." << f.name << " = " << v << " never valid";
      }
      for (int64_t v : illegal) {
        Command c = randomCommand(rng, info);
        ASSERT_TRUE(setField(c, f.name, v).ok());
        auto s = validate(c);
        ASSERT_FALSE(s.ok()) << info.name << "." << f.name << " = " << v << " accepted";
        EXPECT_NE(s.error().find(f.name), std::string::npos) << s.error();
        auto d = decode(encode(c));
        ASSERT_FALSE(d.ok());
        EXPECT_NE(d.error().find(f.name), std::string::npos) << d.error();
        const CheckResult r = check(encode(c));
        EXPECT_EQ(r.code, ErrCode::kBadField);
        EXPECT_EQ(r.bit, f.bit) << r.message;
      }
      // A value wider than the field is an error, not silently truncated.
      if (f.width < 32) {
        Command c = randomCommand(rng, info);
        ASSERT_TRUE(setField(c, f.name, isSigned ? typeHi + 1 : (int64_t{1} << f.width)).ok());
        if (f.kind != FieldKind::kBool) {
          auto s = validate(c);
          EXPECT_FALSE(s.ok()) << info.name << "." << f.name;
          if (!s.ok()) {
            EXPECT_NE(s.error().find(f.name), std::string::npos) << s.error();
          }
        }
      }
    }
  }
}

TEST(Isa, CorruptWordsAreRejected) {
  std::mt19937_64 rng(3);
  // Undefined opcodes, including zeroed memory.
  for (uint32_t op = 0; op < 256; ++op) {
    CommandWords w{};
    w[0] = op;
    if (findOpcode(static_cast<Opcode>(op)) != nullptr) continue;
    auto d = decode(w);
    ASSERT_FALSE(d.ok());
    EXPECT_NE(d.error().find("undefined opcode"), std::string::npos) << d.error();
    EXPECT_EQ(check(w).code, ErrCode::kBadOpcode);
    EXPECT_EQ(disassemble(w).rfind("<invalid: ", 0), 0u);
  }
  // Every reserved bit of every opcode.
  for (const OpcodeInfo& info : isaTable()) {
    const CommandWords good = encode(randomCommand(rng, info));
    for (int word = 0; word < kCommandWords; ++word) {
      for (int b = 0; b < 32; ++b) {
        if (!((info.reservedMask[word] >> b) & 1)) continue;
        CommandWords w = good;
        w[word] |= 1u << b;
        auto d = decode(w);
        ASSERT_FALSE(d.ok()) << info.name << " word " << word << " bit " << b;
        EXPECT_NE(d.error().find("reserved"), std::string::npos) << d.error();
      }
    }
  }
  // Random bit flips: either still a valid command that re-encodes to the same words,
  // or rejected; never a decode that encodes differently.
  int rejected = 0;
  for (int i = 0; i < 20000; ++i) {
    CommandWords w = encode(randomAnyCommand(rng));
    const int nflips = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < nflips; ++k) w[rng() % kCommandWords] ^= 1u << (rng() % 32);
    auto d = decode(w);
    if (d.ok()) {
      EXPECT_EQ(encode(*d), w);
    } else {
      ++rejected;
      EXPECT_FALSE(d.error().empty());
    }
  }
  EXPECT_GT(rejected, 1000);
}

TEST(Isa, DisassemblyIsReadable) {
  Gemm g;
  g.m = 16;
  g.n = 8;
  g.k = 1024;
  g.aSigned = true;
  g.inpAddr = 0x100;
  g.aZp = -3;
  Command c{Deps{}, g};
  c.deps.popPrev = true;
  EXPECT_EQ(
      disassemble(c),
      "gemm pop_prev=1 mode=int8 a_signed=1 b_signed=0 accumulate=0 m=16 n=8 "
      "inp_addr=0x00000100 wgt_addr=0x00000000 acc_addr=0x00000000 k=1024 acc64=0 wgt8=0 window=0 "
      "a_zp=-3 "
      "b_zp=0");
  // m is limited to the array's rows (the build's, NNCOSIM_ARRAY_SIZE).
  const std::string over = std::to_string(firmware::kArrayRows + 1);
  auto bad = assemble("gemm m=" + over);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("m = " + over), std::string::npos) << bad.error();
  EXPECT_FALSE(assemble("frobnicate").ok());
  EXPECT_FALSE(assemble("gemm q=1").ok());
  EXPECT_FALSE(assemble("dma_load buf_id=nowhere").ok());
  auto ok =
      assemble("dma_load buf_id=wgt elem_width=w16 dram_addr=0x1000 count0=4 count1=2 count2=1");
  ASSERT_TRUE(ok.ok()) << ok.error();
  EXPECT_EQ(std::get<DmaLoad>(ok->args).bufId, Buffer::kWgt);
}

// ISA 1.1 added acc64 in bits that 1.0 reserved: every 1.0 encoding keeps its meaning
// (acc64 = 0), and the new bits sit where docs/isa.md says.
TEST(Isa, Acc64FieldPositions) {
  Gemm g;
  g.k = 0xFFFF;
  CommandWords w = encode(Command{Deps{}, g});
  EXPECT_EQ(w[4], 0xFFFFu);
  g.acc64 = true;
  w = encode(Command{Deps{}, g});
  EXPECT_EQ(w[4], 0x1FFFFu);  // word 4 bit 16, beside k (bits 15:0)
  auto dg = decode(w);
  ASSERT_TRUE(dg.ok()) << dg.error();
  EXPECT_TRUE(std::get<Gemm>(dg->args).acc64);
  w[4] |= 1u << 24;  // 1.5's vec without window: a bad field (bit 17 is 1.2's wgt8)
  EXPECT_FALSE(decode(w).ok());

  RequantStore r;
  r.biasEn = true;
  w = encode(Command{Deps{}, r});
  EXPECT_EQ(w[2], 1u << 20);
  EXPECT_FALSE(std::get<RequantStore>(decode(w)->args).acc64);
  r.acc64 = true;
  w = encode(Command{Deps{}, r});
  EXPECT_EQ(w[2], 3u << 20);  // word 2 bit 21, beside bias_en (bit 20)
  auto dr = decode(w);
  ASSERT_TRUE(dr.ok()) << dr.error();
  EXPECT_TRUE(std::get<RequantStore>(dr->args).acc64);
  w[2] |= 1u << 23;  // bit 22 is ISA 1.9's to_inp, 23 ISA 1.13's segments (int32 rows only)
  EXPECT_FALSE(decode(w).ok());
  EXPECT_NE(disassemble(*dr).find("acc64=1"), std::string::npos) << disassemble(*dr);
}

// ISA 1.9 added to_inp (REQUANT_STORE word 2 bit 22, reserved in 1.8): 8-bit rows only, so
// out_width must be 0 with it (checked at out_width's bit, word 0 bit 12), and an encoding
// without it decodes as in 1.8.
TEST(Isa, ToInpFieldPositionAndRule) {
  RequantStore r;
  r.rows = 1;
  r.toInp = true;
  CommandWords w = encode(Command{Deps{}, r});
  EXPECT_EQ(w[2], 1u << 22);
  auto d = decode(w);
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_TRUE(std::get<RequantStore>(d->args).toInp);
  EXPECT_NE(disassemble(*d).find("to_inp=1"), std::string::npos) << disassemble(*d);
  r.outWidth = ElemWidth::kW16;
  w = encode(Command{Deps{}, r});
  EXPECT_FALSE(decode(w).ok());
  EXPECT_EQ(check(w).code, ErrCode::kBadField);
  EXPECT_EQ(check(w).bit, 12);
  r.toInp = false;
  w = encode(Command{Deps{}, r});
  EXPECT_TRUE(decode(w).ok());
  EXPECT_EQ(w[2], 0u);
}

// ISA 1.13 added segments (REQUANT_STORE word 2 bit 23, reserved before) with seg_gaps
// (word 2 bits 31:24), seg_pairs, seg_first and seg_gap (bits 31:20 of words 3, 4 and 5):
// into INP only, int32 rows only, every segment field zero without it, so an encoding
// without them decodes as in 1.12.
TEST(Isa, SegmentFieldPositionsAndRules) {
  RequantStore r;
  r.rows = 2;
  r.toInp = true;
  r.segments = true;
  r.segGaps = 0xAB;
  r.segPairs = 0x123;
  r.segFirst = 0x456;
  r.segGap = 0x789;
  CommandWords w = encode(Command{Deps{}, r});
  EXPECT_EQ(w[2], (1u << 22) | (1u << 23) | (0xABu << 24));
  EXPECT_EQ(w[3], 0x123u << 20);
  EXPECT_EQ(w[4], 0x456u << 20);
  EXPECT_EQ(w[5], 0x789u << 20);
  auto d = decode(w);
  ASSERT_TRUE(d.ok()) << d.error();
  const auto& back = std::get<RequantStore>(d->args);
  EXPECT_TRUE(back.segments);
  EXPECT_EQ(back.segGaps, 0xABu);
  EXPECT_EQ(back.segPairs, 0x123u);
  EXPECT_EQ(back.segFirst, 0x456u);
  EXPECT_EQ(back.segGap, 0x789u);
  EXPECT_NE(disassemble(*d).find("seg_gap=1929"), std::string::npos) << disassemble(*d);
  // Into OUT: bad_field at segments (word 2 bit 23).
  RequantStore bad = r;
  bad.toInp = false;
  EXPECT_EQ(check(encode(Command{Deps{}, bad})).code, ErrCode::kBadField);
  EXPECT_EQ(check(encode(Command{Deps{}, bad})).bit, 2 * 32 + 23);
  // int64 rows: bad_field at segments.
  bad = r;
  bad.acc64 = true;
  EXPECT_EQ(check(encode(Command{Deps{}, bad})).bit, 2 * 32 + 23);
  // A segment field without segments: bad_field at the field.
  bad = r;
  bad.segments = false;
  bad.segGaps = 0;
  bad.segPairs = 0;
  bad.segFirst = 0;
  EXPECT_EQ(check(encode(Command{Deps{}, bad})).code, ErrCode::kBadField);
  EXPECT_EQ(check(encode(Command{Deps{}, bad})).bit, 5 * 32 + 20);
  bad.segGap = 0;
  EXPECT_TRUE(decode(encode(Command{Deps{}, bad})).ok());
}

// ISA 1.2 added wgt8 (GEMM word 4 bit 17, reserved in 1.1): 8-bit weights under int16
// activations. It is a constraint violation (bad_field at its bit) with mode int8.
TEST(Isa, Wgt8FieldPositionAndConstraint) {
  EXPECT_EQ(kIsaVersionMajor, 1u);
  EXPECT_GE(kIsaVersionMinor, 2u);
  Gemm g;
  g.k = 1;
  g.mode = GemmMode::kInt16;
  CommandWords w = encode(Command{Deps{}, g});
  EXPECT_EQ(w[4], 1u);
  EXPECT_FALSE(std::get<Gemm>(decode(w)->args).wgt8);  // a 1.1 encoding keeps its meaning
  g.wgt8 = true;
  w = encode(Command{Deps{}, g});
  EXPECT_EQ(w[4], 1u | (1u << 17));
  auto dg = decode(w);
  ASSERT_TRUE(dg.ok()) << dg.error();
  EXPECT_TRUE(std::get<Gemm>(dg->args).wgt8);
  EXPECT_NE(disassemble(*dg).find("wgt8=1"), std::string::npos) << disassemble(*dg);
  w[4] |= 1u << 18;  // 1.5's window bit with no vector, tap or tile: a bad field
  EXPECT_FALSE(decode(w).ok());

  g.mode = GemmMode::kInt8;
  auto s = validate(Command{Deps{}, g});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("wgt8"), std::string::npos) << s.error();
  auto chk = check(encode(Command{Deps{}, g}));
  EXPECT_EQ(chk.code, ErrCode::kBadField);
  EXPECT_EQ(chk.bit, 4 * 32 + 17);
}

// ISA 1.5 added GEMM window mode in bits 1.4 reserved: with window = 0 every field of it is
// zero, so each 1.4 encoding keeps its meaning; with it, k = vec * taps * tiles.
TEST(Isa, WindowFieldPositionsAndConstraints) {
  EXPECT_GE(kIsaVersionMinor, 5u);
  Gemm g;
  g.m = 16;
  g.n = 16;
  g.window = true;
  g.vec = 16;
  g.taps = 3;
  g.tiles = 2;
  g.k = 96;
  g.laneStride = 0x40;
  g.tapStride = 0x20;
  g.tileStride = 0x12345;
  CommandWords w = encode(Command{Deps{}, g});
  EXPECT_EQ(w[4], 96u | 1u << 18 | 16u << 19 | 3u << 25);
  EXPECT_EQ(w[6], 0x40u | 0x20u << 20);
  EXPECT_EQ(w[7], 0x12345u | 2u << 20);
  auto d = decode(w);
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_EQ(std::get<Gemm>(d->args), g);
  EXPECT_NE(disassemble(w).find("window=1 vec=16 taps=3"), std::string::npos) << disassemble(w);

  auto expectBad = [](const Gemm& bad, const char* field, int bit) {
    const CommandWords bw = encode(Command{Deps{}, bad});
    const CheckResult r = check(bw);
    EXPECT_EQ(r.code, ErrCode::kBadField) << field;
    EXPECT_EQ(r.bit, bit) << field << ": " << r.message;
    EXPECT_NE(r.message.find(field), std::string::npos) << r.message;
    auto s = validate(Command{Deps{}, bad});
    ASSERT_FALSE(s.ok()) << field;
    EXPECT_NE(s.error().find(field), std::string::npos) << s.error();
  };
  Gemm bad = g;
  bad.k = 95;  // not whole blocks
  expectBad(bad, "k", 4 * 32);
  bad = g;
  bad.tiles = 0;
  bad.k = 0x10;
  expectBad(bad, "window", 4 * 32 + 18);
  bad = Gemm{};
  bad.tapStride = 1;  // a window field without window
  expectBad(bad, "tap_stride", 6 * 32 + 20);
  bad = Gemm{};
  bad.vec = 1;
  expectBad(bad, "vec", 4 * 32 + 19);
  bad = g;
  bad.vec = kArrayRows + 1;  // beyond the array's rows
  bad.k = bad.vec * 6;
  expectBad(bad, "vec", 4 * 32 + 19);
}

TEST(Isa, ForbiddenDependencyFlags) {
  DmaLoad l;
  Command c{Deps{}, l};
  c.deps.popPrev = true;  // nothing precedes the load queue
  auto s = validate(c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("pop_prev"), std::string::npos);
  Sync y;
  y.execQueue = Queue::kStore;
  Command cs{Deps{}, y};
  cs.deps.pushNext = true;  // nothing follows the store queue
  EXPECT_FALSE(validate(cs).ok());
  cs.deps = Deps{};
  cs.deps.pushPrev = true;
  EXPECT_TRUE(validate(cs).ok());
  Command e{Deps{}, End{}};
  e.deps.pushNext = true;
  EXPECT_FALSE(validate(e).ok());
}

TEST(Isa, ClampConstraint) {
  RequantStore r;
  r.clampMin = 5;
  r.clampMax = 4;
  auto s = validate(Command{Deps{}, r});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("clamp_min"), std::string::npos);
}

TEST(Isa, StreamErrorsNameTheCommand) {
  Gemm bad;
  bad.k = 0;
  auto s = encodeStream({Command{Deps{}, End{}}, Command{Deps{}, bad}});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("command 1"), std::string::npos) << s.error();
  auto ok = encodeStream({Command{Deps{}, End{}}});
  ASSERT_TRUE(ok.ok());
  const auto bytes = toBytes(*ok);
  ASSERT_EQ(bytes.size(), size_t{kCommandBytes});
  EXPECT_EQ(bytes[0], static_cast<uint8_t>(Opcode::kEnd));
  EXPECT_EQ(ringSlotAddress(0x1007, 2), 0x1040u);
}

// The ID magic is 'NNC1' read as big-endian ASCII (the spec once held a decimal value that
// spelled 'NNG1' next to a doc that said 'NNC1').
TEST(IsaRegisters, IdSpellsNnc1) {
  EXPECT_EQ(reg::kIdValue,
            uint32_t{'N'} << 24 | uint32_t{'N'} << 16 | uint32_t{'C'} << 8 | uint32_t{'1'});
}

// ISA 1.3: the CONFIG registers report every hardware number the compiler and the ISA model
// plan with, each in its own bits of a register past the counters.
TEST(IsaRegisters, ConfigReportsTheHardwareContract) {
  // 1.4-1.10 (fill, window, DWCONV, ELTWISE and POOL, POOL trunc, REQUANT_STORE to_inp,
  // REQUANT_STORE beside the tiles) keep 1.3's registers; 1.11 adds INP's line; 1.12
  // deepens the command queues (the same registers report them); 1.13 (REQUANT_STORE
  // segments), 1.14 (DWCONV beside GEMM tiles) and 1.15 (a REQUANT_STORE pending behind
  // another) add none.
  EXPECT_EQ(kIsaVersion, (1u << 16) | 15u);
  std::map<uint32_t, uint32_t> used;  // offset -> mask bits taken
  std::set<std::string> reported;
  for (const reg::ConfigReport& c : reg::kConfigReports) {
    SCOPED_TRACE(c.constant);
    EXPECT_NE(c.mask, 0u);
    EXPECT_EQ((c.mask >> c.lsb) << c.lsb, c.mask);
    EXPECT_EQ(c.mask & (1u << c.lsb), 1u << c.lsb);
    EXPECT_EQ(((c.value << c.lsb) & c.mask) >> c.lsb, c.value);  // fits the field
    EXPECT_EQ(used[c.offset] & c.mask, 0u);
    used[c.offset] |= c.mask;
    EXPECT_TRUE(c.offset == reg::kConfig || c.offset > reg::kPerfMacs);
    reported.insert(c.constant);
  }
  for (const char* name :
       {"array_rows", "array_cols", "inp_buf_bytes", "wgt_buf_bytes", "acc_buf_bytes",
        "out_buf_bytes", "prm_buf_bytes", "axi_data_bytes", "dma_bursts", "cmd_queue_depth",
        "cmd_fetch_depth", "gemm_tiles", "densify_beats", "densify_reads", "inp_line_vectors"})
    EXPECT_EQ(reported.count(name), 1u) << name << " is not reported by a CONFIG register";
  // Buffer addresses are buf_addr_bits wide, so no buffer can be larger.
  for (uint32_t bytes : {kInpBufBytes, kWgtBufBytes, kAccBufBytes, kOutBufBytes, kPrmBufBytes})
    EXPECT_LE(bytes, 1u << kBufAddrBits);
  EXPECT_EQ(reg::kPerfMacs + 4, reg::kConfigInpBytes);
  EXPECT_LT(reg::kConfigCompute, 1u << kRegAddrBits);
}

#ifdef NNC_HAVE_ISA_PROBE
// The SV package (packed structs and cmd_check) decodes exactly as the C++ decoder.
TEST(Isa, SvPackageAgreesWithCpp) {
  VerilatedContext ctx;
  Vnnc_isa_probe probe(&ctx);
  std::mt19937_64 rng(4);
  int valid = 0, invalid = 0;
  for (int i = 0; i < 20000; ++i) {
    CommandWords w = encode(randomAnyCommand(rng));
    if (i % 2) {
      // Corrupt half of them: random flips, or a random opcode byte.
      if (rng() % 4 == 0) {
        w[0] = (w[0] & ~0xFFu) | static_cast<uint32_t>(rng() % 256);
      } else {
        w[rng() % kCommandWords] ^= 1u << (rng() % 32);
      }
    }
    for (int k = 0; k < kCommandWords; ++k) probe.cmd_i[k] = w[k];
    probe.eval();
    const CheckResult r = check(w);
    ASSERT_EQ(static_cast<uint32_t>(probe.code_o), static_cast<uint32_t>(r.code)) << disassemble(w);
    ASSERT_EQ(static_cast<int>(probe.bit_o), r.bit) << disassemble(w);
    if (r.code != ErrCode::kNone) {
      ++invalid;
      continue;
    }
    ++valid;
    const Command c = *decode(w);
    const auto cpp = fieldValues(c);
    const auto sv = probeFieldValues(probe, c.opcode());
    ASSERT_EQ(cpp.size(), sv.size());
    for (size_t f = 0; f < cpp.size(); ++f) {
      EXPECT_STREQ(cpp[f].name, sv[f].name);
      EXPECT_EQ(cpp[f].bit, sv[f].bit);
      EXPECT_EQ(cpp[f].value, sv[f].value) << cpp[f].name << " in " << disassemble(w);
    }
  }
  EXPECT_GT(valid, 5000);
  EXPECT_GT(invalid, 2000);
}
#endif

}  // namespace
}  // namespace nncosim::firmware
