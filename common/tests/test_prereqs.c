/*
 * test_prereqs.c - open_gpu's decision, why_cuda_cannot_run, on every case a
 * machine can present: the driver against the CUDA a program was built with,
 * a GPU the build has no code for, and a GPU or code below what a program
 * needs. It reads only facts, so no GPU is needed to check it.
 */
#include "harness_cuda.h"

#include <check.h>
#include <string.h>

/* The machine the workbook was recorded on, the H100 of plots/results, with
 * the portable build: everything fits. Each check changes what it is about. */
static struct cuda_facts fits(void)
{
    return (struct cuda_facts){.driver_version = 13000,
                               .runtime_version = 13000,
                               .gpu = "NVIDIA H100 80GB HBM3",
                               .cc = 90,
                               .archs = "750,800,860,890,900",
                               .code = cudaSuccess,
                               .code_cc = 90};
}

static char why[768];

static const char *reason(const struct cuda_facts *f)
{
    return why_cuda_cannot_run(f, why, sizeof why);
}

static void runs(const struct cuda_facts *f)
{
    const char *r = reason(f);
    ck_assert_msg(r == NULL, "refused: %s", r);
}

/* A refusal: one line, holding each of says (NULL-ended). */
static void refused(const struct cuda_facts *f, const char *const *says)
{
    const char *r = reason(f);
    ck_assert_msg(r != NULL, "not refused; it should say '%s'", says[0]);
    ck_assert_msg(strchr(r, '\n') == NULL, "more than one line: %s", r);
    for (int i = 0; says[i]; i++)
        ck_assert_msg(strstr(r, says[i]) != NULL, "'%s' lacks '%s'", r, says[i]);
}

/* --------------------------------------------------------------- versions -- */

START_TEST(test_a_driver_of_the_programs_own_cuda_lets_it_run)
{
    struct cuda_facts f = fits();
    runs(&f);
    f.gpu = NULL; /* before the device count: the versions alone */
    runs(&f);
}
END_TEST

START_TEST(test_a_newer_driver_lets_it_run)
{
    struct cuda_facts f = fits();
    f.driver_version = 13020;
    runs(&f);
    f.driver_version = 14000;
    runs(&f);
}
END_TEST

/* Minor version compatibility: a CUDA 13.1 program runs on a driver of 13.0. */
START_TEST(test_an_older_driver_of_the_same_major_version_lets_it_run)
{
    struct cuda_facts f = fits();
    f.runtime_version = 13010;
    runs(&f);
    f.gpu = NULL;
    runs(&f);
}
END_TEST

START_TEST(test_a_driver_of_an_older_major_version_is_refused_naming_both_and_the_fix)
{
    struct cuda_facts f = fits();
    f.driver_version = 12040;
    f.gpu = NULL; /* open_gpu asks before the device count, which would fail */
    const char *r = reason(&f);
    ck_assert_ptr_nonnull(r);
    ck_assert_str_eq(r, "the NVIDIA driver supports CUDA 12.4, this program was built with CUDA "
                        "13.0: update the driver to 580 or newer");
}
END_TEST

static const struct {
    int driver, runtime;
    const char *says;
} older_majors[] = {
    {11080, 12000, "update the driver to 525 or newer"},
    {10020, 11080, "update the driver to 450 or newer"},
    {13000, 14000, "update the driver to one for CUDA 14.0 or newer"}, /* not in the table */
};

START_TEST(test_each_cuda_major_version_asks_for_its_own_oldest_driver)
{
    struct cuda_facts f = fits();
    f.driver_version = older_majors[_i].driver;
    f.runtime_version = older_majors[_i].runtime;
    const char *const says[] = {older_majors[_i].says, NULL};
    refused(&f, says);
}
END_TEST

/* cudaDriverGetVersion says 0 where there is no driver: the device count
 * then says there is no CUDA device, in the words the chapters show. */
START_TEST(test_without_a_driver_the_versions_are_no_reason)
{
    struct cuda_facts f = fits();
    f.driver_version = 0;
    f.gpu = NULL;
    runs(&f);
}
END_TEST

START_TEST(test_an_old_driver_is_named_before_anything_about_the_gpu)
{
    struct cuda_facts f = fits();
    f.driver_version = 12040;
    f.code = cudaErrorNoKernelImageForDevice;
    const char *const says[] = {"the NVIDIA driver supports CUDA 12.4", NULL};
    refused(&f, says);
}
END_TEST

/* ------------------------------------------------------------------- code -- */

/* A build for 8.0 on an 8.6: the driver found code (sm_80's machine code
 * runs on 8.6, or compute_80's PTX is compiled for it). */
START_TEST(test_code_the_driver_found_lets_it_run)
{
    struct cuda_facts f = fits();
    f.gpu = "NVIDIA GeForce RTX 3090";
    f.cc = 86;
    f.archs = "800";
    f.code_cc = 80;
    runs(&f);
}
END_TEST

START_TEST(test_a_gpu_without_code_is_refused_with_its_name_the_builds_and_the_fix)
{
    struct cuda_facts f = fits();
    f.gpu = "NVIDIA GeForce RTX 3090";
    f.cc = 86;
    f.archs = "900";
    f.code = cudaErrorNoKernelImageForDevice;
    const char *const says[] = {"no code for NVIDIA GeForce RTX 3090 (compute capability 8.6)",
                                "built for compute capability 9.0",
                                "cudaErrorNoKernelImageForDevice", "rebuild with make CUDA_ARCH=86",
                                NULL};
    refused(&f, says);
}
END_TEST

static const struct {
    const char *archs, *says;
} built[] = {
    {"750,800,860,890,900", "built for compute capabilities 7.5, 8.0, 8.6, 8.9 and 9.0 ("},
    {"1000,1200", "built for compute capabilities 10.0 and 12.0 ("},
    {"900", "built for compute capability 9.0 ("},
    {"", "built for other GPUs ("}, /* nvcc without __CUDA_ARCH_LIST__ */
};

START_TEST(test_the_architectures_built_are_named_in_words)
{
    struct cuda_facts f = fits();
    f.cc = 80;
    f.archs = built[_i].archs;
    f.code = cudaErrorNoKernelImageForDevice;
    const char *const says[] = {built[_i].says, NULL};
    refused(&f, says);
}
END_TEST

/* CUDA 13 builds for 7.5 and later only: to rebuild for a 7.0 would fail. */
START_TEST(test_a_gpu_older_than_the_toolkit_builds_for_is_told_so)
{
    struct cuda_facts f = fits();
    f.gpu = "Tesla V100-SXM2-32GB";
    f.cc = 70;
    f.code = cudaErrorNoKernelImageForDevice;
    const char *const says[] = {"Tesla V100-SXM2-32GB (compute capability 7.0) is older than any "
                                "GPU CUDA 13.0 builds for (compute capability 7.5 and later)",
                                NULL};
    refused(&f, says);
    ck_assert_msg(strstr(why, "CUDA_ARCH") == NULL, "%s", why);
    f.runtime_version = f.driver_version = 12080; /* CUDA 12 still builds for 7.0 */
    const char *const rebuild[] = {"rebuild with make CUDA_ARCH=70", NULL};
    refused(&f, rebuild);
}
END_TEST

/* Minor version compatibility stops at PTX: a driver older than the
 * runtime cannot compile the PTX that runtime's nvcc wrote. */
START_TEST(test_ptx_newer_than_the_driver_is_refused_asking_for_a_driver_or_machine_code)
{
    struct cuda_facts f = fits();
    f.driver_version = 13000;
    f.runtime_version = 13010;
    f.gpu = "NVIDIA B200";
    f.cc = 100;
    f.code = cudaErrorUnsupportedPtxVersion;
    const char *const says[] = {"the NVIDIA driver supports CUDA 13.0, too old to compile the PTX "
                                "that CUDA 13.1 made",
                                "NVIDIA B200 (compute capability 10.0)", "update the driver",
                                "rebuild with make CUDA_ARCH=100", NULL};
    refused(&f, says);
}
END_TEST

static const struct {
    cudaError_t code;
    const char *says;
} no_compiler[] = {
    {cudaErrorJitCompilationDisabled, "CUDA_DISABLE_PTX_JIT is set"},
    {cudaErrorJitCompilerNotFound, "its PTX compiler is missing"},
};

START_TEST(test_ptx_the_driver_may_not_compile_is_refused_with_the_cause)
{
    struct cuda_facts f = fits();
    f.cc = 100;
    f.code = no_compiler[_i].code;
    const char *const says[] = {"has only PTX for NVIDIA H100 80GB HBM3 (compute capability 10.0)",
                                no_compiler[_i].says, "rebuild with make CUDA_ARCH=100", NULL};
    refused(&f, says);
}
END_TEST

/* What drivers said of a missing architecture before there was a
 * cudaErrorNoKernelImageForDevice: the kernel asked about always exists. */
START_TEST(test_an_invalid_device_function_is_no_code_too)
{
    struct cuda_facts f = fits();
    f.cc = 80;
    f.archs = "900";
    f.code = cudaErrorInvalidDeviceFunction;
    const char *const says[] = {"no code for", "rebuild with make CUDA_ARCH=80", NULL};
    refused(&f, says);
}
END_TEST

static const cudaError_t not_about_code[] = {cudaErrorMemoryAllocation, cudaErrorLaunchFailure,
                                             cudaErrorInvalidPtx, cudaErrorUnknown};

START_TEST(test_an_error_that_says_nothing_of_the_code_is_left_to_the_caller)
{
    struct cuda_facts f = fits();
    f.code = not_about_code[_i];
    runs(&f);
}
END_TEST

/* ---------------------------------------------------------------- a need -- */

START_TEST(test_a_gpu_below_the_programs_need_is_refused)
{
    struct cuda_facts f = fits();
    f.gpu = "NVIDIA A100-SXM4-80GB";
    f.cc = 80;
    f.code_cc = 80;
    f.needs_cc = 90;
    f.needs_for = "thread-block clusters";
    const char *r = reason(&f);
    ck_assert_ptr_nonnull(r);
    ck_assert_str_eq(r, "this program needs compute capability 9.0 or later (for thread-block "
                        "clusters); NVIDIA A100-SXM4-80GB has 8.0");
    f.needs_for = NULL;
    const char *const says[] = {"needs compute capability 9.0 or later; NVIDIA", NULL};
    refused(&f, says);
}
END_TEST

/* A build for 8.0 runs on the H100 through its PTX, but compute_80 code has
 * no clusters (stage 07 and exercise 15 compile a stub there). */
START_TEST(test_code_compiled_below_the_need_is_refused_on_a_gpu_that_meets_it)
{
    struct cuda_facts f = fits();
    f.archs = "800";
    f.code_cc = 80;
    f.needs_cc = 90;
    f.needs_for = "thread-block clusters";
    const char *const says[] = {"needs code compiled for compute capability 9.0 or later (for "
                                "thread-block clusters)",
                                "this build's code for NVIDIA H100 80GB HBM3 was compiled for 8.0",
                                "rebuild with make CUDA_ARCH=90", NULL};
    refused(&f, says);
}
END_TEST

static const struct {
    int cc, code_cc;
} meet_the_need[] = {{90, 90}, {100, 90}, {120, 120}};

START_TEST(test_a_gpu_and_code_that_meet_the_need_let_it_run)
{
    struct cuda_facts f = fits();
    f.cc = meet_the_need[_i].cc;
    f.code_cc = meet_the_need[_i].code_cc;
    f.needs_cc = 90;
    f.needs_for = "thread-block clusters";
    runs(&f);
}
END_TEST

START_TEST(test_without_a_need_any_code_the_driver_found_will_do)
{
    struct cuda_facts f = fits();
    f.gpu = "Tesla T4";
    f.cc = 75;
    f.code_cc = 75;
    runs(&f);
}
END_TEST

/* ------------------------------------------------------------------ form -- */

/* Every refusal above, with a GPU name as long as cudaDeviceProp's, into a
 * buffer too small for it: cut short, never past its end, one line. */
START_TEST(test_every_reason_fits_its_buffer_on_one_line)
{
    char name[256];
    memset(name, 'x', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    struct cuda_facts cases[6];
    for (int i = 0; i < 6; i++) {
        cases[i] = fits();
        cases[i].gpu = name;
        cases[i].cc = 80;
    }
    cases[0].driver_version = 12040;
    cases[1].needs_cc = 90;
    cases[2].code_cc = 75, cases[2].needs_cc = 80;
    cases[3].code = cudaErrorNoKernelImageForDevice;
    cases[4].code = cudaErrorUnsupportedPtxVersion;
    cases[5].code = cudaErrorJitCompilationDisabled;
    for (int i = 0; i < 6; i++) {
        char small[80];
        memset(small, '#', sizeof small);
        const char *r = why_cuda_cannot_run(&cases[i], small, 64);
        ck_assert_msg(r == small, "case %d: not refused", i);
        ck_assert_msg(strlen(small) == 63 && !strchr(small, '\n'), "case %d: %s", i, small);
        ck_assert_msg(small[64] == '#', "case %d: written past its buffer", i);
    }
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("cuda prerequisites");
    TCase *versions = tcase_create("driver and runtime");
    tcase_add_test(versions, test_a_driver_of_the_programs_own_cuda_lets_it_run);
    tcase_add_test(versions, test_a_newer_driver_lets_it_run);
    tcase_add_test(versions, test_an_older_driver_of_the_same_major_version_lets_it_run);
    tcase_add_test(versions,
                   test_a_driver_of_an_older_major_version_is_refused_naming_both_and_the_fix);
    tcase_add_loop_test(versions, test_each_cuda_major_version_asks_for_its_own_oldest_driver, 0,
                        (int)(sizeof older_majors / sizeof older_majors[0]));
    tcase_add_test(versions, test_without_a_driver_the_versions_are_no_reason);
    tcase_add_test(versions, test_an_old_driver_is_named_before_anything_about_the_gpu);
    suite_add_tcase(suite, versions);

    TCase *code = tcase_create("code for the GPU");
    tcase_add_test(code, test_code_the_driver_found_lets_it_run);
    tcase_add_test(code, test_a_gpu_without_code_is_refused_with_its_name_the_builds_and_the_fix);
    tcase_add_loop_test(code, test_the_architectures_built_are_named_in_words, 0,
                        (int)(sizeof built / sizeof built[0]));
    tcase_add_test(code, test_a_gpu_older_than_the_toolkit_builds_for_is_told_so);
    tcase_add_test(code,
                   test_ptx_newer_than_the_driver_is_refused_asking_for_a_driver_or_machine_code);
    tcase_add_loop_test(code, test_ptx_the_driver_may_not_compile_is_refused_with_the_cause, 0,
                        (int)(sizeof no_compiler / sizeof no_compiler[0]));
    tcase_add_test(code, test_an_invalid_device_function_is_no_code_too);
    tcase_add_loop_test(code, test_an_error_that_says_nothing_of_the_code_is_left_to_the_caller, 0,
                        (int)(sizeof not_about_code / sizeof not_about_code[0]));
    suite_add_tcase(suite, code);

    TCase *needs = tcase_create("a program's need");
    tcase_add_test(needs, test_a_gpu_below_the_programs_need_is_refused);
    tcase_add_test(needs, test_code_compiled_below_the_need_is_refused_on_a_gpu_that_meets_it);
    tcase_add_loop_test(needs, test_a_gpu_and_code_that_meet_the_need_let_it_run, 0,
                        (int)(sizeof meet_the_need / sizeof meet_the_need[0]));
    tcase_add_test(needs, test_without_a_need_any_code_the_driver_found_will_do);
    suite_add_tcase(suite, needs);

    TCase *form = tcase_create("form");
    tcase_add_test(form, test_every_reason_fits_its_buffer_on_one_line);
    suite_add_tcase(suite, form);

    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_ENV);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILED : EXIT_OK;
}
