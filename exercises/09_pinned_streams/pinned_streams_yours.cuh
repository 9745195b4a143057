/*
 * pinned_streams_yours.cuh - exercise 09, the part you write: the host memory
 * the chunks are copied from (alloc_host, free_host), and the chunks' copies
 * and kernels queued on streams (copy_chunk, queue_chunks). pinned_streams.cu
 * calls them and times the result against a plain copy. The starter copies
 * from malloc'd memory, one chunk after the other, and misses some bytes:
 * look for TODO.
 */

/* size bytes of host memory, for the input that every chunk's copy reads. */
static unsigned char *alloc_host(size_t size)
{
    /* TODO: memory that the GPU's copy engine can read directly, with no
     * staging by the driver (README, Hint 1), and in free_host the call that
     * gives that memory back. Until then every row copies from pageable
     * memory, the floor included. */
    unsigned char *host = (unsigned char *)malloc(size);
    if (!host)
        fail("out of host memory for %zu bytes", size);
    return host;
}

static void free_host(unsigned char *host)
{
    free(host);
}

/* Chunk c's bytes to the GPU, on the stream given: queued, not waited for. */
static void copy_chunk(struct trip *t, int c, size_t offset, size_t count, cudaStream_t stream)
{
    t->chunk_bytes[c] = count;
    t->chunk_stream[c] = stream;
    mark(t, c, COPY_START, stream);
    /* TODO: a copy the host does not wait for, queued on the stream given, so
     * that the host goes on at once and the copy overlaps other chunks'
     * kernels; for now the host waits for it. */
    HANDLE_ERROR(
        cudaMemcpy(t->dev_buffer + offset, t->host + offset, count, cudaMemcpyHostToDevice));
    mark(t, c, COPY_END, stream);
}

/* Copies the input chunk by chunk and counts each chunk: chunk c's copy and
 * kernel, between its marks, on a stream. */
static void queue_chunks(struct trip *t)
{
    size_t size = t->in->size, per_chunk = size / t->chunks;
    for (int c = 0; c < t->chunks; c++) {
        /* TODO: when chunks does not divide the size, which bytes does no
         * chunk cover? Make every byte land in exactly one chunk. */
        size_t offset = c * per_chunk, count = per_chunk;
        /* TODO: chunk c's copy and kernel go on stream c % STREAMS, so that
         * they overlap with the other chunks'; for now all use the default. */
        cudaStream_t stream = 0;
        copy_chunk(t, c, offset, count, stream);
        mark(t, c, KERNEL_START, stream);
        count_chunk(t, offset, count, stream);
        mark(t, c, KERNEL_END, stream);
    }
}
