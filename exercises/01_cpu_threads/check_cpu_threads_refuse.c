/*
 * check_cpu_threads_refuse.c - a thread that cannot be started. make check
 * builds cpu_threads.c once more (build/cpu_threads-refuse), linked with
 * --wrap=pthread_create, which sends every pthread_create call here first.
 * With CPU_THREADS_REFUSE=N set, the N-th call starts no thread and returns
 * EAGAIN, as pthread_create does when the process may not have one more
 * thread (a low RLIMIT_NPROC, or too little memory for its stack); every
 * other call starts its thread as usual.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

int __real_pthread_create(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
int __wrap_pthread_create(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

int __wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
                          void *arg)
{
    static long calls;
    const char *refuse = getenv("CPU_THREADS_REFUSE");
    if (refuse && __atomic_add_fetch(&calls, 1, __ATOMIC_SEQ_CST) == atol(refuse))
        return EAGAIN;
    return __real_pthread_create(thread, attr, start, arg);
}
