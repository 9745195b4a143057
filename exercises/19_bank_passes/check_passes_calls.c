/*
 * check_passes_calls.c - a program make check builds beside the check: your
 * bank_passes.c with this main in place of its own, which calls your passes
 * on one warp after another in one process, of 32, 5, 1, 32, 17 lanes and
 * then of any number, on words that come back from one warp to the next.
 * The program itself only ever calls passes on warps of 32 lanes, or once
 * on --words, so what passes keeps from one call to the next is tried here
 * on warps of fewer lanes after more, and more after fewer.
 *
 *   passes-calls WARPS SEED   prints a line a warp: its passes, its lanes, its words
 *
 * The check works out each warp's passes by the rule and compares.
 */
#define main bank_passes_main /* your program's main, which this one replaces */
#include YOUR_PROGRAM         /* your bank_passes.c: the Makefile names it */
#undef main

#include <stdint.h>

/* splitmix64, as the check's */
static uint64_t next_word(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "passes-calls: usage: passes-calls WARPS SEED (run by the check)\n");
        return EXIT_USAGE;
    }
    long warps = strtol(argv[1], NULL, 10);
    uint64_t state = strtoull(argv[2], NULL, 10);
    static const int first_lanes[] = {32, 5, 1, 32, 17, 32, 2, 31, 1, 1, 32, 3};
    for (long w = 0; w < warps; w++) {
        int lanes = w < 12 ? first_lanes[w] : 1 + (int)(next_word(&state) % LANES);
        /* words of 8 banks and 4 rows, so that they come back warp after
         * warp; one warp in 8 also on rows from the whole range */
        unsigned rows = w % 8 == 7 ? (MAX_WORD + 1) / BANKS : 4;
        unsigned word[2 * LANES];
        for (int l = 0; l < lanes; l++)
            word[l] =
                (unsigned)(next_word(&state) % rows) * BANKS + (unsigned)(next_word(&state) % 8);
        for (int l = lanes; l < 2 * LANES; l++) /* past the lanes: words that would conflict */
            word[l] = word[0] + BANKS * (unsigned)(l + 1);
        printf("%d %d", passes(word, lanes), lanes);
        for (int l = 0; l < lanes; l++)
            printf(" %u", word[l]);
        printf("\n");
    }
    return EXIT_OK;
}
