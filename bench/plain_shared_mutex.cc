/*
 * locklab-plain-shared-mutex: a plain C++17 program (no locklab code) whose lock is a
 * std::shared_mutex (a pthread_rwlock_t underneath in libstdc++), for glibc vs the
 * interposer side by side (bench/performance.py, docs/performance.md).  A cache of KEYS
 * entries in a std::unordered_map behind one std::shared_mutex, the pattern of the caches
 * and indexes that servers put behind such a lock.  T threads loop { with probability
 * READ_PCT %: shared lock, look a random key up, check its value, unlock; else exclusive
 * lock, rewrite a random key's value, unlock; then [0, 200) PRNG steps } for S seconds.
 * Prints one line:
 *   ops_per_s=N reads=R writes=W write_wait_max_ns=X bad=0
 *   locklab-plain-shared-mutex THREADS READ_PCT SECONDS
 * Exit status 1 if a reader saw a value that no writer wrote (a broken lock).
 */
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <unordered_map>
#include <vector>

namespace {

constexpr uint64_t KEYS = 4096; // a value's low 12 bits are its key's: what readers check

std::shared_mutex lock;
std::unordered_map<uint64_t, uint64_t> cache;
std::atomic<bool> stop{false};

struct alignas(64) stats {
    uint64_t reads = 0, writes = 0, wmax = 0, bad = 0;
};

uint64_t now_ns()
{
    return (uint64_t)std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

uint64_t step(uint64_t x)
{
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return x;
}

void body(stats *s, int read_pct, uint64_t seed)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ull | 1;
    while (!stop.load(std::memory_order_relaxed)) {
        x = step(x);
        uint64_t key = (x >> 8) % KEYS;
        if ((int)(x % 100) < read_pct) {
            std::shared_lock<std::shared_mutex> g(lock);
            auto it = cache.find(key);
            s->bad += it == cache.end() || (it->second % KEYS) != key;
            s->reads++;
        } else {
            uint64_t t0 = now_ns();
            std::unique_lock<std::shared_mutex> g(lock);
            uint64_t w = now_ns() - t0;
            s->wmax = w > s->wmax ? w : s->wmax;
            cache[key] += KEYS;
            s->writes++;
        }
        for (uint64_t n = (x >> 20) % 200; n > 0; n--)
            x = step(x);
    }
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: locklab-plain-shared-mutex THREADS READ_PCT SECONDS\n");
        return 2;
    }
    int threads = std::atoi(argv[1]), read_pct = std::atoi(argv[2]);
    double seconds = std::atof(argv[3]);
    if (threads < 1 || threads > 4096 || read_pct < 0 || read_pct > 100 || !(seconds > 0)) {
        std::fprintf(stderr, "locklab-plain-shared-mutex: bad argument '%s %s %s' (valid: THREADS 1..4096, "
                             "READ_PCT 0..100, SECONDS > 0)\n", argv[1], argv[2], argv[3]);
        return 2;
    }
    for (uint64_t k = 0; k < KEYS; k++)
        cache[k] = k;
    std::vector<stats> s((size_t)threads);
    std::vector<std::thread> t;
    uint64_t t0 = now_ns();
    for (int i = 0; i < threads; i++)
        t.emplace_back(body, &s[(size_t)i], read_pct, (uint64_t)i + 1);
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    stop = true;
    stats sum;
    for (int i = 0; i < threads; i++) {
        t[(size_t)i].join();
        sum.reads += s[(size_t)i].reads, sum.writes += s[(size_t)i].writes, sum.bad += s[(size_t)i].bad;
        sum.wmax = s[(size_t)i].wmax > sum.wmax ? s[(size_t)i].wmax : sum.wmax;
    }
    double wall = (double)(now_ns() - t0) / 1e9;
    uint64_t written = 0;
    for (auto &kv : cache)
        written += kv.second / KEYS;
    std::printf("ops_per_s=%.0f reads=%llu writes=%llu write_wait_max_ns=%llu bad=%llu\n",
                (double)(sum.reads + sum.writes) / wall, (unsigned long long)sum.reads,
                (unsigned long long)sum.writes, (unsigned long long)sum.wmax, (unsigned long long)sum.bad);
    return sum.bad || written != sum.writes ? 1 : 0;
}
