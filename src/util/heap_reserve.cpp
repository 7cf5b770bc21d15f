#include "util/heap_reserve.h"

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#endif

namespace burst {

void reserve_heap(size_t bytes) {
#if defined(__linux__) && defined(__GLIBC__)
  if (bytes == 0) return;
  // Serve big blocks from the main heap too, and keep freed memory there, so that what is
  // faulted in below is what the next allocations get.
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  void* block = std::malloc(bytes);
  if (!block) return;
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(block) + page - 1) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(block) + bytes) & ~(page - 1);
  if (end > begin) {
    void* p = reinterpret_cast<void*>(begin);
    const size_t n = end - begin;
#ifdef MADV_HUGEPAGE
    madvise(p, n, MADV_HUGEPAGE);
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older kernels refuse it and we touch the pages
#endif
    if (madvise(p, n, MADV_POPULATE_WRITE) != 0) std::memset(p, 0, n);
  }
  std::free(block);
#else
  (void)bytes;
#endif
}

}  // namespace burst
