// LeakSanitizer's suppressions for every fabperf binary (the sanitizer suite, make test-asan):
// leaks that belong to a library fabperf calls, suppressed by that library's own function or
// module so that fabperf's own leaks are still found. Linked into every executable as an object
// of its own (CMakeLists.txt: fabperf_lsan), so one definition serves all, whatever parts of the
// library a binary pulls in. Without ASan nothing calls it.
//
// - libpmix 4.2 keeps a few strings it never frees (pmix_rte_init and
//   pmix_bfrops_base_value_load strdup them; 5 bytes a process).
// - libfabric 1.17's net provider leaks one fi_info (608 bytes, from fi_dupinfo) per RDM
//   endpoint it opens and closes: a 20-line C program doing fi_getinfo, fi_fabric, fi_domain,
//   fi_endpoint and closing each shows it under ASan. The stack ends inside libfabric (built
//   without frame pointers), so nothing narrower than the function can be named.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libpmix.so\n"
         "leak:fi_dupinfo\n";
}
