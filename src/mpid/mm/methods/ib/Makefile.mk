##
## The ib method (RDMA verbs: InfiniBand, RoCE, iWARP). Included by the device's
## Makefile.mk inside its BUILD_MM guard; BUILD_MM_IB and the checks for libibverbs and
## librdmacm come from this folder's subconfigure.m4.
##

if BUILD_MM_IB

noinst_HEADERS +=                               \
    src/mpid/mm/methods/ib/ib_impl.h            \
    src/mpid/mm/methods/ib/ib_card.h

mpi_core_sources +=                             \
    src/mpid/mm/methods/ib/ib_init.c            \
    src/mpid/mm/methods/ib/ib_conn.c            \
    src/mpid/mm/methods/ib/ib_card.c            \
    src/mpid/mm/methods/ib/ib_send.c            \
    src/mpid/mm/methods/ib/ib_recv.c            \
    src/mpid/mm/methods/ib/ib_rdma.c            \
    src/mpid/mm/methods/ib/ib_atomic.c          \
    src/mpid/mm/methods/ib/ib_progress.c

endif BUILD_MM_IB
