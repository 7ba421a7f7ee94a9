/*
 * standby — the interposer's default: a barging two-word lock with one
 * spinning waiter (the standby), the other waiters parked in an
 * address-hashed table (parkinglot's), a passive set rotated so that every
 * thread gets its turn.  locklab's own design; its parts come from the
 * Malthusian paper's discussion of the Solaris mutex (bounded concurrent
 * spinners, deferred succession, unpark avoidance; Dice, "Malthusian Locks",
 * EuroSys 2017, §5 and App. A), Fissile's impatient standby (Dice & Kogan,
 * NETYS 2020), CNA's socket-local succession (Dice & Kogan, EuroSys 2019) and
 * WebKit's parking table (Pizlo 2016).
 *
 * Why a new lock.  A lock under an unmodified program must win on 2 CPUs and
 * on 288, with 2 threads and with 1000.  Each lock of the registry fails one
 * of those (docs/performance.md, "Many cores"): glibc's and parkinglot's
 * barging waiters all spin on, or sleep for, one word, which many cores turn
 * into a coherence storm and a wake-up per handover; fissile and shfl put a
 * queue behind the word, whose FIFO handover to a preempted or sleeping
 * waiter stalls the lock when threads outnumber CPUs; MCS-based CR locks pay
 * an out-of-line queue node on every uncontended pair.  This lock keeps
 * parkinglot's store release, inline fast path and table (eight bytes a lock,
 * nothing to allocate), and bounds the spinners to one, as Solaris does,
 * unless more measurably run the lock faster (wide waiting, below).
 *
 * Lock words (8 bytes, all zero = free):
 *   locked  0 free, 1 held.  Acquire: CAS 0 -> 1; release: a store of 0.
 *   state   ACT       a release must run release_slow: (PARKED and no SPIN
 *                     nor WAKING) or IMPATIENT; recomputed by every change
 *           SPIN      the standby role is taken: one waiter spins on locked
 *           PARKED    waiters may be parked in the table under this address
 *           IMPATIENT the standby has waited PATIENCE_NS: the next release
 *                     hands it the lock
 *           GRANTED   a release handed the lock to the standby (locked stays 1)
 *           WAKING    a release, or an arrival that parks, woke a parked
 *                     waiter into the standby role
 *           TIRED     a standby gave the role up after BUDGET_NS: arrivals
 *                     leave wake-ups to the releases until release_slow
 *                     next runs (a hint: stale, it only costs a wake-up's
 *                     place)
 *           bits 8-23 the fork generation that set SPIN, WAKING, IMPATIENT:
 *                     in a child of a fork, roles set by threads it does not
 *                     have read as vacant (sb_live)
 *           bits 24-27 HOME: the socket (mod 15, plus 1) of the thread that last
 *                     took the standby role; 0 before any did
 * Transitions (locked, state):
 *   (0,x) -> (1,x)                 any CAS: fast path, arrival, standby
 *   (1,S) -> (0,S)                 release with ACT clear: a store
 *   (x,y) -> (x,y|SPIN|HOME=ours)  an arrival claims the vacant role (sb_claim)
 *   (1,SPIN|x) -> (1,SPIN|IMP|x)   the standby grows impatient
 *   (1,IMP|x) -> (1,GRANTED|x)     release_slow hands over (no store to locked)
 *   (1,GRANTED|SPIN|x) -> (1,x)    the standby takes the handed lock
 *   (1,PARKED) -> (0,PARKED|WAKING) release_slow wakes the eldest parked
 *                                  waiter (socket-local first) into the role
 *   (1,PARKED) -> (1,PARKED)       ... or, once it has waited FAIR_NS and the
 *                                  bucket's fair timer has run out, hands it
 *                                  the lock (HANDOFF; locked stays 1)
 *   (x,PARKED) -> (x,PARKED|WAKING) an arrival that parks wakes the eldest into
 *                                  the vacant role itself (sb_pass_role)
 *   (x,SPIN|IMP|y) -> (x,TIRED|y)  the standby gives the role up after BUDGET_NS
 *                                  (at a timed acquire's deadline: (x,y))
 *   (1,TIRED|x) -> (1,x)           release_slow, unless it hands the lock to an
 *                                  impatient standby
 *   (x,WAKING) -> (x,SPIN|HOME=ours) the woken waiter takes the role (or, if an
 *                                  arrival took it meanwhile, clears WAKING)
 *   (1,x) -> (1,x|PARKED)          a waiter parks (under its bucket's lock;
 *                                  (0,x) too for a thread whose turn is over)
 *   (x,PARKED) -> (x,PARKED|WAKING) a thread whose turn is over (it released the
 *                                  lock, which may now be free), once the eldest
 *                                  has waited TURN_WAIT_NS, parks at the
 *                                  back and wakes the eldest into the vacant
 *                                  role (sb_swap; or wakes it to compete, the
 *                                  word unchanged: role taken, the lock
 *                                  another socket's, or the eldest due the
 *                                  fair handoff)
 *
 * Acquire (slow path, the CAS failed): the standby spins on locked (a try,
 * then PAUSE for PAUSE_NS, then yield between looks) and takes the lock by
 * CAS, or by GRANTED from the first release after PATIENCE_NS; after
 * BUDGET_NS (a critical section longer than that) it gives the role up and
 * parks (a woken standby goes back to its place by first park; the fair
 * handoff below bounds its wait).  Any other waiter: if the role is vacant, claim it; else spin
 * ARRIVAL_ROUNDS short rounds (2, 4, 8 PAUSEs) on locked, then (on a small
 * machine, below) yield, then park.  So at most one waiter per lock spins for
 * long, whatever the thread count (on more than two CPUs, more for up to WIDE_NS
 * where that runs the lock faster: "Wide waiting").
 * Polling: the standby's try is a bare CAS of locked (every 8 PAUSEs, after
 * PAUSE_NS between yields); every other try in this file loads first.  A
 * standby that reads the word keeps its line shared, so after a release it
 * takes the line twice, once to read it and once for its CAS's exclusive
 * copy; a standby whose failed CASes keep the line exclusive takes it once
 * (the release's store takes it from the standby, the standby's next CAS
 * takes it back).  The cost falls on the holder: a poll during its critical
 * section takes the line, and the release's load of state (before its
 * store) then misses.  The standby is one waiter, so that is at most one miss
 * per poll; the arrivals and wide spinners, who may be many, load first.
 * What it buys: docs/performance.md, "Polling" (RandArray 1-8% in every
 * simulated cell; MutexBench 1-4%, but -3% to -4% on the T5).
 * Small machines: where the threads may run on at most YIELD_CPUS (2) CPUs
 * (the affinity mask's; under a cgroup quota they still spread over all the
 * machine's CPUs, where a parked thread idles a CPU nobody needs), an arrival
 * yields before it parks, trying the lock and the role between: up to
 * ARRIVAL_YIELDS (7) yields that came back YIELD_IDLE_NS (20 us) or later (one
 * back sooner found nothing else to run on its CPU, which parking would idle,
 * and counts only as 1/128 of one), for at most BUDGET_NS in all (so the
 * waiter of a lock held long sleeps, as a standby would), and it parks after
 * one more try once a yield came back YIELD_BUSY_NS (0.2 ms) or later: other
 * threads wanted that CPU, so parking idles nothing.  A running thread whose tenure is over
 * (below) spins and yields so too, though it does not claim the role, and a
 * waiter back from the table that must park again competes as an arrival,
 * yields included.  There the restricted active set is a thread or two per
 * CPU, and a parked arrival often leaves its CPU idle or makes the kernel
 * pull a thread over from the other CPU (a migration: its working set comes
 * cold); a yield that comes back at once keeps the thread ready and costs
 * nobody anything.  The idle CPU is not given the standby either: a woken
 * standby is often placed on the holder's CPU, behind it, and the kernel
 * moves it only at its next balancing, about a millisecond later.  The bound
 * keeps the parked waiters' FIFO order: arrivals that yielded on while others
 * ran would take the lock ahead of them (MutexBench's per-thread max/min over
 * 5 s at 256 threads above 2).
 * Real-time threads park (their sched_yield lets no lower priority run), and
 * so do the waiters of ll_standby_acquire_ordered (rw_gate's, whose writers'
 * worst waits the yields lengthen).  On more CPUs arrivals park after their
 * short spin: yielding arrivals are more pollers of the lock's word
 * (unbounded yields on every machine cost MutexBench 10-27% in the simulator:
 * docs/performance.md, "What each part buys").
 * Wide waiting: on more than WIDE_CPUS (2) CPUs, when non-critical sections
 * are long (RandArray's: 400 private loads against a 100-load critical
 * section), restriction leaves too few threads running to keep the lock busy:
 * a parked arrival is gone for a wake-up (tens of microseconds) while the lock
 * idles.  There an arrival that would park spins instead for up to WIDE_NS
 * (10 us), looking at the lock and the role at intervals that double from
 * WIDE_LOOK_NS (64 ns) to 1 us, timed by the clock every 4 PAUSEs (a PAUSE
 * lasts 1 to 40 ns from one x86 to another; at most WIDE_PAUSES, 1024, per
 * interval and WIDE_LOOKS, 64, looks: the bounds where the clock stands
 * still; each look also checks a timed acquire's deadline), then parks.  But where
 * non-critical sections are short (MutexBench's) the same spinners poll the
 * lock's line and slow every handover.  No static rule separates the two, so
 * a controller measures the lock's rate under each mode, in acquisitions per
 * EPOCH_NS (1 ms), counted while others wait: slow-path acquisitions, and the
 * fast-path ones made while PARKED is set (which the turns count anyway; not
 * a condition variable's relock, which takes the lock in its yields; not
 * every acquisition, which would cost the uncontended path a count, so a mode
 * in which fewer threads park is undercounted, and the controller leans to
 * parking).  Each thread counts for the last lock it counted on; that count
 * reaches the lock's controller CTL_FLUSH (16) or more at a time, when the
 * thread waits anyway (in its park's RACE_NS look, or as its wide spin
 * begins), or inside a critical section once CTL_FORCE (1024) have gathered
 * (a count bumped in every critical section put a miss, often to another
 * socket, in each); an acquisition of another lock adds it (or, below
 * CTL_FLUSH, drops it: a thread that takes two contended locks in turn
 * counts for neither, which then keep parking).  The thread whose flush finds the epoch over closes
 * it (a CAS of the epoch's start elects one): the lock runs in its better
 * mode, and after 8 to 128 epochs in it (the gap doubles while the probe
 * loses, and is 8 again after a switch; the first probe comes after
 * CTL_FIRST_WAIT, 3; an epoch after each probe and the controller's first
 * settle) it runs one epoch in the other mode to let it settle
 * and one to measure it; the other mode becomes the better one if it
 * measured 5% above the better mode's rate (an average that halves each older
 * epoch's weight), a margin that noise between epochs of one mode rarely
 * reaches.
 * An epoch longer than CTL_QUIET (4) epochs found the lock quiet: no rate,
 * and a probe under way ends.  The controllers are two tables of their own,
 * a 64-B line per park-table bucket in each (the count, which every flush
 * writes, in one; what arrivals read, in the other, so that an adjacent-line
 * prefetch does not pair them): the locks of a bucket share a controller
 * (their summed rate decides).  Everything there is a statistic or a hint
 * (relaxed): one closer per epoch holds by timing only (a closer delayed an
 * epoch between its CAS and its write of the plan may undo the next closer's
 * decision; later probes repair it), and a stale mode costs a spin or a park,
 * never exclusion.  Never for real-time threads nor ordered waiters, nor for
 * a running thread whose tenure is over and finds the role vacant (it parks
 * at the back, above); a win in the wide spin counts towards the thread's
 * turn as a win in the yields does ("Turns").  What it buys and costs (the
 * probes' epochs in the worse mode, the flushes): docs/performance.md, "Wide
 * waiting".
 * Release: ACT clear (nobody parked, or a standby exists or is being woken):
 * store locked = 0 and touch nothing more (unpark avoidance: the standby, or
 * a barging arrival, takes it).  ACT set: release_slow hands the lock to an
 * impatient standby, or wakes one parked waiter into the standby role and
 * frees the lock; the woken thread arrives a wake-up later (deferred
 * succession: arrivals keep the lock busy meanwhile).  A parked waiter that
 * has waited FAIR_NS is handed the lock instead, at most once per bucket
 * timer (uniform in [0, 2 x FAIR_NS)): the lock then idles for a wake-up, so
 * such handoffs stay rare (parkinglot's fair unlock).
 * The passive set and its rotation: waiters that find the role taken park in
 * the table's FIFO (by first park).  The eldest is woken into the role when a
 * release finds it vacant; for ROTATE_NS after such a wake, arrivals may claim
 * a vacant role themselves (it keeps the active set just large enough when
 * non-critical sections are long), after it only the parked may.  A thread
 * back from parking longer than TENURE_NS that finds the role vacant does not
 * claim it and parks at the back (on a small machine unless it takes the lock
 * in its yields, above; its turn then bounds its stay): running threads leave
 * the active set in turn, so over a few milliseconds every thread cycles
 * through it.  An arrival that parks while the role is vacant wakes the eldest
 * into it itself, before it sleeps: a wake-up is a system call of
 * microseconds (more when it must rouse an idle CPU), and a releasing owner
 * that makes it leaves the lock idle for as long, while the arrival was going
 * to sleep anyway.  The release still
 * wakes when it finds the role vacant: an arrival raced it; the eldest is the
 * arrival itself, or is due the fair handoff, which only a release can make;
 * the lock is another socket's; or a standby gave the role up after BUDGET_NS
 * since release_slow last ran (TIRED: a critical section longer than
 * BUDGET_NS would otherwise wake a standby, to spin for BUDGET_NS in vain, per
 * parking arrival).
 * Turns: the rotation above moves threads through the role, but a running
 * thread that keeps winning the lock's CAS never reaches the slow path, and on
 * an oversubscribed machine (256 threads on 2 CPUs) one such run can last a
 * time slice: per-thread counts over 5 s then differ by 3x and more.  So every
 * thread's turn is bounded: its TURN_OPS-th fast-path acquisition made while
 * others are parked, or the first after TURN_NS of them (ll_standby_turn_ends:
 * the PARKED bit, read after the CAS from the line the CAS owns, and a
 * per-thread count; the clock is read at every 64th such acquisition, and a gap
 * of more than TURN_NS / 4 between two reads, the thread preempted or acquiring
 * rarely, does not count towards the turn: a loop slower than one such
 * acquisition per TURN_NS / 256 is bounded by the count alone) releases the lock again
 * and parks at the back of the queue, swapping places with the eldest parked
 * waiter, which it wakes into the role if the role is vacant, else to compete
 * (ARRIVE); a waiter already being woken into the role (usually by the
 * release that ended the turn) is the swap.  One thread leaves the active set
 * and one joins it, on the CPU it leaves; the lock is free meanwhile, taken by
 * a spinning standby or a running thread if there is one, else idle until the
 * woken one arrives.  With nobody else parked, or the eldest parked less than
 * TURN_WAIT_NS (10 ms) ago, the thread competes for the lock again (the
 * release may have woken a waiter into the role; a thread that did not park
 * keeps its tenure) and a new turn begins: on a
 * lock that is not saturated the parked are woken into the role soon anyway,
 * and a swap would only cost its park and wake-ups (at 16 threads on two CPUs
 * it made most of the voluntary switches: docs/performance.md, "What each
 * part buys"); once the eldest has waited that long, turns rotate the queue as
 * above, so no waiter waits for a pass of the queue much beyond it.  The
 * count is per thread, over all standby locks, and restarts whenever the
 * thread parks on one, so once the eldest has waited TURN_WAIT_NS each gets at
 * most TURN_OPS fast-path acquisitions, and about TURN_NS of them if faster,
 * per pass of the queue (docs/performance.md:
 * the count bounds MutexBench's turns, whose 2,000 acquisitions take well under
 * TURN_NS; the time those of slower loops such as RandArray's); a turn
 * costs one park and at most two wake-ups (the release's and the swap's).
 * Uncontended, the check is one load and one branch after the CAS.  An
 * acquisition an arrival makes in its yields (small machines, above) or its
 * wide spin (below), never parked, counts as a fast-path one: else a thread
 * that keeps winning so would have no turns (not in a timed acquire, which
 * has no turns).
 * NUMA: the waiter woken into the role is the eldest parked one on the
 * waker's socket (among the lock's next 16), unless the eldest has waited
 * NUMA_NS: the lock stays on one socket for up to NUMA_NS at a time.  On a
 * machine of several sockets an arrival claims a vacant role only on the lock's
 * home socket (HOME; any socket before the first claim): an arrival from another
 * socket parks, and is woken into the role by the rule above (after NUMA_NS at
 * most, once it is the eldest), which moves the home.  So the standby, the next
 * owner, is a thread of the owner's socket, and a handover rarely crosses
 * sockets (barging arrivals still may); the lock's data stay in one socket's
 * caches.  (Letting a remote arrival claim a role still vacant after its
 * arrival rounds keeps the lock moving between sockets: it gives back the gain,
 * docs/performance.md.)
 * Memory orders: the lock's CAS (acquire) and release store, as parkinglot's;
 * GRANTED is set by a release CAS whose critical section the standby acquires
 * by its acquire load (or the acquire CAS of sb_resign); a HANDOFF token's
 * release store carries it to the parked waiter (acquire: pt_token_set), as
 * the STANDBY and ARRIVE tokens' carry the waker's reads of the waiter's node
 * before the waiter reuses it; every other state
 * change is relaxed: it orders no data (a waiter that acts on a stale view
 * spins, parks or wakes once too often, never enters).  The waiter's park is
 * "set PARKED (seq_cst RMW), then check locked (seq_cst)", the releaser's
 * "load state, then store locked" has no fence: as in parkinglot, a release
 * can miss a waiter announcing itself, if it read state before the
 * announcement and stores locked = 0 after the check.  So the waiter looks
 * again RACE_NS (2 us) after its announcement, before it sleeps (sb_first_look):
 * by then such a release's store is almost always visible (a store buffer
 * drains in well under a microsecond), and if the lock is free with no role
 * taken or being woken (a release that saw PARKED would have woken a waiter
 * into the role), it leaves the table and competes.  What that look cannot
 * see, a releaser delayed between its load and its store (preempted,
 * interrupted), its naps catch: it sleeps in naps (NAP_NS, 16 ms, doubling to
 * NAP_MAX_NS) and, if it then finds the lock free, and still free NAP_LOOK
 * PAUSEs later, leaves the table and competes: a lost wake-up costs its
 * waiter a nap, never a hang.  The naps are long because every parked waiter
 * wakes at the end of each of its naps: with hundreds parked, 1-ms naps made
 * most of the lock's voluntary context switches; their price is a slower
 * rescue of the eldest by its nap while the standby is away (docs/performance.md,
 * "What each part buys": "Naps").  While a standby is named,
 * only the lock's eldest parked waiter leaves so: the standby yields its CPU
 * between looks and may not run for a time slice on a CPU it shares with the
 * holder, so a named standby is no promise that the lock is taken, but any
 * napper that left would jump the FIFO order of the parked (what each rule
 * buys: docs/performance.md, "What each part buys").  The second look keeps
 * a saturated lock's nappers asleep: there a free moment is a handover, over
 * within a few cache misses.
 * Timed acquire (ll_standby_acquire_until): as acquire, with each wait cut at
 * the deadline: a standby gives its role up (and owns the lock if a GRANTED
 * came first), a parked waiter leaves the table as parkinglot's does (and owns
 * the lock if a HANDOFF came first: the bucket lock decides).
 * Condition variables: a thread woken from one (ll_standby_acquire_woken, the
 * interposer's relock) is usually one of a herd that a broadcast woke, or was
 * signalled by a holder about to unlock: it tries the lock between up to
 * WOKEN_YIELDS yields before the slow path, which would park it behind the
 * standby after a short spin and cost a second wake-up per woken thread (what
 * that costs a barrier of 16 threads: docs/performance.md, "What each part
 * buys").
 * Fork: the table is emptied in the child (park_table.h, "Fork"); roles held
 * by threads the child does not have are vacant there (generation bits; the
 * child's generation holds from the fork on, also in child handlers that run
 * before the library's: ll_fork_generation_now).  Until a change of the word
 * rewrites such a role, an arrival reads it as taken and parks; its park
 * rewrites the word.
 *
 * Fairness: none short-term (barging, and the standby role changes hands
 * out of order).  Long-term: a standby waits at most PATIENCE_NS plus one
 * critical section while its critical sections are shorter than BUDGET_NS;
 * a parked waiter, once eldest (socket-local ones may go first for NUMA_NS),
 * is handed the lock after FAIR_NS at the bucket timer's next expiry; parked waiters are woken in FIFO order (socket-local
 * first for at most NUMA_NS); running threads yield the role after
 * TENURE_NS, and the lock after TURN_OPS acquisitions by the fast path while
 * others are parked, or TURN_NS of them, once the eldest parked waiter has
 * waited TURN_WAIT_NS.  Measured per-thread max/min: docs/performance.md.
 * Footprint: 8 bytes per lock; a 128-B queue-node slot per parked thread (48 B
 * used); the table, 256 x 64 B = 16 KiB, and the waiting mode controllers,
 * 256 x 128 B = 32 KiB, shared by all locks.  Policies: its
 * own (spin, then park in the table), registered as spin.
 */
#include "locklab/registry.h"
#include "locklab/standby.h"
#include "park_table.h"

enum { ACT = LL_STANDBY_ACT, SPIN = 2u, PARKED = LL_STANDBY_PARKED, IMPATIENT = 8u, GRANTED = 16u, WAKING = 32u, TIRED = 64u };
enum { ROLES = SPIN | WAKING | IMPATIENT, GEN_SHIFT = 8, GEN_MASK = 0xffffu << GEN_SHIFT };
enum { HOME_SHIFT = 24, HOME_MASK = 0xfu << HOME_SHIFT };
enum { STANDBY = 1, HANDOFF = 2, ARRIVE = 3 }; /* a parked waiter's token: woken into the standby role, handed the
                                                * lock, or woken to compete (a thread whose turn ended swapped with it) */
enum { CLOCK_EVERY = 16, NUMA_LOOK = 16, IDLE_YIELDS = 128, RACE_PAUSES = 256, WIDE_LOOK_NS = 64, WIDE_PAUSES = 1024, WIDE_LOOKS = 64,
       WIDE_CPUS = 2 };

/* This process's fork generation, as the state word keeps it. */
static uint32_t sb_gen(void) { return (ll_fork_generation_now() & 0xffffu) << GEN_SHIFT; }
/* The state word as this process sees it: roles set before a fork name threads a child does not have. */
static uint32_t sb_live(uint32_t s, uint32_t gen) { return (s & GEN_MASK) == gen ? s : (s & ~(uint32_t)(ROLES | GEN_MASK)) | gen; }
static uint32_t sb_derive(uint32_t s)
{
    s &= ~(uint32_t)ACT;
    if (((s & PARKED) && !(s & (SPIN | WAKING))) || (s & IMPATIENT))
        s |= ACT;
    return s;
}
/* state = derive((state & ~clear) | set), unless the state has a bit of `unless` (then nothing
 * is written).  Returns the live state before. */
static uint32_t sb_change(ll_standby_lock *l, uint32_t set, uint32_t clear, uint32_t unless, ll_order o)
{
    uint32_t gen = sb_gen(), old = ll_load_relaxed(&l->state); /* relaxed: the CAS validates it */
    for (;;) {
        uint32_t live = sb_live(old, gen);
        if (live & unless)
            return live;
        if (ll_cas(&l->state, &old, sb_derive((live & ~clear) | set), o))
            return live;
    }
}

/* HOME as this thread would set it. */
static uint32_t sb_home(void) { return ((uint32_t)ll_current_socket() % 15u + 1u) << HOME_SHIFT; }

/* Take the vacant standby role, (x,y) -> (x,(y & ~clear)|SPIN|HOME=ours), unless the state has
 * SPIN (then nothing is written).  Returns the live state before. */
static uint32_t sb_take_role(ll_standby_lock *l, uint32_t clear)
{
    return sb_change(l, SPIN | sb_home(), clear | (uint32_t)HOME_MASK, SPIN, LL_RELAXED);
}

/* Is l, whose live state is s, another socket's lock (header, "NUMA")? */
static bool sb_foreign(uint32_t s) { return (s & HOME_MASK) != 0 && ll_topology_sockets() > 1 && (s & HOME_MASK) != sb_home(); }

static pt_waiter *sb_pick(ll_standby_lock *l, pt_bucket *b, pt_waiter **pick_prev, bool *more);
static ll_parker *sb_pass_role(ll_standby_lock *l, pt_bucket *b, pt_waiter *self);
static bool sb_swap(ll_standby_lock *l, pt_bucket *b, uint32_t s, ll_parker **wake);

/* ---- parking (park_table.h) ---------------------------------------------------------- */

/* park_table.h's questions: what does a nap find (header, "lost wake-up")?  l held now, or
 * again NAP_LOOK PAUSEs later: stay.  Else leave, or, while a standby is named, leave only if
 * the eldest: the others keep their FIFO places. */
static int sb_look(void *p)
{
    ll_standby_lock *l = (ll_standby_lock *)p;
    /* relaxed: hints (header, "lost wake-up") */
    if (ll_load_relaxed(&l->locked) != 0)
        return PT_STAY;
#if LL_STANDBY_NAP_LOOK > 0
    for (uint32_t i = 0; i < LL_STANDBY_NAP_LOOK; i++)
        ll_pause();
    if (ll_load_relaxed(&l->locked) != 0)
        return PT_STAY;
#endif
    /* the role as it is now, after the last look (one named during the PAUSEs counts) */
    if (!(sb_live(ll_load_relaxed(&l->state), sb_gen()) & SPIN))
        return PT_LEAVE;
    return LL_STANDBY_NAP_LOOK > 0 ? PT_LEAVE_IF_ELDEST : PT_STAY;
}
/* pt_sleep's first look, RACE_NS after our announcement, before we sleep: a release that read
 * state before our announcement missed us; then l is free with no role taken or being woken (a
 * release that saw PARKED woke a waiter into the role, or handed the lock over): leave.  Else
 * stay. */
static int sb_first_look(void *p)
{
    ll_standby_lock *l = (ll_standby_lock *)p;
    /* relaxed: hints, as sb_look's */
    if (ll_load_relaxed(&l->locked) != 0)
        return PT_STAY;
    return sb_live(ll_load_relaxed(&l->state), sb_gen()) & (SPIN | WAKING) ? PT_STAY : PT_LEAVE;
}
/* ... and l's last parked waiter left: (x,PARKED) -> (x,0), under the bucket lock. */
static void sb_last_left(void *p) { sb_change((ll_standby_lock *)p, 0, PARKED, 0, LL_RELAXED); }

enum { SB_RETRY = 0, SB_STANDBY = 1, SB_TIMED_OUT = 2, SB_HANDED = 3, SB_NOT_PARKED = 4 };

/* ---- the waiting mode controller's state (header, "Wide waiting") ---------------------- */

/* A controller per bucket of the park table, in two tables of 64-B lines: the epoch's count, which
 * every flush adds to, in one, so that the arrivals' reads of the plan (sb_ctl_wide) find the
 * other's line in their caches; in the other the epoch's start (ll_now_ns), the plan and the
 * last rate of each mode (acquisitions per EPOCH_NS).  The plan: bit 0 the better mode (1: wide),
 * bits 1-2 the phase, bits 8-15 the epochs before the next probe, bits 16-23 the gap between
 * probes. */
enum { CTL_FROM, CTL_PLAN, CTL_RATE, CTL_WORDS = CTL_RATE + 2 };
typedef struct sb_ctl {
    LL_ALIGNED(LL_CACHELINE) ll_atomic_u64 w[CTL_WORDS];
} sb_ctl;
typedef struct sb_ctl_count_line {
    LL_ALIGNED(LL_CACHELINE) ll_atomic_u64 n;
} sb_ctl_count_line;
LL_ALIGNED(LL_SECTOR) static sb_ctl sb_ctl_table[PT_BUCKETS]; /* sector-aligned: the tables share no 128-B pair */
LL_ALIGNED(LL_SECTOR) static sb_ctl_count_line sb_ctl_counts[PT_BUCKETS];
/* The controller of l's bucket (its index): the locks that share a bucket share its controller. */
static size_t sb_ctl_of(ll_standby_lock *l) { return (size_t)(pt_bucket_of(l) - pt_table); }
enum { CTL_STEADY, CTL_SETTLE, CTL_MEASURE, CTL_BACK, CTL_SETTLE_FIRST = CTL_BACK };
enum { CTL_MIN_GAP = 8, CTL_MAX_GAP = 128 };
#ifndef LL_STANDBY_CTL_FIRST_WAIT
#define LL_STANDBY_CTL_FIRST_WAIT 3u /* the steady epochs before the first probe (at least 1) */
#endif
#ifndef LL_STANDBY_CTL_QUIET
#define LL_STANDBY_CTL_QUIET 4u /* an epoch longer than this many EPOCH_NS found the lock quiet: no rate */
#endif
LL_STATIC_ASSERT(LL_STANDBY_EPOCH_NS > 0, "the controller's rates divide by the epoch's length");

/* The plan word, unpacked (the fields above; 0: the controller has not closed an epoch yet). */
typedef struct sb_plan {
    uint32_t best, phase, wait, gap;
} sb_plan;
static sb_plan sb_plan_of(uint64_t w)
{
    sb_plan p = {(uint32_t)(w & 1u), (uint32_t)(w >> 1) & 3u, (uint32_t)(w >> 8) & 0xffu, (uint32_t)(w >> 16) & 0xffu};
    return p;
}
static uint64_t sb_plan_word(sb_plan p)
{
    return (uint64_t)p.best | (uint64_t)p.phase << 1 | (uint64_t)p.wait << 8 | (uint64_t)p.gap << 16;
}
/* Does a controller in plan p run its lock in the wide mode: the better mode, or the other one
 * while it is probed? */
static bool sb_plan_wide(sb_plan p) { return (p.best != 0) != (p.phase == CTL_SETTLE || p.phase == CTL_MEASURE); }

/* Do l's arrivals wait wide? */
static bool sb_ctl_wide(ll_standby_lock *l)
{
    return sb_plan_wide(sb_plan_of(ll_load_relaxed(&sb_ctl_table[sb_ctl_of(l)].w[CTL_PLAN]))); /* relaxed: a hint */
}

static void sb_ctl_flush(ll_standby_turn_count *t);
/* Add this thread's count to its lock's controller, LL_STANDBY_CTL_FLUSH or more at a time,
 * while it waits (outside a critical section). */
static void sb_ctl_flush_waiting(void)
{
    ll_standby_turn_count *t = ll_standby_turn();
    if (t->counted >= LL_STANDBY_CTL_FLUSH)
        sb_ctl_flush(t);
}

/* Announce (PARKED) and park in l's bucket if l is still held, until a release or an arrival
 * wakes us into the standby role, or deadline_ns.  again: we parked before in this acquisition
 * (since is when we first did): we go back to our place by since, not to the back.  arriving:
 * we are not a standby that gave its role up; if the role is vacant, we wake the eldest into it
 * (sb_pass_role).  yielding: our turn is over (header, "Turns"): we park even if l is free,
 * having swapped places with the eldest parked waiter (sb_swap).  Returns SB_STANDBY (woken:
 * WAKING was set for us), SB_HANDED (the lock is ours), SB_RETRY (woken to compete, or left
 * after a look), SB_TIMED_OUT, or SB_NOT_PARKED (l was free; yielding: nobody else is parked,
 * or the eldest has waited less than TURN_WAIT_NS). */
static int sb_park(ll_standby_lock *l, uint64_t since, bool again, bool arriving, bool yielding, uint64_t deadline_ns)
{
    pt_bucket *b = pt_bucket_of(l);
    pt_lock(b);
    /* seq_cst (RMW and load): our announcement, then the check that l is still held: the
     * waiter's half of a Dekker pair whose releaser's half (load state, store locked) has no
     * fence; a release that misses us is found by our first look or our naps (header).
     * (x,y) -> (x,y|PARKED) */
    uint32_t old = sb_change(l, PARKED, 0, 0, LL_SEQ_CST);
    uint64_t announced = ll_now_ns();
    ll_parker *p = NULL;
    if (yielding ? !sb_swap(l, b, old, &p) : ll_load(&l->locked, LL_SEQ_CST) == 0) {
        pt_unlock(b); /* PARKED stays, a hint: a release with nobody to wake clears it */
        return SB_NOT_PARKED;
    }
    pt_waiter *w = pt_enqueue(b, l, since, again, (int32_t)ll_current_socket());
    if (!yielding && arriving && (old & PARKED) && !(old & (SPIN | WAKING | TIRED)) && !sb_foreign(old))
        p = sb_pass_role(l, b, w);
    pt_unlock(b);
    ll_wake(p); /* after the bucket's release, as release_slow's */
    sb_ctl_flush_waiting(); /* in the wait for RACE_NS below, which it shortens */
    /* RACE_NS after our announcement (RACE_PAUSES: a bound for a clock that stands still), a
     * release that missed it has almost always stored locked = 0: pt_sleep's first look (header,
     * "Memory orders") */
    for (uint32_t i = 0; i < RACE_PAUSES && ll_now_ns() - announced < LL_STANDBY_RACE_NS; i++)
        ll_pause();
    int slept = pt_sleep(b, w, l, deadline_ns, sb_first_look, LL_STANDBY_NAP_NS, LL_STANDBY_NAP_MAX_NS, sb_look, sb_last_left);
    uint32_t token = ll_load_relaxed(&w->token); /* relaxed: pt_token_set acquired it */
    ll_qnode_put(w); /* out of the list either way: a waker unlinked it, or pt_sleep did */
    if (slept == PT_WOKEN)
        return token == HANDOFF ? SB_HANDED : token == STANDBY ? SB_STANDBY : SB_RETRY;
    return slept == PT_TIMED_OUT ? SB_TIMED_OUT : SB_RETRY;
}

/* ---- acquire --------------------------------------------------------------------------- */

/* The standby gives its role up: (x,SPIN|IMP) -> (x,TIRED) when tired (its BUDGET_NS ran out),
 * else (x,0).  True if a release handed it the lock first (GRANTED): then it owns the lock. */
static bool sb_resign(ll_standby_lock *l, bool tired)
{
    uint32_t old = sb_change(l, tired ? TIRED : 0, SPIN | IMPATIENT, GRANTED, LL_RELAXED);
    if (!(old & GRANTED))
        return false;
    /* acquire (the RMW reads the granting release CAS's value): its critical section */
    sb_change(l, 0, GRANTED | SPIN | IMPATIENT, 0, LL_ACQUIRE);
    return true;
}

/* The standby's wait between looks: PAUSEs for its first PAUSE_NS, then a yield, so that a
 * holder sharing our CPU runs (a real-time caller never yields to a lower priority). */
static void sb_relax(uint64_t spun)
{
    if (spun > LL_STANDBY_PAUSE_NS && !ll_thread_realtime()) {
        ll_yield();
        return;
    }
    for (int i = 0; i < 8; i++)
        ll_pause();
}

bool ll_standby_try_acquire(ll_standby_lock *l)
{
    uint32_t free_ = 0;
    /* relaxed: the CAS validates it; acquire: pairs with the releasing stores (release, release_slow) */
    return ll_load_relaxed(&l->locked) == 0 && ll_cas(&l->locked, &free_, 1, LL_ACQUIRE);
}

/* A try of l: the standby's a bare CAS (header, "Polling"), anyone else's a load first. */
static bool sb_try(ll_standby_lock *l, bool standby)
{
    if (standby && LL_STANDBY_CAS_POLL)
        return ll_two_word_lock_fast(&l->locked); /* acquire: as ll_standby_try_acquire's CAS */
    return ll_standby_try_acquire(l);
}

/* Claim the vacant standby role, (1,x) -> (1,x|SPIN|HOME=ours): if nobody is parked, or the
 * parked had their turn less than ROTATE_NS ago; on several sockets, only on the lock's home
 * socket.  s: the live state; now: ll_now_ns() if s has PARKED. */
static bool sb_claim(ll_standby_lock *l, uint32_t s, uint64_t now)
{
    /* relaxed: a hint of the bucket's last wake; a stale one only shifts a turn */
    if ((s & PARKED) && now >= ll_load_relaxed(&pt_bucket_of(l)->stamp[0]))
        return false; /* the next release wakes the eldest parked waiter into the role */
    if (sb_foreign(s))
        return false; /* another socket's lock: park, to be woken into the role (header, "NUMA") */
    return !(sb_take_role(l, 0) & SPIN);
}

/* Does this arrival yield before it parks: on at most YIELD_CPUS CPUs (header, "Small
 * machines"), unless ordered or real-time?  The CPUs the threads may be placed on, not a cgroup
 * quota's: under a quota of 2 on a big machine a parked thread idles a CPU nobody needs, and a
 * yield comes back at once. */
static bool sb_arrival_yields(bool ordered)
{
    return !ordered && ll_cpus_placeable() <= (int)LL_STANDBY_YIELD_CPUS && !ll_thread_realtime();
}

/* Does the waiting mode controller run here (header, "Wide waiting"): on more than WIDE_CPUS (2)
 * CPUs (those of the affinity mask, as for the arrivals' yields)? */
static bool sb_wide_machine(void) { return LL_STANDBY_WIDE_NS > 0 && ll_cpus_placeable() > (int)WIDE_CPUS; }

/* When this thread last came back from parking: its tenure in the active set (header). */
typedef struct sb_tenure {
    uint64_t active_from; /* ll_now_ns; 0: not yet measured */
} sb_tenure;
LL_THREAD_ELEMENT(sb_tenure, sb_me, {0})

/* The standby's turn of the loop: true to go on waiting, false to park (it gave the role up).
 * *owner: it took the lock (then it returns false too). */
static bool sb_standby_wait(ll_standby_lock *l, uint64_t spin_from, uint32_t rounds, uint64_t *spun, uint64_t deadline_ns,
                            bool *owner)
{
    /* acquire: the critical section of the release that set GRANTED (release CAS) */
    if (ll_load_acquire(&l->state) & GRANTED) { /* (1,GRANTED|SPIN) -> (1,0): ours */
        sb_change(l, 0, GRANTED | SPIN | IMPATIENT, 0, LL_RELAXED);
        return *owner = true, false;
    }
    if (rounds % CLOCK_EVERY == 0) {
        uint64_t now = ll_now_ns();
        *spun = now - spin_from;
        if (now >= deadline_ns || *spun >= LL_STANDBY_BUDGET_NS)
            return *owner = sb_resign(l, *spun >= LL_STANDBY_BUDGET_NS), false;
        if (*spun >= LL_STANDBY_PATIENCE_NS) /* (1,SPIN) -> (1,SPIN|IMP), once */
            sb_change(l, IMPATIENT, 0, GRANTED | IMPATIENT, LL_RELAXED);
    }
    sb_relax(*spun);
    return true;
}

LL_THREAD_ELEMENT_DEFINE(ll_standby_turn_count, ll_standby_turn, {0, 0, 0, 0, NULL})

/* Every TURN_CHECK-th counted acquisition, and the LL_STANDBY_TURN_OPS-th, asks sb_turn_over
 * (64, or TURN_OPS if smaller: then the count alone ends turns). */
#define TURN_CHECK (LL_STANDBY_TURN_OPS - 1u < 64u ? LL_STANDBY_TURN_OPS : 64u)
/* At such an acquisition: is the turn over (LL_STANDBY_TURN_OPS acquisitions, or
 * LL_STANDBY_TURN_NS of its time)?  Then it restarts. */
LL_COLD static bool sb_turn_over(ll_standby_turn_count *t)
{
    if (t->acquisitions < LL_STANDBY_TURN_OPS) {
        if (LL_STANDBY_TURN_NS == 0)
            return false;
        uint64_t now = ll_now_ns(), gap = now - t->seen_ns;
        /* A longer gap between looks: the thread was off its CPU, or acquires rarely; not its turn's
         * time (else a thread preempted mid-turn would lose its turn at its first look back). */
        if (t->seen_ns != 0 && gap < LL_STANDBY_TURN_NS / 4)
            t->used_ns += gap;
        t->seen_ns = now;
        if (t->used_ns < LL_STANDBY_TURN_NS)
            return false;
    }
    t->acquisitions = 0, t->used_ns = 0;
    return true;
}

/* Count one acquisition towards t's turn: true when it ends the turn. */
static inline bool sb_turn_step(ll_standby_turn_count *t)
{
    if (LL_STANDBY_TURN_OPS == 0)
        return false; /* turns off (an ablation: docs/performance.md) */
    uint32_t n = ++t->acquisitions;
    if (n % TURN_CHECK != 0 && n != LL_STANDBY_TURN_OPS)
        return false;
    return sb_turn_over(t);
}

static void sb_ctl_count_slow(ll_standby_lock *l, ll_standby_turn_count *t);
/* Count one acquisition of l made while others wait, for l's controller (header, "Wide waiting"). */
static inline void sb_ctl_count(ll_standby_lock *l, ll_standby_turn_count *t)
{
    if (LL_LIKELY(t->counted_for == l && t->counted < LL_STANDBY_CTL_FORCE))
        t->counted++;
    else
        sb_ctl_count_slow(l, t);
}

LL_COLD bool ll_standby_turn_tick(ll_standby_lock *l)
{
    ll_standby_turn_count *t = ll_standby_turn();
    sb_ctl_count(l, t);
    return sb_turn_step(t);
}

/* Acquire l by deadline_ns; yielding: the caller's turn is over, so it parks first (header,
 * "Turns"); ordered: no arrival's yields (ll_standby_acquire_ordered_until).  *won_waiting (if
 * not NULL): we took l in an arrival's yields (header, "Small machines") or wide spin ("Wide
 * waiting"), never parked. */
static bool sb_acquire_uncounted(ll_standby_lock *l, uint64_t deadline_ns, bool yielding, bool ordered, bool *won_waiting)
{
    sb_tenure *me = sb_me();
    bool standby = false;
    uint64_t since = 0, spin_from = 0, spun = 0;
    uint32_t rounds = 0, arrivals = 0;
    uint64_t yields_from = 0; /* our first yield as an arrival since we began or last went to park */
    uint32_t idle_yields = 0; /* the yields since then that came back within YIELD_IDLE_NS */
    uint64_t wide_from = 0;   /* our first look of wide waiting since we began or last parked */
    uint32_t wide_looks = 0;  /* its looks so far */
    bool parked = false; /* we slept in the table at least once (a new turn began) */
    for (;;) {
        bool arriving = yielding; /* this round is an arrival's (not the standby's) */
        if (yielding) {
            /* our turn is over: to the back of the queue at once (header, "Turns") */
        } else if (sb_try(l, standby)) {
            if (standby) /* (1,SPIN|x) -> (1,x): the role is vacant again */
                sb_change(l, 0, SPIN | IMPATIENT, 0, LL_RELAXED);
            if (won_waiting) /* an arrival's, in its yields or wide spin */
                *won_waiting = !standby && !parked && (yields_from != 0 || wide_from != 0);
            return true;
        } else if (standby) {
            bool owner = false;
            if (sb_standby_wait(l, spin_from, ++rounds, &spun, deadline_ns, &owner))
                continue;
            if (owner)
                return true;
            standby = false;
            if (deadline_ns != LL_NO_DEADLINE && ll_now_ns() >= deadline_ns) /* the role given up: one */
                return ll_standby_try_acquire(l); /* last look, as a release may have freed l and woken nobody */
        } else {
            if (deadline_ns != LL_NO_DEADLINE && ll_now_ns() >= deadline_ns)
                return false; /* nothing of ours to undo */
            arriving = true;
            uint32_t s = ll_load_relaxed(&l->state); /* relaxed: a hint (a stale role too: sb_claim's CAS validates it) */
            bool served = false;
            if (!(s & SPIN)) { /* the role is vacant */
                uint64_t now = s & PARKED ? ll_now_ns() : 0;
                if (s & PARKED) {
                    if (me->active_from == 0)
                        me->active_from = now;
                    served = now - me->active_from >= LL_STANDBY_TENURE_NS; /* while others are parked */
                }
                if (!served && sb_claim(l, s, now)) {
                    standby = true, spin_from = ll_now_ns(), rounds = 0, spun = 0;
                    continue;
                }
            }
            /* the holder may be about to leave; on a small machine, served or not (header) */
            if (arrivals < LL_STANDBY_ARRIVAL_ROUNDS && (!served || sb_arrival_yields(ordered))) {
                for (uint32_t i = 0; i < 2u << arrivals; i++)
                    ll_pause();
                arrivals++;
                continue;
            }
            if (arrivals < LL_STANDBY_ARRIVAL_ROUNDS + LL_STANDBY_ARRIVAL_YIELDS && sb_arrival_yields(ordered)) {
                /* a small machine: keep our CPU while it has nothing else to run (header) */
                uint64_t before = ll_now_ns();
                if (yields_from == 0)
                    yields_from = before;
                ll_yield();
                uint64_t after = ll_now_ns(), took = after - before;
                if (took >= LL_STANDBY_YIELD_BUSY_NS || after - yields_from >= LL_STANDBY_BUDGET_NS)
                    arrivals = LL_STANDBY_ARRIVAL_ROUNDS + LL_STANDBY_ARRIVAL_YIELDS; /* others wanted the CPU, or
                                                                                        * we waited a standby's budget */
                else if (took >= LL_STANDBY_YIELD_IDLE_NS || ++idle_yields % IDLE_YIELDS == 0)
                    arrivals++; /* else nothing else wanted our CPU: such a yield counts only as 1/IDLE_YIELDS
                                 * (the budget ends them first; the count, where the clock stands still) */
                continue;
            }
            if (!served && !ordered && sb_wide_machine() && sb_ctl_wide(l) && !ll_thread_realtime()) {
                /* wide waiting (header): look at the lock and the role, at intervals doubling to 1 us */
                uint64_t now = ll_now_ns();
                if (wide_from == 0)
                    wide_from = now, sb_ctl_flush_waiting();
                if (now - wide_from < LL_STANDBY_WIDE_NS && wide_looks < (uint32_t)WIDE_LOOKS) {
                    uint64_t look_ns = (uint64_t)WIDE_LOOK_NS << (wide_looks < 4 ? wide_looks : 4);
                    for (uint32_t i = 1; i <= (uint32_t)WIDE_PAUSES; i++) { /* the bound: where the clock stands still */
                        ll_pause();
                        if (i % 4 == 0 && ll_now_ns() - now >= look_ns)
                            break;
                    }
                    wide_looks++;
                    continue;
                }
            }
        }
        bool again = since != 0; /* parked before: back to our place by since */
        if (!again)
            since = ll_now_ns();
        int r = sb_park(l, since, again, arriving, yielding, deadline_ns);
        yielding = false;
        if (r != SB_NOT_PARKED) { /* parked: a new tenure and a new turn, from now */
            parked = true;
            me->active_from = ll_now_ns();
            ll_standby_turn_count *turn = ll_standby_turn();
            turn->acquisitions = 0, turn->used_ns = 0, turn->seen_ns = me->active_from;
        }
        arrivals = 0, yields_from = 0, idle_yields = 0, wide_from = 0, wide_looks = 0;
        if (r == SB_HANDED) /* handed over: locked was kept for us */
            return true;
        if (r == SB_TIMED_OUT) /* one last look: a release that missed us may have freed l */
            return ll_standby_try_acquire(l);
        if (r == SB_STANDBY) {
            /* woken into the role: (x,WAKING) -> (x,SPIN|HOME=ours), unless an arrival took it meanwhile */
            if (sb_take_role(l, WAKING) & SPIN)
                sb_change(l, 0, WAKING, 0, LL_RELAXED);
            else
                standby = true, spin_from = ll_now_ns(), rounds = 0, spun = 0;
        }
    }
}

/* sb_acquire_uncounted, each acquisition counted for the waiting mode controller (header, "Wide waiting"). */
static bool sb_acquire(ll_standby_lock *l, uint64_t deadline_ns, bool yielding, bool ordered, bool *won_waiting)
{
    if (!sb_acquire_uncounted(l, deadline_ns, yielding, ordered, won_waiting))
        return false;
    sb_ctl_count(l, ll_standby_turn());
    return true;
}

bool ll_standby_acquire_until(ll_standby_lock *l, uint64_t deadline_ns)
{
    return sb_acquire(l, deadline_ns, false, false, NULL);
}

bool ll_standby_acquire_ordered_until(ll_standby_lock *l, uint64_t deadline_ns)
{
    return sb_acquire(l, deadline_ns, false, true, NULL);
}

LL_COLD void ll_standby_acquire_slow(ll_standby_lock *l)
{
    /* we took l in our yields or wide spin, never parked: it counts towards our turn as a fast-path
     * acquisition would, while others are parked (header, "Turns"; sb_acquire counted it for the
     * controller); relaxed: a hint, as in ll_standby_turn_ends */
    bool won_waiting = false;
    if (sb_acquire(l, LL_NO_DEADLINE, false, false, &won_waiting) && won_waiting &&
        (ll_load_relaxed(&l->state) & PARKED) && sb_turn_step(ll_standby_turn()))
        ll_standby_requeue(l);
}

static void sb_requeue(ll_standby_lock *l, bool ordered)
{
    ll_standby_release(l, NULL);
    sb_acquire(l, LL_NO_DEADLINE, true, ordered, NULL);
}
LL_COLD void ll_standby_requeue(ll_standby_lock *l) { sb_requeue(l, false); }
LL_COLD void ll_standby_requeue_ordered(ll_standby_lock *l) { sb_requeue(l, true); }

void ll_standby_acquire_woken(ll_standby_lock *l)
{
    for (uint32_t i = 0; i < LL_STANDBY_WOKEN_YIELDS && !ll_thread_realtime(); i++) {
        if (ll_standby_try_acquire(l))
            return;
        ll_yield(); /* the holder, or the herd member ahead of us, runs */
    }
    ll_standby_acquire_slow(l);
}

/* ---- release --------------------------------------------------------------------------- */

/* The waiter of l to wake into the role, and whether l has others (under the bucket lock): the
 * eldest, or the eldest on the releaser's socket among l's next NUMA_LOOK waiters while the
 * eldest has waited less than NUMA_NS. */
static pt_waiter *sb_pick(ll_standby_lock *l, pt_bucket *b, pt_waiter **pick_prev, bool *more)
{
    pt_waiter *found = NULL, *prev = NULL;
    int32_t mine = ll_topology_sockets() > 1 ? (int32_t)ll_current_socket() : -1;
    uint32_t looked = 0;
    *more = false;
    for (pt_waiter *w = ll_plain_load(&b->head); w != NULL; prev = w, w = ll_plain_load(&w->next)) {
        if (ll_plain_load(&w->key) != (const void *)l)
            continue;
        if (found == NULL) {
            found = w, *pick_prev = prev;
            if (mine >= 0 && ll_plain_load(&w->socket) != mine && ll_now_ns() - ll_plain_load(&w->since) < LL_STANDBY_NUMA_NS)
                continue; /* look for one on our socket */
            mine = -1;
            continue;
        }
        *more = true;
        if (mine < 0 || ++looked > NUMA_LOOK)
            break;
        if (ll_plain_load(&w->socket) == mine) {
            found = w, *pick_prev = prev;
            break;
        }
    }
    return found;
}

/* Unlink w, whose predecessor is prev, and give it token (under the bucket lock).  Returns w's
 * parker, to wake after the bucket's release. */
static ll_parker *sb_give(pt_bucket *b, pt_waiter *w, pt_waiter *prev, uint32_t token)
{
    pt_unlink(b, w, prev);
    ll_parker *p = ll_plain_load(&w->parker); /* before the token store: then the node may be reused */
    /* release: what the token gives w (HANDOFF: the critical section; STANDBY: WAKING) and our
     * reads of w's node before w reuses it; pairs with the acquire in pt_token_set */
    ll_store_release(&w->token, token);
    return p;
}

/* Wake w, the waiter sb_pick chose, into the vacant standby role (under the bucket lock):
 * (x,PARKED) -> (x,PARKED|WAKING), or (x,WAKING) if w was the last, unless a role was taken
 * meanwhile (SPIN or WAKING: nobody is woken).  Returns w's parker, to wake after the bucket's
 * release, or NULL. */
static ll_parker *sb_wake_into_role(ll_standby_lock *l, pt_bucket *b, pt_waiter *w, pt_waiter *prev, bool more, uint64_t now)
{
    if (sb_change(l, WAKING, more ? 0 : PARKED, SPIN | WAKING, LL_RELAXED) & (SPIN | WAKING))
        return NULL;
    ll_store_relaxed(&b->stamp[0], now + LL_STANDBY_ROTATE_NS); /* relaxed: a hint for sb_claim */
    return sb_give(b, w, prev, STANDBY);
}

/* An arrival that parks (self, just enqueued; under the bucket lock) found the role vacant and
 * others parked before it, who have priority over it (the rotation, or its own tenure): it wakes
 * the eldest into the role itself, (x,PARKED) -> (x,PARKED|WAKING), so that the owner's next
 * release need not (header, "The passive set").  Not when the eldest is due a fair handoff (the
 * release does that: it needs the lock).  Returns the parker to wake after the bucket's release,
 * or NULL. */
static ll_parker *sb_pass_role(ll_standby_lock *l, pt_bucket *b, pt_waiter *self)
{
    pt_waiter *prev = NULL;
    bool more;
    pt_waiter *w = sb_pick(l, b, &prev, &more);
    if (w == NULL || w == self)
        return NULL;
    uint64_t now = ll_now_ns();
    if (pt_fair_would_be_due(&b->stamp[1], w, now, LL_STANDBY_FAIR_NS))
        return NULL;
    return sb_wake_into_role(l, b, w, prev, true, now);
}

/* A thread whose turn is over (under the bucket lock, about to park at the back; s: the state
 * before its announcement) swaps places with the eldest parked waiter (header, "Turns"; sb_pick's
 * choice, a socket-local one on several sockets while the eldest has waited less than NUMA_NS,
 * which the default TURN_WAIT_NS exceeds): a waiter
 * already being woken into the role (WAKING: usually by the release that ended the turn) is the
 * swap; else it wakes the eldest into the vacant role, (x,PARKED) -> (x,PARKED|WAKING), or, the
 * role taken, to compete (ARRIVE).  False if nobody else is parked, or the eldest has waited less
 * than TURN_WAIT_NS (then the caller competes on);
 * *wake: the parker to wake after the bucket's release, or NULL. */
static bool sb_swap(ll_standby_lock *l, pt_bucket *b, uint32_t s, ll_parker **wake)
{
    pt_waiter *prev = NULL;
    bool more;
    pt_waiter *w = sb_pick(l, b, &prev, &more);
    *wake = NULL;
    if (w == NULL)
        return false;
    uint64_t now = ll_now_ns();
    if (now - ll_plain_load(&w->since) < LL_STANDBY_TURN_WAIT_NS)
        return false;
    if (s & WAKING)
        return true;
    if (!(s & SPIN) && !sb_foreign(s) && !pt_fair_would_be_due(&b->stamp[1], w, now, LL_STANDBY_FAIR_NS))
        *wake = sb_wake_into_role(l, b, w, prev, true, now); /* NULL if a role was taken meanwhile */
    if (*wake == NULL)
        *wake = sb_give(b, w, prev, ARRIVE);
    return true;
}

/* ---- the waiting mode controller (header, "Wide waiting") ------------------------------ */

/* An epoch of c's locks ended at rate (acquisitions per EPOCH_NS); one thread at a time (the one
 * whose CAS of the epoch's start won).  Steady: the better mode's rate is recorded; after `wait`
 * epochs the other mode is tried for two (the first to settle, the second measured), and it
 * becomes the better one if its rate beat the better one's last by 5%; then the probes come
 * again after CTL_MIN_GAP epochs, else the gap doubles, up to CTL_MAX_GAP. */
static void sb_ctl_epoch(sb_ctl *c, uint64_t rate)
{
    /* relaxed: statistics; the plan and rates are written by one epoch's closer at a time */
    sb_plan p = sb_plan_of(ll_load_relaxed(&c->w[CTL_PLAN]));
    if (p.gap == 0) { /* the controller's first close: the next epoch (threads still arriving) settles */
        sb_plan first = {0, CTL_SETTLE_FIRST, LL_STANDBY_CTL_FIRST_WAIT, CTL_MIN_GAP};
        ll_store_relaxed(&c->w[CTL_PLAN], sb_plan_word(first));
        return;
    }
    switch (p.phase) {
    case CTL_STEADY: { /* the better mode's rate: an average that halves each older epoch's weight */
        uint64_t last = ll_load_relaxed(&c->w[CTL_RATE + p.best]);
        ll_store_relaxed(&c->w[CTL_RATE + p.best], last ? (last + rate) / 2u : rate);
        if (p.wait > 1)
            p.wait--;
        else /* wait epochs (at least one) in the better mode since it settled: probe */
            p.phase = CTL_SETTLE;
        break;
    }
    case CTL_SETTLE:
        p.phase = CTL_MEASURE;
        break;
    case CTL_MEASURE:
        ll_store_relaxed(&c->w[CTL_RATE + (p.best ^ 1u)], rate);
        if (rate * 20u > ll_load_relaxed(&c->w[CTL_RATE + p.best]) * 21u) {
            ll_store_relaxed(&c->w[CTL_RATE + p.best], 0); /* the average restarts with the next better mode */
            ll_store_relaxed(&c->w[CTL_RATE + (p.best ^ 1u)], 0);
            p.best ^= 1u, p.gap = CTL_MIN_GAP;
        }
        else if (p.gap < CTL_MAX_GAP)
            p.gap *= 2u;
        p.phase = CTL_BACK, p.wait = p.gap;
        break;
    default: /* CTL_BACK, CTL_SETTLE_FIRST: the epoch after a probe (or the first) settles */
        p.phase = CTL_STEADY;
        break;
    }
    ll_store_relaxed(&c->w[CTL_PLAN], sb_plan_word(p));
}

/* Add t's count to its lock's controller, and close the epoch if it has lasted EPOCH_NS. */
static void sb_ctl_flush(ll_standby_turn_count *t)
{
    uint64_t n = t->counted;
    t->counted = 0;
    if (!sb_wide_machine() || t->counted_for == NULL)
        return;
    size_t i = sb_ctl_of(t->counted_for); /* its address only: the lock may be gone */
    sb_ctl *c = &sb_ctl_table[i];
    /* relaxed: statistics (the CAS elects one closer per epoch; the counts it reads may be late) */
    ll_faa(&sb_ctl_counts[i].n, n, LL_RELAXED);
    uint64_t from = ll_load_relaxed(&c->w[CTL_FROM]), now = ll_now_ns(); /* from first: now is the later */
    if ((int64_t)(now - from) < (int64_t)LL_STANDBY_EPOCH_NS || !ll_cas(&c->w[CTL_FROM], &from, now, LL_RELAXED))
        return;
    uint64_t count = ll_xchg(&sb_ctl_counts[i].n, 0, LL_RELAXED);
    if (now - from <= LL_STANDBY_CTL_QUIET * (uint64_t)LL_STANDBY_EPOCH_NS) {
        sb_ctl_epoch(c, count * LL_STANDBY_EPOCH_NS / (now - from));
        return;
    }
    /* the lock was quiet: no rate; its first epoch begins, or a probe ends (back to the better mode) */
    sb_plan p = sb_plan_of(ll_load_relaxed(&c->w[CTL_PLAN]));
    if (p.gap == 0) {
        sb_ctl_epoch(c, 0);
    } else if (p.phase == CTL_SETTLE || p.phase == CTL_MEASURE) {
        p.phase = CTL_BACK, p.wait = p.gap;
        ll_store_relaxed(&c->w[CTL_PLAN], sb_plan_word(p));
    }
}

LL_COLD static void sb_ctl_count_slow(ll_standby_lock *l, ll_standby_turn_count *t)
{
    if (t->counted_for != l) { /* the count of the last lock: added if FLUSH or more, else dropped */
        if (t->counted >= LL_STANDBY_CTL_FLUSH)
            sb_ctl_flush(t);
        t->counted = 0, t->counted_for = l;
    } else { /* CTL_FORCE gathered: added now, in the critical section */
        sb_ctl_flush(t);
    }
    t->counted++;
}

/* ACT was set: we hold the lock. */
LL_COLD void ll_standby_release_slow(ll_standby_lock *l)
{
    uint32_t gen = sb_gen(), raw = ll_load_relaxed(&l->state); /* relaxed: the CAS validates it */
    for (;;) {
        uint32_t s = sb_live(raw, gen);
        if (!(s & IMPATIENT))
            break;
        /* (1,IMP|SPIN) -> (1,GRANTED|SPIN): the lock is the standby's, locked stays 1.  release:
         * the critical section to the standby; pairs with its acquire load of GRANTED */
        if (ll_cas(&l->state, &raw, sb_derive((s | GRANTED) & ~(uint32_t)IMPATIENT), LL_RELEASE))
            return;
    }
    if (sb_live(raw, gen) & TIRED) /* (1,TIRED|x) -> (1,x): the critical section that tired a standby ends */
        raw = sb_change(l, 0, TIRED, 0, LL_RELAXED) & ~(uint32_t)TIRED;
    if (!(sb_derive(sb_live(raw, gen)) & ACT)) { /* a standby appeared, or the waiters left */
        ll_store_release(&l->locked, 0); /* release: the critical section to the next acquiring CAS */
        return;
    }
    pt_bucket *b = pt_bucket_of(l);
    pt_lock(b);
    pt_waiter *prev = NULL;
    bool more;
    pt_waiter *w = sb_pick(l, b, &prev, &more);
    ll_parker *p = NULL;
    uint64_t now = w ? ll_now_ns() : 0;
    bool handoff = w && pt_fair_due(&b->stamp[1], w, now, LL_STANDBY_FAIR_NS);
    if (w == NULL) {
        sb_change(l, 0, PARKED, 0, LL_RELAXED); /* (1,PARKED) -> (1,0): nobody is parked */
    } else if (handoff) {
        /* (1,PARKED) -> (1,PARKED) (or (1,0) if w was the last), locked stays 1: the lock is w's */
        if (!more)
            sb_change(l, 0, PARKED, 0, LL_RELAXED);
        p = sb_give(b, w, prev, HANDOFF);
    } else {
        p = sb_wake_into_role(l, b, w, prev, more, now);
    }
    if (!handoff) /* release: the critical section to the next acquiring CAS */
        ll_store_release(&l->locked, 0);
    pt_unlock(b);
    ll_wake(p); /* after the bucket's release: the woken thread may need the bucket at once */
}

/* ---- registry adapter ------------------------------------------------------------------- */

LL_INIT_ADAPTER(ll_standby_init((ll_standby_lock *)s))
LL_LOCK_ADAPTER(ll_standby_lock, ll_standby)
LL_OWN_WAIT_TIMED_ADAPTER(ll_standby_lock, ll_standby)

const ll_lock_ops ll_lock_standby = {
    .name = "standby",
    .source = "locklab (Malthusian Locks' Solaris mutex, Fissile's standby, CNA, WebKit's parking table)",
    .summary = "two words, a store release; one spinning waiter (the standby), the others parked FIFO in a global "
        "address-hashed table and rotated through the standby role (on more than 2 CPUs, after a spin of up to 10 us "
        "where that measurably runs the lock faster)",
    .fairness = "none short-term (barging); the standby waits at most patience (0.1 ms) + one critical section; parked "
        "waiters woken FIFO (socket-local first for 2 ms), one parked 4 ms handed the lock at its bucket's fair timer; a "
        "running thread goes to the back after LL_STANDBY_TURN_OPS (2000) acquisitions made while others are parked, or "
        "LL_STANDBY_TURN_NS (1 ms) of them, once the eldest parked waiter has waited LL_STANDBY_TURN_WAIT_NS (10 ms)",
    .policies = LL_SPIN_ONLY, .caps = LL_CAP_PARKS_ITSELF | LL_CAP_FORK_SAFE | LL_CAP_WAKE_INTO_HELD,
    .state_bytes = sizeof(ll_standby_lock), .lock_bytes = sizeof(ll_standby_lock), .waiter_bytes = sizeof(pt_waiter),
    .init = init, .acquire = acquire, .try_acquire = try_acquire, .release = release, .acquire_until = acquire_until,
};
