/*
 * block_tuning_yours.cuh - exercise 04, the part you write: sweep_grids, which
 * times stage 03's kernel on every grid of the sweep; fastest, which picks
 * the best of them; smallest_within_5pct, which picks the smallest grid about
 * as fast as the best; and predicted_knee, which says from the SM's limits
 * where the time should stop falling. block_tuning.cu calls all four from
 * main, then prints the table, the best, the predicted knee and the pick: look for
 * TODO.
 */

/* Times the kernel with time_grid on every grid of the sweep, each added to
 * s in the order timed, and returns the index in s->results of the book's
 * grid (BOOK_BLOCKS_PER_SM blocks per SM). */
static int sweep_grids(const struct stage *stage, const struct options *opt, const struct gpu *gpu,
                       const struct input *in, struct sweep *s)
{
    /* TODO: time every grid from 1 to MOST_BLOCKS_PER_SM blocks per SM, doubling
     * each time, not only the book's; return the index of the book's grid
     * (see the README's hints). */
    int book = s->count;
    time_grid(stage, opt, gpu, in, BOOK_BLOCKS_PER_SM, s);
    return book;
}

/* The result with the shortest kernel-only time; on a tie, the smaller grid,
 * which came first. Kernel only, because end to end is mostly the copy, the
 * same for every grid. */
static int fastest(const struct sweep *s)
{
    /* TODO: return the index of the result with the smallest kernel_ms (the
     * first of them on a tie). For now the first result is called the best. */
    (void)s;
    return 0;
}

/* The smallest grid whose kernel-only time is within 5% of the best's (best
 * is fastest's index). Within 5% means kernel_ms <= 1.05 * the best's
 * kernel_ms, compared in double: exactly 1.05 times is within. Fewer blocks
 * mean fewer merges into the global bins, for about the same speed. */
static int smallest_within_5pct(const struct sweep *s, int best)
{
    /* TODO: return the index of that result. For now the best itself is
     * named, which is right only when no smaller grid comes within 5%. */
    (void)s;
    return best;
}

/* Where the time should stop falling, from the SM's limits alone: the most
 * blocks of threads_per_block threads that one SM holds at once, and which
 * of its two limits (sm.threads, sm.blocks) stops it there. */
static struct knee predicted_knee(int threads_per_block, struct sm_limits sm)
{
    /* TODO: how many such blocks fit in sm.threads, and how many does
     * sm.blocks allow? Which is smaller? (see the README's hints). For now
     * the book's grid is called the knee. */
    (void)threads_per_block;
    (void)sm;
    struct knee knee = {BOOK_BLOCKS_PER_SM, BLOCKS_BIND};
    return knee;
}
