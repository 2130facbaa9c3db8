/*
 * Two jobs started separately find each other: `port_jobs server NAME` opens a port and
 * publishes it under NAME; `port_jobs client NAME` looks NAME up (retrying while the server
 * is still starting) and connects. port_jobs.sh runs the pair under one name server, on
 * one host and across two network namespaces. Checked:
 *   - every process of each job exchanges 8 B and 16 MiB messages with every process of
 *     the other, both ways, with contents that depend on both ranks;
 *   - the merged intracommunicator orders the server's processes first and its allreduce
 *     sums every rank of both jobs;
 *   - a connect with the port's name altered in its secret fails with MPI_ERR_PORT at once
 *     (the server answers it DENIED) and the server's accept goes on to take the real one;
 *   - after MPI_Comm_disconnect the name is unpublished and the port closed, and
 *     connecting to the closed port fails with MPI_ERR_PORT instead of hanging (client,
 *     with a 5 s "timeout" info key).
 * Each job prints " No Errors" when all of its processes passed.
 */
#include "mmtest.h"
#include <string.h>
#include <unistd.h>

#define BIG (16 << 20)

/* The port's name with one digit of its secret changed (mm port names are
 * "mmport:TAG-SECRET:..."): the server must answer the connect DENIED, at once, and go on
 * accepting, so the real connect that follows still succeeds. */
static void forged_connect(const char *port)
{
    char forged[MPI_MAX_PORT_NAME];
    MPI_Comm inter;
    MPI_Info info;
    char *dash;
    double t0;
    int rc, cls = -1;

    strcpy(forged, port);
    dash = strchr(forged, '-');
    CHECK(strncmp(forged, "mmport:", 7) == 0 && dash != NULL, "unexpected port name %s", port);
    if (dash == NULL)
        return;
    dash[1] = dash[1] == '0' ? '1' : '0';
    MPI_Info_create(&info);
    MPI_Info_set(info, "timeout", "60");
    t0 = MPI_Wtime();
    rc = MPI_Comm_connect(forged, info, 0, MPI_COMM_WORLD, &inter);
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_PORT,
          "connect without the port's secret: rc %d, class %d (expected MPI_ERR_PORT)", rc, cls);
    CHECK(MPI_Wtime() - t0 < 30, "connect without the port's secret took %.1f s (not refused)",
          MPI_Wtime() - t0);
    MPI_Info_free(&info);
}

int main(int argc, char **argv)
{
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm inter, merged;
    int rank, size, rsize, server, mrank, msize, sum;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3 || (strcmp(argv[1], "server") != 0 && strcmp(argv[1], "client") != 0)) {
        if (rank == 0)
            printf("usage: port_jobs server|client NAME\n");
        MPI_Finalize();
        return 2;
    }
    server = strcmp(argv[1], "server") == 0;

    if (server) {
        if (rank == 0) {
            CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
            CHECK_MPI(MPI_Publish_name(argv[2], MPI_INFO_NULL, port));
        }
        CHECK_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter));
    } else {
        if (rank == 0) {
            /* The server may not have published yet. (Hydra's name server answers an
             * unknown name with success and an empty port, so both mean "not yet".) */
            for (int tries = 0; tries < 600; tries++) {
                if (MPI_Lookup_name(argv[2], MPI_INFO_NULL, port) == MPI_SUCCESS && port[0])
                    break;
                port[0] = '\0';
                usleep(100000);
            }
            CHECK(port[0] != '\0', "name %s was never published", argv[2]);
        }
        MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
        if (port[0] == '\0')
            MPI_Abort(MPI_COMM_WORLD, 1);
        forged_connect(port);
        CHECK_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter));
    }

    MPI_Comm_remote_size(inter, &rsize);
    /* server ranks are 0.., client ranks 100.. in the message contents */
    mmt_exchange_all(inter, server ? rank : 100 + rank, server ? 100 : 0, BIG);
    CHECK_MPI(MPI_Intercomm_merge(inter, server ? 0 : 1, &merged));
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    CHECK(msize == size + rsize, "merged size %d", msize);
    CHECK(mrank == (server ? rank : rsize + rank), "merged rank %d", mrank);
    MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged);
    CHECK(sum == msize * (msize - 1) / 2, "allreduce over both jobs gave %d", sum);
    MPI_Comm_free(&merged);
    CHECK_MPI(MPI_Comm_disconnect(&inter));

    if (server && rank == 0) {
        CHECK_MPI(MPI_Unpublish_name(argv[2], MPI_INFO_NULL, port));
        CHECK_MPI(MPI_Close_port(port));
    }
    /* Both jobs are past the port: the client tries it again, now closed. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (!server) {
        MPI_Info info;
        int rc, cls = -1;
        MPI_Info_create(&info);
        MPI_Info_set(info, "timeout", "5");
        if (rank == 0)
            sleep(1);   /* the server's close has happened by then (it needs no more) */
        rc = MPI_Comm_connect(port, info, 0, MPI_COMM_WORLD, &inter);
        if (rc != MPI_SUCCESS)
            MPI_Error_class(rc, &cls);
        CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_PORT,
              "connect to a closed port: rc %d, class %d (expected MPI_ERR_PORT)", rc, cls);
        MPI_Info_free(&info);
    }

    return mmt_finish();
}
