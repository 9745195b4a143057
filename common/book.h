/*
 * book.h - the book's helpers, and the part of common/ a student reads: how
 * a call fails, the input, the CPU's answer and the book's check of a result,
 * and a clock. Like the book's own book.h, it is what every program here
 * leans on so that its own file can show the histogram and nothing else.
 *
 * The rest of common/ (options, repeats and medians, the report and the CSV,
 * finding a GPU) is the harness, in harness*.h: no reader needs it to follow
 * a stage.
 */
#ifndef BOOK_H
#define BOOK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BINS 256 /* one bin per possible byte value */

/* What every program exits with. 77 is the automake convention for "skipped". */
enum exit_status { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_CANNOT_RUN = 77 };

/* ----------------------------------------------------- one way to fail -- */

/* Prints "program: message" on stderr and exits 1: for a runtime error. */
void fail(const char *format, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;

/* Every CUDA call goes through HANDLE_ERROR, and so does cudaGetLastError()
 * after every kernel launch: a failure prints file:line, the call and the
 * error in words, and exits 1. It exists wherever CUDA's runtime API is in
 * view: in every .cu file (nvcc includes it), or in C after
 * #include <cuda_runtime_api.h>. */
#ifdef CUDART_VERSION
void cuda_failed(cudaError_t err, const char *call, const char *file, int line);
#define HANDLE_ERROR(call)                                                                         \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess)                                                                   \
            cuda_failed(err_, #call, __FILE__, __LINE__);                                          \
    } while (0)
#endif

/* HANDLE_ERROR's twin for OpenCL, in C after #include <CL/cl.h>. Calls that
 * return an object report through their last argument, which is checked the
 * same way right after: CL_CHECK(err). */
#ifdef CL_SUCCESS
void opencl_failed(cl_int err, const char *call, const char *file, int line);
#define CL_CHECK(call)                                                                             \
    do {                                                                                           \
        cl_int err_ = (call);                                                                      \
        if (err_ != CL_SUCCESS)                                                                    \
            opencl_failed(err_, #call, __FILE__, __LINE__);                                        \
    } while (0)
#endif

/* ----------------------------------------------------------- the input -- */

enum data_kind { DATA_UNIFORM, DATA_CONSTANT, DATA_SKEWED, DATA_TEXT, DATA_FILE, DATA_IMAGE };

#define TEXT_PHRASE "Programming with CUDA C" /* the book's figure 9.1 */

/* The book's helper, made reproducible: the same seed gives the same bytes
 * on every machine (the book's rand() did not). */
unsigned char *big_random_block(size_t size, uint64_t seed);

/* Fills buffer with size bytes of a generated kind (not DATA_FILE or DATA_IMAGE). */
void fill_input(enum data_kind kind, unsigned char *buffer, size_t size, uint64_t seed);

/* ------------------------------------------ the CPU's answer, the check -- */

/* The plain single loop: the reference every result is checked against. */
void cpu_histogram(const unsigned char *buffer, size_t size, unsigned int histo[BINS]);

uint64_t histogram_sum(const unsigned int histo[BINS]);

/* The book's check: take every byte of the input away from its bin; a right
 * histogram ends with every bin at 0. Prints each bin that does not to report
 * (if not NULL), labelled with what, and returns how many bins are wrong. */
int verify_histogram(const unsigned char *buffer, size_t size, const unsigned int histo[BINS],
                     const char *what, FILE *report);

/* ----------------------------------------------------------- the clock -- */

/* A monotonic host clock, in milliseconds: for what the GPU's events cannot
 * see, such as the CPU's share of a copy from pageable memory. */
double now_ms(void);

#ifdef __cplusplus
}
#endif

#endif /* BOOK_H */
