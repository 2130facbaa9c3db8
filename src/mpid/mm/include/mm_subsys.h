/*
 * mm_subsys.h — the subsystems above the engine, as the device assembles them.
 *
 * Cancel (src/mm_cancel.c), partitioned requests (src/mm_part.c), one-sided communication
 * (rma/) and dynamic processes (src/mm_dynproc.c) use the engine (mm_engine.h) and hook
 * into it at MPID_Init: their packet kinds, CAR and request callbacks, communicator hooks.
 * Only mm_device.c, which calls their init functions, and the subsystems themselves
 * include this header; the engine's core never does, so no dependency runs back down.
 */
#ifndef MM_SUBSYS_H_INCLUDED
#define MM_SUBSYS_H_INCLUDED

/* --- cancel of sends (mm_cancel.c): claims CANCEL_REQ and CANCEL_RESP --- */
void mm_cancel_init(void);

/* --- partitioned communication (mm_part.c): a communicator free hook --- */
void mm_part_init(void);
/* Start one epoch of a partitioned request (MPI_Start, from mm_persist.c). */
int mm_part_start(MPIR_Request * preq);

/* --- one-sided communication (rma/): claims RMA_OP, RMA_RESP and RMA_CTRL --- */
void mm_rma_init(void);

/* --- the device's collectives (coll/): a communicator free hook --- */
void mm_coll_init(void);

/* --- dynamic processes (mm_dynproc.c) --- */
/* A spawned process joins its parents (MPID_InitCompleted). */
int mm_dynproc_connect_parent(void);

#endif /* MM_SUBSYS_H_INCLUDED */
