##
## The mm device inside MPICH's automake build. Included from src/mpid/Makefile.mk by the
## graft (maint/graft.list); every device owns its own BUILD_<name> guard.
##

errnames_txt_files += src/mpid/mm/errnames.txt

if BUILD_MM

AM_CPPFLAGS += -I$(top_srcdir)/src/mpid/mm/include

# The device's MPI extensions, installed beside mpi.h.
include_HEADERS += src/mpid/mm/include/mpix_xfer.h

noinst_HEADERS +=                               \
    src/mpid/mm/include/mpidpre.h               \
    src/mpid/mm/include/mpidpost.h              \
    src/mpid/mm/include/mpidimpl.h              \
    src/mpid/mm/include/mpid_thread.h           \
    src/mpid/mm/include/mpid_sched.h            \
    src/mpid/mm/include/mpid_coll.h             \
    src/mpid/mm/include/mpid_proto.h            \
    src/mpid/mm/include/mm_pkt.h                \
    src/mpid/mm/include/mm_wire.h               \
    src/mpid/mm/include/mm_car.h                \
    src/mpid/mm/include/mm_vc.h                 \
    src/mpid/mm/include/mm_method.h             \
    src/mpid/mm/include/mm_xfer.h               \
    src/mpid/mm/include/mm_engine.h             \
    src/mpid/mm/include/mm_subsys.h             \
    src/mpid/mm/src/mm_vc_table.h               \
    src/mpid/mm/rma/mm_rma_wire.h               \
    src/mpid/mm/coll/mm_coll.h                  \
    src/mpid/mm/rma/mm_rma.h

mpi_core_sources +=                             \
    src/mpid/mm/mm_device.c                     \
    src/mpid/mm/src/mm_init.c                   \
    src/mpid/mm/src/mm_comm.c                   \
    src/mpid/mm/src/mm_intercomm.c              \
    src/mpid/mm/src/mm_vc.c                     \
    src/mpid/mm/src/mm_request.c                \
    src/mpid/mm/src/mm_reqid.c                  \
    src/mpid/mm/src/mm_car.c                    \
    src/mpid/mm/src/mm_xfer.c                   \
    src/mpid/mm/src/mm_msg.c                    \
    src/mpid/mm/src/mm_xfer_graph.c             \
    src/mpid/mm/src/mm_xfer_mpix.c              \
    src/mpid/mm/coll/mm_bcast.c                 \
    src/mpid/mm/coll/mm_allreduce.c             \
    src/mpid/mm/coll/mm_coll_read.c             \
    src/mpid/mm/coll/mm_coll_chain.c            \
    src/mpid/mm/coll/mm_coll_seg.c              \
    src/mpid/mm/coll/mm_allgather.c             \
    src/mpid/mm/coll/mm_barrier.c               \
    src/mpid/mm/src/mm_recvq.c                  \
    src/mpid/mm/src/mm_cq.c                     \
    src/mpid/mm/src/mm_proto_send.c             \
    src/mpid/mm/src/mm_proto_recv.c             \
    src/mpid/mm/src/mm_wire.c                   \
    src/mpid/mm/src/mm_progress.c               \
    src/mpid/mm/src/mm_pt2pt.c                  \
    src/mpid/mm/src/mm_probe.c                  \
    src/mpid/mm/src/mm_cancel.c                 \
    src/mpid/mm/src/mm_persist.c                \
    src/mpid/mm/src/mm_misc.c                   \
    src/mpid/mm/src/mm_part.c                   \
    src/mpid/mm/src/mm_dynproc.c                \
    src/mpid/mm/src/mm_ulfm.c                   \
    src/mpid/mm/methods/mm_methods.c            \
    src/mpid/mm/rma/mm_win.c                    \
    src/mpid/mm/rma/mm_win_registry.c           \
    src/mpid/mm/rma/mm_rma_ops.c                \
    src/mpid/mm/rma/mm_rma_wire.c               \
    src/mpid/mm/rma/mm_rma_target.c             \
    src/mpid/mm/rma/mm_rma_atomic.c             \
    src/mpid/mm/rma/mm_rma_kernels.c            \
    src/mpid/mm/rma/mm_rma_direct.c             \
    src/mpid/mm/rma/mm_rma_rmw.c                \
    src/mpid/mm/rma/mm_rma_nic.c                \
    src/mpid/mm/rma/mm_rma_lockword.c           \
    src/mpid/mm/rma/mm_rma_sync.c

# Each method's folder builds itself (its Makefile.mk, under its own BUILD_MM_<NAME> from
# its subconfigure.m4); the registry (methods/mm_methods.c) names it.
include $(top_srcdir)/src/mpid/mm/methods/self/Makefile.mk
include $(top_srcdir)/src/mpid/mm/methods/shm/Makefile.mk
include $(top_srcdir)/src/mpid/mm/methods/ib/Makefile.mk
include $(top_srcdir)/src/mpid/mm/methods/tcp/Makefile.mk

endif BUILD_MM
