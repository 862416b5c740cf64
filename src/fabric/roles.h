// Entry points of the fabric role functions; each serves both roles (it looks at ctx.role).
#pragma once

#include <rdma/fabric.h>

#include "core/status.h"
#include "engine/test_context.h"
#include "fabric/session.h"

namespace fabperf {

// Send/receive ping-pong; latency = half the round trip.
Status send_pingpong(TestContext& ctx, fi_ep_type type);
// Streaming sends with a window of tx_depth in flight, one way or both ways at once.
Status send_stream(TestContext& ctx, fi_ep_type type, bool bidirectional);

// RDMA write bandwidth. `count_at_target`: the receiver counts through remote CQ data where
// the provider has it (qperf's WRITE_WITH_IMM), else the writer's completions count.
Status rma_write_bw(TestContext& ctx, fi_ep_type type, bool bidirectional, bool count_at_target);
// RDMA read bandwidth, at most min(tx_depth, rd_atomic) reads in flight.
Status rma_read_bw(TestContext& ctx, fi_ep_type type, bool bidirectional);
// Issue-to-completion latency of one write (FI_DELIVERY_COMPLETE where offered) or read.
Status rma_write_lat(TestContext& ctx, fi_ep_type type);
Status rma_read_lat(TestContext& ctx, fi_ep_type type);
// Write-with-remote-data ping-pong (qperf's rc_rdma_write_lat); latency = half the round trip.
Status rma_write_pingpong(TestContext& ctx, fi_ep_type type);
// Writes into the peer's buffer while the peer spins on its first and last byte; no CQ wait.
Status rma_write_poll_lat(TestContext& ctx, fi_ep_type type);

// Atomics chosen by atomic_op/atomic_type/cswap_op/fetching: latency and rate.
Status atomic_lat(TestContext& ctx, fi_ep_type type);
Status atomic_bw(TestContext& ctx, fi_ep_type type, bool bidirectional);
// qperf's message-rate tests on one remote 64-bit word.
Status compare_swap_rate(TestContext& ctx, fi_ep_type type);
Status fetch_add_rate(TestContext& ctx, fi_ep_type type);
// qperf's ver_* tests: every returned old value checked against the expected sequence.
Status verify_compare_swap(TestContext& ctx, fi_ep_type type);
Status verify_fetch_add(TestContext& ctx, fi_ep_type type);

// What each role's session holds (FabricSession::establish allocates by these; the server
// admits a run by the same numbers through the test's needs).
SessionNeeds pingpong_needs(Role role, fi_ep_type type);
SessionNeeds stream_side_needs(size_t window, fi_ep_type type, bool sending, bool receiving);
SessionNeeds stream_needs(const RunOptions& opts, Role role, fi_ep_type type, bool bidirectional);
SessionNeeds rma_write_bw_needs(const RunOptions& opts, fi_ep_type type, bool count_at_target);
SessionNeeds rma_read_bw_needs(const RunOptions& opts, fi_ep_type type, bool bidirectional);
SessionNeeds one_sided_needs(fi_ep_type type, bool read);
SessionNeeds rma_pingpong_needs(fi_ep_type type);
SessionNeeds poll_needs(fi_ep_type type);
SessionNeeds atomic_needs(fi_ep_type type, size_t window, bool delivery_complete);

// uc_* and xrc_*: no libfabric endpoint type gives these semantics.
Status unsupported_transport(TestContext& ctx);

}  // namespace fabperf
