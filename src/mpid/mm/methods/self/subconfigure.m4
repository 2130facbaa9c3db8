[#] start of __file__
dnl The self method: nothing to check; built whenever the mm device is.
dnl MPICH_SUBCFG_AFTER=src/mpid/mm

AC_DEFUN([PAC_SUBCFG_PREREQ_]PAC_SUBCFG_AUTO_SUFFIX,[
AM_CONDITIONAL([BUILD_MM_SELF],[test "$device_name" = "mm"])
])

AC_DEFUN([PAC_SUBCFG_BODY_]PAC_SUBCFG_AUTO_SUFFIX,[
])

[#] end of __file__
