// PeerSync: the looks at the peer over the control connection, and the end-of-test messages.
#include "fabric/peer_sync.h"

#include "core/clock.h"
#include "core/text.h"
#include "net/control.h"

namespace fabperf {

bool PeerSync::periodic(int64_t now) {
  if (now < next_check_ns_) return true;
  next_check_ns_ = now + kPeerCheckNs;
  if (ctx_.stop_requested()) stopped_ = true;
  Status peer;
  if (word_due_) {
    ctx_.control.message_waiting();  // heartbeats taken; the peer's word stays for its reader
    peer = ctx_.control.alive(now);
  } else {
    peer = ctx_.check_peer();
  }
  if (!peer.ok()) return error_.fail(peer);
  if (ctx_.role == Role::kClient) {
    Status beat = ctx_.control.heartbeat(now);
    if (!beat.ok()) return error_.fail(beat);
  }
  return true;
}

bool PeerSync::client_alive(int64_t now) {
  // The server's side of its READY's promise: a heartbeat every 0.5 s while it waits.
  Status beat = ctx_.control.heartbeat(now);
  if (!beat.ok()) return error_.fail(beat);
  const int64_t limit = static_cast<int64_t>(ctx_.timeout_s() * 1e9);
  if (now - ctx_.control.last_heard_ns() <= limit) return true;
  // Silent as far as this side has read. A loop that reads no messages (a drain, a run past
  // the client's end message, a refused post's retries) leaves the client's heartbeats
  // waiting: they are taken now, and only a client that sent none is silent.
  ctx_.control.message_waiting();
  if (now_ns() - ctx_.control.last_heard_ns() <= limit) return true;
  return error_.fail(Status::timeout("nothing from the client for " +
                                     seconds_text(ctx_.timeout_s()) + " (stopped or gone?)"));
}

bool PeerSync::peer_alive(int64_t now) {
  if (ctx_.role == Role::kServer) {
    // A client that predates heartbeats while it waits (RUN without "heartbeats") is silent
    // while this side drains: only its completions say it lives then.
    return !ctx_.peer.sends_heartbeats || client_alive(now);
  }
  return waiting_on_server(now);
}

bool PeerSync::waiting_on_server(int64_t now) {
  if (now < next_alive_check_ns_) return true;
  next_alive_check_ns_ = now + kPeerCheckNs;
  // The server's heartbeats are taken; a message of its own stays for the reader (periodic()
  // would take it for an error here).
  ctx_.control.message_waiting();
  Status s = ctx_.control.heartbeat(now);
  if (s.ok()) s = ctx_.control.alive(now);
  return s.ok() || error_.fail(s);
}

Status PeerSync::send_done(const nlohmann::json& counts) {
  return ctx_.control.send(MsgType::kExchange, counts);
}

bool PeerSync::peer_message_waiting(int64_t now) {
  if (now < next_done_check_ns_) return false;
  next_done_check_ns_ = now + kDoneCheckNs;
  return ctx_.control.message_waiting();
}

bool PeerSync::control_message_waiting() { return ctx_.control.message_waiting(); }

Result<nlohmann::json> PeerSync::read_peer_done() {
  word_due_ = false;
  return ctx_.control.expect(MsgType::kExchange, ctx_.timeout_s());
}

}  // namespace fabperf
