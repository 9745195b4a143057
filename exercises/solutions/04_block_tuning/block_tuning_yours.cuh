/*
 * block_tuning_yours.cuh - exercise 04, the part you write: sweep_grids, which
 * times stage 03's kernel on every grid of the sweep; fastest, which picks
 * the best of them; smallest_within_5pct, which picks the smallest grid about
 * as fast as the best; and predicted_knee, which says from the SM's limits
 * where the time should stop falling. block_tuning.cu calls all four from
 * main, then prints the table, the best, the predicted knee and the pick. The
 * reference solution.
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

/* The smallest grid whose kernel-only time is within 5% of the best's (best
 * is fastest's index). Within 5% means kernel_ms <= 1.05 * the best's
 * kernel_ms, compared in double: exactly 1.05 times is within. Fewer blocks
 * mean fewer merges into the global bins, for about the same speed. */
static int smallest_within_5pct(const struct sweep *s, int best)
{
    double limit = 1.05 * s->results[best].kernel_ms;
    for (int i = 0; i < best; i++)
        if (s->results[i].kernel_ms <= limit)
            return i;
    return best;
}

/* Where the time should stop falling, from the SM's limits alone: the most
 * blocks of threads_per_block threads that one SM holds at once, and which
 * of its two limits (sm.threads, sm.blocks) stops it there. */
static struct knee predicted_knee(int threads_per_block, struct sm_limits sm)
{
    /* An SM holds whole warps: a block of 100 threads takes 4 warps' slots. */
    int warps_per_block = (threads_per_block + WARP - 1) / WARP;
    int by_threads = (sm.threads / WARP) / warps_per_block; /* whole blocks only */
    struct knee knee;
    knee.blocks_per_sm = by_threads < sm.blocks ? by_threads : sm.blocks;
    knee.binds = by_threads < sm.blocks   ? THREADS_BIND
                 : by_threads > sm.blocks ? BLOCKS_BIND
                                          : BOTH_BIND;
    return knee;
}
