// Atomic operation, datatype and compare-op names (the CXI tools' spellings) mapped onto libfabric.
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_domain.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "options/run_options.h"

namespace fabperf {

// Which libfabric call carries the operation.
enum class AtomicForm {
  kBase,     // fi_atomic: no result comes back
  kFetch,    // fi_fetch_atomic: the old value comes back
  kCompare,  // fi_compare_atomic: compare (or mask) operand, old value comes back
};

// A validated atomic choice, ready to post.
struct AtomicSpec {
  std::string op_name;     // canonical upper case: "SUM", "CSWAP", ...
  std::string type_name;   // "UINT64", ...
  std::string cswap_name;  // "EQ", ... (meaningful for CSWAP only)
  fi_op op = FI_SUM;
  fi_datatype type = FI_UINT64;
  AtomicForm form = AtomicForm::kBase;
  size_t type_size = 8;

  bool fetching() const { return form != AtomicForm::kBase; }
  // "NON-FETCHING SUM", "FETCHING MIN", "CSWAP EQ" (what the summary block prints).
  std::string describe() const;
};

// Every op, type and compare name, in table order (for help text and tests).
std::vector<std::string> atomic_op_names();
std::vector<std::string> atomic_type_names();
std::vector<std::string> cswap_op_names();

// Case-insensitive parse and combination check. Errors are Usage errors with the CXI tools'
// wording, e.g. "Invalid Op and Type combination: BAND FLOAT".
Result<AtomicSpec> make_atomic_spec(std::string_view op, std::string_view type,
                                    std::string_view cswap, bool fetching);

// The same check from a test's parameters (atomic_op, atomic_type, cswap_op, fetching), so
// the client can reject a bad combination before contacting the server. Parameters that are
// absent take the option table's defaults (SUM, UINT64, EQ, off).
Result<AtomicSpec> atomic_spec_from_options(const RunOptions& opts);

// Asks the provider (fi_query_atomic) whether it can run `spec`; the error names the provider.
Status check_provider_atomic(fid_domain* domain, const AtomicSpec& spec,
                             const std::string& provider);

// The operands of operation `iteration`, as the originals change them (amo_update_op1/op2) so
// that every operation changes the target: SWAP and CSWAP alternate 1 and 2; MIN counts down
// and MAX up (within 1..100, then again); BOR and BAND move one bit left; the compare
// operand of CSWAP EQ/LE/GE and AXOR's mask alternate 1 and 2. Other ops: operand 1; CSWAP's
// other compares 0; values fit every type.
struct AtomicOperands {
  double operand = 1;
  double compare = 0;
};
AtomicOperands atomic_operands(const AtomicSpec& spec, uint64_t iteration);
// Whether atomic_operands gives `spec` different values from one iteration to the next (SUM,
// LOR, LAND, LXOR and BXOR apply the same 1 every time): where not, a rate test writes each
// slot's operands once instead of before every post.
bool atomic_operands_vary(const AtomicSpec& spec);

// Bytes of one element of `type` (0 for types fabperf does not know).
size_t atomic_type_size(fi_datatype type);
// Stores `value` as one element of `type` (complex: real part = value, imaginary part 0).
void store_atomic_value(fi_datatype type, double value, void* out);
// Reads one element of `type` as a double (complex: the real part).
double load_atomic_value(fi_datatype type, const void* in);

}  // namespace fabperf
