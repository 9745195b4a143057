/*
 * block_tuning_yours.cuh - exercise 04, the part you write: sweep_grids, which
 * times stage 03's kernel on every grid of the sweep, and fastest, which
 * picks the best of them. block_tuning.cu calls both from main, then prints
 * the table and the best. The reference solution.
 */

/* Times the kernel with time_grid on every grid of the sweep, each added to
 * s in the order timed, and returns the index in s->results of the book's
 * grid (BOOK_BLOCKS_PER_SM blocks per SM). */
static int sweep_grids(const struct stage *stage, const struct options *opt, const struct gpu *gpu,
                       const struct input *in, struct sweep *s)
{
    int book = -1;
    for (int per_sm = 1; per_sm <= MOST_BLOCKS_PER_SM; per_sm *= 2) {
        if (per_sm == BOOK_BLOCKS_PER_SM)
            book = s->count;
        time_grid(stage, opt, gpu, in, per_sm, s);
    }
    return book;
}

/* The result with the shortest kernel-only time; on a tie, the smaller grid,
 * which came first. Kernel only, because end to end is mostly the copy, the
 * same for every grid. */
static int fastest(const struct sweep *s)
{
    int best = 0;
    for (int i = 1; i < s->count; i++)
        if (s->results[i].kernel_ms < s->results[best].kernel_ms)
            best = i;
    return best;
}
