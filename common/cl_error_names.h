/*
 * cl_error_names.h - OpenCL's error codes in words (cl_error_names.c).
 */
#ifndef CL_ERROR_NAMES_H
#define CL_ERROR_NAMES_H

#include <CL/cl.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "CL_OUT_OF_RESOURCES" for -5, and so on; "an unknown OpenCL error" else. */
const char *cl_error_name(cl_int err);

#ifdef __cplusplus
}
#endif

#endif
