// Opening, connecting and accepting libfabric endpoints, with deadlines on every wait.
#include "fabric/endpoint.h"

#include <poll.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <mutex>

#include "net/shm_cleanup.h"

namespace fabperf {

namespace {
void nap_us(long us) {
  timespec ts{0, us * 1000};
  nanosleep(&ts, nullptr);
}

const char* cm_event_name(uint32_t event) {
  switch (event) {
    case FI_CONNREQ:
      return "FI_CONNREQ";
    case FI_CONNECTED:
      return "FI_CONNECTED";
    case FI_SHUTDOWN:
      return "FI_SHUTDOWN";
    default:
      return "an unexpected event";
  }
}
// shm names each endpoint's region after its process ("PID:UID:INDEX", net/shm_cleanup.h)
// and refuses an endpoint whose name exists (fi_enable: EBUSY). Before this process opens its
// first one, a region named with its pid and uid can only be a dead process's whose pid it now
// has (a killed run's leftovers, pids reused): removed, once per process. Under the lock, so
// no endpoint of this process is open while it runs.
void clear_dead_namesakes(const fi_info* info) {
  if (info->fabric_attr == nullptr || info->fabric_attr->prov_name == nullptr ||
      std::strstr(info->fabric_attr->prov_name, "shm") == nullptr) {
    return;
  }
  static std::mutex mutex;
  static pid_t cleared_for = 0;  // a forked child is another process with the same memory
  std::lock_guard<std::mutex> lock(mutex);
  if (cleared_for == getpid()) return;
  cleared_for = getpid();
  remove_shm_files_of(getpid(), geteuid());
}
}  // namespace

FabricEndpoint::~FabricEndpoint() {
  // Endpoints go before the CQ, AV and EQ they are bound to; members close in reverse order.
  ep_.reset();
}

Status FabricEndpoint::open_fabric(const fi_info* info) {
  info_ = dup_one_info(info);
  fid_fabric* fabric = nullptr;
  int ret = fi_fabric(info->fabric_attr, &fabric, nullptr);
  if (ret != 0) return fi_status("fi_fabric", ret);
  fabric_.reset(fabric);
  return Status::success();
}

Status FabricEndpoint::open_domain_and_cq(const fi_info* info, const EndpointOptions& options) {
  options_ = options;
  fid_domain* domain = nullptr;
  int ret = fi_domain(fabric_.get(), const_cast<fi_info*>(info), &domain, nullptr);
  if (ret != 0) return fi_status("fi_domain", ret);
  domain_.reset(domain);

  // Blocking waits sleep on the CQ's file descriptor with poll(): the deadline stays ours,
  // and it behaves the same on every provider that offers FI_WAIT_FD.
  fi_cq_attr attr{};
  attr.format = FI_CQ_FORMAT_DATA;
  attr.size = options.cq_size;
  attr.wait_obj = options.busy_poll ? FI_WAIT_NONE : FI_WAIT_FD;
  fid_cq* cq = nullptr;
  ret = fi_cq_open(domain, &attr, &cq, nullptr);
  busy_poll_ = options.busy_poll;
  wait_mode_ = options.busy_poll ? "busy poll" : "blocking (CQ wait fd)";
  if (ret == 0 && !options.busy_poll &&
      (fi_control(&cq->fid, FI_GETWAIT, &cq_fd_) != 0 || cq_fd_ < 0)) {
    fi_close(&cq->fid);
    ret = -FI_ENOSYS;
  }
  if (ret != 0 && !options.busy_poll) {
    // No descriptor to sleep on: polling still measures correctly.
    attr.wait_obj = FI_WAIT_NONE;
    ret = fi_cq_open(domain, &attr, &cq, nullptr);
    busy_poll_ = true;
    cq_fd_ = -1;
    wait_mode_ = "busy poll (the provider has no CQ wait fd)";
  }
  if (ret != 0) return fi_status("fi_cq_open", ret);
  cq_.reset(cq);
  return Status::success();
}

void FabricEndpoint::sleep_on_cq(int timeout_ms) {
  fid* fids[1] = {&cq_->fid};
  // fi_trywait says whether sleeping is safe (nothing pending); if not, the caller polls.
  if (fi_trywait(fabric_.get(), fids, 1) != 0) return;
  pollfd pfd{cq_fd_, POLLIN, 0};
  ::poll(&pfd, 1, timeout_ms);
}

Status FabricEndpoint::create_endpoint(const fi_info* info, bool connected) {
  fid_ep* ep = nullptr;
  int ret = fi_endpoint(domain_.get(), const_cast<fi_info*>(info), &ep, nullptr);
  if (ret != 0) return fi_status("fi_endpoint", ret);
  ep_.reset(ep);
  if (connected) {
    ret = fi_ep_bind(ep, &eq_->fid, 0);
    if (ret != 0) return fi_status("fi_ep_bind(eq)", ret);
  } else {
    fi_av_attr av_attr{};
    av_attr.type = info->domain_attr->av_type;
    av_attr.count = 4;
    fid_av* av = nullptr;
    ret = fi_av_open(domain_.get(), &av_attr, &av, nullptr);
    if (ret != 0) return fi_status("fi_av_open", ret);
    av_.reset(av);
    ret = fi_ep_bind(ep, &av->fid, 0);
    if (ret != 0) return fi_status("fi_ep_bind(av)", ret);
  }
  ret = fi_ep_bind(ep, &cq_->fid, FI_TRANSMIT | FI_RECV);
  if (ret != 0) return fi_status("fi_ep_bind(cq)", ret);
  ret = fi_enable(ep);
  if (ret != 0) return fi_status("fi_enable", ret);
  return Status::success();
}

Result<std::unique_ptr<FabricEndpoint>> FabricEndpoint::open(const fi_info* info,
                                                             const EndpointOptions& options) {
  std::unique_ptr<FabricEndpoint> self(new FabricEndpoint());
  InfoPtr adjusted;
  if ((options.tx_op_flags != 0 || options.tx_msg_order != 0) && info->tx_attr != nullptr) {
    adjusted = dup_one_info(info);
    adjusted->tx_attr->op_flags |= options.tx_op_flags;
    adjusted->tx_attr->msg_order |= options.tx_msg_order;
    info = adjusted.get();
  }
  clear_dead_namesakes(info);
  FP_RETURN_IF_ERROR(self->open_fabric(info));
  FP_RETURN_IF_ERROR(self->open_domain_and_cq(info, options));
  FP_RETURN_IF_ERROR(self->create_endpoint(info, false));
  return self;
}

Result<std::unique_ptr<FabricEndpoint>> FabricEndpoint::listen(const fi_info* info,
                                                               const EndpointOptions& options) {
  std::unique_ptr<FabricEndpoint> self(new FabricEndpoint());
  self->options_ = options;
  FP_RETURN_IF_ERROR(self->open_fabric(info));
  fi_eq_attr eq_attr{};
  eq_attr.size = 16;
  eq_attr.wait_obj = FI_WAIT_NONE;
  fid_eq* eq = nullptr;
  int ret = fi_eq_open(self->fabric_.get(), &eq_attr, &eq, nullptr);
  if (ret != 0) return fi_status("fi_eq_open", ret);
  self->eq_.reset(eq);
  fid_pep* pep = nullptr;
  ret = fi_passive_ep(self->fabric_.get(), const_cast<fi_info*>(info), &pep, nullptr);
  if (ret != 0) return fi_status("fi_passive_ep", ret);
  self->pep_.reset(pep);
  ret = fi_pep_bind(pep, &eq->fid, 0);
  if (ret != 0) return fi_status("fi_pep_bind", ret);
  ret = fi_listen(pep);
  if (ret != 0) return fi_status("fi_listen", ret);
  return self;
}

Status FabricEndpoint::accept(const Deadline& deadline, const ConnreqCheck& admit) {
  InfoPtr request;
  Status refused;
  while (true) {
    Status waited = wait_cm_event(FI_CONNREQ, deadline, &request);
    if (!waited.ok()) {
      if (refused.ok()) return waited;
      return Status(waited.code(), waited.message() + "; refused meanwhile: " + refused.message());
    }
    Status admitted = admit ? admit(*request) : Status::success();
    if (admitted.ok()) break;
    reject(*request, admitted.message());
    refused = admitted;
  }
  FP_RETURN_IF_ERROR(open_domain_and_cq(request.get(), options_));
  FP_RETURN_IF_ERROR(create_endpoint(request.get(), true));
  int ret = fi_accept(ep_.get(), nullptr, 0);
  if (ret != 0) return fi_status("fi_accept", ret);
  FP_RETURN_IF_ERROR(wait_cm_event(FI_CONNECTED, deadline, nullptr));
  info_ = std::move(request);
  pep_.reset();  // one connection per test: stop listening
  return Status::success();
}

void FabricEndpoint::reject(const fi_info& connreq, const std::string& why) {
  size_t room = 0;
  size_t len = sizeof room;
  if (fi_getopt(&pep_->fid, FI_OPT_ENDPOINT, FI_OPT_CM_DATA_SIZE, &room, &len) != 0) room = 0;
  std::string data = why.substr(0, room > 0 ? room - 1 : 0);
  // Without room for the reason, the requester still learns it was refused.
  if (data.empty() || fi_reject(pep_.get(), connreq.handle, data.c_str(), data.size() + 1) != 0) {
    fi_reject(pep_.get(), connreq.handle, nullptr, 0);
  }
}

Result<std::unique_ptr<FabricEndpoint>> FabricEndpoint::connect(const fi_info* info,
                                                                const EndpointOptions& options,
                                                                const Deadline& deadline) {
  std::unique_ptr<FabricEndpoint> self(new FabricEndpoint());
  FP_RETURN_IF_ERROR(self->open_fabric(info));
  fi_eq_attr eq_attr{};
  eq_attr.size = 16;
  eq_attr.wait_obj = FI_WAIT_NONE;
  fid_eq* eq = nullptr;
  int ret = fi_eq_open(self->fabric_.get(), &eq_attr, &eq, nullptr);
  if (ret != 0) return fi_status("fi_eq_open", ret);
  self->eq_.reset(eq);
  FP_RETURN_IF_ERROR(self->open_domain_and_cq(info, options));
  FP_RETURN_IF_ERROR(self->create_endpoint(info, true));
  ret = fi_connect(self->ep_.get(), info->dest_addr, nullptr, 0);
  if (ret != 0) return fi_status("fi_connect", ret);
  FP_RETURN_IF_ERROR(self->wait_cm_event(FI_CONNECTED, deadline, nullptr));
  return self;
}

Status FabricEndpoint::wait_cm_event(uint32_t wanted, const Deadline& deadline,
                                     InfoPtr* connreq_info) {
  // Connection setup is rare: polling the EQ with short naps works on every provider,
  // including those without EQ wait objects, and keeps the deadline exact.
  fi_eq_cm_entry entry{};
  uint32_t event = 0;
  while (true) {
    ssize_t n = fi_eq_read(eq_.get(), &event, &entry, sizeof(entry), 0);
    if (n > 0) break;
    if (n == -FI_EAVAIL) {
      fi_eq_err_entry err{};
      fi_eq_readerr(eq_.get(), &err, 0);
      char buf[256] = {};
      const char* detail =
          fi_eq_strerror(eq_.get(), err.prov_errno, err.err_data, buf, sizeof(buf));
      return Status::failed(std::string("connection failed while waiting for ") +
                            cm_event_name(wanted) + ": " + fi_strerror(err.err) + " (" +
                            (detail ? detail : "") + ")");
    }
    if (n != -FI_EAGAIN) return fi_status("fi_eq_read", n);
    if (deadline.expired()) {
      return Status::timeout(std::string("no ") + cm_event_name(wanted) +
                             " before the deadline (peer gone or unreachable?)");
    }
    nap_us(100);
  }
  if (event != wanted) {
    if (event == FI_CONNREQ && entry.info != nullptr) fi_freeinfo(entry.info);
    return Status::failed(std::string("expected ") + cm_event_name(wanted) + ", got " +
                          cm_event_name(event));
  }
  if (event == FI_CONNREQ) {
    if (connreq_info != nullptr) {
      connreq_info->reset(entry.info);
    } else {
      fi_freeinfo(entry.info);
    }
  }
  return Status::success();
}

Result<std::vector<uint8_t>> FabricEndpoint::name() const {
  fid_t fid = pep_ ? &pep_->fid : &ep_->fid;
  std::vector<uint8_t> out(256);
  size_t len = out.size();
  int ret = fi_getname(fid, out.data(), &len);
  if (ret == -FI_ETOOSMALL) {
    out.resize(len);
    ret = fi_getname(fid, out.data(), &len);
  }
  if (ret != 0) return fi_status("fi_getname", ret);
  out.resize(len);
  return out;
}

Result<fi_addr_t> FabricEndpoint::insert_peer(const std::vector<uint8_t>& peer_name) {
  fi_addr_t addr = FI_ADDR_UNSPEC;
  int ret = fi_av_insert(av_.get(), peer_name.data(), 1, &addr, 0, nullptr);
  if (ret != 1) return fi_status("fi_av_insert", ret < 0 ? ret : -FI_EINVAL);
  return addr;
}

bool FabricEndpoint::discard_canceled() {
  if (pending_error_.has_value()) return false;
  fi_cq_err_entry err{};
  ssize_t got = fi_cq_readerr(cq_.get(), &err, 0);
  if (got < 0) return false;
  if (err.err == FI_ECANCELED) return true;
  pending_error_ = err;  // kept for completion_error()
  return false;
}

Status FabricEndpoint::completion_error(ssize_t ret) {
  if (ret != -FI_EAVAIL) return fi_status("fi_cq_read", ret);
  fi_cq_err_entry err{};
  if (pending_error_.has_value()) {
    err = *pending_error_;
    pending_error_.reset();
  } else {
    ssize_t got = fi_cq_readerr(cq_.get(), &err, 0);
    if (got < 0) return fi_status("fi_cq_readerr", got);
  }
  char buf[256] = {};
  const char* detail = fi_cq_strerror(cq_.get(), err.prov_errno, err.err_data, buf, sizeof(buf));
  std::string text = std::string("completion error: ") + fi_strerror(err.err);
  if (detail != nullptr && *detail != '\0') text += std::string(" (") + detail + ")";
  return Status::failed(text);
}

}  // namespace fabperf
