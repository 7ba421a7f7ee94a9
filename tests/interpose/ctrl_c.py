"""Ctrl-C reaches a CPython program blocked in threading.Event().wait(): the
main thread sleeps in sem_wait (sem_clockwait with a timeout) and SIGINT, whose
CPython handler has no SA_RESTART, must make it return EINTR so that Python
raises KeyboardInterrupt.  Exit 0 when it does.  Argument: the wait's timeout
in seconds (none: wait forever).  Run by run_tests.sh (case posix)."""
import os, signal, sys, threading, time
timeout = float(sys.argv[1]) if len(sys.argv) > 1 else None
main = threading.main_thread().ident
def interrupt():
    time.sleep(0.3)
    signal.pthread_kill(main, signal.SIGINT)
    time.sleep(10)
    print("still blocked 10 s after SIGINT", file=sys.stderr)
    os._exit(1)
threading.Thread(target=interrupt, daemon=True).start()
try:
    threading.Event().wait(timeout)
    print("not interrupted")
    sys.exit(1)
except KeyboardInterrupt:
    print("KeyboardInterrupt")
