/*
 * stray_target: the job stray_conn.sh attacks. The ranks pass checked messages around a
 * ring (over tcp in that script), every size from 1 B to 256 KiB, so the listening sockets
 * are open while strangers connect to them, until the file MMT_STOP_FILE exists (the
 * attacker is done) or MMT_SECONDS (default 60) have passed; rank 0 prints "ready" once
 * every process has initialized. Every payload is checked, and the ranks agree on the
 * round count at the end.
 */
#include "mmtest.h"
#include <stdint.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, rounds = 0, all_rounds = 0, go = 1;
    double seconds = getenv("MMT_SECONDS") ? atof(getenv("MMT_SECONDS")) : 60.0, t0;
    const char *stop = getenv("MMT_STOP_FILE");
    const int max = 256 * 1024;
    unsigned char *sbuf, *rbuf;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sbuf = malloc(max);
    rbuf = malloc(max);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        printf("ready\n");
        fflush(stdout);
    }
    t0 = MPI_Wtime();
    while (go) {
        int len = 1 << (rounds % 19), from = (rank + size - 1) % size;

        for (int i = 0; i < len; i++)
            sbuf[i] = (unsigned char) (rank * 31 + rounds + i);
        CHECK_MPI(MPI_Sendrecv(sbuf, len, MPI_BYTE, (rank + 1) % size, rounds, rbuf, len,
                               MPI_BYTE, from, rounds, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < len; i++)
            if (rbuf[i] != (unsigned char) (from * 31 + rounds + i)) {
                CHECK(0, "round %d: byte %d from rank %d is %u", rounds, i, from, rbuf[i]);
                break;
            }
        rounds++;
        usleep(2000);
        /* rank 0 decides when to stop, so every rank runs the same rounds */
        if (rank == 0)
            go = MPI_Wtime() - t0 < seconds && !(stop && access(stop, F_OK) == 0);
        CHECK_MPI(MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD));
    }
    MPI_Allreduce(&rounds, &all_rounds, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(all_rounds == rounds * size, "ranks ran %d rounds in all, %d each expected",
          all_rounds, rounds);
    free(sbuf);
    free(rbuf);
    return mmt_finish();
}
