// Built into tpnet-calibrate and its tests only under TPNET_SANITIZE.
//
// MPI, NCCL and the CUDA runtime are built without frame pointers, so
// ASan's fast unwinder stops before their frames and the LeakSanitizer
// suppressions (tests/sanitizers/lsan.supp), which match those libraries by
// name, miss what they keep until exit. The slow unwinder finds them; it is
// set here rather than in the test preset because it makes every allocation
// about a third slower, and only these two binaries load those libraries.

extern "C" const char* __asan_default_options();  // NOLINT(bugprone-reserved-identifier)

extern "C" const char* __asan_default_options() {  // NOLINT(bugprone-reserved-identifier)
  return "fast_unwind_on_malloc=0";
}
