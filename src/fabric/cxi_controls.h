// The cxi provider's own switches (-v/--svc-id, --no-idc, --no-ll, --no-hrp, --no-ple,
// --unrestricted, --matching, -R/--rdzv) translated into the provider's documented controls:
// FI_CXI_* environment variables (read once, when the provider initialises, so they are set
// before the process's first fi_getinfo), the domain's authorization key (struct
// cxi_auth_key), and endpoint transmit attributes (op_flags, msg_order). The translation is a
// pure function of the options, so a unit test checks every value that would be applied.
// On any other provider nothing is applied and the switches given draw a warning.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "options/run_options.h"

namespace fabperf {

// The cxi provider's extension structures and flags, declared here from its public header
// (libfabric prov/cxi/include/fi_cxi_ext.h), which distributions do not install.
struct CxiAuthKey {  // struct cxi_auth_key
  uint32_t svc_id;
  uint16_t vni;
};
struct CxiNicAttr {  // struct cxip_nic_attr, version 1 (fi_info::nic->prov_attr)
  uint32_t version;
  unsigned int addr;
  unsigned int default_rgroup_id;
  unsigned int default_vni;
};
inline constexpr uint32_t kCxiNicAttrVersion = 1;
inline constexpr uint64_t kCxiDefaultSvcId = 1;           // CXI_DEFAULT_SVC_ID
inline constexpr uint64_t kFiCxiHrp = 1ULL << 60;         // FI_CXI_HRP
inline constexpr uint64_t kFiCxiUnreliable = 1ULL << 61;  // FI_CXI_UNRELIABLE

// What a test does with the provider, as far as the switches care.
enum class CxiOp { kWrite, kRead, kSend, kAtomic, kFetchingAtomic };

struct CxiEnvSetting {
  std::string name, value;
  bool operator==(const CxiEnvSetting& o) const { return name == o.name && value == o.value; }
};

struct CxiControls {
  std::vector<CxiEnvSetting> env;  // FI_CXI_* for the provider, before it initialises
  std::optional<uint32_t> svc_id;  // -v N (N != 1): the domain's auth key carries it
  uint64_t tx_op_flags = 0;        // added to the endpoint's transmit op_flags
  uint64_t tx_msg_order = 0;       // added to the endpoint's transmit msg_order
  bool no_inject = false;          // IDC off: never fi_inject (it is an IDC on cxi)
  std::vector<std::string> given;  // the switches the user gave, as the fab_* tools spell them
  std::vector<std::string> not_applied;  // given, but no libfabric control exists ("--no-ple")
};

// The controls for options `o` on a test doing `op`; `bandwidth`: a stream of operations (HRP
// is for those, as in cxi_write_bw and cxi_atomic_bw). The originals' rules: --matching
// implies unrestricted and no IDC; HRP needs restricted, non-fetching operations; -R implies
// no IDC.
CxiControls cxi_controls(const RunOptions& o, CxiOp op, bool bandwidth);

// The warning for switches given on a provider that is not cxi ("" when none was given or the
// provider is cxi): "--no-idc, -v/--svc-id: cxi provider only; not applied on provider tcp".
// On cxi, the switches with no libfabric control are named instead.
std::string cxi_switch_warning(const CxiControls& c, const std::string& provider);

// The VNI of the auth key: the first of $SLINGSHOT_VNIS (the launcher's grant) when set, else
// the NIC's default VNI as the provider reports it, else 1 (what the originals use on a
// service that does not restrict VNIs).
uint16_t cxi_vni(const char* slingshot_vnis, std::optional<unsigned> nic_default_vni);

// Sets `c.env` in this process's environment. The provider reads it when libfabric first
// lists providers: once that has happened, a setting that differs from what is in force is
// refused (FailedPrecondition-like Unsupported naming the variable), since it would not apply.
Status apply_cxi_environment(const CxiControls& c, bool provider_initialised);

}  // namespace fabperf
