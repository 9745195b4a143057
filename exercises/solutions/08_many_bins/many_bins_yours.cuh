/*
 * many_bins_yours.cuh - exercise 08, the part you write: histo_kernel, which
 * counts one range of bins in shared memory; launch_histo, which covers all
 * the bins with passes, one call of launch_pass (in many_bins.cu) each; and
 * describe_approach, the report's approach: line. The reference solution.
 */

/* 8192 bins are 32 KiB: under the 48 KiB every CUDA GPU gives a block without
 * asking (cudaFuncSetAttribute can raise that, to 227 KiB on an H100: still
 * short of the 256 KiB that 65536 bins need). */
#define PASS_BINS 8192

/* Counts the values whose bin (value & mask) lies in the range [first_bin,
 * first_bin + range_bins) into a private copy of those bins in shared memory,
 * then adds the copy to the global histogram's bins of that range. */
__global__ void histo_kernel(const unsigned char *buffer, size_t size, unsigned int *histo,
                             unsigned int mask, unsigned int first_bin, unsigned int range_bins)
{
    extern __shared__ unsigned int temp[]; /* range_bins counters, sized at launch */
    for (unsigned int bin = threadIdx.x; bin < range_bins; bin += blockDim.x)
        temp[bin] = 0;
    __syncthreads(); /* every bin is zero before any thread counts into it */

    size_t values = (size + 1) / 2; /* an odd last byte is a value too */
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < values; k += stride) {
        unsigned int low = buffer[2 * k];
        unsigned int high = 2 * k + 1 < size ? buffer[2 * k + 1] : 0;
        unsigned int bin = (low | high << 8) & mask;
        /* Unsigned: a bin below first_bin wraps to a huge number and fails the test too. */
        if (bin - first_bin < range_bins)
            atomicAdd(&temp[bin - first_bin], 1);
    }
    __syncthreads(); /* every thread has counted before the bins are read */

    for (unsigned int bin = threadIdx.x; bin < range_bins; bin += blockDim.x)
        if (temp[bin]) /* most of a range's bins are empty in one block's share */
            atomicAdd(&histo[first_bin + bin], temp[bin]);
}

/* As many passes as it takes to cover bins with ranges of at most PASS_BINS. */
static unsigned int pass_bins(unsigned int bins)
{
    return bins < PASS_BINS ? bins : PASS_BINS;
}

/* All the bins, into dev_histo (already zeroed), by calls to launch_pass: one
 * per range. Every pass reads the whole input again: the price of keeping the
 * atomics in shared memory. */
static void launch_histo(const unsigned char *dev_buffer, size_t size, unsigned int *dev_histo,
                         unsigned int bins, struct launch launch, struct pass_log *log)
{
    unsigned int range = pass_bins(bins);
    for (unsigned int first = 0; first < bins; first += range)
        launch_pass(dev_buffer, size, dev_histo, bins, first, range, launch, log);
}

/* The report's approach: line: how this version counts these bins. */
static void describe_approach(unsigned int bins)
{
    unsigned int range = pass_bins(bins);
    printf("approach:   shared memory, %u pass%s of %u bins (%u KiB per block)\n", bins / range,
           bins / range > 1 ? "es" : "", range, range * 4 / 1024);
}
