[#] start of __file__
dnl The shm method: built whenever the mm device is (MPIDU_Init_shm gives it the node's
dnl segment). Cross-memory attach, its single-copy path, needs process_vm_readv/writev;
dnl without them shm_cma.c refuses every get and payloads go through cells.
dnl MPICH_SUBCFG_AFTER=src/mpid/mm

AC_DEFUN([PAC_SUBCFG_PREREQ_]PAC_SUBCFG_AUTO_SUFFIX,[
AM_CONDITIONAL([BUILD_MM_SHM],[test "$device_name" = "mm"])
])

AC_DEFUN([PAC_SUBCFG_BODY_]PAC_SUBCFG_AUTO_SUFFIX,[
AM_COND_IF([BUILD_MM_SHM],[
AC_CHECK_HEADERS([sys/uio.h])
AC_CHECK_FUNCS([process_vm_readv process_vm_writev])
])
])

[#] end of __file__
