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
// The heap's freed top kept. Fixing the mmap threshold also fixes the trim threshold at its
// default, 128 KiB (glibc adjusts it only with a dynamic mmap threshold), so freed memory at the
// heap's top went back to the system and the next run faulted it in afresh, zeroed: a collective
// runs its size, then the same plan at one byte, each on a network of its own. With the trim
// threshold at 2 GiB (M_TRIM_THRESHOLD, the most it takes) the top stays mapped for the allocations
// that follow. The peak is unchanged (the heap grows only where the free top does not serve); the
// resident set stays at its high-water mark until exit. The 512-GPU 64 MiB all-to-all with every
// flow: 0.416 to 0.389 s (medians of 15 alternated runs), its peak 101 MB either way.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace stepsim::cli {

// GLIBC_TUNABLES with the huge-page tunable added to `current` (null: unset), or nothing when
// `current` already sets it.
std::optional<std::string> tunables_with_huge_pages(const char* current);

// Whether glibc's allocator serves this program (not AddressSanitizer's, which replaces it and
// reads no tunable).
bool allocator_is_glibc();

// Whether GLIBC_TUNABLES (`tunables`, null: unset) sets the tunable `name` (the user's wins).
bool names_tunable(const char* tunables, std::string_view name);

// Fixes glibc's mmap threshold at 128 KiB and its trim threshold at 2 GiB, each unless
// GLIBC_TUNABLES sets it (a no-op elsewhere).
void tune_freed_memory();

}  // namespace stepsim::cli
