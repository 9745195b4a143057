/*
 * check_run_schedule.c - a program make check builds beside the check: your
 * lost_updates.c with this main in place of its own, which calls your
 * run_schedule directly on a schedule the check wrote to a file. So the check
 * reaches schedules far longer than --schedule takes (30000 steps), up to the
 * program's limits (1024 threads, a million adds on one thread, 1048576 adds
 * in all), and reads the lost adds of each thread, which the program prints
 * only for --schedule.
 *
 *   run_schedule FILE... each FILE: threads, adds and steps (3 longs), then the steps (ints)
 *
 * It prints the lines --schedule prints, which the check reads the same way,
 * once for each FILE, in order. Every FILE's steps are read into one buffer,
 * rewritten in place from one call to the next, as the program's own random
 * trials rewrite theirs: each call must run the steps the buffer holds now.
 */
#define main lost_updates_main /* your program's main, which this one replaces */
#include YOUR_PROGRAM          /* your lost_updates.c: the Makefile names it */
#undef main

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "run_schedule: usage: run_schedule FILE... (written by the check)\n");
        return EXIT_USAGE;
    }
    int *schedule = NULL; /* one buffer for every FILE, grown when one needs more */
    long room = 0;
    for (int f = 1; f < argc; f++) {
        FILE *file = fopen(argv[f], "rb");
        long head[3]; /* threads, adds, steps */
        if (!file || fread(head, sizeof head, 1, file) != 1 || head[0] < 1 ||
            head[0] > MAX_THREADS || head[1] < 1 || head[2] != STEPS_AN_ADD * head[0] * head[1])
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
        fclose(file);
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
    }
    free(schedule);
    return EXIT_OK;
}
