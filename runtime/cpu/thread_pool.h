#pragma once
// The CPU target's worker threads: one pool for the process, sized by EMBER_NUM_THREADS (default:
// the cores this process may run on). A kernel's chunks run on the calling thread and the
// workers together. Streams recorded on several user threads share the pool: a caller that
// finds it busy runs its chunks itself, so threads are never oversubscribed.
#include <cstdint>
#include <functional>

namespace ember::runtime::cpu {

// Threads a parallel kernel uses, the caller included (>= 1).
int num_threads();

// Runs f(0) ... f(chunks - 1), each exactly once, and returns when all have run. The first
// exception thrown by a chunk is rethrown here after the others finish.
void run_chunks(int chunks, const std::function<void(int)>& f);

}  // namespace ember::runtime::cpu
