// Revy C++ runtime, the implementation: C++11 or later, standard library (+ POSIX where
// available). `revy_runtime.hpp` (what annotated sources include) declares the entry points
// defined at the end of this file; this file is compiled once per program — into the shared
// library `revy annotate` builds (`librevy_runtime.so`, loaded by the header at run time) —
// or, where that cannot be used, included by the header itself (header-only form).
//
// What it does: per-thread event buffers (64 KiB) encoded in the compact trace form
// (annotator/trace/FORMAT.md), flushed as `B` blocks under a global lock; classes and methods are
// defined (`C`/`M` records) lazily on first use; `T` past the size limit; `E` at a clean exit.
// Works with -fno-exceptions and -fno-rtti (no throw, typeid or dynamic_cast), and with
// -std=c++11 … c++20: no inline variables (state lives in static members of a class template
// or in function-local statics, which the ODR lets every translation unit share), no
// `if constexpr`, no fold expressions.
#ifndef REVY_RUNTIME_IMPL_HPP_INCLUDED
#define REVY_RUNTIME_IMPL_HPP_INCLUDED

#include "revy_runtime.hpp"

#include <atomic>
#include <algorithm>
#include <chrono>
#include <cerrno>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iterator>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <utility>

#if defined(__unix__) || defined(__APPLE__)
#define REVY_POSIX 1
#include <errno.h>
#include <time.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#endif
#else
#define REVY_POSIX 0
#endif

#if defined(REVY_RUNTIME_BUILDING_LIB) && defined(__linux__) && defined(SYS_gettid)
#define REVY_MAIN_BY_TID 1
#else
#define REVY_MAIN_BY_TID 0
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define REVY_TSC 1
#include <cpuid.h>
#else
#define REVY_TSC 0
#endif

// An unoptimised build (-O0, CMake's Debug) would otherwise run the logging code unoptimised
// too: ten times slower per event. The runtime's own functions are compiled with -O2 then.
#if defined(__GNUC__) && !defined(__clang__) && !defined(__OPTIMIZE__)
#define REVY_PUSHED_OPTIMIZE 1
#pragma GCC push_options
#pragma GCC optimize("O2")
// ... and the hot path's helpers are inlined into each other (-O0 inlines nothing).
#define REVY_HOT inline __attribute__((always_inline))
#elif defined(REVY_RUNTIME_BUILDING_LIB)
// In the shared library every entry point calls the hot helpers: GCC would keep them out of
// line there (reserve, end, pop: a call each, about 100 instructions more per call pair).
#define REVY_HOT inline __attribute__((always_inline))
#else
#define REVY_HOT inline
#endif
#if defined(__GNUC__) || defined(__clang__)
#define REVY_COLD inline __attribute__((noinline))
#else
#define REVY_COLD inline
#endif

namespace _revy_rt {
namespace detail {

#if REVY_TSC
__extension__ typedef unsigned __int128 u128;
#endif

// Atomics through the compiler's builtins where available: std::atomic's member functions are
// out-of-line calls in an unoptimised build (they live outside this header's -O2 region).
#if defined(__GNUC__) || defined(__clang__)
template <typename T>
struct Atom {
    T v;
    T load(std::memory_order m) const { return __atomic_load_n(&v, static_cast<int>(m)); }
    void store(T x, std::memory_order m) { __atomic_store_n(&v, x, static_cast<int>(m)); }
    T fetch_add(T x, std::memory_order m) { return __atomic_fetch_add(&v, x, static_cast<int>(m)); }
    T exchange(T x, std::memory_order m) { return __atomic_exchange_n(&v, x, static_cast<int>(m)); }
    bool compare_exchange_strong(T& e, T x, std::memory_order m) {
        return __atomic_compare_exchange_n(&v, &e, x, false, static_cast<int>(m),
                                           static_cast<int>(std::memory_order_relaxed));
    }
};
#else
template <typename T>
using Atom = std::atomic<T>;
#endif

enum { kBufCap = 64 * 1024 };
// Flushed blocks of a thread whose place in the file is kept for late patches (4 MiB of
// events behind the buffer: a constructor that long still gets its start's ID and its class).
enum { kFlushedKept = 64 };
enum { kMaxEvent = 48 };  // kind byte + four 10-byte varints, rounded up
enum { kTailRoom = 24 };  // kept free under max_size for the T and E records
// Event kinds of the compact trace form (annotator/trace/FORMAT.md).
// kEndCpu: an end with the call's on-CPU time; kEndBare: the end of the thread's innermost
// open start, its time only (the header says `ends=bare`; annotator/trace/FORMAT.md).
enum EventKind { kCrt = 1, kDst = 2, kStart = 3, kEnd = 4, kEndCpu = 5, kEndBare = 7 };

// ---- low-level output -------------------------------------------------------------------

// A write that fails (disk full, file-size limit) is said once on stderr, and the trace ends
// there (later writes are skipped: a gap would make the rest unreadable).
inline void say_write_failed(int err) {
    const int saved = errno;
    struct Back {
        int e;
        ~Back() { errno = e; }
    } back = {saved};
    const char* why = std::strerror(err);
    char line[256];
    int n = std::snprintf(line, sizeof line, "revy: cannot write the trace: %s; the trace ends here\n", why);
    if (n <= 0) return;
#if REVY_POSIX
    ssize_t w = ::write(2, line, static_cast<std::size_t>(n) < sizeof line ? n : sizeof line - 1);
    (void)w;
#else
    std::fputs(line, stderr);
#endif
}

struct Out {
    bool failed;
#if REVY_POSIX
    int fd;
    Out() : failed(false), fd(-1) {}
#else
    std::FILE* f;
    Out() : failed(false), f(nullptr) {}
#endif
    bool open() const {
#if REVY_POSIX
        return fd >= 0;
#else
        return f != nullptr;
#endif
    }
    // Async-signal-safe on POSIX (write(2) only).
    void write_all(const void* p, std::size_t n) {
        if (failed) return;
#if REVY_POSIX
        const char* c = static_cast<const char*>(p);
        while (n > 0) {
            ssize_t w = ::write(fd, c, n);
            if (w < 0) {
                if (errno == EINTR) continue;
                failed = true;
                say_write_failed(errno);
                return;
            }
            c += w;
            n -= static_cast<std::size_t>(w);
        }
#else
        if (std::fwrite(p, 1, n, f) != n) {
            failed = true;
            say_write_failed(errno);
        }
#endif
    }
    void close() {
        failed = false;
#if REVY_POSIX
        if (fd >= 0) ::close(fd);
        fd = -1;
#else
        if (f) std::fclose(f);
        f = nullptr;
#endif
    }
};

REVY_HOT std::size_t put_v(std::uint8_t* p, std::uint64_t v) {
    std::size_t n = 0;
    while (v >= 0x80) {
        p[n++] = static_cast<std::uint8_t>(v | 0x80);
        v >>= 7;
    }
    p[n++] = static_cast<std::uint8_t>(v);
    return n;
}
// A varint padded to exactly 5 bytes (values below 2^35), so it can be rewritten in place.
inline void put_v5(std::uint8_t* p, std::uint64_t v) {
    if (v >= (std::uint64_t(1) << 35)) v = (std::uint64_t(1) << 35) - 1;
    for (int i = 0; i < 4; ++i) {
        p[i] = static_cast<std::uint8_t>((v & 0x7f) | 0x80);
        v >>= 7;
    }
    p[4] = static_cast<std::uint8_t>(v);
}
REVY_HOT std::size_t put_z(std::uint8_t* p, std::int64_t v) {
    std::uint64_t z = (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
    return put_v(p, z);
}

// A tiny lock usable (by try-lock) from a signal handler.
struct SpinLock {
    Atom<bool> held;
    SpinLock() : held() {}
    void lock() {
        while (held.exchange(true, std::memory_order_acquire)) std::this_thread::yield();
    }
    bool try_lock_for_signal() {
        for (int i = 0; i < 100; ++i) {
            if (!held.exchange(true, std::memory_order_acquire)) return true;
#if REVY_POSIX
            struct timespec ts = {0, 1000000};
            ::nanosleep(&ts, nullptr);
#endif
        }
        return false;
    }
    void unlock() { held.store(false, std::memory_order_release); }
};

// ---- per-thread buffers -----------------------------------------------------------------

// Puts errno back when it goes out of scope. The runtime's slow paths (opening the trace,
// flushing a buffer, defining names, thread and fork bookkeeping) make system calls, and a
// program may read errno after a call that Revy instrumented: fmt's getpagesize() read
// EEXIST, left by the trace folder's mkdir, instead of the EINVAL its sysconf() had set.
struct ErrnoKeep {
    int saved;
    ErrnoKeep() : saved(errno) {}
    ~ErrnoKeep() { errno = saved; }
    ErrnoKeep(const ErrnoKeep&) = delete;
    ErrnoKeep& operator=(const ErrnoKeep&) = delete;
};

struct ThreadBuf {
    // (event count << 32) | byte length; stored with release by the owner after each event
    // so that the exit/crash flusher sees only complete events.
    Atom<std::uint64_t> state;
    std::uint64_t base;  // time of the block's first event
    std::uint64_t last;  // time of the previous event
    std::uint64_t tid;
    std::uint64_t gen;  // number of flushes so far (a pending Crt is patchable while unchanged)
    // Where the latest kFlushedKept blocks' events went in the file (0: not written), by
    // generation: a patch that comes after its event's flush rewrites the file instead.
    std::uint64_t flushed_gen[kFlushedKept];
    std::uint64_t flushed_at[kFlushedKept];
    ThreadBuf* next;
    ThreadBuf* prev;
    struct AggTable* agg;  // what this thread did not record (created on first need)
    struct ThreadState* owner;  // its shadow stack (calls still open at exit are counted)
    struct FaultTable* faults;  // page faults of its long calls (created on first need)
    std::uint8_t data[kBufCap];
    ThreadBuf()
        : state(),
          base(0),
          last(0),
          tid(0),
          gen(0),
          flushed_gen(),
          flushed_at(),
          next(nullptr),
          prev(nullptr),
          agg(nullptr),
          owner(nullptr),
          faults(nullptr) {}
};

enum : int { kUninit = 0, kOn = 1, kOff = 2 };

// The state the hot path reads: constant-initialised (no guard), shared by every translation
// unit as a static member of a class template.
struct Hot {
    Atom<int> status;
    // Events are recorded (else calls are aggregated): cleared at the size limit.
    Atom<int> recording;
    Atom<std::uint64_t> next_oid;
    Atom<std::uint64_t> next_tid;
    std::uint64_t ns0;   // steady_clock nanoseconds at the first event
    std::uint64_t tsc0;  // the time-stamp counter then
    std::uint64_t mult;  // nanoseconds per tick, 32.32 fixed point
    int use_tsc;
};

template <typename Unused = void>
struct Statics {
    static Hot hot;
    static Atom<std::uint8_t> class_defined[config::class_count + 1];
    // where each class's C record went in the file (read and written under the lock)
    static std::uint64_t class_at[config::class_count + 1];
    static Atom<std::uint8_t> method_defined[config::method_count + 1];
    // Methods that stopped producing events (TAU's rule, `[trace] throttle_*`).
    static Atom<std::uint8_t> throttled[config::method_count + 1];
    // Per throttled method: 1 + its mean ns per call at the verdict (0 = not throttled).
    static Atom<std::uint64_t> estimate[config::method_count + 1];
    // Per class: the first object ID whose creation and destruction are counted, not logged
    // (0: all logged; see "objects of throttled classes").
    static Atom<std::uint64_t> obj_from[config::class_count + 1];
};
template <typename Unused>
Hot Statics<Unused>::hot = {{kUninit}, {1}, {1}, {2}, 0, 0, 0, 0};
template <typename Unused>
Atom<std::uint8_t> Statics<Unused>::class_defined[config::class_count + 1];
template <typename Unused>
std::uint64_t Statics<Unused>::class_at[config::class_count + 1];
template <typename Unused>
Atom<std::uint8_t> Statics<Unused>::method_defined[config::method_count + 1];
template <typename Unused>
Atom<std::uint8_t> Statics<Unused>::throttled[config::method_count + 1];
template <typename Unused>
Atom<std::uint64_t> Statics<Unused>::estimate[config::method_count + 1];
template <typename Unused>
Atom<std::uint64_t> Statics<Unused>::obj_from[config::class_count + 1];

REVY_HOT Hot& hot() { return Statics<>::hot; }

// Non-intrusive object IDs by address: open addressing, linear probing, deletion by backward
// shift (no tombstones), grown at half full. std::unordered_map's node per entry (an
// allocation per object, a free per destruction) was most of `nid_new`'s cost in leveldb.
struct NidMap {
    struct Slot {
        const void* key;  // null: empty (an object's address never is)
        std::uint64_t oid;
    };
    Slot* s;
    std::size_t cap, used;  // cap: a power of two (0: no table yet)
    NidMap() : s(nullptr), cap(0), used(0) {}
    static std::size_t home(const void* k, std::size_t cap) {
        std::uint64_t x = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(k));
        x = (x ^ (x >> 29)) * 0xBF58476D1CE4E5B9ull;
        return static_cast<std::size_t>(x ^ (x >> 32)) & (cap - 1);
    }
    // The slot of `k`, or `cap` when it has none.
    std::size_t at(const void* k) const {
        if (!cap) return 0;
        for (std::size_t i = home(k, cap);; i = (i + 1) & (cap - 1)) {
            if (s[i].key == k) return i;
            if (!s[i].key) return cap;
        }
    }
    // The ID kept for `k`, or null.
    const std::uint64_t* find(const void* k) const {
        const std::size_t i = at(k);
        return i < cap ? &s[i].oid : nullptr;
    }
    bool grow() {
        std::size_t n = cap ? cap * 2 : 1024;
        Slot* t = new (std::nothrow) Slot[n];
        if (!t) return false;
        std::memset(static_cast<void*>(t), 0, sizeof(Slot) * n);
        for (std::size_t i = 0; i < cap; ++i) {
            if (!s[i].key) continue;
            std::size_t j = home(s[i].key, n);
            while (t[j].key) j = (j + 1) & (n - 1);
            t[j] = s[i];
        }
        delete[] s;
        s = t;
        cap = n;
        return true;
    }
    // `k` gets `oid` (replacing what it had); false when memory runs out.
    bool put(const void* k, std::uint64_t oid) {
        if ((used + 1) * 2 > cap && !grow()) return false;
        std::size_t i = home(k, cap);
        while (s[i].key && s[i].key != k) i = (i + 1) & (cap - 1);
        if (!s[i].key) ++used;
        s[i].key = k;
        s[i].oid = oid;
        return true;
    }
    // Drops `k` when it still has `oid`.
    void erase(const void* k, std::uint64_t oid) {
        std::size_t i = at(k);
        if (i >= cap || s[i].oid != oid) return;
        // backward shift: the run's later entries move into the hole unless their home slot
        // lies cyclically in (hole, their slot]
        for (std::size_t j = (i + 1) & (cap - 1); s[j].key; j = (j + 1) & (cap - 1)) {
            const std::size_t h = home(s[j].key, cap);
            const bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
            if (stays) continue;
            s[i] = s[j];
            i = j;
        }
        s[i].key = nullptr;
        --used;
    }
};

// Everything else: built on first use, never destroyed (static destructors may still log).
struct Global {
    SpinLock lock;  // guards out, bytes, the buffer list and the flags below
    Out out;
    bool finished;
    bool truncated;
    std::uint64_t bytes;
    std::uint64_t events;
    std::uint64_t max_size;
    int budget_fd;           // the run's shared budget file (-1: this process's own limit)
    std::uint64_t granted;   // bytes of the shared budget this process reserved
    long pid;
    ThreadBuf* buffers;
    std::thread::id main_thread;
    std::mutex nid_mutex;
    NidMap nids;
    Atom<std::uint64_t> agg_keys;  // instance-level edges of all threads (bounded)
    Global()
        : finished(false), truncated(false), bytes(0), events(0), max_size(0), budget_fd(-1),
          granted(0), pid(0), buffers(nullptr), agg_keys() {}
};

inline Global& g() {
    alignas(Global) static unsigned char storage[sizeof(Global)];
    static Global* p = new (storage) Global();
    return *p;
}

// Taken during static initialisation (normally on the main thread), so main gets tid 1. One
// marker per translation unit (internal linkage); each records the same thread.
// (The shared library, loaded by whichever thread calls first, asks Linux instead: the main
// thread's id is the process id.)
#if !REVY_MAIN_BY_TID
struct MainMarker {
    MainMarker() { g().main_thread = std::this_thread::get_id(); }
};
namespace {
const MainMarker revy_main_marker_;
}
#endif

inline long current_pid() {
#if REVY_POSIX
    return static_cast<long>(::getpid());
#else
    return 0;
#endif
}

// ---- time ---------------------------------------------------------------------------------

inline std::uint64_t steady_ns() {
    auto n = std::chrono::duration_cast<std::chrono::nanoseconds>(
                 std::chrono::steady_clock::now().time_since_epoch())
                 .count();
    return n < 0 ? 0 : static_cast<std::uint64_t>(n);
}

#if REVY_TSC
REVY_HOT std::uint64_t rdtsc() {
    unsigned lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return (static_cast<std::uint64_t>(hi) << 32) | lo;
}

// An invariant TSC (CPUID), or one the Linux kernel itself uses as its clock source.
inline bool tsc_usable() {
    const char* env = std::getenv("REVY_CLOCK");
    if (env && std::strcmp(env, "steady") == 0) return false;
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid(0x80000007u, &a, &b, &c, &d) && (d & (1u << 8))) return true;
#if REVY_POSIX
    int fd = ::open("/sys/devices/system/clocksource/clocksource0/current_clocksource",
                    O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char buf[16] = {0};
    ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    return n >= 3 && std::strncmp(buf, "tsc", 3) == 0 && (n == 3 || buf[3] == '\n');
#else
    return false;
#endif
}
#endif

// Sets the time origin; with a usable TSC, calibrates it against steady_clock (about 2 ms).
inline void init_clock() {
    Hot& h = hot();
    h.ns0 = steady_ns();
#if REVY_TSC
    if (tsc_usable()) {
        std::uint64_t n0 = steady_ns(), t0 = rdtsc(), n1 = n0, t1 = t0;
        while ((n1 = steady_ns()) - n0 < 2000000) {
        }
        t1 = rdtsc();
        if (t1 > t0) {
            h.mult = static_cast<std::uint64_t>(((static_cast<u128>(n1 - n0)) << 32) / (t1 - t0));
            h.tsc0 = t0 - static_cast<std::uint64_t>(((static_cast<u128>(n0 - h.ns0)) << 32) /
                                                    (h.mult ? h.mult : 1));
            h.use_tsc = h.mult != 0;
        }
    }
#endif
}

// Nanoseconds since the first event by the TSC, where it is the clock (`fast_clock()`): no
// call, so the recorded fast paths keep their values in scratch registers.
REVY_HOT bool fast_clock() {
#if REVY_TSC
    return hot().use_tsc != 0;
#else
    return false;
#endif
}
REVY_HOT std::uint64_t fast_now_ns() {
#if REVY_TSC
    const Hot& h = hot();
    std::int64_t d = static_cast<std::int64_t>(rdtsc() - h.tsc0);
    if (d < 0) return 0;
    return static_cast<std::uint64_t>((static_cast<u128>(d) * h.mult) >> 32);
#else
    return 0;
#endif
}

// Nanoseconds since the first event.
REVY_HOT std::uint64_t now_ns() {
    const Hot& h = hot();
#if REVY_TSC
    if (h.use_tsc) {
        std::int64_t d = static_cast<std::int64_t>(rdtsc() - h.tsc0);
        if (d < 0) return 0;
        return static_cast<std::uint64_t>((static_cast<u128>(d) * h.mult) >> 32);
    }
#endif
    std::uint64_t n = steady_ns();
    return n > h.ns0 ? n - h.ns0 : 0;
}

// ---- writing records ----------------------------------------------------------------------

inline bool writable_locked(Global& G) {
    // A forked child writes only after it opened its own trace (see fork_child).
    return !G.finished && G.out.open() && G.pid == current_pid();
}

inline bool budget_take_locked(Global& G, std::uint64_t need, bool ahead);

inline bool fits_locked(Global& G, std::size_t n) {
    if (G.max_size == 0) return true;
    std::uint64_t need = G.bytes + n + kTailRoom;
    if (G.budget_fd >= 0) return need <= G.granted || budget_take_locked(G, need, true);
    return need <= G.max_size;
}

// Marks the size limit: recording stops (the hot path returns at its first check from now on).
inline void truncate_locked(Global& G) {
    std::uint8_t t[16];
    t[0] = 'T';
    std::size_t n = 1 + put_v(t + 1, G.max_size);
    G.out.write_all(t, n);
    G.bytes += n;
    G.truncated = true;
    hot().recording.store(0, std::memory_order_release);
}

// Writes one record under the lock. Definitions, aggregates and the blocks after the limit
// are bounded by the program (methods, threads, open calls), so only blocks count against
// `max_size` (write_block_locked). Returns false when not writable.
inline bool emit_locked(Global& G, const std::uint8_t* head, std::size_t hn,
                        const std::uint8_t* body, std::size_t bn) {
    if (!writable_locked(G)) return false;
    G.out.write_all(head, hn);
    if (bn) G.out.write_all(body, bn);
    G.bytes += hn + bn;
    return true;
}

inline std::size_t block_head(std::uint8_t* h, std::uint64_t tid, std::uint64_t base,
                              std::uint32_t count, std::uint32_t len) {
    std::size_t n = 0;
    h[n++] = 'B';
    n += put_v(h + n, tid);
    n += put_v(h + n, base);
    n += put_v(h + n, count);
    n += put_v(h + n, len);
    return n;
}

// Returns where the events went in the file (0: not written).
inline std::uint64_t write_block_locked(Global& G, std::uint64_t tid, std::uint64_t base,
                                        std::uint32_t count, const std::uint8_t* data,
                                        std::uint32_t len) {
    if (count == 0 || !writable_locked(G)) return 0;
    std::uint8_t h[48];
    std::size_t n = block_head(h, tid, base, count, len);
    std::uint64_t at = G.bytes + n;
    // The block that crosses the limit is written whole, and so are blocks after it: they
    // hold only events begun before it (other threads' buffered starts, ends of calls whose
    // starts are recorded), so every recorded start has its end and every call is either
    // an event or aggregated.
    bool ok = emit_locked(G, h, n, data, len);
    if (ok) G.events += count;
    if (!G.truncated && !fits_locked(G, 0)) truncate_locked(G);
    return ok && !G.out.failed ? at : 0;
}

// A definition-like record: tag, up to two varints, up to two strings.
inline void write_record_locked(Global& G, std::uint8_t tag, const std::uint64_t* a,
                                const std::uint64_t* b, const char* s1, const char* s2) {
    std::string rec;
    std::uint8_t tmp[16];
    rec.push_back(static_cast<char>(tag));
    if (a) rec.append(reinterpret_cast<const char*>(tmp), put_v(tmp, *a));
    if (b) rec.append(reinterpret_cast<const char*>(tmp), put_v(tmp, *b));
    const char* ss[2] = {s1, s2};
    for (int i = 0; i < 2; ++i) {
        const char* s = ss[i];
        if (!s) continue;
        std::size_t l = std::strlen(s);
        rec.append(reinterpret_cast<const char*>(tmp), put_v(tmp, l));
        rec.append(s, l);
    }
    emit_locked(G, reinterpret_cast<const std::uint8_t*>(rec.data()), rec.size(), nullptr, 0);
}

// What a thread did not record (defined with the calls' code below).
struct AggTable;
inline void write_aggregates_locked(Global& G, std::uint64_t tid, const AggTable& a);
inline void agg_free(AggTable* a);
inline void write_late_objects_locked(Global& G);
inline void late_objects_reset();
inline void write_open_calls_locked(Global& G, const ThreadBuf& b, std::uint64_t t);
struct FaultTable;
inline void write_faults_locked(Global& G, std::uint64_t tid, const FaultTable* f);
inline void fault_free(FaultTable* f);
struct ThreadState;
inline void counted_settle_all(ThreadState* ts, AggTable& a);
inline void counted_forget(ThreadState& ts);

// ---- crash handling -----------------------------------------------------------------------

inline void flush_all_unlocked_for_crash(Global& G) {
    for (ThreadBuf* b = G.buffers; b; b = b->next) {
        std::uint64_t st = b->state.load(std::memory_order_acquire);
        write_block_locked(G, b->tid, b->base, static_cast<std::uint32_t>(st >> 32), b->data,
                           static_cast<std::uint32_t>(st & 0xffffffffu));
        if (b->agg) {
            counted_settle_all(b->owner, *b->agg);
            write_aggregates_locked(G, b->tid, *b->agg);
        }
    }
    write_late_objects_locked(G);
}

#if REVY_POSIX
inline void crash_handler(int sig) {
    Global& G = g();
    if (G.lock.try_lock_for_signal()) {
        if (!G.finished) flush_all_unlocked_for_crash(G);
        G.finished = true;
        G.lock.unlock();
    }
    // SA_RESETHAND restored the default action: re-raise it.
    ::raise(sig);
}

inline void install_crash_handlers() {
    const int sigs[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE};
    for (int i = 0; i < 4; ++i) {
        int s = sigs[i];
        struct sigaction old;
        std::memset(&old, 0, sizeof old);
        if (::sigaction(s, nullptr, &old) != 0) continue;
        if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;  // the program's own
        struct sigaction sa;
        std::memset(&sa, 0, sizeof sa);
        sa.sa_handler = crash_handler;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND | SA_NODEFER;
        ::sigaction(s, &sa, nullptr);
    }
}
#endif

// ---- start and finish ---------------------------------------------------------------------

inline void finish();

inline void format_time(char* out, std::size_t n, const char* fmt) {
    std::time_t t = std::time(nullptr);
    std::tm tm;
    std::memset(&tm, 0, sizeof tm);
#if REVY_POSIX
    ::gmtime_r(&t, &tm);
#else
    std::tm* p = std::gmtime(&t);
    if (p) tm = *p;
#endif
    std::strftime(out, n, fmt, &tm);
}

#if REVY_POSIX
inline void mkdirs(const std::string& dir) {
    std::string cur;
    for (std::size_t i = 0; i <= dir.size(); ++i) {
        if (i == dir.size() || dir[i] == '/') {
            if (!cur.empty()) ::mkdir(cur.c_str(), 0777);
        }
        if (i < dir.size()) cur.push_back(dir[i]);
    }
}
#endif

// Says once per process on stderr that this run is not traced, and why.
inline void say_untraced(const std::string& path, int err) {
    static bool said = false;
    if (said) return;
    said = true;
    std::fprintf(stderr, "revy: cannot write the trace %s (%s); this run is not traced\n",
                 path.c_str(), std::strerror(err));
}

// Creates `path` if it does not exist yet (never truncates a file that does).
inline bool create_new(Global& G, const std::string& path) {
#if REVY_POSIX
    G.out.fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    return G.out.fd >= 0;
#else
    if (std::FILE* probe = std::fopen(path.c_str(), "rb")) {
        std::fclose(probe);
        errno = EEXIST;
        return false;
    }
    G.out.f = std::fopen(path.c_str(), "wb");
    return G.out.f != nullptr;
#endif
}

// ---- the run's size budget ----------------------------------------------------------------
// The processes of one run (a suite's test binaries, forked children) share `max_size`: a
// counter file holds the bytes they reserved. A process reserves in chunks
// under an fcntl lock (the Java runtime's FileLock is the same lock, so mixed runs share it)
// and at exit settles the counter to what it wrote. The file is `REVY_BUDGET` when set
// (`off`: each process its own limit), else one per process group — what a shell gives each
// command line — in the trace folder, named with the group leader's start time, as group
// ids are reused.
#if REVY_POSIX
enum { kBudgetLen = 21 };  // 20 decimal digits and a newline, rewritten in place

inline std::string process_group_key() {
    long pgid = static_cast<long>(::getpgrp());
    unsigned long long start = 0;  // 0: the leader is gone or there is no /proc
    std::string stat = "/proc/" + std::to_string(pgid) + "/stat";
    int fd = ::open(stat.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        char buf[1024];
        ssize_t n = ::read(fd, buf, sizeof buf - 1);
        ::close(fd);
        buf[n > 0 ? n : 0] = 0;
        // Field 22 (starttime); the command name before it, in parentheses, may hold spaces.
        const char* p = std::strrchr(buf, ')');
        for (int field = 2; p && field < 22; ++field) p = std::strchr(p + 1, ' ');
        if (p) start = std::strtoull(p + 1, nullptr, 10);
    }
    return std::to_string(pgid) + "-" + std::to_string(start);
}

// In the project's trace folder even when `REVY_TRACE` names a file elsewhere: Revy's own
// folder, never the user's sources.
inline std::string budget_path() {
    const char* env = std::getenv("REVY_BUDGET");
    if (env && std::strcmp(env, "off") == 0) return std::string();
    if (env && *env) return env;
    std::string dir = config::trace_dir();
    mkdirs(dir);
    return dir + "/.revy-run-" + process_group_key() + ".budget";
}

inline bool budget_lock(int fd, short type) {
    struct flock fl;
    std::memset(&fl, 0, sizeof fl);
    fl.l_type = type;
    fl.l_whence = SEEK_SET;  // l_start = l_len = 0: the whole file
    while (::fcntl(fd, F_SETLKW, &fl) != 0)
        if (errno != EINTR) return false;
    return true;
}

// The counter; an empty file (just created) is 0. False for anything else.
inline bool budget_read(int fd, std::uint64_t& used) {
    char buf[kBudgetLen + 1];
    ssize_t n = ::pread(fd, buf, sizeof buf, 0);
    used = 0;
    if (n == 0) return true;
    if (n != kBudgetLen || buf[kBudgetLen - 1] != '\n') return false;
    for (int i = 0; i < kBudgetLen - 1; ++i) {
        if (buf[i] < '0' || buf[i] > '9') return false;
        used = used * 10 + static_cast<std::uint64_t>(buf[i] - '0');
    }
    return true;
}

// Async-signal-safe (no printf): the crash flush may reserve too.
inline bool budget_write(int fd, std::uint64_t used) {
    char buf[kBudgetLen];
    buf[kBudgetLen - 1] = '\n';
    for (int i = kBudgetLen - 2; i >= 0; --i, used /= 10)
        buf[i] = static_cast<char>('0' + used % 10);
    return ::pwrite(fd, buf, kBudgetLen, 0) == kBudgetLen;
}

// The budget file's name, for messages (never destroyed: static destructors may still log).
inline std::string& budget_name() {
    static std::string* name = new std::string();
    return *name;
}

// The budget file cannot be used: this process keeps to `max_size` on its own.
inline void budget_drop(Global& G, const char* why) {
    static bool said = false;
    if (!said && why) {
        said = true;
        std::fprintf(stderr,
                     "revy: the run's trace budget %s is %s; this process keeps max_size for "
                     "itself\n",
                     budget_name().c_str(), why);
    }
    if (G.budget_fd >= 0) ::close(G.budget_fd);
    G.budget_fd = -1;
}

inline void budget_open(Global& G) {
    G.granted = 0;
    if (G.max_size == 0) return;
    std::string path = budget_path();
    if (path.empty()) return;
    budget_name() = path;
    G.budget_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (G.budget_fd < 0) {
        std::string why = std::string("not writable (") + std::strerror(errno) + ")";
        budget_drop(G, why.c_str());
    }
}

// Reserves what writing `need` bytes in all takes and, `ahead`, a chunk more so that the file
// is locked seldom; a run near its limit gets what is left. False when `need` is beyond it.
inline bool budget_take_locked(Global& G, std::uint64_t need, bool ahead) {
    int fd = G.budget_fd;
    std::uint64_t used = 0;
    if (!budget_lock(fd, F_WRLCK)) {
        budget_drop(G, "not lockable");
        return need <= G.max_size;
    }
    bool ok = budget_read(fd, used);
    // Events stop 1/64 short of the limit: the room the processes' definitions, aggregates and
    // blocks past it take, so that the run's traces together stay under `max_size`.
    std::uint64_t limit = G.max_size - G.max_size / 64;
    std::uint64_t left = used < limit ? limit - used : 0;
    std::uint64_t chunk =
        ahead ? std::min<std::uint64_t>(std::max<std::uint64_t>(G.max_size / 64, 1 << 16), 1 << 24)
              : 0;
    std::uint64_t got = std::min(need - G.granted + chunk, left);
    ok = ok && (got == 0 || budget_write(fd, used + got));
    budget_lock(fd, F_UNLCK);
    if (!ok) {
        budget_drop(G, "unreadable (not a counter Revy wrote; delete it)");
        return need <= G.max_size;
    }
    G.granted += got;
    return need <= G.granted;
}

// At exit: the counter holds what this process wrote instead of what it reserved.
inline void budget_settle_locked(Global& G) {
    int fd = G.budget_fd;
    if (fd < 0) return;
    std::uint64_t used = 0;
    if (budget_lock(fd, F_WRLCK)) {
        if (budget_read(fd, used)) {
            used = used >= G.granted ? used - G.granted : 0;
            budget_write(fd, used + G.bytes);
        }
        budget_lock(fd, F_UNLCK);
    }
    ::close(fd);
    G.budget_fd = -1;
    G.granted = 0;
}
#else
inline void budget_open(Global&) {}
inline bool budget_take_locked(Global& G, std::uint64_t need, bool) {
    return need <= G.max_size;
}
inline void budget_settle_locked(Global&) {}
#endif

// Opens a file of this process's own: `stem.rvt`, else (it exists: an earlier run, or another
// process of this run) `stem-PID.rvt`, `stem-PID-1.rvt`, ...
inline bool create_own(Global& G, const std::string& stem, const std::string& pid_suffix) {
    std::string first = stem + ".rvt";
    if (create_new(G, first)) return true;
    if (errno != EEXIST) {
        say_untraced(first, errno);
        return false;
    }
    std::string base = stem + pid_suffix;
    for (int n = 0; n < 1000; ++n) {
        std::string path = base + (n ? "-" + std::to_string(n) : std::string()) + ".rvt";
        if (create_new(G, path)) return true;
        if (errno != EEXIST) {
            say_untraced(path, errno);
            return false;
        }
    }
    say_untraced(first, EEXIST);
    return false;
}

inline bool open_trace(Global& G) {
    const char* env = std::getenv("REVY_TRACE");
    if (env && std::strcmp(env, "off") == 0) return false;
    std::string pid = "-" + std::to_string(G.pid);
    if (env && *env) {
        std::string stem = env;
        if (stem.size() > 4 && stem.compare(stem.size() - 4, 4, ".rvt") == 0)
            stem.erase(stem.size() - 4);
#if REVY_POSIX
        // The folder it names is made, as the Java runtime does (a missing one left the run
        // untraced).
        std::string::size_type slash = stem.rfind('/');
        if (slash != std::string::npos && slash > 0) mkdirs(stem.substr(0, slash));
#endif
        return create_own(G, stem, pid);
    }
    std::string dir = config::trace_dir();
#if REVY_POSIX
    mkdirs(dir);
#endif
    char stamp[32];
    format_time(stamp, sizeof stamp, "%Y%m%d-%H%M%S");
    // The default name holds the pid already; `-n` tells apart runs within one second.
    std::string stem = dir + "/" + config::project() + "-" + stamp + pid;
    return create_own(G, stem, std::string());
}

inline std::uint64_t wall_ns() {
    auto n = std::chrono::duration_cast<std::chrono::nanoseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();
    return n < 0 ? 0 : static_cast<std::uint64_t>(n);
}

// The run this process belongs to, so traces of different runs are never read as one:
// `REVY_RUN` when set (revy run gives each run one), else the process group (what a shell
// gives each command line, named with its leader's start time, as the budget is), else the
// start time, pid and a mix of clocks.
inline bool run_id_ok(const char* s) {
    std::size_t n = 0;
    for (; s[n]; ++n) {
        char c = s[n];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '_' || c == '.' || c == ':';
        if (!ok || n >= 80) return false;
    }
    return n > 0;
}

inline std::string run_id(std::uint64_t wall) {
    const char* env = std::getenv("REVY_RUN");
    if (env && run_id_ok(env)) return env;
#if REVY_POSIX
    (void)wall;
    return "pg" + process_group_key();
#else
    std::uint64_t x = (wall ^ (now_ns() * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%llx-%llu-%08llx", static_cast<unsigned long long>(wall),
                  static_cast<unsigned long long>(g().pid),
                  static_cast<unsigned long long>((x >> 32) & 0xffffffffull));
    return buf;
#endif
}

inline std::string probe_cost_ns();
inline std::string handoff_cost_ns();
inline std::string fault_cost_ns();
inline std::string counted_cost_ns();
inline std::string nid_cost_ns();

// The magic and the header: pid, a wall-clock anchor (the trace clock and the Unix epoch
// read at one instant, so traces of several processes go on one time line) and the probe
// cost measured at start-up.
inline void start_file(Global& G) {
    static const std::uint8_t magic[8] = {'R', 'V', 'Y', 'T', 'R', 'C', 0, 1};
    std::uint64_t anchor_t = now_ns();
    std::uint64_t anchor_wall = wall_ns();
    char start[40];
    format_time(start, sizeof start, "%Y-%m-%dT%H:%M:%SZ");
    std::string hd = std::string("unit=ns lang=cpp pid=") + std::to_string(G.pid) +
                     " start=" + start + " anchor_wall_ns=" + std::to_string(anchor_wall) +
                     " anchor_t=" + std::to_string(anchor_t) + " probe_ns=" + probe_cost_ns() +
                     " handoff_ns=" + handoff_cost_ns() + " fault_ns=" + fault_cost_ns() +
                     " counted_ns=" + counted_cost_ns() + " nid_ns=" + nid_cost_ns() +
                     " project=" + config::project() + " mode=" + config::mode() +
                     (G.budget_fd >= 0 ? " budget=run" : "") + " run=" + run_id(anchor_wall) +
                     " ends=bare";
    G.lock.lock();
    G.out.write_all(magic, 8);
    G.bytes = 8;
    write_record_locked(G, 'H', nullptr, nullptr, hd.c_str(), nullptr);
    // A process started after the run spent its budget records no event: its calls are
    // aggregated from the first (and it writes no block past the limit). Only the header is
    // reserved now, so processes that start together do not hold chunks they may not use.
    std::uint64_t need = G.bytes + kTailRoom;
    if (G.budget_fd >= 0 && !budget_take_locked(G, need, false)) truncate_locked(G);
    G.lock.unlock();
}

#if REVY_POSIX
inline void fork_prepare();
inline void fork_parent();
inline void fork_child();
#endif

inline bool init() {
    ErrnoKeep keep;
    Global& G = g();
    Hot& h = hot();
    G.pid = current_pid();
    G.max_size = config::max_size;
    if (!open_trace(G)) {
        h.status.store(kOff, std::memory_order_release);
        return false;
    }
    budget_open(G);
    init_clock();
    start_file(G);
    std::atexit(finish);
#if REVY_POSIX
    install_crash_handlers();
    ::pthread_atfork(fork_prepare, fork_parent, fork_child);
#endif
    h.status.store(kOn, std::memory_order_release);
    return true;
}

inline bool on_slow() {
    static const bool ok = init();
    return ok;
}

// The hot-path check: one acquire load once initialised.
REVY_HOT bool on() {
    int s = hot().status.load(std::memory_order_acquire);
    if (s == kOn) return true;
    if (s == kOff) return false;
    return on_slow();
}

// ---- thread state -------------------------------------------------------------------------

// A Crt written by a root tag whose class has selected subclasses: the derived part's tag
// rewrites the class and size in place while the event is still in this thread's buffer.
struct Pending {
    std::uint64_t oid;
    ThreadBuf* buf;
    std::uint64_t gen;
    std::uint32_t pos;  // offset of the class id (5 bytes); the size follows the oid
    std::uint32_t size_pos;
    std::uint32_t idx;  // events before it in the buffer
    std::uint64_t prev;  // the buffer's previous event time (its `last` before this one)
};
enum { kPending = 16 };

// A constructor's start logged before its initialisers (`ctor_start`), when the object's ID
// does not exist yet: the event's oid is a 5-byte placeholder that the constructor body's
// `CtorScope` fills in (`ctor_bind`).
// Unrecorded calls its initialisers made before the ID existed: their edges wait here for the
// sender's ID (`ctor_bind`), else they would all go to one phantom instance with oid 0.
struct CtorEdge {
    std::uint64_t o, calls, agg, size;
    std::int64_t net;
    std::uint32_t r;        // receiver mid + 1
    std::uint32_t pending;  // index of its constructor in ThreadState::ctor
};
enum { kCtorEdges = 16 };
struct CtorPending {
    const volatile void* self;
    std::uint32_t mid;
    std::uint32_t pos;    // offset of the placeholder oid
    std::uint32_t frame;  // its call on the shadow stack (whose oid is bound too)
    ThreadBuf* buf;       // null when the call is aggregated, not recorded
    std::uint64_t gen;
};
enum { kCtorPending = 16 };

// The shadow stack's frames, the counted calls' slots and the part of a thread's state the
// counted path reads (`HotThread`) are declared in revy_runtime.hpp: annotated code counts a
// throttled method's calls inline (see `detail::push_counted`, `detail::end_counted`).
// Trivially constructible and destructible: no guard, no registration on the hot path.
struct ThreadState : HotThread {
    ThreadBuf* buf;
    std::uint64_t tid;
    bool dead;
    unsigned pending_next;
    Pending pending[kPending];
    CtorPending ctor[kCtorPending];
    unsigned ctor_edges;
    CtorEdge ctor_edge[kCtorEdges];
    // per method id: calls, total time (the throttle rule), total time at the half-way mark,
    // and its latest call times past half-way (a ring: the estimate's median; 0 until then)
    std::uint64_t* tc;
    std::uint32_t tc_len;
};
inline void counted_free(ThreadState& ts);
#if defined(REVY_RUNTIME_BUILDING_LIB) && REVY_POSIX
// In a library loaded at run time a thread_local costs a __tls_get_addr call per use, and
// one this large cannot go into the static TLS block: the state is allocated per thread,
// its address kept in 16 bytes of initial-exec TLS, and freed by a pthread key's destructor,
// which runs after the thread's thread_local destructors (ThreadGuard's flush). A call made
// after that (another key's destructor) gets a state of its own, dead as after the guard.
struct TlsSlot {
    ThreadState* p;
    std::uint64_t gone_tid;  // 1 + the tid of the state freed (0: none freed)
    std::uint64_t oid_next, oid_end;  // the thread's block of object IDs (e_new_oid)
};
inline TlsSlot& tls_slot() {
    static thread_local TlsSlot s __attribute__((tls_model("initial-exec"))) = {nullptr, 0, 0, 0};
    return s;
}
// What a program's inline counted path finds once the thread's state is freed (or never
// existed): no stack, so every call goes to the entry points.
inline HotThread* no_state() {
    static HotThread none = {nullptr, 0, 0, 0, 0, nullptr, 0, nullptr, 0, nullptr};
    return &none;
}
inline void tls_free(void* p) {
    ThreadState* ts = static_cast<ThreadState*>(p);
    if (ts->slot) *ts->slot = no_state();
    TlsSlot& slot = tls_slot();
    slot.p = nullptr;
    slot.gone_tid = 1 + ts->tid;
    delete[] ts->tc;
    counted_free(*ts);
    delete ts;
}
inline pthread_key_t tls_key() {
    static pthread_key_t key;
    static const int made = ::pthread_key_create(&key, tls_free);
    (void)made;
    return key;
}
inline ThreadState& tls_slow() {
    ThreadState* ts = new ThreadState();
    TlsSlot& slot = tls_slot();
    if (slot.gone_tid) {
        ts->dead = true;  // never freed: this thread is ending
        ts->tid = slot.gone_tid - 1;
    } else {
        ::pthread_setspecific(tls_key(), ts);
    }
    slot.p = ts;
    return *ts;
}
REVY_HOT ThreadState& tls() {
    ThreadState* p = tls_slot().p;
    if (__builtin_expect(p != nullptr, 1)) return *p;
    return tls_slow();
}
// The thread's state when it has one already (null: ask tls()).
REVY_HOT ThreadState* tls_if() { return tls_slot().p; }
#else
REVY_HOT ThreadState& tls() {
    static thread_local ThreadState s;
    return s;
}
REVY_HOT ThreadState* tls_if() { return &tls(); }
#endif

inline void flush_locked(Global& G, ThreadBuf* b) {
    std::uint64_t st = b->state.load(std::memory_order_relaxed);
    std::uint64_t at = write_block_locked(G, b->tid, b->base, static_cast<std::uint32_t>(st >> 32),
                                          b->data, static_cast<std::uint32_t>(st & 0xffffffffu));
    b->flushed_gen[b->gen % kFlushedKept] = b->gen;
    b->flushed_at[b->gen % kFlushedKept] = at;
    b->gen++;
    b->state.store(0, std::memory_order_release);
}

struct ThreadGuard {
    ThreadBuf* buf;
    ThreadGuard() : buf(nullptr) {}
    ~ThreadGuard() {
        if (!buf) return;
        Global& G = g();
        G.lock.lock();
        flush_locked(G, buf);
        if (buf->agg) {
            counted_settle_all(buf->owner, *buf->agg);
            write_aggregates_locked(G, buf->tid, *buf->agg);
        }
        // exit() inside a call runs the calling thread's thread_local destructors first
        write_open_calls_locked(G, *buf, now_ns());
        write_faults_locked(G, buf->tid, buf->faults);
        if (buf->prev) buf->prev->next = buf->next;
        else G.buffers = buf->next;
        if (buf->next) buf->next->prev = buf->prev;
        G.lock.unlock();
        agg_free(buf->agg);
        fault_free(buf->faults);
        delete buf;
        ThreadState& ts = tls();
        ts.buf = nullptr;
        ts.dead = true;
        counted_forget(ts);
        // later calls (other thread_local destructors) are recorded plainly
        delete[] ts.frames;
        ts.frames = nullptr;
        ts.depth = ts.cap = 0;
    }
};

inline std::uint64_t this_tid() {
#if REVY_MAIN_BY_TID
    if (::syscall(SYS_gettid) == ::getpid()) return 1;
#else
    if (std::this_thread::get_id() == g().main_thread) return 1;
#endif
    return hot().next_tid.fetch_add(1, std::memory_order_relaxed);
}

inline ThreadBuf* new_buffer() {
    Global& G = g();
    ThreadBuf* b = new ThreadBuf();
    b->tid = this_tid();
    std::string name = b->tid == 1 ? std::string("main") : "thread-" + std::to_string(b->tid);
    G.lock.lock();
    write_record_locked(G, 'N', &b->tid, nullptr, name.c_str(), nullptr);
    b->next = G.buffers;
    if (G.buffers) G.buffers->prev = b;
    G.buffers = b;
    G.lock.unlock();
    return b;
}

inline ThreadBuf* buffer_slow(ThreadState& ts) {
    if (ts.dead) return nullptr;
    ErrnoKeep keep;
    ts.buf = new_buffer();
    ts.buf->owner = &ts;
    ts.tid = ts.buf->tid;
    static thread_local ThreadGuard guard;  // its destructor flushes at thread exit
    guard.buf = ts.buf;
    return ts.buf;
}

#if REVY_POSIX
// fork(): the lock is taken around it so the child never inherits it held mid-write.
inline void fork_prepare() { g().lock.lock(); }
inline void fork_parent() { g().lock.unlock(); }

// The child of fork() (only the forking thread lives on) starts a trace file of its own, with
// its own definitions; the parent's events still in the buffer stay the parent's.
inline void fork_child() {
    ErrnoKeep keep;
    Global& G = g();
    ThreadBuf* mine = tls().buf;
    for (ThreadBuf* b = G.buffers; b;) {
        ThreadBuf* next = b->next;
        if (b != mine) delete b;  // its thread does not exist here
        b = next;
    }
    G.buffers = mine;
    if (mine) {
        mine->next = mine->prev = nullptr;
        mine->state.store(0, std::memory_order_relaxed);
        mine->gen++;
        for (int i = 0; i < kFlushedKept; ++i) mine->flushed_at[i] = 0;  // the parent's file
        agg_free(mine->agg);  // the parent's: it writes them
        mine->agg = nullptr;
        fault_free(mine->faults);
        mine->faults = nullptr;
    }
    late_objects_reset();
    // Calls open at the fork are the parent's: neither recorded nor aggregated here.
    ThreadState& ts = tls();
    for (std::uint32_t i = 0; i < ts.depth; ++i) ts.frames[i].rec = kInherited;
    counted_forget(ts);
    G.agg_keys.store(0, std::memory_order_relaxed);
    for (std::uint32_t i = 0; i <= config::class_count; ++i)
        Statics<>::class_defined[i].store(0, std::memory_order_relaxed);
    for (std::uint32_t i = 0; i <= config::method_count; ++i)
        Statics<>::method_defined[i].store(0, std::memory_order_relaxed);
    bool tracing = G.out.open() && !G.finished;
    G.out.close();  // the child's copy of the parent's descriptor
    G.finished = false;
    G.truncated = false;
    hot().recording.store(1, std::memory_order_relaxed);
    G.bytes = 0;
    G.events = 0;
    G.granted = 0;  // the parent's reservation stays the parent's; the budget file is shared
    G.pid = current_pid();
    G.lock.unlock();
    if (!tracing) return;
    if (!open_trace(G)) {
        hot().status.store(kOff, std::memory_order_release);
        return;
    }
    start_file(G);
    if (mine) {
        std::string name = mine->tid == 1 ? std::string("main") : "thread-" + std::to_string(mine->tid);
        G.lock.lock();
        write_record_locked(G, 'N', &mine->tid, nullptr, name.c_str(), nullptr);
        G.lock.unlock();
    }
    hot().status.store(kOn, std::memory_order_release);
}
#endif

// A thread whose buffer is gone (thread_local destructors ran) writes events directly.
inline void record_direct(ThreadState& ts, const std::uint8_t* ev, std::size_t n) {
    ErrnoKeep keep;
    std::uint64_t t = now_ns();
    std::uint8_t one[kMaxEvent + 12];
    std::memcpy(one, ev, n);
    std::size_t m = n + put_z(one + n, 0);
    Global& G = g();
    G.lock.lock();
    std::uint64_t tid = ts.tid ? ts.tid : this_tid();
    write_block_locked(G, tid, t, 1, one, static_cast<std::uint32_t>(m));
    G.lock.unlock();
}

// Room for one event in this thread's buffer (flushing it when full); null when the thread's
// buffer is gone. `len` receives the current length.
// `room`: bytes that must be free (flushed first when they are not).
REVY_HOT ThreadBuf* reserve(ThreadState& ts, std::uint32_t& len, std::uint32_t& count,
                            std::uint32_t room = kMaxEvent) {
    ThreadBuf* b = ts.buf;
    if (!b) {
        b = buffer_slow(ts);
        if (!b) return nullptr;
    }
    std::uint64_t st = b->state.load(std::memory_order_relaxed);
    len = static_cast<std::uint32_t>(st & 0xffffffffu);
    count = static_cast<std::uint32_t>(st >> 32);
    if (len + room > kBufCap) {
        ErrnoKeep keep;
        Global& G = g();
        G.lock.lock();
        flush_locked(G, b);
        G.lock.unlock();
        len = 0;
        count = 0;
    }
    return b;
}

// Appends the time delta and publishes the event (`n` bytes already written at `len`).
REVY_HOT void commit(ThreadBuf* b, std::uint32_t len, std::uint32_t count, std::size_t n,
                     std::uint64_t t) {
    if (count == 0) {
        b->base = t;
        b->last = t;
    }
    std::uint8_t* p = b->data + len;
    n += put_z(p + n, static_cast<std::int64_t>(t - b->last));
    b->last = t;
    b->state.store((static_cast<std::uint64_t>(count + 1) << 32) | (len + n),
                   std::memory_order_release);
}

inline void finish() {
    Global& G = g();
    if (hot().status.load(std::memory_order_acquire) == kUninit) return;
    G.lock.lock();
    if (!G.finished && G.pid == current_pid()) {
        std::uint64_t t = now_ns();
        for (ThreadBuf* b = G.buffers; b; b = b->next) {
            std::uint64_t st = b->state.load(std::memory_order_acquire);
            write_block_locked(G, b->tid, b->base, static_cast<std::uint32_t>(st >> 32), b->data,
                               static_cast<std::uint32_t>(st & 0xffffffffu));
            if (b->agg) {
                counted_settle_all(b->owner, *b->agg);
                write_aggregates_locked(G, b->tid, *b->agg);
            }
            write_open_calls_locked(G, *b, t);
            write_faults_locked(G, b->tid, b->faults);
        }
        write_late_objects_locked(G);
        std::uint8_t e[16];
        e[0] = 'E';
        std::size_t n = 1 + put_v(e + 1, G.events);
        if (G.out.open()) G.out.write_all(e, n);  // the end mark is written even when truncated
        G.bytes += n;
        budget_settle_locked(G);
        G.finished = true;
        G.out.close();
    }
    G.lock.unlock();
}

// ---- definitions, registered lazily on first use ------------------------------------------

inline void define_class_locked(Global& G, std::uint32_t cls) {
    const char* name = cls <= config::class_count ? config::class_names()[cls] : "?";
    if (cls > config::class_count ||
        !Statics<>::class_defined[cls].load(std::memory_order_relaxed)) {
        const std::uint64_t c64 = cls;
        if (cls <= config::class_count) Statics<>::class_at[cls] = G.bytes;
        write_record_locked(G, 'C', &c64, nullptr, name, nullptr);
        if (cls <= config::class_count)
            Statics<>::class_defined[cls].store(1, std::memory_order_release);
    }
}
inline void define_class_slow(std::uint32_t cls) {
    ErrnoKeep keep;
    Global& G = g();
    G.lock.lock();
    define_class_locked(G, cls);
    G.lock.unlock();
}
REVY_HOT void define_class(std::uint32_t cls) {
    if (cls <= config::class_count &&
        Statics<>::class_defined[cls].load(std::memory_order_acquire))
        return;
    define_class_slow(cls);
}

inline void define_method_locked(Global& G, std::uint32_t mid) {
    std::uint64_t cls = 0;
    const char* name = "?";
    const char* sgn = "!!";
    if (mid <= config::method_count) {
        cls = config::methods()[mid].cls;
        name = config::methods()[mid].name;
        sgn = config::methods()[mid].sgn;
    }
    define_class_locked(G, static_cast<std::uint32_t>(cls));
    if (mid > config::method_count ||
        !Statics<>::method_defined[mid].load(std::memory_order_relaxed)) {
        const std::uint64_t m64 = mid;
        write_record_locked(G, 'M', &m64, &cls, name, sgn);
        if (mid <= config::method_count)
            Statics<>::method_defined[mid].store(1, std::memory_order_release);
    }
}
inline void define_method_slow(std::uint32_t mid) {
    ErrnoKeep keep;
    Global& G = g();
    G.lock.lock();
    define_method_locked(G, mid);
    G.lock.unlock();
}
REVY_HOT void define_method(std::uint32_t mid) {
    if (mid <= config::method_count &&
        Statics<>::method_defined[mid].load(std::memory_order_acquire))
        return;
    define_method_slow(mid);
}

// ---- events -------------------------------------------------------------------------------

inline void ev_slow(std::uint8_t kind, std::uint64_t a, std::uint64_t b, std::uint64_t c,
                    bool with_c, ThreadState& ts) {
    std::uint8_t ev[kMaxEvent];
    std::size_t n = 0;
    ev[n++] = kind;
    n += put_v(ev + n, a);
    n += put_v(ev + n, b);
    if (with_c) n += put_v(ev + n, c);
    record_direct(ts, ev, n);
}

// The probe cost for the trace header: nanoseconds per start+end pair, encoded into a scratch
// buffer as the hot path does, in 400 short batches of 50 pairs (~2 µs each, ~1 ms in all):
// the fastest counts, so that a preemption or a busy neighbour costs a batch, not the figure.
// The analysis subtracts it from message times. Followed by how it was measured and the
// median batch (the spread), then the part of the pair inside a call's own interval
// (`probe_inside_ns=`): as in `start` and `end`, each probe reads the clock first and does its
// work after, so the start's work and the end's lookup fall between the call's two times and
// the rest of the pair in its caller's. Measured on the same pairs, from the times they
// record (end's time less start's), the fastest batch's; its median batch the spread.
inline std::string probe_cost_ns() {
    ThreadBuf* s = new ThreadBuf();
    const std::uint64_t pairs = 50;
    const int batches = 400;
    std::uint64_t* all = new std::uint64_t[2 * batches];
    std::uint64_t* in_all = all + batches;
    std::uint64_t best = ~static_cast<std::uint64_t>(0), in_best = best;
    // the shadow-stack entry `start` writes and `end` reads
    volatile std::uint64_t frame[3] = {0, 0, 0};
    for (int batch = 0; batch < batches; ++batch) {
        std::uint64_t inside = 0;
        std::uint64_t t0 = now_ns();
        for (std::uint64_t i = 0; i < pairs; ++i) {
            std::uint64_t ts = 0;
            for (std::uint8_t kind = 3; kind <= 4; ++kind) {
                if (kind == 4 && frame[1] != 1000000 + i) break;
                std::uint64_t t = now_ns();
                if (kind == 3) {
                    frame[0] = t;
                    frame[1] = 1000000 + i;
                    frame[2] = 4321;
                    ts = t;
                } else {
                    inside += t - ts;
                }
                std::uint64_t st = s->state.load(std::memory_order_relaxed);
                std::uint32_t len = static_cast<std::uint32_t>(st & 0xffffffffu);
                std::uint32_t count = static_cast<std::uint32_t>(st >> 32);
                if (len + kMaxEvent > kBufCap) len = count = 0;
                std::uint8_t* p = s->data + len;
                std::size_t n = 0;
                if (kind == 3) {
                    p[n++] = kStart;
                    n += put_v(p + n, 4321);
                    n += put_v(p + n, 1000000 + i);
                    n += put_v(p + n, 24);
                } else {
                    p[n++] = kEndBare;  // a recorded call's end: its time only
                }
                commit(s, len, count, n, t);
            }
        }
        std::uint64_t d = now_ns() - t0;
        all[batch] = d;
        in_all[batch] = inside;
        if (d < best) best = d;
        if (inside < in_best) in_best = inside;
    }
    delete s;
    std::sort(all, all + batches);
    std::sort(in_all, in_all + batches);
    std::uint64_t p50 = all[batches / 2], in_p50 = in_all[batches / 2];
    delete[] all;
    auto tenths = [pairs](std::uint64_t ns) {
        std::uint64_t t = (ns * 10 + pairs / 2) / pairs;
        return std::to_string(t / 10) + "." + std::to_string(t % 10);
    };
    return tenths(best) + " probe_stat=min probe_batches=" + std::to_string(batches) +
           " probe_p50=" + tenths(p50) + " probe_inside_ns=" + tenths(in_best) +
           " probe_inside_p50=" + tenths(in_p50);
}

// Two threads passing a turn back and forth, for `handoff_cost_ns`; shared, so that the echo
// thread may outlive a measurement that gave up on it.
struct HandoffPing {
    std::mutex m;
    std::condition_variable cv;
    std::uint64_t turn = 0;
    bool stop = false;
};

inline void handoff_echo(std::shared_ptr<HandoffPing> p) {
    std::unique_lock<std::mutex> g(p->m);
    for (std::uint64_t i = 0;; ++i) {
        while (p->turn != 2 * i + 1 && !p->stop) p->cv.wait(g);
        if (p->stop) return;
        ++p->turn;
        p->cv.notify_one();
    }
}

// The handoff measurement: batches of kHandoffBatch round trips, each batch's fastest
// counting (a round trip a hog or a preemption slowed costs its batch nothing); then the
// 25th percentile of the batches' figures (a batch slowed throughout does not set it).
constexpr int kHandoffBatch = 4;
constexpr int kHandoffBatches = 240;
// A one-way wake-up above this is another thread's time slice, not a handoff: unknown (0).
constexpr std::uint64_t kHandoffMaxNs = 500000;

struct HandoffFigure {
    std::uint64_t ns = 0;   // the one-way handoff (0: unknown)
    std::uint64_t p50 = 0;  // the median batch's, halved: the spread
    int batches = 0;
};

// One batch of round trips before `limit`: its fastest, or 0 when the echo did not answer.
inline std::uint64_t handoff_batch(HandoffPing& p, std::unique_lock<std::mutex>& g,
                                   std::uint64_t& round,
                                   std::chrono::steady_clock::time_point limit) {
    typedef std::chrono::steady_clock clock;
    std::uint64_t best = ~static_cast<std::uint64_t>(0);
    for (int i = 0; i < kHandoffBatch; ++i, ++round) {
        std::uint64_t back = 2 * round + 2;
        clock::time_point t0 = clock::now();
        p.turn = back - 1;
        p.cv.notify_one();
        while (p.turn != back && p.cv.wait_until(g, limit) != std::cv_status::timeout) {
        }
        clock::time_point t1 = clock::now();
        if (p.turn != back) return 0;
        std::uint64_t d = static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
        if (d < best) best = d;
    }
    return best;
}

// Whether the batches so far agree: the median within 1.5x of the 25th percentile (else the
// measurement goes on, to its 20 ms, for more batches a neighbour did not slow).
inline bool handoff_narrow(const std::uint64_t* fig, int n) {
    std::uint64_t v[kHandoffBatches];
    std::copy(fig, fig + n, v);
    std::sort(v, v + n);
    return 2 * v[n / 2] <= 3 * v[n / 4];
}

// One-way handoff in ns. A first, untimed round waits (up to 50 ms) for the helper thread to
// start; then batches go on for 5 ms and 120 batches that agree, or 20 ms, or 240 batches (0
// when none fit: a machine too busy to say; the fastest batch when fewer than 8 did).
inline HandoffFigure handoff_measure() {
    typedef std::chrono::steady_clock clock;
    HandoffFigure out;
    std::uint64_t fig[kHandoffBatches];
    int n = 0;
    std::shared_ptr<HandoffPing> p = std::make_shared<HandoffPing>();
    std::thread echo(handoff_echo, p);
    {
        std::unique_lock<std::mutex> g(p->m);
        std::uint64_t round = 0;
        // a new thread may wait for a core for tens of ms on a loaded machine
        clock::time_point limit = clock::now() + std::chrono::milliseconds(50);
        p->turn = 1;  // the thread's start, not a handoff
        p->cv.notify_one();
        while (p->turn != 2 && p->cv.wait_until(g, limit) != std::cv_status::timeout) {
        }
        if (p->turn == 2) {
            round = 1;
            clock::time_point begin = clock::now();
            limit = begin + std::chrono::milliseconds(20);
            clock::time_point enough = begin + std::chrono::milliseconds(5);
            while (n < kHandoffBatches) {
                std::uint64_t b = handoff_batch(*p, g, round, limit);
                if (b == 0) break;
                fig[n++] = b;
                clock::time_point now = clock::now();
                if (now >= limit || (n >= 120 && now >= enough && handoff_narrow(fig, n))) break;
            }
        }
        p->stop = true;
    }
    p->cv.notify_one();
    echo.detach();  // ends when it next runs; joining could wait on a busy machine
    out.batches = n;
    if (n == 0) return out;
    std::sort(fig, fig + n);
    out.p50 = fig[n / 2] / 2;
    // fewer than 8 batches: the fastest (the header's count says how little it rests on)
    std::uint64_t ns = fig[n < 8 ? 0 : n / 4] / 2;
    out.ns = ns <= kHandoffMaxNs ? ns : 0;
    return out;
}

// The handoff for the trace header (`handoff_ns=` with `handoff_stat=p25`, `handoff_batches=`
// and `handoff_p50=`, the spread): one-way wake-up between two threads (a mutex and
// condition variable ping-pong, as an active object's queue wakes its thread), the statistic
// `revy whatif` uses, at most 70 ms of start-up (~1 ms on an idle machine). The what-if replays use this machine's
// figure, not the analysing one's. Measured once per process: a forked child keeps its
// parent's figure.
inline std::string handoff_cost_ns() {
    static const std::string ns = [] {
        HandoffFigure f = handoff_measure();
        return std::to_string(f.ns) + " handoff_stat=p25 handoff_batches=" +
               std::to_string(f.batches) + " handoff_p50=" + std::to_string(f.p50);
    }();
    return ns;
}

// ---- minor page faults per message (Linux) -------------------------------------------------
//
// A call of a long method (one of at least kFaultLongNs seen recently) reads the thread's
// minor-fault count (getrusage RUSAGE_THREAD) at start and end; short methods never pay the
// syscall pair (< 1 % of a 50 µs call). Faults are net: those of measured callees are taken off
// their nearest measured caller. Written per (method, oid) as the thread's F record, with the
// cost of one fault measured at start-up (`fault_ns=`), so the analysis can say how much of a
// method is the allocator handing pages back and forth to the OS.
constexpr std::uint64_t kFaultLongNs = 50000;
enum : std::uint8_t { kFaultTries = 8 };  // measured short calls before a method stops

template <typename Unused = void>
struct FaultStatics {
    // Per method id: > 0 while calls are measured (set by a long call, run down by short ones).
    static Atom<std::uint8_t> score[config::method_count + 1];
};
template <typename Unused>
Atom<std::uint8_t> FaultStatics<Unused>::score[config::method_count + 1];

struct FaultOpen {
    std::uint64_t t, at, child;  // the call's start time (identifies it), faults then, callees'
    std::uint64_t cpu;           // the thread's CPU time then (ns)
    std::uint32_t mid;
};
struct FaultSum {
    std::uint64_t calls, faults;
};
struct FaultKeyHash {
    std::size_t operator()(const std::pair<std::uint32_t, std::uint64_t>& k) const {
        return static_cast<std::size_t>((k.second * 0x9E3779B97F4A7C15ull) ^ k.first);
    }
};
struct FaultTable {
    FaultOpen* open = nullptr;  // by shadow-stack depth
    std::uint32_t cap = 0;
    std::unordered_map<std::pair<std::uint32_t, std::uint64_t>, FaultSum, FaultKeyHash> sums;
    ~FaultTable() { delete[] open; }
};

inline std::uint64_t thread_minor_faults() {
#if defined(__linux__) && defined(RUSAGE_THREAD)
    ErrnoKeep keep;
    struct rusage u;
    if (::getrusage(RUSAGE_THREAD, &u) == 0) return static_cast<std::uint64_t>(u.ru_minflt);
#endif
    return 0;
}

// The thread's minor faults, and its CPU time in ns (CLOCK_THREAD_CPUTIME_ID: getrusage's
// CPU times lag a running thread by up to a scheduler tick): a measured call's end carries
// its on-CPU time beside its wall time (work apart from waiting).
inline std::uint64_t thread_usage(std::uint64_t& cpu_ns) {
    cpu_ns = 0;
#if defined(__linux__) && defined(RUSAGE_THREAD)
    ErrnoKeep keep;
    struct timespec ts;
    if (::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
        cpu_ns = static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u +
                 static_cast<std::uint64_t>(ts.tv_nsec);
#endif
    return thread_minor_faults();
}

inline bool fault_measured(std::uint32_t mid) {
#if defined(__linux__) && defined(RUSAGE_THREAD)
    return mid <= config::method_count &&
           FaultStatics<>::score[mid].load(std::memory_order_relaxed) != 0;
#else
    (void)mid;
    return false;
#endif
}

// At a recorded start at depth `d` of a method being measured.
inline void fault_enter(ThreadState& ts, std::uint32_t d, std::uint32_t mid, std::uint64_t t) {
    ThreadBuf* b = ts.buf;
    if (!b || ts.dead) return;
    if (!b->faults) b->faults = new (std::nothrow) FaultTable();
    FaultTable* f = b->faults;
    if (!f) return;
    if (d >= f->cap) {
        std::uint32_t cap = d + 1 > f->cap * 2 ? d + 1 : f->cap * 2;
        FaultOpen* o = new (std::nothrow) FaultOpen[cap];
        if (!o) return;
        if (f->open) std::memcpy(static_cast<void*>(o), f->open, sizeof(FaultOpen) * f->cap);
        delete[] f->open;
        f->open = o;
        f->cap = cap;
    }
    std::uint64_t cpu = 0;
    std::uint64_t at = thread_usage(cpu);
    f->open[d] = FaultOpen{t, at, 0, cpu, mid};
}

inline bool fault_open_at(const ThreadState& ts, const FaultTable& f, std::uint32_t d) {
    return d < f.cap && f.open[d].t == ts.frames[d].t && f.open[d].mid == ts.frames[d].mid;
}

// At the end of recorded call `d` that took `agg` ns: counts its net faults if measured, and
// keeps its method measured while its calls are long. Returns the call's on-CPU time + 1 when
// measured, else 0.
inline std::uint64_t fault_leave_slow(ThreadState& ts, std::uint32_t d, std::uint64_t agg);
// The common case inline: a short call of a method not measured does nothing more.
REVY_HOT std::uint64_t fault_leave(ThreadState& ts, std::uint32_t d, std::uint64_t agg) {
#if defined(__linux__) && defined(RUSAGE_THREAD)
    const Frame& fr = ts.frames[d];
    if (fr.mid > config::method_count) return 0;
    if (agg < kFaultLongNs && !FaultStatics<>::score[fr.mid].load(std::memory_order_relaxed))
        return 0;
    return fault_leave_slow(ts, d, agg);
#else
    (void)ts, (void)d, (void)agg;
    return 0;
#endif
}

inline std::uint64_t fault_leave_slow(ThreadState& ts, std::uint32_t d, std::uint64_t agg) {
#if defined(__linux__) && defined(RUSAGE_THREAD)
    const Frame& fr = ts.frames[d];
    Atom<std::uint8_t>& score = FaultStatics<>::score[fr.mid];
    std::uint8_t s = score.load(std::memory_order_relaxed);
    if (agg >= kFaultLongNs) {
        if (s != kFaultTries) score.store(kFaultTries, std::memory_order_relaxed);
    } else if (s) {
        score.store(static_cast<std::uint8_t>(s - 1), std::memory_order_relaxed);
    } else {
        return 0;
    }
    FaultTable* f = ts.buf ? ts.buf->faults : nullptr;
    if (!f || !fault_open_at(ts, *f, d)) return 0;
    std::uint64_t cpu = 0;
    std::uint64_t all = thread_usage(cpu) - f->open[d].at;
    cpu = cpu > f->open[d].cpu ? cpu - f->open[d].cpu : 0;
    std::uint64_t own = all > f->open[d].child ? all - f->open[d].child : 0;
    f->open[d].t = ~static_cast<std::uint64_t>(0);
    for (std::uint32_t k = d; k-- > 0;) {
        if (fault_open_at(ts, *f, k)) {
            f->open[k].child += all;
            break;
        }
    }
    FaultSum& sum = f->sums[std::make_pair(fr.mid, fr.oid)];
    sum.calls++;
    sum.faults += own;
    return cpu + 1;
#else
    (void)ts, (void)d, (void)agg;
    return 0;
#endif
}

// The cost of one minor fault: fresh anonymous pages touched one by one (512 KiB, too small
// for a transparent huge page), the best of 5 rounds; "0" where faults are not counted.
inline std::string fault_measure_ns() {
#if defined(__linux__) && defined(RUSAGE_THREAD)
    const std::size_t pages = 128, page = 4096;
    std::uint64_t best = ~static_cast<std::uint64_t>(0);
    for (int round = 0; round < 5; ++round) {
        void* m = ::mmap(nullptr, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                         -1, 0);
        if (m == MAP_FAILED) return "0";
        volatile char* p = static_cast<volatile char*>(m);
        std::uint64_t f0 = thread_minor_faults();
        std::uint64_t t0 = now_ns();
        for (std::size_t i = 0; i < pages; ++i) p[i * page] = 1;
        std::uint64_t dt = now_ns() - t0;
        std::uint64_t nf = thread_minor_faults() - f0;
        ::munmap(m, pages * page);
        if (nf >= pages / 2 && dt / nf < best) best = dt / nf;
    }
    return best == ~static_cast<std::uint64_t>(0) ? std::string("0") : std::to_string(best);
#else
    return "0";
#endif
}

// For the header (`fault_ns=`), measured once per process: a forked child keeps its parent's.
inline std::string fault_cost_ns() {
    static const std::string ns = fault_measure_ns();
    return ns;
}

inline void fault_free(FaultTable* f) { delete f; }

// The hot path: encodes straight into this thread's buffer an event of time `t`.
REVY_HOT void ev4(ThreadState& ts, std::uint8_t kind, std::uint64_t a, std::uint64_t b,
                std::uint64_t c, bool with_c, std::uint64_t t) {
    std::uint32_t len = 0, count = 0;
    ThreadBuf* buf = reserve(ts, len, count);
    if (!buf) return ev_slow(kind, a, b, c, with_c, ts);
    std::uint8_t* p = buf->data + len;
    std::size_t n = 0;
    p[n++] = kind;
    n += put_v(p + n, a);
    n += put_v(p + n, b);
    if (with_c) n += put_v(p + n, c);
    commit(buf, len, count, n, t);
}

// A recorded call's end, when its start is the thread's innermost open one (a recorded call's
// callees all ended before it): the kind byte and the time (kEndBare, `ends=bare`). Written
// directly as its own block when the thread's buffer is gone, it names its call (kind 4): a
// start that went before it the same way has no place in any buffer the reader saw it in.
REVY_HOT void ev_bare(ThreadState& ts, std::uint32_t mid, std::uint64_t oid, std::uint64_t t) {
    std::uint32_t len = 0, count = 0;
    ThreadBuf* buf = reserve(ts, len, count);
    if (!buf) return ev_slow(kEnd, mid, oid, 0, false, ts);
    buf->data[len] = kEndBare;
    commit(buf, len, count, 1, t);
}

// ---- calls: recorded, or aggregated -----------------------------------------------------
//
// Every call goes on the thread's shadow stack. It is recorded as events while the trace is
// under `max_size`, its method is not throttled and its caller is recorded; otherwise it is
// aggregated (per method and per sender→receiver edge) and written as an `A` record at exit.

REVY_HOT bool recording() { return hot().recording.load(std::memory_order_relaxed) != 0; }

// Per method: calls, agg, net, size, agg min/max, net min/max, size min/max.
enum { kAggM = 10 };
// Instance-level edges per thread and in the process before folding oids into their class;
// past kHardKeys a thread counts calls per method only. The per-thread table stays small
// (8,192 slots, 448 KiB) because every unrecorded call looks it up: a table of 2^17 slots
// made an unrecorded call over 100,000 objects cost 1.3-1.6 µs (cache misses), 4,096 keys
// 0.3-0.45 µs (recording it: 0.2 µs) on the loaded 2-core VM.
enum : std::uint32_t { kThreadKeys = 1u << 12, kHardKeys = 1u << 13 };
constexpr std::uint64_t kGlobalKeys = std::uint64_t(1) << 20;
constexpr std::uint64_t kFolded = ~std::uint64_t(0);

struct AggEdge {
    std::uint64_t so, o, calls, agg, size;
    std::int64_t net;
    std::uint32_t s, r;  // sender mid + 1 (0 = the thread's root), receiver mid + 1 (0 = empty)
};

// Per class id: objects created and destroyed unrecorded, their size sum and largest size
// (the O record's four), and the creations this thread logged (`obj_throttled`); and the
// creation counted last (a derived part's tag may re-name it, see obj_rename).
enum { kObjK = 5, kObjOut = 4 };
struct ObjCounts {
    std::uint64_t* k;  // kObjK per class id
    std::uint32_t len;  // class ids covered
    std::uint32_t last_cls;
    std::uint64_t last_oid, last_size;
};

enum : std::uint32_t { kAggSeen = 1u << 16 };
struct AggTable {
    std::uint64_t* m;  // kAggM per method id
    std::uint32_t m_len;  // method ids covered
    AggEdge* e;
    std::uint32_t cap, used;
    std::uint32_t last;  // the slot found last + 1 (a loop repeats one edge: no hashing)
    std::uint32_t gen;   // growths so far (slots move then)
    std::uint64_t folded, dropped, last_t;
    bool untimed;  // estimated calls counted (no clock read): last_t is taken when written
    ObjCounts objs;  // creations and destructions past max_size (the O record)
    // The next object ID when the table was first found full (0: not yet): no ID from it on
    // has an edge of its own here (Counted::fresh).
    std::uint64_t full_oid;
    // One bit per hash of every key ever inserted (kAggSeen bits, L1-sized): a clear bit means
    // the edge is not in the table, so a full table answers a new edge without walking its
    // slots (448 KiB, a cache miss each; most unrecorded calls on new objects asked that).
    std::uint64_t seen[kAggSeen / 64];
};

inline void agg_free(AggTable* a) {
    if (!a) return;
    delete[] a->m;
    delete[] a->e;
    delete[] a->objs.k;
    delete a;
}

// (agg_hash and agg_seen_bit are the header's: the inline counted path reads the bitmap too)
static_assert(kAggSeen == 1u << 16, "agg_seen_bit takes 16 bits");

inline bool agg_grow(AggTable& a) {
    std::uint32_t cap = a.cap ? a.cap * 2 : 64;
    AggEdge* e = new (std::nothrow) AggEdge[cap];
    if (!e) return false;
    std::memset(static_cast<void*>(e), 0, sizeof(AggEdge) * cap);
    for (std::uint32_t i = 0; i < a.cap; ++i) {
        if (!a.e[i].r) continue;
        std::uint32_t j = agg_hash(a.e[i].s, a.e[i].so, a.e[i].r, a.e[i].o) & (cap - 1);
        while (e[j].r) j = (j + 1) & (cap - 1);
        e[j] = a.e[i];
    }
    delete[] a.e;
    a.e = e;
    a.cap = cap;
    a.last = 0;
    a.gen++;
    return true;
}

// Whether a new instance-level edge fits; when not (for good: the bounds only fill), notes
// the first object ID that can have none.
inline bool agg_room(AggTable& a) {
    if (a.used < kThreadKeys && g().agg_keys.load(std::memory_order_relaxed) < kGlobalKeys)
        return true;
    if (!a.full_oid) a.full_oid = hot().next_oid.load(std::memory_order_relaxed);
    return false;
}

// A test's hook, called when a lookup walks the table's slots (nothing in real builds).
#ifndef REVY_TEST_AGG_WALK
#define REVY_TEST_AGG_WALK() ((void)0)
#endif

// The slot of an edge, inserted when new; null past the bound.
inline AggEdge* agg_slot(AggTable& a, std::uint32_t s, std::uint64_t so, std::uint32_t r,
                         std::uint64_t o, bool folding) {
    if (a.last) {
        AggEdge& x = a.e[a.last - 1];
        if (x.r == r && x.o == o && x.s == s && x.so == so) return &x;
    }
    if (!a.cap && !agg_grow(a)) return nullptr;
    const std::uint32_t h = agg_hash(s, so, r, o);
    const std::uint32_t b = agg_seen_bit(h);
    const bool seen = (a.seen[b / 64] >> (b % 64)) & 1u;
    if (!seen && (folding ? a.used >= kHardKeys : !agg_room(a))) return nullptr;
    REVY_TEST_AGG_WALK();
    for (std::uint32_t i = h & (a.cap - 1);; i = (i + 1) & (a.cap - 1)) {
        AggEdge& x = a.e[i];
        if (x.r == r && x.o == o && x.s == s && x.so == so) {
            a.last = i + 1;
            return &x;
        }
        if (x.r) continue;
        Global& G = g();
        if (seen && (folding ? a.used >= kHardKeys : !agg_room(a))) return nullptr;
        if ((a.used + 1) * 2 > a.cap) {
            if (!agg_grow(a)) return nullptr;
            return agg_slot(a, s, so, r, o, folding);
        }
        ++a.used;
        a.seen[b / 64] |= std::uint64_t(1) << (b % 64);
        G.agg_keys.fetch_add(1, std::memory_order_relaxed);
        x.s = s;
        x.so = so;
        x.r = r;
        x.o = o;
        a.last = i + 1;
        return &x;
    }
}

inline AggTable* agg_of(ThreadState& ts) {
    if (!ts.buf && !buffer_slow(ts)) return nullptr;
    if (!ts.buf->agg) ts.buf->agg = new (std::nothrow) AggTable();
    return ts.buf->agg;
}

// Row `i` of a zeroed table of `width` counters per row, grown (at least doubled) to hold
// it; null when memory runs out.
inline std::uint64_t* counter_row(std::uint64_t*& rows, std::uint32_t& len, std::uint32_t i,
                                  std::size_t width) {
    if (i >= len) {
        std::uint32_t n = i + 1 > len * 2 ? i + 1 : len * 2;
        std::uint64_t* r = new (std::nothrow) std::uint64_t[n * width];
        if (!r) return nullptr;
        std::memset(r, 0, sizeof(std::uint64_t) * n * width);
        if (rows) std::memcpy(r, rows, sizeof(std::uint64_t) * len * width);
        delete[] rows;
        rows = r;
        len = n;
    }
    return rows + i * width;
}

inline std::uint64_t* agg_method(AggTable& a, std::uint32_t mid) {
    return counter_row(a.m, a.m_len, mid, kAggM);
}

inline bool ctor_stash(const ThreadState& ts, const AggTable& a, std::uint32_t d, std::uint32_t r,
                       std::uint64_t o, std::uint64_t calls, std::uint64_t agg, std::int64_t net,
                       std::uint64_t size);

// Adds to edge s/so → r/o, folding oids past the bound.
inline void agg_edge_add(AggTable& a, std::uint32_t s, std::uint64_t so, std::uint32_t r,
                         std::uint64_t o, std::uint64_t calls, std::uint64_t agg,
                         std::int64_t net, std::uint64_t size) {
    AggEdge* x = agg_slot(a, s, so, r, o, false);
    if (!x) {
        a.folded += calls;
        x = agg_slot(a, s, so ? kFolded : 0, r, o ? kFolded : 0, true);
        if (!x) {
            a.dropped += calls;
            return;
        }
    }
    x->calls += calls;
    x->agg += agg;
    x->net += net;
    x->size += size;
}

// Adds to the edge of frame `d` (its sender is the frame below).
inline void agg_edge(AggTable& a, const ThreadState& ts, std::uint32_t d, std::uint64_t calls,
                     std::uint64_t agg, std::int64_t net, std::uint64_t size) {
    const Frame& f = ts.frames[d];
    std::uint32_t s = d ? ts.frames[d - 1].mid + 1 : 0;
    std::uint64_t so = d ? ts.frames[d - 1].oid : 0;
    if (d && !so && ctor_stash(ts, a, d - 1, f.mid + 1, f.oid, calls, agg, net, size)) return;
    agg_edge_add(a, s, so, f.mid + 1, f.oid, calls, agg, net, size);
}

// Method `mid`'s row takes one call of `agg` ns, `net` of them its own, of `size` bytes.
inline bool agg_method_put(AggTable& a, std::uint32_t mid, std::uint64_t agg, std::uint64_t net,
                           std::uint64_t size) {
    std::uint64_t* m = agg_method(a, mid);
    if (!m) return false;
    if (m[0] == 0) {
        m[4] = m[5] = agg;
        m[6] = m[7] = net;
        m[8] = m[9] = size;
    } else {
        if (agg < m[4]) m[4] = agg;
        if (agg > m[5]) m[5] = agg;
        if (net < m[6]) m[6] = net;
        if (net > m[7]) m[7] = net;
        if (size < m[8]) m[8] = size;
        if (size > m[9]) m[9] = size;
    }
    m[0] += 1;
    m[1] += agg;
    m[2] += net;
    m[3] += size;
    return true;
}

// Frame `d` ended unrecorded after `agg` ns, `child` of them in its callees.
inline void agg_put(AggTable& ta, const ThreadState& ts, std::uint32_t d, std::uint64_t agg,
                    std::uint64_t child, std::uint64_t t) {
    AggTable* a = &ta;
    const Frame& f = ts.frames[d];
    std::uint64_t net = agg > child ? agg - child : 0;
    if (!agg_method_put(*a, f.mid, agg, net, f.size)) return;
    if (t > a->last_t) a->last_t = t;
    agg_edge(*a, ts, d, 1, agg, static_cast<std::int64_t>(net), f.size);
}

// Frame `d` ended unrecorded after `agg` ns.
inline void agg_add(ThreadState& ts, std::uint32_t d, std::uint64_t agg, std::uint64_t t) {
    AggTable* a = agg_of(ts);
    if (a) agg_put(*a, ts, d, agg, ts.frames[d].child, t);
}

// Recorded frame `d` ended; `hidden` ns of it went to unrecorded callees, which the analysis
// would count as its own time: subtracted here.
inline void agg_correct(ThreadState& ts, std::uint32_t d, std::uint64_t hidden, std::uint64_t t) {
    AggTable* a = agg_of(ts);
    if (!a) return;
    std::uint64_t* m = agg_method(*a, ts.frames[d].mid);
    if (!m) return;
    m[2] -= hidden;
    a->last_t = t;
    agg_edge(*a, ts, d, 0, 0, -static_cast<std::int64_t>(hidden), 0);
}

inline bool is_throttled(std::uint32_t mid) {
    return mid <= config::method_count &&
           Statics<>::throttled[mid].load(std::memory_order_relaxed) != 0;
}

// The latest call times kept per method (a ring of kRing + 1: the last slot counts writes).
enum : std::uint32_t { kRing = 256, kTc = 4 };

// The S record: from `t` on, method `mid`'s counted calls take `e[0]` ns (e: the median,
// 10th and 90th percentiles and count of the timed calls it comes from).
inline std::size_t put_estimate(std::uint8_t* r, std::uint64_t tid, std::uint32_t mid,
                                std::uint64_t t, const std::uint64_t* e) {
    std::size_t n = 0;
    r[n++] = 'S';
    n += put_v(r + n, tid);
    n += put_v(r + n, mid);
    n += put_v(r + n, t);
    for (int i = 0; i < 4; ++i) n += put_v(r + n, e[i]);
    return n;
}

// The median, 10th and 90th percentiles and count of `k` call times.
inline void spread(const std::uint64_t* ring, std::uint64_t k, std::uint64_t* e) {
    std::uint64_t v[kRing];
    if (k > kRing) k = kRing;
    for (std::uint64_t i = 0; i < k; ++i) v[i] = ring[i];
    std::sort(v, v + k);
    e[0] = v[k / 2];
    e[1] = v[k / 10];
    e[2] = v[k - 1 - k / 10];
    e[3] = k;
}

// The X record: which method, on which thread's verdict, when, after how many calls of what
// total time; then the S record: the estimate its counted calls take, the median of the
// latest (up to 256) timed calls `ring` holds, with its 10th and 90th percentiles and count
// (one preempted or faulting call must not set it, as a mean's would).
inline void throttle(const ThreadState& ts, std::uint32_t mid, std::uint64_t t,
                     std::uint64_t calls, std::uint64_t total, const std::uint64_t* ring) {
    std::uint64_t e[4];
    spread(ring, ring[kRing], e);
    define_method(mid);
    Global& G = g();
    G.lock.lock();
    if (!Statics<>::throttled[mid].exchange(1, std::memory_order_relaxed)) {
        Statics<>::estimate[mid].store(1 + e[0], std::memory_order_relaxed);
        std::uint8_t r[128];
        std::size_t n = 0;
        r[n++] = 'X';
        n += put_v(r + n, ts.tid);
        n += put_v(r + n, mid);
        n += put_v(r + n, t);
        n += put_v(r + n, calls);
        n += put_v(r + n, total);
        n += put_estimate(r + n, ts.tid, mid, t, e);
        emit_locked(G, r, n, nullptr, 0);
    }
    G.lock.unlock();
}

// TAU's rule: more than `throttle_calls` calls on this thread averaging under `throttle_ns`.
inline void count_call(ThreadState& ts, std::uint32_t mid, std::uint64_t agg, std::uint64_t t) {
    if (mid > config::method_count) return;
    if (mid >= ts.tc_len) {
        std::uint32_t n = mid + 1 > ts.tc_len * 2 ? mid + 1 : ts.tc_len * 2;
        std::uint64_t* c = new (std::nothrow) std::uint64_t[static_cast<std::size_t>(n) * kTc];
        if (!c) return;
        std::memset(c, 0, sizeof(std::uint64_t) * n * kTc);
        if (ts.tc) std::memcpy(c, ts.tc, sizeof(std::uint64_t) * ts.tc_len * kTc);
        delete[] ts.tc;
        ts.tc = c;
        ts.tc_len = n;
    }
    std::uint64_t* x = ts.tc + kTc * static_cast<std::size_t>(mid);
    std::uint64_t c = ++x[0];
    std::uint64_t sum = x[1] += agg;
    if (c <= config::throttle_calls / 2 || is_throttled(mid)) return;
    // past the warm-up of the first calls: the latest call times, for the estimate's median
    std::uint64_t* ring = reinterpret_cast<std::uint64_t*>(static_cast<std::uintptr_t>(x[3]));
    if (!ring) {
        ring = new (std::nothrow) std::uint64_t[kRing + 1]();
        if (!ring) return;
        x[3] = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(ring));
    }
    ring[ring[kRing]++ % kRing] = agg;
    if (c > config::throttle_calls && sum < c * config::throttle_ns) {
        throttle(ts, mid, t, c, sum, ring);
        delete[] ring;
        x[3] = 0;
    }
}

// A test's hook, called once a growth has freed the old array (nothing in real builds).
#ifndef REVY_TEST_FRAMES_GREW
#define REVY_TEST_FRAMES_GREW(old_cap) ((void)0)
#endif
inline bool grow_frames(ThreadState& ts);

// ---- throttled calls: counted without reading the clock -----------------------------------
//
// A throttled method's later calls are counted exactly (per method and edge) but not timed:
// each takes the method's estimate — at the verdict, the median time of the latest (up to
// 256) calls timed before it on the deciding thread (past warm-up and first-touch costs);
// later, of a thread's latest kSamples sampled calls (see resample) — or its callees' time when that is
// more, so its callers' net time stays total − children. An `S` record gives each estimate
// and its spread.
//
// The common case, a leaf call on the same edge as the method's previous counted call on this
// thread, is one increment of a per-thread, per-method `Counted` (`end_counted`); those calls
// go to the aggregate table (`counted_settle`) when the edge or the estimate changes and
// before the table is written. Every kSampleEvery-th counted call of a thread is timed
// instead (two clock reads, nothing recorded: the time of the real call); a thread whose
// latest kSamples samples' median is more than a quarter off a method's estimate re-estimates
// it (`resample`), so a phase change shows.

enum : std::uint32_t { kSamples = 32 };

inline std::uint64_t estimate_of(std::uint32_t mid) {
    return mid <= config::method_count ? Statics<>::estimate[mid].load(std::memory_order_relaxed)
                                       : 0;
}

REVY_HOT bool start_estimated(ThreadState& ts, std::uint32_t mid, std::uint64_t oid,
                              std::uint64_t size) {
    if (!estimate_of(mid)) return false;
    std::uint32_t d = ts.depth;
    if (d == ts.cap && !grow_frames(ts)) return false;
    Frame& f = ts.frames[d];
    f.oid = oid;
    f.child = 0;
    f.hidden = 0;
    f.size = size;
    f.mid = mid;
    ts.depth = d + 1;
    if (++ts.counted % kSampleEvery != 0) {
        f.rec = kEstimated;
        return true;
    }
    f.rec = kSampled;
    f.t = now_ns();  // last: the sample times the call, not this probe
    return true;
}

// An estimated call's time: the method's estimate, at least its callees' time `child`.
inline std::uint64_t estimated_time(std::uint32_t mid, std::uint64_t child) {
    std::uint64_t est = estimate_of(mid);
    est = est ? est - 1 : 0;
    return child > est ? child : est;
}

// A test's switches: counting on the thread's `Counted` edges (off: every estimated call goes
// to the table by itself, the reference the counted path must equal), and re-estimating.
#ifndef REVY_TEST_COUNTED
#define REVY_TEST_COUNTED() true
#endif
#ifndef REVY_TEST_RESAMPLE
#define REVY_TEST_RESAMPLE() true
#endif

// Way `w` of method `mid`'s counted calls goes to the table `a`: its sums to the method's row
// and to the edge, with the method's ranges (which later settles merge again: harmless).
// Allocates nothing (the row and the edge exist since the way took the edge), so the crash
// flush may call it.
inline void counted_settle_way(AggTable& a, std::uint32_t mid, const Counted& c, CountedEdge& w) {
    if (!w.n || w.s == kNoEdge) return;
    if (std::uint64_t* m = mid < a.m_len ? a.m + static_cast<std::size_t>(mid) * kAggM : nullptr) {
        if (m[0] == 0) {
            m[4] = c.agg_min;
            m[5] = c.agg_max;
            m[6] = c.net_min;
            m[7] = c.net_max;
            m[8] = c.size_min;
            m[9] = c.size_max;
        } else {
            if (c.agg_min < m[4]) m[4] = c.agg_min;
            if (c.agg_max > m[5]) m[5] = c.agg_max;
            if (c.net_min < m[6]) m[6] = c.net_min;
            if (c.net_max > m[7]) m[7] = c.net_max;
            if (c.size_min < m[8]) m[8] = c.size_min;
            if (c.size_max > m[9]) m[9] = c.size_max;
        }
        m[0] += w.n;
        m[1] += w.agg;
        m[2] += w.net;
        m[3] += w.size;
    }
    bool folded = w.so == kFolded || w.o == kFolded;
    AggEdge* x = w.x && w.gen == a.gen ? w.x : agg_slot(a, w.s, w.so, mid + 1, w.o, folded);
    if (folded) a.folded += w.n;
    if (x) {
        x->calls += w.n;
        x->agg += w.agg;
        x->net += static_cast<std::int64_t>(w.net);
        x->size += w.size;
        w.x = x;
        w.gen = a.gen;
    }
    w.n = w.agg = w.net = w.size = 0;
}

inline void counted_ranges_reset(Counted& c) {
    c.agg_min = c.net_min = c.size_min = ~std::uint64_t(0);
    c.agg_max = c.net_max = c.size_max = 0;
    c.ranged = 0;
}

// The calls `c` (method `mid`) counted go to the thread's table `a`; `c` keeps its edges.
inline void counted_settle(AggTable& a, std::uint32_t mid, Counted& c) {
    bool any = false;
    for (unsigned k = 0; k < kWays; ++k) {
        any = any || c.way[k].n;
        counted_settle_way(a, mid, c, c.way[k]);
    }
    if (any) counted_ranges_reset(c);
}

// Before thread `ts`'s table `a` is written (by the thread at its exit, or by the exit or
// crash flush): every method's counted calls go to it.
inline void counted_settle_all(ThreadState* ts, AggTable& a) {
    if (!ts || !ts->buf || ts->buf->agg != &a) return;
    for (std::uint32_t i = 0; i < ts->cnt_len; ++i) counted_settle(a, i, ts->cnt[i]);
}

inline void counted_clear(Counted& c) {
    c.est = 0;
    c.next = 0;
    c.hint = 0;
    counted_ranges_reset(c);
    for (unsigned k = 0; k < kWays; ++k) {
        c.way[k] = CountedEdge();
        c.way[k].s = kNoEdge;
    }
}

// `ts.cnt[mid]`, the array grown to hold it; null when memory runs out.
inline Counted* counted_of(ThreadState& ts, std::uint32_t mid) {
    if (mid > config::method_count) return nullptr;
    if (mid >= ts.cnt_len) {
        std::uint32_t n = mid + 1 > ts.cnt_len * 2 ? mid + 1 : ts.cnt_len * 2;
        if (n > config::method_count + 1) n = config::method_count + 1;
        Counted* c = new (std::nothrow) Counted[n];
        if (!c) return nullptr;
        std::memset(static_cast<void*>(c), 0, sizeof(Counted) * n);
        if (ts.cnt) std::memcpy(static_cast<void*>(c), ts.cnt, sizeof(Counted) * ts.cnt_len);
        for (std::uint32_t i = ts.cnt_len; i < n; ++i) counted_clear(c[i]);
        // the exit flush may settle another thread's counts: the new array goes in under the lock
        Counted* old = ts.cnt;
        Global& G = g();
        G.lock.lock();
        ts.cnt = c;
        ts.cnt_len = n;
        G.lock.unlock();
        delete[] old;
    }
    return &ts.cnt[mid];
}

inline void counted_free(ThreadState& ts) {
    for (std::uint32_t i = 0; i < ts.cnt_len; ++i) delete[] ts.cnt[i].ring;
    delete[] ts.cnt;
    ts.cnt = nullptr;
    ts.cnt_len = 0;
}

// The thread's counted calls were another process's (fork) or its table is gone: forgotten.
inline void counted_forget(ThreadState& ts) {
    for (std::uint32_t i = 0; i < ts.cnt_len; ++i) counted_clear(ts.cnt[i]);
    ts.fold_from = 0;
    ts.seen = nullptr;
}

// The way of `c` (method `mid`) for a call from s/so on `oid`, made one when it is not: the
// edge the table adds such a call to (its own, else past the bound the folded one), found or
// made now, so that counting on it (`end_counted`) allocates nothing. A way taken from another
// edge settles that edge's counts first. Null when the table has no slot for it.
enum : std::uint32_t { kTakeEvery = 8 };
inline CountedEdge* counted_take(ThreadState& ts, AggTable& a, std::uint32_t mid, Counted& c,
                                 std::uint32_t s, std::uint64_t so, std::uint64_t oid,
                                 AggEdge** slot) {
    *slot = nullptr;
    if (!agg_method(a, mid)) return nullptr;
    std::uint64_t kso = so, ko = oid;
    AggEdge* x = agg_slot(a, s, so, mid + 1, oid, false);
    if (!x) {
        if (!a.full_oid) return nullptr;  // out of memory: agg_put counts it
        kso = so ? kFolded : 0;
        ko = oid ? kFolded : 0;
        x = agg_slot(a, s, kso, mid + 1, ko, true);
        if (!x) return nullptr;  // past the hard bound: agg_put drops it
        // folded: counted so when a way's calls are settled, if its key says so
        if (kso == so && ko == oid) a.folded += 1;
    }
    CountedEdge* w = nullptr;
    for (unsigned k = 0; k < kWays && !w; ++k)
        if (c.way[k].s == s && c.way[k].so == kso && c.way[k].o == ko) w = &c.way[k];
    for (unsigned k = 0; k < kWays && !w; ++k)
        if (c.way[k].s == kNoEdge) w = &c.way[k];
    if (!w) {
        // Every way used: one edge in kTakeEvery takes one (in turn), the others' calls go to
        // their slot, so that edges taking turns (more than four) do not settle a way a call.
        if (++c.next % kTakeEvery != 0) {
            if (kso != so || ko != oid) a.folded += 1;
            *slot = x;
            return nullptr;
        }
        w = &c.way[(c.next / kTakeEvery) % kWays];
        counted_settle_way(a, mid, c, *w);
    }
    w->s = s;
    w->so = kso;
    w->o = ko;
    w->x = x;
    w->gen = a.gen;
    ts.fold_from = a.full_oid;
    ts.seen = a.seen;
    return w;
}

// Frame `d` (estimated) ends: its time is the estimate, at least its callees' time. Counted
// on a way of the method's `Counted` (its edge made one), which later calls on that edge
// count on inline (`end_counted`); else (a constructor's callee before its ID, no slot) in the
// table directly.
inline void pop_estimated(ThreadState& ts, std::uint32_t d) {
    ts.depth = d;
    const Frame& f = ts.frames[d];
    const std::uint64_t est = estimate_of(f.mid);
    const std::uint64_t e = est ? est - 1 : 0;
    const std::uint64_t agg = f.child > e ? f.child : e;
    if (d) ts.frames[d - 1].child += agg;
    if (d && ts.frames[d - 1].rec == kRecorded) ts.frames[d - 1].hidden += agg;
    AggTable* a = agg_of(ts);
    if (!a) return;
    a->untimed = true;
    std::uint32_t s = d ? ts.frames[d - 1].mid + 1 : 0;
    std::uint64_t so = d ? ts.frames[d - 1].oid : 0;
    bool stash = d && !so && ts.ctor_top;
    Counted* c = est && !stash && REVY_TEST_COUNTED() ? counted_of(ts, f.mid) : nullptr;
    AggEdge* x = nullptr;
    CountedEdge* w = c ? counted_take(ts, *a, f.mid, *c, s, so, f.oid, &x) : nullptr;
    const std::uint64_t net = agg - f.child;
    if (x) {  // its edge found, no way for it: added there (and to the method's row) now
        agg_method_put(*a, f.mid, agg, net, f.size);
        x->calls += 1;
        x->agg += agg;
        x->net += static_cast<std::int64_t>(net);
        x->size += f.size;
        return;
    }
    if (!w) return agg_put(*a, ts, d, agg, f.child, 0);
    c->est = est;
    counted_hint(*c, s, w);
    w->n += 1;
    w->agg += agg;
    w->net += net;
    w->size += f.size;
    if (agg < c->agg_min) c->agg_min = agg;
    if (agg > c->agg_max) c->agg_max = agg;
    if (net < c->net_min) c->net_min = net;
    if (net > c->net_max) c->net_max = net;
    if (f.size < c->size_min) c->size_min = f.size;
    if (f.size > c->size_max) c->size_max = f.size;
}

// Sampled frame `d` took `agg` ns: kept in the method's ring; when the ring's median is more
// than a quarter off the estimate and the estimate is outside the samples' 10th to 90th
// percentile, the median becomes the estimate (an S record says so).
inline void resample(ThreadState& ts, std::uint32_t d, std::uint64_t agg, std::uint64_t t) {
    std::uint32_t mid = ts.frames[d].mid;
    Counted* c = REVY_TEST_RESAMPLE() ? counted_of(ts, mid) : nullptr;
    if (!c) return;
    if (!c->ring && !(c->ring = new (std::nothrow) std::uint64_t[kSamples])) return;
    c->ring[c->sampled++ % kSamples] = agg;
    if (c->sampled < kSamples) return;
    std::uint64_t e[4];
    spread(c->ring, kSamples, e);
    std::uint64_t cur = estimate_of(mid);
    if (!cur) return;
    --cur;
    // a phase: the median moved by more than a quarter, and the estimate is no longer a typical
    // sample (outside their 10th to 90th percentile: not the clock's resolution or noise)
    if (4 * (e[0] > cur ? e[0] - cur : cur - e[0]) <= cur || (e[1] <= cur && cur <= e[2]))
        return;
    c->sampled = 0;  // the next look waits for kSamples samples of the new phase
    Global& G = g();
    G.lock.lock();
    Statics<>::estimate[mid].store(1 + e[0], std::memory_order_relaxed);
    std::uint8_t r[64];
    emit_locked(G, r, put_estimate(r, ts.tid, mid, t, e), nullptr, 0);
    G.lock.unlock();
}

// Doubles the thread's shadow stack. The exit flush may be walking this stack from another
// thread (a thread still running at exit), under the global lock: the new array is put in
// place under that lock, and the old one freed only after, so the walk reads a live array
// whose capacity matches the one it reads.
inline bool grow_frames(ThreadState& ts) {
    if (ts.dead) return false;
    std::uint32_t cap = ts.cap ? ts.cap * 2 : 32;
    Frame* f = new (std::nothrow) Frame[cap];
    if (!f) return false;
    Frame* old = ts.frames;
    if (old) std::memcpy(static_cast<void*>(f), old, sizeof(Frame) * ts.depth);
    Global& G = g();
    G.lock.lock();
    ts.frames = f;
    ts.cap = cap;
    G.lock.unlock();
    delete[] old;
    REVY_TEST_FRAMES_GREW(cap / 2);
    return true;
}

// Opens call `mid` on the thread's shadow stack at depth `d` (room checked by the caller):
// recorded as events (returns true) when the trace records and so does its caller, else
// counted in the thread's aggregates.
REVY_HOT bool push_frame(ThreadState& ts, std::uint32_t d, std::uint32_t mid, std::uint64_t oid,
                         std::uint64_t size, std::uint64_t t) {
    bool rec = recording() && (d == 0 || ts.frames[d - 1].rec == kRecorded) && !is_throttled(mid);
    Frame& f = ts.frames[d];
    f.oid = oid;
    f.t = t;
    f.child = 0;
    f.hidden = 0;
    f.size = size;
    f.mid = mid;
    f.rec = rec ? kRecorded : kAggregated;
    ts.depth = d + 1;
    return rec;
}

REVY_HOT void start(std::uint32_t mid, std::uint64_t oid, std::uint64_t size) {
    ThreadState& ts = tls();
    if (config::throttle_calls && start_estimated(ts, mid, oid, size)) return;
    std::uint64_t t = now_ns();
    std::uint32_t d = ts.depth;
    if (d == ts.cap && !grow_frames(ts)) {
        // the thread's state is gone (thread_local destructors ran): recorded plainly
        if (recording()) {
            define_method(mid);
            ev4(ts, kStart, mid, oid, size, true, t);
        }
        return;
    }
    if (push_frame(ts, d, mid, oid, size, t)) {
        define_method(mid);
        ev4(ts, kStart, mid, oid, size, true, t);
        if (fault_measured(mid)) fault_enter(ts, d, mid, t);
    }
}

REVY_HOT void pop(ThreadState& ts, std::uint32_t d, std::uint64_t t) {
    if (config::throttle_calls && ts.frames[d].rec == kEstimated) return pop_estimated(ts, d);
    if (config::throttle_calls && ts.frames[d].rec == kSampled) {
        resample(ts, d, t > ts.frames[d].t ? t - ts.frames[d].t : 0, t);
        return pop_estimated(ts, d);
    }
    ts.depth = d;
    const Frame& f = ts.frames[d];
    std::uint64_t agg = t > f.t ? t - f.t : 0;
    if (d) ts.frames[d - 1].child += agg;
    if (f.rec == kRecorded) {
        // its start is in the trace: so is its end, past the limit too
        std::uint64_t cpu = fault_leave(ts, d, agg);
        if (cpu)
            ev4(ts, kEndCpu, f.mid, f.oid, cpu - 1, true, t);
        else
            ev_bare(ts, f.mid, f.oid, t);
        if (f.hidden) agg_correct(ts, d, f.hidden, t);
    } else if (f.rec == kAggregated) {
        agg_add(ts, d, agg, t);
        if (d && ts.frames[d - 1].rec == kRecorded) ts.frames[d - 1].hidden += agg;
    }
    if (config::throttle_calls) count_call(ts, f.mid, agg, t);
}

REVY_HOT void end(std::uint32_t mid, std::uint64_t oid) {
    ThreadState& ts = tls();
    std::uint32_t d = ts.depth;
    if (config::throttle_calls && d && ts.frames[d - 1].rec == kEstimated &&
        ts.frames[d - 1].mid == mid && ts.frames[d - 1].oid == oid) {
        if (REVY_TEST_COUNTED() && end_counted(ts, mid, oid, d)) return;
        return pop_estimated(ts, d - 1);
    }
    std::uint64_t t = now_ns();
    if (d && ts.frames[d - 1].mid == mid && ts.frames[d - 1].oid == oid) return pop(ts, d - 1, t);
    while (d && (ts.frames[d - 1].mid != mid || ts.frames[d - 1].oid != oid)) --d;
    if (!d) {
        // no open start: recorded as it is (the analysis counts unmatched ends)
        if (recording()) ev4(ts, kEnd, mid, oid, 0, false, t);
        return;
    }
    while (ts.depth >= d) pop(ts, ts.depth - 1, t);
}

// ---- what a counted call costs its caller (`counted_ns=`) ---------------------------------
//
// A throttled method's counted calls are not timed: their time is the estimate, and what the
// counting costs stays in the caller's time (the what-if takes it off the sender). Measured
// at start-up on a scratch thread state through the counted path itself (`push_counted`,
// `end_counted`: what annotated code runs inline), for method id 0 (never a real method: ids start at 1),
// whose estimate is set for the measurement only: 400 batches of 50 calls, the fastest
// counting (as probe_ns), the median batch the spread. The thread-state lookup is left out.
inline std::string counted_cost_ns() {
    if (!config::throttle_calls) return "0";
    const std::uint64_t calls = 50, est = 40, parent = 7, oid = 11;
    const int batches = 400;
    Frame frames[4] = {};
    Counted cnt[1] = {};
    counted_clear(cnt[0]);
    ThreadState* ts = new ThreadState();
    ts->frames = frames;
    ts->cap = 4;
    ts->depth = 1;
    frames[0].oid = parent;
    frames[0].mid = 1;
    frames[0].rec = kAggregated;
    cnt[0].way[0].so = parent;
    cnt[0].way[0].o = oid;
    cnt[0].way[0].s = 2;
    cnt[0].est = 1 + est;
    ts->cnt = cnt;
    ts->cnt_len = 1;
    Statics<>::estimate[0].store(1 + est, std::memory_order_relaxed);
    std::uint64_t* all = new std::uint64_t[batches];
    std::uint64_t best = ~static_cast<std::uint64_t>(0);
    for (int batch = 0; batch < batches; ++batch) {
        ts->counted = 1;  // no call of the batch is one of the 1-in-kSampleEvery timed
        std::uint64_t t0 = now_ns();
        for (std::uint64_t i = 0; i < calls; ++i) {
            std::uint32_t d = push_counted(*ts, 0, oid, 24);
            if (!d) break;
            if (!end_counted(*ts, 0, oid, d)) ts->depth = 1;
        }
        std::uint64_t d = now_ns() - t0;
        all[batch] = d;
        if (d < best) best = d;
    }
    Statics<>::estimate[0].store(0, std::memory_order_relaxed);
    bool counted = cnt[0].way[0].n == static_cast<std::uint64_t>(batches) * calls;
    delete ts;
    std::sort(all, all + batches);
    std::uint64_t p50 = all[batches / 2];
    delete[] all;
    if (!counted) return "0";  // the path did not count them: no figure
    auto tenths = [calls](std::uint64_t ns) {
        std::uint64_t t = (ns * 10 + calls / 2) / calls;
        return std::to_string(t / 10) + "." + std::to_string(t % 10);
    };
    return tenths(best) + " counted_stat=min counted_batches=" + std::to_string(batches) +
           " counted_p50=" + tenths(p50);
}

// ---- what finding an object's ID by its address costs a call (`nid_ns=`) ----------------
//
// A method of a class identified by address (aggregates, unions, layout-sensitive classes)
// passes `nid(this, …)` as its receiver: a call into the runtime (through the library's entry
// table in the shared form), a lock, a hash lookup. A counted call of such a method pays it
// beside the counting (`counted_ns`): for a ~50 ns method, more than the counting itself.
// Measured at start-up as the call runs it, on a map and mutex of the measurement's own (the
// program's objects untouched), with a few hundred entries so the lookup is not a lone one's:
// 400 batches of 50 lookups through a function pointer, the fastest batch, the median the
// spread.
inline std::uint64_t nid_lookup_for_cost(std::mutex* m, NidMap* map, const void* key) noexcept {
    std::lock_guard<std::mutex> l(*m);
    const std::uint64_t* v = map->find(key);
    return v ? *v : 0;
}

inline std::string nid_cost_ns() {
    const std::uint64_t calls = 50;
    const int batches = 400;
    std::mutex m;
    NidMap map;
    static char objects[512];
    for (int i = 0; i < 512; ++i) map.put(objects + i, static_cast<std::uint64_t>(i + 1));
    std::uint64_t (*volatile lookup)(std::mutex*, NidMap*, const void*) noexcept =
        nid_lookup_for_cost;
    std::uint64_t* all = new std::uint64_t[batches];
    std::uint64_t best = ~static_cast<std::uint64_t>(0), sink = 0;
    for (int batch = 0; batch < batches; ++batch) {
        const void* key = objects + (batch * 37) % 512;
        std::uint64_t t0 = now_ns();
        for (std::uint64_t i = 0; i < calls; ++i) sink += lookup(&m, &map, key);
        std::uint64_t d = now_ns() - t0;
        all[batch] = d;
        if (d < best) best = d;
    }
    std::sort(all, all + batches);
    std::uint64_t p50 = all[batches / 2];
    delete[] all;
    delete[] map.s;
    if (sink == 0) return "0";  // the lookups found nothing: no figure
    auto tenths = [calls](std::uint64_t ns) {
        std::uint64_t t = (ns * 10 + calls / 2) / calls;
        return std::to_string(t / 10) + "." + std::to_string(t % 10);
    };
    return tenths(best) + " nid_stat=min nid_batches=" + std::to_string(batches) +
           " nid_p50=" + tenths(p50);
}

// ---- calls still open at the final flush ----------------------------------------------
//
// A call open when the process exits (exit() inside it, or a thread still running) has no
// end: the analysis closes a recorded one at its thread's last time, so an unrecorded one is
// counted here as ended at the flush (`t`, which becomes the thread's last time), and a
// recorded one gets the net correction for its unrecorded callees. Counted into a table of
// their own, written as a second A record (the analysis adds A records up): the shadow stack
// is only read, and the thread's own table is left to it. A thread still running while
// another exits may change its frames under this read (a miscounted open call; its array is
// swapped only under the lock held here, see `grow_frames`): the price of counting calls
// open in threads that are blocked, which is the common case at exit.
inline void agg_open_frames(const ThreadState& ts, AggTable& out, std::uint64_t t) {
    std::uint64_t above = 0;  // time of the open callee, not yet in the frame's `child`
    bool above_agg = false;
    // The array and its capacity change only under the lock held here; the depth is the
    // owner's to change at any time, so it is bounded by the capacity.
    std::uint32_t depth = ts.depth < ts.cap ? ts.depth : ts.cap;
    for (std::uint32_t d = depth; d-- > 0;) {
        const Frame& f = ts.frames[d];
        std::uint64_t agg = t > f.t ? t - f.t : 0;
        if (f.rec == kEstimated || f.rec == kSampled) {  // its estimate, as at its end
            agg = estimated_time(f.mid, f.child + above);
            agg_put(out, ts, d, agg, f.child + above, t);
        } else if (f.rec == kAggregated) {
            agg_put(out, ts, d, agg, f.child + above, t);
        } else if (f.rec == kRecorded) {
            std::uint64_t hidden = f.hidden + (above_agg ? above : 0);
            std::uint64_t* m = hidden ? agg_method(out, f.mid) : nullptr;
            if (m) {
                m[2] -= hidden;
                agg_edge(out, ts, d, 0, 0, -static_cast<std::int64_t>(hidden), 0);
            }
        }
        above = agg;
        above_agg = f.rec == kAggregated || f.rec == kEstimated || f.rec == kSampled;
    }
    out.last_t = t;
}

inline void write_open_calls_locked(Global& G, const ThreadBuf& b, std::uint64_t t) {
    const ThreadState* ts = b.owner;
    if (!ts || ts->dead || ts->depth == 0 || !ts->frames) return;
    AggTable* open = new (std::nothrow) AggTable();
    if (!open) return;
    agg_open_frames(*ts, *open, t);
    if (open->m_len) {  // something unrecorded was open
        write_aggregates_locked(G, b.tid, *open);
    }
    agg_free(open);
}

// ---- the A record -----------------------------------------------------------------------

// Streams a record through a fixed buffer (no allocation: usable from the crash handler).
struct RecOut {
    Global& G;
    std::uint8_t b[4096];
    std::size_t n;
    explicit RecOut(Global& g_) : G(g_), n(0) {}
    void v(std::uint64_t x) {
        if (n + 16 > sizeof b) flush();
        n += put_v(b + n, x);
    }
    void z(std::int64_t x) { v((static_cast<std::uint64_t>(x) << 1) ^ static_cast<std::uint64_t>(x >> 63)); }
    void flush() {
        G.out.write_all(b, n);
        G.bytes += n;
        n = 0;
    }
};

inline bool defined(std::uint32_t mid) {
    return mid <= config::method_count &&
           Statics<>::method_defined[mid].load(std::memory_order_acquire) != 0;
}

inline bool method_entry(const AggTable& a, std::uint32_t mid) {
    const std::uint64_t* m = a.m + static_cast<std::size_t>(mid) * kAggM;
    return (m[0] || m[2]) && defined(mid);
}
inline bool edge_entry(const AggEdge& x) {
    return x.r && defined(x.r - 1) && (!x.s || defined(x.s - 1));
}

// Defines every method an A record will name (not async-signal-safe: the crash handler
// writes only entries already defined).
inline void define_aggregated_locked(Global& G, const AggTable& a) {
    for (std::uint32_t i = 0; i < a.m_len; ++i) {
        const std::uint64_t* m = a.m + static_cast<std::size_t>(i) * kAggM;
        if ((m[0] || m[2]) && !defined(i)) define_method_locked(G, i);
    }
    for (std::uint32_t i = 0; i < a.cap; ++i) {
        if (!a.e[i].r) continue;
        if (!defined(a.e[i].r - 1)) define_method_locked(G, a.e[i].r - 1);
        if (a.e[i].s && !defined(a.e[i].s - 1)) define_method_locked(G, a.e[i].s - 1);
    }
}

// ---- objects created and destroyed unrecorded (the O record) ---------------------------
//
// Past max_size a creation or destruction is no event: the thread counts it per class
// (created, destroyed, size sum and largest size, the sizes a Crt would have carried),
// written as an O record after its A record, so per-class counts cover the whole run.

inline std::uint64_t* obj_class(ObjCounts& o, std::uint32_t cls) {
    if (__builtin_expect(cls < o.len, 1)) return o.k + static_cast<std::size_t>(cls) * kObjK;
    return counter_row(o.k, o.len, cls, kObjK);
}

inline void obj_add(ObjCounts& o, std::uint32_t cls, std::uint64_t oid, std::uint64_t size,
                    bool created) {
    std::uint64_t* k = obj_class(o, cls);
    if (!k) return;
    if (!created) {
        k[1] += 1;
        return;
    }
    k[0] += 1;
    k[2] += size;
    if (size > k[3]) k[3] = size;
    o.last_cls = cls;
    o.last_oid = oid;
    o.last_size = size;
}

// What threads count after their exit flush (static destructors run after main's
// thread_local guard): one table for the process, written by finish() (POD: zero-initialised,
// no guard). Its tid is the first such thread's.
struct LateObjs {
    ObjCounts o;
    std::uint64_t tid;
};
inline LateObjs& late_objects() {
    static LateObjs l;
    return l;
}
inline void late_objects_reset() {
    delete[] late_objects().o.k;
    late_objects() = LateObjs();
}

// Object `oid` of class `cls` was created (or destroyed) while events are not recorded.
inline void obj_count(std::uint32_t cls, std::uint64_t oid, std::uint64_t size, bool created) {
    define_class(cls);  // the O record names defined classes only (the crash handler can't)
    ThreadState& ts = tls();
    AggTable* a = ts.dead ? nullptr : agg_of(ts);
    if (a) return obj_add(a->objs, cls, oid, size, created);
    Global& G = g();
    G.lock.lock();
    LateObjs& l = late_objects();
    if (!l.tid) l.tid = ts.tid ? ts.tid : this_tid();
    obj_add(l.o, cls, oid, size, created);
    G.lock.unlock();
}

// A derived part's tag makes the creation of `oid` name `cls` with `size` (SubTag::upgrade):
// the count moves when it was this thread's last one (the base's maximum may stay high).
inline void obj_rename(std::uint64_t oid, std::uint32_t cls, std::uint64_t size) {
    ThreadState& ts = tls();
    AggTable* a = ts.buf ? ts.buf->agg : nullptr;
    if (!a || a->objs.last_oid != oid || a->objs.last_cls == cls || !a->objs.k) return;
    std::uint64_t* from = a->objs.k + static_cast<std::size_t>(a->objs.last_cls) * kObjK;
    if (from[0] == 0) return;
    from[0] -= 1;
    from[2] -= from[2] < a->objs.last_size ? from[2] : a->objs.last_size;
    obj_count(cls, oid, size, true);
}

// ---- objects of throttled classes --------------------------------------------------------
//
// With throttling on, a class whose objects one thread logged `throttle_calls` creations of
// has its later objects counted per class (the O record), as past max_size: one event each
// for its creation and its destruction was most of a suite's trace (yaml-cpp: 34 M of 41.8 M
// events, 17 M objects of a handful of classes). The switch is by object ID: from the shared
// counter's value at the verdict (`obj_from`: every ID handed out before it is smaller), so
// creation and destruction decide alike, on any thread, whenever the verdict fell: an object
// logged when created is logged when destroyed. Only for creations that name their class for
// good (a tag of a class without selected subclasses, non-intrusive IDs); a hierarchy's
// patchable creations are always logged (their destruction names the most-derived class).

// Whether object `oid` of `cls` is counted, not logged (events are recorded).
inline bool obj_counted(std::uint32_t cls, std::uint64_t oid) {
    const std::uint64_t from = Statics<>::obj_from[cls].load(std::memory_order_relaxed);
    return from && oid >= from;
}

// A creation that names its class for good, while events are recorded: counted (true), or
// to be logged; the thread's logged creations of the class decide the verdict.
inline bool obj_throttled_crt(std::uint32_t cls, std::uint64_t oid, std::uint64_t size) {
    if (!config::throttle_calls || cls > config::class_count) return false;
    if (obj_counted(cls, oid)) {
        obj_count(cls, oid, size, true);
        return true;
    }
    ThreadState& ts = tls();
    AggTable* a = ts.dead ? nullptr : agg_of(ts);
    std::uint64_t* k = a ? obj_class(a->objs, cls) : nullptr;
    if (k && ++k[4] == config::throttle_calls) {
        std::uint64_t none = 0;
        Statics<>::obj_from[cls].compare_exchange_strong(
            none, hot().next_oid.load(std::memory_order_relaxed), std::memory_order_relaxed);
    }
    return false;
}

inline bool obj_entry(const ObjCounts& o, std::uint32_t cls) {
    const std::uint64_t* k = o.k + static_cast<std::size_t>(cls) * kObjK;
    return (k[0] || k[1]) && cls <= config::class_count &&
           Statics<>::class_defined[cls].load(std::memory_order_acquire) != 0;
}

// The O record of thread `tid` (annotator/trace/FORMAT.md); none when nothing was counted. No
// allocation (the crash handler calls it).
inline void write_objects_locked(Global& G, std::uint64_t tid, const ObjCounts& o) {
    std::uint64_t n = 0;
    for (std::uint32_t i = 0; i < o.len; ++i) n += obj_entry(o, i);
    if (!n || !writable_locked(G)) return;
    RecOut r(G);
    r.b[r.n++] = 'O';
    r.v(tid);
    r.v(n);
    for (std::uint32_t i = 0; i < o.len; ++i) {
        if (!obj_entry(o, i)) continue;
        const std::uint64_t* k = o.k + static_cast<std::size_t>(i) * kObjK;
        r.v(i);
        for (int j = 0; j < kObjOut; ++j) r.v(k[j]);
    }
    r.flush();
}

inline void write_late_objects_locked(Global& G) {
    write_objects_locked(G, late_objects().tid, late_objects().o);
}

// The A record of thread `tid` (annotator/trace/FORMAT.md), then its O record. Entries naming a
// method without an M record are left out (only the crash handler, which cannot define,
// meets them).
inline void write_aggregates_locked(Global& G, std::uint64_t tid, const AggTable& a) {
    if (!writable_locked(G)) return;
    // Every method it names needs its M record first: one first called past the size limit
    // has none yet (the crash flush once wrote such records without it).
    define_aggregated_locked(G, a);
    RecOut o(G);
    o.b[o.n++] = 'A';
    o.v(tid);
    std::uint64_t now = a.untimed ? now_ns() : 0;
    o.v(now > a.last_t ? now : a.last_t);
    std::uint64_t n = 0;
    for (std::uint32_t i = 0; i < a.m_len; ++i) n += method_entry(a, i);
    o.v(n);
    for (std::uint32_t i = 0; i < a.m_len; ++i) {
        if (!method_entry(a, i)) continue;
        const std::uint64_t* m = a.m + static_cast<std::size_t>(i) * kAggM;
        o.v(i);
        o.v(m[0]);
        o.v(m[1]);
        o.z(static_cast<std::int64_t>(m[2]));
        for (int k = 3; k < kAggM; ++k) o.v(m[k]);
    }
    n = 0;
    for (std::uint32_t i = 0; i < a.cap; ++i) n += edge_entry(a.e[i]);
    o.v(n);
    for (std::uint32_t i = 0; i < a.cap; ++i) {
        const AggEdge& x = a.e[i];
        if (!edge_entry(x)) continue;
        o.v(x.s);
        o.v(x.so);
        o.v(x.r - 1);
        o.v(x.o);
        o.v(x.calls);
        o.v(x.agg);
        o.z(x.net);
        o.v(x.size);
    }
    o.v(a.folded);
    o.v(a.dropped);
    o.flush();
    write_objects_locked(G, tid, a.objs);
}

// The F record of thread `tid` (annotator/trace/FORMAT.md): per (method, oid), the measured calls
// and their net minor faults. Entries naming a method without an M record are left out.
inline void write_faults_locked(Global& G, std::uint64_t tid, const FaultTable* f) {
    if (!f || f->sums.empty() || !writable_locked(G)) return;
    std::uint64_t n = 0;
    for (const auto& e : f->sums) n += defined(e.first.first);
    if (!n) return;
    RecOut o(G);
    o.b[o.n++] = 'F';
    o.v(tid);
    o.v(n);
    for (const auto& e : f->sums) {
        if (!defined(e.first.first)) continue;
        o.v(e.first.first);
        o.v(e.first.second);
        o.v(e.second.calls);
        o.v(e.second.faults);
    }
    o.flush();
}

// A creation whose class and size may still be rewritten by a derived part's tag.
// A Crt its derived parts will rewrite (SubTag) or merge (JoinTag) must still be in the buffer
// when they are constructed: it goes in only with a quarter of the buffer free behind it
// (about 1,800 events), so where the flush falls — which depends on the varint widths of
// time deltas — never decides whether an object is credited to its most-derived class.
enum : std::uint32_t { kPatchRoom = kBufCap / 4 };

inline void crt_patchable(std::uint32_t cls, std::uint64_t oid, std::uint64_t size) {
    ThreadState& ts = tls();
    std::uint32_t len = 0, count = 0;
    ThreadBuf* buf = reserve(ts, len, count, kPatchRoom);
    if (!buf) return ev_slow(kCrt, cls, oid, size, true, ts);
    std::uint8_t* p = buf->data + len;
    std::size_t n = 0;
    p[n++] = kCrt;
    put_v5(p + n, cls);
    n += 5;
    n += put_v(p + n, oid);
    std::uint32_t size_pos = len + static_cast<std::uint32_t>(n);
    put_v5(p + n, size);
    n += 5;
    Pending& e = ts.pending[ts.pending_next++ % kPending];
    e.oid = oid;
    e.buf = buf;
    e.gen = buf->gen;
    e.pos = len + 1;
    e.size_pos = size_pos;
    e.idx = count;
    e.prev = buf->last;
    commit(buf, len, count, n, now_ns());
}

// A patch of an event that already left the buffer: the `n` bytes at offset `pos` of the
// events buffer `b` flushed as generation `gen` are rewritten in the file (same width), so the
// trace reads exactly as if the patch had come in time, wherever the flush fell. False when
// that block's place is unknown (more than kFlushedKept flushes ago, not written, another
// process's file after a fork, a failed write, no POSIX) or, `cls` given (not ~0u), when the
// class's C record comes after that block (a reader must meet it first).
REVY_COLD bool patch_flushed(const ThreadBuf* b, std::uint64_t gen, std::uint32_t pos,
                             const std::uint8_t* p, std::size_t n, std::uint32_t cls) {
#if REVY_POSIX
    ErrnoKeep keep;
    Global& G = g();
    G.lock.lock();
    std::size_t k = static_cast<std::size_t>(gen % kFlushedKept);
    std::uint64_t at = b->flushed_gen[k] == gen ? b->flushed_at[k] : 0;
    bool ok = at && writable_locked(G) && !G.out.failed;
    if (ok && cls != ~0u) {
        define_class_locked(G, cls);
        ok = cls <= config::class_count && Statics<>::class_at[cls] < at;
    }
    if (ok) {
        ssize_t w;
        do w = ::pwrite(G.out.fd, p, n, static_cast<off_t>(at + pos));
        while (w < 0 && errno == EINTR);
        ok = w == static_cast<ssize_t>(n);
    }
    G.lock.unlock();
    return ok;
#else
    (void)b, (void)gen, (void)pos, (void)p, (void)n, (void)cls;
    return false;
#endif
}

// The derived part of object `oid` is complete: its Crt now names `cls` with `size`.
// Returns false when that could not be written (the Crt then keeps the earlier class).
inline Pending* pending_of(ThreadState& ts, std::uint64_t oid);
inline bool crt_upgrade_flushed(const Pending& e, std::uint32_t cls, std::uint64_t size) {
    std::uint8_t p[5 + 10 + 5];
    put_v5(p, cls);
    std::size_t n = 5 + put_v(p + 5, e.oid);
    if (e.pos + n != e.size_pos) return false;  // not the layout crt_patchable wrote
    put_v5(p + n, size);
    return patch_flushed(e.buf, e.gen, e.pos, p, n + 5, cls);
}
inline bool crt_upgrade(std::uint32_t cls, std::uint64_t oid, std::uint64_t size, bool final) {
    ThreadState& ts = tls();
    if (Pending* p = pending_of(ts, oid)) {  // the newest first: the object just made
        Pending& e = *p;
        bool ok = e.buf == ts.buf && e.gen == e.buf->gen;
        if (ok) {
            define_class(cls);  // the C record precedes the block holding the event
            put_v5(e.buf->data + e.pos, cls);
            put_v5(e.buf->data + e.size_pos, size);
        } else if (e.buf == ts.buf && crt_upgrade_flushed(e, cls, size)) {
            ok = true;  // flushed since: rewritten in the file (and patchable there again)
        }
        if (final || !ok) e.buf = nullptr;
        return ok;
    }
    return false;
}

// ---- merging two parts of one object (multiple and virtual inheritance) ---------------------

inline std::size_t get_v(const std::uint8_t* p, std::uint64_t& v) {
    std::size_t n = 0;
    unsigned shift = 0;
    v = 0;
    for (;;) {
        std::uint8_t b = p[n++];
        if (shift < 64) v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80)) return n;
    }
}
// `v` in exactly `w` bytes (a padded varint, read back as the same value): rewrites in place.
inline void put_vw(std::uint8_t* p, std::uint64_t v, std::size_t w) {
    for (std::size_t i = 0; i + 1 < w; ++i) {
        p[i] = static_cast<std::uint8_t>((v & 0x7f) | 0x80);
        v >>= 7;
    }
    p[w - 1] = static_cast<std::uint8_t>(v & 0x7f);
}
inline std::int64_t unzig(std::uint64_t z) {
    return static_cast<std::int64_t>(z >> 1) ^ -static_cast<std::int64_t>(z & 1);
}

// Where an encoded event keeps its oid (always the second field) and its time delta (last).
struct EvLayout {
    std::uint32_t oid_at, oid_w, delta_at, len;
    std::uint64_t oid;
};
inline EvLayout ev_layout(const std::uint8_t* p) {
    EvLayout e;
    std::uint64_t v;
    std::size_t n = 1;
    if (p[0] == kEndBare) {  // a bare end: its time delta only (no oid: none matches)
        e.oid_at = e.oid_w = 0;
        e.oid = ~std::uint64_t(0);
        e.delta_at = 1;
        e.len = static_cast<std::uint32_t>(1 + get_v(p + 1, v));
        return e;
    }
    n += get_v(p + n, v);
    e.oid_at = static_cast<std::uint32_t>(n);
    e.oid_w = static_cast<std::uint32_t>(get_v(p + n, e.oid));
    n += e.oid_w;
    if (p[0] == kCrt || p[0] == kStart) n += get_v(p + n, v);
    e.delta_at = static_cast<std::uint32_t>(n);
    n += get_v(p + n, v);
    e.len = static_cast<std::uint32_t>(n);
    return e;
}

inline Pending* pending_of(ThreadState& ts, std::uint64_t oid) {
    for (unsigned k = 1; k <= kPending; ++k) {
        Pending& e = ts.pending[(ts.pending_next - k) % kPending];
        if (e.buf && e.oid == oid) return &e;
    }
    return nullptr;
}
inline bool in_buffer(const ThreadState& ts, const Pending* e) {
    return e && e->buf == ts.buf && e->gen == e->buf->gen;
}

// Removes the event at `drop` (its delta goes to the next one); returns the new length and
// moves the pending records behind it.
inline std::uint32_t drop_event(ThreadState& ts, ThreadBuf* b, std::uint32_t drop, std::uint32_t len) {
    std::uint8_t* d = b->data;
    EvLayout ev = ev_layout(d + drop);
    std::uint64_t z;
    get_v(d + drop + ev.delta_at, z);
    std::int64_t dd = unzig(z);
    std::uint32_t next = drop + ev.len, next_end = next, grown = 0, out = drop;
    if (next < len) {
        EvLayout nx = ev_layout(d + next);
        get_v(d + next + nx.delta_at, z);
        std::uint8_t tmp[kMaxEvent + 16];
        std::memcpy(tmp, d + next, nx.delta_at);
        std::size_t tn = nx.delta_at + put_z(tmp + nx.delta_at, unzig(z) + dd);
        next_end = next + nx.len;
        std::memcpy(d + drop, tmp, tn);  // tn <= ev.len + nx.len: a Crt is >= 13 bytes
        out = drop + static_cast<std::uint32_t>(tn);
        std::memmove(d + out, d + next_end, len - next_end);
        grown = static_cast<std::uint32_t>(tn) - nx.len;
    } else {
        b->last -= static_cast<std::uint64_t>(dd);  // the last event is now the one before
    }
    std::uint32_t cut = ev.len;
    struct Move {
        std::uint32_t drop, next_end, cut, grown;
        std::uint32_t operator()(std::uint32_t p) const {
            return p < drop ? p : p < next_end ? p - cut : p - cut + grown;
        }
    } moved = {drop, next_end, cut, grown};
    for (unsigned i = 0; i < kPending; ++i) {
        Pending& e = ts.pending[i];
        if (!in_buffer(ts, &e) || e.pos < drop) continue;
        e.pos = moved(e.pos);
        e.size_pos = moved(e.size_pos);
        e.idx--;
    }
    for (unsigned i = 0; i < ts.ctor_top && i < kCtorPending; ++i) {
        CtorPending& c = ts.ctor[i];
        if (c.buf == b && c.gen == b->gen && c.pos > drop) c.pos = moved(c.pos);
    }
    return len - cut + grown;
}

// Object `from` is a part of object `into` (a derived class's JoinTag found both among its
// bases): `from`'s Crt leaves this thread's buffer and every event logged since `into`'s Crt
// names `into` instead of `from`. Both Crts must still be in the buffer (else false: the parts
// keep their IDs). Only shrinks the buffer; a flusher at exit sees the events before `into`'s
// Crt while this runs.
inline bool crt_merge(std::uint64_t from, std::uint64_t into) {
    ThreadState& ts = tls();
    Pending* ef = pending_of(ts, from);
    Pending* ei = pending_of(ts, into);
    if (!in_buffer(ts, ef) || !in_buffer(ts, ei) || ei->pos >= ef->pos) return false;
    ThreadBuf* b = ts.buf;
    std::uint64_t st = b->state.load(std::memory_order_relaxed);
    std::uint32_t len = static_cast<std::uint32_t>(st & 0xffffffffu);
    std::uint32_t count = static_cast<std::uint32_t>(st >> 32);
    std::uint32_t scan = ei->pos - 1, drop = ef->pos - 1;
    if (ef->idx + 1 == count) {
        // `from`'s Crt is the last event (the common case: the parts were made one after the
        // other), so no event names `from` but it: it is cut off, nothing is rewritten
        ef->buf = nullptr;
        b->last = ef->prev;
        b->state.store((static_cast<std::uint64_t>(count - 1) << 32) | drop,
                       std::memory_order_release);
        return true;
    }
    b->state.store((static_cast<std::uint64_t>(ei->idx) << 32) | scan, std::memory_order_release);
    for (std::uint32_t p = scan; p < len;) {
        EvLayout e = ev_layout(b->data + p);
        if (e.oid == from) put_vw(b->data + p + e.oid_at, into, e.oid_w);  // into < from
        p += e.len;
    }
    ef->buf = nullptr;
    len = drop_event(ts, b, drop, len);
    b->state.store((static_cast<std::uint64_t>(count - 1) << 32) | len, std::memory_order_release);
    return true;
}

// ---- constructors: start before the initialisers ------------------------------------------

inline void ctor_pending(ThreadState& ts, std::uint32_t mid, const volatile void* self,
                         std::uint32_t d) {
    CtorPending& c = ts.ctor[ts.ctor_top++];
    c.self = self;
    c.mid = mid;
    c.frame = d;
    c.buf = nullptr;
}

inline void ctor_start_slow(std::uint32_t mid, std::uint64_t size, const volatile void* self) {
    ThreadState& ts = tls();
    if (ts.ctor_top >= kCtorPending) return;  // too deep: the body's CtorScope logs the start
    // a throttled constructor's call is estimated, as other methods' are
    if (config::throttle_calls && start_estimated(ts, mid, 0, size))
        return ctor_pending(ts, mid, self, ts.depth - 1);
    std::uint64_t t = now_ns();
    std::uint32_t d = ts.depth;
    if (d == ts.cap && !grow_frames(ts)) return;  // the body's CtorScope logs it plainly
    bool rec = push_frame(ts, d, mid, 0, size, t);  // its ID is bound by `ctor_bind`
    CtorPending& c = ts.ctor[ts.ctor_top++];
    c.self = self;
    c.mid = mid;
    c.frame = d;
    c.buf = nullptr;
    if (!rec) return;
    std::uint32_t len = 0, count = 0;
    ThreadBuf* buf = reserve(ts, len, count);
    define_method(mid);
    if (!buf) return ev_slow(kStart, mid, 0, size, true, ts);  // oid 0: not bindable
    std::uint8_t* p = buf->data + len;
    std::size_t n = 0;
    p[n++] = kStart;
    n += put_v(p + n, mid);
    c.pos = len + static_cast<std::uint32_t>(n);
    c.buf = buf;
    c.gen = buf->gen;
    put_v5(p + n, 0);
    n += 5;
    n += put_v(p + n, size);
    commit(buf, len, count, n, t);
}

// Frame `d` is a constructor still before its body (no ID yet): keeps the edge of its
// unrecorded callee until `ctor_bind` (only for the thread's own table; the exit flush's
// table of open calls is not). Past kCtorEdges receivers the sender folds into its class.
inline bool ctor_stash(const ThreadState& cts, const AggTable& a, std::uint32_t d, std::uint32_t r,
                       std::uint64_t o, std::uint64_t calls, std::uint64_t agg, std::int64_t net,
                       std::uint64_t size) {
    if (!cts.buf || cts.buf->agg != &a) return false;
    ThreadState& ts = const_cast<ThreadState&>(cts);  // the caller's own (its table is)
    unsigned i = ts.ctor_top;
    while (i-- > 0 && (ts.ctor[i].frame != d || ts.ctor[i].mid != ts.frames[d].mid)) {
    }
    if (i >= ts.ctor_top) return false;
    unsigned k = 0;
    while (k < ts.ctor_edges && (ts.ctor_edge[k].pending != i || ts.ctor_edge[k].r != r ||
                                 ts.ctor_edge[k].o != o))
        ++k;
    if (k == kCtorEdges) {
        agg_edge_add(const_cast<AggTable&>(a), ts.frames[d].mid + 1, kFolded, r, o, calls, agg,
                     net, size);
        return true;
    }
    CtorEdge& e = ts.ctor_edge[k];
    if (k == ts.ctor_edges) {
        e = CtorEdge{o, 0, 0, 0, 0, r, i};
        ++ts.ctor_edges;
    }
    e.calls += calls;
    e.agg += agg;
    e.net += net;
    e.size += size;
    return true;
}

// Constructor `i`'s ID is known: its initialisers' stashed edges go to the table (those of
// constructors above it, left by an exception, are dropped with them).
inline void ctor_unstash(ThreadState& ts, unsigned i, std::uint64_t oid) {
    AggTable* a = ts.ctor_edges ? agg_of(ts) : nullptr;
    unsigned kept = 0;
    for (unsigned k = 0; k < ts.ctor_edges; ++k) {
        const CtorEdge& e = ts.ctor_edge[k];
        if (e.pending < i) ts.ctor_edge[kept++] = e;
        else if (e.pending == i && a)
            agg_edge_add(*a, ts.ctor[i].mid + 1, oid, e.r, e.o, e.calls, e.agg, e.net, e.size);
    }
    ts.ctor_edges = kept;
}

// The body of constructor `mid` of `self` begins: fills in the ID of the start logged before
// its initialisers. False when there is none (the caller logs the start now); `oid` becomes 0
// when that start already left the buffer with its placeholder (the end then matches it).
inline bool ctor_bind(std::uint32_t mid, const volatile void* self, std::uint64_t& oid) {
    ThreadState& ts = tls();
    for (unsigned i = ts.ctor_top; i-- > 0;) {
        CtorPending& c = ts.ctor[i];
        if (c.self != self || c.mid != mid) continue;
        if (c.buf && c.buf == ts.buf && c.gen == c.buf->gen) {
            put_v5(c.buf->data + c.pos, oid);
        } else if (c.buf) {  // flushed since: the placeholder is filled in in the file
            std::uint8_t v[5];
            put_v5(v, oid);
            if (c.buf != ts.buf || !patch_flushed(c.buf, c.gen, c.pos, v, 5, ~0u)) oid = 0;
        }
        // the shadow stack's call takes the same ID, so the end finds it
        if (c.frame < ts.depth && ts.frames[c.frame].mid == mid) {
            // (a counted one's end finds its edge by that ID: end_counted)
            ts.frames[c.frame].oid = oid;
        }
        ctor_unstash(ts, i, oid);
        ts.ctor_top = i;  // also forgets starts above it left by an exception
        return true;
    }
    return false;
}

}  // namespace detail

// ---- the entry points the header's API calls ------------------------------------------------

namespace detail {

// `commit` for the fast paths: the event's `n` bytes at `len` (from state `st`) get their time
// delta and are published (the state is (count << 32) | length: one add).
REVY_HOT void commit_fast(ThreadBuf* b, std::uint64_t st, std::size_t n, std::uint64_t t) {
    const std::uint32_t len = static_cast<std::uint32_t>(st & 0xffffffffu);
    if (__builtin_expect((st >> 32) == 0, 0)) b->base = b->last = t;
    n += put_z(b->data + len + n, static_cast<std::int64_t>(t - b->last));
    b->last = t;
    b->state.store(st + (std::uint64_t(1) << 32) + n, std::memory_order_release);
}

// A recorded call's start and end, the common case inline in the entry points, with no call
// (so they save no registers): the thread's stack and buffer have room, the trace records,
// the caller is recorded, the method is defined, not throttled and not measured for faults.
// Anything else returns false before the clock is read, and `start`/`end` do it all.
REVY_HOT bool start_recorded(ThreadState& ts, std::uint32_t mid, std::uint64_t oid,
                             std::uint64_t size) {
    const std::uint32_t d = ts.depth;
    ThreadBuf* b = ts.buf;
    if (d == ts.cap || !b || mid > config::method_count || !fast_clock() || !recording() ||
        (d && ts.frames[d - 1].rec != kRecorded) ||
        !Statics<>::method_defined[mid].load(std::memory_order_acquire) ||
        (config::throttle_calls && (is_throttled(mid) || estimate_of(mid))) || fault_measured(mid))
        return false;
    const std::uint64_t st = b->state.load(std::memory_order_relaxed);
    const std::uint32_t len = static_cast<std::uint32_t>(st & 0xffffffffu);
    if (len + kMaxEvent > kBufCap) return false;
    // the frame first, its time last: fewer values live across the clock read
    Frame& f = ts.frames[d];
    ts.depth = d + 1;
    f.oid = oid;
    f.child = 0;
    f.hidden = 0;
    f.size = size;
    f.mid = mid;
    f.rec = kRecorded;
    const std::uint64_t t = fast_now_ns();
    f.t = t;
    std::uint8_t* p = b->data + len;
    std::size_t n = 0;
    p[n++] = kStart;
    n += put_v(p + n, mid);
    n += put_v(p + n, oid);
    n += put_v(p + n, size);
    commit_fast(b, st, n, t);
    return true;
}
REVY_HOT bool end_recorded(ThreadState& ts, std::uint32_t mid, std::uint64_t oid) {
    const std::uint32_t d = ts.depth;
    ThreadBuf* b = ts.buf;
    if (!d || !b) return false;
    Frame& f = ts.frames[d - 1];
    if (f.mid != mid || f.oid != oid || f.rec != kRecorded || f.hidden ||
        mid > config::method_count || fault_measured(mid) || !fast_clock())
        return false;
    const std::uint64_t st = b->state.load(std::memory_order_relaxed);
    const std::uint32_t len = static_cast<std::uint32_t>(st & 0xffffffffu);
    if (len + kMaxEvent > kBufCap) return false;
    const std::uint64_t t = fast_now_ns();
    const std::uint64_t agg = t > f.t ? t - f.t : 0;
    // a long call: `end` (its own clock read, a few ns later) lets fault_leave measure it
    if (agg >= kFaultLongNs) return false;
    ts.depth = d - 1;
    if (d > 1) ts.frames[d - 2].child += agg;
    b->data[len] = kEndBare;
    commit_fast(b, st, 1, t);
    if (config::throttle_calls) count_call(ts, mid, agg, t);
    return true;
}

// A throttled method's call, counted (see "throttled calls"): inline, with nothing else in the
// entry point, so it saves no registers; the rest is a call away.
REVY_COLD void start_slow(std::uint32_t mid, std::uint64_t oid, std::uint64_t size) {
    if (!on()) return;
    start(mid, oid, size);
}
REVY_COLD void end_slow(std::uint32_t mid, std::uint64_t oid) {
    if (!on()) return;
    end(mid, oid);
}
inline void e_start(std::uint32_t mid, std::uint64_t oid, std::uint64_t size) noexcept {
    ThreadState* ts;
    if (hot().status.load(std::memory_order_acquire) == kOn && (ts = tls_if()) != nullptr &&
        ((config::throttle_calls && REVY_TEST_COUNTED() && push_counted(*ts, mid, oid, size) != 0) ||
         start_recorded(*ts, mid, oid, size)))
        return;
    start_slow(mid, oid, size);
}
inline void e_end(std::uint32_t mid, std::uint64_t oid) noexcept {
    // (an estimated frame on the stack means the runtime is on)
    ThreadState* ts;
    if (config::throttle_calls && REVY_TEST_COUNTED() && (ts = tls_if()) != nullptr &&
        end_counted(*ts, mid, oid, ts->depth))
        return;
    if (hot().status.load(std::memory_order_acquire) == kOn && (ts = tls_if()) != nullptr &&
        end_recorded(*ts, mid, oid))
        return;
    end_slow(mid, oid);
}
// The program's inline counted path (revy_runtime.hpp, `inline_start`) asks once per thread.
inline HotThread* e_attach(HotThread** slot) noexcept {
#if defined(REVY_RUNTIME_BUILDING_LIB) && REVY_POSIX
    if (!on()) return no_state();
    ThreadState& ts = tls();
    if (ts.dead) return no_state();
    ts.slot = slot;
    return &ts;
#else
    (void)slot;
    return nullptr;
#endif
}
inline void e_log_crt(std::uint32_t cls, std::uint64_t oid, std::uint64_t size) noexcept {
    if (!on()) return;
    if (!recording()) return obj_count(cls, oid, size, true);
    if (obj_throttled_crt(cls, oid, size)) return;
    define_class(cls);
    ev4(tls(), kCrt, cls, oid, size, true, now_ns());
}
inline void e_log_dst(std::uint32_t cls, std::uint64_t oid) noexcept {
    if (!on()) return;
    if (!recording() || (config::throttle_calls && cls <= config::class_count &&
                         obj_counted(cls, oid)))
        return obj_count(cls, oid, 0, false);
    define_class(cls);
    ev4(tls(), kDst, cls, oid, 0, false, now_ns());
}
// A `[[remote]]` key's hash in the running call of `mid`: kind 6 of the compact form (method
// id, hash, time), laid out as a destruction.
inline void e_log_key(std::uint32_t mid, std::uint64_t hash) noexcept {
    enum { kKey = 6 };
    if (!on() || !recording()) return;
    ev4(tls(), kKey, mid, hash, 0, false, now_ns());
}
// Object IDs. In the library each thread takes them from a block of its own (one atomic
// add per kOidBlock objects: the add per object was 40 % of a creation's cost in yaml-cpp's
// suite), so one thread's IDs are consecutive as before, and an ID at or past a table's
// `full_oid` (the shared counter when it filled) still names an object made after that.
#if defined(REVY_RUNTIME_BUILDING_LIB) && REVY_POSIX
enum : std::uint64_t { kOidBlock = 64 };
REVY_COLD std::uint64_t oid_refill(TlsSlot& b) {
    b.oid_next = hot().next_oid.fetch_add(kOidBlock, std::memory_order_relaxed);
    b.oid_end = b.oid_next + kOidBlock;
    return b.oid_next++;
}
inline std::uint64_t e_new_oid() noexcept {
    TlsSlot& b = tls_slot();
    if (__builtin_expect(b.oid_next != b.oid_end, 1)) return b.oid_next++;
    return oid_refill(b);
}
#else
inline std::uint64_t e_new_oid() noexcept {
    return hot().next_oid.fetch_add(1, std::memory_order_relaxed);
}
#endif

inline std::uint64_t e_tag_new(std::uint32_t cls, std::uint64_t size, bool patchable) noexcept {
    std::uint64_t oid = e_new_oid();
    if (!on()) return oid;
    if (!recording()) {
        obj_count(cls, oid, size, true);
        return oid;
    }
    if (!patchable && obj_throttled_crt(cls, oid, size)) return oid;
    define_class(cls);
    if (patchable) crt_patchable(cls, oid, size);
    else ev4(tls(), kCrt, cls, oid, size, true, now_ns());
    return oid;
}

// A derived part's SubTag: the object's Crt now names `cls` (or its count moves to it).
inline void e_subtag_upgrade(TagCore* c, std::uint32_t cls, std::uint64_t size,
                             bool final) noexcept {
    if (on() && !recording()) obj_rename(c->oid, cls, size);
    if (!on() || !recording() || crt_upgrade(cls, c->oid, size, final)) c->cls = cls;
}

inline bool seen_oid(const std::uint64_t* ids, unsigned n, std::uint64_t oid) {
    for (unsigned i = 0; i < n; ++i)
        if (ids[i] == oid) return true;
    return false;
}

// One ID for all the parts `t` of an object: the first-constructed part's (smallest oid; it is
// destroyed last, so it logs the Dst, see ~JoinTag); the others' Crts are taken back. Returns
// that part (null when there are no parts: `me` gets an ID of its own).
inline TagCore* e_unite(TagCore* const* t, unsigned n, TagCore* me, std::uint32_t cls,
                        std::uint64_t size, bool final) noexcept {
    if (n == 0) {
        me->oid = e_tag_new(cls, size, !final);
        me->cls = cls;
        return nullptr;
    }
    unsigned c = 0;
    for (unsigned i = 1; i < n; ++i)
        if (t[i]->oid < t[c]->oid) c = i;
    std::uint64_t id = t[c]->oid;
    bool is_on = on();
    // The class its Crt names now (kept when that Crt already left the buffer).
    std::uint32_t now = 0;
    for (unsigned i = 0; i < n && !now; ++i)
        if (t[i]->oid == id) now = t[i]->cls;
    // Several tags may hold one ID already (a joined base's parts): merge it once.
    std::uint64_t done[kJoinMax], apart[kJoinMax];
    unsigned nd = 0, na = 0;
    for (unsigned i = 0; i < n; ++i) {
        TagCore& p = *t[i];
        if (p.oid != id && is_on && !seen_oid(done, nd, p.oid)) {
            if (seen_oid(apart, na, p.oid) || !crt_merge(p.oid, id)) {
                apart[na++] = p.oid;
                continue;  // its Crt already left the buffer: that part keeps its ID
            }
            done[nd++] = p.oid;
        }
        p.oid = id;
        p.cls = 0;
    }
    me->oid = id;
    me->cls = !is_on || crt_upgrade(cls, id, size, final) || !now ? cls : now;
    return t[c];
}

inline void e_ctor_start(std::uint32_t mid, std::uint64_t size, const volatile void* self) noexcept {
    if (!on()) return;
    ctor_start_slow(mid, size, self);
}
// The top of a constructor body: binds the start logged before the initialisers to the
// object's ID `*oid`, or logs the start now when there was none.
inline void e_ctor_scope(std::uint32_t mid, const volatile void* self, std::uint64_t* oid) noexcept {
    std::uint64_t o = *oid;
    if (on() && !ctor_bind(mid, self, *oid)) e_start(mid, o, 0);
}

// Non-intrusive object IDs: a map keyed by address.
inline std::uint64_t e_nid(const volatile void* self, std::uint32_t cls, std::uint64_t size) noexcept {
    Global& G = g();
    const void* key = const_cast<const void*>(self);
    std::uint64_t oid;
    {
        std::lock_guard<std::mutex> l(G.nid_mutex);
        if (const std::uint64_t* v = G.nids.find(key)) return *v;
        oid = e_new_oid();
        G.nids.put(key, oid);
    }
    e_log_crt(cls, oid, size);
    return oid;
}
inline std::uint64_t e_nid_new(const volatile void* self, std::uint32_t cls,
                               std::uint64_t size) noexcept {
    Global& G = g();
    const void* key = const_cast<const void*>(self);
    std::uint64_t oid = e_new_oid();
    {
        std::lock_guard<std::mutex> l(G.nid_mutex);
        G.nids.put(key, oid);
    }
    e_log_crt(cls, oid, size);
    return oid;
}
inline void e_nid_end(const void* self, std::uint32_t cls, std::uint64_t oid) noexcept {
    Global& G = g();
    {
        std::lock_guard<std::mutex> l(G.nid_mutex);
        G.nids.erase(self, oid);
    }
    e_log_dst(cls, oid);
}

}  // namespace detail
}  // namespace _revy_rt

#if defined(REVY_RUNTIME_BUILDING_LIB)
// The shared library's one exported symbol: the entry points, checked by the header's loader.
extern "C" __attribute__((visibility("default"))) const ::_revy_rt::detail::Api* revy_runtime_api_1() {
    using namespace ::_revy_rt::detail;
    static const Api api = {kApiVersion,  sizeof(Api), ::_revy_rt::config::stamp(),  e_start,
                            e_end,        e_log_crt,   e_log_dst,        e_new_oid,
                            e_tag_new,    e_subtag_upgrade, e_unite,     e_ctor_start,
                            e_ctor_scope, e_nid,       e_nid_new,        e_nid_end,
                            e_attach,     e_log_key};
    return &api;
}
#endif

#if defined(REVY_PUSHED_OPTIMIZE)
#pragma GCC pop_options
#undef REVY_PUSHED_OPTIMIZE
#endif
#undef REVY_HOT

#endif  // REVY_RUNTIME_IMPL_HPP_INCLUDED
