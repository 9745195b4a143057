/*
 * cpu_gpu_split_yours.cuh - exercise 10, the part you write: choose_cpu_bytes,
 * the split from the measured times, and count_split, one histogram by the CPU
 * and the GPU at once. cpu_gpu_split.cu measures each side alone, calls them
 * and reports the three runs side by side. The reference solution.
 */

/* The CPU's share of size bytes, so that both sides end together, from what
 * each took to count the whole input alone (both times > 0). */
static size_t choose_cpu_bytes(size_t size, double cpu_ms, double gpu_ms)
{
    /* Each side's speed is size / its time; the CPU's share of the bytes is its
     * share of the summed speed, which is gpu_ms / (cpu_ms + gpu_ms). */
    double share = gpu_ms / (cpu_ms + gpu_ms);
    size_t bytes = (size_t)(share * (double)size);
    return bytes < size ? bytes : size;
}

/* One histogram by both sides at once: bytes 0 to s->cpu_bytes - 1 on the CPU
 * (count_on_cpu), the rest on the GPU (copied in, count_on_gpu, its bins back
 * into s->gpu_bins), then both sides' bins added into s->histo. */
static void count_split(struct split *s)
{
    size_t size = s->in->size, cpu_bytes = s->cpu_bytes, gpu_bytes = size - cpu_bytes;
    /* The GPU's share first, all of it queued on one stream: the host does not
     * wait for any of it here. */
    HANDLE_ERROR(cudaMemcpyAsync(s->dev_buffer, s->host + cpu_bytes, gpu_bytes,
                                 cudaMemcpyHostToDevice, s->stream));
    count_on_gpu(s, gpu_bytes, s->stream);
    HANDLE_ERROR(cudaMemcpyAsync(s->gpu_bins, s->dev_histo, BINS * sizeof(unsigned int),
                                 cudaMemcpyDeviceToHost, s->stream));
    /* Meanwhile the CPU counts its share; then the GPU's bins are waited for. */
    count_on_cpu(s, 0, cpu_bytes);
    HANDLE_ERROR(cudaStreamSynchronize(s->stream));
    for (int bin = 0; bin < BINS; bin++)
        s->histo[bin] = s->cpu_bins[bin] + s->gpu_bins[bin];
}
