/*
 * locklab-throw — TWA paper §4.2: T threads each loop on `try { throw 1; }
 * catch (int) {}` for the interval; reports the aggregate loop count.
 *
 * The paper saw the C++ runtime serialise exception unwinding on mutexes that
 * protect the list of loaded modules and their unwind tables, which makes the
 * program a lock benchmark when run under the interposer:
 *
 *   LOCKLAB_LOCK=mcs-stp LD_PRELOAD=build/lib/liblocklab-preload.so \
 *       build/bin/locklab-throw --threads 4 --duration 2 --json
 *
 * On a system whose unwinder finds unwind tables without a lock (GCC >= 12's
 * libgcc with glibc >= 2.35's _dl_find_object, e.g. Debian 12) no mutex is taken
 * at all; run it with LOCKLAB_PROFILE=- to see which locks (if any) it uses.
 *
 *   locklab-throw [--threads N] [--duration S] [--json]
 */
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

[[noreturn]] void die(const std::string &msg)
{
    std::fprintf(stderr, "locklab-throw: %s\n", msg.c_str());
    std::exit(2);
}

double parse_number(const char *opt, const char *v, double lo, double hi, bool integer, const char *range)
{
    char *end;
    errno = 0;
    double x = std::strtod(v, &end);
    if (!*v || *end || errno || !(x >= lo && x <= hi) || (integer && x != (double)(long long)x))
        die(std::string("bad value '") + v + "' for " + opt + " (valid: " + (integer ? "an integer" : "seconds") +
            " in " + range + ")");
    return x;
}

std::atomic<bool> stop{false};

void thrower(unsigned long long *ops)
{
    unsigned long long n = 0;
    while (!stop.load(std::memory_order_relaxed)) { // relaxed: a stop hint; join orders the result
        try {
            throw 1;
        } catch (int) {
            n++;
        }
    }
    *ops = n;
}

} // namespace

int main(int argc, char **argv)
{
    int threads = 1;
    double duration = 1.0;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--json")
            json = true;
        else if ((a == "--threads" || a == "--duration") && i + 1 < argc) {
            if (a == "--threads")
                threads = (int)parse_number("--threads", argv[++i], 1, 4096, true, "1..4096");
            else
                duration = parse_number("--duration", argv[++i], 0.001, 3600, false, "0.001..3600");
        } else if (a == "--threads" || a == "--duration")
            die("option " + a + " needs a value");
        else
            die("unknown argument '" + a + "' (valid: --threads N, --duration S, --json)");
    }
    std::vector<unsigned long long> ops(threads);
    std::vector<std::thread> pool;
    auto t0 = std::chrono::steady_clock::now();
    for (int t = 0; t < threads; t++)
        pool.emplace_back(thrower, &ops[t]);
    std::this_thread::sleep_for(std::chrono::duration<double>(duration));
    stop.store(true, std::memory_order_relaxed); // relaxed: the joins below order everything
    for (auto &th : pool)
        th.join();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    unsigned long long total = 0;
    for (auto n : ops)
        total += n;
    const char *preload = std::getenv("LD_PRELOAD"), *lock = std::getenv("LOCKLAB_LOCK");
    if (!lock)
        lock = preload && std::strstr(preload, "liblocklab-preload") ? "interposer-default" : "native";
    if (json) {
        std::printf("{\"workload\":\"throw\",\"lock\":\"%s\",\"threads\":%d,\"duration_s\":%.6f,\"ops\":%llu,"
                    "\"throughput_ops_s\":%.1f,\"per_thread_ops\":[",
                    lock, threads, wall, total, total / wall);
        for (int t = 0; t < threads; t++)
            std::printf("%s%llu", t ? "," : "", ops[t]);
        std::printf("]}\n");
    } else {
        std::printf("throw threads=%d duration=%.3fs loops=%llu throughput=%.0f/s (lock: %s)\n", threads, wall, total,
                    total / wall, lock);
    }
    return 0;
}
