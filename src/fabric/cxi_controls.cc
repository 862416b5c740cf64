// The cxi switches as the cxi provider's documented controls (libfabric's fi_cxi(7)).
#include "fabric/cxi_controls.h"

#include <rdma/fabric.h>

#include <cstdlib>

#include "options/option_table.h"

namespace fabperf {

namespace {

void add_env(CxiControls& c, const char* name, const char* value) {
  for (const CxiEnvSetting& e : c.env) {
    if (e.name == name) return;
  }
  c.env.push_back({name, value});
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

}  // namespace

CxiControls cxi_controls(const RunOptions& o, CxiOp op, bool bandwidth) {
  CxiControls c;
  const bool atomic = op == CxiOp::kAtomic || op == CxiOp::kFetchingAtomic;
  // -v: the domain's authorization key (service ID, and a VNI chosen at fi_getinfo). Service
  // 1 is the default service: left to the provider, whose choice it is when it is open (a
  // value, not whether it was typed: the server's session process gets values only).
  if (o.svc_id != kCxiDefaultSvcId) {
    c.svc_id = static_cast<uint32_t>(o.svc_id);
    c.given.push_back("-v/--svc-id");
  }
  if (o.no_idc) c.given.push_back("--no-idc");
  if (o.no_ll) c.given.push_back("--no-ll");
  if (o.no_hrp) c.given.push_back("--no-hrp");
  if (o.no_ple) c.given.push_back("--no-ple");
  if (o.unrestricted) c.given.push_back("--unrestricted");
  if (o.matching) c.given.push_back("--matching");
  if (o.rdzv) c.given.push_back("-R/--rdzv");

  // --matching: standard (non-optimized) MRs, which the provider implements with matching list
  // entries; those are always unrestricted and never IDC (cxi_atomic_*: matching implies both).
  const bool matching = o.matching && atomic;
  const bool unrestricted = o.unrestricted || matching;
  const bool no_idc = o.no_idc || matching || (o.rdzv && op == CxiOp::kSend);
  if (matching) add_env(c, "FI_CXI_OPTIMIZED_MRS", "0");
  if (no_idc) {
    // IDC off for the operation the test issues; fi_inject is an IDC too.
    switch (op) {
      case CxiOp::kSend:
        add_env(c, "FI_CXI_DISABLE_NON_INJECT_MSG_IDC", "1");
        break;
      case CxiOp::kWrite:
      case CxiOp::kRead:
        add_env(c, "FI_CXI_DISABLE_NON_INJECT_RMA_IDC", "1");
        break;
      case CxiOp::kAtomic:
      case CxiOp::kFetchingAtomic:
        add_env(c, "FI_CXI_DISABLE_NON_INJECT_AMO_IDC", "1");
        break;
    }
    c.no_inject = true;
  }
  // --no-ll: the low-latency command queue ring is never used (default: when idle).
  if (o.no_ll) add_env(c, "FI_CXI_LLRING_MODE", "never");
  // -R: every send above the provider's floor (its inject size) goes by rendezvous, with no
  // eager part.
  if (o.rdzv && op == CxiOp::kSend) {
    add_env(c, "FI_CXI_RDZV_THRESHOLD", "0");
    add_env(c, "FI_CXI_RDZV_GET_MIN", "0");
    add_env(c, "FI_CXI_RDZV_EAGER_SIZE", "0");
  }
  // Restricted operations are the default of the originals. Writes: the provider uses
  // unrestricted ones when write-after-write ordering is asked for. Non-fetching atomics:
  // restricted is FI_CXI_UNRELIABLE.
  if (unrestricted && op == CxiOp::kWrite) c.tx_msg_order |= FI_ORDER_RMA_WAW;
  if (!unrestricted && op == CxiOp::kAtomic) c.tx_op_flags |= kFiCxiUnreliable;
  // High rate puts: bandwidth streams of restricted writes or non-fetching atomics.
  if (bandwidth && !o.no_hrp && !unrestricted && (op == CxiOp::kWrite || op == CxiOp::kAtomic)) {
    c.tx_op_flags |= kFiCxiHrp;
  }
  // Persistent list entries: the provider's MRs always use them; libfabric has no control
  // for cxi_heatsink_check's use-once entries.
  if (o.no_ple) c.not_applied.push_back("--no-ple");
  return c;
}

std::string cxi_switch_warning(const CxiControls& c, const std::string& provider) {
  if (provider == "cxi") {
    if (c.not_applied.empty()) return "";
    return join(c.not_applied) +
           ": no libfabric control exists for this on provider cxi; "
           "not applied";
  }
  if (c.given.empty()) return "";
  return join(c.given) + ": cxi provider only; not applied on provider " + provider;
}

uint16_t cxi_vni(const char* slingshot_vnis, std::optional<unsigned> nic_default_vni) {
  if (slingshot_vnis != nullptr && *slingshot_vnis != '\0') {
    char* end = nullptr;
    unsigned long v = std::strtoul(slingshot_vnis, &end, 10);
    if (end != slingshot_vnis && (*end == '\0' || *end == ',') && v > 0 && v <= 0xffff) {
      return static_cast<uint16_t>(v);
    }
  }
  if (nic_default_vni.has_value() && *nic_default_vni > 0 && *nic_default_vni <= 0xffff) {
    return static_cast<uint16_t>(*nic_default_vni);
  }
  return 1;
}

Status apply_cxi_environment(const CxiControls& c, bool provider_initialised) {
  for (const CxiEnvSetting& e : c.env) {
    // The variable as the provider will read it (not core/environment.h's snapshot: this
    // function sets it, and a value set before is what the provider saw).
    const char* now = std::getenv(e.name.c_str());
    if (now != nullptr && e.value == now) continue;
    if (provider_initialised) {
      return Status::unsupported(e.name + "=" + e.value +
                                 " cannot take effect: the cxi provider read its environment "
                                 "at this process's first fi_getinfo (" +
                                 e.name + "=" + (now != nullptr ? now : "unset") + " then)");
    }
    setenv(e.name.c_str(), e.value.c_str(), 1);
  }
  return Status::success();
}

}  // namespace fabperf
