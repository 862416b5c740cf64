// Bootstrap over PMIx: Put/Commit of this rank's card, a fence with data collection (and a
// timeout, so a rank that never arrives cannot hold the others), Get of peers' cards.
#include <atomic>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "cluster/bootstrap.h"
#include "cluster/pmix_api.h"

namespace fabperf::cluster {

namespace {

constexpr const char* kCardKey = "fabperf.card";

void load_key(pmix_info_t& info, const char* key) {
  std::memset(&info, 0, sizeof info);
  std::strncpy(info.key, key, PMIX_MAX_KEYLEN);
}

void info_bool(pmix_info_t& info, const char* key, bool value) {
  load_key(info, key);
  info.value.type = PMIX_BOOL;
  info.value.data.flag = value;
}

void info_int(pmix_info_t& info, const char* key, int value) {
  load_key(info, key);
  info.value.type = PMIX_INT;
  info.value.data.integer = value;
}

// PMIx timeouts are whole seconds, 0 meaning none: never round a deadline down to forever.
int whole_seconds(double s) { return s < 1 ? 1 : static_cast<int>(s + 0.5); }

class PmixBootstrap : public Bootstrap {
 public:
  PmixBootstrap(const PmixApi& api, const pmix_proc_t& me, int size, int local_size)
      : api_(api), me_(me), size_(size), local_size_(local_size) {}
  ~PmixBootstrap() override { finalize(); }

  int rank() const override { return static_cast<int>(me_.rank); }
  int size() const override { return size_; }
  int local_size() const override { return local_size_; }
  std::string job() const override { return me_.nspace; }

  Status publish(const RankCard& card) override {
    std::string text = card.to_json().dump();
    pmix_value_t value;
    std::memset(&value, 0, sizeof value);
    value.type = PMIX_STRING;
    value.data.string = text.data();  // PMIx_Put copies it
    pmix_status_t rc = api_.put(PMIX_GLOBAL, kCardKey, &value);
    if (rc == PMIX_SUCCESS) rc = api_.commit();
    return rc == PMIX_SUCCESS ? Status::success() : pmix_failed("PMIx_Put/Commit", rc);
  }

  Status exchange(double timeout_s) override {
    pmix_proc_t all;
    std::memset(&all, 0, sizeof all);
    std::memcpy(all.nspace, me_.nspace, sizeof all.nspace);
    all.rank = PMIX_RANK_WILDCARD;
    pmix_info_t info[2];
    info_bool(info[0], PMIX_COLLECT_DATA, true);
    info_int(info[1], PMIX_TIMEOUT, whole_seconds(timeout_s));
    pmix_status_t rc = api_.fence(&all, 1, info, 2);
    if (rc == PMIX_SUCCESS) return Status::success();
    if (rc == PMIX_ERR_TIMEOUT) {
      return Status::timeout("not every rank reached the start-up exchange within " +
                             std::to_string(whole_seconds(timeout_s)) + " s (--start_timeout)");
    }
    return pmix_failed("PMIx_Fence", rc);
  }

  Result<RankCard> lookup(int rank, double timeout_s) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (auto it = cache_.find(rank); it != cache_.end()) return it->second;
      if (auto it = missing_.find(rank); it != missing_.end()) return it->second;
    }
    if (rank < 0 || rank >= size_)
      return Status::failed("rank " + std::to_string(rank) + " is not in the job");
    if (finalized_) return Status::failed("published no address before the start-up exchange");
    pmix_proc_t peer;
    std::memset(&peer, 0, sizeof peer);
    std::memcpy(peer.nspace, me_.nspace, sizeof peer.nspace);
    peer.rank = static_cast<pmix_rank_t>(rank);
    pmix_info_t info[1];
    info_int(info[0], PMIX_TIMEOUT, whole_seconds(timeout_s));
    pmix_value_t* value = nullptr;
    pmix_status_t rc = api_.get(&peer, kCardKey, info, 1, &value);
    if (rc != PMIX_SUCCESS || value == nullptr) {
      if (rc == PMIX_ERR_TIMEOUT || rc == PMIX_ERR_NOT_FOUND) {
        return Status::timeout("published no address within " +
                               std::to_string(whole_seconds(timeout_s)) +
                               " s (did it start? did its fabperf reach --matrix?)");
      }
      return pmix_failed("PMIx_Get of rank " + std::to_string(rank), rc);
    }
    std::string text =
        value->type == PMIX_STRING && value->data.string != nullptr ? value->data.string : "";
    release(value);
    auto parsed = nlohmann::json::parse(text, nullptr, false);
    if (parsed.is_discarded()) return Status::failed("its published card is not JSON");
    auto card = RankCard::from_json(parsed);
    if (!card.ok()) return card.status();
    if (card->rank != rank)
      return Status::failed("its card names rank " + std::to_string(card->rank));
    std::lock_guard<std::mutex> lock(mu_);
    cache_[rank] = *card;
    return *card;
  }

  void let_go(double timeout_s) override {
    if (finalized_) return;
    // After the fence the cards are local: each Get is a lookup in this process's copy.
    for (int r = 0; r < size_; ++r) {
      auto card = lookup(r, timeout_s);
      if (!card.ok()) {
        std::lock_guard<std::mutex> lock(mu_);
        missing_.emplace(r, card.status());
      }
    }
    finalize();
  }

  void abort_job(const std::string& why) override {
    if (finalized_) return;
    api_.abort(1, why.c_str(), nullptr, 0);
  }

  void finalize() override {
    if (finalized_) return;
    finalized_ = true;
    api_.finalize(nullptr, 0);
  }

 private:
  Status pmix_failed(const std::string& what, pmix_status_t rc) const {
    return Status::failed(what + ": " + api_.error_string(rc));
  }

  void release(pmix_value_t* value) const {
    if (api_.value_destruct != nullptr) {
      api_.value_destruct(value);
    } else if (value->type == PMIX_STRING) {
      std::free(value->data.string);
    }
    std::free(value);
  }

  const PmixApi& api_;
  pmix_proc_t me_;
  int size_;
  int local_size_;
  std::atomic<bool> finalized_{false};
  std::mutex mu_;
  std::unordered_map<int, RankCard> cache_;
  std::unordered_map<int, Status> missing_;  // after let_go: why a rank has no card
};

// A uint32 attribute of the whole job (PMIX_JOB_SIZE, PMIX_LOCAL_SIZE).
pmix_status_t job_number(const PmixApi& api, const pmix_proc_t& me, const char* key,
                         uint32_t* out) {
  pmix_proc_t all = me;
  all.rank = PMIX_RANK_WILDCARD;
  pmix_value_t* value = nullptr;
  pmix_status_t rc = api.get(&all, key, nullptr, 0, &value);
  if (rc == PMIX_SUCCESS && value != nullptr && value->type == PMIX_UINT32)
    *out = value->data.uint32;
  if (value != nullptr) std::free(value);  // a number: nothing inside to release
  return rc;
}

}  // namespace

Result<std::unique_ptr<Bootstrap>> make_pmix_bootstrap() {
  std::string error;
  const PmixApi* api = pmix_api(&error);
  if (api == nullptr) return Status::failed(error);
  pmix_proc_t me;
  std::memset(&me, 0, sizeof me);
  pmix_status_t rc = api->init(&me, nullptr, 0);
  if (rc != PMIX_SUCCESS) {
    return Status::failed(std::string("PMIx_Init: ") + api->error_string(rc) +
                          " (is the launcher's PMIx server reachable?)");
  }
  uint32_t size = 0, local_size = 0;
  rc = job_number(*api, me, PMIX_JOB_SIZE, &size);
  if (rc != PMIX_SUCCESS || size == 0) {
    api->finalize(nullptr, 0);
    return Status::failed(std::string("PMIx_Get(job size): ") + api->error_string(rc));
  }
  job_number(*api, me, PMIX_LOCAL_SIZE, &local_size);  // optional: 0 when not known
  return std::unique_ptr<Bootstrap>(
      new PmixBootstrap(*api, me, static_cast<int>(size), static_cast<int>(local_size)));
}

}  // namespace fabperf::cluster
