// The typed option structs: RunOptions (one side of one test run; travels to the server by
// name) and ProgramOptions (this process: display, output, connection, server limits, the
// CXI tools' own knobs). Their fields are listed once below; the option table
// (option_table.cc) has one row per field, which gives its default, range, spellings and help
// (a unit test checks that every field has exactly one row).
#pragma once

#include <bitset>
#include <cstddef>
#include <cstdint>
#include <string>

namespace fabperf {

// X(type, name): the fields of RunOptions, in table order.
#define FABPERF_RUN_OPTION_FIELDS(X) \
  X(uint64_t, msg_size)              \
  X(double, time)                    \
  X(uint64_t, no_msgs)               \
  X(uint64_t, warmup)                \
  X(bool, access_recv)               \
  X(std::string, cpu_affinity)       \
  X(bool, cq_poll)                   \
  X(uint64_t, streams)               \
  X(std::string, stream_sender)      \
  X(uint64_t, rate)                  \
  X(uint64_t, latency_gap)           \
  X(double, omit)                    \
  X(std::string, latency_gap_mode)   \
  X(std::string, clock)              \
  X(uint64_t, sock_buf_size)         \
  X(uint64_t, ip_port)               \
  X(bool, nodelay)                   \
  X(bool, reverse)                   \
  X(uint64_t, udp_rate)              \
  X(bool, verify)                    \
  X(std::string, id)                 \
  X(std::string, provider)           \
  X(std::string, domain)             \
  X(std::string, fabric)             \
  X(uint64_t, tx_depth)              \
  X(uint64_t, rd_atomic)             \
  X(std::string, bw_method)          \
  X(uint64_t, mtu_size)              \
  X(std::string, use_hp)             \
  X(std::string, gpu)                \
  X(std::string, atomic_op)          \
  X(std::string, atomic_type)        \
  X(std::string, cswap_op)           \
  X(bool, fetching)                  \
  X(uint64_t, svc_id)                \
  X(bool, no_idc)                    \
  X(bool, no_ll)                     \
  X(bool, no_hrp)                    \
  X(bool, no_ple)                    \
  X(bool, unrestricted)              \
  X(bool, matching)                  \
  X(bool, rdzv)                      \
  X(uint64_t, alt_port)              \
  X(uint64_t, service_level)         \
  X(uint64_t, src_path_bits)         \
  X(std::string, static_rate)        \
  X(bool, use_cm)                    \
  X(double, timeout)

// X(type, name): the fields of ProgramOptions, in table order.
#define FABPERF_PROGRAM_OPTION_FIELDS(X) \
  X(uint64_t, listen_port)               \
  X(std::string, host)                   \
  X(std::string, bind)                   \
  X(bool, loopback)                      \
  X(double, wait_server)                 \
  X(bool, qperf_server)                  \
  X(uint64_t, max_clients)               \
  X(uint64_t, max_msg_size)              \
  X(double, max_time)                    \
  X(uint64_t, max_msgs)                  \
  X(uint64_t, max_memory)                \
  X(std::string, allow)                  \
  X(bool, no_qperf)                      \
  X(std::string, auth_key_file)          \
  X(std::string, run_as)                 \
  X(bool, trust_fabric_addrs)            \
  X(bool, concurrent)                    \
  X(double, queue_timeout)               \
  X(bool, once)                          \
  X(int64_t, precision)                  \
  X(bool, unify_nodes)                   \
  X(bool, unify_units)                   \
  X(bool, use_bits_per_sec)              \
  X(std::string, percentiles)            \
  X(bool, verbose)                       \
  X(bool, verbose_conf)                  \
  X(bool, verbose_stat)                  \
  X(bool, verbose_time)                  \
  X(bool, verbose_used)                  \
  X(bool, verbose_more)                  \
  X(bool, verbose_more_conf)             \
  X(bool, verbose_more_stat)             \
  X(bool, verbose_more_time)             \
  X(bool, verbose_more_used)             \
  X(bool, report_all)                    \
  X(std::string, json)                   \
  X(std::string, json_stream)            \
  X(std::string, csv)                    \
  X(std::string, html)                   \
  X(bool, matrix)                        \
  X(std::string, pattern)                \
  X(bool, randomize)                     \
  X(uint64_t, seed)                      \
  X(uint64_t, retest)                    \
  X(double, budget)                      \
  X(double, lat_tolerance)               \
  X(double, bw_tolerance)                \
  X(double, outlier_mads)                \
  X(double, node_fraction)               \
  X(double, start_timeout)               \
  X(std::string, simulate)               \
  X(std::string, topology)               \
  X(std::string, baseline)               \
  X(uint64_t, passes)                    \
  X(bool, help)                          \
  X(bool, version)                       \
  X(bool, list_fabrics)                  \
  X(uint64_t, iters)                     \
  X(bool, bidirectional)                 \
  X(int64_t, tx_gpu)                     \
  X(int64_t, rx_gpu)                     \
  X(std::string, gpu_type)               \
  X(uint64_t, buf_size)                  \
  X(uint64_t, buf_align)                 \
  X(bool, ignore_cpu_freq_mismatch)      \
  X(bool, emu_mode)                      \
  X(uint64_t, procs)                     \
  X(double, interval)                    \
  X(uint64_t, repeat)                    \
  X(std::string, cpu_list)               \
  X(double, max_temp)                    \
  X(double, max_power)                   \
  X(double, min_rate)                    \
  X(bool, list)                          \
  X(bool, mac_list)                      \
  X(bool, aer)                           \
  X(bool, rates)                         \
  X(bool, traffic)                       \
  X(bool, all_devices)                   \
  X(double, pause)

// Room for one bit per row of the option table.
inline constexpr size_t kMaxOptions = 160;
using OptionMask = std::bitset<kMaxOptions>;

// One side's effective options for one run of a test. Make one with default_run_options()
// (options/option_table.h): a value-initialised RunOptions holds zeros, not the defaults.
struct RunOptions {
#define FABPERF_FIELD(type, name) type name{};
  FABPERF_RUN_OPTION_FIELDS(FABPERF_FIELD)
#undef FABPERF_FIELD
  OptionMask given;  // rows the user set (rather than left at their default)
};

// This process's options. Make one with default_program_options().
struct ProgramOptions {
#define FABPERF_FIELD(type, name) type name{};
  FABPERF_PROGRAM_OPTION_FIELDS(FABPERF_FIELD)
#undef FABPERF_FIELD
  OptionMask given;
};

}  // namespace fabperf
