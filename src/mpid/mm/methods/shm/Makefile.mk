##
## The shm method (processes of one node). Included by the device's Makefile.mk inside its
## BUILD_MM guard; BUILD_MM_SHM and the checks come from this folder's subconfigure.m4.
##

if BUILD_MM_SHM

noinst_HEADERS += src/mpid/mm/methods/shm/shm_impl.h

mpi_core_sources +=                             \
    src/mpid/mm/methods/shm/shm_init.c          \
    src/mpid/mm/methods/shm/shm_cma.c           \
    src/mpid/mm/methods/shm/shm_fbox.c          \
    src/mpid/mm/methods/shm/shm_queue.c         \
    src/mpid/mm/methods/shm/shm_send.c          \
    src/mpid/mm/methods/shm/shm_progress.c      \
    src/mpid/mm/methods/shm/shm_life.c

endif BUILD_MM_SHM
