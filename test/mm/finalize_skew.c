/*
 * finalize_skew: processes reach MPI_Finalize at very different times, and one of them is
 * still draining a large queue when the others have already said goodbye.
 *
 * Rank 1 queues 8 MiB of eager messages to rank 2 (which sleeps before receiving them), so
 * its MPI_Finalize lingers writing to rank 2 after it has closed its side towards rank 0.
 * Meanwhile rank 0 keeps polling and sees rank 1's goodbye and end of stream before it
 * finalizes itself. Over tcp this is the order in which a process must still send its own
 * goodbye on a connection whose peer has finished: if it closed the connection silently
 * instead, rank 1 would take the end of stream for a dead peer and abort the job.
 */
#include "mmtest.h"
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NMSG 1024
#define MSG_BYTES 8192          /* at or below every method's eager limit */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int rank, size, token = 0;
    char *buf;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 3) {
        CHECK(0, "needs 3 processes, got %d", size);
        MPI_Finalize();
        return 1;
    }
    buf = malloc((size_t) NMSG * MSG_BYTES);

    /* Connect 0<->1 and 1<->2 before anything else. */
    if (rank == 0 || rank == 2)
        MPI_Sendrecv_replace(&token, 1, MPI_INT, 1, 0, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else {
        MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&token, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
    }
    /* The verdict is gathered now: rank 2 is not ready to take part in a collective later. */
    if (rank == 1) {
        for (int i = 0; i < NMSG; i++) {
            MPI_Request req;
            memset(buf + (size_t) i * MSG_BYTES, i, MSG_BYTES);
            MPI_Isend(buf + (size_t) i * MSG_BYTES, MSG_BYTES, MPI_BYTE, 2, i, MPI_COMM_WORLD,
                      &req);
            MPI_Request_free(&req);     /* MPI_Finalize must still deliver it */
        }
    } else if (rank == 0) {
        int flag;
        double t0 = now();
        while (now() - t0 < 1.0)        /* progress while rank 1 finalizes */
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    } else if (rank == 2) {
        usleep(1500 * 1000);
        for (int i = 0; i < NMSG; i++) {
            int bad = 0;
            MPI_Recv(buf, MSG_BYTES, MPI_BYTE, 1, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int j = 0; j < MSG_BYTES; j++)
                bad += ((unsigned char) buf[j] != (unsigned char) i);
            CHECK(bad == 0, "message %d: %d bytes differ", i, bad);
        }
    }
    /* Rank 2 reports its own result: the others finalize without waiting for it. */
    if (rank == 2 && mmt_errors == 0)
        printf(" No Errors\n");
    else if (mmt_errors)
        printf("rank %d: %d errors\n", rank, mmt_errors);
    fflush(stdout);
    MPI_Finalize();
    free(buf);  /* only now: rank 1's freed send requests may still read it until here */
    return mmt_errors != 0;
}
