/*
 * check_cpu_gpu_split_share.cu - choose_cpu_bytes alone, on the host, without
 * a GPU. make check builds cpu_gpu_split.cu once more around this file
 * (build/cpu_gpu_split-share), its main renamed, so that the check can ask
 * for the CPU's share of sizes and times it chooses: the arguments are
 * triples SIZE CPU_MS GPU_MS, and it prints choose_cpu_bytes of each, one a
 * line. Times printed with 4 decimals cannot show a share that is a few
 * hundred bytes off on 4 GiB; this can.
 */
#define main cpu_gpu_split_main
#include CPU_GPU_SPLIT_SOURCE
#undef main

int main(int argc, char **argv)
{
    for (int i = 1; i + 2 < argc; i += 3) {
        char *end;
        unsigned long long size = strtoull(argv[i], &end, 10);
        double cpu_ms = strtod(argv[i + 1], NULL), gpu_ms = strtod(argv[i + 2], NULL);
        if (*end || cpu_ms <= 0 || gpu_ms <= 0) {
            fprintf(stderr, "usage: %s SIZE CPU_MS GPU_MS ... (times > 0)\n", argv[0]);
            return 2;
        }
        printf("%zu\n", choose_cpu_bytes((size_t)size, cpu_ms, gpu_ms));
    }
    return 0;
}
