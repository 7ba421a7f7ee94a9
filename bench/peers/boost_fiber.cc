// locklab-peer-boost: Boost.Fiber and Boost.Context measured the way
// locklab-bench measures the lightweight-thread runtime (docs/threads.md,
// "Peers"; bench/threads.sh runs it side by side with them).
//
//   locklab-peer-boost WORKLOAD [--threads 1] [--duration S] [--runs R] [--round N]
//
//   null-thread    one chain of fibers, each joining its predecessor, counting
//                  itself and creating the next (bench/wl_threads.c's chain with
//                  join=1): create, run, exit, join.  A warm-up round of
//                  min(round, 20000) fibers, then rounds of `round` (default
//                  100000) for the duration.  ns_per_thread = wall time / fibers.
//   thread-switch  two fibers yield to each other (Boost.Fiber's round-robin
//                  scheduler): ns_per_switch = wall time / yields; and
//                  raw_switch_ns: Boost.Context's switch alone (a
//                  boost::context::fiber resumed in a ping-pong), measured for a
//                  tenth of the duration first.
//
// One thread (Boost.Fiber's default scheduler): --threads must be 1.  Stacks
// are Boost.Fiber's default (fixedsize_stack), as a program would get them.
// Output: one JSON object per run, one line each, with locklab-bench's keys
// (workload, lock, alternative, threads, duration_s, ops, throughput_ops_s,
// exclusion_ok, the extras) and run, runs.  Bad input: one line, exit 2.
#include <boost/context/fiber.hpp>
#include <boost/fiber/all.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

namespace bc = boost::context;
namespace bf = boost::fibers;

static uint64_t now_ns()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

[[noreturn]] static void bad(const std::string &what)
{
    std::fprintf(stderr, "locklab-peer-boost: %s\n", what.c_str());
    std::exit(2);
}

// ---- null-thread ----

struct chain {
    uint64_t left = 0, ran = 0;
    bf::fiber older;  // the running fiber's predecessor, then (moved in at its start) its own
    bf::fiber newest; // the fiber just created (its own object, when it starts)
    bf::mutex m;
    bf::condition_variable cv;
    bool done = false;
};

static void cycle(chain *c)
{
    bf::fiber prev = std::move(c->older);
    if (prev.joinable())
        prev.join();               // join the predecessor (the chain's head has none)
    c->older = std::move(c->newest); // this fiber's own object: the successor joins it
    c->ran++;
    if (--c->left == 0) {
        std::unique_lock<bf::mutex> lk(c->m);
        c->done = true;
        c->cv.notify_one();
        return;
    }
    c->newest = bf::fiber(bf::launch::post, cycle, c); // runs after this fiber yields or ends
}

static void round_of(chain &c, uint64_t n)
{
    c.left = n;
    c.done = false;
    c.newest = bf::fiber(bf::launch::post, cycle, &c);
    {
        std::unique_lock<bf::mutex> lk(c.m);
        c.cv.wait(lk, [&c] { return c.done; });
    }
    c.older.join(); // the chain's last fiber
}

static void null_thread(double duration, uint64_t round, int run, int runs)
{
    chain c;
    round_of(c, round < 20000 ? round : 20000); // warm start
    c.ran = 0;
    uint64_t threads = 0, t0 = now_ns(), deadline = t0 + uint64_t(duration * 1e9), now;
    do {
        round_of(c, round);
        threads += round;
    } while ((now = now_ns()) < deadline);
    double wall = double(now - t0);
    std::printf("{\"workload\":\"null-thread\",\"lock\":\"none\",\"alternative\":\"boost-fiber\",\"threads\":1,"
                "\"duration_s\":%.6f,\"ops\":%llu,\"throughput_ops_s\":%.1f,\"exclusion_ok\":%s,"
                "\"ns_per_thread\":%.3f,\"chains\":1,\"run\":%d,\"runs\":%d}\n",
                wall / 1e9, (unsigned long long)threads, threads / (wall / 1e9), c.ran == threads ? "true" : "false",
                wall / double(threads), run, runs);
}

// ---- thread-switch ----

static double context_switch_ns(double seconds)
{
    enum { BATCH = 4096 };
    bool stop = false;
    bc::fiber other{[&stop](bc::fiber &&back) {
        while (!stop)
            back = std::move(back).resume();
        return std::move(back);
    }};
    uint64_t n = 0, t0 = now_ns(), end = t0 + uint64_t(seconds * 1e9), t;
    do {
        for (int i = 0; i < BATCH; i++)
            other = std::move(other).resume();
        n += BATCH;
    } while ((t = now_ns()) < end);
    stop = true;
    other = std::move(other).resume(); // it returns: finished
    return double(t - t0) / (2.0 * double(n)); // two switches per round trip
}

static void thread_switch(double duration, int run, int runs)
{
    double raw = context_switch_ns(duration / 10);
    bool stop = false;
    uint64_t yields[2] = {0, 0};
    uint64_t t0 = now_ns(), deadline = t0 + uint64_t(duration * 1e9);
    auto body = [&stop, &yields, deadline](int i) {
        while (!stop) {
            boost::this_fiber::yield();
            if ((++yields[i] & 1023) == 0 && now_ns() >= deadline)
                stop = true;
        }
    };
    bf::fiber a(body, 0), b(body, 1);
    a.join();
    b.join();
    double wall = double(now_ns() - t0);
    uint64_t sum = yields[0] + yields[1];
    std::printf("{\"workload\":\"thread-switch\",\"lock\":\"none\",\"alternative\":\"boost-fiber\",\"threads\":1,"
                "\"duration_s\":%.6f,\"ops\":%llu,\"throughput_ops_s\":%.1f,\"exclusion_ok\":true,"
                "\"ns_per_switch\":%.3f,\"raw_switch_ns\":%.3f,\"run\":%d,\"runs\":%d}\n",
                wall / 1e9, (unsigned long long)sum, sum / (wall / 1e9), wall / double(sum ? sum : 1), raw, run, runs);
}

static double number(const char *opt, const char *v, double lo, double hi, bool integer)
{
    char *end;
    double x = v ? std::strtod(v, &end) : 0;
    if (!v || !*v || *end || !(x >= lo && x <= hi) || (integer && x != double((long long)x)))
        bad(std::string("bad value '") + (v ? v : "") + "' for " + opt + " (valid: " +
            (integer ? "an integer" : "a number") + " in " + std::to_string((long long)lo) + ".." +
            std::to_string((long long)hi) + ")");
    return x;
}

int main(int argc, char **argv)
{
    const char *workload = nullptr;
    double duration = 1;
    int runs = 1;
    uint64_t round = 100000;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : nullptr;
        if (!std::strcmp(a, "--threads"))
            number(a, v, 1, 1, true), i++; // one scheduler thread
        else if (!std::strcmp(a, "--duration"))
            duration = number(a, v, 0.001, 3600, false), i++;
        else if (!std::strcmp(a, "--runs"))
            runs = int(number(a, v, 1, 256, true)), i++;
        else if (!std::strcmp(a, "--round"))
            round = uint64_t(number(a, v, 1, 1e9, true)), i++;
        else if (a[0] == '-')
            bad(std::string("unknown option '") + a + "' (valid: --threads, --duration, --runs, --round)");
        else if (!workload)
            workload = a;
        else
            bad(std::string("unexpected argument '") + a + "'");
    }
    if (!workload || (std::strcmp(workload, "null-thread") && std::strcmp(workload, "thread-switch")))
        bad(std::string("unknown workload '") + (workload ? workload : "") + "' (valid: null-thread, thread-switch)");
    for (int r = 1; r <= runs; r++) {
        if (!std::strcmp(workload, "null-thread"))
            null_thread(duration, round, r, runs);
        else
            thread_switch(duration, r, runs);
        std::fflush(stdout);
    }
    return 0;
}
