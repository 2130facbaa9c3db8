/*
 * mmtest.h: tiny check-and-report helpers shared by the tests in test/mm.
 *
 * A test calls CHECK(cond, fmt, ...) for every property it verifies. A failed
 * check prints one line naming the rank, the source line and what was wrong
 * (only the first MMT_MAX_REPORTS failures per rank are printed, all are
 * counted). At the end, mmt_finish() sums the failure counts on rank 0, which
 * prints " No Errors" when every rank passed and the total otherwise; it
 * returns the exit status main() should return (0 or 1).
 */
#ifndef MMTEST_H_INCLUDED
#define MMTEST_H_INCLUDED

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MMT_MAX_REPORTS 20

static int mmt_errors = 0;

#if defined(__GNUC__)
static inline void mmt_check(int ok, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#endif

static inline void mmt_check(int ok, int line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    int rank = -1, initialized = 0, finalized = 0, len;

    if (ok)
        return;
    mmt_errors++;
    if (mmt_errors > MMT_MAX_REPORTS)
        return;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* one write per report, so that reports of different ranks do not interleave */
    len = snprintf(msg, sizeof(msg), "rank %d, line %d: ", rank, line);
    if (len < 0 || len >= (int) sizeof(msg))
        len = 0;
    va_start(ap, fmt);
    vsnprintf(msg + len, sizeof(msg) - len, fmt, ap);
    va_end(ap);
    printf("%s\n", msg);
    fflush(stdout);
}

#define CHECK(cond, ...) mmt_check((cond) != 0, __LINE__, __VA_ARGS__)

/* Check that an MPI call returned MPI_SUCCESS (matters under MPI_ERRORS_RETURN). */
#define CHECK_MPI(call)                                                         \
    do {                                                                        \
        int mmt_rc_ = (call);                                                   \
        mmt_check(mmt_rc_ == MPI_SUCCESS, __LINE__, "%s returned %d", #call,    \
                  mmt_rc_);                                                     \
    } while (0)

/* Allocate or report and exit: the tests cannot go on without memory. */
static inline void *mmt_malloc(size_t n)
{
    void *p = malloc(n > 0 ? n : 1);
    if (p == NULL) {
        printf("out of memory allocating %zu bytes\n", n);
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

/* Message contents that depend on the sender, the receiver and the byte's offset. */
static inline void mmt_fill(unsigned char *buf, size_t n, int from, int to)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = (unsigned char) (i * 13 + from * 29 + to * 7);
}

static inline int mmt_filled(const unsigned char *buf, size_t n, int from, int to)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] != (unsigned char) (i * 13 + from * 29 + to * 7))
            return 0;
    return 1;
}

/* Every process of an intercommunicator exchanges an 8 B and a `big` byte message with
 * every remote process, both ways, and checks what it got. Processes are named me (this
 * one) and remote_base + remote rank in the contents. */
static inline void mmt_exchange_all(MPI_Comm inter, int me, int remote_base, int big)
{
    int rsize, sizes[2] = { 8, big };
    unsigned char *out = mmt_malloc(big), *in = mmt_malloc(big);

    MPI_Comm_remote_size(inter, &rsize);
    for (int s = 0; s < 2; s++) {
        for (int i = 0; i < rsize; i++) {
            MPI_Request req;
            mmt_fill(out, sizes[s], me, remote_base + i);
            memset(in, 0, sizes[s]);
            MPI_Irecv(in, sizes[s], MPI_BYTE, i, s, inter, &req);
            MPI_Send(out, sizes[s], MPI_BYTE, i, s, inter);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            mmt_check(mmt_filled(in, sizes[s], remote_base + i, me), __LINE__,
                      "%d bytes from remote rank %d are wrong", sizes[s], i);
        }
    }
    free(out);
    free(in);
}

/* Sum the error counts on rank 0, report there, and return the exit status. */
static inline int mmt_finish(void)
{
    int rank, total = 0;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Reduce(&mmt_errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", total);
        fflush(stdout);
    }
    MPI_Finalize();
    return (mmt_errors != 0 || total != 0) ? 1 : 0;
}

#endif /* MMTEST_H_INCLUDED */
