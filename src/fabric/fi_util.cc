// Helpers around libfabric handles and return codes.
#include "fabric/fi_util.h"

#include <rdma/fi_domain.h>

#include <cstdlib>
#include <utility>
#include <vector>

namespace fabperf {

std::string fi_error_text(const char* what, int64_t ret) {
  int code = static_cast<int>(ret < 0 ? -ret : ret);
  return std::string(what) + ": " + fi_strerror(code) + " (" + std::to_string(ret) + ")";
}

Status fi_status(const char* what, int64_t ret) {
  if (ret >= 0) return Status::success();
  std::string text = fi_error_text(what, ret);
  switch (-ret) {
    case FI_ENOSYS:
    case FI_EOPNOTSUPP:
    case FI_ENODATA:
      return Status::unsupported(std::move(text));
    case FI_ETIMEDOUT:
      return Status::timeout(std::move(text));
    default:
      return Status::failed(std::move(text));
  }
}

InfoPtr dup_one_info(const fi_info* info) {
  if (info == nullptr) return nullptr;
  // fi_dupinfo copies one entry only (next is not followed).
  return InfoPtr(fi_dupinfo(info));
}

const char* ep_type_name(fi_ep_type type) {
  switch (type) {
    case FI_EP_MSG:
      return "FI_EP_MSG";
    case FI_EP_DGRAM:
      return "FI_EP_DGRAM";
    case FI_EP_RDM:
      return "FI_EP_RDM";
    default:
      return "FI_EP_UNSPEC";
  }
}

namespace {
std::string join_bits(uint64_t value, const std::vector<std::pair<uint64_t, const char*>>& names) {
  std::string out;
  for (const auto& [bit, name] : names) {
    if ((value & bit) == 0) continue;
    if (!out.empty()) out += '|';
    out += name;
  }
  return out.empty() ? "none" : out;
}
}  // namespace

std::string caps_text(uint64_t caps) {
  return join_bits(caps, {{FI_MSG, "FI_MSG"},
                          {FI_RMA, "FI_RMA"},
                          {FI_ATOMIC, "FI_ATOMIC"},
                          {FI_TAGGED, "FI_TAGGED"},
                          {FI_RMA_EVENT, "FI_RMA_EVENT"},
                          {FI_HMEM, "FI_HMEM"},
                          {FI_REMOTE_READ, "FI_REMOTE_READ"},
                          {FI_REMOTE_WRITE, "FI_REMOTE_WRITE"}});
}

std::string mr_mode_text(int mr_mode) {
  return join_bits(static_cast<uint64_t>(mr_mode), {{FI_MR_LOCAL, "FI_MR_LOCAL"},
                                                    {FI_MR_RAW, "FI_MR_RAW"},
                                                    {FI_MR_VIRT_ADDR, "FI_MR_VIRT_ADDR"},
                                                    {FI_MR_ALLOCATED, "FI_MR_ALLOCATED"},
                                                    {FI_MR_PROV_KEY, "FI_MR_PROV_KEY"},
                                                    {FI_MR_MMU_NOTIFY, "FI_MR_MMU_NOTIFY"},
                                                    {FI_MR_RMA_EVENT, "FI_MR_RMA_EVENT"},
                                                    {FI_MR_ENDPOINT, "FI_MR_ENDPOINT"},
                                                    {FI_MR_HMEM, "FI_MR_HMEM"}});
}

}  // namespace fabperf
