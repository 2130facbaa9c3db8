##
## The self method (a process's messages to itself): no wire, nothing to check for.
## Included by the device's Makefile.mk inside its BUILD_MM guard.
##

if BUILD_MM_SELF

mpi_core_sources += src/mpid/mm/methods/self/self_method.c

endif BUILD_MM_SELF
