/*
 * laws.cuh - exercise 17's host checks, given (generalized.cu includes it;
 * you need not edit it): --laws tries your combines on many triples of
 * values for the laws the library relies on, and calls your transform as the
 * library would, on chosen keys and items, against exact_split. It prints a
 * line per check, yes or no with the first counterexample, and needs no GPU.
 */
/* -------------------------------------------- the host: your combines' laws -- */

/* The values to try a combine on: first every triple of 9 small values (so
 * that a counterexample is a short one), then values from the seed
 * (splitmix64), three times in four one of a few, so that values meet (ties)
 * and the extremes come up, else any 32 bits. */
#define SMALL_TRIPLES (9 * 9 * 9)
static unsigned draw(uint64_t *state)
{
    static const unsigned few[] = {0, 1, 2, 3, 255, 0x80000000u, 0xfffffffeu, 0xffffffffu};
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return z % 4 ? few[(z >> 8) % 8] : (unsigned)(z >> 32);
}
static void draw(uint64_t *state, int small, unsigned *v)
{
    *v = small >= 0 ? (unsigned)small : draw(state);
}
static void draw(uint64_t *state, int small, pick *v) /* small: {0, 0} to {2, 2} */
{
    *v = small >= 0 ? pick{(unsigned)small / 3, (unsigned)small % 3}
                    : pick{draw(state), draw(state)};
}

static bool same(unsigned a, unsigned b)
{
    return a == b;
}
static bool same(pick a, pick b)
{
    return a.distance == b.distance && a.pixel == b.pixel;
}

struct shown {
    char text[32];
};
static shown show(unsigned v)
{
    shown s;
    snprintf(s.text, sizeof s.text, "%u", v);
    return s;
}
static shown show(pick v)
{
    shown s;
    snprintf(s.text, sizeof s.text, "{%u, %u}", v.distance, v.pixel);
    return s;
}

/* What each combine is meant to give, in the README's words: written here,
 * not taken from yours. */
static pick nearer(pick a, pick b)
{
    if (a.distance != b.distance)
        return a.distance < b.distance ? a : b;
    return a.pixel <= b.pixel ? a : b;
}
static unsigned smaller(unsigned a, unsigned b)
{
    return a <= b ? a : b;
}

#define TRIALS 100000

/* Tries combine f on TRIALS triples of values: the three laws the library
 * relies on, and that f gives what it is meant to. One line each, yes or no
 * with the first counterexample; returns how many say no. */
template <typename C, typename V = typename C::value_type>
static int combine_laws(const char *name, V (*meant)(V, V), const char *meaning, uint64_t seed)
{
    const C f{};
    const V e = C::identity();
    char why[4][400] = {"", "", "", ""};
    uint64_t state = seed;
    for (long t = 0; t < TRIALS; t++) {
        bool small = t < SMALL_TRIPLES;
        V a, b, c;
        draw(&state, small ? t % 9 : -1, &a), draw(&state, small ? t / 9 % 9 : -1, &b);
        draw(&state, small ? t / 81 : -1, &c);
        V ab_c = f(f(a, b), c), a_bc = f(a, f(b, c)), ab = f(a, b), ba = f(b, a);
        if (!why[0][0] && !same(ab_c, a_bc))
            snprintf(why[0], sizeof why[0],
                     "a = %s, b = %s, c = %s: %s(%s(a, b), c) = %s, %s(a, %s(b, c)) = %s",
                     show(a).text, show(b).text, show(c).text, name, name, show(ab_c).text, name,
                     name, show(a_bc).text);
        if (!why[1][0] && !same(ab, ba))
            snprintf(why[1], sizeof why[1], "%s(%s, %s) = %s, %s(%s, %s) = %s", name, show(a).text,
                     show(b).text, show(ab).text, name, show(b).text, show(a).text, show(ba).text);
        if (!why[2][0] && !(same(f(e, a), a) && same(f(a, e), a)))
            snprintf(why[2], sizeof why[2],
                     "identity() = %s: %s(identity(), %s) = %s, %s(%s, identity()) = %s",
                     show(e).text, name, show(a).text, show(f(e, a)).text, name, show(a).text,
                     show(f(a, e)).text);
        if (!why[3][0] && !same(ab, meant(a, b)))
            snprintf(why[3], sizeof why[3], "%s(%s, %s) = %s, not %s", name, show(a).text,
                     show(b).text, show(ab).text, show(meant(a, b)).text);
    }
    const char *const laws[4] = {"associative (any grouping)", "commutative (any order)",
                                 "identity() leaves every value as it is", meaning};
    int failed = 0;
    for (int l = 0; l < 4; l++) {
        printf("%s:%*s%s: %s%s\n", name, 12 - (int)strlen(name), "", laws[l],
               why[l][0] ? "no: " : "yes", why[l]);
        failed += why[l][0] != 0;
    }
    return failed;
}

/* ------------------------------------- the host: your transform's outputs -- */

/* The outputs of one call of a transform, as the library's out would take them
 * (__device__ too, as yours is: the host is where it is called). */
struct recorder {
    int count;
    unsigned bin[16];
    float weight[16];
    __host__ __device__ void operator()(unsigned b, float w)
    {
        if (count < 16)
            bin[count] = b, weight[count] = w;
        count++;
    }
};

/* Whether got puts the weight of the pairs (bin, weight) in every bin, within tol. */
static bool same_split(const recorder &got, const unsigned *bin, const double *weight, int pairs,
                       double tol)
{
    for (int side = 0; side < 2; side++)
        for (int k = 0; k < (side ? pairs : (got.count < 16 ? got.count : 16)); k++) {
            unsigned b = side ? bin[k] : got.bin[k];
            double sum = 0;
            for (int g = 0; g < got.count && g < 16; g++)
                sum += got.bin[g] == b ? got.weight[g] : 0.0;
            for (int w = 0; w < pairs; w++)
                sum -= bin[w] == b ? weight[w] : 0.0;
            if (!(fabs(sum) <= tol)) /* a NaN weight too */
                return false;
        }
    return got.count <= 16;
}

/* "bin 3: 0.75, bin 4: 0.25", or "nothing". */
static const char *pairs_text(char *text, size_t size, const unsigned *bin, const double *weight,
                              int pairs)
{
    int used = snprintf(text, size, "%s", pairs ? "" : "nothing");
    for (int k = 0; k < pairs && used < (int)size; k++)
        used +=
            snprintf(text + used, size - used, "%sbin %u: %.9g", k ? ", " : "", bin[k], weight[k]);
    return text;
}

enum { BETWEEN, ENDS, OUTSIDE, BELOW_BINS, PER_ITEM, REACHED, PADDING, OUTPUT_CHECKS };

/* Keys to try on range r: an edge, a quarter, the centre and three quarters
 * of the first two bins, the middle one and the last two; a hundredth of a
 * bin past the middle bin's edges (a share of a few hundred-thousandths);
 * the range's ends and just inside or outside them; 0, a negative, NaN and
 * the infinities. */
static int keys_to_try(const key_range &r, float *key)
{
    const unsigned some[] = {0, 1, r.bins / 2, r.bins - 2, r.bins - 1};
    double width = ((double)r.hi - r.lo) / r.bins;
    int count = 0;
    for (int s = 0; s < 5; s++)
        for (double at = 0; at < 1 && some[s] < r.bins && (s == 0 || some[s] > some[s - 1]);
             at += 0.25)
            key[count++] = (float)(r.lo + (some[s] + at) * width);
    for (double at : {0.01, 0.99})
        key[count++] = (float)(r.lo + (r.bins / 2 + at) * width);
    const float ends[] = {r.lo,     nextafterf(r.lo, -INFINITY),
                          r.hi,     nextafterf(r.hi, -INFINITY),
                          0.0f,     -0.0f,
                          -0.3f,    NAN,
                          INFINITY, -INFINITY};
    for (float x : ends)
        key[count++] = x;
    return count;
}

/* Calls spline_bins on chosen keys, each alone in an item, and on whole
 * items, and compares its outputs with exact_split's. One line per check, yes
 * or no with the first counterexample (with print, every key's outputs);
 * returns how many say no. */
static int transform_checks(bool print)
{
    /* the last two are far from 0: a key's place there must not come from two large
     * products, nor from lo x scale rounded (exact for the first, not for the second) */
    const key_range ranges[] = {
        key_range_of(0, 1, 10),         key_range_of(-1.5f, 2.5f, 8),
        key_range_of(0, 1, 1),          key_range_of(-1, 1, 2),
        key_range_of(0.1f, 0.7f, 6),    key_range_of(0, 1, 1000),
        key_range_of(1000, 1001, 1000), key_range_of(1000.3f, 1001.3f, 1000)};
    char why[OUTPUT_CHECKS][512] = {};
    int most_from_four = 0;
    char got_text[256], want_text[160];
    for (const key_range &r : ranges) {
        const spline_bins t = {r};
        const double tol = split_tolerance(r.bins);
        float key[40];
        int keys = keys_to_try(r, key);
        for (int k = 0; k < keys; k++) {
            recorder got = {};
            t(keys_in{NULL, 1}, make_float4(key[k], 0, 0, 0), 0, got);
            unsigned bin[3];
            double weight[3], got_weight[16];
            int shares[3];
            long centre = 0;
            int pairs = exact_split(r, key[k], bin, weight, shares, &centre);
            /* the end bins' keys are those whose nearest centre is an end bin's */
            int check = !pairs                                      ? OUTSIDE
                        : centre == 0 || centre == (long)r.bins - 1 ? ENDS
                                                                    : BETWEEN;
            for (int g = 0; g < got.count && g < 16; g++) {
                got_weight[g] = got.weight[g];
                if (got.bin[g] >= r.bins && !why[BELOW_BINS][0])
                    snprintf(why[BELOW_BINS], sizeof why[BELOW_BINS],
                             "[%g, %g) in %u bins, key %.9g: bin %u", r.lo, r.hi, r.bins, key[k],
                             got.bin[g]);
            }
            pairs_text(got_text, sizeof got_text, got.bin, got_weight,
                       got.count < 16 ? got.count : 16);
            if (!same_split(got, bin, weight, pairs, tol) && !why[check][0])
                snprintf(why[check], sizeof why[check],
                         "[%g, %g) in %u bins, key %.9g: yours gives %s; wanted %s", r.lo, r.hi,
                         r.bins, key[k], got_text,
                         pairs_text(want_text, sizeof want_text, bin, weight, pairs));
            if (print)
                printf("key %.9g in [%.9g, %.9g) of %u bins: %s\n", key[k], r.lo, r.hi, r.bins,
                       got_text);
        }
        /* item 1, keys 4 to 7, all inside: whole (n = 8), then with the input ending at key 4 */
        double width = ((double)r.hi - r.lo) / r.bins;
        float4 item = make_float4(r.lo + 0.3 * width, r.hi - 0.3 * width,
                                  r.lo + r.bins / 2.0 * width, r.lo + 0.6 * width);
        recorder whole = {}, cut = {};
        t(keys_in{NULL, 8}, item, 1, whole);
        if (whole.count > spline_bins::outputs && !why[PER_ITEM][0])
            snprintf(why[PER_ITEM], sizeof why[PER_ITEM],
                     "[%g, %g) in %u bins, an item of 4 keys inside: %d outputs", r.lo, r.hi,
                     r.bins, whole.count);
        /* outputs is the most an item emits, not only a bound: 4 keys of the bins between
         * the end bins, none on a bin's edge, each split in three */
        if (r.bins >= 5) {
            recorder four = {};
            t(keys_in{NULL, 4},
              make_float4(r.lo + 1.4 * width, r.lo + (r.bins / 2 + 0.2) * width,
                          r.lo + (r.bins / 2 + 0.7) * width, r.lo + (r.bins - 1.5) * width),
              0, four);
            most_from_four = four.count > most_from_four ? four.count : most_from_four;
        }
        /* the padding's test, apart from the split: key 4's outputs alone, as yours gives them */
        recorder alone = {};
        t(keys_in{NULL, 5}, item, 1, cut);
        t(keys_in{NULL, 1}, make_float4(item.x, 0, 0, 0), 0, alone);
        bool same_outputs = cut.count == alone.count;
        for (int g = 0; g < cut.count && g < 16 && same_outputs; g++)
            same_outputs = cut.bin[g] == alone.bin[g] && cut.weight[g] == alone.weight[g];
        if (!same_outputs && !why[PADDING][0])
            snprintf(why[PADDING], sizeof why[PADDING],
                     "[%g, %g) in %u bins, item 1 of an input of 5 keys (its keys 5 to 7 are "
                     "padding): %d outputs, where key 4 alone gives %d",
                     r.lo, r.hi, r.bins, cut.count, alone.count);
    }
    if (most_from_four != spline_bins::outputs && !why[REACHED][0])
        snprintf(why[REACHED], sizeof why[REACHED],
                 "the most an item of 4 keys between the end bins emitted was %d", most_from_four);
    char per_item[64], reached[96];
    snprintf(per_item, sizeof per_item, "at most outputs (%d) from an item of 4 keys",
             spline_bins::outputs);
    snprintf(reached, sizeof reached,
             "outputs (%d) is what an item of 4 keys between the end "
             "bins emits",
             spline_bins::outputs);
    const char *const checks[OUTPUT_CHECKS] = {
        "a key between the end bins: its 1 split among its three nearest bins",
        "a key in an end bin: the share for a bin past the end kept in that end bin",
        "a key outside [lo, hi), NaN or infinite: nothing",
        "every bin it emits below bins()",
        per_item,
        reached,
        "nothing for an item's keys past the input's last"};
    int failed = 0;
    for (int c = 0; c < OUTPUT_CHECKS; c++) {
        printf("spline_bins: %s: %s%s\n", checks[c], why[c][0] ? "no: " : "yes", why[c]);
        failed += why[c][0] != 0;
    }
    return failed;
}

/* --laws: everything above, on the host; exit 1 if anything says no. */
static int host_checks(const struct stage *stage, const struct options *opt)
{
    printf("%s: %s\n", stage->dir, stage->summary);
    printf("laws:        on the host, no GPU: each combine on %d triples of values (seed %llu),\n"
           "             ties and extremes among them; spline_bins on chosen keys and items\n",
           TRIALS, (unsigned long long)opt->seed);
    int failed =
        combine_laws<nearest_hue>("nearest_hue", nearer,
                                  "the nearer, of two as near the smaller pixel", opt->seed) +
        combine_laws<darkest>("darkest", smaller, "the smaller value", opt->seed + 1) +
        transform_checks(opt->print_bins);
    if (failed)
        printf("verified:    NO, %d check%s no\n", failed, failed == 1 ? " says" : "s say");
    else
        printf("verified:    yes, every law and every output holds on the host\n");
    return failed ? EXIT_FAILED : EXIT_OK;
}
