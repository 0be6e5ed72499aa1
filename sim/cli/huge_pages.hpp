// Transparent huge pages for stepsim's large arrays (the max-min pool, flows, events, a large
// cluster's routing tables), asked of glibc's allocator before the program runs.
//
// A step on a large cluster or a collective with every flow simulated touches hundreds of MB to
// GB of freshly grown vectors; at 4 KiB a page, each first touch is a page fault, measured at a
// fifth of the run. glibc (2.35 and later) gives its heap and large blocks `madvise(MADV_HUGEPAGE)`
// when the tunable `glibc.malloc.hugetlb=1` is set (glibc manual, "Memory Allocation Tunables"),
// so that where the kernel's transparent huge pages are in `madvise` mode a fault maps 2 MiB.
// Tunables are read only at start-up, from GLIBC_TUNABLES, so the `stepsim` launcher
// (launcher.cpp) sets it before it executes the program, unless the user's GLIBC_TUNABLES already
// names it (theirs wins). Nothing else changes: outputs are the same byte for byte, and where
// huge pages are off the tunable does nothing.
// Freed memory given back. glibc serves a block from the heap once a block of that size or larger
// was freed from its own mapping (its mmap threshold follows the largest block freed, up to
// 32 MiB), so a plan's freed buffers stay resident under the run that follows and the peak holds
// both: the 16,384-GPU 1 GiB all-to-all peaked at 106 MB, 94 MB with the threshold fixed at
// 128 KiB (M_MMAP_THRESHOLD, glibc manual "Malloc Tunable Parameters"), every block above it
// mapped on its own and unmapped when freed. Run times were unchanged (the DualPipe step on 2,048
// and 131,072 GPUs, measured alternating).
#pragma once

#include <optional>
#include <string>

namespace stepsim::cli {

// GLIBC_TUNABLES with the huge-page tunable added to `current` (null: unset), or nothing when
// `current` already sets it.
std::optional<std::string> tunables_with_huge_pages(const char* current);

// Whether glibc's allocator serves this program (not AddressSanitizer's, which replaces it and
// reads no tunable).
bool allocator_is_glibc();

// Fixes glibc's mmap threshold at 128 KiB, unless GLIBC_TUNABLES sets it (a no-op elsewhere).
void give_back_freed_memory();

}  // namespace stepsim::cli
