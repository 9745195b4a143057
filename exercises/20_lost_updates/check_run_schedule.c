/*
 * check_run_schedule.c - a program make check builds beside the check: your
 * lost_updates.c with this main in place of its own, which calls your
 * run_schedule directly on a schedule the check wrote to a file. So the check
 * reaches schedules far longer than --schedule takes (30000 steps), up to the
 * program's limits (1024 threads, a million adds on one thread, 1048576 adds
 * in all), and reads the lost adds of each thread, which the program prints
 * only for --schedule.
 *
 *   run_schedule FILE    FILE: threads, adds and steps (3 longs), then the steps (ints)
 *
 * It prints the lines --schedule prints, which the check reads the same way.
 */
#define main lost_updates_main /* your program's main, which this one replaces */
#include YOUR_PROGRAM          /* your lost_updates.c: the Makefile names it */
#undef main

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "run_schedule: usage: run_schedule FILE (written by the check)\n");
        return EXIT_USAGE;
    }
    FILE *file = fopen(argv[1], "rb");
    long head[3]; /* threads, adds, steps */
    if (!file || fread(head, sizeof head, 1, file) != 1 || head[0] < 1 || head[0] > MAX_THREADS ||
        head[1] < 1 || head[2] != STEPS_AN_ADD * head[0] * head[1])
        fail("%s: not a schedule written by the check", argv[1]);
    int threads = (int)head[0];
    long adds = head[1], steps = head[2];
    int *schedule = checked_malloc((size_t)steps * sizeof *schedule);
    if (fread(schedule, sizeof *schedule, (size_t)steps, file) != (size_t)steps)
        fail("%s: shorter than its %ld steps", argv[1], steps);
    fclose(file);
    long *lost = checked_malloc((size_t)threads * sizeof *lost);
    long final = run_schedule(schedule, steps, threads, adds, lost);
    long increments = (long)threads * adds;
    printf("run_schedule: your run_schedule, called by the check's own main\n");
    printf("schedule:   %ld steps: %d threads x %ld adds (from %s)\n", steps, threads, adds,
           argv[1]);
    printf("final:      %ld (%ld if no add were lost)\n", final, increments);
    printf("lost:       %ld of %ld increments\n", increments - final, increments);
    printf("by thread: ");
    for (int t = 0; t < threads; t++)
        printf(" %ld", lost[t]);
    printf("\n");
    free(lost);
    free(schedule);
    return EXIT_OK;
}
