/*
 * test_pieces.c - the pieces of 08_generalized that need no GPU.
 *
 * even_bins.h against the exact rule floor(d x bins /
 * width), worked out here in 64-bit integers: every key of every small range,
 * every key of ranges of u16 size, and on ranges up to 2^32 every bin's first
 * key, the key before it and keys at random; keys outside the range in no
 * bin; a range where the 32-bit reciprocal alone is wrong takes the 64-bit
 * one; bad ranges are refused with their reason.
 *
 * float_order.h: every one of the 2^32 bit patterns comes back bit for bit,
 * and walking every float from -infinity to +infinity the orders rise.
 */
#include "../even_bins.h"
#include "../float_order.h"

#include <math.h>

#include <check.h>
#include <stdlib.h>
#include <string.h>

static uint32_t exact_bin(uint64_t lo, uint64_t width, uint64_t bins, uint32_t key)
{
    uint64_t d = (uint32_t)(key - (uint32_t)lo);
    return d < width ? (uint32_t)(d * bins / width) : NO_BIN;
}

static struct even_bins made(uint64_t lo, uint64_t hi, uint64_t bins)
{
    struct even_bins r;
    char why[256] = "";
    ck_assert_msg(even_bins_make(&r, lo, hi, bins, why, sizeof why) == 0,
                  "[%llu, %llu) in %llu: %s", (unsigned long long)lo, (unsigned long long)hi,
                  (unsigned long long)bins, why);
    return r;
}

static uint64_t state = 12345;
static uint32_t random32(void)
{
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(state >> 32);
}

/* Every key of [lo, lo + width) and a few around it, for every bins. */
START_TEST(test_every_key_of_small_ranges)
{
    uint64_t width = 1 + (uint64_t)_i;
    const uint64_t los[] = {0, 7, ((uint64_t)1 << 32) - width};
    for (int l = 0; l < 3; l++)
        for (uint64_t bins = 1; bins <= width; bins++) {
            struct even_bins r = made(los[l], los[l] + width, bins);
            for (int64_t k = (int64_t)los[l] - 2; k < (int64_t)(los[l] + width + 2); k++) {
                if (k < 0 || k > UINT32_MAX)
                    continue;
                uint32_t key = (uint32_t)k;
                ck_assert_msg(even_bins_of(&r, key) == exact_bin(los[l], width, bins, key),
                              "[%llu, +%llu) in %llu: key %u is in %u, not %u",
                              (unsigned long long)los[l], (unsigned long long)width,
                              (unsigned long long)bins, key, even_bins_of(&r, key),
                              exact_bin(los[l], width, bins, key));
            }
        }
}
END_TEST

/* Ranges of u16 size: every key, at bin counts that divide and do not. */
START_TEST(test_every_key_of_u16_ranges)
{
    const uint64_t widths[] = {65536, 65535, 59900, 40000, 32768, 257};
    const uint64_t bins_of[] = {3000, 65535, 1000, 7, 32767, 256, 1, 2};
    uint64_t width = widths[_i % 6], bins = bins_of[_i % 8];
    if (bins > width)
        bins = width;
    struct even_bins r = made(100, 100 + width, bins);
    ck_assert_msg(r.kind != EVEN_BINS_WIDE, "a u16 range needs no 64-bit rule");
    for (uint32_t key = 0; key < 100 + width + 5; key++)
        ck_assert_msg(even_bins_of(&r, key) == exact_bin(100, width, bins, key),
                      "width %llu, %llu bins: key %u is in %u, not %u", (unsigned long long)width,
                      (unsigned long long)bins, key, even_bins_of(&r, key),
                      exact_bin(100, width, bins, key));
}
END_TEST

/* Wide ranges: every bin's first key and the key before it, the ends, and
 * keys at random. */
START_TEST(test_edges_of_wide_ranges)
{
    const uint64_t widths[] = {(uint64_t)1 << 32, ((uint64_t)1 << 32) - 1,
                               3000000007ull,     ((uint64_t)1 << 31) + 1,
                               1000003,           65537};
    const uint64_t bins_of[] = {1, 2, 3, 7, 1000, 3000, 65536, 99991, 1048576};
    uint64_t width = widths[_i % 6], bins = bins_of[_i / 6];
    if (bins > width)
        bins = width - 1; /* the most a range holds but one: its reciprocal is the hardest */
    uint64_t lo = width == (uint64_t)1 << 32 ? 0 : 1;
    struct even_bins r = made(lo, lo + width, bins);
    for (uint64_t b = 0; b < bins; b++) {
        uint64_t first = (b * width + bins - 1) / bins;
        for (int side = -1; side <= 0; side++) {
            if (first == 0 && side < 0)
                continue;
            uint32_t key = (uint32_t)(lo + first + side);
            ck_assert_msg(even_bins_of(&r, key) == exact_bin(lo, width, bins, key),
                          "width %llu, %llu bins: key %u is in %u, not %u",
                          (unsigned long long)width, (unsigned long long)bins, key,
                          even_bins_of(&r, key), exact_bin(lo, width, bins, key));
        }
    }
    for (int i = 0; i < 100000; i++) {
        uint32_t key = random32();
        ck_assert_msg(even_bins_of(&r, key) == exact_bin(lo, width, bins, key),
                      "width %llu, %llu bins: key %u is in %u, not %u", (unsigned long long)width,
                      (unsigned long long)bins, key, even_bins_of(&r, key),
                      exact_bin(lo, width, bins, key));
    }
}
END_TEST

/* The check that chooses the rule can fail: over 2^32 - 1 values in 3 bins
 * the 32-bit reciprocal puts an edge key in the wrong bin, so the 64-bit one
 * is taken, and is right there. */
START_TEST(test_a_range_the_32_bit_rule_gets_wrong_takes_the_64_bit_one)
{
    uint64_t width = ((uint64_t)1 << 32) - 1;
    struct even_bins narrow = {
        0, width, 3, EVEN_BINS_NARROW, (uint32_t)even_bins_reciprocal(3, width, 32), 0};
    ck_assert(!even_bins_edges_exact(&narrow));
    struct even_bins r = made(0, width, 3);
    ck_assert_int_eq(r.kind, EVEN_BINS_WIDE);
    ck_assert(even_bins_edges_exact(&r));
    ck_assert_int_eq(made(0, 256, 256).kind, EVEN_BINS_IDENTITY);
    ck_assert_int_eq(made(0, (uint64_t)1 << 32, 1048576).kind, EVEN_BINS_NARROW);
}
END_TEST

START_TEST(test_bad_ranges_are_refused_with_a_reason)
{
    struct even_bins r;
    char why[256];
    ck_assert_int_eq(even_bins_make(&r, 5, 5, 1, why, sizeof why), 2);
    ck_assert_msg(strstr(why, "holds no 32-bit key"), "%s", why);
    ck_assert_int_eq(even_bins_make(&r, 0, ((uint64_t)1 << 32) + 1, 1, why, sizeof why), 2);
    ck_assert_int_eq(even_bins_make(&r, 0, 10, 11, why, sizeof why), 2);
    ck_assert_msg(strstr(why, "at most one bin per value"), "%s", why);
    ck_assert_int_eq(even_bins_make(&r, 0, 10, 0, why, sizeof why), 2);
}
END_TEST

/* --------------------------------------------------------- float_order -- */

START_TEST(test_every_bit_pattern_comes_back)
{
    /* a plain test in the loop, one check after it: 2^32 Check calls are slow */
    uint32_t bits = 0, wrong = 0, first_wrong = 0;
    do {
        float f, back;
        memcpy(&f, &bits, sizeof f);
        back = float_from_order(float_order(f));
        uint32_t back_bits;
        memcpy(&back_bits, &back, sizeof back_bits);
        if (back_bits != bits && wrong++ == 0)
            first_wrong = bits;
    } while (++bits != 0);
    ck_assert_msg(wrong == 0, "%u patterns do not come back, the first 0x%08x", wrong, first_wrong);
}
END_TEST

static float float_of(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Every float in increasing order: the negatives from -infinity (0xff800000)
 * down to -0 (0x80000000) in their bits, then +0 up to +infinity. Each one's
 * order is above the one before, and the float itself is not below it (-0
 * and +0 are equal as floats, and -0 is ordered first). */
START_TEST(test_orders_rise_with_the_floats)
{
    uint32_t previous = FLOAT_ORDER_MAX_START, wrong = 0, first_wrong = 0;
    float previous_float = -INFINITY;
    uint64_t steps = 0;
    for (uint32_t bits = 0xff800000u;; bits--) {
        uint32_t order = float_order(float_of(bits));
        if ((order <= previous || float_of(bits) < previous_float) && wrong++ == 0)
            first_wrong = bits;
        previous = order, previous_float = float_of(bits), steps++;
        if (bits == 0x80000000u)
            break;
    }
    for (uint32_t bits = 0; bits <= 0x7f800000u; bits++) {
        uint32_t order = float_order(float_of(bits));
        if ((order <= previous || float_of(bits) < previous_float) && wrong++ == 0)
            first_wrong = bits;
        previous = order, previous_float = float_of(bits), steps++;
    }
    ck_assert_msg(wrong == 0, "%u floats out of order, the first 0x%08x", wrong, first_wrong);
    ck_assert_uint_lt(previous, FLOAT_ORDER_MIN_START);
    ck_assert_uint_eq(steps, 2 * (uint64_t)0x7f800001u); /* every float but the NaNs */
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("08_generalized pieces");
    TCase *tc = tcase_create("rule");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_every_key_of_small_ranges, 0, 300);
    tcase_add_loop_test(tc, test_every_key_of_u16_ranges, 0, 48);
    tcase_add_loop_test(tc, test_edges_of_wide_ranges, 0, 54);
    tcase_add_test(tc, test_a_range_the_32_bit_rule_gets_wrong_takes_the_64_bit_one);
    tcase_add_test(tc, test_bad_ranges_are_refused_with_a_reason);
    suite_add_tcase(suite, tc);
    TCase *order = tcase_create("float order");
    tcase_set_timeout(order, 300);
    tcase_add_test(order, test_every_bit_pattern_comes_back);
    tcase_add_test(order, test_orders_rise_with_the_floats);
    suite_add_tcase(suite, order);
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? 1 : 0;
}
