/*
 * truncate_recv: a receive whose message does not fit completes with an error and the job
 * goes on. Under MPI_ERRORS_RETURN, rank 0 sends messages of an eager size (100 B) and of
 * rendezvous sizes (1 MiB; 2.5 MiB + 3, more than one scratch chunk of the discarded
 * tail) to rank 1, into buffers that are too small, and every process does the same with
 * itself (the self method):
 *
 *   contig    MPI_Recv of half the bytes into MPI_BYTE
 *   zero      MPI_Recv with count 0
 *   vector    MPI_Irecv + MPI_Wait into a strided vector holding half the bytes
 *   mrecv     MPI_Mprobe (which must report the whole size) + MPI_Mrecv, half the bytes
 *   imrecv    MPI_Improbe + MPI_Imrecv + MPI_Wait into the vector type
 *
 * Each must return an error of class MPI_ERR_TRUNCATE, store exactly the bytes that fit
 * (for the vector: into its blocks, in order), leave every other byte of the buffer
 * (gaps, and guard bytes past the end) untouched, and report in the status the count of
 * bytes stored. Each runs with the receive posted first and with the message arriving
 * first. After every case a message of the full size is received normally on the same
 * communicator.
 *
 * A message that ends inside an element (size + 2 bytes, not a multiple of 4):
 *
 *   elem_vec     into a vector of MPI_INT with room for all of it: the whole ints are
 *                stored, MPI_ERR_TYPE, count = the bytes of whole ints (what ch3 does:
 *                "**dtypemismatch" when unpacking cannot consume every byte)
 *   elem_contig  into a contiguous MPI_INT buffer with room: success, every byte stored,
 *                MPI_Get_count(MPI_INT) = MPI_UNDEFINED (ch3 copies contiguous data
 *                without looking at elements; so does mm)
 */
#include <string.h>
#include "mmtest.h"

#define GUARD 64
#define MARK 0xA5
#define TAG_BAD 7
#define TAG_GOOD 8

enum { C_CONTIG, C_ZERO, C_VECTOR, C_MRECV, C_IMRECV, C_ELEM_VEC, C_ELEM_CONTIG, C_N };
static const char *case_name[C_N] =
    { "contig", "zero", "vector", "mrecv", "imrecv", "elem_vec", "elem_contig" };

static unsigned char pattern(size_t i, int seed)
{
    return (unsigned char) (i * 13 + (size_t) seed * 7 + 1);
}

/* Bytes the sender sends in case c for base size s. */
static size_t msg_bytes(int c, size_t s)
{
    return (c == C_ELEM_VEC || c == C_ELEM_CONTIG) ? s + 2 : s;
}

/* The receive side of case c: its datatype, count, the bytes of buffer it spans (without
 * guard), and the byte offsets of the message's bytes in it (map[k] for packed byte k;
 * NULL: the identity). */
struct recv_shape {
    MPI_Datatype type;
    int count;
    size_t span;
    size_t room;                /* bytes the type holds */
    size_t *map;
};

static void shape_make(int c, size_t s, struct recv_shape *r)
{
    size_t half = s / 2, nint = (s + 2) / 4 + 1;

    r->map = NULL;
    r->type = MPI_BYTE;
    switch (c) {
        case C_CONTIG:
        case C_MRECV:
            r->count = (int) half;
            r->span = r->room = half;
            break;
        case C_ZERO:
            r->count = 0;
            r->span = r->room = 0;
            break;
        case C_VECTOR:
        case C_IMRECV:
            /* blocks of 4 bytes every 8: half the message fits */
            MPI_Type_vector((int) (half / 4), 4, 8, MPI_BYTE, &r->type);
            MPI_Type_commit(&r->type);
            r->count = 1;
            r->room = half / 4 * 4;
            r->span = (half / 4 - 1) * 8 + 4;
            r->map = mmt_malloc(r->room * sizeof(size_t));
            for (size_t k = 0; k < r->room; k++)
                r->map[k] = k / 4 * 8 + k % 4;
            break;
        case C_ELEM_VEC:
            /* one int every two: room for all bytes of the message and more */
            MPI_Type_vector((int) nint, 1, 2, MPI_INT, &r->type);
            MPI_Type_commit(&r->type);
            r->count = 1;
            r->room = nint * 4;
            r->span = (nint - 1) * 8 + 4;
            r->map = mmt_malloc(r->room * sizeof(size_t));
            for (size_t k = 0; k < r->room; k++)
                r->map[k] = k / 4 * 8 + k % 4;
            break;
        case C_ELEM_CONTIG:
            r->type = MPI_INT;
            r->count = (int) nint;
            r->span = r->room = nint * 4;
            break;
    }
}

static void shape_free(struct recv_shape *r)
{
    if (r->type != MPI_BYTE && r->type != MPI_INT)
        MPI_Type_free(&r->type);
    free(r->map);
}

/* What case c must report: error class, and the bytes stored. */
static void expect(int c, size_t s, const struct recv_shape *r, int *cls, size_t *stored)
{
    size_t n = msg_bytes(c, s);

    if (c == C_ELEM_VEC) {
        *cls = MPI_ERR_TYPE;
        *stored = n / 4 * 4;
    } else if (c == C_ELEM_CONTIG) {
        *cls = MPI_SUCCESS;
        *stored = n;
    } else {
        *cls = MPI_ERR_TRUNCATE;
        *stored = r->room;
    }
}

static void check_result(int c, size_t s, int order, int rc, MPI_Status * st,
                         const unsigned char *buf, const struct recv_shape *r, int seed,
                         int from)
{
    int cls = MPI_SUCCESS, want_cls, count = -1;
    size_t want_stored, bad = 0, first_bad = 0;
    unsigned char *want = mmt_malloc(r->span + GUARD);
    const char *how = order ? "message first" : "receive first";

    expect(c, s, r, &want_cls, &want_stored);
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    CHECK(cls == want_cls, "%s %zu B from %d (%s): error class %d, expected %d", case_name[c],
          s, from, how, cls, want_cls);
    MPI_Get_count(st, MPI_BYTE, &count);
    CHECK(count == (int) want_stored, "%s %zu B from %d (%s): count %d bytes, expected %zu",
          case_name[c], s, from, how, count, want_stored);
    if (c == C_ELEM_CONTIG) {
        MPI_Get_count(st, MPI_INT, &count);
        CHECK(count == MPI_UNDEFINED, "%s %zu B: MPI_Get_count(MPI_INT) %d, expected "
              "MPI_UNDEFINED", case_name[c], s, count);
    }
    CHECK(st->MPI_SOURCE == from && st->MPI_TAG == TAG_BAD,
          "%s %zu B: status source %d tag %d, expected %d %d", case_name[c], s,
          st->MPI_SOURCE, st->MPI_TAG, from, TAG_BAD);

    memset(want, MARK, r->span + GUARD);
    for (size_t k = 0; k < want_stored; k++)
        want[r->map ? r->map[k] : k] = pattern(k, seed);
    for (size_t i = 0; i < r->span + GUARD; i++)
        if (buf[i] != want[i] && bad++ == 0)
            first_bad = i;
    CHECK(bad == 0, "%s %zu B from %d (%s): %zu wrong bytes in the buffer, the first at %zu "
          "(%u, expected %u; %zu bytes stored, %zu spanned)", case_name[c], s, from, how, bad,
          first_bad, bad ? buf[first_bad] : 0, bad ? want[first_bad] : 0, want_stored, r->span);
    free(want);
}

/* Receive case c from `from` (the message is there or on its way) and check it. */
static void recv_bad(int c, size_t s, int order, MPI_Comm comm, int from, int seed,
                     MPI_Request * posted, struct recv_shape *r, unsigned char *buf)
{
    MPI_Status st;
    MPI_Message msg;
    MPI_Request req;
    int rc = MPI_SUCCESS, flag = 0;

    memset(&st, 0, sizeof(st));
    if (posted && *posted != MPI_REQUEST_NULL) {
        rc = MPI_Wait(posted, &st);
    } else if (c == C_MRECV || c == C_IMRECV) {
        MPI_Status pst;
        int psize = -1;
        if (c == C_MRECV) {
            CHECK_MPI(MPI_Mprobe(from, TAG_BAD, comm, &msg, &pst));
        } else {
            while (!flag)
                CHECK_MPI(MPI_Improbe(from, TAG_BAD, comm, &flag, &msg, &pst));
        }
        MPI_Get_count(&pst, MPI_BYTE, &psize);
        CHECK(psize == (int) s, "%s: the matched probe reports %d bytes, expected %zu",
              case_name[c], psize, s);
        if (c == C_MRECV) {
            /* MPI_Mrecv names no communicator: MPICH reports its errors on
             * MPI_COMM_WORLD. (MPI_Wait on an MPI_Imrecv request uses the message's.) */
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            rc = MPI_Mrecv(buf, r->count, r->type, &msg, &st);
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        } else {
            CHECK_MPI(MPI_Imrecv(buf, r->count, r->type, &msg, &req));
            rc = MPI_Wait(&req, &st);
        }
    } else if (c == C_VECTOR) {
        CHECK_MPI(MPI_Irecv(buf, r->count, r->type, from, TAG_BAD, comm, &req));
        rc = MPI_Wait(&req, &st);
    } else {
        rc = MPI_Recv(buf, r->count, r->type, from, TAG_BAD, comm, &st);
    }
    check_result(c, s, order, rc, &st, buf, r, seed, from);
}

/* The next message, of the full size, arrives whole. */
static void recv_good(size_t s, MPI_Comm comm, int from, int seed)
{
    unsigned char *buf = mmt_malloc(s);
    MPI_Status st;
    int count = -1, rc;
    size_t k;

    memset(buf, 0, s);
    rc = MPI_Recv(buf, (int) s, MPI_BYTE, from, TAG_GOOD, comm, &st);
    CHECK(rc == MPI_SUCCESS, "the message after an error (%zu B from %d) failed: %d", s, from,
          rc);
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == (int) s, "the message after an error: count %d, expected %zu", count, s);
    for (k = 0; k < s && buf[k] == pattern(k, seed + 1); k++);
    CHECK(k == s, "the message after an error (%zu B from %d): byte %zu is wrong", s, from, k);
    free(buf);
}

/* One case between sender `from` and receiver `to` (which may be the same process). The
 * message arrives before the receive is posted (order 1) or after (order 0); mprobe-based
 * cases have no posted receive. */
static void run_case(int c, size_t s, int order, MPI_Comm comm, int me, int from, int to,
                     int seed)
{
    size_t n = msg_bytes(c, s);
    unsigned char *out = NULL, *good = NULL, *buf = NULL;
    MPI_Request sreq[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL }, rreq = MPI_REQUEST_NULL;
    struct recv_shape r;
    int can_post = c != C_MRECV && c != C_IMRECV;

    shape_make(c, s, &r);
    if (me == to) {
        buf = mmt_malloc(r.span + GUARD);
        memset(buf, MARK, r.span + GUARD);
        if (order == 0 && can_post)
            CHECK_MPI(MPI_Irecv(buf, r.count, r.type, from, TAG_BAD, comm, &rreq));
    }
    if (from != to)
        MPI_Barrier(comm);      /* the receive is posted (order 0) */
    if (me == from) {
        out = mmt_malloc(n);
        good = mmt_malloc(s);
        for (size_t k = 0; k < n; k++)
            out[k] = pattern(k, seed);
        for (size_t k = 0; k < s; k++)
            good[k] = pattern(k, seed + 1);
        CHECK_MPI(MPI_Isend(out, (int) n, MPI_BYTE, to, TAG_BAD, comm, &sreq[0]));
        CHECK_MPI(MPI_Isend(good, (int) s, MPI_BYTE, to, TAG_GOOD, comm, &sreq[1]));
    }
    if (from != to)
        MPI_Barrier(comm);      /* the messages are sent (order 1) */
    if (me == to) {
        recv_bad(c, s, order, comm, from, seed, &rreq, &r, buf);
        recv_good(s, comm, from, seed);
    }
    if (me == from) {
        MPI_Status st[2];
        int rc = MPI_Waitall(2, sreq, st);
        CHECK(rc == MPI_SUCCESS, "%s %zu B to %d: the sends failed (%d)", case_name[c], s, to,
              rc);
    }
    shape_free(&r);
    free(buf);
    free(out);
    free(good);
}

int main(int argc, char **argv)
{
    const size_t sizes[] = { 100, 1 << 20, (5 << 19) + 3 };
    MPI_Comm comm;
    int me, np, seed = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);

    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        for (int c = 0; c < C_N; c++)
            for (int order = 0; order < 2; order++) {
                seed++;
                /* every process with itself */
                run_case(c, sizes[i], order, comm, me, me, me, seed);
                /* rank 0 to rank 1 */
                if (np > 1)
                    run_case(c, sizes[i], order, comm, me, 0, 1, seed);
            }

    MPI_Comm_free(&comm);
    return mmt_finish();
}
