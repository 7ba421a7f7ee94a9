// A C++17 std::shared_mutex program (a pthread_rwlock_t underneath): T threads each make N
// acquisitions, one in ten exclusive, on one shared_mutex guarding a counter and a copy
// of it; readers check the two agree.  Prints "reads=R writes=W" (its own counts, which
// the interposer's profiler must match: run_tests.sh rwlock) and exits 1 on a mismatch.
//   test_shared_mutex [THREADS [N]]
#include <cstdio>
#include <mutex>
#include <cstdlib>
#include <shared_mutex>
#include <thread>
#include <vector>

int main(int argc, char **argv)
{
    int threads = argc > 1 ? std::atoi(argv[1]) : 4;
    long n = argc > 2 ? std::atol(argv[2]) : 20000;
    std::shared_mutex m;
    long a = 0, b = 0, bad = 0;
    std::vector<long> reads(threads), writes(threads);
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; t++)
        ts.emplace_back([&, t] {
            for (long i = 0; i < n; i++)
                if ((i + t) % 10 == 0) {
                    std::unique_lock<std::shared_mutex> w(m);
                    a++;
                    b = a;
                    writes[t]++;
                } else {
                    std::shared_lock<std::shared_mutex> r(m);
                    if (a != b)
                        __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED);
                    reads[t]++;
                }
        });
    for (auto &t : ts)
        t.join();
    long r = 0, w = 0;
    for (int t = 0; t < threads; t++)
        r += reads[t], w += writes[t];
    std::printf("reads=%ld writes=%ld\n", r, w);
    return bad == 0 && a == w ? 0 : 1;
}
