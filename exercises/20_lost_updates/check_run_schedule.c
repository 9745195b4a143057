/*
 * check_run_schedule.c - a program make check builds beside the check: your
 * lost_updates.c with this main in place of its own, which calls your
 * run_schedule directly on a schedule the check wrote to a file. So the check
 * reaches schedules far longer than --schedule takes (30000 steps), up to the
 * program's limits (1024 threads, a million adds on one thread, 1048576 adds
 * in all), and reads the lost adds of each thread, which the program prints
 * only for --schedule.
 *
 *   run_schedule FILE... each FILE: one schedule or more, back to back, each
 *                        threads, adds and steps (3 longs), then the steps (ints)
 *   run_schedule --stamps  a thread that comes back after 2^16, ... 2^22 calls
 *
 * It prints the lines --schedule prints, which the check reads the same way,
 * once for each schedule, in order. Every schedule's steps are read into one
 * buffer, rewritten in place from one call to the next, as the program's own
 * random trials rewrite theirs: each call must run the steps the buffer
 * holds now. Built with COUNT_BLOCKS (and common/tests/guarded_alloc.c, which puts a
 * page that may not be touched after each block), it also prints the blocks
 * of memory still allocated after each call.
 *
 * --stamps calls run_schedule on 2 threads (thread 0's add, then thread 1's:
 * nothing lost), then on thread 0 alone 2^16 - 1 times, then on the 2 threads
 * again, then on thread 0 alone 2^17 - 1 times, and so on to 2^22: 8 million
 * calls, a second or two. Each call of 2 threads prints a line 'stamps:
 * after G calls without thread 1: final F, by thread L0 L1'. Something kept
 * from call to call and known by a call number of 16 to 22 bits comes round
 * to the number of thread 1's last call at one of them.
 */
#define main lost_updates_main /* your program's main, which this one replaces */
#include YOUR_PROGRAM          /* your lost_updates.c: the Makefile names it */
#undef main

#ifdef COUNT_BLOCKS
long guarded_blocks(void); /* common/tests/guarded_alloc.c: the blocks allocated and not freed */
#endif

static int stamps(void)
{
    static const int both[6] = {0, 0, 0, 1, 1, 1}, alone[3] = {0, 0, 0};
    long lost[2];
    for (int k = 16; k <= 22; k++) {
        long final = run_schedule(both, 6, 2, 1, lost);
        if (k > 16)
            printf("stamps:     after %ld calls without thread 1: final %ld, by thread %ld %ld\n",
                   (1L << (k - 1)) - 1, final, lost[0], lost[1]);
        for (long c = 1; c < 1L << k; c++)
            run_schedule(alone, 3, 1, 1, lost);
    }
    long final = run_schedule(both, 6, 2, 1, lost);
    printf("stamps:     after %ld calls without thread 1: final %ld, by thread %ld %ld\n",
           (1L << 22) - 1, final, lost[0], lost[1]);
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "run_schedule: usage: run_schedule FILE... (written by the check)\n");
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--stamps") == 0)
        return stamps();
    int *schedule = NULL; /* one buffer for every schedule, grown when one needs more */
    long room = 0;
    for (int f = 1; f < argc; f++) {
        FILE *file = fopen(argv[f], "rb");
        if (!file)
            fail("%s: not a schedule written by the check", argv[f]);
        long head[3] = {0, 0, 0}; /* threads, adds, steps */
        for (int in_file = 0; fread(head, sizeof head, 1, file) == 1 || in_file == 0; in_file++) {
            if (head[0] < 1 || head[0] > MAX_THREADS || head[1] < 1 ||
                head[2] != STEPS_AN_ADD * head[0] * head[1])
                fail("%s: not a schedule written by the check", argv[f]);
            int threads = (int)head[0];
            long adds = head[1], steps = head[2];
            if (steps > room) {
                free(schedule);
                schedule = checked_malloc((size_t)steps * sizeof *schedule);
                room = steps;
            }
            if (fread(schedule, sizeof *schedule, (size_t)steps, file) != (size_t)steps)
                fail("%s: shorter than its %ld steps", argv[f], steps);
            long *lost = checked_malloc((size_t)threads * sizeof *lost);
            long final = run_schedule(schedule, steps, threads, adds, lost);
            long increments = (long)threads * adds;
            printf("run_schedule: your run_schedule, called by the check's own main\n");
            printf("schedule:   %ld steps: %d threads x %ld adds (from %s)\n", steps, threads, adds,
                   argv[f]);
            printf("final:      %ld (%ld if no add were lost)\n", final, increments);
            printf("lost:       %ld of %ld increments\n", increments - final, increments);
            printf("by thread: ");
            for (int t = 0; t < threads; t++)
                printf(" %ld", lost[t]);
            printf("\n");
            free(lost);
#ifdef COUNT_BLOCKS
            printf("blocks:     %ld still allocated\n", guarded_blocks() - (schedule != NULL));
#endif
        }
        fclose(file);
    }
    free(schedule);
    return EXIT_OK;
}
