/*
 * mpidimpl.h — what every mm source file includes: all of MPICH's internals plus the
 * engine's own types. MPICH's common modules (sched, shm) include it too.
 */
#ifndef MPIDIMPL_H_INCLUDED
#define MPIDIMPL_H_INCLUDED

#include "mpiimpl.h"
#include "mm_pkt.h"
#include "mm_wire.h"
#include "mm_car.h"
#include "mm_vc.h"
#include "mm_method.h"
#include "mm_xfer.h"
#include "mm_engine.h"

#endif /* MPIDIMPL_H_INCLUDED */
