[#] start of __file__
dnl The mm device is ordered before the common modules it switches on, because their
dnl PREREQ conditionals read the build_mpid_common_* flags set here.
dnl MPICH_SUBCFG_BEFORE=src/mpid/common/sched
dnl MPICH_SUBCFG_BEFORE=src/mpid/common/thread
dnl MPICH_SUBCFG_BEFORE=src/mpid/common/shm

AC_DEFUN([PAC_SUBCFG_PREREQ_]PAC_SUBCFG_AUTO_SUFFIX,[
AM_CONDITIONAL([BUILD_MM],[test "$device_name" = "mm"])

AM_COND_IF([BUILD_MM],[
# MPIR's NBC schedules and nonblocking context ids only exist through MPIDU_Sched;
# the thread critical sections come from the common fallback; the shm method builds its
# node segment with MPIDU_Init_shm.
build_mpid_common_sched=yes
build_mpid_common_thread=yes
build_mpid_common_shm=yes

MPID_MAX_THREAD_LEVEL=MPI_THREAD_MULTIPLE
MPID_MAX_PROCESSOR_NAME=128
MPID_MAX_ERROR_STRING=512

# device_args (--with-device=mm:...) is reserved for a future compile-time method list.
DEVICE="${device_name}"
])dnl end AM_COND_IF(BUILD_MM)
])dnl end PREREQ

AC_DEFUN([PAC_SUBCFG_BODY_]PAC_SUBCFG_AUTO_SUFFIX,[
AM_COND_IF([BUILD_MM],[
AC_MSG_NOTICE([RUNNING CONFIGURE FOR MM DEVICE])
AC_CHECK_HEADERS([sched.h linux/futex.h sys/syscall.h])
AC_CHECK_FUNCS([sched_yield])
dnl Each method checks what it needs in its own folder (methods/*/subconfigure.m4).
])dnl end AM_COND_IF(BUILD_MM)
])dnl end BODY

[#] end of __file__
