/*
 * probe_any: MPI_Probe, MPI_Iprobe, MPI_Mprobe and MPI_Improbe with
 * MPI_ANY_SOURCE / MPI_ANY_TAG report the source, tag and size of a pending
 * message, and the receive that follows gets exactly that message. Matched
 * probes (MPI_Mrecv / MPI_Imrecv) take the probed message out of matching, so
 * no other receive can steal it. Sizes include an empty message and ones large
 * enough to go through a rendezvous protocol. Probes of MPI_PROC_NULL return
 * at once with the documented empty status.
 *
 * Ranks 1..n-1 send NMSG messages per phase to rank 0; rank 0 receives them
 * with a different probe flavour in each phase. A barrier separates phases so
 * that a probe never sees a message of a later phase.
 */
#include "mmtest.h"

#define NMSG 6
#define NPHASE 4

static const int lens[NMSG] = { 2, 0, 250, 16384, 262144, 3 };  /* in ints */

static int tag_of(int phase, int k)
{
    return phase * 100 + k;
}

static int val(int src, int tag, int i)
{
    return src * 1000003 + tag * 1009 + i;
}

static const char *const phase_name[NPHASE] = { "MPI_Probe", "MPI_Iprobe", "MPI_Mprobe",
    "MPI_Improbe" };

/* Receive one message on rank 0 using the given probe flavour, and check it. */
static void probe_and_receive(int phase, int size, int *next)
{
    MPI_Status pst, rst;
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Request req;
    int flag = 0, count = -1, rcount = -1, src, k, i, bad = 0;
    int *buf;
    const char *what = phase_name[phase];

    switch (phase) {
        case 0:
            MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &pst);
            break;
        case 1:
            while (!flag)
                MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &pst);
            break;
        case 2:
            MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &pst);
            break;
        default:
            while (!flag)
                MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &pst);
            break;
    }
    src = pst.MPI_SOURCE;
    if (src < 1 || src >= size) {
        CHECK(0, "%s: status source %d is not a sender", what, src);
        MPI_Abort(MPI_COMM_WORLD, 1);   /* cannot tell which message to receive */
    }
    k = next[src]++;
    MPI_Get_count(&pst, MPI_INT, &count);
    CHECK(pst.MPI_TAG == tag_of(phase, k), "%s: message %d from %d has tag %d, expected %d",
          what, k, src, pst.MPI_TAG, tag_of(phase, k));
    CHECK(count == lens[k], "%s: message %d from %d: probed count %d, expected %d", what, k, src,
          count, lens[k]);
    if (count < 0)
        count = 0;
    buf = mmt_malloc((size_t) count * sizeof(int));
    for (i = 0; i < count; i++)
        buf[i] = -1;

    if (phase < 2) {
        /* an ordinary receive naming exactly what the probe reported */
        MPI_Recv(buf, count, MPI_INT, src, pst.MPI_TAG, MPI_COMM_WORLD, &rst);
    } else if (phase == 2) {
        MPI_Mrecv(buf, count, MPI_INT, &msg, &rst);
        CHECK(msg == MPI_MESSAGE_NULL, "%s: MPI_Mrecv did not set the message to NULL", what);
    } else {
        MPI_Imrecv(buf, count, MPI_INT, &msg, &req);
        CHECK(msg == MPI_MESSAGE_NULL, "%s: MPI_Imrecv did not set the message to NULL", what);
        MPI_Wait(&req, &rst);
    }
    MPI_Get_count(&rst, MPI_INT, &rcount);
    CHECK(rst.MPI_SOURCE == src && rst.MPI_TAG == pst.MPI_TAG,
          "%s: receive got source %d tag %d, the probe said %d / %d", what, rst.MPI_SOURCE,
          rst.MPI_TAG, src, pst.MPI_TAG);
    CHECK(rcount == count, "%s: received count %d, probed %d", what, rcount, count);
    for (i = 0; i < count; i++)
        if (buf[i] != val(src, pst.MPI_TAG, i))
            bad++;
    CHECK(bad == 0, "%s: message %d from %d: %d wrong ints", what, k, src, bad);
    free(buf);
}

static void proc_null_probes(void)
{
    MPI_Status st;
    MPI_Message msg;
    int flag = 0, count = -1;

    MPI_Probe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0,
          "MPI_Probe(MPI_PROC_NULL): source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG,
          count);
    MPI_Iprobe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &flag, &st);
    CHECK(flag, "MPI_Iprobe(MPI_PROC_NULL) did not set flag");
    msg = MPI_MESSAGE_NULL;
    MPI_Mprobe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &msg, &st);
    CHECK(msg == MPI_MESSAGE_NO_PROC, "MPI_Mprobe(MPI_PROC_NULL) did not return MPI_MESSAGE_NO_PROC");
    count = -1;
    MPI_Mrecv(NULL, 0, MPI_INT, &msg, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && count == 0,
          "MPI_Mrecv(MPI_MESSAGE_NO_PROC): source %d count %d", st.MPI_SOURCE, count);
}

int main(int argc, char **argv)
{
    int rank, size, phase, k, i;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs at least 2 processes, got %d", size);

    proc_null_probes();
    for (phase = 0; phase < NPHASE && size >= 2; phase++) {
        if (rank == 0) {
            int *next = mmt_malloc(size * sizeof(int));
            for (i = 0; i < size; i++)
                next[i] = 0;
            for (i = 0; i < (size - 1) * NMSG; i++)
                probe_and_receive(phase, size, next);
            for (i = 1; i < size; i++)
                CHECK(next[i] == NMSG, "%s: %d messages from %d, expected %d",
                      phase_name[phase], next[i], i, NMSG);
            free(next);
        } else {
            for (k = 0; k < NMSG; k++) {
                int tag = tag_of(phase, k);
                int *buf = mmt_malloc((size_t) lens[k] * sizeof(int));
                for (i = 0; i < lens[k]; i++)
                    buf[i] = val(rank, tag, i);
                MPI_Send(buf, lens[k], MPI_INT, 0, tag, MPI_COMM_WORLD);
                free(buf);
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return mmt_finish();
}
