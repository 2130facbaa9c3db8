/*
 * The mm device as MPICH sees it come and go: MPID_Init assembles the engine (src/) and
 * the subsystems above it, MPID_InitCompleted lets a spawned job meet its parents, and
 * MPID_Finalize takes it all down.
 *
 * This file sits above both layers on purpose. The engine names no subsystem: cancel,
 * partitioned requests, rma/ and dynamic processes each register what they own (packet
 * kinds, callbacks, communicator hooks; mm_subsys.h) here, before the engine brings its
 * methods up and the first packet can arrive. A new subsystem is one more line below, and
 * the engine's files do not change.
 */
#include "mpidimpl.h"
#include "mm_subsys.h"

int MPID_Init(int requested, int *provided)
{
    mm_cancel_init();
    mm_part_init();
    mm_rma_init();
    mm_coll_init();
    return mm_engine_init(requested, provided);
}

/* MPI_COMM_WORLD exists now: a spawned job connects to its parents over it. */
int MPID_InitCompleted(void)
{
    return mm_dynproc_connect_parent();
}

int MPID_Finalize(void)
{
    return mm_engine_finalize();
}
