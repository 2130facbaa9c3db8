/*
 * Shared by the fuzz targets (libFuzzer, `maint/mm fuzz`): each target feeds random bytes
 * to one of the device's wire decoders, compiled from the device's own source file, under
 * AddressSanitizer and UndefinedBehaviorSanitizer. The input is copied into a heap block of
 * exactly its size, so a decoder that reads one byte past what it was given is caught.
 */
#ifndef FUZZ_H_INCLUDED
#define FUZZ_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A failed invariant is a crash: libFuzzer saves the input that caused it. */
#define FUZZ_CHECK(cond) \
    do { if (!(cond)) { fprintf(stderr, "invariant failed: %s (%s:%d)\n", #cond, __FILE__, \
                                __LINE__); abort(); } } while (0)

static inline void *fuzz_copy(const uint8_t * data, size_t size)
{
    void *p = malloc(size ? size : 1);
    if (size)
        memcpy(p, data, size);
    return p;
}

#endif
