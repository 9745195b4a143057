/*
 * cpu_gpu_split_yours.cuh - exercise 10, the part you write: choose_cpu_bytes,
 * the split from the measured times, and count_split, one histogram by the CPU
 * and the GPU at once. cpu_gpu_split.cu measures each side alone, calls them
 * and reports the three runs side by side. Three TODOs: the split, the
 * two sides at once, and the merge.
 */

/* The CPU's share of size bytes, so that both sides end together, from what
 * each took to count the whole input alone (both times > 0). */
static size_t choose_cpu_bytes(size_t size, double cpu_ms, double gpu_ms)
{
    /* TODO 1: how many bytes can the CPU count in the time the GPU counts the
     * rest? For now, half, whatever the times say. */
    (void)cpu_ms;
    (void)gpu_ms;
    return size / 2;
}

/* One histogram by both sides at once: bytes 0 to s->cpu_bytes - 1 on the CPU
 * (count_on_cpu), the rest on the GPU (copied in, count_on_gpu, its bins back
 * into s->gpu_bins), then both sides' bins added into s->histo. */
static void count_split(struct split *s)
{
    size_t size = s->in->size, cpu_bytes = s->cpu_bytes, gpu_bytes = size - cpu_bytes;
    /* TODO 2: the GPU's share (bytes cpu_bytes to size - 1: copy in, count,
     * bins back into s->gpu_bins) queued on s->stream, so that the host goes
     * on at once. For now every step waits for the GPU. */
    HANDLE_ERROR(cudaMemcpy(s->dev_buffer, s->host + cpu_bytes, gpu_bytes, cudaMemcpyHostToDevice));
    count_on_gpu(s, gpu_bytes, 0);
    HANDLE_ERROR(
        cudaMemcpy(s->gpu_bins, s->dev_histo, BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    /* TODO 3: the CPU counts its share (bytes 0 to cpu_bytes - 1) while the
     * GPU works; then s->histo is both sides' bins, each read only when it is
     * there. For now it is the CPU's alone. */
    count_on_cpu(s, 0, cpu_bytes);
    memcpy(s->histo, s->cpu_bins, sizeof s->histo);
}
