/*
 * fbox_order: small messages overtake nothing. Between two processes of a node, small
 * messages go through the pair's fast-box ring while it has free slots and through the cell
 * queue otherwise, so one stream of messages is split over two paths. Rank 0 fires a burst
 * of NMSG messages of mixed sizes (fast-box sized, cell-only sized, zero bytes) at rank 1,
 * which sleeps first so the ring fills up and later messages take the queue behind earlier
 * ones still in the ring. Rank 1 then receives with MPI_ANY_TAG and checks that the
 * messages arrive in the order sent, with their sizes and contents.
 *
 * Messages of one 64-byte slot to 10 KiB take spans of up to 160 slots (shm_impl.h,
 * SPANS), so the sizes include one-slot messages, spans of many lengths and payloads too
 * long for any span (cells); the payload bytes the receiver leaves behind in the ring are
 * what a later lap must not mistake for a stamp (STALE STAMPS). The
 * first round has the receiver sleep (ring full: spans and cells interleave); the later
 * rounds receive at once, so the sender goes round the ring many times and spans meet
 * its end (skip slots) at many offsets.
 */
#include "mmtest.h"
#include <string.h>
#include <unistd.h>

#define NMSG 400
#define MAXSZ 12288

static int msg_size(int i)
{
    switch (i % 13) {
        case 0:  return 0;
        case 1:  return 8;
        case 2:  return 900;
        case 3:  return 5000;       /* 80 slots, padded to 96 */
        case 4:  return 12;         /* envelope + 12 bytes: one slot */
        case 5:  return 1000;
        case 6:  return 1984;
        case 7:  return 2100;
        case 8:  return 8192;       /* shm's eager limit with CMA */
        case 9:  return 10180;      /* near the longest span */
        case 10: return 12000;      /* longer than any span: cells (or rendezvous) */
        case 11: return 4000;
        default: return 64;
    }
}

static unsigned char pat(int i, int j)
{
    return (unsigned char) (i * 37 + j * 11 + 5);
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int round = 0; round < 12 && size >= 2; round++) {
        if (rank == 0) {
            static unsigned char sbuf[NMSG][MAXSZ];
            static MPI_Status stats[NMSG];  /* GCC 12 warns (wrongly) at MPI_STATUSES_IGNORE */
            MPI_Request reqs[NMSG];
            for (int i = 0; i < NMSG; i++) {
                for (int j = 0; j < msg_size(i); j++)
                    sbuf[i][j] = pat(i + round, j);
                MPI_Isend(sbuf[i], msg_size(i), MPI_BYTE, 1, i, MPI_COMM_WORLD, &reqs[i]);
            }
            MPI_Waitall(NMSG, reqs, stats);
        } else if (rank == 1) {
            static unsigned char rbuf[MAXSZ];
            int bad_order = 0, bad_data = 0;
            if (round == 0)
                usleep(200 * 1000);
            for (int i = 0; i < NMSG; i++) {
                MPI_Status st;
                int count;
                MPI_Recv(rbuf, MAXSZ, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                MPI_Get_count(&st, MPI_BYTE, &count);
                if (st.MPI_TAG != i || count != msg_size(i)) {
                    if (bad_order++ == 0)
                        CHECK(0, "round %d: message %d arrived as tag %d with %d bytes "
                              "(expected %d bytes)", round, i, st.MPI_TAG, count, msg_size(i));
                    continue;
                }
                for (int j = 0; j < count; j++)
                    if (rbuf[j] != pat(i + round, j)) {
                        if (bad_data++ == 0)
                            CHECK(0, "round %d: message %d byte %d differs", round, i, j);
                        break;
                    }
            }
            CHECK(bad_order == 0, "round %d: %d messages out of order", round, bad_order);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return mmt_finish();
}
