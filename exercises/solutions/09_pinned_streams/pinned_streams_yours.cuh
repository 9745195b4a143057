/*
 * pinned_streams_yours.cuh - exercise 09, the part you write: the host memory
 * the chunks are copied from (alloc_host, free_host), and the chunks' copies
 * and kernels queued on streams (copy_chunk, queue_chunks). pinned_streams.cu
 * calls them and times the result against a plain copy. The reference
 * solution.
 */

/* size bytes of host memory, for the input that every chunk's copy reads. */
static unsigned char *alloc_host(size_t size)
{
    /* Page-locked: the OS may not move or swap these pages, so the copy engine
     * reads them directly, and cudaMemcpyAsync returns at once. From malloc'd
     * memory the driver would stage each copy through a buffer of its own. */
    unsigned char *host;
    HANDLE_ERROR(cudaHostAlloc((void **)&host, size, cudaHostAllocDefault));
    return host;
}

static void free_host(unsigned char *host)
{
    HANDLE_ERROR(cudaFreeHost(host));
}

/* Chunk c's bytes to the GPU, on the stream given: queued, not waited for. */
static void copy_chunk(struct trip *t, int c, size_t offset, size_t count, cudaStream_t stream)
{
    t->chunk_bytes[c] = count;
    t->chunk_stream[c] = stream;
    mark(t, c, COPY_START, stream);
    HANDLE_ERROR(cudaMemcpyAsync(t->dev_buffer + offset, t->host + offset, count,
                                 cudaMemcpyHostToDevice, stream));
    mark(t, c, COPY_END, stream);
}

/* Chunk c goes to stream c % STREAMS. Within a stream the copy comes before its
 * kernel; across streams the copy engine and the SMs work at the same time. */
static void queue_chunks(struct trip *t)
{
    size_t size = t->in->size, per_chunk = (size + t->chunks - 1) / t->chunks;
    for (int c = 0; c < t->chunks; c++) {
        /* Rounding per_chunk up covers every byte; the last chunks may be
         * shorter, or empty when there are more chunks than bytes. */
        size_t offset = c * per_chunk < size ? c * per_chunk : size;
        size_t count = size - offset < per_chunk ? size - offset : per_chunk;
        cudaStream_t stream = t->streams[c % STREAMS];
        copy_chunk(t, c, offset, count, stream);
        mark(t, c, KERNEL_START, stream);
        count_chunk(t, offset, count, stream);
        mark(t, c, KERNEL_END, stream);
    }
}
