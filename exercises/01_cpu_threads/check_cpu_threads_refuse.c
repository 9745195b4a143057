/*
 * check_cpu_threads_refuse.c - a thread call that fails. make check builds
 * cpu_threads.c once more (build/cpu_threads-refuse), linked with
 * --wrap=pthread_create, --wrap=pthread_join, --wrap=pthread_mutex_lock and
 * --wrap=pthread_mutex_unlock, which send every such call here first. With
 * CPU_THREADS_REFUSE=N set, the N-th call of one of them fails:
 * pthread_create's (or the function CPU_THREADS_REFUSE_CALL names).
 * pthread_create starts no thread and returns EAGAIN, as it does when the
 * process may not have one more thread (a low RLIMIT_NPROC, or too little
 * memory for its stack); pthread_mutex_lock takes no lock and returns EINVAL;
 * pthread_join and pthread_mutex_unlock do their work and then return EINVAL,
 * so that a program that stops on the error can still stop cleanly. The
 * refused call is said on stderr, in a line that starts "check: refused", for
 * the check to tell a refusal from a run that never made that call (a merge
 * with atomics takes no lock). Every other call goes through as usual.
 *
 * With CPU_THREADS_TIMELINE set (and the build linked with --wrap=now_ms
 * too), it also notes, in order, each clock reading of the program (now_ms:
 * 'T'), each pthread_create ('c') and each pthread_join ('j'), and prints
 * them at exit on one line of stderr, "check: timeline TccccjjjjT...", for
 * the check to see what the timed interval holds.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int __real_pthread_create(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
int __wrap_pthread_create(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
int __real_pthread_join(pthread_t, void **);
int __wrap_pthread_join(pthread_t, void **);
int __real_pthread_mutex_lock(pthread_mutex_t *);
int __wrap_pthread_mutex_lock(pthread_mutex_t *);
int __real_pthread_mutex_unlock(pthread_mutex_t *);
int __wrap_pthread_mutex_unlock(pthread_mutex_t *);
double __real_now_ms(void);
double __wrap_now_ms(void);

/* The timeline: at most its size's events, the rest dropped (and said). */
static char timeline[8192];
static size_t events;

static void print_timeline(void)
{
    fprintf(stderr, "check: timeline %s%s\n", timeline,
            events >= sizeof timeline - 1 ? " (cut)" : "");
}

static void note(char event)
{
    if (!getenv("CPU_THREADS_TIMELINE"))
        return;
    size_t n = __atomic_fetch_add(&events, 1, __ATOMIC_SEQ_CST);
    if (n == 0)
        atexit(print_timeline);
    if (n < sizeof timeline - 1)
        timeline[n] = event;
}

double __wrap_now_ms(void)
{
    note('T');
    return __real_now_ms();
}

/* Whether this call of function (its calls counted in *calls) is the one to refuse. */
static int refused(const char *function, long *calls)
{
    const char *refuse = getenv("CPU_THREADS_REFUSE");
    const char *call = getenv("CPU_THREADS_REFUSE_CALL");
    if (!refuse || strcmp(call ? call : "pthread_create", function) != 0)
        return 0;
    long n = __atomic_add_fetch(calls, 1, __ATOMIC_SEQ_CST);
    if (n != atol(refuse))
        return 0;
    fprintf(stderr, "check: refused %s call %ld\n", function, n);
    return 1;
}

int __wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
                          void *arg)
{
    static long calls;
    note('c');
    if (refused("pthread_create", &calls))
        return EAGAIN;
    return __real_pthread_create(thread, attr, start, arg);
}

int __wrap_pthread_join(pthread_t thread, void **result)
{
    static long calls;
    note('j');
    int refuse = refused("pthread_join", &calls);
    int err = __real_pthread_join(thread, result);
    return refuse ? EINVAL : err;
}

int __wrap_pthread_mutex_lock(pthread_mutex_t *mutex)
{
    static long calls;
    if (refused("pthread_mutex_lock", &calls))
        return EINVAL;
    return __real_pthread_mutex_lock(mutex);
}

int __wrap_pthread_mutex_unlock(pthread_mutex_t *mutex)
{
    static long calls;
    int refuse = refused("pthread_mutex_unlock", &calls);
    int err = __real_pthread_mutex_unlock(mutex);
    return refuse ? EINVAL : err;
}
