[#] start of __file__
dnl The ib method: built with the mm device where rdma-core's libibverbs and librdmacm
dnl (Debian: libibverbs-dev, librdmacm-dev) are found; otherwise left out, and the
dnl registry skips it. Whether a device is there is decided at run time, not here.
dnl MPICH_SUBCFG_AFTER=src/mpid/mm

AC_DEFUN([PAC_SUBCFG_PREREQ_]PAC_SUBCFG_AUTO_SUFFIX,[
mm_ib_ok=no
if test "$device_name" = "mm" ; then
    mm_ib_ok=yes
    AC_CHECK_HEADERS([infiniband/verbs.h rdma/rdma_cma.h],[],[mm_ib_ok=no])
    if test "$mm_ib_ok" = yes ; then
        AC_CHECK_LIB([ibverbs],[ibv_open_device],[:],[mm_ib_ok=no])
    fi
    if test "$mm_ib_ok" = yes ; then
        AC_CHECK_LIB([rdmacm],[rdma_create_event_channel],[:],[mm_ib_ok=no],[-libverbs])
    fi
    if test "$mm_ib_ok" = yes ; then
        PAC_LIBS_ADD([-lrdmacm -libverbs])
    else
        AC_MSG_NOTICE([mm: no libibverbs/librdmacm (Debian: libibverbs-dev librdmacm-dev); the ib method is left out])
    fi
fi
AM_CONDITIONAL([BUILD_MM_IB],[test "$mm_ib_ok" = "yes"])
])

AC_DEFUN([PAC_SUBCFG_BODY_]PAC_SUBCFG_AUTO_SUFFIX,[
])

[#] end of __file__
