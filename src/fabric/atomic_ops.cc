// Atomic operation tables, combination rules and the provider check.
#include "fabric/atomic_ops.h"

#include <algorithm>
#include <cctype>
#include <complex>
#include <cstring>

namespace fabperf {

namespace {

// Type classes an op accepts. UINT128 takes CSWAP EQ only (the originals'
// amo_validate_op_and_type, and the cxi provider's only 128-bit operation).
enum TypeClass : unsigned { kInt = 1, kFloat = 2, kComplex = 4, kAll = 7, kU128 = 8 };

struct OpRow {
  const char* name;
  fi_op op;
  unsigned classes;
  AtomicForm forced_form;  // kBase = chosen by --fetching
};

// CXI's AXOR (and-xor) is libfabric's masked swap: the compare operand is the mask. As the
// originals: no logical or bitwise op on FLOAT/DOUBLE; complex types take SUM, SWAP and
// CSWAP EQ/NE only.
constexpr OpRow kOps[] = {
    {"MIN", FI_MIN, kInt | kFloat, AtomicForm::kBase},
    {"MAX", FI_MAX, kInt | kFloat, AtomicForm::kBase},
    {"SUM", FI_SUM, kAll, AtomicForm::kBase},
    {"LOR", FI_LOR, kInt, AtomicForm::kBase},
    {"LAND", FI_LAND, kInt, AtomicForm::kBase},
    {"BOR", FI_BOR, kInt, AtomicForm::kBase},
    {"BAND", FI_BAND, kInt, AtomicForm::kBase},
    {"LXOR", FI_LXOR, kInt, AtomicForm::kBase},
    {"BXOR", FI_BXOR, kInt, AtomicForm::kBase},
    {"SWAP", FI_ATOMIC_WRITE, kAll, AtomicForm::kBase},
    {"CSWAP", FI_CSWAP, kAll | kU128, AtomicForm::kCompare},
    {"AXOR", FI_MSWAP, kInt, AtomicForm::kCompare},
};

struct TypeRow {
  const char* name;
  fi_datatype type;
  TypeClass cls;
  size_t size;
};

constexpr TypeRow kTypes[] = {
    {"INT8", FI_INT8, kInt, 1},
    {"UINT8", FI_UINT8, kInt, 1},
    {"INT16", FI_INT16, kInt, 2},
    {"UINT16", FI_UINT16, kInt, 2},
    {"INT32", FI_INT32, kInt, 4},
    {"UINT32", FI_UINT32, kInt, 4},
    {"INT64", FI_INT64, kInt, 8},
    {"UINT64", FI_UINT64, kInt, 8},
    {"FLOAT", FI_FLOAT, kFloat, 4},
    {"DOUBLE", FI_DOUBLE, kFloat, 8},
    {"FLOAT_COMPLEX", FI_FLOAT_COMPLEX, kComplex, 8},
    {"DOUBLE_COMPLEX", FI_DOUBLE_COMPLEX, kComplex, 16},
    {"UINT128", FI_UINT128, kU128, 16},
};

struct CswapRow {
  const char* name;
  fi_op op;
  unsigned classes;
};

// Ordering comparisons make no sense on complex numbers.
constexpr CswapRow kCswaps[] = {
    {"EQ", FI_CSWAP, kAll | kU128},     {"NE", FI_CSWAP_NE, kAll},
    {"LE", FI_CSWAP_LE, kInt | kFloat}, {"LT", FI_CSWAP_LT, kInt | kFloat},
    {"GE", FI_CSWAP_GE, kInt | kFloat}, {"GT", FI_CSWAP_GT, kInt | kFloat},
};

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

template <typename Row, size_t N>
const Row* find_row(const Row (&rows)[N], const std::string& name) {
  for (const Row& row : rows) {
    if (name == row.name) return &row;
  }
  return nullptr;
}

template <typename Row, size_t N>
std::vector<std::string> row_names(const Row (&rows)[N]) {
  std::vector<std::string> out;
  for (const Row& row : rows) out.emplace_back(row.name);
  return out;
}

}  // namespace

std::string AtomicSpec::describe() const {
  if (op_name == "CSWAP") return "CSWAP " + cswap_name;
  if (form == AtomicForm::kCompare) return op_name;
  return std::string(fetching() ? "FETCHING " : "NON-FETCHING ") + op_name;
}

std::vector<std::string> atomic_op_names() { return row_names(kOps); }
std::vector<std::string> atomic_type_names() { return row_names(kTypes); }
std::vector<std::string> cswap_op_names() { return row_names(kCswaps); }

Result<AtomicSpec> make_atomic_spec(std::string_view op, std::string_view type,
                                    std::string_view cswap, bool fetching) {
  std::string op_name = upper(op);
  std::string type_name = upper(type);
  std::string cswap_name = upper(cswap.empty() ? "EQ" : cswap);
  const OpRow* op_row = find_row(kOps, op_name);
  if (op_row == nullptr) return Status::usage("Invalid atomic operation: " + std::string(op));
  const TypeRow* type_row = find_row(kTypes, type_name);
  if (type_row == nullptr) return Status::usage("Invalid atomic type: " + std::string(type));
  const CswapRow* cswap_row = find_row(kCswaps, cswap_name);
  if (cswap_row == nullptr) {
    return Status::usage("Invalid CSWAP operation: " + std::string(cswap));
  }
  if ((op_row->classes & type_row->cls) == 0) {
    return Status::usage("Invalid Op and Type combination: " + op_name + " " + type_name);
  }
  AtomicSpec spec;
  spec.op_name = op_name;
  spec.type_name = type_name;
  spec.cswap_name = cswap_name;
  spec.op = op_row->op;
  spec.type = type_row->type;
  spec.type_size = type_row->size;
  spec.form = op_row->forced_form;
  if (op_name == "CSWAP") {
    if ((cswap_row->classes & type_row->cls) == 0) {
      return Status::usage("Invalid Op and Type combination: CSWAP " + cswap_name + " " +
                           type_name);
    }
    spec.op = cswap_row->op;
  } else if (spec.form == AtomicForm::kBase && fetching) {
    spec.form = AtomicForm::kFetch;
  }
  return spec;
}

Result<AtomicSpec> atomic_spec_from_options(const RunOptions& opts) {
  return make_atomic_spec(opts.atomic_op, opts.atomic_type, opts.cswap_op, opts.fetching);
}

Status check_provider_atomic(fid_domain* domain, const AtomicSpec& spec,
                             const std::string& provider) {
  uint64_t flags = spec.form == AtomicForm::kFetch     ? FI_FETCH_ATOMIC
                   : spec.form == AtomicForm::kCompare ? FI_COMPARE_ATOMIC
                                                       : 0;
  fi_atomic_attr attr{};
  int ret = fi_query_atomic(domain, spec.type, spec.op, &attr, flags);
  if (ret != 0 || attr.count < 1) {
    std::string why = ret != 0 ? std::string(": ") + fi_strerror(-ret) : "";
    return Status::unsupported("provider " + provider + " cannot run atomic " + spec.describe() +
                               " on " + spec.type_name + " (fi_query_atomic" + why + ")");
  }
  return Status::success();
}

AtomicOperands atomic_operands(const AtomicSpec& spec, uint64_t iteration) {
  // By the spec's fi_op, not its names: this runs before posts of a rate test, where up to
  // ten string compares a post were work between posts, which the shm region's lock
  // multiplies (bench/README.md, "rdm_atomic_bw over shm: the target's pace").
  AtomicOperands out;
  const double alternate = 1 + static_cast<double>(iteration & 1);
  switch (spec.op) {
    case FI_ATOMIC_WRITE:  // SWAP
    case FI_CSWAP:
    case FI_CSWAP_NE:
    case FI_CSWAP_LE:
    case FI_CSWAP_LT:
    case FI_CSWAP_GE:
    case FI_CSWAP_GT:
      out.operand = alternate;
      break;
    case FI_MIN:
      out.operand = static_cast<double>(100 - iteration % 100);
      break;
    case FI_MAX:
      out.operand = static_cast<double>(1 + iteration % 100);
      break;
    case FI_BOR:
    case FI_BAND: {
      // A set bit that stays positive in the signed types.
      const uint64_t bits = std::min<uint64_t>(spec.type_size * 8, 64) - 1;
      out.operand = static_cast<double>(uint64_t{1} << (iteration % bits));
      break;
    }
    default:
      break;
  }
  // CSWAP EQ, LE and GE compare with a value that alternates (so the swap happens); AXOR's
  // compare is its mask.
  if (spec.op == FI_MSWAP || spec.op == FI_CSWAP || spec.op == FI_CSWAP_LE ||
      spec.op == FI_CSWAP_GE) {
    out.compare = alternate;
  }
  return out;
}

bool atomic_operands_vary(const AtomicSpec& spec) {
  // Every rule of atomic_operands that varies differs between iterations 0 and 1 (the
  // alternating values, MIN's and MAX's counts, the bit of BOR and BAND): derived from it, not
  // a second list of ops.
  AtomicOperands first = atomic_operands(spec, 0), second = atomic_operands(spec, 1);
  return first.operand != second.operand || first.compare != second.compare;
}

size_t atomic_type_size(fi_datatype type) {
  for (const TypeRow& row : kTypes) {
    if (row.type == type) return row.size;
  }
  return 0;
}

void store_atomic_value(fi_datatype type, double value, void* out) {
  auto put = [out](auto v) { std::memcpy(out, &v, sizeof(v)); };
  switch (type) {
    case FI_INT8:
      put(static_cast<int8_t>(value));
      break;
    case FI_UINT8:
      put(static_cast<uint8_t>(value));
      break;
    case FI_INT16:
      put(static_cast<int16_t>(value));
      break;
    case FI_UINT16:
      put(static_cast<uint16_t>(value));
      break;
    case FI_INT32:
      put(static_cast<int32_t>(value));
      break;
    case FI_UINT32:
      put(static_cast<uint32_t>(value));
      break;
    case FI_INT64:
      put(static_cast<int64_t>(value));
      break;
    case FI_UINT64:
      put(static_cast<uint64_t>(value));
      break;
    case FI_FLOAT:
      put(static_cast<float>(value));
      break;
    case FI_DOUBLE:
      put(value);
      break;
    case FI_FLOAT_COMPLEX:
      put(std::complex<float>(static_cast<float>(value), 0));
      break;
    case FI_DOUBLE_COMPLEX:
      put(std::complex<double>(value, 0));
      break;
    case FI_UINT128: {  // little-endian: the low word holds the value
      uint64_t words[2] = {static_cast<uint64_t>(value), 0};
      std::memcpy(out, words, sizeof words);
      break;
    }
    default:
      break;
  }
}

double load_atomic_value(fi_datatype type, const void* in) {
  auto get = [in](auto v) {
    std::memcpy(&v, in, sizeof(v));
    return v;
  };
  switch (type) {
    case FI_INT8:
      return get(int8_t{});
    case FI_UINT8:
      return get(uint8_t{});
    case FI_INT16:
      return get(int16_t{});
    case FI_UINT16:
      return get(uint16_t{});
    case FI_INT32:
      return get(int32_t{});
    case FI_UINT32:
      return get(uint32_t{});
    case FI_INT64:
      return static_cast<double>(get(int64_t{}));
    case FI_UINT64:
      return static_cast<double>(get(uint64_t{}));
    case FI_FLOAT:
      return get(float{});
    case FI_DOUBLE:
      return get(double{});
    case FI_FLOAT_COMPLEX:
      return get(std::complex<float>{}).real();
    case FI_DOUBLE_COMPLEX:
      return get(std::complex<double>{}).real();
    case FI_UINT128:
      return static_cast<double>(get(uint64_t{}));  // the low word
    default:
      return 0;
  }
}

}  // namespace fabperf
