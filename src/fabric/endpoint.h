// FabricEndpoint: fabric, domain, completion queue and one endpoint (connected or addressed).
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "fabric/fi_util.h"

namespace fabperf {

struct EndpointOptions {
  bool busy_poll = false;  // --cq_poll: spin on fi_cq_read instead of sleeping in fi_cq_sread
  size_t cq_size = 0;      // 0 = provider default
  // Added to the endpoint's transmit attributes (the cxi switches: FI_CXI_HRP,
  // FI_CXI_UNRELIABLE, FI_ORDER_RMA_WAW); operations posted without flags use them.
  uint64_t tx_op_flags = 0;
  uint64_t tx_msg_order = 0;
};

// Owns every libfabric object of one side of a test, closed in the right order.
class FabricEndpoint {
 public:
  // FI_EP_RDM or FI_EP_DGRAM: opened, bound to a CQ and an AV, enabled.
  static Result<std::unique_ptr<FabricEndpoint>> open(const fi_info* info,
                                                      const EndpointOptions& options);
  // FI_EP_MSG server, step 1: a listening passive endpoint; name() is what the client needs.
  static Result<std::unique_ptr<FabricEndpoint>> listen(const fi_info* info,
                                                        const EndpointOptions& options);
  // FI_EP_MSG server, step 2: waits for a connection request `admit` agrees to and accepts it.
  // A request it refuses is rejected (fi_reject, its reason as the reject's data) and the wait
  // goes on until the deadline; then the refusal is part of the error.
  using ConnreqCheck = std::function<Status(const fi_info& connreq)>;
  Status accept(const Deadline& deadline, const ConnreqCheck& admit = nullptr);
  // FI_EP_MSG client: `info` carries the server's name as dest_addr.
  static Result<std::unique_ptr<FabricEndpoint>> connect(const fi_info* info,
                                                         const EndpointOptions& options,
                                                         const Deadline& deadline);

  ~FabricEndpoint();
  FabricEndpoint(const FabricEndpoint&) = delete;
  FabricEndpoint& operator=(const FabricEndpoint&) = delete;

  // The address the peer needs: the passive endpoint's while listening, else the endpoint's.
  Result<std::vector<uint8_t>> name() const;
  // Connectionless endpoints: adds the peer's name to the AV.
  Result<fi_addr_t> insert_peer(const std::vector<uint8_t>& peer_name);

  fid_ep* ep() const { return ep_.get(); }
  fid_domain* domain() const { return domain_.get(); }
  const fi_info* info() const { return info_.get(); }
  bool busy_poll() const { return busy_poll_; }
  bool manual_progress() const { return info_->domain_attr->data_progress == FI_PROGRESS_MANUAL; }
  // "busy poll", "blocking (CQ wait fd)" or why it fell back to busy polling.
  const std::string& wait_mode() const { return wait_mode_; }

  // Completions read (>= 0) or a negative libfabric error; never blocks.
  ssize_t poll(fi_cq_data_entry* entries, size_t max) {
    ssize_t n = fi_cq_read(cq_.get(), entries, max);
    return n == -FI_EAGAIN ? 0 : n;
  }
  // Busy polling: one poll. Blocking: sleeps on the CQ's file descriptor (after fi_trywait)
  // for at most timeout_ms, then polls.
  ssize_t wait(fi_cq_data_entry* entries, size_t max, int timeout_ms) {
    ssize_t n = poll(entries, max);
    if (n != 0 || busy_poll_ || timeout_ms <= 0) return n;
    sleep_on_cq(timeout_ms);
    return poll(entries, max);
  }
  // The Status for a negative poll/wait result; reads and decodes the error completion.
  Status completion_error(ssize_t ret);
  // After -FI_EAVAIL: when the waiting error is a canceled operation (receives still posted
  // when the peer closes at the end of a test), consumes it and returns true.
  bool discard_canceled();

 private:
  FabricEndpoint() = default;
  Status open_fabric(const fi_info* info);
  Status open_domain_and_cq(const fi_info* info, const EndpointOptions& options);
  Status create_endpoint(const fi_info* info, bool connected);
  void sleep_on_cq(int timeout_ms);
  // Rejects connection request `connreq` with `why` (cut to what the provider carries).
  void reject(const fi_info& connreq, const std::string& why);
  // Waits for `wanted` on the EQ; FI_CONNREQ hands over the request's fi_info.
  Status wait_cm_event(uint32_t wanted, const Deadline& deadline, InfoPtr* connreq_info);

  InfoPtr info_;
  FidPtr<fid_fabric> fabric_;
  FidPtr<fid_domain> domain_;
  FidPtr<fid_eq> eq_;
  FidPtr<fid_pep> pep_;
  FidPtr<fid_cq> cq_;
  FidPtr<fid_av> av_;
  FidPtr<fid_ep> ep_;
  EndpointOptions options_;
  bool busy_poll_ = false;
  std::string wait_mode_;
  std::optional<fi_cq_err_entry> pending_error_;
  int cq_fd_ = -1;  // the CQ's wait descriptor (FI_WAIT_FD) in blocking mode
};

}  // namespace fabperf
