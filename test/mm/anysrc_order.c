/*
 * anysrc_order: messages from one sender are received in the order they were
 * sent (MPI's non-overtaking rule) even when the receiver matches them with
 * MPI_ANY_SOURCE and MPI_ANY_TAG and senders interleave.
 *
 * Every rank except 0 sends NMSG messages to rank 0 with tags 0..NMSG-1 and a
 * sequence number in the payload. Sizes cycle through small (eager) and large
 * (rendezvous-sized) so a large message may not be overtaken by the small ones
 * sent after it. The senders use different send modes: rank 1 MPI_Send, rank 2
 * MPI_Isend for everything then MPI_Waitall, rank 3 and up MPI_Ssend for every
 * tenth message and MPI_Send otherwise.
 */
#include "mmtest.h"

#define NMSG 200

/* Message length in ints for message number seq. */
static int msg_len(int seq)
{
    static const int lens[] = { 2, 1000, 2, 40000, 3, 2 };
    return lens[seq % (int) (sizeof(lens) / sizeof(lens[0]))];
}

static int pattern(int src, int seq, int i)
{
    return src * 1000003 + seq * 7919 + i;
}

static void fill(int *buf, int src, int seq)
{
    int i, n = msg_len(seq);

    buf[0] = src;
    buf[1] = seq;
    for (i = 2; i < n; i++)
        buf[i] = pattern(src, seq, i);
}

int main(int argc, char **argv)
{
    int rank, size, i, seq;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs at least 2 processes, got %d", size);

    if (rank == 0 && size >= 2) {
        int maxlen = 40000, total = (size - 1) * NMSG;
        int *buf = mmt_malloc(maxlen * sizeof(int));
        int *next = mmt_malloc(size * sizeof(int));

        for (i = 0; i < size; i++)
            next[i] = 0;
        for (i = 0; i < total; i++) {
            MPI_Status st;
            int src, count, k, expect, bad = 0;

            buf[0] = buf[1] = -1;
            MPI_Recv(buf, maxlen, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            src = st.MPI_SOURCE;
            if (src < 1 || src >= size) {
                CHECK(0, "message %d: status source %d is not a sender", i, src);
                continue;
            }
            expect = next[src]++;
            MPI_Get_count(&st, MPI_INT, &count);
            CHECK(st.MPI_TAG == expect,
                  "from %d: got tag %d, expected %d (overtaken or lost)", src, st.MPI_TAG,
                  expect);
            CHECK(buf[0] == src, "from %d: payload names sender %d", src, buf[0]);
            CHECK(buf[1] == expect, "from %d: payload sequence %d, expected %d", src, buf[1],
                  expect);
            CHECK(count == msg_len(expect), "from %d seq %d: count %d, expected %d", src,
                  expect, count, msg_len(expect));
            for (k = 2; k < count; k++)
                if (buf[k] != pattern(src, expect, k))
                    bad++;
            CHECK(bad == 0, "from %d seq %d: %d payload ints wrong", src, expect, bad);
        }
        for (i = 1; i < size; i++)
            CHECK(next[i] == NMSG, "received %d messages from %d, expected %d", next[i], i,
                  NMSG);
        free(next);
        free(buf);
    } else if (rank == 2) {
        MPI_Request reqs[NMSG];
        MPI_Status sts[NMSG];   /* not MPI_STATUSES_IGNORE: gcc 12 warns on it in MPICH's mpi.h */
        int *bufs[NMSG];

        for (seq = 0; seq < NMSG; seq++) {
            bufs[seq] = mmt_malloc(msg_len(seq) * sizeof(int));
            fill(bufs[seq], rank, seq);
            MPI_Isend(bufs[seq], msg_len(seq), MPI_INT, 0, seq, MPI_COMM_WORLD, &reqs[seq]);
        }
        MPI_Waitall(NMSG, reqs, sts);
        for (seq = 0; seq < NMSG; seq++)
            free(bufs[seq]);
    } else if (rank > 0) {
        int *buf = mmt_malloc(40000 * sizeof(int));

        for (seq = 0; seq < NMSG; seq++) {
            fill(buf, rank, seq);
            if (rank >= 3 && seq % 10 == 0)
                MPI_Ssend(buf, msg_len(seq), MPI_INT, 0, seq, MPI_COMM_WORLD);
            else
                MPI_Send(buf, msg_len(seq), MPI_INT, 0, seq, MPI_COMM_WORLD);
        }
        free(buf);
    }
    return mmt_finish();
}
