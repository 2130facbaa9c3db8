/*
 * allpairs: every process sends to every other at the same moment, at sizes that cross
 * the eager/rendezvous boundary. Over tcp this makes each pair open its connection from
 * both ends at once (the tie-break must leave exactly one), and checks that many messages
 * of mixed sizes arrive intact and in order on every connection. Then every ordered pair
 * in turn, one direction at a time: a sender that waits for its receiver with nothing else
 * to do is the case in which shm's shared copy (shm_cma.c) has it write part of the payload.
 */
#include "mmtest.h"
#include <stdint.h>
#include <string.h>

static const size_t sizes[] = { 0, 1, 8, 1000, 65536, 65537, 300000, 4 << 20 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
#define ROUNDS 3

static unsigned char pattern(int src, int dst, size_t i, int k)
{
    return (unsigned char) (src * 31 + dst * 7 + i * 13 + k);
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    for (int round = 0; round < ROUNDS; round++) {
        int n = (size - 1) * (int) NSIZES;
        unsigned char **sbuf = calloc(n, sizeof(*sbuf)), **rbuf = calloc(n, sizeof(*rbuf));
        MPI_Request *reqs = malloc(2 * n * sizeof(*reqs));
        MPI_Status *stats = malloc(2 * n * sizeof(*stats));
        int k = 0;

        for (int peer = 0; peer < size; peer++) {
            if (peer == rank)
                continue;
            for (size_t s = 0; s < NSIZES; s++, k++) {
                sbuf[k] = malloc(sizes[s] + 1);
                rbuf[k] = malloc(sizes[s] + 1);
                for (size_t i = 0; i < sizes[s]; i++)
                    sbuf[k][i] = pattern(rank, peer, i, (int) s + round);
                memset(rbuf[k], 0xee, sizes[s] + 1);
                MPI_Irecv(rbuf[k], (int) sizes[s], MPI_BYTE, peer, (int) s, MPI_COMM_WORLD,
                          &reqs[2 * k]);
                MPI_Isend(sbuf[k], (int) sizes[s], MPI_BYTE, peer, (int) s, MPI_COMM_WORLD,
                          &reqs[2 * k + 1]);
            }
        }
        CHECK_MPI(MPI_Waitall(2 * n, reqs, stats));
        k = 0;
        for (int peer = 0; peer < size; peer++) {
            if (peer == rank)
                continue;
            for (size_t s = 0; s < NSIZES; s++, k++) {
                size_t bad = SIZE_MAX;
                for (size_t i = 0; i < sizes[s] && bad == SIZE_MAX; i++)
                    if (rbuf[k][i] != pattern(peer, rank, i, (int) s + round))
                        bad = i;
                CHECK(bad == SIZE_MAX, "round %d: %zu bytes from %d differ at byte %zu", round,
                      sizes[s], peer, bad);
                CHECK(rbuf[k][sizes[s]] == 0xee, "round %d: %zu bytes from %d overran", round,
                      sizes[s], peer);
                free(sbuf[k]);
                free(rbuf[k]);
            }
        }
        free(sbuf);
        free(rbuf);
        free(reqs);
        free(stats);
    }

    for (int src = 0; src < size; src++) {
        for (int dst = 0; dst < size; dst++) {
            MPI_Request reqs[NSIZES];
            unsigned char *buf[NSIZES];

            if (src == dst || (rank != src && rank != dst))
                continue;
            for (size_t s = 0; s < NSIZES; s++) {
                buf[s] = malloc(sizes[s] + 1);
                for (size_t i = 0; i < sizes[s]; i++)
                    buf[s][i] = rank == src ? pattern(src, dst, i, (int) s + ROUNDS) : 0xee;
                buf[s][sizes[s]] = 0xee;
                if (rank == src)
                    MPI_Isend(buf[s], (int) sizes[s], MPI_BYTE, dst, (int) s, MPI_COMM_WORLD,
                              &reqs[s]);
                else
                    MPI_Irecv(buf[s], (int) sizes[s], MPI_BYTE, src, (int) s, MPI_COMM_WORLD,
                              &reqs[s]);
            }
            CHECK_MPI(MPI_Waitall((int) NSIZES, reqs, MPI_STATUSES_IGNORE));
            for (size_t s = 0; s < NSIZES; s++) {
                size_t bad = SIZE_MAX;

                for (size_t i = 0; rank == dst && i < sizes[s] && bad == SIZE_MAX; i++)
                    if (buf[s][i] != pattern(src, dst, i, (int) s + ROUNDS))
                        bad = i;
                CHECK(bad == SIZE_MAX, "one way: %zu bytes from %d differ at byte %zu",
                      sizes[s], src, bad);
                CHECK(buf[s][sizes[s]] == 0xee, "one way: %zu bytes from %d overran", sizes[s],
                      src);
                free(buf[s]);
            }
        }
    }

    /* A collective on top, so every pair is exercised by MPICH's algorithms too. */
    {
        long v = rank + 1, sum = 0;
        MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        CHECK(sum == (long) size * (size + 1) / 2, "allreduce gave %ld", sum);
    }
    return mmt_finish();
}
