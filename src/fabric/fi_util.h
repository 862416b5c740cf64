// Helpers around libfabric handles and return codes: errors as Status values, owning pointers.
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include <cstdint>
#include <memory>
#include <string>

#include "core/status.h"

namespace fabperf {

// The API version every fi_getinfo call asks for: the one the headers describe.
inline constexpr uint32_t kFiApiVersion = FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION);

// "fi_getinfo: No data available (-61)".
std::string fi_error_text(const char* what, int64_t ret);

// A failed libfabric call as a Status: Unsupported for "not supported" codes, Timeout for
// -FI_ETIMEDOUT, Failed otherwise.
Status fi_status(const char* what, int64_t ret);

// Closes any libfabric object through its fid.
template <typename T>
struct FidDeleter {
  void operator()(T* object) const {
    if (object != nullptr) fi_close(&object->fid);
  }
};
template <typename T>
using FidPtr = std::unique_ptr<T, FidDeleter<T>>;

// Owns a (list of) fi_info.
struct InfoDeleter {
  void operator()(fi_info* info) const { fi_freeinfo(info); }
};
using InfoPtr = std::unique_ptr<fi_info, InfoDeleter>;

// What every one-sided *msg post (fi_writemsg, fi_readmsg, fi_atomicmsg and the fetching
// forms) addresses alike, with one local and one remote vector: fi_msg_rma and fi_msg_atomic
// name these fields the same.
template <typename Msg, typename Local, typename Remote>
void address_one_sided_msg(Msg& msg, Local* local, void** desc, fi_addr_t peer, Remote* remote,
                           void* context) {
  msg.msg_iov = local;
  msg.desc = desc;
  msg.iov_count = 1;
  msg.addr = peer;
  msg.rma_iov = remote;
  msg.rma_iov_count = 1;
  msg.context = context;
}

// A copy of one entry, cut from its list.
InfoPtr dup_one_info(const fi_info* info);

// "FI_EP_MSG", "FI_EP_RDM", "FI_EP_DGRAM".
const char* ep_type_name(fi_ep_type type);
// "FI_MSG|FI_RMA|FI_ATOMIC" for the capability bits fabperf asks for.
std::string caps_text(uint64_t caps);
// "FI_MR_LOCAL|FI_MR_VIRT_ADDR|..." ("none" when zero).
std::string mr_mode_text(int mr_mode);

}  // namespace fabperf
