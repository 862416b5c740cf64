// A bystander for the shm peer-check tests: a process with a registered, zeroed buffer on a shm
// endpoint that it keeps progressing (as a live application does). It prints one JSON line
// (pid, endpoint name, region), then, when its standard input ends, one more: how many bytes
// of the buffer are no longer zero.
#include <poll.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "fabric/address_codec.h"
#include "fabric/endpoint.h"
#include "fabric/memory.h"
#include "fabric/provider.h"

using namespace fabperf;

namespace {

constexpr size_t kBytes = 64 * 1024;

int fail(const Status& s) {
  std::printf("%s\n", nlohmann::json{{"error", s.message()}}.dump().c_str());
  return 1;
}

}  // namespace

int main() {
  FabricRequest request;
  request.ep_type = FI_EP_RDM;
  request.caps = FI_MSG | FI_RMA;
  request.provider = "shm";
  auto choice = select_fabric(request);
  if (!choice.ok()) return fail(choice.status());
  auto ep = FabricEndpoint::open(choice->info.get(), EndpointOptions{});
  if (!ep.ok()) return fail(ep.status());
  auto buffer = HostBuffer::allocate(kBytes, "");
  if (!buffer.ok()) return fail(buffer.status());
  std::memset(buffer->data(), 0, kBytes);
  auto mr = MemoryRegion::register_buffer(
      (*ep)->domain(), (*ep)->ep(), (*ep)->info(), buffer->data(), kBytes,
      FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE);
  if (!mr.ok()) return fail(mr.status());
  auto name = (*ep)->name();
  if (!name.ok()) return fail(name.status());
  nlohmann::json hello = {{"pid", getpid()},
                          {"name", hex_encode(*name)},
                          {"region", encode_region((*mr)->describe(0, kBytes))}};
  std::printf("%s\n", hello.dump().c_str());
  std::fflush(stdout);

  // Progress the endpoint until standard input ends (the test closes it).
  fi_cq_data_entry entries[8];
  while (true) {
    (*ep)->poll(entries, 8);
    pollfd in{STDIN_FILENO, POLLIN, 0};
    if (::poll(&in, 1, 1) > 0) {
      char byte;
      if (read(STDIN_FILENO, &byte, 1) <= 0) break;
    }
  }
  size_t changed = 0;
  for (size_t i = 0; i < kBytes; ++i) changed += buffer->data()[i] != 0;
  std::printf("%s\n",
              nlohmann::json{{"changed", changed}, {"first", hex_encode(buffer->data(), 32)}}
                  .dump()
                  .c_str());
  std::fflush(stdout);
  return 0;
}
