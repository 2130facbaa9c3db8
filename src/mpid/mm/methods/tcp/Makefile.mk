##
## The tcp method (anyone reachable by IP). Included by the device's Makefile.mk inside its
## BUILD_MM guard; BUILD_MM_TCP and the checks come from this folder's subconfigure.m4.
##

if BUILD_MM_TCP

noinst_HEADERS +=                               \
    src/mpid/mm/methods/tcp/tcp_impl.h          \
    src/mpid/mm/methods/tcp/tcp_card.h

mpi_core_sources +=                             \
    src/mpid/mm/methods/tcp/tcp_init.c          \
    src/mpid/mm/methods/tcp/tcp_conn.c          \
    src/mpid/mm/methods/tcp/tcp_card.c          \
    src/mpid/mm/methods/tcp/tcp_send.c          \
    src/mpid/mm/methods/tcp/tcp_recv.c          \
    src/mpid/mm/methods/tcp/tcp_progress.c

endif BUILD_MM_TCP
