// Atomic op/type/compare-op parsing and the combination rules.
#include <gtest/gtest.h>

#include <cstring>

#include "fabric/atomic_ops.h"
#include "options/option_table.h"

namespace fabperf {
namespace {

TEST(FabricAtomicOps, ParsesCaseInsensitively) {
  auto spec = make_atomic_spec("sum", "uint64", "eq", false);
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->op, FI_SUM);
  EXPECT_EQ(spec->type, FI_UINT64);
  EXPECT_EQ(spec->form, AtomicForm::kBase);
  EXPECT_EQ(spec->type_size, 8u);
  EXPECT_EQ(spec->describe(), "NON-FETCHING SUM");
  auto fetch = make_atomic_spec("Min", "Double", "EQ", true);
  ASSERT_TRUE(fetch.ok());
  EXPECT_EQ(fetch->form, AtomicForm::kFetch);
  EXPECT_EQ(fetch->describe(), "FETCHING MIN");
}

TEST(FabricAtomicOps, MapsEveryNamedOp) {
  struct Row {
    const char* name;
    fi_op op;
  } rows[] = {{"MIN", FI_MIN},           {"MAX", FI_MAX},     {"SUM", FI_SUM},
              {"LOR", FI_LOR},           {"LAND", FI_LAND},   {"BOR", FI_BOR},
              {"BAND", FI_BAND},         {"LXOR", FI_LXOR},   {"BXOR", FI_BXOR},
              {"SWAP", FI_ATOMIC_WRITE}, {"CSWAP", FI_CSWAP}, {"AXOR", FI_MSWAP}};
  for (const Row& row : rows) {
    auto spec = make_atomic_spec(row.name, "UINT32", "EQ", false);
    ASSERT_TRUE(spec.ok()) << row.name << ": " << spec.status().message();
    EXPECT_EQ(spec->op, row.op) << row.name;
  }
  EXPECT_EQ(atomic_op_names().size(), 12u);
  EXPECT_EQ(atomic_type_names().size(), 13u);  // with UINT128
  EXPECT_EQ(cswap_op_names().size(), 6u);
}

TEST(FabricAtomicOps, CswapTakesTheCompareOpAndAlwaysFetches) {
  struct Row {
    const char* name;
    fi_op op;
  } rows[] = {{"EQ", FI_CSWAP},    {"NE", FI_CSWAP_NE}, {"LE", FI_CSWAP_LE},
              {"LT", FI_CSWAP_LT}, {"GE", FI_CSWAP_GE}, {"GT", FI_CSWAP_GT}};
  for (const Row& row : rows) {
    auto spec = make_atomic_spec("CSWAP", "INT64", row.name, false);
    ASSERT_TRUE(spec.ok()) << row.name;
    EXPECT_EQ(spec->op, row.op);
    EXPECT_EQ(spec->form, AtomicForm::kCompare);
    EXPECT_EQ(spec->describe(), std::string("CSWAP ") + row.name);
  }
}

TEST(FabricAtomicOps, RejectsUnknownNames) {
  auto op = make_atomic_spec("PROD", "UINT64", "EQ", false);
  EXPECT_EQ(op.status().code(), Code::kUsage);
  EXPECT_EQ(op.status().message(), "Invalid atomic operation: PROD");
  auto type = make_atomic_spec("SUM", "UINT128X", "EQ", false);
  EXPECT_EQ(type.status().message(), "Invalid atomic type: UINT128X");
  auto cswap = make_atomic_spec("CSWAP", "UINT64", "ZZ", false);
  EXPECT_EQ(cswap.status().message(), "Invalid CSWAP operation: ZZ");
}

TEST(FabricAtomicOps, NoBitwiseOpsOnFloats) {
  for (const char* op : {"BAND", "BOR", "BXOR", "AXOR"}) {
    for (const char* type : {"FLOAT", "DOUBLE", "FLOAT_COMPLEX", "DOUBLE_COMPLEX"}) {
      auto spec = make_atomic_spec(op, type, "EQ", false);
      EXPECT_EQ(spec.status().code(), Code::kUsage) << op << " " << type;
      EXPECT_EQ(spec.status().message(),
                std::string("Invalid Op and Type combination: ") + op + " " + type);
    }
  }
  EXPECT_EQ(make_atomic_spec("band", "float", "eq", false).status().message(),
            "Invalid Op and Type combination: BAND FLOAT");
}

TEST(FabricAtomicOps, ComplexOnlySumSwapAndEqualityCswap) {
  for (const char* type : {"FLOAT_COMPLEX", "DOUBLE_COMPLEX"}) {
    EXPECT_TRUE(make_atomic_spec("SUM", type, "EQ", false).ok());
    EXPECT_TRUE(make_atomic_spec("SWAP", type, "EQ", true).ok());
    EXPECT_TRUE(make_atomic_spec("CSWAP", type, "EQ", false).ok());
    EXPECT_TRUE(make_atomic_spec("CSWAP", type, "NE", false).ok());
    for (const char* op : {"MIN", "MAX", "LOR", "LAND", "LXOR"}) {
      EXPECT_FALSE(make_atomic_spec(op, type, "EQ", false).ok()) << op << " " << type;
    }
    for (const char* cmp : {"LE", "LT", "GE", "GT"}) {
      auto spec = make_atomic_spec("CSWAP", type, cmp, false);
      EXPECT_EQ(spec.status().message(),
                std::string("Invalid Op and Type combination: CSWAP ") + cmp + " " + type);
    }
  }
  EXPECT_TRUE(make_atomic_spec("CSWAP", "FLOAT", "LT", false).ok());
  EXPECT_TRUE(make_atomic_spec("MAX", "DOUBLE", "EQ", false).ok());
}

TEST(FabricAtomicOps, ValidatesParams) {
  RunOptions params = default_run_options();
  params.atomic_op = "BAND";
  params.atomic_type = "DOUBLE";
  Status status = atomic_spec_from_options(params).status();
  EXPECT_EQ(status.code(), Code::kUsage);
  EXPECT_EQ(status.message(), "Invalid Op and Type combination: BAND DOUBLE");
  params.atomic_op = "BXOR";
  params.atomic_type = "INT16";
  EXPECT_TRUE(atomic_spec_from_options(params).ok());
  RunOptions defaults = default_run_options();  // the table's defaults: SUM UINT64
  auto spec = atomic_spec_from_options(defaults);
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->op, FI_SUM);
  EXPECT_EQ(spec->type, FI_UINT64);
}

TEST(FabricAtomicOps, StoresAndLoadsTypedValues) {
  for (const std::string& name : atomic_type_names()) {
    // UINT128 takes CSWAP EQ only.
    auto spec = make_atomic_spec(name == "UINT128" ? "CSWAP" : "SUM", name, "EQ", false);
    ASSERT_TRUE(spec.ok()) << name;
    unsigned char buf[16];
    std::memset(buf, 0xee, sizeof(buf));
    store_atomic_value(spec->type, 5, buf);
    EXPECT_EQ(load_atomic_value(spec->type, buf), 5.0) << name;
    EXPECT_EQ(atomic_type_size(spec->type), spec->type_size);
  }
}

// As the originals' amo_validate_op_and_type: no logical op on FLOAT/DOUBLE either.
TEST(FabricAtomicOps, NoLogicalOpsOnFloats) {
  for (const char* op : {"LOR", "LAND", "LXOR"}) {
    for (const char* type : {"FLOAT", "DOUBLE"}) {
      auto spec = make_atomic_spec(op, type, "EQ", false);
      EXPECT_EQ(spec.status().message(),
                std::string("Invalid Op and Type combination: ") + op + " " + type);
    }
    EXPECT_TRUE(make_atomic_spec(op, "INT32", "EQ", false).ok());
  }
}

// UINT128: CSWAP EQ only (the cxi provider's one 128-bit operation), 16 bytes, always
// fetching (fi_compare_atomic).
TEST(FabricAtomicOps, Uint128IsCswapEqOnly) {
  auto spec = make_atomic_spec("CSWAP", "uint128", "eq", false);
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->type, FI_UINT128);
  EXPECT_EQ(spec->type_size, 16u);
  EXPECT_EQ(spec->op, FI_CSWAP);
  EXPECT_EQ(spec->form, AtomicForm::kCompare);
  EXPECT_EQ(make_atomic_spec("CSWAP", "UINT128", "NE", false).status().message(),
            "Invalid Op and Type combination: CSWAP NE UINT128");
  for (const char* op : {"SUM", "SWAP", "MIN", "BOR", "AXOR"}) {
    EXPECT_EQ(make_atomic_spec(op, "UINT128", "EQ", false).status().message(),
              std::string("Invalid Op and Type combination: ") + op + " UINT128");
  }
  uint8_t word[16];
  std::memset(word, 0xee, sizeof word);
  store_atomic_value(FI_UINT128, 5, word);
  uint64_t low = 0, high = 1;
  std::memcpy(&low, word, 8);
  std::memcpy(&high, word + 8, 8);
  EXPECT_EQ(low, 5u);
  EXPECT_EQ(high, 0u);
  EXPECT_EQ(load_atomic_value(FI_UINT128, word), 5.0);
  EXPECT_EQ(atomic_type_size(FI_UINT128), 16u);
}

// The originals' per-iteration operands: each operation changes the target.
TEST(FabricAtomicOps, OperandsChangeEveryIterationAsTheOriginals) {
  auto swap = *make_atomic_spec("SWAP", "UINT64", "EQ", false);
  EXPECT_EQ(atomic_operands(swap, 0).operand, 1);
  EXPECT_EQ(atomic_operands(swap, 1).operand, 2);
  EXPECT_EQ(atomic_operands(swap, 2).operand, 1);
  auto eq = *make_atomic_spec("CSWAP", "INT32", "EQ", false);
  EXPECT_EQ(atomic_operands(eq, 0).compare, 1);
  EXPECT_EQ(atomic_operands(eq, 1).compare, 2);
  EXPECT_EQ(atomic_operands(eq, 1).operand, 2);
  auto ne = *make_atomic_spec("CSWAP", "INT32", "NE", false);
  EXPECT_EQ(atomic_operands(ne, 5).compare, 0);
  EXPECT_EQ(atomic_operands(ne, 5).operand, 2);
  // The ordered compares: LE and GE alternate the compare value as EQ does; LT and GT keep 0.
  for (const char* cmp : {"LE", "GE"}) {
    auto spec = *make_atomic_spec("CSWAP", "INT64", cmp, false);
    EXPECT_EQ(atomic_operands(spec, 2).compare, 1) << cmp;
    EXPECT_EQ(atomic_operands(spec, 3).compare, 2) << cmp;
  }
  for (const char* cmp : {"LT", "GT"}) {
    auto spec = *make_atomic_spec("CSWAP", "INT64", cmp, false);
    EXPECT_EQ(atomic_operands(spec, 3).compare, 0) << cmp;
    EXPECT_EQ(atomic_operands(spec, 3).operand, 2) << cmp;
  }
  auto axor = *make_atomic_spec("AXOR", "UINT16", "EQ", false);
  EXPECT_EQ(atomic_operands(axor, 3).compare, 2);
  auto min = *make_atomic_spec("MIN", "INT8", "EQ", false);
  EXPECT_EQ(atomic_operands(min, 0).operand, 100);
  EXPECT_EQ(atomic_operands(min, 1).operand, 99);
  EXPECT_EQ(atomic_operands(min, 100).operand, 100);  // again, within the type
  auto max = *make_atomic_spec("MAX", "DOUBLE", "EQ", false);
  EXPECT_EQ(atomic_operands(max, 0).operand, 1);
  EXPECT_EQ(atomic_operands(max, 9).operand, 10);
  auto bor = *make_atomic_spec("BOR", "INT8", "EQ", false);
  EXPECT_EQ(atomic_operands(bor, 0).operand, 1);
  EXPECT_EQ(atomic_operands(bor, 6).operand, 64);
  EXPECT_EQ(atomic_operands(bor, 7).operand, 1);  // never the sign bit
  auto band = *make_atomic_spec("BAND", "UINT32", "EQ", false);
  EXPECT_EQ(atomic_operands(band, 31).operand, 1);
  EXPECT_EQ(atomic_operands(band, 30).operand, 1u << 30);
  EXPECT_EQ(atomic_operands(band, 30).compare, 0);
  auto sum = *make_atomic_spec("SUM", "FLOAT", "EQ", false);
  EXPECT_EQ(atomic_operands(sum, 7).operand, 1);
}

// A rate test writes the operands once where they never change: atomic_operands_vary must
// say so exactly where atomic_operands gives the same values for every iteration.
TEST(FabricAtomicOps, OperandsVaryExactlyWhereTheyChange) {
  size_t constant = 0, varying = 0;
  for (const std::string& op : atomic_op_names()) {
    for (const std::string& type : atomic_type_names()) {
      for (const std::string& cswap : cswap_op_names()) {
        auto spec = make_atomic_spec(op, type, cswap, false);
        if (!spec.ok()) continue;  // not a valid combination
        AtomicOperands first = atomic_operands(*spec, 0);
        bool changes = false;
        for (uint64_t i = 1; i < 300 && !changes; ++i) {
          AtomicOperands v = atomic_operands(*spec, i);
          changes = v.operand != first.operand || v.compare != first.compare;
        }
        EXPECT_EQ(atomic_operands_vary(*spec), changes) << op << " " << type << " " << cswap;
        ++(changes ? varying : constant);
      }
    }
  }
  EXPECT_GT(constant, 0u);
  EXPECT_GT(varying, 0u);
}

}  // namespace
}  // namespace fabperf
