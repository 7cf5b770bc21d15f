// Makes room on the heap up front for a command that is about to allocate `bytes` in many small
// pieces, and faults that memory in with one system call (in 2 MiB pages where the kernel allows
// it) instead of one page fault per 4 KiB on first touch. On the VM where burst's benchmarks run,
// page faults were a third of `burst plan`'s time over 10,000 offers (bench/README.md).
// Linux with glibc only; elsewhere it does nothing. Never fails: it is only a hint.
#pragma once

#include <cstddef>

namespace burst {

void reserve_heap(size_t bytes);

}  // namespace burst
