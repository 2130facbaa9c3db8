/*
 * hosts_exchange: what the multi-host test (netns_hosts.sh) runs across "hosts". A token
 * ring, an alltoall, and a 64 MiB exchange between the first and the last rank, which the
 * script places on different hosts. Every rank prints its processor name so the script can
 * check the job really spanned the hosts it made.
 */
#include "mmtest.h"
#include <string.h>

#define BIG (64 << 20)

int main(int argc, char **argv)
{
    int rank, size, len;
    char name[MPI_MAX_PROCESSOR_NAME];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(name, &len);
    printf("rank %d runs on %s\n", rank, name);
    fflush(stdout);

    /* ring: every rank adds one per lap */
    {
        int token = 0, next = (rank + 1) % size, prev = (rank + size - 1) % size;
        for (int lap = 0; lap < 3; lap++) {
            if (rank == 0) {
                int out = token + 1;
                MPI_Send(&out, 1, MPI_INT, next, 1, MPI_COMM_WORLD);
                MPI_Recv(&token, 1, MPI_INT, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&token, 1, MPI_INT, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                token++;
                MPI_Send(&token, 1, MPI_INT, next, 1, MPI_COMM_WORLD);
            }
        }
        if (rank == 0)
            CHECK(token == 3 * size, "ring token %d, expected %d", token, 3 * size);
    }

    /* alltoall: element j from rank i is i * 1000 + j */
    {
        int *s = malloc(size * 1024 * sizeof(int)), *r = malloc(size * 1024 * sizeof(int));
        for (int j = 0; j < size * 1024; j++)
            s[j] = rank * 1000000 + j;
        MPI_Alltoall(s, 1024, MPI_INT, r, 1024, MPI_INT, MPI_COMM_WORLD);
        for (int i = 0; i < size; i++)
            for (int j = 0; j < 1024; j++)
                CHECK(r[i * 1024 + j] == i * 1000000 + rank * 1024 + j,
                      "alltoall: element %d from %d is %d", j, i, r[i * 1024 + j]);
        free(s);
        free(r);
    }

    /* 64 MiB both ways between the first and the last rank */
    if (size > 1 && (rank == 0 || rank == size - 1)) {
        int peer = rank == 0 ? size - 1 : 0;
        unsigned char *s = malloc(BIG), *r = malloc(BIG);
        size_t bad = 0;
        for (size_t i = 0; i < BIG; i++)
            s[i] = (unsigned char) (i * 7 + rank);
        MPI_Sendrecv(s, BIG, MPI_BYTE, peer, 2, r, BIG, MPI_BYTE, peer, 2, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        for (size_t i = 0; i < BIG && !bad; i++)
            if (r[i] != (unsigned char) (i * 7 + peer))
                bad = i + 1;
        CHECK(bad == 0, "64 MiB from %d differ at byte %zu", peer, bad - 1);
        free(s);
        free(r);
    }
    return mmt_finish();
}
