/*
 * guarded_alloc.c - linked into a build of the program that make check
 * runs where AddressSanitizer may not (no runtime, or one that cannot map its
 * shadow memory here): with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,
 * --wrap=free, every block the program's own code asks for ends on the last
 * byte before a page that may be neither read nor written, so a read or write
 * one element past a table of the heap stops the program (SIGSEGV). Static
 * tables are watched by the same build's -fsanitize=bounds, which traps
 * without any runtime. Blocks are aligned only as their size allows (4 for a
 * size that is a multiple of 4 but not 8), so that the end meets the guard.
 * guarded_blocks() says how many blocks are allocated and not yet freed.
 * (Exercises 19 and 20 link it.)
 */
#define _DEFAULT_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *block, size_t size);
void __real_free(void *block);

#define GUARD_MAGIC 0x67756172646564ull /* "guarded" */

long guarded_blocks(void);
static long live_blocks; /* allocated and not freed */
long guarded_blocks(void)
{
    return live_blocks;
}

struct guard_head { /* just before each block */
    uint64_t magic;
    void *base;    /* the mapping */
    size_t mapped; /* its length, the guard page included */
    size_t size;   /* the block's */
};

void *__wrap_malloc(size_t size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t head = sizeof(struct guard_head) + 16;
    if (size > SIZE_MAX - head - 2 * page)
        return NULL;
    size_t mapped = (size + head + page - 1) / page * page + page;
    char *base = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        return NULL;
    char *guard = base + mapped - page;
    if (mprotect(guard, page, PROT_NONE) != 0) {
        munmap(base, mapped);
        return NULL;
    }
    size_t align = size & 15 ? size & -size : 16; /* the largest power of 2 dividing size, to 16 */
    char *block = (char *)((uintptr_t)(guard - size) & ~(uintptr_t)(align - 1));
    struct guard_head *h = (struct guard_head *)(block - sizeof *h);
    h->magic = GUARD_MAGIC;
    h->base = base;
    h->mapped = mapped;
    h->size = size;
    live_blocks++;
    return block;
}

static struct guard_head *guarded(void *block)
{
    struct guard_head *h = (struct guard_head *)((char *)block - sizeof *h);
    return block && h->magic == GUARD_MAGIC ? h : NULL;
}

void *__wrap_calloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    return __wrap_malloc(count * size); /* fresh pages are zero */
}

void __wrap_free(void *block)
{
    struct guard_head *h = guarded(block);
    if (!h) {
        __real_free(block); /* a block the C library made (strdup, getline) */
        return;
    }
    h->magic = 0;
    live_blocks--;
    munmap(h->base, h->mapped);
}

void *__wrap_realloc(void *block, size_t size)
{
    struct guard_head *h = guarded(block);
    if (block && !h)
        return __real_realloc(block, size);
    void *moved = __wrap_malloc(size);
    if (!moved)
        return NULL;
    if (h)
        memcpy(moved, block, h->size < size ? h->size : size);
    __wrap_free(block);
    return moved;
}
