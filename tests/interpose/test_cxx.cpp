// C++ standard mutexes through the interposer: std::mutex (static
// initialiser, never destroyed), std::recursive_mutex, std::timed_mutex
// (try_lock_for timing out and succeeding), under 4 threads;
// std::condition_variable (a ping-pong, notify_all, wait_for timing out).
#include <pthread.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "check.h"

int main()
{
    require_interposed((void *)pthread_mutex_lock);
    std::mutex m;
    long counter = 0;
    std::vector<std::thread> ts;
    for (int t = 0; t < 4; t++)
        ts.emplace_back([&] {
            for (int i = 0; i < 20000; i++) {
                std::lock_guard<std::mutex> g(m);
                counter++;
            }
        });
    for (auto &t : ts)
        t.join();
    CHECK(counter == 80000);

    std::recursive_mutex rm;
    rm.lock();
    rm.lock();
    CHECK(rm.try_lock());
    bool other_got_it = true;
    std::thread([&] { other_got_it = rm.try_lock(); if (other_got_it) rm.unlock(); }).join();
    CHECK(!other_got_it);
    rm.unlock();
    rm.unlock();
    rm.unlock();
    std::thread([&] { other_got_it = rm.try_lock(); if (other_got_it) rm.unlock(); }).join();
    CHECK(other_got_it);

    std::timed_mutex tm;
    tm.lock();
    bool timed_got_it = true;
    std::thread([&] { timed_got_it = tm.try_lock_for(std::chrono::milliseconds(30)); }).join();
    CHECK(!timed_got_it);
    std::thread waiter([&] { timed_got_it = tm.try_lock_for(std::chrono::seconds(10)); if (timed_got_it) tm.unlock(); });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    tm.unlock();
    waiter.join();
    CHECK(timed_got_it);
    CHECK(tm.try_lock_until(std::chrono::steady_clock::now() + std::chrono::milliseconds(5)));
    tm.unlock();

    std::mutex cm;
    std::condition_variable cv;
    int turn = 0;
    const int rounds = 2000;
    std::thread pong([&] {
        for (int i = 0; i < rounds; i++) {
            std::unique_lock<std::mutex> l(cm);
            cv.wait(l, [&] { return turn == 1; });
            turn = 0;
            cv.notify_one();
        }
    });
    for (int i = 0; i < rounds; i++) {
        std::unique_lock<std::mutex> l(cm);
        turn = 1;
        cv.notify_one();
        cv.wait(l, [&] { return turn == 0; });
    }
    pong.join();
    CHECK(turn == 0);

    int released = 0;
    std::vector<std::thread> waiters;
    bool go = false;
    for (int t = 0; t < 6; t++)
        waiters.emplace_back([&] {
            std::unique_lock<std::mutex> l(cm);
            cv.wait(l, [&] { return go; });
            released++;
        });
    {
        std::lock_guard<std::mutex> l(cm);
        go = true;
    }
    cv.notify_all();
    for (auto &t : waiters)
        t.join();
    CHECK(released == 6);
    {
        std::unique_lock<std::mutex> l(cm);
        CHECK(cv.wait_for(l, std::chrono::milliseconds(20)) == std::cv_status::timeout);
    }

    return test_done("test_cxx");
}
