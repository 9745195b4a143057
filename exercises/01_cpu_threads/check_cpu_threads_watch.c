/*
 * check_cpu_threads_watch.c - what the check sees inside the program. make
 * check builds cpu_threads.c a third time (build/cpu_threads-watch): gcc's
 * -fsanitize=thread makes it call a function here before every read, write and
 * atomic it does (this file stands in for ThreadSanitizer's runtime), and the
 * link's --wrap sends its thread, lock, input and report calls here first.
 * With CPU_THREADS_WATCH=PATH set, the first run of the threads is watched,
 * and at exit PATH gets one line for the run and one for each thread (0 is the
 * main thread), which the check reads:
 *     watched T threads, input N bytes, never read A, read more than once B
 *     thread t: reads R, reads under a lock L, first F, end E, locks K,
 *       shared writes W, unlocked shared writes U, unlocked atomic stores S,
 *       own writes O, plain writes to bins others wrote unlocked M
 * "shared" is the histogram the program reports; a thread's own writes are
 * the other writes to memory no other thread of the run wrote. A write is
 * unlocked when its thread holds no lock; in the watched run the first 64
 * trylocks of every other thread (the 2nd, the 4th, ...) fail, as if the lock
 * were busy. M counts the shared bins this thread wrote with a plain write
 * (under a lock or not) that another thread of the run wrote holding no lock:
 * nothing orders the two.
 */
#include "book.h"
#include "harness.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WATCHED_THREADS 65   /* the main thread and 64 others */
#define TABLE           4096 /* addresses one thread writes: its copy, the bins, a few more */

struct written {
    uintptr_t address;        /* 0: a free slot */
    uint64_t writes;          /* plain and atomic */
    uint64_t unlocked_plain;  /* plain writes made holding no lock */
    uint64_t unlocked_stores; /* atomic stores (not read-modify-writes) holding no lock */
    uint64_t plain;           /* plain writes, holding a lock or not */
    uint64_t unlocked;        /* writes of any kind holding no lock */
    unsigned size;            /* the widest write there, in bytes */
};

struct watched_thread {
    bool seen;
    uint64_t reads, locked_reads, locks;
    size_t first, end;  /* the lowest input byte read, and one past the highest */
    uint64_t untracked; /* writes that did not fit in the table */
    struct written table[TABLE];
};

static const char *watch_path;
static int round_number; /* runs of the threads so far; run 1 is watched */
static int live;         /* threads of this run alive now */
static int created;      /* threads made in the watched run */
static struct watched_thread *threads;
static const unsigned char *input;
static size_t input_size;
static unsigned char *read_times; /* per input byte, saturated at 255 */
static const unsigned int *histo; /* the reported histogram */

static __thread int me = 0;  /* 0: the main thread; t: the t-th thread of the watched run */
static __thread bool worker; /* a thread the program made, in any run */
static __thread int held;    /* locks this thread holds now */

static struct watched_thread *watching(void)
{
    if (!threads || round_number != 1 || me < 0 || me >= WATCHED_THREADS)
        return NULL;
    return &threads[me];
}

static void read_bytes(const void *address, size_t size)
{
    struct watched_thread *w = watching();
    const unsigned char *p = address;
    if (!w || !input || p + size <= input || p >= input + input_size)
        return;
    size_t from = p < input ? 0 : (size_t)(p - input);
    size_t to = p + size > input + input_size ? input_size : (size_t)(p + size - input);
    if (!w->seen || from < w->first)
        w->first = from;
    if (!w->seen || to > w->end)
        w->end = to;
    w->seen = true;
    w->reads += to - from;
    if (held)
        w->locked_reads += to - from;
    for (size_t i = from; i < to; i++)
        if (__atomic_load_n(&read_times[i], __ATOMIC_RELAXED) < 255)
            __atomic_fetch_add(&read_times[i], 1, __ATOMIC_RELAXED);
}

enum write_kind { PLAIN, ATOMIC_STORE, ATOMIC_UPDATE };

static void write_bytes(const void *address, size_t size, enum write_kind kind)
{
    struct watched_thread *w = watching();
    if (!w)
        return;
    uintptr_t a = (uintptr_t)address;
    if (a >= (uintptr_t)input && a < (uintptr_t)input + input_size)
        return;
    size_t slot = (a >> 2) * 2654435761u % TABLE;
    for (int probe = 0; probe < TABLE; probe++, slot = (slot + 1) % TABLE) {
        struct written *e = &w->table[slot];
        if (e->address != 0 && e->address != a)
            continue;
        e->address = a;
        e->writes++;
        e->size = size > e->size ? (unsigned)size : e->size;
        if (kind == PLAIN)
            e->plain++;
        if (!held)
            e->unlocked++;
        if (!held && kind == PLAIN)
            e->unlocked_plain++;
        if (!held && kind == ATOMIC_STORE)
            e->unlocked_stores++;
        return;
    }
    w->untracked++;
}

/* ---------------------------------- what gcc -fsanitize=thread calls -- */

void __tsan_init(void) {}
void __tsan_func_entry(void *caller)
{
    (void)caller;
}
void __tsan_func_exit(void) {}
void __tsan_vptr_update(void **slot, void *value)
{
    (void)slot, (void)value;
}
void __tsan_vptr_read(void **slot)
{
    (void)slot;
}
void __tsan_read_range(const void *p, unsigned long size)
{
    read_bytes(p, size);
}
void __tsan_write_range(void *p, unsigned long size)
{
    write_bytes(p, size, PLAIN);
}

#define ACCESS(N)                                                                                  \
    void __tsan_read##N(const void *p)                                                             \
    {                                                                                              \
        read_bytes(p, N);                                                                          \
    }                                                                                              \
    void __tsan_write##N(void *p)                                                                  \
    {                                                                                              \
        write_bytes(p, N, PLAIN);                                                                  \
    }                                                                                              \
    void __tsan_unaligned_read##N(const void *p)                                                   \
    {                                                                                              \
        read_bytes(p, N);                                                                          \
    }                                                                                              \
    void __tsan_unaligned_write##N(void *p)                                                        \
    {                                                                                              \
        write_bytes(p, N, PLAIN);                                                                  \
    }                                                                                              \
    void __tsan_volatile_read##N(const void *p)                                                    \
    {                                                                                              \
        read_bytes(p, N);                                                                          \
    }                                                                                              \
    void __tsan_volatile_write##N(void *p)                                                         \
    {                                                                                              \
        write_bytes(p, N, PLAIN);                                                                  \
    }
ACCESS(1)
ACCESS(2)
ACCESS(4)
ACCESS(8)
ACCESS(16)

/* The atomics themselves, done here (sequentially consistent, whatever order
 * was asked), and watched. A thread of the program that loads a value
 * atomically with no lock held then sleeps 20 microseconds, in every run of
 * the threads: a store that follows, of the value it loaded plus its own, then
 * lands after other threads' stores to the same bin, and their counts are
 * lost in the bins the program verifies, as they could be on any machine. */
#define ATOMICS(N, T)                                                                              \
    T __tsan_atomic##N##_load(const volatile T *a, int order)                                      \
    {                                                                                              \
        (void)order;                                                                               \
        read_bytes((const void *)a, N / 8);                                                        \
        T v = __atomic_load_n(a, __ATOMIC_SEQ_CST);                                                \
        if (threads && worker && !held)                                                            \
            nanosleep(&(struct timespec){0, 20000}, NULL);                                         \
        return v;                                                                                  \
    }                                                                                              \
    void __tsan_atomic##N##_store(volatile T *a, T v, int order)                                   \
    {                                                                                              \
        (void)order;                                                                               \
        write_bytes((void *)a, N / 8, ATOMIC_STORE);                                               \
        __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                  \
    }                                                                                              \
    ATOMIC_UPDATE(N, T, exchange, exchange_n)                                                      \
    ATOMIC_UPDATE(N, T, fetch_add, fetch_add)                                                      \
    ATOMIC_UPDATE(N, T, fetch_sub, fetch_sub)                                                      \
    ATOMIC_UPDATE(N, T, fetch_and, fetch_and)                                                      \
    ATOMIC_UPDATE(N, T, fetch_or, fetch_or)                                                        \
    ATOMIC_UPDATE(N, T, fetch_xor, fetch_xor)                                                      \
    ATOMIC_UPDATE(N, T, fetch_nand, fetch_nand)                                                    \
    int __tsan_atomic##N##_compare_exchange_strong(volatile T *a, T *expected, T v, int order,     \
                                                   int fail_order)                                 \
    {                                                                                              \
        (void)order, (void)fail_order;                                                             \
        write_bytes((void *)a, N / 8, ATOMIC_UPDATE);                                              \
        return __atomic_compare_exchange_n(a, expected, v, false, __ATOMIC_SEQ_CST,                \
                                           __ATOMIC_SEQ_CST);                                      \
    }                                                                                              \
    int __tsan_atomic##N##_compare_exchange_weak(volatile T *a, T *expected, T v, int order,       \
                                                 int fail_order)                                   \
    {                                                                                              \
        return __tsan_atomic##N##_compare_exchange_strong(a, expected, v, order, fail_order);      \
    }                                                                                              \
    T __tsan_atomic##N##_compare_exchange_val(volatile T *a, T expected, T v, int order,           \
                                              int fail_order)                                      \
    {                                                                                              \
        __tsan_atomic##N##_compare_exchange_strong(a, &expected, v, order, fail_order);            \
        return expected;                                                                           \
    }
#define ATOMIC_UPDATE(N, T, OP, BUILTIN)                                                           \
    T __tsan_atomic##N##_##OP(volatile T *a, T v, int order)                                       \
    {                                                                                              \
        (void)order;                                                                               \
        write_bytes((void *)a, N / 8, ATOMIC_UPDATE);                                              \
        return __atomic_##BUILTIN(a, v, __ATOMIC_SEQ_CST);                                         \
    }
ATOMICS(8, uint8_t)
ATOMICS(16, uint16_t)
ATOMICS(32, uint32_t)
ATOMICS(64, uint64_t)

void __tsan_atomic_thread_fence(int order)
{
    (void)order;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
void __tsan_atomic_signal_fence(int order)
{
    (void)order;
}

/* ------------------------------------------- what the link sends here -- */

int __real_pthread_create(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
int __real_pthread_mutex_lock(pthread_mutex_t *);
int __real_pthread_mutex_trylock(pthread_mutex_t *);
int __real_pthread_mutex_unlock(pthread_mutex_t *);
int __real_pthread_spin_lock(pthread_spinlock_t *);
int __real_pthread_spin_trylock(pthread_spinlock_t *);
int __real_pthread_spin_unlock(pthread_spinlock_t *);
int __real_pthread_join(pthread_t, void **);
struct input __real_make_input(const struct stage *, const struct options *);
int __real_report_results(const struct stage *, const struct options *, const struct input *,
                          const struct result *, int);

struct start {
    void *(*function)(void *);
    void *arg;
    int index;
};

static void *start_watched(void *arg)
{
    struct start s = *(struct start *)arg;
    free(arg);
    me = s.index;
    worker = true;
    return s.function(s.arg);
}

int __wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*function)(void *),
                          void *arg)
{
    if (__atomic_load_n(&live, __ATOMIC_SEQ_CST) == 0) { /* a new run of the threads */
        round_number++;
    }
    struct start *s = malloc(sizeof *s);
    if (!s)
        return __real_pthread_create(thread, attr, function, arg);
    *s = (struct start){function, arg, round_number == 1 ? ++created : -1};
    __atomic_fetch_add(&live, 1, __ATOMIC_SEQ_CST);
    int err = __real_pthread_create(thread, attr, start_watched, s);
    if (err) {
        __atomic_fetch_sub(&live, 1, __ATOMIC_SEQ_CST);
        free(s);
    }
    return err;
}

int __wrap_pthread_join(pthread_t thread, void **value)
{
    int err = __real_pthread_join(thread, value);
    if (!err)
        __atomic_fetch_sub(&live, 1, __ATOMIC_SEQ_CST);
    return err;
}

static int locked(int err)
{
    if (!err) {
        held++;
        struct watched_thread *w = watching();
        if (w)
            w->locks++;
    }
    return err;
}
static int unlocked(int err)
{
    if (!err && held > 0)
        held--;
    return err;
}
int __wrap_pthread_mutex_lock(pthread_mutex_t *m)
{
    return locked(__real_pthread_mutex_lock(m));
}
/* A trylock that fails holds no lock: what its thread writes next, until it
 * locks again, is written with no lock. Whether a trylock fails depends on
 * whether another thread holds the lock at that instant, which a run may
 * never show; so in the watched run, the first FAILED_TRIES trylocks of
 * every other thread (the 2nd, the 4th, ...) fail, as they would while
 * another thread held the lock that long, and the others' succeed. A program
 * that acts on the failure (tries again until it locks, or waits with a lock)
 * goes on as usual; one that ignores it writes the shared bins with no lock,
 * in every watched run; and one that adds some other way when the lock stays
 * busy (after a few tries) meets, in the same run, threads that add under the
 * lock. */
#define FAILED_TRIES 64
static __thread int tries; /* this thread's trylocks in the watched run */
static bool early_try_fails(void)
{
    if (!worker || !watching())
        return false;
    return me % 2 == 0 && tries++ < FAILED_TRIES;
}
int __wrap_pthread_mutex_trylock(pthread_mutex_t *m)
{
    return early_try_fails() ? EBUSY : locked(__real_pthread_mutex_trylock(m));
}
int __wrap_pthread_mutex_unlock(pthread_mutex_t *m)
{
    return unlocked(__real_pthread_mutex_unlock(m));
}
int __wrap_pthread_spin_lock(pthread_spinlock_t *m)
{
    return locked(__real_pthread_spin_lock(m));
}
int __wrap_pthread_spin_trylock(pthread_spinlock_t *m)
{
    return early_try_fails() ? EBUSY : locked(__real_pthread_spin_trylock(m));
}
int __wrap_pthread_spin_unlock(pthread_spinlock_t *m)
{
    return unlocked(__real_pthread_spin_unlock(m));
}

struct input __wrap_make_input(const struct stage *stage, const struct options *opt)
{
    struct input in = __real_make_input(stage, opt);
    watch_path = getenv("CPU_THREADS_WATCH");
    if (watch_path && *watch_path) {
        threads = calloc(WATCHED_THREADS, sizeof *threads);
        read_times = calloc(in.size ? in.size : 1, 1);
        if (!threads || !read_times)
            fail("the check's watch: out of host memory");
        input = in.buffer;
        input_size = in.size;
    }
    return in;
}

int __wrap_report_results(const struct stage *stage, const struct options *opt,
                          const struct input *in, const struct result *results, int count)
{
    if (count > 0 && !histo)
        histo = results[0].histo;
    return __real_report_results(stage, opt, in, results, count);
}

/* What thread t wrote at address a, or NULL if it wrote nothing there. */
static const struct written *written_at(int t, uintptr_t a)
{
    size_t slot = (a >> 2) * 2654435761u % TABLE;
    for (int probe = 0; probe < TABLE; probe++, slot = (slot + 1) % TABLE) {
        if (threads[t].table[slot].address == a)
            return &threads[t].table[slot];
        if (threads[t].table[slot].address == 0)
            return NULL;
    }
    return NULL;
}

/* Whether thread t wrote address a (another thread than the one asking). */
static bool written_by(int t, uintptr_t a)
{
    return written_at(t, a) != NULL;
}

/* Whether a thread of the program other than t wrote address a holding no
 * lock (the main thread's writes come before the threads start or after they
 * are joined: the create and the join order them). */
static bool written_unlocked_by_another(int t, uintptr_t a)
{
    for (int other = 1; other <= created && other < WATCHED_THREADS; other++) {
        const struct written *e = other == t ? NULL : written_at(other, a);
        if (e && e->unlocked > 0)
            return true;
    }
    return false;
}

static void write_watch(void)
{
    if (!threads || !watch_path)
        return;
    FILE *f = fopen(watch_path, "w");
    if (!f)
        return;
    size_t never = 0, again = 0;
    for (size_t i = 0; i < input_size; i++) {
        never += read_times[i] == 0;
        again += read_times[i] > 1;
    }
    fprintf(f, "watched %d threads, input %zu bytes, never read %zu, read more than once %zu\n",
            created, input_size, never, again);
    uintptr_t shared_from = (uintptr_t)histo, shared_to = shared_from + BINS * sizeof *histo;
    for (int t = 0; t <= created && t < WATCHED_THREADS; t++) {
        const struct watched_thread *w = &threads[t];
        uint64_t shared = 0, unlocked_plain = 0, unlocked_stores = 0, own = w->untracked;
        uint64_t mixed = 0; /* bins written plain here and with no lock by another thread */
        for (int slot = 0; slot < TABLE; slot++) {
            const struct written *e = &w->table[slot];
            if (!e->address)
                continue;
            if (histo && e->address + e->size > shared_from && e->address < shared_to) {
                shared += e->writes;
                unlocked_plain += e->unlocked_plain;
                unlocked_stores += e->unlocked_stores;
                if (t > 0 && e->plain > 0 && written_unlocked_by_another(t, e->address))
                    mixed++;
                continue;
            }
            bool alone = true;
            for (int other = 0; other <= created && other < WATCHED_THREADS && alone; other++)
                alone = other == t || !written_by(other, e->address);
            if (alone)
                own += e->writes;
        }
        fprintf(f,
                "thread %d: reads %llu, reads under a lock %llu, first %zu, end %zu, locks %llu, "
                "shared writes %llu, unlocked shared writes %llu, unlocked atomic stores %llu, "
                "own writes %llu, plain writes to bins others wrote unlocked %llu\n",
                t, (unsigned long long)w->reads, (unsigned long long)w->locked_reads,
                w->seen ? w->first : 0, w->seen ? w->end : 0, (unsigned long long)w->locks,
                (unsigned long long)shared, (unsigned long long)unlocked_plain,
                (unsigned long long)unlocked_stores, (unsigned long long)own,
                (unsigned long long)mixed);
    }
    fclose(f);
}

__attribute__((constructor)) static void watch_at_exit(void)
{
    atexit(write_watch);
}
